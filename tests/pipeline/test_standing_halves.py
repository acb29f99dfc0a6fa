"""Standing tiles found as two overlapping, skewed halves are joined again when the hand needs it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hand_scenes import lay_out

from scoring.errors import InputError
from vision.pipeline import PhotoPipeline, read_readings
from vision.repairs.standing_halves import JOINED_SURE, joined_standing_halves, overlapping_half_pairs
from vision.types import Detection, TileReading

CONCEALED = ["1m", "2m", "3m", "4s", "4s", "4s", "6p", "7p", "8p", "2z"]
MELDS = [("pung", ["5z", "5z", "5z"], False), ("pung", ["8m", "8m", "8m"], False)]


def _half(detection: Detection, start: float, end: float, skew: float) -> Detection:
    """The part of an upright outline between ``start`` and ``end`` (shares of its width from the
    left), its top edge shifted ``skew`` of the width to the right: a parallelogram, as the
    detector outlines a half."""
    c0, c1, c2, c3 = (np.asarray(p, np.float64) for p in detection.quad)
    top, bottom = c1 - c0, c2 - c3
    quad = (c0 + top * (start + skew), c0 + top * (end + skew), c3 + bottom * end, c3 + bottom * start)
    xs, ys = [float(p[0]) for p in quad], [float(p[1]) for p in quad]
    return replace(detection, box=(min(xs), min(ys), max(xs), max(ys)),
                   quad=tuple((float(p[0]), float(p[1])) for p in quad))


def _hand_with_4s_in_halves(angle: float = 15.0, read_2s: float = 0.95):
    """The hand with each standing 4s found as two halves read 2s at ``read_2s`` (each 60% of the
    face, overlapping in the middle, skewed); the whole 4s outlines come back too."""
    scene = lay_out(CONCEALED, MELDS, ["1f"], "2z")
    readings = scene.readings(angle_degrees=angle)
    fours = [r for r in readings if r.code == "4s"]
    rest = [r for r in readings if r.code != "4s"]
    candidates = (("2s", read_2s), ("4s", 0.99 - read_2s))
    halves = [TileReading(_half(r.detection, start, start + 0.6, 0.12), candidates)
              for r in fours for start in (0.0, 0.4)]
    return [*rest, *halves], [r.detection for r in fours]


def _reads_whole_4s(wholes: list[Detection], confidence: float = 0.99):
    """A classifier stand-in: an outline centred on a whole 4s reads 4s, anything else 7p."""
    centres = [np.mean(w.quad, axis=0) for w in wholes]

    def classify(detections: list[Detection]) -> list[TileReading]:
        out = []
        for detection in detections:
            centre = np.mean(detection.quad, axis=0)
            on_a_4s = any(np.linalg.norm(centre - c) < 6.0 for c in centres)
            whole = (("4s", confidence), ("2s", 1 - confidence))
            out.append(TileReading(detection, whole if on_a_4s else (("7p", 0.5), ("1s", 0.5))))
        return out

    return classify


@pytest.mark.parametrize("angle", [0.0, 15.0, 100.0])
def test_each_4s_found_as_two_overlapping_halves_is_paired_with_its_own_other_half(angle):
    readings, _ = _hand_with_4s_in_halves(angle)
    first_half = len(readings) - 6
    pairs = {tuple(sorted(pair)) for pair in overlapping_half_pairs(readings)}
    # The halves of neighbouring 4s lie as near as each 4s's own: only the spacing tells them apart.
    assert pairs == {(first_half + 2 * k, first_half + 2 * k + 1) for k in range(3)}


def test_whole_tiles_read_alike_side_by_side_are_not_halves():
    scene = lay_out(["2s", "2s", "2s", *CONCEALED[3:]], MELDS, ["1f"], "2z")
    assert overlapping_half_pairs(scene.readings(angle_degrees=15)) == []


def test_halves_with_no_whole_tiles_their_height_beside_them_are_left_alone():
    readings, _ = _hand_with_4s_in_halves()
    only_halves = readings[-6:]
    assert overlapping_half_pairs(only_halves) == []


def test_the_joined_tiles_replace_their_halves_only_when_read_sure():
    readings, wholes = _hand_with_4s_in_halves()
    joined = joined_standing_halves(readings, _reads_whole_4s(wholes))
    assert joined is not None and len(joined) == len(readings) - 3
    assert [r.code for r in joined[-3:]] == ["4s", "4s", "4s"]
    assert joined_standing_halves(readings, _reads_whole_4s(wholes, confidence=JOINED_SURE - 0.05)) is None


@pytest.mark.parametrize("read_2s", [0.95, 0.7])
def test_a_hand_that_reads_only_with_corrections_or_not_at_all_reads_with_the_halves_joined(read_2s):
    """Six halves fit the count with the 8m pung taken for discards. Read 2s at 0.95 the decoder
    refuses the changes that hand needs; at 0.7 it makes them (the bundled standing-row photo)."""
    readings, wholes = _hand_with_4s_in_halves(read_2s=read_2s)
    pipeline = PhotoPipeline()
    optional = pipeline.faint_tiles(readings)
    if read_2s > 0.9:
        with pytest.raises(InputError):
            read_readings(readings, infer_unseen=True, optional=optional)
    else:
        assert read_readings(readings, infer_unseen=True, optional=optional).decoded.changes
    result = pipeline.read_hand(readings, _reads_whole_4s(wholes), image="scene", rules=None, table=None,
                                 context=None)
    assert sorted(result.hand["concealed"]) == sorted([*CONCEALED, "2z"])
    assert sorted(tuple(m["tiles"]) for m in result.hand["melds"]) == [("5z",) * 3, ("8m",) * 3]
    assert not result.decoded.changes and result.decoded.unseen is None
    assert any("found as two halves each were joined and read 4s 4s 4s" in w for w in result.warnings)


def test_a_hand_that_reads_as_detected_is_not_joined():
    scene = lay_out(CONCEALED, MELDS, ["1f"], "2z")
    readings = scene.readings(angle_degrees=15)
    result = PhotoPipeline().read_hand(readings, _reads_whole_4s([]), image="scene", rules=None, table=None,
                                        context=None)
    assert not any("two halves" in warning for warning in result.warnings)
