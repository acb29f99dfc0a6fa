"""The tile classifier at run time: one crop per detected tile -> top-k tile codes with probabilities.

The model (``models/classifier.onnx``, trained by ``scripts/train_classifier.py``) reads a small
upright colour crop and outputs logits over the 43 codes of ``models/classifier.labels.json``
(the 42 faces and ``back``). The label file also carries the temperature fitted on held-out
table-photo tiles; dividing the logits by it makes the softmax probabilities calibrated, so the
decoder can multiply them across tiles. The crop size is the model's too: the label file's
``input`` records it (a file without it is from the first models, 64x48), so a retrained model at
another resolution needs no code change.

Cropping: a detection with a ``quad`` is warped so the face is upright (corner 0 top-left, its
corner order alone decides the orientation); a box
is cut with a small margin, and a sideways tile (``rotated`` or clearly wider than tall) is turned
a quarter. The model is trained to read tiles upside down too, so the direction of that quarter
turn does not matter. The same :func:`preprocess_crops` feeds training and run time.

Test-time augmentation (``TileClassifier(turned_view=True)``, the default): a crop the model is
unsure of (:data:`TURNED_VIEW_MARGIN`) is also read turned 180 degrees, and the two views' logits
are averaged. On tiles cut from the detector's predicted outlines it reads 1.5 points more tiles
for about a third more network work; outlines cut larger, smaller or shifted did not help
(``models/MODEL_CARD.md``, "Test-time augmentation"). Averaging logits, not probabilities, keeps
:meth:`TileClassifier.logits` a logit, so the label file's one temperature, fitted on these
logits, calibrates it.

Second cuts (``classify(..., second_outlines=...)``): the pipeline and the live mode also cut a
tile whose outline is turned against its neighbours' along their axis (``vision.outline_views``);
the tile's logits are then the mean of both cuts', for the same reason.

Flowers: when ``models/flowers.onnx`` is there, a tile the model takes for a flower has its flower
mass shared among the eight flowers as that flower model reads it (``vision.models.flowers``): it
reads the number and the name, where this model reads the picture. :meth:`logits` stays this
model's own (its temperature is fitted on them); :meth:`probabilities` and :meth:`classify` include
the flower model.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from scoring.errors import InputError
from scoring.tiles import VISION_CODES
from vision.models import create_session, models_dir, resolve_model_path
from vision.models.flowers import (
    FLOWER_MODEL_NAME,
    LOW_FLOWER_GATE,
    flower_columns,
    gated_rows,
    split_flower_mass,
    trusted_rows,
)
from vision.repairs.outline_views import Quad
from vision.types import Detection, TileReading

DEFAULT_MODEL_NAME = "classifier.onnx"
#: Per-channel normalisation applied after scaling RGB to [0, 1].
PIXEL_MEAN = 0.5
PIXEL_STD = 0.25
#: Margin added around a box before cropping, as a fraction of its size (boxes are often tight).
BOX_MARGIN = 0.04
#: A tile whose box is this much wider than tall is treated as lying sideways.
SIDEWAYS_ASPECT = 1.15
BATCH_SIZE = 64
#: With ``turned_view``, a crop whose upright reading leads its runner-up by less than this many
#: raw logits (about p < 0.99 at the shipped temperature) is read turned too. On the held-out sets
#: the second view changed the top-1 of no surer crop (model card), so those skip it: 7-27% of the
#: crops get the second pass, not all of them.
TURNED_VIEW_MARGIN = 3.0
#: Smallest input side a label file may declare (four stride-2 stages need a few pixels left).
MIN_INPUT_SIDE = 16


@dataclass(frozen=True)
class InputSize:
    """A classifier's input crop in pixels (height, width); tiles are about 3:4, taller than wide."""

    height: int
    width: int

    @classmethod
    def for_height(cls, height: int) -> InputSize:
        """The 3:4 input of a given height (the training option ``--input-height``)."""
        if height < MIN_INPUT_SIDE or height % 4:
            raise ValueError(f"input height must be a multiple of 4 and at least {MIN_INPUT_SIDE}, "
                             f"got {height}")
        return cls(height, height * 3 // 4)


#: The size of models whose label file does not record one (the first models were all 64x48).
DEFAULT_INPUT_SIZE = InputSize(64, 48)


def labels_path_for(model_path: Path) -> Path:
    """``models/classifier.onnx`` -> ``models/classifier.labels.json``."""
    return model_path.with_suffix("").with_suffix(".labels.json")


def preprocess_crops(crops_bgr: Sequence[np.ndarray], *, size: InputSize) -> np.ndarray:
    """BGR crops of any size -> the float32 NCHW batch a model of input ``size`` takes (RGB, normalised).

    ``size`` has no default on purpose: it belongs to the model (``TileClassifier.input_size``, or
    the training config), and a crop scaled to another model's size would be read wrongly.
    """
    batch = np.empty((len(crops_bgr), 3, size.height, size.width), dtype=np.float32)
    for index, crop in enumerate(crops_bgr):
        if crop.ndim == 2:
            crop = cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR)
        elif crop.shape[2] == 4:
            crop = cv2.cvtColor(crop, cv2.COLOR_BGRA2BGR)
        small = cv2.resize(crop, (size.width, size.height), interpolation=_interpolation(crop, size))
        rgb = small[:, :, ::-1].astype(np.float32) / 255.0
        batch[index] = ((rgb - PIXEL_MEAN) / PIXEL_STD).transpose(2, 0, 1)
    return batch


def _interpolation(crop: np.ndarray, size: InputSize) -> int:
    shrinking = crop.shape[0] > size.height or crop.shape[1] > size.width
    return cv2.INTER_AREA if shrinking else cv2.INTER_LINEAR


def crop_detection(
    image_bgr: np.ndarray, detection: Detection, size: InputSize = DEFAULT_INPUT_SIZE
) -> np.ndarray:
    """The tile face of ``detection`` cut from the image, upright as far as the detection says.

    ``size`` is the input of the model that will read the crop; only a warped outline depends on it
    (it is warped at twice that size). Tools that just show crops may keep the default.
    """
    if detection.quad is not None and len(detection.quad) == 4:
        return _warp_quad(image_bgr, np.asarray(detection.quad, dtype=np.float32), size)
    height, width = image_bgr.shape[:2]
    x1, y1, x2, y2 = detection.box
    margin_x, margin_y = (x2 - x1) * BOX_MARGIN, (y2 - y1) * BOX_MARGIN
    left, top = max(0, int(np.floor(x1 - margin_x))), max(0, int(np.floor(y1 - margin_y)))
    right, bottom = min(width, int(np.ceil(x2 + margin_x))), min(height, int(np.ceil(y2 + margin_y)))
    if right - left < 2 or bottom - top < 2:
        raise InputError(f"detection box {detection.box} lies outside the {width}x{height} image")
    crop = image_bgr[top:bottom, left:right]
    if detection.rotated or crop.shape[1] > crop.shape[0] * SIDEWAYS_ASPECT:
        crop = cv2.rotate(crop, cv2.ROTATE_90_CLOCKWISE)
    return crop


def _warp_quad(image_bgr: np.ndarray, quad: np.ndarray, size: InputSize) -> np.ndarray:
    """Perspective-warp a tile outline (corner 0 = top-left of the face as read, clockwise) upright.

    The output has the tile's usual 3:4 shape whatever the outline's apparent proportions: a tile
    lying flat and seen at a low angle looks wider than tall, but it is still read upright, so
    the quad's corner order, not its aspect, decides the orientation. Twice the model input, so
    the final resize shrinks (area averaging) rather than samples the warp's interpolation.
    """
    out_w, out_h = 2 * size.width, 2 * size.height
    target = np.array([[0, 0], [out_w - 1, 0], [out_w - 1, out_h - 1], [0, out_h - 1]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(quad, target)
    return cv2.warpPerspective(image_bgr, matrix, (out_w, out_h), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


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
        self.flower_model = _flower_model(flower_model, threads, turned_view)
        if self.flower_model is not None:
            self._flower_columns = flower_columns(self.labels, str(self.model_path))
            self._flower_model_columns = flower_columns(self.flower_model.labels,
                                                        str(self.flower_model.model_path))

    @classmethod
    def default(cls) -> TileClassifier:
        """The shipped model (``$TAICAM_MODELS/classifier.onnx``)."""
        return cls(models_dir() / DEFAULT_MODEL_NAME)

    def logits(self, crops_bgr: Sequence[np.ndarray]) -> np.ndarray:
        """Raw (uncalibrated) logits, shape (n, classes).

        With ``turned_view``, an unsure crop's row is the mean of its upright and turned views.
        """
        if not crops_bgr:
            return np.zeros((0, len(self.labels)), dtype=np.float32)
        parts = []
        for start in range(0, len(crops_bgr), BATCH_SIZE):
            batch = preprocess_crops(crops_bgr[start:start + BATCH_SIZE], size=self.input_size)
            rows = self._session.run(None, {self._input_name: batch})[0]
            if self.turned_view:
                unsure = np.flatnonzero(_top_margin(rows) < TURNED_VIEW_MARGIN)
                if unsure.size:  # turning the scaled crop equals scaling the turned one (to rounding)
                    turned_batch = np.ascontiguousarray(batch[unsure][:, :, ::-1, ::-1])
                    turned = self._session.run(None, {self._input_name: turned_batch})[0]
                    rows[unsure] = (rows[unsure] + turned) / 2
            parts.append(rows)
        return np.concatenate(parts, axis=0)

    def probabilities(self, crops_bgr: Sequence[np.ndarray]) -> np.ndarray:
        """Calibrated class probabilities, shape (n, classes), columns in ``self.labels`` order."""
        probabilities = softmax(self.logits(crops_bgr) / self.temperature)
        return self._read_flowers(probabilities, [[crop] for crop in crops_bgr])

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
        (``vision.outline_views``): where one is given, the tile's logits are the mean of both cuts'.
        """
        crops = [crop_detection(image_bgr, detection, self.input_size) for detection in detections]
        seconds = [] if second_outlines is None else [
            (index, crop_detection(image_bgr, replace(detections[index], quad=quad), self.input_size))
            for index, quad in enumerate(second_outlines) if quad is not None]
        logits = self.logits(crops + [crop for _, crop in seconds])
        rows = logits[:len(crops)]
        cuts = [[crop] for crop in crops]
        for offset, (index, crop) in enumerate(seconds):
            rows[index] = (rows[index] + logits[len(crops) + offset]) / 2
            cuts[index].append(crop)
        probabilities = self._read_flowers(softmax(rows / self.temperature), cuts)
        pairs = zip(detections, probabilities, strict=True)
        return [TileReading(detection, self._top_k(row, top_k)) for detection, row in pairs]

    def flower_probabilities(self, image_bgr: np.ndarray, detections: list[Detection]) -> np.ndarray | None:
        """The flower model's own reading of each detection, whatever the main model said: its
        probability of each flower in ``FLOWER_CODES`` order (a row sums to the flower model's flower
        mass). None without a flower model. For tiles the layout could not place
        (``vision.stray_flowers``); :meth:`classify` asks the flower model only which flower."""
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
