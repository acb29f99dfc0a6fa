"""The change gate: the detector is skipped only when the picture really has not changed."""

from __future__ import annotations

import numpy as np

from vision.live.motion import ChangeGate, GateConfig
from vision.live.scenario import relight
from vision.types import Detection

DETECTIONS = [Detection((10, 10, 50, 66), 0.9)]


def table(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    image = np.full((720, 1280, 3), (50, 110, 60), np.uint8)
    image = np.clip(image + rng.normal(0, 4, image.shape), 0, 255).astype(np.uint8)  # cloth grain
    for i in range(17):
        image[300:370, 200 + 52 * i : 250 + 52 * i] = (225, 235, 240)
    return image


def gate_after(image: np.ndarray) -> ChangeGate:
    gate = ChangeGate()
    gate.remember(image, 0.0, DETECTIONS)
    return gate


def test_the_same_scene_with_sensor_noise_reuses_detections():
    gate = gate_after(table(0))
    assert gate.reusable(table(1), 0.1) == DETECTIONS


def test_a_tile_put_down_runs_the_detector():
    image = table(1)
    image[450:520, 600:650] = (225, 235, 240)
    assert gate_after(table(0)).reusable(image, 0.1) is None


def test_a_change_of_light_or_a_different_size_runs_the_detector():
    gate = gate_after(table(0))
    assert gate.reusable(relight(table(0), 0.8), 0.1) is None
    assert gate.reusable(table(0)[:480, :640], 0.1) is None


def test_the_detector_runs_at_least_every_max_age_and_never_when_disabled():
    gate = gate_after(table(0))
    assert gate.reusable(table(0), 0.49) == DETECTIONS
    assert gate.reusable(table(0), 0.5) is None
    disabled = ChangeGate(GateConfig(enabled=False))
    disabled.remember(table(0), 0.0, DETECTIONS)
    assert disabled.reusable(table(0), 0.1) is None
