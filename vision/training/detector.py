"""Train the tile detector from scratch, export it to ONNX and check onnxruntime agrees with torch.

One function, :func:`train_detector`, does the whole recipe so ``scripts/train_detector.py`` stays
thin and the smoke test can run the same code for one step. The recipe (why each choice):

- Real table photos of the *train* split (whole photo groups held out, see
  ``vision.evaluation.detection.table_photo_split``) plus synthetic scenes when ``vision.synth`` is
  available: the real photos teach real tiles, felts and light; the renders add sideways and
  face-down tiles, which the real photos never show.
- Random crops of images scaled like the runtime input (longest side 512, jittered): 256 pixels
  for the first 60% of the steps (less than half the cost of a step), 384 for the rest. The
  network is fully convolutional, so it runs on whole letterboxed photos at inference.
- CenterNet losses: penalty-reduced focal loss on the heatmap, L1 on offset and log-size at the
  centres, binary cross-entropy on the flags where they are known.
- AdamW, cosine learning rate, an exponential moving average of the weights (smoother on small
  data); the EMA weights are exported. Seeded; two threads by default.
"""

from __future__ import annotations

import copy
import json
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np
import torch
from torch.nn import functional as F  # noqa: N812

from vision.dataset.paths import REPO_ROOT, shared_data_dir
from vision.evaluation.detection import (
    DetectionMetrics,
    TruthImage,
    add_partly_boxed,
    box_iou,
    load_table_photos,
    match_boxes,
)
from vision.imageio import read_bgr
from vision.models.detector import decode_maps, letterbox, to_network_input
from vision.training.detector_data import DetectorSample, samples_from_truth, synthetic_samples
from vision.training.detector_model import MAP_CHANNELS, STRIDE, TileDetectorNet
from vision.training.detector_targets import DetectorTargets, encode_targets, to_tensor_image
from vision.training.detector_views import DEFAULT_ZOOM, random_view

DEFAULT_DATA_ROOT = shared_data_dir() / "table-photos"
#: Rendered scenes are kept between runs (``/runs/`` is git-ignored); delete it when the renderer changes.
DEFAULT_SYNTH_CACHE = REPO_ROOT / "runs" / "detector-synth-cache"


@dataclass
class DetectorTrainConfig:
    """Everything that defines a training run (written next to the model for reproducibility)."""

    data_root: Path = DEFAULT_DATA_ROOT
    output: Path = Path("models/detector.onnx")
    steps: int = 12000
    batch_size: int = 8
    crop_size: int = 384
    # Progressive crops: the first ``early_crop_share`` of the steps train on smaller crops at the
    # same tile scale (less context around each tile), which cost 0.155 s a batch against 0.34 s on
    # the 2-core CPU; the rest on full crops, so the stride-32 context is learned last at full size.
    early_crop_size: int = 256
    early_crop_share: float = 0.6
    input_size: int = 512
    learning_rate: float = 2e-3
    weight_decay: float = 5e-4
    warmup_steps: int = 100
    ema_decay: float = 0.998
    synth_scenes: int = 1000
    # Renders are the only source of tile outlines and sideways tiles, so they get almost half the batch.
    synth_fraction: float = 0.45
    # How much more a sideways tile's outline error counts than an upright one's: 1 tile in 20 lies
    # across its row, and unweighted its axis was pulled to its neighbours' (r6: 12 of 40 found; r7: 19).
    sideways_outline_weight: float = 5.0
    # How much more a sideways tile's centre counts in the heatmap loss (1: the same). A winning tile
    # lying flat in front of a standing row, half over it, is the hand tile the shipped detector
    # misses most (8 of the 200 held-out hands: its peak stays at 0.1-0.65).
    sideways_heat_weight: float = 1.0
    # Share of the synthetic draws taken from the scenes with face-down hand tiles (concealed kongs),
    # which are 1 render in 10 and whose backs r9 still misses; 0 draws as any other scene.
    face_down_share: float = 0.4
    synth_cache: Path | None = DEFAULT_SYNTH_CACHE
    seed: int = 20261122
    # Two threads on a quiet 2-core machine; pass 1 when another job shares it (two 2-thread jobs
    # thrash: measured 3x slower per step).
    threads: int = 2
    eval_every: int = 400
    max_train_images: int | None = None  # the smoke test uses a few
    # Start from these weights (a ``.pt`` a previous run wrote beside its model) to train on, instead
    # of from scratch: a longer schedule in pieces, or new data on an existing model.
    init_from: Path | None = None
    # Share of each batch drawn from the training sources of ``roboflow-chinese`` (many real sets,
    # close-ups and whole hands; ``vision.training.roboflow_detector_data``); 0 leaves them out.
    roboflow_fraction: float = 0.0
    # Their views' scale jitter: wide, so tiles 20 to 500 px tall in a 1280x960 photo are all seen.
    roboflow_zoom: tuple[float, float] = (0.5, 3.0)
    # A detector whose finds with no label box become ignore regions there (None: the photos are
    # only partly boxed, as the table photos; see ``roboflow_detector_data``).
    ignore_detector: Path | None = None


@dataclass
class TrainResult:
    """What a run produced: the model file, its threshold, and validation metrics per checkpoint."""

    output: Path
    score_threshold: float
    history: list[dict[str, float]] = field(default_factory=list)
    validation: dict[str, object] = field(default_factory=dict)
    seconds: float = 0.0
    max_abs_diff_onnx: float = 0.0


#: Sideways tiles are ~1 in 15 of the hand tiles, face-down ones ~1 in 40: without weighting the
#: flags learn to say "no" (measured: 1 of 9 sideways and 0 of 4 face-down tiles found on the samples).
FLAG_POSITIVE_WEIGHT = {"sideways": 5.0, "face_down": 10.0}
#: Scale of the corner-refinement loss against the outline's (its targets are about 5x smaller).
#: Checked for r13 rather than raised: on 20 training batches with r11's weights, at 3.0 the corner
#: loss pulls the shared stride-4 features (gradient norm 0.040) as hard as the heatmap (0.047), twice
#: the box regression (0.024) and 40% of the outline (0.095); its own branch trains under Adam,
#: whose steps do not depend on the loss scale. Raising it would trade detection for outlines.
CORNER_LOSS_WEIGHT = 3.0


def focal_heat_loss(logits: torch.Tensor, target: torch.Tensor, weight: torch.Tensor,
                    positive_weight: torch.Tensor | None = None) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss; ``weight`` zeroes ignore regions, ``positive_weight``
    (same shape, 1 for most) makes some tile centres count more; still normalised by the centres."""
    prob = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    positive = target.ge(0.999).float()
    pos_loss = -torch.log(prob) * (1 - prob) ** 2 * positive
    if positive_weight is not None:
        pos_loss = pos_loss * positive_weight
    neg_loss = -torch.log(1 - prob) * prob**2 * (1 - target) ** 4 * (1 - positive) * weight
    count = positive.sum().clamp(min=1.0)
    return (pos_loss.sum() + neg_loss.sum()) / count


def detector_loss(raw: torch.Tensor, batch: dict[str, torch.Tensor], sideways_outline_weight: float = 1.0,
                  sideways_heat_weight: float = 1.0) -> tuple[torch.Tensor, dict[str, float]]:
    """Total loss and its parts for raw network maps (N,21,h,w) and encoded targets.

    The face outline (channels 7-10) and its corner refinement (11-20) are learned only where the
    outline is labelled: synthetic scenes. ``sideways_heat_weight`` makes a sideways tile's centre
    count that much more in the heatmap loss.
    """
    idx = batch["index"]
    positive_weight = None
    if sideways_heat_weight != 1.0 and idx.numel():
        positive_weight = torch.ones_like(batch["heat"]).reshape(-1)
        positive_weight[idx[batch["sideways"] > 0]] = sideways_heat_weight
        positive_weight = positive_weight.reshape(batch["heat"].shape)
    heat = focal_heat_loss(raw[:, 0], batch["heat"], batch["heat_weight"], positive_weight)
    n, c, h, w = raw.shape
    flat = raw.permute(0, 2, 3, 1).reshape(n * h * w, c)
    if idx.numel() == 0:
        zero = raw.sum() * 0.0
        return heat + zero, {"heat": float(heat.detach()), "reg": 0.0, "flags": 0.0, "outline": 0.0,
                             "corners": 0.0}
    at = flat[idx]
    # Offsets are learned at every centre, sizes only where the box is tight (``size_known``).
    error = (at[:, 1:5] - batch["regression"]).abs()
    known_size = batch["size_known"]
    sizes = (error[:, 2:] * known_size[:, None]).sum()
    reg = (error[:, :2].sum() + sizes) / (2 * len(idx) + 2 * known_size.sum())
    flag_loss = raw.sum() * 0.0
    for channel, key in ((5, "sideways"), (6, "face_down")):
        target = batch[key]
        known = target >= 0
        if known.any():
            weight = torch.tensor(FLAG_POSITIVE_WEIGHT[key])
            flag_loss = flag_loss + F.binary_cross_entropy_with_logits(at[known, channel], target[known],
                                                                       pos_weight=weight)
    known = batch["outline_known"] > 0
    outline = corners = raw.sum() * 0.0
    if known.any():
        # Sideways tiles are few, and their axis is the one that matters most (the layout finds the
        # winning tile by it): their outline error can be weighted up.
        weight = 1.0 + (sideways_outline_weight - 1.0) * (batch["sideways"][known] > 0).float()
        error = (at[known, 7:11] - batch["outline"][known]).abs().mean(dim=1)
        outline = (weight * error).sum() / weight.sum()
        # The corner refinement is a fraction of the face height (a few hundredths to a tenth);
        # CORNER_LOSS_WEIGHT brings its L1 to the scale of the outline's.
        corner_error = (at[known, 11:21] - batch["corners"][known]).abs().mean(dim=1)
        corners = CORNER_LOSS_WEIGHT * (weight * corner_error).sum() / weight.sum()
    total = heat + reg + 0.5 * flag_loss + outline + corners
    parts = {"heat": float(heat.detach()), "reg": float(reg.detach()), "flags": float(flag_loss.detach()),
             "outline": float(outline.detach()), "corners": float(corners.detach())}
    return total, parts


def collate(targets: list[DetectorTargets], images: list[np.ndarray]) -> dict[str, torch.Tensor]:
    """Stack a batch; centre indices become indices into the flattened (N*h*w) map."""
    cells = targets[0].heat.shape[0] * targets[0].heat.shape[1]
    index = np.concatenate([t.index + i * cells for i, t in enumerate(targets)])
    return {
        "image": torch.from_numpy(np.stack([to_tensor_image(im) for im in images])),
        "heat": torch.from_numpy(np.stack([t.heat for t in targets])),
        "heat_weight": torch.from_numpy(np.stack([t.heat_weight for t in targets])),
        "index": torch.from_numpy(index.astype(np.int64)),
        "regression": torch.from_numpy(np.concatenate([t.regression for t in targets])),
        "sideways": torch.from_numpy(np.concatenate([t.sideways for t in targets])),
        "face_down": torch.from_numpy(np.concatenate([t.face_down for t in targets])),
        "outline": torch.from_numpy(np.concatenate([t.outline for t in targets])),
        "outline_known": torch.from_numpy(np.concatenate([t.outline_known for t in targets])),
        "corners": torch.from_numpy(np.concatenate([t.corners for t in targets])),
        "size_known": torch.from_numpy(np.concatenate([
            t.size_known if t.size_known is not None else np.ones(len(t.index), np.float32)
            for t in targets])),
    }


def crop_size_at(config: DetectorTrainConfig, step: int) -> int:
    """The crop side for ``step``: small crops first (cheap steps), full crops for the rest."""
    return config.early_crop_size if step < config.early_crop_share * config.steps else config.crop_size


def _learning_rate(config: DetectorTrainConfig, step: int) -> float:
    if step < config.warmup_steps:
        return config.learning_rate * (step + 1) / config.warmup_steps
    progress = (step - config.warmup_steps) / max(1, config.steps - config.warmup_steps)
    return config.learning_rate * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))


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


def _f1(m: DetectionMetrics) -> float:
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
        return sum(_f1(by_threshold[t]) for by_threshold in metrics.values()) / max(1, len(metrics))

    return max(THRESHOLDS, key=lambda t: (mean_f1(t), -abs(t - 0.35)))


def _describe(metrics: ThresholdMetrics, threshold: float) -> str:
    return ", ".join(f"train {kind} F1 {_f1(by_threshold[threshold]):.4f}"
                     for kind, by_threshold in metrics.items())


def rethreshold(config: DetectorTrainConfig, log: Callable[[str], None] = print) -> float:
    """Choose the score threshold of the trained model ``config.output`` again (as training does) and
    write it into the model's metadata; returns it. For models trained before the threshold was
    chosen on renders too."""
    from vision.evaluation.detection import detector_predictor
    from vision.models.detector import TileDetector

    path = Path(config.output)
    predict = detector_predictor(TileDetector(path, score_threshold=min(THRESHOLDS), threads=config.threads))
    real = load_table_photos(config.data_root, split="train")
    config = replace(config, synth_scenes=min(config.synth_scenes, THRESHOLD_SCENES))
    metrics = threshold_metrics(predict, real, _load_synthetic(config, log))
    threshold = choose_threshold(metrics)
    set_metadata(path, {"score_threshold": str(threshold)})
    log(f"{path}: threshold {threshold} ({_describe(metrics, threshold)})")
    return threshold


def set_metadata(path: Path, values: dict[str, str]) -> None:
    """Rewrite entries of an ONNX model's metadata (atomically: the model is never half-written)."""
    import onnx

    proto = onnx.load(str(path))
    kept = [(p.key, p.value) for p in proto.metadata_props if p.key not in values]
    del proto.metadata_props[:]
    for key, value in [*kept, *values.items()]:
        entry = proto.metadata_props.add()
        entry.key, entry.value = key, value
    tmp = path.with_suffix(".tmp.onnx")
    onnx.save(proto, str(tmp))
    tmp.replace(path)


def export_onnx(model: TileDetectorNet, path: Path, metadata: dict[str, str], input_size: int) -> float:
    """Write the model to ONNX (dynamic height/width), add metadata, return max |onnx - torch|."""
    import onnx
    import onnxruntime as ort

    model = copy.deepcopy(model).eval().to(memory_format=torch.contiguous_format)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.onnx")
    example = torch.rand(1, 3, input_size, input_size * 3 // 4 // 32 * 32 or 32)
    torch.onnx.export(
        model, (example,), str(tmp), input_names=["image"], output_names=["maps"],
        dynamic_axes={"image": {2: "height", 3: "width"}, "maps": {2: "rows", 3: "cols"}},
        opset_version=17, dynamo=False,
    )
    proto = onnx.load(str(tmp))
    for key, value in metadata.items():
        entry = proto.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.save(proto, str(tmp))
    session = ort.InferenceSession(str(tmp), providers=["CPUExecutionProvider"])
    check = torch.rand(1, 3, input_size, input_size)
    with torch.no_grad():
        expected = model(check).numpy()
    got = session.run(None, {"image": check.numpy()})[0]
    diff = float(np.max(np.abs(expected - got)))
    if diff > 1e-3:
        tmp.unlink(missing_ok=True)
        raise RuntimeError(f"onnxruntime output differs from torch by {diff}")
    tmp.replace(path)
    return diff


def _load_synthetic(config: DetectorTrainConfig, log: Callable[[str], None]) -> list[DetectorSample]:
    """Render (or reuse from the cache) the run's synthetic scenes; a few renderer failures are tolerated."""
    if config.synth_scenes <= 0:
        return []
    try:
        import vision.synth  # noqa: F401
    except ImportError as error:
        log(f"synthetic scenes unavailable ({error}); training on real photos only")
        return []
    scenes, failures = [], 0
    for index in range(config.synth_scenes):
        try:
            scenes.extend(synthetic_samples(config.synth_scenes, config.seed, config.synth_cache,
                                            indices=range(index, index + 1)))
        except Exception as error:  # noqa: BLE001 - one bad scene must not end a long run
            failures += 1
            log(f"synthetic scene {index} failed: {type(error).__name__}: {error}")
            if failures > max(2, config.synth_scenes // 10):
                message = "the scene renderer fails too often; fix it or pass --synth-scenes 0"
                raise RuntimeError(message) from error
    return scenes


def draw_source(rng: np.random.Generator, config: DetectorTrainConfig, real: list[DetectorSample],
                synth: list[DetectorSample], face_down_scenes: list[DetectorSample],
                roboflow: list[DetectorSample] | None = None) -> DetectorSample:
    """One training image: a ``roboflow-chinese`` photo ``roboflow_fraction`` of the time, else a
    render ``synth_fraction`` of the time (of those, ``face_down_share`` from the scenes with
    face-down hand tiles), else a table photo."""
    if roboflow and rng.random() < config.roboflow_fraction:
        return roboflow[int(rng.integers(len(roboflow)))]
    use_synth = synth and rng.random() < config.synth_fraction
    pool = synth
    oversample = use_synth and face_down_scenes and config.face_down_share > 0
    if oversample and rng.random() < config.face_down_share:
        pool = face_down_scenes
    return pool[int(rng.integers(len(pool)))] if use_synth else real[int(rng.integers(len(real)))]


#: The branch that may start fresh when a saved model's shape of it differs (r11's was narrower).
FRESH_BRANCH = "corner_head."


def load_weights(model: TileDetectorNet, path: Path, log: Callable[[str], None] = print) -> None:
    """Start ``model`` from a previous run's weights (``init_from``).

    Every tensor of the saved model loads, except the corner branch when its shape changed (r11's
    32-channel branch into r13's 64-channel one) or it did not exist yet (r7): then the whole
    branch starts fresh, its last layer at zero, so the network starts from the saved model's
    plain rectangles. Half a branch is never loaded (its layers would no longer mean what they
    did). Any other missing, extra or reshaped tensor is an error, not a silent partial load.
    """
    state = torch.load(path, map_location="cpu", weights_only=True)
    own = model.state_dict()
    saved_branch = {key: value for key, value in state.items() if key.startswith(FRESH_BRANCH)}
    own_branch = {key: value for key, value in own.items() if key.startswith(FRESH_BRANCH)}
    branch_fits = saved_branch.keys() == own_branch.keys() and all(
        saved_branch[key].shape == own_branch[key].shape for key in own_branch)
    if not branch_fits:
        state = {key: value for key, value in state.items() if not key.startswith(FRESH_BRANCH)}
    reshaped = sorted(key for key in state if key in own and state[key].shape != own[key].shape)
    fresh = set() if branch_fits else set(own_branch)
    missing = sorted(key for key in own if key not in state and key not in fresh)
    unexpected = sorted(key for key in state if key not in own)
    if reshaped or missing or unexpected:
        problems = [f"{key} has shape {tuple(state[key].shape)}, expected {tuple(own[key].shape)}"
                    for key in reshaped] + [f"{key} missing" for key in missing] + \
                   [f"{key} unexpected" for key in unexpected]
        raise ValueError(f"{path} does not fit this network: {'; '.join(problems[:6])}")
    model.load_state_dict(state, strict=branch_fits)
    if branch_fits:
        log(f"starting from the weights in {path}")
    else:
        log(f"starting from the weights in {path}; corner branch starts fresh "
            f"({len(saved_branch)} saved tensors of another shape dropped, last layer at zero)")


def train_detector(config: DetectorTrainConfig, log: Callable[[str], None] = print) -> TrainResult:
    """Run the whole recipe and write ``config.output`` (plus ``<output>.train.json``)."""
    started = time.time()
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.threads)
    cv2.setNumThreads(1)
    rng = np.random.default_rng(config.seed)

    train_truth = load_table_photos(config.data_root, split="train")
    val_truth = load_table_photos(config.data_root, split="val")
    if config.max_train_images is not None:
        train_truth = train_truth[: config.max_train_images]
        val_truth = val_truth[: config.max_train_images]
    real = samples_from_truth(train_truth)
    log(f"real table photos: {len(real)} train, {len(val_truth)} val")
    synth = _load_synthetic(config, log)
    log(f"synthetic scenes: {len(synth)} ready after {time.time() - started:.0f}s")
    roboflow: list[DetectorSample] = []
    if config.roboflow_fraction > 0:
        from vision.training.roboflow_detector_data import roboflow_samples

        roboflow = roboflow_samples(config.ignore_detector, config.synth_cache, log=log,
                                    threads=config.threads)
        log(f"roboflow-chinese ready after {time.time() - started:.0f}s")

    model = TileDetectorNet()
    if config.init_from is not None:
        load_weights(model, config.init_from, log)
    # Channels-last runs this network's depthwise convolutions about 1.5x faster on the CPU
    # (measured: 0.37 s against 0.57 s per batch of 8 on the 2-core machine).
    model = model.to(memory_format=torch.channels_last)
    ema = copy.deepcopy(model).eval()
    for p in ema.parameters():
        p.requires_grad_(False)
    decay_params = [p for n, p in model.named_parameters() if p.ndim > 1]
    other_params = [p for n, p in model.named_parameters() if p.ndim <= 1]
    optimizer = torch.optim.AdamW([{"params": decay_params, "weight_decay": config.weight_decay},
                                   {"params": other_params, "weight_decay": 0.0}], lr=config.learning_rate)
    history: list[dict[str, float]] = []
    running: dict[str, float] = {}
    face_down_scenes = [sample for sample in synth if sample.face_down.any()]
    if config.face_down_share > 0:
        log(f"scenes with face-down hand tiles: {len(face_down_scenes)}, "
            f"{config.face_down_share:.0%} of rendered draws")
    roboflow_names = {sample.source for sample in roboflow}
    for step in range(config.steps):
        model.train()
        views, targets = [], []
        crop_size = crop_size_at(config, step)
        for _ in range(config.batch_size):
            source = draw_source(rng, config, real, synth, face_down_scenes, roboflow)
            zoom = config.roboflow_zoom if roboflow and source.source in roboflow_names else DEFAULT_ZOOM
            view = random_view(source, rng, crop_size, config.input_size, zoom)
            views.append(view.image)
            targets.append(encode_targets(view, crop_size))
        batch = collate(targets, views)
        for group in optimizer.param_groups:
            group["lr"] = _learning_rate(config, step)
        images = batch["image"].contiguous(memory_format=torch.channels_last)
        loss, parts = detector_loss(model.raw_maps(images), batch, config.sideways_outline_weight,
                                    config.sideways_heat_weight)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
        optimizer.step()
        with torch.no_grad():
            d = min(config.ema_decay, (1 + step) / (10 + step))
            for e, p in zip(ema.state_dict().values(), model.state_dict().values(), strict=True):
                if e.dtype.is_floating_point:
                    e.mul_(d).add_(p.detach(), alpha=1 - d)
                else:
                    e.copy_(p)
        for key, value in {"loss": float(loss.detach()), **parts}.items():
            running[key] = 0.95 * running.get(key, value) + 0.05 * value
        if step % 50 == 0 or step == config.steps - 1:
            log(f"step {step:5d} lr {_learning_rate(config, step):.5f} "
                + " ".join(f"{k} {v:.4f}" for k, v in running.items())
                + f" [{time.time() - started:.0f}s]")
        last = step == config.steps - 1
        if (config.eval_every and step and step % config.eval_every == 0) or last:
            metrics = evaluate_model(ema, val_truth, config.input_size, (0.3,))[0.3]
            row = {"step": step, "val_recall": metrics.recall, "val_precision": metrics.precision,
                   "seconds": time.time() - started}
            history.append(row)
            log(f"  val @0.3: recall {metrics.recall:.4f} precision {metrics.precision:.4f} "
                f"(fp {metrics.false_positives}, fn {metrics.false_negatives})")

    # The threshold is chosen on training data of both kinds (never on validation), by F1.
    low = min(THRESHOLDS)
    train_metrics = threshold_metrics(lambda image: predict_boxes(ema, image, config.input_size, low),
                                      train_truth, synth[:THRESHOLD_SCENES])
    threshold = choose_threshold(train_metrics)
    val_metrics = evaluate_model(ema, val_truth, config.input_size, (threshold,))[threshold]
    log(f"threshold {threshold} ({_describe(train_metrics, threshold)}); "
        f"val recall {val_metrics.recall:.4f} precision {val_metrics.precision:.4f}")
    metadata = {
        "input_size": str(config.input_size), "stride": str(STRIDE), "score_threshold": str(threshold),
        "channels": json.dumps(list(MAP_CHANNELS)), "seed": str(config.seed), "steps": str(config.steps),
        "synth_scenes": str(len(synth)), "real_photos": str(len(real)),
        "roboflow_photos": str(len(roboflow)),
        "description": "taicam tile detector (CenterNet-style, stride 4)",
    }
    diff = export_onnx(ema, Path(config.output), metadata, config.input_size)
    # The weights, to go on training from (``init_from``); ONNX alone cannot be trained further.
    torch.save(ema.state_dict(), Path(config.output).with_suffix(".pt"))
    result = TrainResult(output=Path(config.output), score_threshold=threshold, history=history,
                         validation=val_metrics.to_json(), seconds=time.time() - started,
                         max_abs_diff_onnx=diff)
    log(f"exported {config.output} (onnx vs torch max diff {diff:.2e}) in {result.seconds:.0f}s")
    report = {"config": {k: str(v) for k, v in asdict(config).items()}, "score_threshold": threshold,
              "history": history, "validation": result.validation, "seconds": round(result.seconds),
              "train_metrics": {kind: by_threshold[threshold].to_json()
                                for kind, by_threshold in train_metrics.items()},
              "onnx_max_abs_diff": diff}
    report_path = Path(config.output).with_suffix(".train.json")
    tmp = report_path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(report, indent=2) + "\n")
    tmp.replace(report_path)
    return result
