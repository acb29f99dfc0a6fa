"""``taicam sets`` end to end on rendered photos of a style the shipped models misread (mirrored art):
learn the set from one photo laid out in order, then read a hand of it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from set_photos import HAND, HAND_FLOWER, render, render_hand

from vision.cli import main
from vision.dataset.manifest import ManifestRecord, TileLabel, write_manifest
from vision.sets.order import SET_ORDER
from vision.sets.store import load_profile, profile_path
from vision.synth.set_layout import rows_of


@pytest.fixture(autouse=True)
def sets_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "sets"
    monkeypatch.setenv("TAICAM_SETS", str(folder))
    return folder


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("renders")
    return {
        "set": render(folder / "set.jpg", rows_of(SET_ORDER, [9, 9, 9, 7, 8]), 1),
        "upside_down": render(folder / "upside_down.jpg", rows_of(SET_ORDER, [14, 14, 14]), 2,
                              upside_down=True),
        "missing": render(folder / "missing.jpg",
                          rows_of([c for c in SET_ORDER if c != "5s"], [9, 9, 8, 7, 8]), 4),
        "hand": render_hand(folder / "hand.jpg"),
    }


def _hand_codes(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    """``taicam photo --json``'s status, the codes of the hand's tiles, and what it said on stderr."""
    status = main(["photo", *args, "--json"])
    captured = capsys.readouterr()
    document = json.loads(captured.out.strip().splitlines()[-1])
    codes = sorted(tile["code"] for tile in document.get("tiles", []) if tile["role"] != "ignored")
    return status, codes, captured.err


def test_one_photo_in_order_teaches_a_style_the_models_misread(photos: dict[str, Path], tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    before, read_before, _ = _hand_codes(capsys, str(photos["hand"]))
    assert before != 0 or read_before != sorted(HAND + [HAND_FLOWER])  # the shipped models alone fail
    annotated = tmp_path / "set.png"
    assert main(["sets", "learn", "mine", str(photos["set"]), "--annotate", str(annotated)]) == 0
    out = capsys.readouterr().out
    assert "set.jpg: 42 tiles" in out and "(read " in out  # the table shows what the models misread
    assert "row 5: 1f 2f" in out and annotated.stat().st_size > 10_000
    status, codes, _ = _hand_codes(capsys, str(photos["hand"]), "--set", "mine")
    assert status == 0 and codes == sorted(HAND + [HAND_FLOWER])


def test_an_upside_down_photo_runs_the_order_backwards_and_adds_to_the_set(
        photos: dict[str, Path], sets_folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sets", "learn", "mine", str(photos["set"])]) == 0
    assert main(["sets", "learn", "mine", str(photos["upside_down"])]) == 0
    assert "the order runs backwards" in capsys.readouterr().out
    profile = load_profile(profile_path("mine"))
    assert len(profile.views) == 84 and set(profile.codes) == set(SET_ORDER)
    assert profile_path("mine").stat().st_size < 3_000_000
    assert main(["sets", "learn", "mine", str(photos["set"]), "--replace"]) == 0
    assert len(load_profile(profile_path("mine")).views) == 42


def test_a_missing_tile_is_refused_and_nothing_is_written(photos: dict[str, Path], sets_folder: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    annotated = sets_folder.parent / "shown"
    annotated.mkdir()
    args = ["sets", "learn", "mine", str(photos["set"]), str(photos["missing"]), "--annotate", str(annotated)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "found 41 tiles" in err and "1 missing" in err and len(err.strip().splitlines()) == 1
    assert not profile_path("mine").exists()
    assert (annotated / "missing.set.png").stat().st_size > 10_000  # the tiles found, by row


def test_rows_given_describe_any_layout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    photo = render(tmp_path / "few.jpg", [["3p", "7p", "9m"], ["4z", "3f"]], 5)
    assert main(["sets", "learn", "few", str(photo), "--rows", "37p9m", "--rows", "4z3f"]) == 0
    assert sorted(load_profile(profile_path("few")).codes) == ["3f", "3p", "4z", "7p", "9m"]
    assert main(["sets", "learn", "few", str(photo), "--rows", "37p9m4z3f"]) == 2
    assert "found 2 rows of tiles, --rows gives 1" in capsys.readouterr().err
    assert main(["sets", "learn", "few", str(photo), str(photo), "--rows", "37p9m"]) == 2
    assert "describe one photo" in capsys.readouterr().err


def test_fixed_tiles_are_learned_from_a_hand(photos: dict[str, Path], tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A set that lacks the misread faces still reads the rest; the player's fixes teach it those."""
    partial = render(tmp_path / "partial.jpg",
                     [["1p", "2p", "4p", "5p", "6p", "8p"], ["7m", "8m", "5m", "2s"]], 6)
    assert main(["sets", "learn", "part", str(partial), "--rows", "124568p", "--rows", "785m2s"]) == 0
    fixes = ["--fix", "2p=3p", "--fix", "2p=3p", "--fix", "6p=7p", "--fix", "5m=9m"]
    status = main(["photo", str(photos["hand"]), "--set", "part", *fixes, "--learn"])
    err = capsys.readouterr().err
    assert status == 0, err
    assert "learned 4 fixed tile(s)" in err
    codes = load_profile(profile_path("part")).codes
    assert codes.count("3p") == 2 and "7p" in codes and "9m" in codes
    assert main(["photo", str(photos["hand"]), "--learn"]) == 2
    assert "--learn adds the tiles fixed with --fix" in capsys.readouterr().err


def test_labelled_photos_teach_a_set_from_the_manifest_and_from_the_label_folder(
        photos: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sets", "learn", "mine", str(photos["set"])]) == 0
    capsys.readouterr()
    assert main(["photo", str(photos["hand"]), "--set", "mine", "--json"]) == 0
    document = json.loads(capsys.readouterr().out.strip())
    folder = tmp_path / "labels"
    folder.mkdir()
    shutil.copy(photos["hand"], folder / "hand.jpg")
    tiles = [TileLabel(tile["code"], tuple(tile["box"])) for tile in document["tiles"]]
    write_manifest(folder / "manifest.jsonl", [ManifestRecord("hand.jpg", 1600, 1200, tiles, reviewed=True)])
    labels = ["--labels", str(folder / "manifest.jsonl")]
    assert main(["sets", "learn", "hand", str(folder / "hand.jpg"), *labels]) == 0
    assert sorted(load_profile(profile_path("hand")).codes) == sorted(HAND + [HAND_FLOWER])
    assert main(["label", str(folder), "--add-to-set", "fromlabel"]) == 0
    assert "learned 18 tiles from 1 reviewed photo" in capsys.readouterr().out


def test_list_show_export_import_remove_and_a_corrupt_profile(photos: dict[str, Path], tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sets", "learn", "mine", str(photos["set"])]) == 0
    assert main(["sets", "list"]) == 0 and "mine: 42 views of 42 faces" in capsys.readouterr().out
    assert main(["sets", "show", "mine"]) == 0 and "(the current one)" in capsys.readouterr().out
    exported = tmp_path / "mine.taiset"
    assert main(["sets", "export", "mine", str(exported)]) == 0
    assert main(["sets", "import", str(exported)]) == 2 and "exists" in capsys.readouterr().err
    assert main(["sets", "import", str(exported), "--name", "copy"]) == 0
    assert main(["sets", "remove", "mine"]) == 0
    assert main(["sets", "show", "mine"]) == 2
    profile_path("copy").write_bytes(exported.read_bytes()[:5000])
    capsys.readouterr()
    assert main(["photo", str(photos["hand"]), "--set", "copy"]) == 2
    err = capsys.readouterr().err.strip()
    assert "is not a usable set profile" in err and len(err.splitlines()) == 1
    foreign = tmp_path / "foreign.taiset"
    foreign.write_text("not a profile")
    assert main(["sets", "import", str(foreign)]) == 2
    assert main(["sets", "learn", "../escape", str(photos["set"])]) == 2


def test_a_changed_classifier_has_the_set_read_again_from_its_views(
        photos: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    onnx = pytest.importorskip("onnx")
    from vision.models import models_dir

    assert main(["sets", "learn", "mine", str(photos["set"])]) == 0
    old = load_profile(profile_path("mine"))
    models = tmp_path / "models"
    shutil.copytree(models_dir(), models, ignore=shutil.ignore_patterns("*.md", "*.pt"))
    model = onnx.load(str(models / "classifier.onnx"))
    model.doc_string = "another build of the same classifier"
    onnx.save(model, str(models / "classifier.onnx"))
    monkeypatch.setenv("TAICAM_MODELS", str(models))
    capsys.readouterr()
    assert main(["sets", "show", "mine"]) == 0 and "not the current one" in capsys.readouterr().out
    status, codes, err = _hand_codes(capsys, str(photos["hand"]), "--set", "mine")
    assert status == 0 and codes == sorted(HAND + [HAND_FLOWER])
    assert "read again with this one" in err
    new = load_profile(profile_path("mine"))
    assert new.model_sha256 != old.model_sha256 and len(new.views) == 42


def test_a_table_file_names_the_set(photos: dict[str, Path], tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sets", "learn", "mine", str(photos["set"])]) == 0
    table = tmp_path / "table.toml"
    table.write_text('rules = "taiwan"\nset = "mine"\n', encoding="utf-8")
    capsys.readouterr()
    status, codes, _ = _hand_codes(capsys, str(photos["hand"]), "--table", str(table))
    assert status == 0 and codes == sorted(HAND + [HAND_FLOWER])
    table.write_text("set = 3\n", encoding="utf-8")
    assert main(["photo", str(photos["hand"]), "--table", str(table)]) == 2
    assert "'set' must be the name of a learned tile set" in capsys.readouterr().err
