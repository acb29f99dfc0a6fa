"""Training data for the tile classifier: where the crops come from (``classifier_batches`` draws
batches of them and ``classifier_augment`` turns each into a photo-like view).

Sources (all read from ``../shared/data`` or the project's own manifests, never copied):

- real single-tile crops, training sets only (``vision.dataset.crops``);
- tile art: FluffyStuff (CC0; faces drawn on its blank ``Front``, and the only ``Back``) and the
  Unicode set (public domain; all 42 faces, the only flower/season art);
- real table-photo crops labelled by us (``datasets/real-labels/table-photos.jsonl``), train part;
- real unlabelled crops our first model labelled confidently (``datasets/real-labels/crops-unlabelled.jsonl``,
  see ``vision.training.classifier_pseudo``);
- optionally (``TrainConfig.set_photo_flowers``) the flowers and seasons of five physical sets,
  boxed and labelled by us in the shared set photos (``datasets/real-labels/set-photo-flowers.jsonl``;
  ``datasets/DATA_CARD.md`` says which were already among the pseudo-labelled crops);
- procedurally drawn tile backs (plain coloured bodies, as on Taiwanese automatic tables), because
  the shared data holds a single piece of back art;
- procedurally drawn flowers and seasons (``TrainConfig.procedural_flower_share`` of their draws):
  each from a fresh random set whose picture says nothing about the face, so only the number and
  the name can tell them apart. The real data holds 8 flower crops per physical set, and the
  shipped model, trained without these, reads held-out set-297's winter as spring at 0.97;
- optionally (``TrainConfig.synth_scenes``, off in the shipped recipe) crops of rendered training
  scenes (:func:`synthetic_samples`), drawn for ``classifier_batches.SYNTH_SHARE`` of a face
  class's samples.

The procedural backs and flowers are drawn as batches are (``classifier_batches``), the rest here.

Every size here follows the model's input size (``InputSize``, from ``TrainConfig.input_height``):
sources are stored at twice it, and the default is the first models' 64x48.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from scoring.tiles import VISION_CODES
from vision.dataset.crops import load_labelled_crops
from vision.dataset.manifest import TileLabel, image_path, read_manifest
from vision.dataset.paths import REPO_ROOT, shared_data_dir
from vision.imageio import load_image, read_bgr
from vision.models.crops import BOX_MARGIN, DEFAULT_INPUT_SIZE, InputSize, crop_detection
from vision.training.classifier_labels import is_sideways, resolve_image
from vision.types import Detection

CLASS_INDEX = {code: index for index, code in enumerate(VISION_CODES)}
REAL_LABELS_MANIFEST = REPO_ROOT / "datasets" / "real-labels" / "table-photos.jsonl"
PSEUDO_LABELS_MANIFEST = REPO_ROOT / "datasets" / "real-labels" / "crops-unlabelled.jsonl"
SET_PHOTO_FLOWERS_MANIFEST = REPO_ROOT / "datasets" / "real-labels" / "set-photo-flowers.jsonl"

_FLUFFY_NAMES = {
    **{f"Man{r}": f"{r}m" for r in range(1, 10)}, **{f"Pin{r}": f"{r}p" for r in range(1, 10)},
    **{f"Sou{r}": f"{r}s" for r in range(1, 10)}, "Man5-Dora": "5m", "Pin5-Dora": "5p", "Sou5-Dora": "5s",
    "Ton": "1z", "Nan": "2z", "Shaa": "3z", "Pei": "4z", "Haku": "5z", "Hatsu": "6z", "Chun": "7z",
}
_UNICODE_NAMES = {
    **{f"{r}{s}": f"{r}{s}" for r in range(1, 10) for s in "mps"},
    "E": "1z", "S": "2z", "W": "3z", "N": "4z", "P": "5z", "F": "6z", "C": "7z",
    **{f"f{n}": f"{n}f" for n in range(1, 5)}, **{f"s{n}": f"{n + 4}f" for n in range(1, 5)},
}


def store_size(size: InputSize) -> InputSize:
    """Source images are kept in memory at twice the model input, so every view is a shrink."""
    return InputSize(2 * size.height, 2 * size.width)


@dataclass
class Sample:
    """One stored source crop (BGR, at :func:`store_size` of the model input) and its class."""

    image: np.ndarray
    label: int
    source: str


def load_sources(
    include_table_photos: bool = True,
    data_dir: Path | None = None,
    real_labels: Path = REAL_LABELS_MANIFEST,
    exclude_sets: frozenset[str] = frozenset(),
    size: InputSize = DEFAULT_INPUT_SIZE,
    set_photo_flowers: bool = False,
) -> list[Sample]:
    """Every training source crop, stored for a model of input ``size`` (``exclude_sets`` left out;
    the set photos' flowers only when asked, so earlier recipes keep their sources)."""
    data_dir = data_dir or shared_data_dir()
    samples = [Sample(store_crop(read_bgr(crop.path), size), CLASS_INDEX[crop.code], "real-crop")
               for crop in load_labelled_crops("train", data_dir) if crop.set_id not in exclude_sets]
    samples += art_samples(data_dir / "art", size)
    if include_table_photos and real_labels.is_file():
        samples += table_photo_samples(real_labels, "train", size)
    if include_table_photos and PSEUDO_LABELS_MANIFEST.is_file():
        samples += pseudo_labelled_samples(PSEUDO_LABELS_MANIFEST, data_dir, size)
    if set_photo_flowers:
        samples += set_photo_samples(SET_PHOTO_FLOWERS_MANIFEST, data_dir, size)
    return samples


def set_photo_samples(manifest: Path, data_dir: Path, size: InputSize = DEFAULT_INPUT_SIZE) -> list[Sample]:
    """The boxed tiles of our set-photo labels, cut as the runtime cuts a box. Loaded as the runtime
    loads a photo (``vision.imageio.load_image``): one of them is a GIF, which OpenCV cannot open."""
    samples = []
    for record in read_manifest(manifest):
        path = image_path(record, manifest)
        if not path.is_file():
            path = data_dir / "set-photos" / "unlabelled-sets" / Path(record.image).name
        image = load_image(path)
        for tile in record.tiles:
            if tile.code in CLASS_INDEX:
                crop = crop_detection(image, Detection(box=tile.box, score=1.0))
                samples.append(Sample(store_crop(crop, size), CLASS_INDEX[tile.code], "set-photo"))
    return samples


def pseudo_labelled_samples(
    manifest: Path, data_dir: Path, size: InputSize = DEFAULT_INPUT_SIZE
) -> list[Sample]:
    """The unlabelled real crops our model labelled confidently (``unknown`` ones are skipped)."""
    samples = []
    for record in read_manifest(manifest):
        code = record.tiles[0].code if record.tiles else "unknown"
        if code not in CLASS_INDEX:
            continue
        path = image_path(record, manifest)
        if not path.is_file():
            path = data_dir / "crops-unlabelled" / "images" / Path(record.image).name
        if path.is_file():
            samples.append(Sample(store_crop(read_bgr(path), size), CLASS_INDEX[code], "pseudo-crop"))
    return samples


def art_samples(art_dir: Path, size: InputSize = DEFAULT_INPUT_SIZE) -> list[Sample]:
    """FluffyStuff faces composited on its blank tile, its back, and the Unicode renders."""
    samples: list[Sample] = []
    for style in ("Regular", "Black"):
        folder = art_dir / "fluffystuff" / "png" / style
        front_path = folder / "Front.png"
        for name, code in _FLUFFY_NAMES.items():
            face_path = folder / f"{name}.png"
            if not (face_path.is_file() and front_path.is_file()):
                continue
            face = read_bgr(face_path, cv2.IMREAD_UNCHANGED)
            image = store_crop(_flatten(_over(face, read_bgr(front_path, cv2.IMREAD_UNCHANGED))), size)
            samples.append(Sample(image, CLASS_INDEX[code], "art-fluffy"))
        if (folder / "Back.png").is_file():
            back = read_bgr(folder / "Back.png", cv2.IMREAD_UNCHANGED)
            samples.append(Sample(store_crop(_flatten(back), size), CLASS_INDEX["back"], "art-fluffy"))
    for style in ("uni", "unib"):
        folder = art_dir / "unicode-set" / "png" / style
        for name, code in _UNICODE_NAMES.items():
            if (folder / f"{name}.png").is_file():
                image = read_bgr(folder / f"{name}.png", cv2.IMREAD_UNCHANGED)
                samples.append(Sample(store_crop(_flatten(image), size), CLASS_INDEX[code], "art-unicode"))
    return samples


def table_photo_samples(manifest: Path, split: str, size: InputSize = DEFAULT_INPUT_SIZE) -> list[Sample]:
    """Our labelled table-photo tiles in ``split`` as stored training samples."""
    return [Sample(store_crop(crop, size), CLASS_INDEX[code], "table-photo")
            for crop, code in table_photo_crops(manifest, split)]


def _over(face: np.ndarray, body: np.ndarray) -> np.ndarray:
    """Alpha-composite a BGRA face drawing over a BGRA tile body of the same size."""
    alpha = face[:, :, 3:4].astype(np.float32) / 255.0
    out = body.copy()
    out[:, :, :3] = (face[:, :, :3] * alpha + body[:, :, :3] * (1 - alpha)).astype(np.uint8)
    out[:, :, 3] = np.maximum(body[:, :, 3], face[:, :, 3])
    return out


def _flatten(bgra: np.ndarray, background: tuple[int, int, int] = (60, 110, 50)) -> np.ndarray:
    """BGRA -> BGR on a felt-green background, cropped to the drawn tile."""
    if bgra.ndim == 3 and bgra.shape[2] == 4:
        alpha = bgra[:, :, 3:4].astype(np.float32) / 255.0
        ys, xs = np.nonzero(bgra[:, :, 3] > 10)
        bgr = (bgra[:, :, :3] * alpha + np.array(background, np.float32) * (1 - alpha)).astype(np.uint8)
        if len(xs):
            bgr = bgr[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
        return bgr
    return bgra


def store_crop(image: np.ndarray, size: InputSize) -> np.ndarray:
    """A source crop resized to the stored size of a model reading ``size`` (:func:`store_size`)."""
    if image is None:
        raise ValueError("unreadable training image")
    stored = store_size(size)
    return cv2.resize(image, (stored.width, stored.height), interpolation=cv2.INTER_AREA)


def load_eval_crops(
    split: str = "val",
    data_dir: Path | None = None,
    real_labels: Path = REAL_LABELS_MANIFEST,
    reviewed_only: bool = False,
) -> dict[str, tuple[list[np.ndarray], list[str]]]:
    """Held-out crops by dataset name (``crops`` and, if labelled, ``table-photos``): images and codes."""
    sets: dict[str, tuple[list[np.ndarray], list[str]]] = {}
    crops = load_labelled_crops(split, data_dir)
    sets["crops"] = ([read_bgr(c.path) for c in crops], [c.code for c in crops])
    if real_labels.is_file():
        samples = table_photo_crops(real_labels, split, reviewed_only)
        if samples:
            sets["table-photos"] = ([image for image, _ in samples], [code for _, code in samples])
    return sets


def table_photo_detection(tile: TileLabel) -> Detection:
    """A labelled table-photo tile as the runtime would see it.

    A box alone is cut a quarter turned when it is wider than tall (``crop_detection``; the labels'
    own rule is ``classifier_labels.is_sideways``), as a sideways tile's box is. Our labels say
    which wide boxes stand upright (checked by eye, ``datasets/real-labels/review.json``,
    ``upright``); those get the box as an upright outline, so they are cut upright, as the
    detector's outline of such a tile is.
    """
    x1, y1, x2, y2 = tile.box
    quad = None
    if not tile.rotated and is_sideways(tile.box):
        mx, my = (x2 - x1) * BOX_MARGIN, (y2 - y1) * BOX_MARGIN
        quad = ((x1 - mx, y1 - my), (x2 + mx, y1 - my), (x2 + mx, y2 + my), (x1 - mx, y2 + my))
    return Detection(box=tile.box, score=1.0, rotated=tile.rotated, quad=quad)


def table_photo_crops(
    manifest: Path, split: str, reviewed_only: bool = False
) -> list[tuple[np.ndarray, str]]:
    """(crop, code) for every labelled tile of the table photos in ``split``, cut as the runtime cuts."""
    out = []
    for record in read_manifest(manifest):
        if record.split != split or (reviewed_only and not record.reviewed):
            continue
        path = resolve_image(record, manifest)
        if not path.is_file():
            continue
        image = read_bgr(path)
        for tile in record.tiles:
            if tile.code in CLASS_INDEX:
                crop = crop_detection(image, table_photo_detection(tile))
                out.append((crop, tile.code))
    return out


def synthetic_crops(count: int, seed: int, min_visible: float = 0.8, split: str = "val",
                    size: InputSize = DEFAULT_INPUT_SIZE) -> tuple[list[np.ndarray], list[str]]:
    """Crops of ``count`` freshly rendered scenes (``vision.synth``), cut by their tile outlines.

    The outlines are warped as the runtime warps them for a model of input ``size``.

    ``split="val"`` (evaluation) renders from the validation crop sets only plus tile art: the
    only source of face-down tiles (``back``) to evaluate on; it says nothing about real photos.
    ``split="train"`` (training, :func:`synthetic_samples`) renders from the training crop sets,
    art and procedural sets only, with the colour finish of the real photos.
    """
    from vision.synth import SceneConfig, render_scene

    config = SceneConfig(split="val") if split == "val" else SceneConfig.like_real_photos(split=split)
    images, codes = [], []
    for index in range(count):
        image, record = render_scene(np.random.default_rng([seed, index]), config)
        for tile in record.tiles:
            if tile.code not in CLASS_INDEX or float(tile.extra.get("visible", 1.0)) < min_visible:
                continue
            detection = Detection(box=tile.box, score=1.0, rotated=tile.rotated, face_down=tile.face_down,
                                  quad=tile.quad)
            images.append(crop_detection(image, detection, size))
            codes.append(tile.code)
    return images, codes


def synthetic_samples(count: int, seed: int, size: InputSize = DEFAULT_INPUT_SIZE) -> list[Sample]:
    """Training crops of ``count`` rendered scenes (training crop sets and art only; ``synth``).

    They add what the real data lacks: face-down tiles on real-looking bodies, tiles seen at low
    angles and cut from a warped outline, and many procedural flower sets with their numbers.
    The seed differs from the evaluation renders' (``scripts/evaluate.py`` uses seed 90210, val split).
    """
    images, codes = synthetic_crops(count, seed, split="train", size=size)
    pairs = zip(images, codes, strict=True)
    return [Sample(store_crop(image, size), CLASS_INDEX[code], "synth") for image, code in pairs]


def describe_sources(samples: list[Sample]) -> str:
    """One line per source: how many crops each contributed (for the training log)."""
    counts: dict[str, int] = {}
    for sample in samples:
        counts[sample.source] = counts.get(sample.source, 0) + 1
    return json.dumps(counts)
