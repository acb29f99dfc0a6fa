"""The frame grabber on real sources: a video file, a live HTTP MJPEG stream, a missing camera."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from live_fixtures import MjpegServer, frame_number

from scoring.errors import InputError
from vision.live.capture import FrameGrabber, GrabberStatus, Pace, ReconnectPolicy
from vision.live.sources import parse_source


def test_parse_source_kinds(tmp_path: Path, counting_video: Path):
    assert parse_source("0").is_camera
    assert parse_source("rtsp://10.0.0.2/live").is_stream
    assert parse_source("http://phone.local:8080/video").is_live
    source = parse_source(str(counting_video))
    assert source.is_file and not source.is_live


@pytest.mark.parametrize("text", ["", "no/such/video.mp4"])
def test_parse_source_rejects_missing(text: str):
    with pytest.raises(InputError):
        parse_source(text)


def test_parse_source_rejects_an_empty_file(tmp_path: Path):
    empty = tmp_path / "empty.mp4"
    empty.write_bytes(b"")
    with pytest.raises(InputError, match="empty"):
        parse_source(str(empty))


def test_a_file_that_is_not_a_video_cannot_be_opened(tmp_path: Path):
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"this is not a video" * 100)
    with pytest.raises(InputError, match="cannot open video file"):
        FrameGrabber(parse_source(str(junk))).start()


def test_a_missing_camera_is_a_clear_error():
    with pytest.raises(InputError, match="cannot open camera 7"):
        FrameGrabber(parse_source("7")).start()


def test_every_pace_delivers_each_frame_once_then_ends(counting_video: Path):
    seen = []
    with FrameGrabber(parse_source(str(counting_video))) as grabber:
        assert grabber.pace is Pace.EVERY
        last = -1
        while (frame := grabber.next_frame(last, timeout=5.0)) is not None:
            seen.append((frame.index, frame_number(frame.image), frame.timestamp))
            last = frame.index
            time.sleep(0.002)
        assert grabber.status is GrabberStatus.ENDED
        assert grabber.stats.frames_dropped == 0
    assert [index for index, _, _ in seen] == list(range(30))
    assert [number for _, number, _ in seen] == list(range(30))
    assert seen[15][2] == pytest.approx(0.5)  # media time, not wall time


def test_live_pace_serves_the_newest_frame_and_never_builds_a_backlog(counting_video: Path):
    """A consumer slower than the camera gets fresh frames; the ones it missed are dropped."""
    taken = []
    with FrameGrabber(parse_source(str(counting_video)), pace=Pace.LIVE) as grabber:
        last = -1
        while (frame := grabber.next_frame(last, timeout=5.0)) is not None:
            taken.append(frame.index)
            assert frame_number(frame.image) == frame.index
            last = frame.index
            time.sleep(0.1)  # 10 fps consumer, 30 fps source
        dropped = grabber.stats.frames_dropped
    assert taken == sorted(taken)
    assert 4 <= len(taken) <= 16
    assert dropped == 30 - len(taken)
    assert max(b - a for a, b in zip(taken, taken[1:], strict=False)) >= 2


def test_a_stream_that_drops_is_reopened(mjpeg_server: MjpegServer):
    policy = ReconnectPolicy(attempts=3, first_delay=0.05)
    frames = 0
    with FrameGrabber(parse_source(mjpeg_server.url), reconnect=policy) as grabber:
        last = -1
        deadline = time.monotonic() + 10
        while frames < 25 and time.monotonic() < deadline:
            frame = grabber.next_frame(last, timeout=2.0)
            if frame is not None:
                frames += 1
                last = frame.index
        assert grabber.stats.reconnects >= 2  # 10 frames per connection
        assert not grabber.finished
    assert frames == 25


def test_a_stream_that_goes_away_fails_with_a_message_after_backoff(mjpeg_server: MjpegServer):
    policy = ReconnectPolicy(attempts=3, first_delay=0.05, max_delay=0.1)
    with FrameGrabber(parse_source(mjpeg_server.url), reconnect=policy) as grabber:
        assert grabber.next_frame(-1, timeout=5.0) is not None
        mjpeg_server.stop()
        started = time.monotonic()
        while not grabber.finished and time.monotonic() - started < 10:
            grabber.next_frame(10**9, timeout=0.5)
        assert grabber.status is GrabberStatus.FAILED
        assert "disconnected; gave up after 3 reconnect attempts" in grabber.message
        assert grabber.next_frame(10**9, timeout=0.1) is None


def test_stop_ends_a_waiting_producer(counting_video: Path):
    grabber = FrameGrabber(parse_source(str(counting_video))).start()
    assert grabber.next_frame(-1, timeout=5.0) is not None
    grabber.stop()  # producer is blocked waiting for frame 1 to be taken
    assert grabber.status is GrabberStatus.STOPPED


def test_a_video_served_over_http_is_finite_and_ends_cleanly(counting_video: Path):
    import functools
    import http.server
    import threading

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(counting_video.parent))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/{counting_video.name}"
        with FrameGrabber(parse_source(url)) as grabber:
            assert grabber.finite and grabber.pace is Pace.EVERY and grabber.frame_count == 30
            last, count = -1, 0
            while (frame := grabber.next_frame(last, timeout=5.0)) is not None:
                count += 1
                last = frame.index
            assert grabber.status is GrabberStatus.ENDED
        assert count == 30
    finally:
        server.shutdown()
        server.server_close()


def test_a_live_stream_cannot_wait_for_every_frame(mjpeg_server: MjpegServer):
    with pytest.raises(InputError, match="is live"):
        FrameGrabber(parse_source(mjpeg_server.url), pace=Pace.EVERY).start()
