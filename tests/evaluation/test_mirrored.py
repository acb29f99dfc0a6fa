"""The mirror test tells a photo from its mirror image with the shipped classifier."""

from __future__ import annotations

import json

import cv2
import numpy as np

from vision.dataset.paths import REPO_ROOT
from vision.evaluation.mirrored import mirror_verdict
from vision.models.classifier import TileClassifier

SAMPLES = REPO_ROOT / "datasets" / "samples"


def test_a_photo_reads_unmirrored_and_its_mirror_image_mirrored() -> None:
    record = next(json.loads(line) for line in (SAMPLES / "manifest.jsonl").read_text().splitlines()
                  if json.loads(line)["image"] == "hand-fully-concealed.jpg")
    image = cv2.imread(str(SAMPLES / record["image"]), cv2.IMREAD_COLOR)
    boxes = np.array([tile["box"] for tile in record["tiles"]], np.float32)
    codes = [tile["code"] for tile in record["tiles"]]
    reader = TileClassifier(flower_model=False)
    assert mirror_verdict(reader, image, boxes, codes).mirrored is False
    flipped = boxes.copy()
    flipped[:, [0, 2]] = image.shape[1] - boxes[:, [2, 0]]
    verdict = mirror_verdict(reader, cv2.flip(image, 1), flipped, codes)
    assert verdict.mirrored is True and verdict.margin > 1.0
    assert mirror_verdict(reader, image, np.zeros((0, 4)), []).mirrored is None
