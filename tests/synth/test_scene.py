"""Rendered scenes: deterministic, and every label true to what was drawn."""

from __future__ import annotations

from collections import Counter

import cv2
import numpy as np
import pytest
from shared_data import needs_shared_data

from scoring import hand_from_json, score_hand
from scoring.errors import InputError
from scoring.tiles import VISION_CODES
from vision.dataset.crops import VALIDATION_SETS
from vision.dataset.manifest import ROLES, ManifestRecord, record_problems
from vision.synth import SceneConfig, render_scene

SMALL = SceneConfig(width=480, height=360)
SEEDS = range(6)


@pytest.fixture(scope="module")
def scenes() -> list[tuple[np.ndarray, ManifestRecord]]:
    return [render_scene(np.random.default_rng(seed), SMALL) for seed in SEEDS]


def _hand_tile_count(hand: dict) -> int:
    return len(hand["concealed"]) + len(hand["flowers"]) + sum(len(m["tiles"]) for m in hand["melds"])


def test_same_seed_gives_the_same_scene() -> None:
    first_image, first_record = render_scene(np.random.default_rng(11), SMALL)
    second_image, second_record = render_scene(np.random.default_rng(11), SMALL)
    assert np.array_equal(first_image, second_image)
    assert first_record.to_json() == second_record.to_json()
    third_image, _ = render_scene(np.random.default_rng(12), SMALL)
    assert not np.array_equal(first_image, third_image)


def test_labels_are_inside_the_image_and_use_legal_codes(scenes) -> None:
    for image, record in scenes:
        assert image.shape == (SMALL.height, SMALL.width, 3)
        assert (record.width, record.height) == (SMALL.width, SMALL.height)
        assert record_problems(record) == []
        for tile in record.tiles:
            assert tile.code in VISION_CODES
            assert tile.role in ROLES
            assert tile.quad is not None and len(tile.quad) == 4


def test_hand_json_is_a_legal_winning_hand_and_every_hand_tile_is_labelled(scenes) -> None:
    for _, record in scenes:
        hand = record.hand
        assert score_hand(hand_from_json(hand)).valid
        hand_labels = [t for t in record.tiles if t.role != "distractor"]
        assert len(hand_labels) == _hand_tile_count(hand)
        faces = Counter(t.extra.get("face", t.code) for t in hand_labels)
        meld_tiles = [code for meld in hand["melds"] for code in meld["tiles"]]
        expected = Counter(hand["concealed"] + hand["flowers"] + meld_tiles)
        assert faces == expected
        winners = [t for t in hand_labels if t.role == "winning"]
        assert len(winners) == 1 and winners[0].code == hand["winning_tile"] and winners[0].rotated
        assert all(t.group is not None for t in hand_labels)


def test_concealed_kongs_are_face_down_and_flowers_are_their_own_group(scenes) -> None:
    for _, record in scenes:
        labels = [t for t in record.tiles if t.role != "distractor"]
        assert all(t.role == "concealed_kong" for t in labels if t.face_down)
        kongs = [m for m in record.hand["melds"] if m["kind"] == "kong" and m["concealed"]]
        kong_tiles = [t for t in labels if t.role == "concealed_kong"]
        assert len(kong_tiles) == 4 * len(kongs)
        for group in {t.group for t in kong_tiles}:
            members = [t for t in kong_tiles if t.group == group]
            assert sum(t.face_down for t in members) in (2, 4)  # revealed kongs show two faces
            assert len({t.extra.get("face", t.code) for t in members}) == 1
        flower_groups = {t.group for t in labels if t.role == "flower"}
        assert len(flower_groups) <= 1
        assert all(t.code == "back" for t in labels if t.face_down)


def _quad_mean(image: np.ndarray, quad, shrink: float = 0.5) -> np.ndarray:
    points = np.array(quad, np.float32)
    centre = points.mean(axis=0)
    inner = centre + (points - centre) * shrink
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(inner).astype(np.int32), 1)
    return np.array(cv2.mean(image, mask=mask)[:3])


def _centre(tile) -> np.ndarray:
    return np.array(tile.quad).mean(axis=0)


def _turn(a, b) -> float:
    return abs((a.extra["angle"] - b.extra["angle"] + 180) % 360 - 180)


def _up(tile) -> np.ndarray:
    """The face's bottom-to-top direction in the image (a quad runs top-left, top-right,
    bottom-right, bottom-left)."""
    quad = np.array(tile.quad)
    return (quad[0] + quad[1]) / 2 - (quad[2] + quad[3]) / 2


def _across(tile) -> np.ndarray:
    """The face's left-to-right direction in the image."""
    quad = np.array(tile.quad)
    return (quad[1] + quad[2]) / 2 - (quad[0] + quad[3]) / 2


def _line_angle(a: np.ndarray, b: np.ndarray) -> float:
    """Degrees between two directions taken as lines (0..90: opposite directions count as parallel)."""
    cosine = abs(float(a @ b)) / max(float(np.linalg.norm(a) * np.linalg.norm(b)), 1e-9)
    return float(np.degrees(np.arccos(min(1.0, cosine))))


def _nearest(tile, others):
    return min((o for o in others if o is not tile), key=lambda o: np.linalg.norm(_centre(o) - _centre(tile)))


def test_face_down_and_sideways_flags_match_the_pixels() -> None:
    """Face-down tiles show the set's back colour; a sideways tile lies across its upright neighbours:
    its up direction runs along its neighbour's left-to-right edge. (Parallel lines stay parallel
    in a tile-sized patch of a perspective view, right angles do not: a flat meld seen at a grazing
    angle turns a quarter-turned tile only 41 degrees in the image.)"""
    config = SceneConfig(width=640, height=480, photometric=False, distractors=False,
                         occluder_probability=0.0)
    checked_back = checked_rotated = 0
    for seed in range(40):
        image, record = render_scene(np.random.default_rng(seed), config)
        back = np.array(record.extra["tile_back_bgr"], float)
        upright = [t for t in record.tiles if not t.rotated and not t.face_down]
        for tile in record.tiles:
            if tile.face_down and tile.extra["visible"] > 0.9:
                mean = _quad_mean(image, tile.quad)
                hue_distance = np.linalg.norm(mean / max(mean.sum(), 1) - back / max(back.sum(), 1))
                assert hue_distance < 0.08, (seed, mean, back)
                checked_back += 1
            if tile.rotated:
                assert _line_angle(_up(tile), _across(_nearest(tile, upright))) < 20, seed
                checked_rotated += 1
            elif tile.role == "concealed":
                row = [t for t in upright if t.role == "concealed"]
                assert _turn(tile, _nearest(tile, row)) < 25, seed
        if checked_back >= 4 and checked_rotated >= 6:
            break
    assert checked_back >= 4 and checked_rotated >= 6


def test_render_a_given_hand() -> None:
    hand = {"concealed": ["1m", "2m", "3m", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z"],
            "melds": [{"kind": "pung", "tiles": ["5z", "5z", "5z"], "concealed": False},
                      {"kind": "kong", "tiles": ["9p", "9p", "9p", "9p"], "concealed": True}],
            "flowers": ["1f", "6f"], "winning_tile": "3m",
            "context": {"self_drawn": True, "seat_wind": "1z", "round_wind": "1z", "dealer": True}}
    _, record = render_scene(np.random.default_rng(3), SMALL, hand=hand)
    assert record.hand == hand
    labels = [t for t in record.tiles if t.role != "distractor"]
    assert Counter(t.extra.get("face", t.code) for t in labels) == Counter(
        {"1m": 1, "2m": 1, "3m": 1, "4p": 3, "6s": 1, "7s": 1, "8s": 1, "2z": 2, "5z": 3, "9p": 4,
         "1f": 1, "6f": 1})
    assert 2 <= sum(t.code == "back" for t in labels) <= 4
    assert [t.code for t in labels if t.role == "winning"] == ["3m"]


@pytest.mark.parametrize("hand", [
    {"concealed": ["1x"] * 17, "melds": [], "flowers": [], "winning_tile": "1x"},
    {"concealed": ["1m"] * 14, "melds": [{"kind": "quad", "tiles": ["2m"] * 3}], "flowers": [],
     "winning_tile": "1m"},
    "not a hand",
])
def test_a_malformed_given_hand_is_an_input_error(hand) -> None:
    with pytest.raises(InputError):
        render_scene(np.random.default_rng(0), SMALL, hand=hand)


def test_a_well_formed_hand_that_is_not_a_win_still_renders() -> None:
    """Test scenes for the reader's "not a winning hand" path need such hands drawn."""
    hand = {"concealed": ["1m", "5p", "9s", "1z"], "melds": [], "flowers": ["3f"], "winning_tile": "9s"}
    _, record = render_scene(np.random.default_rng(0), SMALL, hand=hand)
    labels = [t for t in record.tiles if t.role != "distractor"]
    assert sorted(t.code for t in labels) == sorted(["1m", "5p", "9s", "1z", "3f"])
    assert [t.code for t in labels if t.role == "winning"] == ["9s"]


@pytest.mark.parametrize("elevation", [(55.0, 90.0), (70.0, 90.0), (40.0, 40.0)])
def test_any_elevation_range_renders_standing_and_flat_rows(elevation) -> None:
    for standing in (0.0, 1.0):
        config = SceneConfig(width=320, height=240, elevation_degrees=elevation,
                             standing_probability=standing)
        _, record = render_scene(np.random.default_rng(1), config)
        assert record.extra["concealed_standing"] == bool(standing)
        assert record_problems(record) == []


@needs_shared_data("crops-labelled")
def test_validation_scenes_use_only_held_out_real_sets() -> None:
    _, record = render_scene(np.random.default_rng(0), SceneConfig(width=320, height=240, split="val"))
    assert record.split == "val"
    if record.set_id.startswith("crop:"):
        assert record.set_id.removeprefix("crop:") in VALIDATION_SETS


def test_a_standing_rows_winning_tile_lies_on_the_players_side_in_view() -> None:
    """Laid beyond a standing row, the winning tile hid behind the faces from most cameras."""
    config = SceneConfig(width=480, height=360, standing_probability=1.0, occluder_probability=0.0)
    seen = 0
    for seed in range(8):
        _, record = render_scene(np.random.default_rng(seed), config)
        winners = [t for t in record.tiles if t.role == "winning"]
        if not winners:
            continue  # a hand with no set to lay the winning tile across
        winner_x, winner_y = (np.add(winners[0].box[:2], winners[0].box[2:]) / 2).tolist()
        row = sorted((t for t in record.tiles if t.role == "concealed"),
                     key=lambda t: abs((t.box[0] + t.box[2]) / 2 - winner_x))
        beside = float(np.mean([(t.box[1] + t.box[3]) / 2 for t in row[:2]]))
        assert winner_y > beside  # nearer the camera than the standing tiles it lies against
        assert float(winners[0].extra["visible"]) >= 0.9
        seen += 1
    assert seen >= 4
