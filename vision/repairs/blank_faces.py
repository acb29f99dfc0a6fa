"""A blank white dragon read as a tile's back: a tile taken for a back whose face is the colour of
the photo's other faces is a face, and the one face that is blank is the white dragon (5z).

Why: some sets' white dragon is a plain tile with no frame. Both shipped models take it for a back
(on the held-out roboflow-chinese sources 41 of their 5z tiles read ``back`` with 5z second), but a
set's backs are coloured (green, blue, yellow), while a blank face is the ivory of every face.
Only the 5z is moved: a back the classifier does not think could be a 5z stays a back, and a set
whose backs are the colour of its faces is read as the models read it wherever 5z is not their
second choice.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.types import Detection, TileReading

#: Lab distance (OpenCV's 8-bit scale) from the faces' paper within which a back is a face. Chosen
#: on the roboflow-chinese training sources as uploaded (128 of the 133 blank 5z read as backs lie
#: within it) and on 150 held-out renders and the bundled photos (their backs lie 33 or more away).
SAME_COLOUR = 25.0
#: The fewest face tiles whose colour is trusted as the set's face colour.
MIN_FACES = 3
#: A face tile counts towards the set's colour only when read at least this surely.
SURE_FACE = 0.8
#: A face's paper is its brighter pixels (ink is darker): those at or above this percentile of lightness.
PAPER_PERCENTILE = 70.0
#: The share of a box's width and height, about its centre, whose colour is the face's.
CENTRE_SHARE = 0.5
BACK = "back"
BLANK_FACE = "5z"


def centre_colour(image_bgr: np.ndarray, detection: Detection) -> np.ndarray | None:
    """Median Lab colour of the paper (the brighter pixels) in the middle of ``detection``'s box
    (None when it holds no pixels)."""
    x1, y1, x2, y2 = detection.box
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    half_w, half_h = (x2 - x1) * CENTRE_SHARE / 2, (y2 - y1) * CENTRE_SHARE / 2
    rows, cols = image_bgr.shape[:2]
    left, right = max(0, int(cx - half_w)), min(cols, int(np.ceil(cx + half_w)))
    top, bottom = max(0, int(cy - half_h)), min(rows, int(np.ceil(cy + half_h)))
    if right <= left or bottom <= top:
        return None
    patch = cv2.cvtColor(np.ascontiguousarray(image_bgr[top:bottom, left:right]), cv2.COLOR_BGR2LAB)
    pixels = patch.reshape(-1, 3).astype(np.float32)
    paper = pixels[pixels[:, 0] >= np.percentile(pixels[:, 0], PAPER_PERCENTILE)]
    return np.median(paper, axis=0)


def _as_blank_face(reading: TileReading) -> TileReading:
    """``reading`` with the back's probability given to the 5z, which it then leads."""
    back = reading.probability_of(BACK, floor=0.0)
    moved = [(code, p + back if code == BLANK_FACE else p)
             for code, p in reading.candidates if code != BACK]
    return TileReading(reading.detection, tuple(sorted(moved, key=lambda item: -item[1])))


def with_blank_faces(image_bgr: np.ndarray, readings: Sequence[TileReading]) -> list[TileReading]:
    """``readings`` (boxes in ``image_bgr``'s pixels) with each back whose second choice is 5z and
    whose middle is the colour of the photo's sure faces read as a 5z."""
    doubtful = [i for i, r in enumerate(readings)
                if r.code == BACK and len(r.candidates) > 1 and r.candidates[1][0] == BLANK_FACE]
    if not doubtful:
        return list(readings)
    faces = [centre_colour(image_bgr, r.detection) for r in readings
             if r.code != BACK and r.confidence >= SURE_FACE]
    known = [colour for colour in faces if colour is not None]
    if len(known) < MIN_FACES:
        return list(readings)
    face_colour = np.median(np.stack(known), axis=0)
    out = list(readings)
    for i in doubtful:
        colour = centre_colour(image_bgr, readings[i].detection)
        if colour is not None and float(np.linalg.norm(colour - face_colour)) <= SAME_COLOUR:
            out[i] = _as_blank_face(readings[i])
    return out
