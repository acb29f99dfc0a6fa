"""End to end with the shipped ONNX models: photo file -> tiles, groups, hand and total, checked.

Rendered samples (``datasets/samples``) carry their truth; the real table photos
(``datasets/samples/real``) carry our labels and are players' racks, not winning hands, so they
check tile reading and layout, and that "not a winning hand" is a clear exit 2.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from scoring import hand_from_json, score_hand
from vision.cli import main
from vision.dataset.manifest import read_manifest
from vision.evaluation.hands import match_labels, resolve_image, same_hand
from vision.layout import layout_tiles
from vision.models import models_dir
from vision.types import GroupRole

SAMPLES = Path(__file__).resolve().parents[2] / "datasets" / "samples"
RECORDS = {r.image: r for r in read_manifest(SAMPLES / "manifest.jsonl")}
REAL = read_manifest(SAMPLES / "real" / "manifest.jsonl")
MODELS = ("detector.onnx", "classifier.onnx", "classifier.labels.json")
missing = [name for name in MODELS if not (models_dir() / name).is_file()]
pytestmark = pytest.mark.skipif(bool(missing), reason=f"shipped models not present: {', '.join(missing)}")

#: Samples the shipped models read exactly (the others are measured by scripts/evaluate.py hands).
EXACT_SAMPLES = ["hand-flat-row.jpg", "hand-standing-row.jpg", "hand-fully-concealed.jpg"]


@pytest.fixture(scope="module")
def pipeline():
    from vision.pipeline import PhotoPipeline

    return PhotoPipeline()


@pytest.mark.parametrize("name", EXACT_SAMPLES)
def test_rendered_hand_is_read_and_scored(name, pipeline):
    record = RECORDS[name]
    truth = record.hand
    result = pipeline.read_photo(SAMPLES / name, context=truth["context"])
    assert same_hand(result.hand, truth)
    assert result.score.valid
    assert result.score.total == score_hand(hand_from_json(truth), rules="taiwan").total
    # Tiles: every hand tile found, with its true code, in the right kind of group.
    matches = match_labels([t.box for t in record.tiles], [r.detection.box for r in result.readings])
    groups = {i: g for g in result.decoded.best.groups for i in g.tile_indices}
    roles = {"concealed": GroupRole.CONCEALED, "winning": GroupRole.CONCEALED, "meld": GroupRole.MELD,
             "concealed_kong": GroupRole.CONCEALED_KONG, "flower": GroupRole.FLOWERS}
    for index, tile in enumerate(record.tiles):
        if tile.role == "distractor":
            continue
        assert index in matches, f"tile {index} ({tile.code}) not detected"
        found = matches[index]
        assert result.code_of(found) == tile.code
        assert groups[found].role is roles[tile.role]
    winning = next(i for i, t in enumerate(record.tiles) if t.role == "winning")
    assert result.decoded.winning_index == matches[winning]


def test_cli_json_and_annotation(tmp_path, capsys):
    name = "hand-flat-row.jpg"
    context = RECORDS[name].hand["context"]
    out = tmp_path / "annotated.jpg"
    status = main(["photo", str(SAMPLES / name), "--json", "--annotate", str(out),
                   "--seat", context["seat_wind"], "--round", context["round_wind"], "--discard"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    document = json.loads(captured.out)
    assert set(document) >= {"image", "tiles", "hand", "confidence", "warnings", "score"}
    assert document["score"]["valid"] and document["score"]["total"] == score_hand(
        hand_from_json(RECORDS[name].hand), rules="taiwan").total
    tile = document["tiles"][0]
    assert set(tile) >= {"code", "confidence", "box", "rotated", "face_down", "alternatives", "group"}
    assert cv2.imread(str(out)) is not None


def test_cli_human_output_says_what_it_assumed(capsys):
    status = main(["photo", str(SAMPLES / "hand-flat-row.jpg")])
    out = capsys.readouterr().out
    assert status == 0
    assert "assumed" in out and "not self-drawn" in out
    assert "TOTAL" in out


def test_no_tiles_is_exit_2(tmp_path, capsys):
    empty_table = tmp_path / "felt.jpg"
    felt = np.zeros((960, 1280, 3), np.uint8)
    felt[:] = (60, 120, 40)
    cv2.imwrite(str(empty_table), felt)
    assert main(["photo", str(empty_table)]) == 2
    assert "no tiles" in capsys.readouterr().err


def test_two_hands_in_one_photo_is_exit_2(tmp_path, capsys):
    left = cv2.imread(str(SAMPLES / "hand-fully-concealed.jpg"))
    right = cv2.imread(str(SAMPLES / "hand-flat-row.jpg"))
    both = tmp_path / "two.jpg"
    cv2.imwrite(str(both), np.hstack([left, right]))
    assert main(["photo", str(both)]) == 2
    assert "two hands" in capsys.readouterr().err


@pytest.mark.parametrize("record", REAL, ids=[Path(r.image).name[:12] for r in REAL])
def test_real_rack_photo_tiles_and_not_a_winning_hand(record, pipeline, capsys):
    image = resolve_image(record, SAMPLES / "real")
    if not image.is_file():
        pytest.skip(f"shared data not present: {image}")
    from vision.pipeline import PhotoReadError

    with pytest.raises(PhotoReadError, match="not a winning hand") as failure:
        pipeline.read_photo(image)
    readings = failure.value.readings
    matches = match_labels([t.box for t in record.tiles], [r.detection.box for r in readings])
    found = [i for i in range(len(record.tiles)) if i in matches]
    correct = [i for i in found if readings[matches[i]].code == record.tiles[i].code]
    assert len(found) >= 0.9 * len(record.tiles), "detector misses rack tiles"
    assert len(correct) >= 0.6 * len(record.tiles), "classifier reads too few rack tiles right"
    # Layout: the rack is one row; its flowers are recognised as flowers.
    layout = layout_tiles(readings)
    concealed = next(g for g in layout.groups if g.role is GroupRole.CONCEALED)
    rack = {matches[i] for i in found if not record.tiles[i].code.endswith("f")}
    assert len(rack & set(concealed.tile_indices)) >= 0.8 * len(rack)
    assert main(["photo", str(image)]) == 2
    assert "not a winning hand" in capsys.readouterr().err
