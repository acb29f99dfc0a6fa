"""``taicam synth`` and ``taicam data``: files written, same output for any worker count, clean errors."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from vision.cli import main
from vision.dataset.manifest import read_manifest

SMALL = ["--width", "320", "--height", "240", "--quiet"]


def test_synth_writes_images_and_manifest_and_is_the_same_with_two_workers(tmp_path: Path, capsys) -> None:
    assert main(["synth", str(tmp_path / "a"), "--count", "3", "--seed", "7", *SMALL]) == 0
    assert main(["synth", str(tmp_path / "b"), "--count", "3", "--seed", "7", "--workers", "2", *SMALL]) == 0
    first = read_manifest(tmp_path / "a" / "manifest.jsonl")
    second = read_manifest(tmp_path / "b" / "manifest.jsonl")
    assert [r.to_json() for r in first] == [r.to_json() for r in second]
    for record in first:
        image = cv2.imread(str(tmp_path / "a" / record.image))
        assert image.shape == (240, 320, 3)
        assert record.extra["seed"] == 7
    assert (tmp_path / "a" / "images" / "000002.jpg").read_bytes() == (
        tmp_path / "b" / "images" / "000002.jpg").read_bytes()
    assert "wrote 3 scenes" in capsys.readouterr().out


def test_synth_refuses_to_overwrite_and_rejects_bad_options(tmp_path: Path, capsys) -> None:
    out = str(tmp_path / "s")
    assert main(["synth", out, "--count", "1", *SMALL]) == 0
    assert main(["synth", out, "--count", "1", *SMALL]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["synth", out, "--count", "1", "--force", *SMALL]) == 0
    assert main(["synth", str(tmp_path / "t"), "--count", "0", *SMALL]) == 2
    assert main(["synth", str(tmp_path / "t"), "--split", "test", *SMALL]) == 2
    assert main(["synth", str(tmp_path / "t"), "--width", "10", "--height", "240"]) == 2
    assert main(["synth", str(tmp_path / "t"), "--workers", "0", *SMALL]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("taicam: error:") == 4


def test_data_stats_preview_and_export(tmp_path: Path, capsys) -> None:
    out = tmp_path / "s"
    assert main(["synth", str(out), "--count", "2", "--seed", "1", *SMALL]) == 0
    capsys.readouterr()
    assert main(["data", "stats", str(out), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["images"] == 2 and stats["problems"] == 0 and stats["hands"]["hands"] == 2
    assert main(["data", "preview", str(out), "--count", "2", "--cell", "160"]) == 0
    assert cv2.imread(str(out / "preview.png")) is not None
    assert main(["data", "export", str(out), str(tmp_path / "yolo"), "--to", "yolo"]) == 0
    assert main(["data", "stats", str(tmp_path / "yolo")]) == 0
    assert main(["data", "export", str(out), str(tmp_path / "coco"), "--to", "coco"]) == 0
    capsys.readouterr()
    assert main(["data", "stats", str(tmp_path / "coco" / "annotations.json"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tiles"] == stats["tiles"]


@pytest.mark.parametrize("args", [["data", "stats", "/nonexistent/x"], ["data", "preview", "/nonexistent/x"],
                                  ["data", "export", "/nonexistent/x", "/tmp/y"]])
def test_data_commands_report_missing_datasets(args: list[str], capsys) -> None:
    assert main(args) == 2
    assert "does not exist" in capsys.readouterr().err


def test_synth_lays_out_given_hands_in_turn(tmp_path: Path, capsys) -> None:
    row = ["1m", "2m", "3m", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z", "5s", "6s", "7s",
           "9m", "9m", "9m"]
    hands = [{"concealed": row, "melds": [], "flowers": ["1f"], "winning_tile": "3m"},
             {"concealed": ["1z", "1z"], "melds": [{"kind": "pung", "tiles": [c] * 3, "concealed": False}
                                                   for c in ("2z", "3z", "4z", "5z", "6z")],
              "flowers": [], "winning_tile": "1z"}]
    path = tmp_path / "hands.jsonl"
    path.write_text("\n".join(json.dumps(h) for h in hands) + "\n", encoding="utf-8")
    assert main(["synth", str(tmp_path / "out"), "--hand", str(path), *SMALL]) == 0
    records = read_manifest(tmp_path / "out" / "manifest.jsonl")
    assert [r.hand for r in records] == hands
    bad = {"concealed": ["1x"], "melds": [], "flowers": [], "winning_tile": "1x"}
    path.write_text(json.dumps(bad), encoding="utf-8")
    assert main(["synth", str(tmp_path / "bad"), "--hand", str(path), *SMALL]) == 2
    assert "hand 1:" in capsys.readouterr().err
    assert main(["synth", str(tmp_path / "bad"), "--hand", str(tmp_path / "none.json"), *SMALL]) == 2
