"""Tile codes for the real table photos (``../shared/data/table-photos``): pre-annotate, review, write.

The photos come with reliable boxes but garbled classes. How our labels are made:

1. Photo groups. Files sharing the prefix before ``_jpg.rf.`` are copies of one photo (Roboflow
   exports with small shifts and crops; same tiles, same count). A group is one unit everywhere:
   it is labelled once, and it lies wholly in one split (:func:`split_for_group`).
2. Pre-annotation. Every box is cropped the way the runtime crops a detection and read by a
   classifier trained without these photos. The upstream class ids that could be checked by eye
   on contact sheets (:data:`UPSTREAM_CODES`: honours 34-40, dots 58-65, bamboo 68-75, characters
   77-85) are kept as a prior; id 47 (three quarters of the boxes) means nothing. The group
   copies are matched tile to tile and their log-probabilities summed, so a group gets one
   consensus reading.
3. Review. The consensus of each group is shown as a contact sheet and checked by eye, crop by
   crop; the confirmed (or corrected) codes are written down in ``datasets/real-labels/review.json``
   (group prefix -> codes in the first copy's box order). Reviewed groups get ``reviewed: true``.
   Groups not reviewed keep the consensus with ``reviewed: false`` and are used for training only.

The manifest (``datasets/real-labels/table-photos.jsonl``) refers to the shared images by a path
relative to itself and stores no pixels.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scoring.tiles import VISION_CODES
from vision.dataset.manifest import UNKNOWN_CODE, ManifestRecord, TileLabel, image_path, write_manifest
from vision.dataset.paths import REPO_ROOT, shared_data_dir
from vision.imageio import read_bgr
from vision.models.classifier import TileClassifier
from vision.models.crops import SIDEWAYS_ASPECT, crop_detection
from vision.types import Detection

REAL_LABELS_DIR = REPO_ROOT / "datasets" / "real-labels"
MANIFEST_PATH = REAL_LABELS_DIR / "table-photos.jsonl"
REVIEW_PATH = REAL_LABELS_DIR / "review.json"
SOURCE = "table-photos: Mahjong_YOLO by Roboflow user test-wmo8i (CC BY 4.0), via haitaks/mahjong"

#: Upstream class ids whose meaning was checked by eye on contact sheets of their crops.
UPSTREAM_CODES: dict[int, str] = {
    34: "1z", 35: "6z", 36: "4z", 37: "7z", 38: "2z", 39: "3z", 40: "5z",
    **{58 + r: f"{r + 1}p" for r in range(8)},
    68: "1s", 69: "2s", 70: "3s", 72: "5s", 73: "6s", 74: "8s", 75: "9s",
    **{77 + r: f"{r + 1}m" for r in range(9)},
}
#: Largest rotation (degrees) between two copies of one photo that box matching searches.
MAX_COPY_ROTATION = 35
#: Weight of the upstream prior, in log-probability units added to its code.
UPSTREAM_PRIOR = 2.0


@dataclass
class PhotoBoxes:
    """One table photo and its upstream boxes (pixels) with their upstream class ids."""

    path: Path
    width: int
    height: int
    boxes: list[tuple[float, float, float, float]]
    upstream_ids: list[int]

    @property
    def group(self) -> str:
        return group_of(self.path.name)


def group_of(filename: str) -> str:
    """``123_456_n_jpg.rf.abc.jpg`` -> ``123_456_n`` (copies of one photo share it)."""
    return filename.split("_jpg.rf.")[0]


def table_photos_dir() -> Path:
    return shared_data_dir() / "table-photos"


def load_photo_boxes(folder: Path | None = None) -> list[PhotoBoxes]:
    """Every table photo with its YOLO boxes converted to pixels, sorted by file name."""
    folder = folder or table_photos_dir()
    photos = []
    for image_file in sorted((folder / "images").glob("*.jpg")):
        label_file = folder / "labels" / f"{image_file.stem}.txt"
        if not label_file.is_file():
            continue
        image = read_bgr(image_file)
        height, width = image.shape[:2]
        boxes, ids = [], []
        for line in label_file.read_text().splitlines():
            parts = line.split()
            if len(parts) != 5:
                continue
            cx, cy, w, h = (float(v) for v in parts[1:])
            x1, y1 = max(0.0, (cx - w / 2) * width), max(0.0, (cy - h / 2) * height)
            x2, y2 = min(float(width), (cx + w / 2) * width), min(float(height), (cy + h / 2) * height)
            if x2 - x1 >= 2 and y2 - y1 >= 2:
                boxes.append((x1, y1, x2, y2))
                ids.append(int(parts[0]))
        photos.append(PhotoBoxes(image_file, width, height, boxes, ids))
    return photos


def split_for_group(group: str) -> str:
    """Fixed split of a photo group: ``val``, ``test`` (calibration only) or ``train``.

    Validation is the detector's rule too (``vision.evaluation.detection.table_photo_split``: first
    byte of the SHA-1 of the group name divisible by 5), so both models are judged on the same
    photos; of the rest, first byte = 1 mod 10 is the calibration part.
    """
    first_byte = hashlib.sha1(group.encode("utf-8")).digest()[0]
    if first_byte % 5 == 0:
        return "val"
    if first_byte % 10 == 1:
        return "test"
    return "train"


def is_sideways(box: tuple[float, float, float, float]) -> bool:
    x1, y1, x2, y2 = box
    return (x2 - x1) > (y2 - y1) * SIDEWAYS_ASPECT


def photo_log_probs(classifier: TileClassifier, photo: PhotoBoxes) -> np.ndarray:
    """Log-probabilities per box (rows in box order, columns in VISION_CODES order) + upstream prior."""
    image = read_bgr(photo.path)
    crops = [crop_detection(image, Detection(box=box, score=1.0)) for box in photo.boxes]
    probabilities = classifier.probabilities(crops)
    order = [classifier.labels.index(code) for code in VISION_CODES]
    log_probs = np.log(np.clip(probabilities[:, order], 1e-6, 1.0))
    for row, upstream in enumerate(photo.upstream_ids):
        code = UPSTREAM_CODES.get(upstream)
        if code is not None:
            log_probs[row, VISION_CODES.index(code)] += UPSTREAM_PRIOR
    return log_probs


def match_boxes(reference: PhotoBoxes, other: PhotoBoxes) -> list[int] | None:
    """For each box of ``reference``, the index of the same tile in ``other`` (None if counts differ).

    Copies differ by a shift, a scale and a rotation of up to ~30 degrees (Roboflow augmentation),
    so centres are normalised (mean 0, unit spread), ``other`` is turned by the angle that best
    lays its centres onto the reference's (searched in 1-degree steps), and the tiles are paired
    greedily by distance, closest pairs first.
    """
    if len(reference.boxes) != len(other.boxes):
        return None
    a, b = _normalised_centres(reference), _normalised_centres(other)
    best_cost, best_b = float("inf"), b
    for degrees in range(-MAX_COPY_ROTATION, MAX_COPY_ROTATION + 1):
        angle = np.deg2rad(degrees)
        rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        turned = b @ rotation.T
        distances = np.linalg.norm(a[:, None, :] - turned[None, :, :], axis=2)
        cost = float(distances.min(axis=1).sum() + distances.min(axis=0).sum())
        if cost < best_cost:
            best_cost, best_b = cost, turned
    distances = np.linalg.norm(a[:, None, :] - best_b[None, :, :], axis=2)
    mapping = [-1] * len(a)
    used: set[int] = set()
    for flat in np.argsort(distances, axis=None):
        i, j = divmod(int(flat), len(b))
        if mapping[i] < 0 and j not in used:
            mapping[i] = j
            used.add(j)
    return mapping


def _normalised_centres(photo: PhotoBoxes) -> np.ndarray:
    centres = np.array([((x1 + x2) / 2 / photo.width, (y1 + y2) / 2 / photo.height)
                        for x1, y1, x2, y2 in photo.boxes])
    centres -= centres.mean(axis=0)
    spread = float(np.sqrt((centres ** 2).sum(axis=1).mean())) or 1.0
    return centres / spread


def group_consensus(classifier: TileClassifier, photos: list[PhotoBoxes]) -> dict[str, dict]:
    """Per group: the reference photo, box mappings of the copies, and consensus codes + confidences."""
    by_group: dict[str, list[PhotoBoxes]] = defaultdict(list)
    for photo in photos:
        by_group[photo.group].append(photo)
    result = {}
    for group, members in by_group.items():
        reference = max(members, key=lambda p: len(p.boxes))
        total = photo_log_probs(classifier, reference)
        mappings = {reference.path.name: list(range(len(reference.boxes)))}
        for other in members:
            if other is reference:
                continue
            mapping = match_boxes(reference, other)
            if mapping is None:
                continue
            mappings[other.path.name] = mapping
            total = total + photo_log_probs(classifier, other)[mapping]
        probabilities = np.exp(total - total.max(axis=1, keepdims=True))
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        codes = [VISION_CODES[int(i)] for i in probabilities.argmax(axis=1)]
        result[group] = {"reference": reference, "members": members, "mappings": mappings,
                         "codes": codes, "confidence": probabilities.max(axis=1).tolist()}
    return result


def load_review(path: Path = REVIEW_PATH) -> dict[str, list[str]]:
    """Reviewed groups: prefix -> codes in the reference copy's box order (checked by eye).

    ``unknown`` marks a tile a person could not read with certainty (e.g. which flower a blurred
    flower tile is); such tiles are left out of training and evaluation.
    """
    if not path.is_file():
        return {}
    obj = json.loads(path.read_text(encoding="utf-8"))
    groups = obj.get("groups", {})
    for group, codes in groups.items():
        bad = [code for code in codes if code not in VISION_CODES and code != UNKNOWN_CODE]
        if bad:
            raise ValueError(f"{path}: group {group}: unknown codes {bad}")
    return groups


def load_upright(path: Path = REVIEW_PATH) -> dict[str, set[int]]:
    """Boxes wider than tall whose tile stands upright (checked by eye): image file -> box indices.

    :func:`is_sideways` takes every wide box for a sideways tile; close-ups and tiles seen from low
    over the table have wide boxes too, and a quarter-turned cut of them teaches and measures the
    classifier on the wrong view.
    """
    if not path.is_file():
        return {}
    obj = json.loads(path.read_text(encoding="utf-8"))
    upright = obj.get("upright", {})
    if not isinstance(upright, dict) or not all(
            isinstance(v, list) and all(isinstance(i, int) for i in v) for v in upright.values()):
        raise ValueError(f"{path}: 'upright' must map image files to lists of box indices")
    return {name: set(indices) for name, indices in upright.items()}


def build_records(consensus: dict[str, dict], review: dict[str, list[str]],
                  manifest_path: Path = MANIFEST_PATH, upright: dict[str, set[int]] | None = None
                  ) -> list[ManifestRecord]:
    """Manifest records for every photo: reviewed codes where we have them, else the consensus."""
    records = []
    for group in sorted(consensus):
        entry = consensus[group]
        reviewed = group in review and len(review[group]) == len(entry["codes"])
        codes = review[group] if reviewed else entry["codes"]
        split = split_for_group(group)
        for photo in sorted(entry["members"], key=lambda p: p.path.name):
            mapping = entry["mappings"].get(photo.path.name)
            photo_codes: list[str | None] = [None] * len(photo.boxes)
            if mapping is not None:
                for reference_index, photo_index in enumerate(mapping):
                    photo_codes[photo_index] = codes[reference_index]
            tiles = []
            standing = (upright or {}).get(photo.path.name, set())
            for index, box in enumerate(photo.boxes):
                code = photo_codes[index] or UNKNOWN_CODE
                tiles.append(TileLabel(code=code, box=box, rotated=is_sideways(box) and index not in standing,
                                       face_down=code == "back",
                                       source_label=f"upstream-id-{photo.upstream_ids[index]}"))
            method = ("reviewed by eye, crop by crop, on a model pre-annotation" if reviewed and mapping
                      else "model pre-annotation (group consensus), not reviewed")
            records.append(ManifestRecord(
                image=_relative_image(photo.path, manifest_path), width=photo.width, height=photo.height,
                tiles=tiles, split=split, set_id=group, source=SOURCE,
                reviewed=bool(reviewed and mapping is not None), extra={"label_method": method},
            ))
    return records


def _relative_image(path: Path, manifest_path: Path) -> str:
    """The image path relative to the manifest folder (``../../../shared/data/...``)."""
    return str(Path(*([".."] * len(manifest_path.parent.relative_to(REPO_ROOT.parent).parts))) /
               path.resolve().relative_to(REPO_ROOT.parent.resolve()))


def resolve_image(record: ManifestRecord, manifest_path: Path = MANIFEST_PATH) -> Path:
    """The image file of a table-photo record, also when the shared data lives elsewhere."""
    direct = image_path(record, manifest_path)
    if direct.is_file():
        return direct
    return table_photos_dir() / "images" / Path(record.image).name


def write_records(records: list[ManifestRecord], path: Path = MANIFEST_PATH) -> None:
    write_manifest(path, records)


def _main() -> None:
    """``python -m vision.training.classifier_labels MODEL.onnx``: rebuild the manifest."""
    import sys

    classifier = TileClassifier(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
    consensus = group_consensus(classifier, load_photo_boxes())
    records = build_records(consensus, load_review(), upright=load_upright())
    write_records(records)
    reviewed = sum(1 for r in records if r.reviewed)
    print(f"wrote {MANIFEST_PATH}: {len(records)} photos, {reviewed} reviewed")


if __name__ == "__main__":
    _main()
