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
- CenterNet losses (``detector_loss``): penalty-reduced focal loss on the heatmap, L1 on offset and
  log-size at the centres, binary cross-entropy on the flags where they are known.
- AdamW, cosine learning rate, an exponential moving average of the weights (smoother on small
  data); the EMA weights are exported (``detector_export``). Seeded; two threads by default.
- The score threshold is chosen on training data of both kinds, never on validation
  (``detector_validation``).
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

from vision.dataset.paths import REPO_ROOT, shared_data_dir
from vision.evaluation.detection import load_table_photos
from vision.training.detector_data import DetectorSample, samples_from_truth, synthetic_samples
from vision.training.detector_export import export_onnx, set_metadata
from vision.training.detector_loss import collate, detector_loss
from vision.training.detector_model import MAP_CHANNELS, STRIDE, TileDetectorNet
from vision.training.detector_targets import encode_targets
from vision.training.detector_validation import (
    THRESHOLD_SCENES,
    THRESHOLDS,
    ThresholdMetrics,
    choose_threshold,
    evaluate_model,
    f1,
    predict_boxes,
    threshold_metrics,
)
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


def crop_size_at(config: DetectorTrainConfig, step: int) -> int:
    """The crop side for ``step``: small crops first (cheap steps), full crops for the rest."""
    return config.early_crop_size if step < config.early_crop_share * config.steps else config.crop_size


def _learning_rate(config: DetectorTrainConfig, step: int) -> float:
    if step < config.warmup_steps:
        return config.learning_rate * (step + 1) / config.warmup_steps
    progress = (step - config.warmup_steps) / max(1, config.steps - config.warmup_steps)
    return config.learning_rate * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))


def _describe(metrics: ThresholdMetrics, threshold: float) -> str:
    return ", ".join(f"train {kind} F1 {f1(by_threshold[threshold]):.4f}"
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
