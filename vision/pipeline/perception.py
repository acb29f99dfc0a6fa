"""What a look at a photo can read again: the classifier and the flower model on the image its
crops were cut from (:class:`Perception`). The repairs and second looks read more detections through
it, in the photo's full-resolution pixels, without knowing which window or scale the look used."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from vision.repairs.closer_look import shifted
from vision.repairs.stray_flowers import ReadFlowers
from vision.repairs.turned_faces import Classify
from vision.types import Classifier, Detection, TileReading

#: Candidates kept per tile for the decoder.
TOP_K = 5


def rescaled(detection: Detection, factor: float) -> Detection:
    """``detection`` with its box and outline scaled by ``factor`` (from one image size to another)."""
    x1, y1, x2, y2 = detection.box
    quad = None if detection.quad is None else tuple((x * factor, y * factor) for x, y in detection.quad)
    return replace(detection, box=(x1 * factor, y1 * factor, x2 * factor, y2 * factor), quad=quad)


@dataclass(frozen=True)
class Perception:
    """The models on one look's crop image. A detection in the photo's pixels is moved by each
    window's offset in turn (``offsets``, outermost first: a closer look inside a closer look), then
    scaled by ``scale`` into ``image``, the picture the look's crops were cut from."""

    classifier: Classifier
    image: np.ndarray
    scale: float = 1.0
    offsets: tuple[tuple[float, float], ...] = ()
    top_k: int = TOP_K

    def _in_image(self, detections: list[Detection]) -> list[Detection]:
        local = detections
        for dx, dy in self.offsets:
            local = [shifted(d, -dx, -dy) for d in local]
        return [rescaled(d, self.scale) for d in local]

    def classify(self, detections: list[Detection]) -> list[TileReading]:
        """Each detection read by the classifier: its top ``top_k`` codes, the detection as given."""
        read = self.classifier.classify(self.image, self._in_image(detections), top_k=self.top_k)
        return [TileReading(d, r.candidates) for d, r in zip(detections, read, strict=True)]

    def read_flowers(self, detections: list[Detection]) -> np.ndarray | None:
        """The flower model's probability of each flower per detection; None without a flower model."""
        return self.classifier.flower_probabilities(self.image, self._in_image(detections))

    def within(self, dx: float, dy: float) -> Perception:
        """This perception of a window placed at ``(dx, dy)`` in the photo, taking the photo's pixels."""
        return replace(self, offsets=((dx, dy), *self.offsets))


class TilesRead(NamedTuple):
    """One look's readings (the photo's full-resolution pixels), and the models on the image its
    crops were cut from, to read more detections with (:class:`Perception`)."""

    readings: list[TileReading]
    perception: Perception

    def readers(self) -> tuple[list[TileReading], Classify, ReadFlowers]:
        """The readings and the two reading functions, as :meth:`PhotoPipeline.read_hand` takes them."""
        return self.readings, self.perception.classify, self.perception.read_flowers
