"""Pseudo-labels for ``../shared/data/crops-unlabelled`` (1050 real single-tile crops, no labels).

Why: the labelled crops have 10-25 examples per face; these add ~1000 more real tiles from other
sets. How: a classifier trained without them reads each crop; confident readings are kept and
then checked by eye on contact sheets grouped by code (``reviewed`` in the manifest records
which were). A crop is left out when it looks like a crop of a validation set (normalised
correlation of small grey thumbnails with any validation crop above :data:`LEAK_CORRELATION`),
because the same physical set may appear in both folders and would leak into training.

The shipped file was made with the first model (crops + art only, calibrated temperature 0.60):
1000 of 1050 crops confident, all 1000 checked by eye on contact sheets sorted by code; two were
unsure and set to ``unknown`` by hand (records say ``left out on review``). Re-running this
module overwrites that review, so do it only with a new review.

Output: ``datasets/real-labels/crops-unlabelled.jsonl`` (manifest lines, images referenced by
path relative to the manifest, never copied).
"""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

from vision.dataset.crops import load_labelled_crops
from vision.dataset.manifest import ManifestRecord, TileLabel, write_manifest
from vision.dataset.paths import REPO_ROOT, shared_data_dir
from vision.imageio import read_bgr
from vision.models.classifier import TileClassifier

MANIFEST_PATH = REPO_ROOT / "datasets" / "real-labels" / "crops-unlabelled.jsonl"
SOURCE = "crops-unlabelled: Camerash/mahjong-dataset (MIT)"
#: Keep a pseudo-label only above this calibrated probability.
MIN_CONFIDENCE = 0.9
#: Thumbnail correlation above which a crop is treated as the same set as a validation crop.
LEAK_CORRELATION = 0.92


def thumbnails(images: list[np.ndarray]) -> np.ndarray:
    """Zero-mean, unit-norm 24x32 grey thumbnails as rows (for normalised correlation)."""
    rows = []
    for image in images:
        grey = cv2.cvtColor(cv2.resize(image, (24, 32), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
        vector = grey.astype(np.float32).ravel()
        vector -= vector.mean()
        rows.append(vector / (np.linalg.norm(vector) + 1e-6))
    return np.stack(rows) if rows else np.zeros((0, 24 * 32), np.float32)


def pseudo_label(classifier: TileClassifier, folder: Path | None = None) -> list[ManifestRecord]:
    """One record per unlabelled crop: the model's code if confident and not a validation look-alike."""
    folder = folder or shared_data_dir() / "crops-unlabelled" / "images"
    paths = sorted(folder.glob("*.jpg"), key=lambda p: int(p.stem) if p.stem.isdigit() else 0)
    kept = [(path, read_bgr(path)) for path in paths]
    ranked = classifier.classify_crops([image for _, image in kept], top_k=2)
    validation = thumbnails([read_bgr(c.path) for c in load_labelled_crops("val")])
    similarity = thumbnails([image for _, image in kept]) @ validation.T
    records = []
    for (path, image), candidates, nearest in zip(kept, ranked, similarity.max(axis=1), strict=True):
        code, probability = candidates[0]
        height, width = image.shape[:2]
        leak = bool(nearest > LEAK_CORRELATION)
        confident = probability >= MIN_CONFIDENCE and not leak
        tile = TileLabel(code=code if confident else "unknown", box=(0, 0, width, height),
                         extra={"model_code": code, "model_probability": round(probability, 4)})
        records.append(ManifestRecord(
            image=_relative(path), width=width, height=height, tiles=[tile], split="train",
            source=SOURCE, reviewed=False,
            extra={"label_method": "model pseudo-label" if confident else
                   ("left out: looks like a validation-set crop" if leak else "left out: not confident"),
                   "validation_similarity": round(float(nearest), 3)},
        ))
    return records


def _relative(path: Path) -> str:
    depth = len(MANIFEST_PATH.parent.relative_to(REPO_ROOT.parent).parts)
    return str(Path(*([".."] * depth)) / path.resolve().relative_to(REPO_ROOT.parent.resolve()))


if __name__ == "__main__":
    model = Path(sys.argv[1]) if len(sys.argv) > 1 else None
    write_manifest(MANIFEST_PATH, pseudo_label(TileClassifier(model)))
    print(f"wrote {MANIFEST_PATH}")
