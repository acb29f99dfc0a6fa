"""The dataset writer streams its manifest: an interrupted run keeps the labels of what it finished."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import vision.synth.writer as writer
from vision.dataset.manifest import read_manifest
from vision.synth import SceneConfig

SMALL = SceneConfig(width=256, height=192)


def test_interrupted_run_keeps_a_manifest_of_finished_scenes(tmp_path: Path, monkeypatch) -> None:
    real_render = writer.render_scene
    calls = {"n": 0}

    def render_then_stop(rng: np.random.Generator, config: SceneConfig, hand=None):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real_render(rng, config, hand=hand)

    monkeypatch.setattr(writer, "render_scene", render_then_stop)
    with pytest.raises(KeyboardInterrupt):
        writer.write_scenes(tmp_path, 5, 1, SMALL)
    records = read_manifest(tmp_path / "manifest.jsonl")
    assert [r.image for r in records] == ["images/000000.jpg", "images/000001.jpg"]
    assert not (tmp_path / "manifest.jsonl.partial").exists()


def test_summary_counts_what_was_written(tmp_path: Path) -> None:
    summary = writer.write_scenes(tmp_path, 2, 3, SMALL)
    records = read_manifest(summary.manifest)
    assert summary.scenes == 2 and summary.tiles == sum(len(r.tiles) for r in records)
    assert summary.manifest.stat().st_mode & 0o044 == 0o044
