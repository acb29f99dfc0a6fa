"""Proposed groups: the photo pipeline's layout turns detected, read tiles into the hand's groups.

Fed with the sample scenes' true tiles (as a perfect detector + classifier would propose them),
the groups it proposes must rebuild each scene's hand exactly.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision.dataset.manifest import TileLabel
from vision.label.hand import hand_from_labels
from vision.label.seeds import propose_groups, yolo_root

SAMPLES = Path(__file__).resolve().parents[2] / "datasets" / "samples" / "manifest.jsonl"


def sample_records() -> list[dict]:
    if not SAMPLES.is_file():
        pytest.skip("datasets/samples/manifest.jsonl is missing")
    return [json.loads(line) for line in SAMPLES.read_text().splitlines() if line.strip()]


def melds_sorted(hand: dict) -> dict:
    return {**{k: v for k, v in hand.items() if k != "context"},
            "melds": sorted(hand["melds"], key=lambda m: (m["kind"], m["tiles"]))}


@pytest.mark.parametrize("number", range(6))
def test_proposed_groups_rebuild_the_sample_hands(number: int) -> None:
    record = sample_records()[number]
    proposals = [{**{k: t[k] for k in ("code", "box", "quad", "rotated", "face_down") if k in t},
                  "candidates": [[t["code"], 1.0]]} for t in record["tiles"]]
    assert propose_groups(proposals)
    assert [p.get("role") for p in proposals] == [t.get("role") for t in record["tiles"]]
    labels = [TileLabel.from_json({k: v for k, v in p.items() if k != "candidates"}) for p in proposals]
    # The truth hand is passed only for a concealed kong laid as four backs (no face to read).
    hand, _ = hand_from_labels(labels, {}, record["hand"])
    assert melds_sorted(hand) == melds_sorted(record["hand"])


def test_no_groups_without_readings_or_a_hand() -> None:
    tiles = [{"code": "1m", "box": [0, 0, 10, 14]}]
    assert not propose_groups(tiles) and "group" not in tiles[0]
    assert not propose_groups([])


def test_yolo_root_is_the_folder_holding_images_and_labels(tmp_path: Path) -> None:
    (tmp_path / "set" / "images").mkdir(parents=True)
    (tmp_path / "set" / "labels").mkdir()
    assert yolo_root(tmp_path, "set/images/a.jpg") == tmp_path / "set"
    assert yolo_root(tmp_path, "other/a.jpg") is None
    assert yolo_root(tmp_path, "images.jpg") is None


def test_touching_sets_are_cut_into_legal_sets() -> None:
    from vision.label.seeds import split_touching_sets

    codes = ["2m", "3m", "4m", "7z", "7z", "7z", "7z"]  # a chow then a kong, touching
    tiles = [{"code": c, "box": [20 * n, 0, 20 * n + 18, 26]} for n, c in enumerate(codes)]
    order = [6, 0, 3, 1, 5, 2, 4]  # as the layout may list them
    assert split_touching_sets(order, tiles) == [[0, 1, 2], [3, 4, 5, 6]]
    tiles[1]["code"] = "9p"  # no legal cut: left whole for the person
    assert split_touching_sets(order, tiles) == [order]
    assert split_touching_sets([0, 1, 2], tiles) == [[0, 1, 2]]
