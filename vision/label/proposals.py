"""Model proposals for the labelling page, computed lazily per image and cached in a sidecar.

Two things come from the models:

- *detections*: the detector's tiles for an image nobody has labelled yet, each read by the
  classifier, so the person starts from the model's guess;
- *readings*: the classifier's top-k for each labelled box (whatever drew it: a person, an
  imported YOLO file, the detector), shown as one-key alternatives and used by the review's
  disagreement list.

Results go to ``<sidecar>/proposals/<hash>.json`` (never into the user's manifest), stamped with
the image's size and mtime and the models' files, so a changed photo or a retrained model is
recomputed and an unchanged one is not. Without models the page still works: no detections, no
readings (the tool never invents a proposal).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
from pathlib import Path
from typing import Any

import numpy as np

from scoring.errors import InputError
from vision.dataset.files import atomic_write_text
from vision.dataset.manifest import UNKNOWN_CODE, TileLabel, detection_of, quad_to_box
from vision.types import Detection

TOP_K = 5
_MODEL_FILES = {"detector": "detector.onnx", "classifier": "classifier.onnx"}


def _file_stamp(path: Path) -> list[int]:
    stat = path.stat()
    return [stat.st_size, stat.st_mtime_ns]


class ModelBundle:
    """The detector and classifier the page proposes with; either may be absent.

    ``model_dir`` None means the shipped models (``vision.models.models_dir()``); a model file that
    is missing there simply means no proposals of that kind. An explicit folder with neither
    model is the user's mistake (InputError). Models load on first use: the page opens at once.
    """

    def __init__(self, model_dir: Path | str | None = None, enabled: bool = True,
                 tile_set: str | None = None) -> None:
        """``tile_set``: the classifier reads with this learned set (``vision.sets``)."""
        from vision.models import models_dir

        self.enabled = enabled
        self.tile_set = tile_set
        self.model_dir = Path(model_dir).expanduser() if model_dir is not None else models_dir()
        self.paths: dict[str, Path] = {}
        if enabled:
            for kind, name in _MODEL_FILES.items():
                if (self.model_dir / name).is_file():
                    self.paths[kind] = self.model_dir / name
            if model_dir is not None and not self.paths:
                raise InputError(f"no detector.onnx or classifier.onnx in {self.model_dir}")
        self._loaded: dict[str, Any] = {}
        self._lock = threading.Lock()

    @property
    def has_detector(self) -> bool:
        return "detector" in self.paths

    @property
    def has_classifier(self) -> bool:
        return "classifier" in self.paths

    def stamp(self, kind: str) -> list[int] | None:
        """Identity of a model file (size, mtime): the cache is invalid when it changes."""
        path = self.paths.get(kind)
        if path is None:
            return None
        if kind == "classifier" and self.tile_set is not None:  # proposals change with the set
            from vision.sets.store import profile_path

            set_path = profile_path(self.tile_set)
            return _file_stamp(path) + (_file_stamp(set_path) if set_path.is_file() else [0, 0])
        return _file_stamp(path)

    def describe(self) -> dict[str, Any]:
        return {kind: (str(self.paths[kind]) if kind in self.paths else None) for kind in _MODEL_FILES}

    def _model(self, kind: str) -> Any:
        if kind not in self._loaded:
            if kind == "detector":
                from vision.models.detector import TileDetector

                self._loaded[kind] = TileDetector(self.paths[kind])
            else:
                from vision.models.classifier import TileClassifier

                classifier = TileClassifier(self.paths[kind])
                if self.tile_set is not None:
                    from vision.sets.photo import reading_classifier

                    classifier = reading_classifier(self.tile_set, classifier)
                self._loaded[kind] = classifier
        return self._loaded[kind]

    def detect(self, image_bgr: np.ndarray) -> list[Detection]:
        """The detector's tiles, found as ``taicam photo`` finds them: small tiles far off in a big
        photo from a closer look (``vision.repairs.closer_look``)."""
        from vision.pipeline import DETECT_SIDE
        from vision.repairs.closer_look import detect_closer

        with self._lock:
            return detect_closer(self._model("detector"), image_bgr, DETECT_SIDE)

    def classify(self, image_bgr: np.ndarray, detections: list[Detection]) -> list[list[list[Any]]]:
        """Top-k ``[code, probability]`` lists per detection (JSON-ready)."""
        if not detections:
            return []
        with self._lock:
            readings = self._model("classifier").classify(image_bgr, detections, top_k=TOP_K)
        return [[[code, round(float(p), 4)] for code, p in reading.candidates] for reading in readings]


def box_key(tile: TileLabel) -> str:
    """Cache key of a tile's geometry (a reading depends on nothing else)."""
    parts = [f"{v:.1f}" for v in tile.box]
    if tile.quad:
        parts += [f"{v:.1f}" for corner in tile.quad for v in corner]
    parts.append("r" if tile.rotated else "u")
    return ",".join(parts)


class ProposalCache:
    """Per-image model output, cached on disk beside the manifest. Thread-safe."""

    def __init__(self, sidecar_dir: Path, models: ModelBundle) -> None:
        self.folder = sidecar_dir / "proposals"
        self.models = models
        self._lock = threading.Lock()

    def _path(self, key: str) -> Path:
        return self.folder / (hashlib.sha1(key.encode("utf-8")).hexdigest()[:20] + ".json")

    def _load(self, key: str, image_path: Path) -> dict[str, Any]:
        stamp = _file_stamp(image_path)
        try:
            cached = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            cached = None
        if not isinstance(cached, dict) or cached.get("key") != key or cached.get("image") != stamp:
            cached = {"key": key, "image": stamp}
        # A retrained model invalidates only its own part of the cache.
        if cached.get("detector_model") != self.models.stamp("detector"):
            cached.pop("detections", None)
        if cached.get("classifier_model") != self.models.stamp("classifier"):
            cached.pop("readings", None)
            cached.pop("detections", None)
        cached["detector_model"] = self.models.stamp("detector")
        cached["classifier_model"] = self.models.stamp("classifier")
        cached.setdefault("readings", {})
        return cached

    def _store(self, key: str, cached: dict[str, Any]) -> None:
        """Atomic write; a cache that cannot be written only costs recomputation later."""
        with contextlib.suppress(OSError):
            atomic_write_text(self._path(key), json.dumps(cached))

    def detections(self, key: str, image_path: Path) -> list[dict[str, Any]] | None:
        """The detector's tiles as manifest tile objects (+ ``candidates``); None without a detector."""
        if not self.models.has_detector:
            return None
        with self._lock:
            cached = self._load(key, image_path)
            if "detections" not in cached:
                image = _read_photo(image_path)
                found = self.models.detect(image)
                readings = self.models.classify(image, found) if self.models.has_classifier else []
                cached["detections"] = [
                    _proposal_tile(detection, readings[i] if readings else None)
                    for i, detection in enumerate(found)
                ]
                self._store(key, cached)
            return cached["detections"]

    def readings(self, key: str, image_path: Path, tiles: list[TileLabel]) -> list[list[list[Any]] | None]:
        """Classifier top-k for each tile's box (None per tile without a classifier)."""
        if not self.models.has_classifier or not tiles:
            return [None] * len(tiles)
        with self._lock:
            cached = self._load(key, image_path)
            known: dict[str, Any] = cached["readings"]
            missing = [t for t in tiles if box_key(t) not in known]
            if missing:
                image = _read_photo(image_path)
                fresh = self.models.classify(image, [detection_of(t) for t in missing])
                for tile, reading in zip(missing, fresh, strict=True):
                    known[box_key(tile)] = reading
                if len(known) > 5000:  # boxes moved many times: keep only what is current
                    cached["readings"] = {box_key(t): known[box_key(t)] for t in tiles}
                self._store(key, cached)
            return [known.get(box_key(t)) for t in tiles]


def _proposal_tile(detection: Detection, candidates: list[list[Any]] | None) -> dict[str, Any]:
    code = candidates[0][0] if candidates else UNKNOWN_CODE
    if detection.face_down:
        code = "back"
    box = quad_to_box(detection.quad) if detection.quad else detection.box
    tile: dict[str, Any] = {"code": code, "box": [round(float(v), 1) for v in box]}
    if detection.quad:
        tile["quad"] = [[round(float(x), 1), round(float(y), 1)] for x, y in detection.quad]
    if detection.rotated:
        tile["rotated"] = True
    if detection.face_down:
        tile["face_down"] = True
    tile["candidates"] = candidates or []
    tile["score"] = round(float(detection.score), 3)
    return tile


def _read_photo(path: Path) -> np.ndarray:
    from vision.imageio import load_image

    return load_image(path)
