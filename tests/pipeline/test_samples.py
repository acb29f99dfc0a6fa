"""The bundled sample photos: layout and decoding on their labelled tiles (no models involved).

Readings are built from each sample's labels (boxes, outlines, sideways / face-down flags, the true
code at 90%), so these tests pin the table-plane layout on real renders: perspective, standing
rows, walls and discards around the hand. The model end to end runs are in test_photo_e2e.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring import hand_from_json, score_hand
from vision.dataset.manifest import read_manifest
from vision.evaluation.hand_outcome import oracle_readings, same_hand
from vision.pipeline import read_readings

SAMPLES = Path(__file__).resolve().parents[2] / "datasets" / "samples"
RECORDS = read_manifest(SAMPLES / "manifest.jsonl") + read_manifest(SAMPLES / "overhead.jsonl")


@pytest.mark.parametrize("record", RECORDS, ids=[r.image for r in RECORDS])
def test_sample_hand_is_rebuilt_from_its_labelled_tiles(record):
    truth = record.hand
    result = read_readings(oracle_readings(record), image=record.image, context=truth["context"])
    hidden = any(m["concealed"] for m in truth["melds"]) and all(
        t.face_down for t in record.tiles if t.role == "concealed_kong")
    assert same_hand(result.hand, truth, hide_concealed_faces=hidden)
    groups = result.tile_group()
    for index, tile in enumerate(record.tiles):
        if tile.role == "distractor":
            assert index not in groups, f"discard {index} ({tile.code}) taken into the hand"
        else:
            assert index in groups, f"hand tile {index} ({tile.code}) left out"
    winning = [i for i, t in enumerate(record.tiles) if t.role == "winning"]
    assert result.decoded.winning_index == winning[0]
    if not hidden:
        expected = score_hand(hand_from_json(truth), rules="taiwan").total
        assert result.score.total == expected


def test_hidden_kong_face_is_reported_not_guessed_silently():
    record = next(r for r in RECORDS if r.image == "hand-concealed-kong.jpg")
    result = read_readings(oracle_readings(record), context=record.hand["context"])
    assert any("four backs" in w for w in result.warnings)
    assert result.decoded.confidence < 0.5
