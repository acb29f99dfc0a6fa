"""Which flower a flower tile is, read from its printed number and name alone.

Flower tiles print their number (1-4, in Arabic or Chinese numerals) and name (梅蘭菊竹 for the
flowers, 春夏秋冬 for the seasons) across the top of the face, above a picture that every set
paints its own way. The flower model (``vision.models.flowers``) sees the whole face and leans on
the picture: with the picture painted over, it names 44% of the held-out renders' flowers right,
against 90% as cut. So a set whose winter looks like another set's spring (set-297's 4 冬 read as
春 at up to 0.92) is read wrong with the number in plain sight. This model sees only the top strip
of the face (:data:`STRIP_FRACTION`), so the picture cannot lead it, and it is trained on the
flower crops with a share of procedurally drawn faces (``vision.training.flower_text``).

A tile may be cut upside down (the detector's axis has no head), so both ends of the face are
read, the turned one turned back, and their probabilities multiplied: the strip with no text says
little. The result multiplies the flower model's split of the flower mass
(``TileClassifier._read_flowers``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from scoring.errors import InputError
from scoring.tiles import FLOWER_CODES
from vision.models import create_session
from vision.models.classifier import InputSize, labels_path_for, preprocess_crops, softmax

FLOWER_TEXT_MODEL_NAME = "flower_text.onnx"
#: The top share of a face cut out for the model: the number and the name, not the picture.
STRIP_FRACTION = 0.42
#: The model's input (height, width): the strip of a 64x48 face, widened.
STRIP_SIZE = InputSize(32, 64)


def top_strip(face_bgr: np.ndarray, fraction: float = STRIP_FRACTION) -> np.ndarray:
    """The top ``fraction`` of an upright face crop (its number and name)."""
    return face_bgr[: max(2, int(round(face_bgr.shape[0] * fraction)))]


def both_strips(face_bgr: np.ndarray, fraction: float = STRIP_FRACTION) -> list[np.ndarray]:
    """The top strip as cut and the top strip of the face turned 180 degrees."""
    return [top_strip(face_bgr, fraction), top_strip(cv2.rotate(face_bgr, cv2.ROTATE_180), fraction)]


class FlowerTextReader:
    """``models/flower_text.onnx``: the eight flowers' probabilities from the top strips of faces."""

    def __init__(self, model_path: Path, threads: int | None = None) -> None:
        labels_path = labels_path_for(model_path)
        try:
            document = json.loads(labels_path.read_text(encoding="utf-8"))
            labels = list(document["labels"])
            self.temperature = float(document.get("temperature", 1.0))
            self.fraction = float(document.get("strip_fraction", STRIP_FRACTION))
            self.input_size = InputSize(int(document["input"]["height"]), int(document["input"]["width"]))
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise InputError(f"{labels_path}: not a flower-text label file ({error})") from None
        if sorted(labels) != sorted(FLOWER_CODES):
            raise InputError(f"{labels_path}: the labels must be the eight flower codes, got {labels}")
        self._columns = np.array([labels.index(code) for code in FLOWER_CODES])
        self._session = create_session(model_path, threads)
        self._input_name = self._session.get_inputs()[0].name

    def probabilities(self, faces_bgr: Sequence[np.ndarray]) -> np.ndarray:
        """Per face (upright crops, either way up), the eight flowers' probabilities in
        ``FLOWER_CODES`` order: the product of both ends' readings, normalised."""
        if not faces_bgr:
            return np.zeros((0, len(FLOWER_CODES)), dtype=np.float32)
        strips = [strip for face in faces_bgr for strip in both_strips(face, self.fraction)]
        batch = preprocess_crops(strips, size=self.input_size)
        logits = self._session.run(None, {self._input_name: batch})[0]
        per_strip = softmax(logits / self.temperature)[:, self._columns]
        product = per_strip[0::2] * per_strip[1::2]
        return product / np.maximum(product.sum(axis=1, keepdims=True), 1e-30)
