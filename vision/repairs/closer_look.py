"""A hand far off in a big photo, looked at closer: the detector run again on the part of the photo
the tiles lie in, at the scale it was trained at.

Why: the detector sees a photo at 512 pixels on its long side, whatever the photo's size, and was
trained on tiles 20-70 pixels long at that scale (the renders' tiles are 0.039-0.139 of the image's
long side). A player who photographs the table from standing height, with the hand across half the
frame, gives it tiles of 15 pixels or less: the bundled photos padded to twice their size (the hand
in the middle of a 2560x1920 photo, as a 12 MP phone photo of a whole table has it) read wrong or
not at all. Tiles that small are also measured large by the detector (its outlines of small tiles
are loose), so the first look's sizes only say that a closer look is due, and roughly how close.

So when the first look's tiles are small (:data:`SMALL_TILE` at the network's scale), the photo is
read again from a window around them (:func:`closer_look`): as much closer as brings the median
tile to :data:`TARGET_TILE`, by cropping where the tiles leave room and by a larger network input
(up to :data:`MAX_INPUT`) where they do not, but never closer than the photo's own pixels allow.
Enlarging pixels the photo does not have lost hands: on the 1280x960 held-out renders with the
smallest tiles a closer look read 4 of the 200 worse (none better) and 2 of the 150 worse (1
better). Enlarging is allowed (up to :data:`ENLARGE`) only where little can be lost: when the first
look found fewer small tiles than most of a hand (:data:`FEW_FOR_HAND`), as in a far hand in a small
photo, and, from the photo pipeline, for a hand no other look read. The window keeps the photo's
aspect, so the detector's letterbox is the same.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, NamedTuple

import numpy as np

from vision.repairs.farther_look import detect_whole_tiles
from vision.types import Detection

#: A median tile shorter than this at the network's scale (pixels of its long side) is looked at
#: closer. The first look measures small tiles large: on the 350 held-out renders (tiles 0.039-0.139
#: of the image) the smallest median it measured was 19.9 pixels, 10% under 25.3.
SMALL_TILE = 24.0
#: The median tile length the closer look aims at (the renders' median as the first look measures it
#: is 35.4 pixels; small tiles are measured large, so aim at the middle).
TARGET_TILE = 40.0
#: The window's margin around the tiles found, in median tile lengths (tiles the first look missed
#: lie near those it found).
MARGIN = 2.5
#: A look this little closer than the first is not worth a second detection.
MIN_ZOOM = 1.25
#: A photo holding less than this much more detail than the first look saw is not looked at closer:
#: enlarging pixels the photo does not have lost hands (on the 1280x960 held-out renders, which hold
#: 1.25 times, see above). The first look measures small tiles large, so a photo without the detail
#: cannot be told apart from a render with the smallest tiles: the 150 renders shrunk to half size
#: in the middle of a 1280x960 frame measure 18-25 pixels, as those renders do.
MIN_DETAIL = 1.5
#: When the first look finds almost nothing (fewer than :data:`FEW_TILES`), the whole photo is looked
#: at this much closer, if it holds the detail, before the photo is given up as showing no tiles.
FEW_TILES = 3
FEW_TILES_ZOOM = 2.0
#: A first look finding fewer sure tiles than this, small ones (or almost none, :data:`FEW_TILES`), has
#: missed most of a hand (which shows 16 or more): such a look may come closer than the photo's pixels
#: allow, by up to :data:`ENLARGE`. Of the first looks at the 351 held-out renders (seeds 900000- and
#: 910000-) two are such (0 and 2 tiles found, neither hand read), of the 158 far views of the
#: held-out roboflow-chinese sources 115.
FEW_FOR_HAND = 10
#: How much closer than its pixels a photo whose first look found :data:`FEW_FOR_HAND` is looked at.
ENLARGE = 2.0
#: The largest network input of a closer look (its long side; 1024 costs about four times 512).
MAX_INPUT = 1024
#: Network inputs are multiples of this (the detector pads to it anyway).
INPUT_STEP = 32


class Look(NamedTuple):
    """A window of the photo (``x1, y1, x2, y2`` in the pixels of the image the first look saw) and
    the network input size to read it at."""

    region: tuple[float, float, float, float]
    input_size: int


def closer_look(detections: list[Detection], image_size: tuple[int, int], network_side: int,
                most_zoom: float, finer: float = 1.0, enlarge: bool = False) -> Look | None:
    """The closer look the first look's ``detections`` (in an image of ``image_size``, width and
    height, seen at ``network_side`` pixels) call for, or None when its tiles are big enough.
    ``most_zoom``: how much more detail the photo holds than that image (its full size over the
    image's): a look never comes closer than that, and a photo holding less than :data:`MIN_DETAIL`
    (the 1280x960 renders, decoded at 1024) is not looked at closer at all. ``finer``: how much
    larger than :data:`TARGET_TILE` to see the tiles (a photo's finer looks, after the first failed).
    A first look that found fewer than :data:`FEW_FOR_HAND` small tiles may enlarge (:data:`ENLARGE`),
    as may any with ``enlarge`` (a photo whose hand no other look read)."""
    width, height = image_size
    sure = [d for d in detections if not d.spare]
    seen = _seen_tile(sure, image_size, network_side)
    if enlarge or (len(sure) < FEW_FOR_HAND and (len(sure) < FEW_TILES or seen < SMALL_TILE)):
        most_zoom *= ENLARGE
    if most_zoom < MIN_DETAIL:
        return None
    if len(sure) < FEW_TILES:
        whole = (0.0, 0.0, float(width), float(height))
        return _input_for(network_side, min(FEW_TILES_ZOOM, most_zoom), 1.0, most_zoom, whole)
    if seen >= SMALL_TILE:
        return None
    tile = float(np.median([max(d.width, d.height) for d in sure]))
    wanted = min(TARGET_TILE * finer / max(seen, 1e-9), most_zoom)
    boxes = np.array([d.box for d in sure], np.float64)
    low = boxes[:, :2].min(axis=0) - MARGIN * tile
    high = boxes[:, 2:].max(axis=0) + MARGIN * tile
    extent_w, extent_h = (high - low).tolist()
    crop_zoom = max(1.0, min(wanted, width / max(extent_w, 1.0), height / max(extent_h, 1.0)))
    window_w, window_h = width / crop_zoom, height / crop_zoom
    centre = (low + high) / 2
    x1 = float(np.clip(centre[0] - window_w / 2, 0, width - window_w))
    y1 = float(np.clip(centre[1] - window_h / 2, 0, height - window_h))
    return _input_for(network_side, wanted, crop_zoom, most_zoom, (x1, y1, x1 + window_w, y1 + window_h))


def _seen_tile(sure: list[Detection], image_size: tuple[int, int], network_side: int) -> float:
    """The median long side of the ``sure`` tiles at the network's scale (0 for none)."""
    if not sure:
        return 0.0
    tile = float(np.median([max(d.width, d.height) for d in sure]))
    return tile * network_side / max(image_size)


def _input_for(network_side: int, wanted: float, crop_zoom: float, most_zoom: float,
               region: tuple[float, float, float, float]) -> Look | None:
    """The look at ``region`` (``crop_zoom`` closer than the whole image) whose network input makes
    the whole look ``wanted`` closer, rounded up to :data:`INPUT_STEP` but no closer than
    ``most_zoom``; None if that is under :data:`MIN_ZOOM`."""
    needed = network_side * wanted / crop_zoom
    allowed = math.floor(network_side * most_zoom / crop_zoom / INPUT_STEP) * INPUT_STEP
    input_size = int(min(MAX_INPUT, allowed, max(network_side, math.ceil(needed / INPUT_STEP) * INPUT_STEP)))
    if crop_zoom * input_size / network_side < MIN_ZOOM:
        return None
    return Look(tuple(float(v) for v in region), input_size)


def detect_closer(detector: Any, image_bgr: np.ndarray, decode_side: int, looks: int = 2) -> list[Detection]:
    """The detector's tiles in a whole image held in memory (full-resolution pixels), found again
    from closer looks where they are small, as the photo pipeline finds them: for tools that have
    the image already (the labelling page's proposals). ``decode_side``: the long side the photo
    pipeline decodes a photo at for its first look (``vision.pipeline.DETECT_SIDE``), which sets
    how much more detail the image holds."""
    network_side = int(detector.input_size)
    detections = detect_whole_tiles(detector, image_bgr)
    view, offset = image_bgr, (0.0, 0.0)
    for _ in range(looks):
        height, width = view.shape[:2]
        most_zoom = max(width, height) / decode_side
        look = closer_look(detections, (width, height), network_side, most_zoom)
        if look is None:
            break
        x1, y1, x2, y2 = (int(round(value)) for value in look.region)
        view = view[y1:y2, x1:x2]
        offset = (offset[0] + x1, offset[1] + y1)
        network_side = look.input_size
        detections = detector.detect(np.ascontiguousarray(view), input_size=look.input_size)
    return [shifted(d, *offset) for d in detections]


def shifted(detection: Detection, dx: float, dy: float) -> Detection:
    """``detection`` moved by ``dx, dy`` pixels: from a window's coordinates to the photo's."""
    x1, y1, x2, y2 = detection.box
    quad = None if detection.quad is None else tuple((x + dx, y + dy) for x, y in detection.quad)
    return replace(detection, box=(x1 + dx, y1 + dy, x2 + dx, y2 + dy), quad=quad)
