"""The bundled sample (datasets/synth-sample): valid, covers every layout, reproducible from its seeds."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from shared_data import needs_shared_data

from scoring import hand_from_json, score_hand
from vision.dataset.manifest import read_manifest, record_problems
from vision.dataset.paths import SYNTH_SAMPLE_DIR
from vision.synth import SceneConfig, render_scene
from vision.synth.writer import scene_rng

MANIFEST = SYNTH_SAMPLE_DIR / "manifest.jsonl"


@pytest.fixture(scope="module")
def records():
    return read_manifest(MANIFEST)


def test_sample_labels_are_valid(records) -> None:
    assert len(records) == 8
    for record in records:
        image = cv2.imread(str(SYNTH_SAMPLE_DIR / record.image))
        assert image is not None and image.shape[:2] == (record.height, record.width)
        assert record_problems(record) == []
        assert score_hand(hand_from_json(record.hand)).valid


def test_sample_covers_every_layout(records) -> None:
    hand_tiles = [t for r in records for t in r.tiles if t.role != "distractor"]
    roles = {t.role for t in hand_tiles}
    assert {"concealed", "meld", "concealed_kong", "flower", "winning"} <= roles
    assert any(t.rotated and t.role == "meld" for t in hand_tiles)  # a claimed tile turned sideways
    assert {r.extra["concealed_standing"] for r in records} == {True, False}
    assert any(t.role == "distractor" and t.face_down for r in records for t in r.tiles)  # walls


@needs_shared_data("crops-labelled")  # the sample was rendered with the real crop sets
def test_sample_is_reproducible_from_its_seeds(records) -> None:
    config = SceneConfig.like_real_photos(width=records[0].width, height=records[0].height,
                                          jpeg_in_memory=False)  # as taicam synth renders
    for record in records[:3]:
        image, again = render_scene(scene_rng(record.extra["seed"], record.extra["index"]), config)
        assert again.hand == record.hand
        assert [(t.code, t.role, t.group, t.rotated, t.face_down) for t in again.tiles] == [
            (t.code, t.role, t.group, t.rotated, t.face_down) for t in record.tiles]
        for a, b in zip(again.tiles, record.tiles, strict=True):
            assert np.allclose(a.box, b.box, atol=0.5)
        # Encoded as the writer did, the image matches the stored JPEG (bit-exact with the same OpenCV;
        # the tolerance allows another build's rounding, not a moved or different tile).
        ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, record.extra["jpeg_quality"]])
        again_pixels = cv2.imdecode(encoded, cv2.IMREAD_COLOR).astype(np.float32)
        stored = cv2.imread(str(SYNTH_SAMPLE_DIR / record.image)).astype(np.float32)
        assert ok and float(np.abs(again_pixels - stored).mean()) < 0.5
