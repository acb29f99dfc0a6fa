"""Exports from a labelling folder, and the CLI's handling of bad input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cv2
from label_helpers import seed_labels

from vision.label.exchange import export_crops
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
