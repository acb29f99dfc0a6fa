"""``taicam live`` fails clearly (exit 2, one line on stderr) on everything the user can get wrong."""

from __future__ import annotations

from pathlib import Path

import pytest
from bad_images import huge_png_bytes
from live_fixtures import counting_video  # noqa: F401 - fixture

from vision.cli import main


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def one_line_error(err: str, needle: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("taicam: error:") and needle in lines[0], err


def test_a_missing_camera(capsys):
    status, out, err = run(["live", "--source", "7", "--headless"], capsys)
    assert status == 2 and out == ""
    one_line_error(err, "cannot open camera 7")


def test_a_missing_video_file(capsys, tmp_path: Path):
    status, _, err = run(["live", "--source", str(tmp_path / "nope.mp4"), "--headless"], capsys)
    assert status == 2
    one_line_error(err, "video file not found")


def test_an_unreachable_stream(capsys):
    status, _, err = run(["live", "--source", "http://127.0.0.1:9/video.mjpg", "--headless"], capsys)
    assert status == 2
    one_line_error(err, "cannot open stream")


def test_a_text_file_named_as_a_photo_is_not_read_as_0_frames(capsys, tmp_path: Path):
    notes = tmp_path / "notes.jpg"
    notes.write_text("milk, eggs, tiles")
    status, out, err = run(["live", "--source", str(notes), "--headless"], capsys)
    assert status == 2 and out == ""
    one_line_error(err, f"{notes}: not an image")


def test_a_decompression_bomb_is_refused_from_its_header(capsys, tmp_path: Path):
    huge = tmp_path / "huge.png"
    huge.write_bytes(huge_png_bytes())
    status, out, err = run(["live", "--source", str(huge), "--headless"], capsys)
    assert status == 2 and out == ""
    one_line_error(err, "the limit is 100 MP")


def test_a_video_that_yields_no_frame_is_an_error(capsys, tmp_path: Path, counting_video: Path):  # noqa: F811
    """A video cut off after its header: OpenCV opens it, and then no frame comes."""
    data = counting_video.read_bytes()
    cut = tmp_path / "cut.avi"
    cut.write_bytes(data[: data.index(b"movi") + 12])
    status, out, err = run(["live", "--source", str(cut), "--headless"], capsys)
    assert status == 2 and out == ""
    one_line_error(err, f"video file {cut}: no frame could be read")


def test_a_window_without_a_screen(capsys, monkeypatch, counting_video: Path):  # noqa: F811
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    status, _, err = run(["live", "--source", str(counting_video)], capsys)
    assert status == 2
    one_line_error(err, "--headless")


@pytest.mark.parametrize(
    ("flags", "needle"),
    [
        (["--annotate", "out.gif"], "use an .mp4 or .avi"),
        (["--annotate", "no/such/folder/out.mp4"], "does not exist"),
        (["--hold", "0"], "--hold"),
        (["--realtime", "--source", "0"], None),
        (["--rules", "no-such-rules"], "unknown rule set"),
        (["--seat", "X"], "wind"),
        (["--fix", "7z"], "--fix '7z': write what the photo read"),
        (["--fix", "7z=9x"], "unknown tile code '9x'"),
    ],
)
def test_bad_options(capsys, counting_video: Path, flags: list[str], needle: str | None):  # noqa: F811
    argv = ["live", "--headless", "--source", str(counting_video), *flags]
    status, out, err = run(argv, capsys)
    assert status == 2 and out == ""
    one_line_error(err, needle or "")
