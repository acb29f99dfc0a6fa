"""The labelling tool lists an iPhone's HEIC photos, sizes them upright, and shows the page a JPEG
of them (a browser cannot show HEIC)."""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from urllib.parse import urlsplit

import cv2
import numpy as np
from heic_photos import write_heic
from label_helpers import RunningServer, start_server


def _get(server: RunningServer, path: str) -> tuple[int, str, bytes]:
    url = urlsplit(server.url)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read()
    finally:
        connection.close()


def test_a_heic_photo_is_labelled_upright_and_shown_as_a_jpeg(tmp_path: Path) -> None:
    folder = tmp_path / "photos"
    folder.mkdir()
    upright = np.asarray(write_heic(folder / "IMG_0001.HEIC"))[:, :, ::-1]
    server = start_server(folder)
    try:
        status, _, body = _get(server, "/api/images")
        assert status == 200 and [image["image"] for image in json.loads(body)] == ["IMG_0001.HEIC"]
        status, _, body = _get(server, "/api/images/0")
        state = json.loads(body)
        assert status == 200 and (state["width"], state["height"]) == (upright.shape[1], upright.shape[0])
        status, content_type, body = _get(server, "/api/images/0/file")
    finally:
        server.stop()
    assert status == 200 and content_type == "image/jpeg"
    shown = cv2.imdecode(np.frombuffer(body, np.uint8), cv2.IMREAD_COLOR)
    assert shown.shape == upright.shape and float(np.abs(shown.astype(float) - upright).mean()) < 3.0
