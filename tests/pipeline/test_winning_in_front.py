"""A tile lying alone beside the concealed row, its turn missed by the detector, is the winning tile
when that makes the hand whole; otherwise the hand is read a tile short, as before."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hand_scenes import LONG, SHORT, SceneTile, lay_out

from scoring.errors import InputError
from vision.dataset.manifest import read_manifest
from vision.evaluation.hand_outcome import match_labels, oracle_readings, same_hand
from vision.layout import layout_tiles
from vision.pipeline import read_readings

SAMPLES = Path(__file__).resolve().parents[2] / "datasets" / "samples" / "manifest.jsonl"


def _readings_with_the_turn_missed(name: str):
    record = next(r for r in read_manifest(SAMPLES) if r.image == name)
    readings = oracle_readings(record)
    winning = next(i for i, t in enumerate(record.tiles) if t.role == "winning")
    index = match_labels([tuple(t.box) for t in record.tiles], [r.detection.box for r in readings])[winning]
    upright = dataclasses.replace(readings[index].detection, rotated=False)
    readings[index] = dataclasses.replace(readings[index], detection=upright)
    return record, readings, index


@pytest.mark.parametrize("name", ["hand-standing-row.jpg", "hand-four-sets.jpg"])
def test_the_lone_tile_beside_the_row_is_the_winning_tile(name):
    record, readings, index = _readings_with_the_turn_missed(name)
    result = read_readings(readings, context=record.hand["context"], infer_unseen=True)
    assert result.decoded.unseen is None
    assert result.decoded.winning_index == index
    assert same_hand(result.hand, record.hand)
    assert any("taken for the winning tile" in warning for warning in result.warnings)


def test_without_inferring_unseen_tiles_nothing_is_retried():
    """The live mode reads the table as the player lays it out: a hand a tile short stays short."""
    record, readings, _ = _readings_with_the_turn_missed("hand-four-sets.jpg")
    with pytest.raises(InputError, match="not a winning hand|missing"):
        read_readings(readings, context=record.hand["context"])


@pytest.mark.parametrize("name", ["hand-standing-row.jpg", "hand-four-sets.jpg"])
def test_a_tile_of_the_row_wrongly_flagged_sideways_does_not_take_the_win(name):
    """The detector flags a standing tile sideways (half hidden behind the winning tile, its outline
    comes out turned): taking it for the winning tile leaves the hand a tile short, so the tile lying
    beside the row is the winning tile and the flagged one stands."""
    record = next(r for r in read_manifest(SAMPLES) if r.image == name)
    readings = oracle_readings(record)
    matches = match_labels([tuple(t.box) for t in record.tiles], [r.detection.box for r in readings])
    winning = matches[next(i for i, t in enumerate(record.tiles) if t.role == "winning")]
    standing = matches[next(i for i, t in enumerate(record.tiles) if t.role == "concealed")]
    flagged = dataclasses.replace(readings[standing].detection, rotated=True)
    readings[standing] = dataclasses.replace(readings[standing], detection=flagged)

    layout = layout_tiles(readings)
    assert layout.winning_index == winning
    assert standing in layout.groups[0].tile_indices
    assert any("the tile count fits only so" in warning for warning in layout.warnings)
    result = read_readings(readings, context=record.hand["context"], infer_unseen=True)
    assert result.decoded.unseen is None
    assert same_hand(result.hand, record.hand)



def test_a_row_two_short_is_not_laid_out_again_for_each_tile_near_it(monkeypatch):
    """One tile more cannot make a row two short whole: a photo of no hand (a rack of 15) must not
    be laid out and decoded again for every tile beside it (a real table photo took 29 s so)."""
    import vision.pipeline.layouts as pipeline

    row = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "1z", "2z", "2z", "3z"]
    scene = lay_out(row, [], [], None)
    scene.tiles.append(SceneTile("3z", 7 * SHORT, LONG * 1.4))  # lying flat in front of the row
    readings = scene.readings(angle_degrees=10)
    calls = []
    real = pipeline.layouts_of

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "layouts_of", counted)
    with pytest.raises(InputError, match="2 tiles are missing"):
        read_readings(readings, infer_unseen=True)
    assert len(calls) == 1  # the photo's own layouts, and no retry with the tile in front turned
