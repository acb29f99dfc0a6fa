"""Training data for the tile classifier: where the crops come from and how they are augmented.

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
  scenes (:func:`synthetic_samples`), drawn for :data:`SYNTH_SHARE` of a face class's samples.

Augmentation imitates what a detector crop of a phone photo looks like: perspective and crop
jitter, a quarter of the time upside down, stretched aspect (the table photos are squashed to
640x640), tiny resolution then upscaling, blur, colour casts, grey photos, noise and JPEG.

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
from vision.models.crops import BOX_MARGIN, DEFAULT_INPUT_SIZE, InputSize, crop_detection, preprocess_crops
from vision.synth.procedural import random_face
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


def procedural_back(rng: np.random.Generator, size: InputSize = DEFAULT_INPUT_SIZE) -> np.ndarray:
    """A face-down tile: a plain coloured body with shading, maybe showing its white face layer.

    Drawn at the store size of ``size``; edge widths and the mark scale with it (pixel figures
    below are for the 128x96 store of a 64x48 model, whose draws they reproduce exactly).
    """
    stored = store_size(size)
    height, width = stored.height, stored.width
    scale = height / 128
    hue = int(rng.integers(0, 180))
    saturation = int(rng.integers(90, 255))
    value = int(rng.integers(90, 240))
    hsv = np.zeros((height, width, 3), np.uint8)
    hsv[:] = (hue, saturation, value)
    body = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR).astype(np.float32)
    gradient = np.linspace(rng.uniform(0.75, 1.0), rng.uniform(1.0, 1.2), height)[:, None, None]
    body = np.clip(body * gradient, 0, 255)
    if rng.random() < 0.5:  # the ivory face layer seen along one edge of a tilted tile
        thickness = max(1, round(int(rng.integers(3, 14)) * scale))
        ivory = np.array([rng.uniform(200, 250)] * 3, np.float32)
        edge = int(rng.integers(4))
        if edge == 0:
            body[:thickness] = ivory
        elif edge == 1:
            body[-thickness:] = ivory
        elif edge == 2:
            body[:, :thickness] = ivory
        else:
            body[:, -thickness:] = ivory
    if rng.random() < 0.5:  # a moulded pattern or logo on the back
        centre = (width // 2 + round(int(rng.integers(-6, 7)) * scale),
                  height // 2 + round(int(rng.integers(-6, 7)) * scale))
        centre_colour = body[height // 2, width // 2] * rng.uniform(0.7, 1.3)
        shade = tuple(float(v) for v in np.clip(centre_colour, 0, 255))
        radius = round(int(rng.integers(6, 30)) * scale)
        line = int(rng.integers(-1, 4))
        cv2.circle(body, centre, radius, shade, line if line < 1 else max(1, round(line * scale)))
    return body.astype(np.uint8)


#: Share of a face class's draws that come from rendered-scene crops (the rest: real photos and art).
SYNTH_SHARE = 0.2

#: The smallest a tile gets in a photo before the crop scales it up (pixels, whatever the model size).
SMALLEST_TILE_PX = 18

_BACKGROUNDS = ((60, 110, 50), (70, 140, 60), (90, 90, 90), (120, 150, 180), (40, 40, 40), (200, 200, 200))


#: Share of views cut along a turned window when outline turns are on (``AugmentedCrops``).
OUTLINE_TURN_SHARE = 0.5
#: How far a tile lies askew inside its box in the askew-box views (degrees, either way; ``augment``):
#: from plainly turned to the diagonal of the table photos' worst case.
ASKEW_BOX_TURN = (15.0, 50.0)
#: The largest share of a view one occluding patch covers (``occlude``): enough to hide a third of
#: a face as a finger, glare or a pasted square does, not so much that the face is gone.
OCCLUSION_MAX_AREA = 0.3


def occlude(view: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``view`` with one rectangle covered: solid (white, black, grey or any colour) or see-through.

    Why: the real table photos hide parts of faces (fingers, glare, neighbours; their uploaded
    copies also carry pasted white and black squares), and a model that never saw a hidden part
    reads what remains as another face with confidence (a 9p under a pale square read 2z at 0.95).
    """
    height, width = view.shape[:2]
    area = rng.uniform(0.08, OCCLUSION_MAX_AREA) * height * width
    aspect = np.exp(rng.uniform(np.log(0.5), np.log(2.0)))
    patch_h = int(np.clip(np.sqrt(area * aspect), 2, height))
    patch_w = int(np.clip(area / max(patch_h, 1), 2, width))
    top = int(rng.integers(0, height - patch_h + 1))
    left = int(rng.integers(0, width - patch_w + 1))
    kind = rng.random()
    if kind < 0.3:
        colour = np.full(3, 255.0 * rng.uniform(0.85, 1.0))
    elif kind < 0.55:
        colour = np.full(3, 255.0 * rng.uniform(0.0, 0.15))
    elif kind < 0.75:
        colour = np.full(3, rng.uniform(60, 200))
    else:
        colour = rng.uniform(0, 255, size=3)
    opacity = 1.0 if rng.random() < 0.5 else rng.uniform(0.35, 0.8)
    out = view.copy()
    region = out[top:top + patch_h, left:left + patch_w].astype(np.float32)
    out[top:top + patch_h, left:left + patch_w] = np.clip(
        region * (1 - opacity) + colour * opacity, 0, 255).astype(np.uint8)
    return out


def askew_box(corners: np.ndarray, turn: float) -> np.ndarray:
    """The axis-aligned box around the tile ``corners`` (4,2) once the tile is turned ``turn`` radians,
    as corners in the tile's frame: warped to an upright view it shows the tile turned inside its
    box, with the background in the box's corners, as a box label or a box-only detector frames a
    tile lying askew (the table photos' 8f at 45 degrees)."""
    centre = corners.mean(axis=0)
    width = float(np.linalg.norm(corners[1] - corners[0]))
    height = float(np.linalg.norm(corners[3] - corners[0]))
    cos, sin = abs(np.cos(turn)), abs(np.sin(turn))
    half = np.array([width * cos + height * sin, width * sin + height * cos], np.float32) / 2
    box = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float32) * half
    return turned_about(box, -turn, np.zeros(2, np.float32)) + centre


def turned_about(points: np.ndarray, turn: float, centre: np.ndarray) -> np.ndarray:
    """``points`` (n,2) turned ``turn`` radians about ``centre``, as float32 (the views' warp corners)."""
    rotation = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]], np.float32)
    return ((points - centre) @ rotation.T + centre).astype(np.float32)


def augment(image: np.ndarray, rng: np.random.Generator, size: InputSize = DEFAULT_INPUT_SIZE,
            outline_turn_degrees: float = 0.0, occlusion_share: float = 0.0,
            askew_box_share: float = 0.0) -> np.ndarray:
    """One random phone-photo-like view of a stored crop, between 1 and 2 times ``size`` (BGR uint8).

    ``outline_turn_degrees``: :data:`OUTLINE_TURN_SHARE` of the views are cut along a window turned
    up to that much about the crop's centre, as the runtime cuts a face along a detector outline
    that came out turned against the tile (20-45 degrees on the sideways and slanted tiles of the
    renders). ``occlusion_share``: that share of the views get one rectangle covered (:func:`occlude`).
    ``askew_box_share``: that share of the views show the tile turned :data:`ASKEW_BOX_TURN` inside
    the axis-aligned box around it (:func:`askew_box`), instead of a turned window.
    0 for any of them draws nothing more from ``rng``, so earlier recipes' views are unchanged."""
    height, width = image.shape[:2]
    background = _BACKGROUNDS[int(rng.integers(len(_BACKGROUNDS)))]
    # Perspective + crop jitter: each corner moves independently; the box may be loose or tight.
    corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    jitter = rng.uniform(-0.09, 0.09, size=(4, 2)) * np.array([width, height], np.float32)
    jitter += rng.uniform(-0.04, 0.06) * np.array([[-width, -height], [width, -height],
                                                   [width, height], [-width, height]], np.float32)
    source = (corners + jitter).astype(np.float32)
    if askew_box_share > 0 and rng.random() < askew_box_share:
        turn = np.deg2rad(rng.uniform(*ASKEW_BOX_TURN)) * rng.choice((-1.0, 1.0))
        source = (askew_box(corners, turn) + jitter).astype(np.float32)
    elif outline_turn_degrees > 0 and rng.random() < OUTLINE_TURN_SHARE:
        turn = np.deg2rad(rng.uniform(-outline_turn_degrees, outline_turn_degrees))
        source = turned_about(source, turn, source.mean(axis=0))
    if rng.random() < 0.5:  # upside down: the runtime cannot tell which way a sideways tile turns
        source = np.roll(source, 2, axis=0)
    out_h = int(rng.integers(size.height, 2 * size.height + 1))
    out_w = int(round(out_h * size.width / size.height * rng.uniform(0.8, 1.25)))
    target = np.array([[0, 0], [out_w, 0], [out_w, out_h], [0, out_h]], np.float32)
    matrix = cv2.getPerspectiveTransform(source, target)
    border = cv2.BORDER_REPLICATE if rng.random() < 0.5 else cv2.BORDER_CONSTANT
    view = cv2.warpPerspective(image, matrix, (out_w, out_h), flags=cv2.INTER_LINEAR, borderMode=border,
                               borderValue=background)
    if rng.random() < 0.5:  # tiny in the photo, then scaled up by the crop
        # From the smallest photo tiles (a fixed pixel count: photos do not change with the model)
        # up to three quarters of the input height (18-48 px for a 64 px input).
        small_h = int(rng.integers(SMALLEST_TILE_PX, size.height * 3 // 4))
        small_w = max(8, int(small_h * out_w / out_h))
        view = cv2.resize(cv2.resize(view, (small_w, small_h), interpolation=cv2.INTER_AREA), (out_w, out_h),
                          interpolation=cv2.INTER_LINEAR)
    if occlusion_share > 0 and rng.random() < occlusion_share:
        view = occlude(view, rng)
    if rng.random() < 0.3:
        view = cv2.GaussianBlur(view, (0, 0), rng.uniform(0.4, 1.4))
    if rng.random() < 0.25:  # strong colour casts (a magenta-lit table): faces stay faces
        hsv = cv2.cvtColor(view, cv2.COLOR_BGR2HSV)
        hsv[:, :, 0] = ((hsv[:, :, 0].astype(np.int16) + int(rng.integers(0, 180))) % 180).astype(np.uint8)
        view = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    view = view.astype(np.float32)
    view *= rng.uniform(0.85, 1.15, size=3)  # white balance
    view = (view - 128) * rng.uniform(0.6, 1.3) + 128 + rng.uniform(-40, 40)  # contrast, brightness
    if rng.random() < 0.15:
        view[:] = view.mean(axis=2, keepdims=True)
    if rng.random() < 0.3:
        view += rng.normal(0, rng.uniform(2, 10), size=view.shape)
    view = np.clip(view, 0, 255).astype(np.uint8)
    if rng.random() < 0.4:
        ok, encoded = cv2.imencode(".jpg", view, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 90))])
        if ok:
            view = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
    return view


#: Sources whose flower crops lend their picture to procedural flowers (real tiles, not art).
REAL_PICTURE_SOURCES = ("real-crop", "pseudo-crop", "table-photo", "set-photo", "roboflow")
#: The picture part of a stored flower crop (left, top, right, bottom as fractions): below the
#: name and number in the top third, inside the crop's margin.
PICTURE_CROP = (0.08, 0.38, 0.92, 0.94)
#: Sources whose flower crops show the tile upright and square to the crop, so that the picture
#: part sits where :data:`PICTURE_CROP` says (the table-photo cuts lie askew in their boxes).
UPRIGHT_FLOWER_SOURCES = ("real-crop", "pseudo-crop", "set-photo")


def picture_part(image: np.ndarray) -> np.ndarray:
    """The :data:`PICTURE_CROP` part of a stored flower crop (a view, not a copy)."""
    h, w = image.shape[:2]
    left, top, right, bottom = PICTURE_CROP
    return image[int(top * h):int(bottom * h), int(left * w):int(right * w)]


def crossed_flower(face: np.ndarray, donor: np.ndarray) -> np.ndarray:
    """``face`` with its picture part replaced by ``donor``'s (both stored upright flower crops).

    The name and number stay ``face``'s, so the label does too: a view in which the picture
    points at another face and only the printed name and number are right. Held-out sets paint
    their pictures otherwise (set-297's 菊 3 looks like other sets' plum) and the flower model
    reads them by the picture.
    """
    h, w = face.shape[:2]
    left, top, right, bottom = PICTURE_CROP
    x0, y0, x1, y1 = int(left * w), int(top * h), int(right * w), int(bottom * h)
    picture = cv2.resize(picture_part(donor), (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
    picture = picture.astype(np.float32)
    region = face[y0:y1, x0:x1].astype(np.float32)
    # The donor's paper takes the face's colour (both pictures are mostly paper), and the patch
    # fades in at its edges: a sharp-edged square of other paper would tell the model it is pasted.
    picture *= _paper(region) / np.maximum(_paper(picture), 1)
    alpha = np.outer(_edge_ramp(y1 - y0), _edge_ramp(x1 - x0))[:, :, None]
    out = face.copy()
    out[y0:y1, x0:x1] = np.clip(alpha * picture + (1 - alpha) * region, 0, 255).astype(np.uint8)
    return out


def _paper(region: np.ndarray) -> np.ndarray:
    """The paper colour of a picture part: its median pixel (a tile face is mostly paper)."""
    return np.median(region.reshape(-1, 3), axis=0)


def _edge_ramp(length: int, share: float = 0.12) -> np.ndarray:
    """Weights along one side of a pasted patch: 0 at its ends, rising to 1 over ``share`` of it."""
    steps = np.arange(length)
    return np.clip(np.minimum(steps, steps[::-1]) / (share * length), 0, 1)


class AugmentedCrops:
    """Draws class-balanced, augmented batches from the source samples (and procedural backs)."""

    def __init__(self, samples: list[Sample], seed: int, synth_share: float = SYNTH_SHARE,
                 size: InputSize = DEFAULT_INPUT_SIZE, procedural_flower_share: float = 0.0,
                 outline_turn_degrees: float = 0.0, occlusion_share: float = 0.0,
                 varied_flower_numbers: bool = False, askew_box_share: float = 0.0,
                 crossed_flower_share: float = 0.0) -> None:
        self.samples = samples
        self.crossed_flower_share = crossed_flower_share
        self.varied_flower_numbers = varied_flower_numbers
        self.outline_turn_degrees = outline_turn_degrees
        self.occlusion_share = occlusion_share
        self.askew_box_share = askew_box_share
        self.size = size
        self.rng = np.random.default_rng(seed)
        self.by_class: dict[int, list[int]] = {}
        self.synth_by_class: dict[int, list[int]] = {}
        for index, sample in enumerate(samples):
            pool = self.synth_by_class if sample.source == "synth" else self.by_class
            pool.setdefault(sample.label, []).append(index)
        self.back_label = CLASS_INDEX["back"]
        self.classes = sorted(set(self.by_class) | set(self.synth_by_class) | {self.back_label})
        self.synth_share = synth_share
        self.procedural_flower_share = procedural_flower_share
        self.flower_labels = {CLASS_INDEX[code] for code in VISION_CODES if code.endswith("f")}
        self.real_flowers = [i for i, sample in enumerate(samples) if sample.label in self.flower_labels
                             and sample.source in REAL_PICTURE_SOURCES]
        self.upright_flowers: dict[int, list[int]] = {}
        for index, sample in enumerate(samples):
            if sample.label in self.flower_labels and sample.source in UPRIGHT_FLOWER_SOURCES:
                self.upright_flowers.setdefault(sample.label, []).append(index)

    def batch(self, size: int) -> tuple[np.ndarray, np.ndarray]:
        """``size`` augmented crops (preprocessed NCHW float32) and their labels."""
        labels = self.rng.choice(self.classes, size=size)
        views = []
        for label in labels:
            views.append(augment(self._source(int(label)), self.rng, self.size, self.outline_turn_degrees,
                                 self.occlusion_share, self.askew_box_share))
        return preprocess_crops(views, size=self.size), labels.astype(np.int64)

    def _flower_picture(self) -> np.ndarray | None:
        """The picture part of a random real flower or season crop, of any face (None: there are none).

        Procedural flowers carry it instead of a painted plant: a picture as real sets paint them,
        which then says nothing about the face, so only the drawn name and number do. What it
        did to the held-out sets is in the model card (runs c3 and c4).
        """
        if not self.real_flowers:
            return None
        chosen = self.real_flowers[int(self.rng.integers(len(self.real_flowers)))]
        return picture_part(self.samples[chosen].image)

    def _crossed_flower(self, label: int) -> np.ndarray | None:
        """An upright real ``label`` flower under the picture of another face's (None: none to cross)."""
        own = self.upright_flowers.get(label, [])
        others = [i for other, indices in self.upright_flowers.items() if other != label for i in indices]
        if not own or not others:
            return None
        face = self.samples[own[int(self.rng.integers(len(own)))]].image
        donor = self.samples[others[int(self.rng.integers(len(others)))]].image
        return crossed_flower(face, donor)

    def _source(self, label: int) -> np.ndarray:
        stored = self.by_class.get(label, [])
        synth = self.synth_by_class.get(label, [])
        if label == self.back_label and synth and self.rng.random() < 0.5:
            return self.samples[synth[int(self.rng.integers(len(synth)))]].image
        if label == self.back_label and (not stored or self.rng.random() < 0.8):
            return procedural_back(self.rng, self.size)
        if label in self.flower_labels and self.rng.random() < self.procedural_flower_share:
            face = random_face(VISION_CODES[label], self.rng, self._flower_picture(),
                               varied_numbers=self.varied_flower_numbers)
            return store_crop(face, self.size)
        if label in self.flower_labels and self.crossed_flower_share > 0 \
                and self.rng.random() < self.crossed_flower_share:
            crossed = self._crossed_flower(label)
            if crossed is not None:
                return crossed
        if synth and (not stored or self.rng.random() < self.synth_share):
            return self.samples[synth[int(self.rng.integers(len(synth)))]].image
        # Real photos first: art is a minority so the model learns real sets, not clean drawings.
        real = [i for i in stored if not self.samples[i].source.startswith("art")]
        pool = real if real and self.rng.random() < 0.75 else stored
        return self.samples[pool[int(self.rng.integers(len(pool)))]].image


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
