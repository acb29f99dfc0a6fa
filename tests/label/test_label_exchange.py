"""Exports from a labelling folder, and the CLI's handling of bad input."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import pytest
from label_helpers import seed_labels

from scoring.errors import InputError
from vision.label.exchange import export_coco, export_crops, export_yolo, import_labels
from vision.label.workspace import LabelWorkspace


def test_classifier_crops_land_in_class_folders(photo_dir: Path, tmp_path: Path) -> None:
    seed_labels(photo_dir)
    workspace = LabelWorkspace(photo_dir)
    sideways = {"code": "9s", "box": [400, 300, 460, 340], "rotated": True,
                "quad": [[460, 300], [460, 340], [400, 340], [400, 300]]}
    unknown = {"code": "unknown", "box": [10, 10, 40, 50]}
    workspace.save(1, {"tiles": [sideways, unknown], "reviewed": True}, 0)
    out = tmp_path / "crops"
    counts = export_crops(workspace, out)
    assert counts == {"1m": 1, "2m": 1, "3m": 1, "5p": 3, "9s": 1}
    names = sorted(p.name for p in (out / "5p").iterdir())
    assert names == [f"images__table0-{n:03d}.jpg" for n in (3, 4, 5)]
    crop = cv2.imread(str(out / "9s" / "images__table1-000.jpg"))
    assert crop.shape[0] > crop.shape[1]  # the sideways tile is cut upright: taller than wide
    assert not (out / "unknown").exists()
    assert export_crops(workspace, tmp_path / "reviewed", reviewed_only=True) == {"9s": 1}


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vision.cli", "label", *args],
                          capture_output=True, text=True, timeout=60)


def test_cli_export_and_bad_input(photo_dir: Path, tmp_path: Path) -> None:
    seed_labels(photo_dir)
    done = run_cli(str(photo_dir), "--export-crops", str(tmp_path / "out"))
    assert done.returncode == 0 and "wrote 6 crops of 4 codes" in done.stdout
    cases = [((str(tmp_path / "missing"),), "not a folder"),
             ((str(photo_dir), "--port", "70000"), "--port"),
             ((str(photo_dir), "--model", str(tmp_path)), "no detector.onnx or classifier.onnx")]
    for args, message in cases:
        failed = run_cli(*args)
        assert failed.returncode == 2, failed.stderr
        assert failed.stderr.count("\n") == 1 and message in failed.stderr
        assert "Traceback" not in failed.stderr
    (photo_dir / "manifest.jsonl").write_text("{broken\n")
    failed = run_cli(str(photo_dir), "--port", "0")
    assert failed.returncode == 2 and "manifest.jsonl:1" in failed.stderr


def test_coco_export_import_round_trip_keeps_flags_and_groups(photo_dir: Path, tmp_path: Path) -> None:
    seed_labels(photo_dir)
    workspace = LabelWorkspace(photo_dir)
    edit = {"tiles": [t.to_json() for t in workspace.record(0).tiles], "reviewed": True}
    for tile in edit["tiles"][3:]:
        tile.update(group=2, role="meld")
    edit["tiles"][0].update(code="back", face_down=True)
    workspace.save(0, edit, 0)
    assert export_coco(workspace, tmp_path / "coco") == 1

    fresh = tmp_path / "fresh"
    shutil.copytree(photo_dir / "images", fresh / "images")
    imported = LabelWorkspace(fresh)
    assert import_labels(imported, tmp_path / "coco" / "annotations.json") == (1, 0, 0)
    again = LabelWorkspace(fresh).record(0)  # read back from the manifest written by the import
    original = workspace.record(0)
    assert [(t.code, t.box, t.face_down, t.group, t.role) for t in again.tiles] == \
        [(t.code, t.box, t.face_down, t.group, t.role) for t in original.tiles]
    # A second import leaves labels already there alone, unless told to replace them.
    assert import_labels(imported, tmp_path / "coco" / "annotations.json") == (0, 1, 0)
    assert import_labels(imported, tmp_path / "coco" / "annotations.json", replace=True) == (1, 0, 0)


def test_yolo_import_matches_photos_by_name_and_rescales(photo_dir: Path, tmp_path: Path) -> None:
    yolo = tmp_path / "yolo"
    (yolo / "images").mkdir(parents=True)
    (yolo / "labels").mkdir()
    small = cv2.resize(cv2.imread(str(photo_dir / "images" / "table2.jpg")), (320, 320))
    cv2.imwrite(str(yolo / "images" / "table2.jpg"), small)
    (yolo / "labels" / "table2.txt").write_text("13 0.5 0.25 0.1 0.2\n")  # class 13 = 5p
    (yolo / "images" / "other.jpg").write_bytes((photo_dir / "images" / "table1.jpg").read_bytes())
    workspace = LabelWorkspace(photo_dir)
    assert import_labels(workspace, yolo) == (1, 0, 1)
    (tile,) = workspace.record(2).tiles
    assert tile.code == "5p" and tile.box == pytest.approx((288, 96, 352, 224))

    exported = tmp_path / "yolo-out"
    assert export_yolo(workspace, exported) == 1
    assert (exported / "labels" / "table2.txt").read_text().split()[0] == "13"


def test_import_of_something_else_is_an_input_error(photo_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "notes.json").write_text("{}")
    with pytest.raises(InputError, match="neither a YOLO folder"):
        import_labels(LabelWorkspace(photo_dir), tmp_path / "notes.json")
