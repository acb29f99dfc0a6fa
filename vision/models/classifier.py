"""The tile classifier at run time: one crop per detected tile -> top-k tile codes with probabilities.

The model (``models/classifier.onnx``, trained by ``scripts/train_classifier.py``) reads a small
upright colour crop and outputs logits over the 43 codes of ``models/classifier.labels.json``
(the 42 faces and ``back``). The label file also carries the temperature fitted on held-out
table-photo tiles; dividing the logits by it makes the softmax probabilities calibrated, so the
decoder can multiply them across tiles. The crop size is the model's too: the label file's
``input`` records it (a file without it is from the first models, 64x48), so a retrained model at
another resolution needs no code change.

Cropping: a detection with a ``quad`` is warped so the face is upright (its corner order alone
decides the orientation); a box is cut with a small margin, and a sideways tile (``rotated`` or
clearly wider than tall) is turned a quarter, in either direction, since the model reads tiles
upside down too. The same :func:`preprocess_crops` feeds training and run time.

Test-time augmentation (``TileClassifier(turned_view=True)``, the default): a crop the model is
unsure of (:data:`TURNED_VIEW_MARGIN`) is also read turned 180 degrees and the two views' logits
are averaged: 1.5 points more tiles read from the detector's outlines for about a third more work
(``models/EXPERIMENTS.md``). Averaging logits keeps :meth:`TileClassifier.logits` a logit, so the
label file's one temperature still calibrates it.

Second cuts (``classify(..., second_outlines=...)``): the pipeline and the live mode also cut a
tile whose outline is turned against its neighbours' along their axis (``vision.repairs.outline_views``);
the tile's logits are then the mean of both cuts', for the same reason.

Embeddings: a model with a second output ``embedding`` (the penultimate features, unit length;
``scripts/add_embedding_output.py``) gives them with the logits in the same run
(:meth:`TileClassifier.features`). A player's own set (``vision.sets``) is read with them:
:meth:`TileClassifier.with_set` returns a classifier whose probabilities the set's
:class:`SetEvidence` adjusts, after the flower model's split.

Flowers: when ``models/flowers.onnx`` is there, a tile the model takes for a flower has its flower
mass shared among the eight flowers as that flower model reads it (``vision.models.flowers``): it
reads the number and the name, where this model reads the picture. :meth:`logits` stays this
model's own (its temperature is fitted on them); :meth:`probabilities` and :meth:`classify` include
the flower model.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Protocol

import numpy as np

from scoring.errors import InputError
from scoring.tiles import VISION_CODES
from vision.models import create_session, models_dir, resolve_model_path
from vision.models.crops import (
    DEFAULT_INPUT_SIZE,
    MIN_INPUT_SIDE,
    InputSize,
    crop_detection,
    preprocess_crops,
)
from vision.models.flowers import (
    FLOWER_MODEL_NAME,
    LOW_FLOWER_GATE,
    flower_columns,
    gated_rows,
    split_flower_mass,
    trusted_rows,
)
from vision.types import Detection, Quad, TileReading

DEFAULT_MODEL_NAME = "classifier.onnx"
BATCH_SIZE = 64
#: With ``turned_view``, a crop whose upright reading leads its runner-up by less than this many
#: raw logits (about p < 0.99 at the shipped temperature) is read turned too. On the held-out sets
#: the second view changed the top-1 of no surer crop (model card), so those skip it: 7-27% of the
#: crops get the second pass, not all of them.
TURNED_VIEW_MARGIN = 3.0
#: The name of the optional second output, the penultimate features.
EMBEDDING_OUTPUT = "embedding"


class SetEvidence(Protocol):
    """What a player's own set knows of a tile: given the classifier's calibrated probabilities
    (n x classes, in the model's label order) and the tiles' embeddings (n x D), the probabilities
    with the set's evidence combined, still calibrated."""

    def adjust(self, probabilities: np.ndarray, embeddings: np.ndarray) -> np.ndarray: ...


def labels_path_for(model_path: Path) -> Path:
    """``models/classifier.onnx`` -> ``models/classifier.labels.json``."""
    return model_path.with_suffix("").with_suffix(".labels.json")


class TileClassifier:
    """Reads tile crops with the shipped ONNX model; probabilities are temperature-calibrated.

    ``turned_view`` (default on): read a crop the model is unsure of turned 180 degrees too and
    average the two views' logits. The model reads tiles either way up, and the second view evens
    out a face cut a little off-centre (the detector's outline is off by a few percent of a tile).
    The label file's temperature is fitted with it on (``train_classifier.py --calibrate-only``
    uses :meth:`logits`); ``turned_view=False`` reads one view, as the models were first measured.
    """

    def __init__(self, model_path: Path | None = None, threads: int | None = None,
                 turned_view: bool = True, flower_model: Path | bool = True) -> None:
        """``flower_model``: True reads flowers with ``flowers.onnx`` of the models folder when it is
        there, False never, a path with that model (which must exist)."""
        self.model_path = resolve_model_path(model_path, DEFAULT_MODEL_NAME)
        self.turned_view = turned_view
        self.labels, self.temperature, self.input_size = _read_labels(labels_path_for(self.model_path))
        self._session = create_session(self.model_path, threads)
        model_input = self._session.get_inputs()[0]
        self._input_name = model_input.name
        declared = (self.input_size.height, self.input_size.width)
        graph_side = tuple(model_input.shape[2:4])
        if all(isinstance(side, int) for side in graph_side) and graph_side != declared:
            raise InputError(f"{self.model_path} takes {graph_side[0]}x{graph_side[1]} crops but its "
                             f"label list says {declared[0]}x{declared[1]}")
        outputs = self._session.get_outputs()[0].shape
        if outputs[-1] != len(self.labels):
            raise InputError(f"{self.model_path} outputs {outputs[-1]} classes but its label list has "
                             f"{len(self.labels)}")
        names = [output.name for output in self._session.get_outputs()]
        self._outputs = names[:1] + [EMBEDDING_OUTPUT] if EMBEDDING_OUTPUT in names[1:] else names[:1]
        self.set_evidence: SetEvidence | None = None
        self.flower_model = _flower_model(flower_model, threads, turned_view)
        if self.flower_model is not None:
            self._flower_columns = flower_columns(self.labels, str(self.model_path))
            self._flower_model_columns = flower_columns(self.flower_model.labels,
                                                        str(self.flower_model.model_path))

    @classmethod
    def default(cls) -> TileClassifier:
        """The shipped model (``$TAICAM_MODELS/classifier.onnx``)."""
        return cls(models_dir() / DEFAULT_MODEL_NAME)

    @property
    def has_embeddings(self) -> bool:
        """Whether the model gives the ``embedding`` output a player's own set is read with."""
        return len(self._outputs) == 2

    def with_set(self, evidence: SetEvidence | None) -> TileClassifier:
        """This classifier (sharing its loaded models) with a set's evidence combined into
        :meth:`classify` and :meth:`probabilities`; None reads without one."""
        if evidence is not None and not self.has_embeddings:
            raise InputError(f"{self.model_path} has no {EMBEDDING_OUTPUT!r} output to read a tile set "
                             "with (run scripts/add_embedding_output.py on it)")
        other = copy.copy(self)
        other.set_evidence = evidence
        return other

    def logits(self, crops_bgr: Sequence[np.ndarray]) -> np.ndarray:
        """Raw (uncalibrated) logits, shape (n, classes).

        With ``turned_view``, an unsure crop's row is the mean of its upright and turned views.
        """
        return self.features(crops_bgr)[0]

    def features(self, crops_bgr: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray | None]:
        """Raw logits (n, classes) and unit embeddings (n, D), or None for a model without them.

        With ``turned_view``, an unsure crop's rows are the mean of its upright and turned views
        (the embedding's renormalised).
        """
        if not crops_bgr:
            empty = np.zeros((0, 0), dtype=np.float32) if self.has_embeddings else None
            return np.zeros((0, len(self.labels)), dtype=np.float32), empty
        parts, embedded = [], []
        for start in range(0, len(crops_bgr), BATCH_SIZE):
            batch = preprocess_crops(crops_bgr[start:start + BATCH_SIZE], size=self.input_size)
            outputs = self._session.run(self._outputs, {self._input_name: batch})
            rows = outputs[0]
            if self.turned_view:
                unsure = np.flatnonzero(_top_margin(rows) < TURNED_VIEW_MARGIN)
                if unsure.size:  # turning the scaled crop equals scaling the turned one (to rounding)
                    turned_batch = np.ascontiguousarray(batch[unsure][:, :, ::-1, ::-1])
                    turned = self._session.run(self._outputs, {self._input_name: turned_batch})
                    rows[unsure] = (rows[unsure] + turned[0]) / 2
                    if self.has_embeddings:
                        outputs[1][unsure] = unit_rows(outputs[1][unsure] + turned[1])
            parts.append(rows)
            if self.has_embeddings:
                embedded.append(outputs[1])
        return np.concatenate(parts, axis=0), np.concatenate(embedded, axis=0) if embedded else None

    def probabilities(self, crops_bgr: Sequence[np.ndarray]) -> np.ndarray:
        """Calibrated class probabilities, shape (n, classes), columns in ``self.labels`` order."""
        logits, embeddings = self.features(crops_bgr)
        probabilities = self._read_flowers(softmax(logits / self.temperature), [[crop] for crop in crops_bgr])
        return self._with_set(probabilities, embeddings)

    def _with_set(self, probabilities: np.ndarray, embeddings: np.ndarray | None) -> np.ndarray:
        if self.set_evidence is None or embeddings is None or not len(probabilities):
            return probabilities
        return self.set_evidence.adjust(probabilities, embeddings)

    def _read_flowers(self, probabilities: np.ndarray, cuts: list[list[np.ndarray]]) -> np.ndarray:
        """The flower model's split of the flower mass, for the tiles taken for flowers (``cuts[i]``:
        the crops of tile ``i``, whose logits are averaged as this model's are)."""
        if self.flower_model is None:
            return probabilities
        rows = gated_rows(probabilities, self._flower_columns, LOW_FLOWER_GATE)
        if not len(rows):
            return probabilities
        logits = self.flower_model.logits([crop for row in rows for crop in cuts[row]])
        ends = np.cumsum([len(cuts[row]) for row in rows])
        means = np.stack([part.mean(axis=0) for part in np.split(logits, ends[:-1])])
        flower_probabilities = softmax(means / self.flower_model.temperature)
        trusted = trusted_rows(probabilities, self._flower_columns, rows, flower_probabilities,
                               self._flower_model_columns)
        return split_flower_mass(probabilities, self._flower_columns, rows[trusted],
                                 flower_probabilities[trusted], self._flower_model_columns)

    def classify_crops(self, crops: list[np.ndarray], top_k: int = 5) -> list[tuple[tuple[str, float], ...]]:
        """Top-k ``(code, probability)`` per crop, best first."""
        for index, crop in enumerate(crops):
            if not isinstance(crop, np.ndarray) or crop.ndim not in (2, 3) or min(crop.shape[:2]) < 2:
                raise InputError(f"crop {index} is not an image (got shape {getattr(crop, 'shape', None)})")
        return [self._top_k(row, top_k) for row in self.probabilities(crops)]

    def classify(
        self, image_bgr: np.ndarray, detections: list[Detection], top_k: int = 5,
        second_outlines: Sequence[Quad | None] | None = None,
    ) -> list[TileReading]:
        """One reading per detection, in the same order.

        ``second_outlines`` (one per detection, None for most) are other cuts of the same tiles
        (``vision.repairs.outline_views``): where one is given, the tile's logits are the mean of both cuts'.
        """
        crops = [crop_detection(image_bgr, detection, self.input_size) for detection in detections]
        seconds = [] if second_outlines is None else [
            (index, crop_detection(image_bgr, replace(detections[index], quad=quad), self.input_size))
            for index, quad in enumerate(second_outlines) if quad is not None]
        logits, embeddings = self.features(crops + [crop for _, crop in seconds])
        rows = logits[:len(crops)]
        cuts = [[crop] for crop in crops]
        for offset, (index, crop) in enumerate(seconds):
            rows[index] = (rows[index] + logits[len(crops) + offset]) / 2
            if embeddings is not None:
                embeddings[index] = unit_rows(embeddings[index] + embeddings[len(crops) + offset])
            cuts[index].append(crop)
        probabilities = self._read_flowers(softmax(rows / self.temperature), cuts)
        probabilities = self._with_set(probabilities, None if embeddings is None else embeddings[:len(crops)])
        pairs = zip(detections, probabilities, strict=True)
        return [TileReading(detection, self._top_k(row, top_k)) for detection, row in pairs]

    def flower_probabilities(self, image_bgr: np.ndarray, detections: list[Detection]) -> np.ndarray | None:
        """The flower model's own reading of each detection, whatever the main model said: its
        probability of each flower in ``FLOWER_CODES`` order (a row sums to the flower model's flower
        mass). None without a flower model. For tiles the layout could not place
        (``vision.repairs.stray_flowers``); :meth:`classify` asks the flower model only which flower."""
        if self.flower_model is None:
            return None
        model = self.flower_model
        crops = [crop_detection(image_bgr, detection, model.input_size) for detection in detections]
        probabilities = softmax(model.logits(crops) / model.temperature)
        return probabilities[:, self._flower_model_columns]

    def _top_k(self, row: np.ndarray, top_k: int) -> tuple[tuple[str, float], ...]:
        order = np.argsort(-row)[: max(1, top_k)]
        return tuple((self.labels[i], float(row[i])) for i in order)


def _flower_model(choice: Path | bool, threads: int | None, turned_view: bool) -> TileClassifier | None:
    """The flower model ``TileClassifier(flower_model=...)`` asks for, or None."""
    if choice is False:
        return None
    path = models_dir() / FLOWER_MODEL_NAME if choice is True else Path(choice)
    if choice is True and not path.is_file():
        return None
    return TileClassifier(path, threads, turned_view, flower_model=False)


def _top_margin(logits: np.ndarray) -> np.ndarray:
    """Per row, how far the best logit leads the runner-up (raw logits, so independent of the temperature)."""
    top_two = np.partition(logits, -2, axis=1)[:, -2:]
    return top_two[:, 1] - top_two[:, 0]


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Each row scaled to unit length (a zero row stays zero)."""
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax, numerically stable."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=1, keepdims=True)


def _read_labels(path: Path) -> tuple[list[str], float, InputSize]:
    """The label list (codes in output order), the calibration temperature and the input size."""
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"classifier label list not found: {path}") from None
    except (OSError, json.JSONDecodeError) as error:
        raise InputError(f"cannot read classifier label list {path}: {error}") from None
    labels = obj.get("labels") if isinstance(obj, dict) else obj
    if not isinstance(labels, list) or not labels or any(code not in VISION_CODES for code in labels):
        raise InputError(f"{path}: 'labels' must be a list of tile codes")
    temperature = float(obj.get("temperature", 1.0)) if isinstance(obj, dict) else 1.0
    if not temperature > 0:
        raise InputError(f"{path}: temperature must be positive")
    return labels, temperature, _input_size(obj.get("input") if isinstance(obj, dict) else None, path)


def _input_size(declared: object, path: Path) -> InputSize:
    """The ``input`` entry's height and width; none recorded means the first models' 64x48."""
    if declared is None:
        return DEFAULT_INPUT_SIZE
    height = declared.get("height") if isinstance(declared, dict) else None
    width = declared.get("width") if isinstance(declared, dict) else None
    if not all(type(side) is int and side >= MIN_INPUT_SIDE for side in (height, width)):
        raise InputError(f"{path}: 'input' must give the crop height and width in pixels (at least "
                         f"{MIN_INPUT_SIDE}), got {declared!r}")
    return InputSize(height, width)
