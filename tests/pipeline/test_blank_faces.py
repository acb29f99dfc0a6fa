"""A blank white dragon read as a back is read as a 5z when its face is the colour of the other faces."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.repairs.blank_faces import with_blank_faces
from vision.types import Detection, TileReading

IVORY = (205, 228, 238)  # BGR
BLUE_BACK = (150, 90, 20)


def _table(backs: list[tuple[int, int, int]], faces: int = 4) -> tuple[np.ndarray, list[Detection]]:
    """A green table with ``faces`` ivory tiles carrying dark ink, then one tile per colour of ``backs``."""
    image = np.full((200, 60 * (faces + len(backs)) + 20, 3), (60, 140, 40), np.uint8)
    detections = []
    for index in range(faces + len(backs)):
        x = 10 + 60 * index
        colour = IVORY if index < faces else backs[index - faces]
        cv2.rectangle(image, (x, 50), (x + 50, 120), colour, -1)
        if index < faces:
            cv2.putText(image, str(index + 1), (x + 12, 100), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (30, 30, 160), 3)
        detections.append(Detection(box=(float(x), 50.0, float(x + 50), 120.0), score=0.9))
    return image, detections


Candidates = tuple[tuple[str, float], ...]


def _readings(detections: list[Detection], faces: int, backs: list[Candidates]) -> list[TileReading]:
    read = [TileReading(d, ((f"{i + 1}m", 0.97), ("back", 0.02))) for i, d in enumerate(detections[:faces])]
    return read + [TileReading(d, c) for d, c in zip(detections[faces:], backs, strict=True)]


def test_a_blank_face_the_colour_of_the_faces_reads_5z_and_a_coloured_back_stays() -> None:
    image, detections = _table([IVORY, BLUE_BACK, IVORY])
    second_5z = (("back", 0.96), ("5z", 0.03), ("4f", 0.01))
    second_4f = (("back", 0.96), ("4f", 0.03), ("5z", 0.01))
    out = with_blank_faces(image, _readings(detections, 4, [second_5z, second_5z, second_4f]))
    assert [r.code for r in out[4:]] == ["5z", "back", "back"]
    assert out[4].candidates[0][0] == "5z" and out[4].confidence == pytest.approx(0.99)
    assert "back" not in dict(out[4].candidates)
    assert [r.code for r in out[:4]] == ["1m", "2m", "3m", "4m"]


def test_without_enough_sure_faces_a_back_is_left_as_read() -> None:
    image, detections = _table([IVORY], faces=2)
    second_5z = (("back", 0.96), ("5z", 0.03), ("4f", 0.01))
    readings = _readings(detections, 2, [second_5z])
    assert with_blank_faces(image, readings) == readings
