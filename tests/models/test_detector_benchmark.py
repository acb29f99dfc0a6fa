"""The ``models`` benchmark runs the shipped detector and classifier on its rendered 17-tile hand."""

from __future__ import annotations

import pytest

from vision.models.benchmark import BENCHMARK_HAND, benchmark_image, measure
from vision.models.classifier import TileClassifier
from vision.models.detector import TileDetector


def test_benchmark_photo_is_read_and_timed() -> None:
    pytest.importorskip("vision.synth")
    image, source = benchmark_image(None)
    assert image.shape == (960, 1280, 3) and "17-tile" in source
    assert len(BENCHMARK_HAND["concealed"]) == 17
    result = measure(TileDetector(), TileClassifier(), image, repeats=2, warmup=1)
    assert 15 <= result["tiles_found"] <= 17
    for stage in ("detector", "classifier", "total"):
        timing = result[stage]
        assert 0 < timing["median_ms"] <= timing["p95_ms"]
