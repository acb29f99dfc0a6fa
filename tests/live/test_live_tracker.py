"""The tracker: identities across frames, soft votes with hysteresis, dropouts and new tiles."""

from __future__ import annotations

import pytest

from vision.live.tracker import (
    Observation,
    TrackerConfig,
    TrackerState,
    forget_votes_before,
    match_detections,
    needs_classification,
    update_tracks,
    update_with_readings,
)
from vision.types import Detection, TileReading


def tile(
    x: float, y: float = 100.0, code: str = "5p", p: float = 0.9, w: float = 40, h: float = 56
) -> TileReading:
    other = "6p" if code != "6p" else "4p"
    return TileReading(Detection((x, y, x + w, y + h), 0.9), ((code, p), (other, round(1 - p, 6))))


def run(
    frames: list[list[TileReading]], config: TrackerConfig | None = None, dt: float = 0.1
) -> TrackerState:
    state = TrackerState(config=config or TrackerConfig())
    for i, readings in enumerate(frames):
        state = update_with_readings(state, readings, i * dt)
    return state


def test_a_tile_keeps_its_identity_while_it_jitters():
    frames = [[tile(100 + (i % 3), 100 - (i % 2)), tile(150 + (i % 2))] for i in range(8)]
    state = run(frames)
    assert [track.track_id for track in state.tracks] == [1, 2]
    assert all(track.hits == 8 for track in state.tracks)
    assert [r.code for r in state.readings()] == ["5p", "5p"]


def test_a_tile_is_not_confirmed_before_min_hits():
    config = TrackerConfig(min_hits=3)
    assert run([[tile(100)]] * 2, config).readings() == []
    assert len(run([[tile(100)]] * 3, config).readings()) == 1


def test_one_wrong_frame_is_outvoted():
    frames = [[tile(100, code="5p")]] * 4 + [[tile(100, code="3s", p=0.95)]] + [[tile(100, code="5p")]] * 2
    state = run(frames)
    assert state.readings()[0].code == "5p"
    assert state.tracks[0].code == "5p"


def test_a_near_tie_does_not_flip_the_code():
    """Hysteresis: alternating 0.52 / 0.48 readings keep the first committed code."""
    frames = []
    for i in range(12):
        p = 0.52 if i % 2 == 0 else 0.48
        frames.append([TileReading(Detection((0, 0, 40, 56), 0.9), (("5p", p), ("6p", 1 - p)))])
    state = TrackerState()
    codes = []
    for i, readings in enumerate(frames):
        state = update_with_readings(state, readings, i * 0.1)
        codes.append(state.tracks[0].code)
    assert set(codes) == {"5p"}


def test_a_real_change_of_code_wins_after_enough_votes():
    frames = [[tile(100, code="5p")]] * 6 + [[tile(100, code="7s")]] * 6
    assert run(frames).readings()[0].code == "7s"


def test_a_short_dropout_keeps_the_track_and_a_long_one_drops_it():
    config = TrackerConfig(miss_tolerance=0.25)
    state = run([[tile(100), tile(200)]] * 4 + [[tile(100)]] * 2, config)  # 0.2 s unseen
    assert len(state.tracks) == 2
    state = run([[tile(100), tile(200)]] * 4 + [[tile(100)]] * 4, config)  # 0.4 s unseen
    assert [t.track_id for t in state.tracks] == [1]


def test_a_new_tile_gets_a_new_id_and_ids_are_never_reused():
    state = run([[tile(100)]] * 3 + [[tile(100), tile(300)]] * 3)
    assert [t.track_id for t in state.tracks] == [1, 2]
    state = update_with_readings(state, [tile(500)], 10.0)  # everything else long gone
    assert [t.track_id for t in state.tracks] == [3]


def test_matching_prefers_overlap_then_centre_distance():
    state = run([[tile(100), tile(145)]] * 3)
    moved = [tile(147).detection, tile(118).detection]  # second tile first, first tile nudged right
    assignment = match_detections(state.tracks, moved, state.config)
    assert assignment == [1, 0]
    far = [tile(400).detection]
    assert match_detections(state.tracks, far, state.config) == [None]


def test_moving_a_tile_marks_it_moved_and_small_jitter_does_not():
    state = run([[tile(100)]] * 5)
    settled_at = state.tracks[0].moved_at
    state = update_with_readings(state, [tile(102)], 0.5)
    assert state.tracks[0].moved_at == settled_at
    state = update_with_readings(state, [tile(125)], 0.6)
    assert state.tracks[0].moved_at == 0.6


def test_unclassified_frames_update_boxes_but_add_no_votes():
    state = run([[tile(100)]] * 6)
    votes = state.tracks[0].votes
    state = update_tracks(state, [Observation(tile(103).detection, None)], 0.6)
    assert state.tracks[0].votes == votes
    assert state.tracks[0].detection.box[0] == 103
    assert state.tracks[0].hits == 7


def test_needs_classification_skips_settled_tiles_until_refresh():
    config = TrackerConfig(vote_window=4)
    state = run([[tile(100)]] * 5, config)
    track = state.tracks[0]
    assert not needs_classification(track, 0.5, refresh_seconds=1.0, config=config)
    assert needs_classification(track, 1.5, refresh_seconds=1.0, config=config)
    assert needs_classification(None, 0.5, refresh_seconds=1.0, config=config)
    young = run([[tile(100)]] * 2, config).tracks[0]
    assert needs_classification(young, 0.2, refresh_seconds=1.0, config=config)


def test_a_tile_not_classified_since_the_table_went_quiet_is_classified_again():
    config = TrackerConfig(vote_window=4)
    track = run([[tile(100)]] * 5, config).tracks[0]  # last classified at 0.4
    assert not needs_classification(track, 0.5, refresh_seconds=1.0, config=config, quiet_since=0.3)
    assert needs_classification(track, 0.5, refresh_seconds=1.0, config=config, quiet_since=0.4)


def test_votes_cast_while_the_table_was_disturbed_are_forgotten():
    """A flower read as "2p" under a passing hand keeps only the votes of the quiet table."""
    box = Detection((100, 100, 140, 156), 0.9)
    flower = TileReading(box, (("5f", 0.9), ("6f", 0.1)))
    finger = TileReading(box, (("2p", 0.8), ("1s", 0.2)))
    state = run([[flower]] * 3 + [[finger]] * 4 + [[flower]])  # the hand over it from 0.3 to 0.6
    assert state.tracks[0].code == "2p"  # four finger votes of six outvote the flower
    quiet = forget_votes_before(state, since=0.65)
    assert quiet.tracks[0].code == "5f"
    assert quiet.tracks[0].votes == (flower.candidates,)
    assert quiet.tracks[0].vote_times == (pytest.approx(0.7),)
    assert [r.code for r in quiet.readings()] == ["5f"]


def test_a_tile_with_no_vote_since_keeps_its_votes():
    state = run([[tile(100)]] * 3)
    assert forget_votes_before(state, since=5.0) is state


def test_rotated_and_face_down_flags_are_voted():
    def flagged(rotated: bool) -> TileReading:
        return TileReading(Detection((0, 0, 56, 40), 0.9, rotated=rotated), (("3m", 0.9),))

    state = run([[flagged(True)]] * 4 + [[flagged(False)]])
    assert state.readings()[0].detection.rotated is True


def test_update_is_pure():
    state = run([[tile(100)]] * 3)
    before = state.tracks
    update_with_readings(state, [tile(300)], 1.0)
    assert state.tracks == before
