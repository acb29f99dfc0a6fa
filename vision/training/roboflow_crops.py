"""Classifier training crops from the training sources of ``roboflow-chinese``, mirrors left out.

Half the augmented copies show mirrored faces (a mirrored 三萬 labelled 3m), which must never be
trained on. Kept: every photo as uploaded, and the augmented copies of the sources with no
uploaded copy that the mirror test of ``scripts/split_roboflow.py`` found unmirrored (the split
file records the verdicts; an undecided copy is left out too). A source with an uploaded copy
gives only that one: its augmented copies would mostly repeat it, turned inside loose boxes.
Crops are cut from the label boxes as the runtime cuts a box (``crop_detection``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from vision.dataset.roboflow import RoboflowSplit, load_roboflow, read_split
from vision.imageio import read_bgr
from vision.models.crops import DEFAULT_INPUT_SIZE, InputSize, crop_detection
from vision.training.classifier_data import CLASS_INDEX, Sample, store_crop
from vision.types import Detection

#: Label boxes smaller than this (pixels) are skipped: a tile cut by the frame.
MIN_SIDE = 8.0
#: The sample source name (a real picture: drawn as the other real crops are).
SOURCE = "roboflow"


def roboflow_crop_samples(size: InputSize = DEFAULT_INPUT_SIZE, split: RoboflowSplit | None = None,
                          data_dir: Path | None = None, part: str = "train",
                          log: Callable[[str], None] = print) -> list[Sample]:
    """The kept crops of ``part``'s sources, stored for a model reading ``size``."""
    split = split or read_split()
    images = split.images(load_roboflow(data_dir), part)
    uploaded = {image.source for image in images if not image.augmented}
    kept = [image for image in images
            if not image.augmented or (image.source not in uploaded and split.unmirrored(image))]
    samples = []
    for image in kept:
        picture = read_bgr(image.path)
        for tile in image.tiles:
            x1, y1, x2, y2 = tile.box
            if tile.code not in CLASS_INDEX or x2 - x1 < MIN_SIDE or y2 - y1 < MIN_SIDE:
                continue
            crop = crop_detection(picture, Detection(box=tile.box, score=1.0))
            samples.append(Sample(store_crop(crop, size), CLASS_INDEX[tile.code], SOURCE))
    uploaded_kept = sum(not image.augmented for image in kept)
    log(f"roboflow-chinese crops: {len(samples)} from {len(kept)} images ({uploaded_kept} as uploaded) "
        f"of {len({image.source for image in kept})} sources")
    return samples
