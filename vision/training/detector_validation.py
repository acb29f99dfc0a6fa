"""How a detector in training is measured: torch inference through the runtime's letterbox and
decoder, detection metrics at several score thresholds on real photos and renders, and the
threshold chosen from them. Training validates with it and picks the exported model's threshold."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from vision.evaluation.detection import DetectionMetrics, TruthImage, add_partly_boxed, box_iou, match_boxes
from vision.imageio import read_bgr
from vision.models.detector import decode_maps, letterbox, to_network_input
from vision.training.detector_data import DetectorSample
from vision.training.detector_model import STRIDE, TileDetectorNet


@torch.no_grad()
def predict_boxes(model: TileDetectorNet, image_bgr: np.ndarray, input_size: int,
                  score_threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Torch inference with the runtime's letterbox and decoder (for validation during training)."""
    network_image, box = letterbox(image_bgr, input_size)
    maps = model(torch.from_numpy(to_network_input(network_image)))[0].numpy()
    peaks = decode_maps(maps, STRIDE, score_threshold)
    return peaks.boxes / box.scale, peaks.scores


@torch.no_grad()
def evaluate_model(model: TileDetectorNet, images: list[TruthImage], input_size: int,
                   thresholds: tuple[float, ...]) -> dict[float, DetectionMetrics]:
    """Detection metrics of ``model`` on ``images`` at several score thresholds (one forward pass each)."""
    model.eval()
    results = {t: DetectionMetrics() for t in thresholds}
    low = min(thresholds)
    for truth in images:
        image = read_bgr(truth.path)
        boxes, scores = predict_boxes(model, image, input_size, low)
        _count_at_thresholds(results, truth.path.name, boxes, scores, truth.boxes, partly_boxed=True)
    return results


def _count_at_thresholds(results: dict[float, DetectionMetrics], name: str, boxes: np.ndarray,
                         scores: np.ndarray, truth: np.ndarray, partly_boxed: bool = False) -> None:
    """Match one image's detections to its truth at each threshold of ``results`` (one prediction).

    ``partly_boxed``: a real table photo, whose detections away from the boxed row are not judged.
    """
    for t, metrics in results.items():
        keep = scores >= t
        if partly_boxed:
            add_partly_boxed(metrics, name, boxes[keep], scores[keep], truth)
        else:
            metrics.add(name, *match_boxes(boxes[keep], scores[keep], truth))


def f1(m: DetectionMetrics) -> float:
    """The F1 score of ``m``: the harmonic mean of its recall and precision."""
    return 2 * m.recall * m.precision / max(m.recall + m.precision, 1e-9)


#: Score thresholds tried when a model's threshold is chosen.
THRESHOLDS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)
#: Training scenes the threshold is also chosen on (renders score lower than the real photos).
THRESHOLD_SCENES = 150


#: Detection metrics by kind of image ("real", "synth") and by score threshold.
ThresholdMetrics = dict[str, dict[float, DetectionMetrics]]


def threshold_metrics(predict: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
                      real: list[TruthImage], synth: list[DetectorSample]) -> ThresholdMetrics:
    """Detection metrics at each of :data:`THRESHOLDS` on real photos and on rendered scenes.

    ``predict`` gives boxes and scores at the lowest threshold. On renders a detection of a tile that
    is mostly hidden (an ignore region) is neither a hit nor a false positive, as in training.
    """
    metrics: ThresholdMetrics = {}
    if real:
        metrics["real"] = {t: DetectionMetrics() for t in THRESHOLDS}
        for truth in real:
            boxes, scores = predict(read_bgr(truth.path))
            _count_at_thresholds(metrics["real"], truth.path.name, boxes, scores, truth.boxes,
                                 partly_boxed=True)
    if synth:
        metrics["synth"] = {t: DetectionMetrics() for t in THRESHOLDS}
        for sample in synth:
            boxes, scores = predict(sample.image)
            if len(sample.ignore) and len(boxes):
                hidden = box_iou(boxes, sample.ignore).max(axis=1) >= 0.5
                boxes, scores = boxes[~hidden], scores[~hidden]
            _count_at_thresholds(metrics["synth"], sample.source, boxes, scores, sample.boxes)
    return metrics


def choose_threshold(metrics: ThresholdMetrics) -> float:
    """The threshold with the best mean F1 over the kinds of images (real photos, renders): the model
    must serve both, and renders score lower, so a threshold fitted on real photos alone misses them."""
    def mean_f1(t: float) -> float:
        return sum(f1(by_threshold[t]) for by_threshold in metrics.values()) / max(1, len(metrics))

    return max(THRESHOLDS, key=lambda t: (mean_f1(t), -abs(t - 0.35)))
