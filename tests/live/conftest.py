"""Fixtures of the live-mode tests (the helpers live in live_fixtures.py)."""

from live_fixtures import counting_video, mjpeg_server  # noqa: F401 - pytest fixtures
