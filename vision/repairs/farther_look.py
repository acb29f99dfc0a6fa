"""A close-up of large tiles, looked at from farther off: the detector run again at a smaller
network input, so that the tiles come out at the size it finds them best at.

Why: the detector finds tiles 40-100 pixels tall at its network input well and splits bigger ones
into pieces (a character, a picture), each about the size of an ordinary tile, so the first look's
sizes cannot tell a close-up from an ordinary photo. On the held-out roboflow-chinese sources, by
the labelled tile height at the 512 input: 84-87% of tiles 40-100 px are found at 512, 70% at
100-120 px, 48% at 140-160 px, where input 192 finds 90%.

So every first look is paired with a *probe*: the same image at :data:`PROBE_INPUT`, where
ordinary tiles are too small to find (7-27 px for the renders' sizes) and a close-up's tiles are
whole. When the probe's median tile is at least :data:`LARGE_TILE` long (over 100 px at 512), the
photo is read at the input that brings it to :data:`TARGET_TILE` (:func:`farther_input`). The
probe costs about a seventh of the first look (the input's area).
"""

from __future__ import annotations

import math

import numpy as np

from vision.repairs.whole_over_pieces import COARSE_INPUT, holds_pieces, whole_over_pieces, worth_coarser
from vision.types import Detection, Detector, MirrorViewDetector

#: The probe's network input (long side).
PROBE_INPUT = 192
#: A probe's median tile at least this long (pixels of its long side at the probe's input) is a
#: close-up's: 107 px at 512, past the 100 px over which the detector splits tiles.
LARGE_TILE = 40.0
#: The median tile length a farther look aims at (the middle of the 40-100 px the detector finds best).
TARGET_TILE = 60.0
#: The fewest sure tiles a probe needs to be believed (one big box may be a hand or a cup).
FEW_TILES = 3
#: The smallest input a farther look uses; network inputs are multiples of :data:`INPUT_STEP`.
SMALLEST_INPUT = 128
INPUT_STEP = 32


def farther_input(probe: list[Detection], image_size: tuple[int, int], network_side: int,
                  probe_side: int = PROBE_INPUT) -> int | None:
    """The network input to read an image of ``image_size`` (width, height) at, given the
    detections of a look at it at ``probe_side``; None when its tiles are not large, so that the
    first look at ``network_side`` stands."""
    sure = [d for d in probe if not d.spare]
    if len(sure) < FEW_TILES:
        return None
    tile = float(np.median([max(d.width, d.height) for d in sure]))
    seen = tile * probe_side / max(image_size)
    if seen < LARGE_TILE:
        return None
    wanted = probe_side * TARGET_TILE / seen
    size = max(SMALLEST_INPUT, int(math.floor(wanted / INPUT_STEP + 0.5)) * INPUT_STEP)
    return size if size < network_side else None


def network_side(detector: Detector) -> int:
    """The detector's own input size (512 for a stand-in that does not say)."""
    return int(getattr(detector, "input_size", None) or 512)


def detect_whole_tiles(detector: Detector, image_bgr: np.ndarray, spares: bool = False) -> list[Detection]:
    """The detector's tiles in ``image_bgr`` at its own input (:func:`network_side`), or, in a
    close-up, at the smaller input :func:`farther_input` picks from a probe (``spares`` as the
    detector takes it). At its own input, where the probe holds two detections in one tile, tiles it
    split into pieces are taken whole from a coarser look (``vision.repairs.whole_over_pieces``)."""
    probe = detector.detect(image_bgr, input_size=PROBE_INPUT)
    height, width = image_bgr.shape[:2]
    side = network_side(detector)
    size = farther_input(probe, (width, height), side)
    first = detector.detect(image_bgr, spares=spares, input_size=size)
    if size is not None or not worth_coarser(first, (width, height), side) or not holds_pieces(first, probe):
        return first
    return whole_over_pieces(first, single_view(detector).detect(image_bgr, input_size=COARSE_INPUT))


def single_view(detector: Detector) -> Detector:
    """``detector`` without its mirror view where it has one (half the cost), for a look that only
    confirms tiles."""
    return detector.single_view() if isinstance(detector, MirrorViewDetector) else detector
