"""``taicam photo`` on bad input: one clear line on stderr, exit status 2, never a traceback.

These cases fail before any model is needed (the photo is checked first); the model-backed cases
(no tiles, two hands, not a winning hand, good photos) are in test_photo_e2e.py.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from bad_images import write_huge_png
from PIL import Image

from vision.cli import main


@pytest.fixture
def bad_files(tmp_path):
    not_image = tmp_path / "notes.jpg"
    not_image.write_text("not a photo")
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    truncated = tmp_path / "cut.jpg"
    Image.fromarray(np.random.default_rng(0).integers(0, 255, (600, 800, 3), dtype=np.uint8)).save(truncated)
    truncated.write_bytes(truncated.read_bytes()[:5000])
    huge = tmp_path / "huge.png"
    write_huge_png(huge)
    return {"not an image": not_image, "empty": empty, "truncated or corrupt": truncated,
            "the limit is 100 MP": huge, "no such file": tmp_path / "missing.jpg"}


CASES = ["not an image", "empty", "truncated or corrupt", "the limit is 100 MP", "no such file"]


@pytest.mark.parametrize("case", CASES)
def test_bad_photo_is_exit_2_with_one_line(case, bad_files, capsys):
    status = main(["photo", str(bad_files[case])])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("taicam: error:") and case in lines[0]


def test_json_mode_prints_one_document_per_photo_even_when_they_fail(bad_files, capsys):
    photos = [str(bad_files["empty"]), str(bad_files["not an image"])]
    status = main(["photo", "--json", *photos])
    captured = capsys.readouterr()
    documents = [json.loads(line) for line in captured.out.splitlines()]
    assert status == 2
    assert [d["image"] for d in documents] == photos
    assert all(d["score"] is None and d["error"] and d["warnings"] == [d["error"]] for d in documents)
    assert len(captured.err.strip().splitlines()) == 2


def test_bad_flag_is_exit_2(bad_files, capsys):
    assert main(["photo", str(bad_files["empty"]), "--seat", "Q"]) == 2
    assert "--seat" in capsys.readouterr().err


def test_console_script_shows_no_traceback(bad_files):
    command = [sys.executable, "-m", "vision.cli", "photo", str(bad_files["truncated or corrupt"])]
    process = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert process.returncode == 2
    assert "Traceback" not in process.stderr and process.stderr.count("\n") == 1


def test_a_kong_face_no_kong_can_hold_is_exit_2_before_the_photo_is_read(bad_files, capsys):
    assert main(["photo", str(bad_files["empty"]), "--kong-face", "5f"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "--kong-face '5f'" in lines[0] and "empty" not in lines[0]


def test_a_winning_tile_no_hand_can_win_on_is_exit_2(bad_files, capsys):
    assert main(["photo", str(bad_files["empty"]), "--winning-tile", "8f"]) == 2
    assert "--winning-tile '8f'" in capsys.readouterr().err
