"""End to end with the shipped ONNX models: photo file -> tiles, groups, hand, score or a clear refusal.

The shipped models find and read most tiles but rarely every tile of a hand (models/MODEL_CARD.md),
so whole-hand exactness is measured by ``scripts/evaluate.py hands`` (numbers in the README), and
exact hands, groups and totals are pinned by test_samples.py on the samples' labelled tiles. Here
the floors are the shipped models' measured tile recall and accuracy on the bundled photos (a
regression fails them), every photo must end as a scored hand or a one-line refusal with its tiles
reported, and the README's overhead photo is read exactly.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from shared_data import REASON as SHARED_DATA

from scoring.errors import InputError
from vision.cli import main
from vision.dataset.manifest import read_manifest
from vision.dataset.paths import shared_data_dir
from vision.decode.budget import NO_DEADLINE
from vision.evaluation.hand_outcome import match_labels, resolve_image
from vision.models import models_dir

SAMPLES = Path(__file__).resolve().parents[2] / "datasets" / "samples"
RECORDS = read_manifest(SAMPLES / "manifest.jsonl") + read_manifest(SAMPLES / "overhead.jsonl")
REAL = read_manifest(SAMPLES / "real" / "manifest.jsonl")
MODELS = ("detector.onnx", "classifier.onnx", "classifier.labels.json")
missing = [name for name in MODELS if not (models_dir() / name).is_file()]
pytestmark = pytest.mark.skipif(bool(missing), reason=f"shipped models not present: {', '.join(missing)}")

#: Measured with the shipped models (detector 5ca24d2, classifier 43d18fe): rendered samples recall
#: 0.77, accuracy 0.64 of labelled hand tiles; real racks 0.83, 0.79. The floors sit below that.
FLOORS = {"samples": (0.70, 0.55), "real": (0.75, 0.70)}


@pytest.fixture(scope="module")
def pipeline():
    from vision.pipeline import PhotoPipeline

    return PhotoPipeline(photo_budget=NO_DEADLINE)


def _tile_rates(pipeline, records, base):
    from vision.imageio import PhotoSource

    labelled = found = correct = 0
    for record in records:
        readings = pipeline.read_tiles(PhotoSource(resolve_image(record, base)))
        hand = [i for i, t in enumerate(record.tiles) if t.role != "distractor"]
        matches = match_labels([t.box for t in record.tiles], [r.detection.box for r in readings])
        labelled += len(hand)
        found += sum(1 for i in hand if i in matches)
        correct += sum(1 for i in hand if i in matches and readings[matches[i]].code == record.tiles[i].code)
    return found / labelled, correct / labelled


def test_rendered_samples_tiles_found_and_read(pipeline):
    recall, accuracy = _tile_rates(pipeline, RECORDS, SAMPLES)
    assert recall >= FLOORS["samples"][0] and accuracy >= FLOORS["samples"][1]


def test_real_rack_photos_tiles_found_and_read(pipeline):
    if not all(resolve_image(r, SAMPLES / "real").is_file() for r in REAL):
        pytest.skip(SHARED_DATA)
    recall, accuracy = _tile_rates(pipeline, REAL, SAMPLES / "real")
    assert recall >= FLOORS["real"][0] and accuracy >= FLOORS["real"][1]


@pytest.mark.parametrize("record", RECORDS, ids=[r.image for r in RECORDS])
def test_every_sample_ends_scored_or_refused_with_its_tiles(record, tmp_path, capsys):
    context = record.hand["context"]
    out = tmp_path / "annotated.png"
    status = main(["photo", str(SAMPLES / record.image), "--json", "--annotate", str(out),
                   "--seat", context["seat_wind"], "--round", context["round_wind"], "--discard"])
    captured = capsys.readouterr()
    document = json.loads(captured.out)  # exactly one JSON document, nothing else on stdout
    assert set(document) >= {"image", "tiles", "hand", "confidence", "warnings", "score"}
    assert document["tiles"], "the tiles found are always reported"
    height, width = cv2.imread(str(SAMPLES / record.image)).shape[:2]
    for tile in document["tiles"]:
        assert set(tile) >= {"code", "confidence", "box", "rotated", "face_down", "alternatives", "group"}
        x1, y1, x2, y2 = tile["box"]
        assert 0 <= x1 < x2 <= width and 0 <= y1 < y2 <= height
    if status == 0:
        assert document["score"]["valid"] and captured.err == ""
        assert all(t["group"] is not None for t in document["tiles"] if t["role"] != "ignored")
    else:
        assert status == 2 and document["score"] is None and document["error"]
        assert captured.err.count("\n") == 1 and document["error"] in captured.err
    assert cv2.imread(str(out)) is not None, "the annotated photo is written either way"


def test_overhead_sample_is_read_exactly(pipeline):
    """The README's photo: every tile, every group, the winning tile and the total, checked."""
    from scoring import hand_from_json, score_hand
    from vision.evaluation.hand_outcome import same_hand
    from vision.types import GroupRole

    record = next(r for r in RECORDS if r.image == "hand-overhead.jpg")
    truth = record.hand
    result = pipeline.read_photo(SAMPLES / record.image, context=truth["context"])
    assert same_hand(result.hand, truth)
    assert result.score.valid and result.score.total == score_hand(hand_from_json(truth)).total
    matches = match_labels([t.box for t in record.tiles], [r.detection.box for r in result.readings])
    roles = {"concealed": GroupRole.CONCEALED, "winning": GroupRole.CONCEALED, "meld": GroupRole.MELD,
             "flower": GroupRole.FLOWERS}
    groups = {i: g for g in result.decoded.best.groups for i in g.tile_indices}
    for index, tile in enumerate(record.tiles):
        found = matches[index]
        assert result.code_of(found) == tile.code
        assert groups[found].role is roles[tile.role]
    meld_groups = {tuple(sorted(matches[i] for i, t in enumerate(record.tiles) if t.group == g))
                   for g in {t.group for t in record.tiles if t.role == "meld"}}
    assert meld_groups == {tuple(sorted(g.tile_indices)) for g in result.decoded.best.groups
                           if g.role is GroupRole.MELD}
    winning = next(i for i, t in enumerate(record.tiles) if t.role == "winning")
    assert result.decoded.winning_index == matches[winning]


def test_no_tiles_is_exit_2(tmp_path, capsys):
    empty_table = tmp_path / "felt.jpg"
    felt = np.zeros((960, 1280, 3), np.uint8)
    felt[:] = (60, 120, 40)
    cv2.imwrite(str(empty_table), felt)
    assert main(["photo", str(empty_table)]) == 2
    assert capsys.readouterr().err == f"taicam: error: {empty_table}: no tiles found in the photo\n"


def test_each_line_about_one_of_several_photos_names_it(tmp_path, capsys):
    """``taicam photo notes.jpg wall.jpg hand.jpg``: "no tiles found in the photo" said which."""
    notes, wall = tmp_path / "notes.jpg", tmp_path / "wall.jpg"
    notes.write_text("milk, eggs, tiles")
    cv2.imwrite(str(wall), np.full((960, 1280, 3), (200, 210, 215), np.uint8))
    hand = SAMPLES / "hand-overhead.jpg"
    assert main(["photo", str(notes), str(wall), str(hand)]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"taicam: error: {notes}: not an image (or a format taicam cannot read)",
        f"taicam: error: {wall}: no tiles found in the photo"]
    assert captured.out.startswith(f"{hand}: ")


@pytest.mark.parametrize("record", REAL, ids=[Path(r.image).name[:12] for r in REAL])
def test_real_rack_is_not_a_winning_hand(record, capsys):
    image = resolve_image(record, SAMPLES / "real")
    if not image.is_file():
        pytest.skip(SHARED_DATA)
    assert main(["photo", str(image)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("not a winning hand" in err or "no standing tiles" in err)


#: The rendered samples the shipped models read exactly (measured: ``python scripts/evaluate.py hands
#: --synth datasets/samples/manifest.jsonl --real none --per-hand FILE``). The others: the fully
#: concealed hand's 6z is under half visible; the concealed kong's is read as a last resort (below).
READ_EXACTLY = ("hand-flat-row.jpg", "hand-four-sets.jpg", "hand-busy-table.jpg", "hand-standing-row.jpg")


@pytest.mark.parametrize("name", READ_EXACTLY)
def test_samples_the_models_read_whole_are_read_exactly(pipeline, name):
    from scoring import hand_from_json, score_hand
    from vision.evaluation.hand_outcome import same_hand

    record = next(r for r in RECORDS if r.image == name)
    truth = record.hand
    result = pipeline.read_photo(SAMPLES / name, context=truth["context"])
    assert same_hand(result.hand, truth)
    assert result.score.valid and result.score.total == score_hand(hand_from_json(truth)).total


def test_standing_row_sample_reads_with_its_4s_halves_joined(pipeline):
    """Its standing 4s are found as overlapping halves read 2s (three of them upright, two turned
    level); taken so the hand needed two corrections and left its 8m pung out. Joined
    (``vision.repairs.standing_halves``) it reads as seen."""
    result = pipeline.read_photo(SAMPLES / "hand-standing-row.jpg")
    assert not result.decoded.changes
    assert any("joined and read 4s 4s" in warning for warning in result.warnings)


def test_concealed_kong_sample_reads_turned_level_its_kong_face_unseen(pipeline):
    """Its rows slant 33 degrees. Read as it is, two of its kong's backs are only weak spares, two
    standing 4s are found as one tile and a flower misread; turned level
    (``vision.repairs.turned_look``) every tile reads right, flowers too, and the kong's two backs
    found make it a concealed kong whose face no tile shows: the lowest total, not called sure."""
    from vision.evaluation.hand_outcome import same_hand

    record = next(r for r in RECORDS if r.image == "hand-concealed-kong.jpg")
    truth = record.hand
    result = pipeline.read_photo(SAMPLES / record.image, context=truth["context"])
    assert "turned_detect" in result.timings
    assert same_hand(result.hand, truth, hide_concealed_faces=True)
    assert sorted(result.hand["flowers"]) == sorted(truth["flowers"])
    assert not result.report.score_stable
    assert any("its face cannot be seen" in warning for warning in result.warnings)


FAR_SET_PHOTO = shared_data_dir() / "table-photos" / "images" / (
    "420479065_300702423003423_8997936954384187486_n_jpg.rf.daa99ac833da19624c412b77e7f1a103.jpg")


@pytest.mark.skipif(not FAR_SET_PHOTO.is_file(), reason=SHARED_DATA)
def test_a_real_hand_a_set_short_is_told_so_not_completed_from_the_far_wall(pipeline):
    """A real hand (eight standing tiles, a pung and a pung of East, a flower) whose third set is not
    in the photo. A pung of 3s at the far wall, tiles a third the row's size, once completed it
    (13 tai); left out, the likeliest row was a wall of backs and the photo failed as "face-down"."""
    with pytest.raises(InputError, match="8 standing tiles with 2 set"):
        pipeline.read_photo(FAR_SET_PHOTO)
