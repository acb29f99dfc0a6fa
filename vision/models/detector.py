"""Find every tile in a photo with the shipped ONNX detector (onnxruntime + numpy + OpenCV only).

The network (``vision.training.detector_model``) predicts, at stride 4, a tile-centre heatmap, the
sub-cell centre offset, the log box size and sideways / face-down probabilities. Decoding keeps each
local maximum of the heatmap above a threshold (tiles touch in rows, but their centres are a tile
width apart, so peaks separate them), reads the box there and maps it back to input pixels.

Models with the face-outline channels (``axis_cos, axis_sin, log_face_w, log_face_h``) also give
each tile's face as a turned rectangle (``Detection.quad``, corner 0 top-left as the face is read,
up to a half turn), so the classifier cuts turned tiles out upright; a tile whose up axis is turned
against most of the others' is marked ``rotated`` (a sideways winning or claimed tile). Models with
the corner channels as well move that rectangle onto the face and bend it to its perspective shape
(:func:`refine_corners`). Older models without outline channels give boxes and the network's own
sideways flag.

The image is letterboxed so its longest side is the model's input size (stored in the model's
metadata), padded only to a multiple of 32: a 4:3 photo costs 3/4 of a square one, and the work
does not grow with the photo's resolution.
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from scoring.errors import InputError
from vision.models import create_session, resolve_model_path
from vision.repairs.row_completion import WEAK_SCORE, extend_rows, spare_tiles
from vision.types import Detection

DEFAULT_MODEL_NAME = "detector.onnx"
PAD_VALUE = 114
_PAD_MULTIPLE = 32
_CHANNELS = ("heat", "off_x", "off_y", "log_w", "log_h", "sideways", "face_down")
_OUTLINE_CHANNELS = _CHANNELS + ("axis_cos", "axis_sin", "log_face_w", "log_face_h")
_CORNER_CHANNELS = _OUTLINE_CHANNELS + ("face_dx", "face_dy", "tl_du", "tl_dv", "tr_du", "tr_dv",
                                        "br_du", "br_dv", "bl_du", "bl_dv")
_KNOWN_LAYOUTS = (_CHANNELS, _OUTLINE_CHANNELS, _CORNER_CHANNELS)
#: The face outline is cut this much larger than predicted, as a box gets a margin: a crop that
#: loses a rim of the face reads worse than one with a rim of table.
OUTLINE_MARGIN = 1.04
#: A tile whose up axis is turned more than this against the tiles' common direction lies sideways.
SIDEWAYS_DEGREES = 45.0


@dataclass(frozen=True)
class Letterbox:
    """How an input image was scaled into the network input: ``input = image * scale`` (top-left aligned)."""

    scale: float
    width: int
    height: int


def letterbox(image_bgr: np.ndarray, input_size: int) -> tuple[np.ndarray, Letterbox]:
    """Resize so the longest side is ``input_size``, pad right/bottom to a multiple of 32 with grey."""
    height, width = image_bgr.shape[:2]
    scale = input_size / max(height, width)
    new_w, new_h = max(1, round(width * scale)), max(1, round(height * scale))
    source = image_bgr
    factor = int(1 / scale)
    if factor >= 2:
        # OpenCV's area resize has a fast path for whole-number factors (4x faster on a 12 MP photo);
        # shrink by that first, then by the small remaining ratio.
        source = cv2.resize(image_bgr, None, fx=1 / factor, fy=1 / factor, interpolation=cv2.INTER_AREA)
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    resized = cv2.resize(source, (new_w, new_h), interpolation=interp)
    pad_w = -new_w % _PAD_MULTIPLE
    pad_h = -new_h % _PAD_MULTIPLE
    if pad_w or pad_h:
        resized = cv2.copyMakeBorder(resized, 0, pad_h, 0, pad_w, cv2.BORDER_CONSTANT,
                                     value=(PAD_VALUE, PAD_VALUE, PAD_VALUE))
    return resized, Letterbox(scale=scale, width=width, height=height)


def to_network_input(image_bgr: np.ndarray) -> np.ndarray:
    """BGR uint8 (H,W,3) -> RGB float32 (1,3,H,W) in [0,1]."""
    rgb = image_bgr[..., ::-1].transpose(2, 0, 1)
    return np.ascontiguousarray(rgb, dtype=np.float32)[None] / 255.0


def _nms(boxes: np.ndarray, scores: np.ndarray, iou_threshold: float) -> np.ndarray:
    """Indices kept by plain non-maximum suppression (removes a second peak on the same tile)."""
    order = np.argsort(-scores, kind="stable")
    keep: list[int] = []
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    while order.size:
        i = int(order[0])
        keep.append(i)
        rest = order[1:]
        x1 = np.maximum(boxes[i, 0], boxes[rest, 0])
        y1 = np.maximum(boxes[i, 1], boxes[rest, 1])
        x2 = np.minimum(boxes[i, 2], boxes[rest, 2])
        y2 = np.minimum(boxes[i, 3], boxes[rest, 3])
        inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
        iou = inter / np.maximum(areas[i] + areas[rest] - inter, 1e-9)
        order = rest[iou < iou_threshold]
    return np.asarray(keep, np.int64)


class MapPeaks(NamedTuple):
    """The tiles read off the network maps, in network-input pixels."""

    boxes: np.ndarray  # (n, 4) x1 y1 x2 y2
    scores: np.ndarray  # (n,)
    sideways: np.ndarray  # (n,) the network's sideways probability
    face_down: np.ndarray  # (n,)
    outlines: np.ndarray | None  # (n, 4, 2) face corners, or None for a model without outline channels
    axis_angles: np.ndarray | None  # (n,) direction of each face's up axis, radians in [-pi/2, pi/2)


def outline_corners(centres: np.ndarray, angles: np.ndarray, widths: np.ndarray,
                    heights: np.ndarray) -> np.ndarray:
    """Face rectangles (n,4,2: top-left, top-right, bottom-right, bottom-left as read) around
    ``centres``, their up axes turned ``angles`` (radians). Which end is up is unknown (the
    classifier reads tiles either way up)."""
    up = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    right = np.stack([-up[:, 1], up[:, 0]], axis=1)
    half_up = up * (heights[:, None] / 2)
    half_right = right * (widths[:, None] / 2)
    corners = np.stack([centres + half_up - half_right, centres + half_up + half_right,
                        centres - half_up + half_right, centres - half_up - half_right], axis=1)
    return corners.astype(np.float32)


def decode_maps(maps: np.ndarray, stride: int, score_threshold: float, max_tiles: int = 200,
                nms_iou: float = 0.7) -> MapPeaks:
    """Network maps (7, 11 or 21,H,W) -> the tiles at the heatmap's peaks (see :class:`MapPeaks`)."""
    heat = np.ascontiguousarray(maps[0], dtype=np.float32)
    peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= score_threshold)
    ys, xs = np.nonzero(peaks)
    scores = heat[ys, xs]
    if len(scores) > max_tiles:
        top = np.argsort(-scores)[:max_tiles]
        ys, xs, scores = ys[top], xs[top], scores[top]
    cx = (xs + maps[1, ys, xs]) * stride
    cy = (ys + maps[2, ys, xs]) * stride
    w = np.exp(np.clip(maps[3, ys, xs], -4, 8)) * stride
    h = np.exp(np.clip(maps[4, ys, xs], -4, 8)) * stride
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1).astype(np.float32)
    sideways = maps[5, ys, xs].astype(np.float32)
    face_down = maps[6, ys, xs].astype(np.float32)
    # The face outline: the up axis as a doubled angle (the network's), face width and height.
    shape = None
    if maps.shape[0] >= len(_OUTLINE_CHANNELS):
        shape = np.stack([np.arctan2(maps[8, ys, xs], maps[7, ys, xs]) / 2,
                          np.exp(np.clip(maps[9, ys, xs], -4, 8)) * stride * OUTLINE_MARGIN,
                          np.exp(np.clip(maps[10, ys, xs], -4, 8)) * stride * OUTLINE_MARGIN], axis=1)
    refinement = None
    if maps.shape[0] >= len(_CORNER_CHANNELS):
        refinement = maps[len(_OUTLINE_CHANNELS):len(_CORNER_CHANNELS), ys, xs].T.astype(np.float64)
    if len(boxes):
        keep = _nms(boxes, scores, nms_iou)
        boxes, scores, sideways, face_down = boxes[keep], scores[keep], sideways[keep], face_down[keep]
        shape = None if shape is None else shape[keep]
        refinement = None if refinement is None else refinement[keep]
    outlines = angles = None
    if shape is not None:
        centres = (boxes[:, :2] + boxes[:, 2:]) / 2
        angles = smooth_axes(centres, shape[:, 0], shape[:, 2]).astype(np.float32)
        if refinement is not None:
            outlines = refine_corners(centres, angles, shape[:, 1], shape[:, 2], refinement)
        else:
            outlines = outline_corners(centres, angles, shape[:, 1], shape[:, 2])
    return MapPeaks(boxes, scores.astype(np.float32), sideways, face_down, outlines, angles)


def canonical_up(up: np.ndarray) -> np.ndarray:
    """Up axes (n,2) turned, where needed, to point up the image (y < 0); a level axis points right.

    The network cannot see which end of a tile is up, so its corner refinement is learned in this
    frame (``vision.training.detector_targets.face_corner_target``); training and decoding must
    share the rule, the tie included.
    """
    level = np.abs(up[:, 1]) <= 1e-6
    flip = np.where(level, up[:, 0] < 0, up[:, 1] > 0)
    return np.where(flip[:, None], -up, up)


def refine_corners(centres: np.ndarray, angles: np.ndarray, widths: np.ndarray, heights: np.ndarray,
                   refinement: np.ndarray) -> np.ndarray:
    """Face outlines (n,4,2) from the turned rectangles and the network's corner refinement.

    ``refinement`` (n,10) is, as fractions of the face height: the face centre's offset from the
    box centre (image x, y), then each corner's offset along the face's across and up axes, in the
    frame whose up points up the image (``vision.training.detector_targets.face_corner_target``).
    ``widths``/``heights`` carry :data:`OUTLINE_MARGIN` already; the refined face is grown by the
    same margin about its centre.
    """
    up = canonical_up(np.stack([np.cos(angles), np.sin(angles)], axis=1).astype(np.float64))
    right = np.stack([-up[:, 1], up[:, 0]], axis=1)
    plain_w, plain_h = widths / OUTLINE_MARGIN, heights / OUTLINE_MARGIN
    face_centres = centres + refinement[:, :2] * plain_h[:, None]
    signs = np.array([[-1, 1], [1, 1], [1, -1], [-1, -1]], np.float64)
    local = signs[None] * np.stack([plain_w, plain_h], axis=1)[:, None, :] / 2
    local = local + refinement[:, 2:].reshape(-1, 4, 2) * plain_h[:, None, None]
    local *= OUTLINE_MARGIN
    corners = (face_centres[:, None, :] + local[..., :1] * right[:, None, :]
               + local[..., 1:] * up[:, None, :])
    return corners.astype(np.float32)


#: Tiles whose centres are within this many face heights are neighbours for :func:`smooth_axes`.
NEIGHBOUR_REACH = 1.6
#: ... and whose up axes differ by at most this much lie the same way (a sideways tile stays apart).
SAME_WAY_DEGREES = 30.0


def _axial_offset(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    """|a - b| between two axes (radians), a half turn being the same axis: in [0, pi/2]."""
    return np.abs((np.asarray(a) - b + math.pi / 2) % math.pi - math.pi / 2)


def smooth_axes(centres: np.ndarray, angles: np.ndarray, heights: np.ndarray) -> np.ndarray:
    """Each tile's up axis averaged with its touching neighbours' that lie the same way.

    Tiles in a row or a set lie parallel, but each tile's axis is predicted on its own, with a few
    degrees of noise; a face cut out turned by that much reads worse. Averaging doubled angles over
    the neighbours within :data:`NEIGHBOUR_REACH` face heights and :data:`SAME_WAY_DEGREES` cancels
    most of it, and leaves a tile lying across its row (the winning tile) as it was.
    """
    if len(angles) < 2:
        return angles
    doubled = 2 * angles.astype(np.float64)
    distance = np.hypot(*(centres[:, None, :] - centres[None, :, :]).transpose(2, 0, 1))
    off = _axial_offset(angles[:, None], angles[None, :])
    near = (distance <= NEIGHBOUR_REACH * heights[:, None]) & (off <= math.radians(SAME_WAY_DEGREES))
    smoothed = np.arctan2((np.sin(doubled)[None, :] * near).sum(axis=1),
                          (np.cos(doubled)[None, :] * near).sum(axis=1)) / 2
    return smoothed.astype(angles.dtype)


def turned_against_the_rest(angles: np.ndarray, weights: np.ndarray,
                            limit_degrees: float = SIDEWAYS_DEGREES) -> np.ndarray:
    """Which tiles' up axes are turned more than ``limit_degrees`` from the tiles' common direction.

    A hand lies with nearly every tile the same way up (the concealed row, the sets, the flowers);
    the winning tile and claimed tiles lie across. The common direction is the weighted mean of the
    doubled angles (a half turn is the same axis); rows seen in perspective converge a little, far
    less than 45 degrees.
    """
    if len(angles) < 3:
        return np.zeros(len(angles), bool)
    doubled = 2 * angles.astype(np.float64)
    common = math.atan2(float((np.sin(doubled) * weights).sum()),
                        float((np.cos(doubled) * weights).sum())) / 2
    return _axial_offset(angles, common) > math.radians(limit_degrees)


def mirror_content(network_image: np.ndarray, content_width: int, stride: int) -> tuple[np.ndarray, int]:
    """The letterboxed image with its content mirrored left to right, the padding left on the right.

    The mirrored span is widened to whole cells of the maps (at most ``stride - 1`` grey columns of
    padding move to the left edge), so that cell ``c`` of one view is cell ``cells - 1 - c`` of the
    other. Returns the image and that number of cells.
    """
    span = min(network_image.shape[1], -(-content_width // stride) * stride)
    mirrored = network_image.copy()
    mirrored[:, :span] = network_image[:, :span][:, ::-1]
    return mirrored, span // stride


def mean_mirrored_heat(maps: np.ndarray, mirrored_maps: np.ndarray, cells: int) -> np.ndarray:
    """``maps`` with its heatmap averaged with the mirror view's, turned back (:func:`mirror_content`).

    Test-time augmentation for the peaks only: a tile is a tile in a mirror too, and the two views'
    mean lifts a tile one view half misses (a winning tile laid flat before its row) and lowers a
    peak only one view sees. The other channels (offsets, sizes, axes, corners) stay this view's,
    which the mirror would need re-signing for. It reads more held-out hands exactly
    (``models/MODEL_CARD.md``, mirror view).
    """
    out = maps.copy()
    out[0, :, :cells] = (maps[0, :, :cells] + mirrored_maps[0, :, :cells][:, ::-1]) / 2
    return out


class TileDetector:
    """The shipped tile detector. ``detect(image_bgr)`` returns one ``Detection`` per tile, best first.

    ``score_threshold`` defaults to the value chosen at training time (the model's metadata).
    """

    def __init__(self, model_path: Path | None = None, score_threshold: float | None = None,
                 threads: int | None = None, mirror_view: bool = True) -> None:
        """``mirror_view``: average the heatmap with the mirror image's (:func:`mean_mirrored_heat`);
        False runs the network once, without the mirror image."""
        path = resolve_model_path(model_path, DEFAULT_MODEL_NAME)
        self.mirror_view = mirror_view
        self.session = create_session(path, threads=threads)
        meta = self.session.get_modelmeta().custom_metadata_map
        try:
            self.input_size = int(meta.get("input_size", 512))
            self.stride = int(meta.get("stride", 4))
            self.score_threshold = float(score_threshold if score_threshold is not None
                                         else meta.get("score_threshold", 0.3))
            channels = tuple(json.loads(meta.get("channels", json.dumps(list(_CHANNELS)))))
        except (ValueError, TypeError) as error:
            raise InputError(f"detector model {path} has unreadable metadata: {error}") from error
        if channels not in _KNOWN_LAYOUTS:
            raise InputError(f"detector model {path} has outputs {channels}, expected {_CORNER_CHANNELS}")
        #: Whether the model gives face outlines (quads) or boxes only.
        self.gives_outlines = channels != _CHANNELS
        self.input_name = self.session.get_inputs()[0].name
        self.model_path = path

    def predict_maps(self, image_bgr: np.ndarray, input_size: int | None = None
                     ) -> tuple[np.ndarray, Letterbox]:
        """The network maps (channels,H,W) for an image, with the letterbox that produced them; with
        ``mirror_view`` the heatmap is the mean of the image's and its mirror image's. The network
        sees the image at ``input_size`` (default: the size it was trained at; it is fully
        convolutional, so a larger size sees small tiles larger)."""
        image = _as_bgr(image_bgr)
        network_image, box = letterbox(image, input_size or self.input_size)
        maps = self._run(network_image)
        if self.mirror_view:
            content_width = max(1, round(box.width * box.scale))
            mirrored, cells = mirror_content(network_image, content_width, self.stride)
            maps = mean_mirrored_heat(maps, self._run(mirrored), cells)
        return maps, box

    def single_view(self) -> TileDetector:
        """This detector without the mirror view (the same network session)."""
        single = copy.copy(self)
        single.mirror_view = False
        return single

    def _run(self, network_image: np.ndarray) -> np.ndarray:
        return self.session.run(None, {self.input_name: to_network_input(network_image)})[0][0]

    def detect(self, image_bgr: np.ndarray, complete_rows: bool = True, spares: bool = False,
               input_size: int | None = None) -> list[Detection]:
        """Every tile in ``image_bgr`` (boxes in its pixels), sure ones first, each by score.

        The sure tiles are the heatmap peaks at or above the model's threshold. With
        ``complete_rows`` (the default) a weaker peak is kept too where it is the next tile of a
        row of kept tiles (:mod:`vision.repairs.row_completion`); without it, only the sure tiles. With
        ``spares`` (and ``complete_rows``) a few more weak peaks beside the kept tiles follow, marked
        ``spare`` (:func:`vision.repairs.row_completion.spare_tiles`), for a decoder that may need them.
        ``input_size``: as for :meth:`predict_maps`.
        """
        maps, box = self.predict_maps(image_bgr, input_size)
        peaks = decode_maps(maps, self.stride, WEAK_SCORE if complete_rows else self.score_threshold)
        boxes = peaks.boxes / box.scale
        boxes[:, [0, 2]] = np.clip(boxes[:, [0, 2]], 0, box.width)
        boxes[:, [1, 3]] = np.clip(boxes[:, [1, 3]], 0, box.height)
        sized = np.flatnonzero((boxes[:, 2] - boxes[:, 0] >= 1) & (boxes[:, 3] - boxes[:, 1] >= 1))
        outlines = None if peaks.outlines is None else peaks.outlines / box.scale
        found = [Detection(box=tuple(float(v) for v in boxes[i]), score=float(peaks.scores[i]),
                           face_down=bool(peaks.face_down[i] >= 0.5),
                           quad=None if outlines is None else tuple(map(tuple, outlines[i].tolist())))
                 for i in sized]
        chosen = extend_rows(found, self.score_threshold) if complete_rows else list(range(len(found)))
        extra = spare_tiles(found, chosen) if spares and complete_rows else []
        kept = [found[i] for i in chosen] + [replace(found[i], spare=True) for i in extra]
        kept_index = sized[chosen + extra]
        if peaks.outlines is None or peaks.axis_angles is None:
            # A boxes-only model: the network's own sideways flag.
            flags = peaks.sideways[kept_index] >= 0.5
            return [replace(d, rotated=bool(flag)) for d, flag in zip(kept, flags, strict=True)]
        angles = peaks.axis_angles[kept_index]
        sideways = turned_against_the_rest(angles, peaks.scores[kept_index])
        return [replace(d, rotated=bool(turned), angle=float(math.degrees(angle)))
                for d, turned, angle in zip(kept, sideways, angles, strict=True)]


def _as_bgr(image: np.ndarray) -> np.ndarray:
    """Accept BGR, BGRA or greyscale uint8 images; anything else is the caller's mistake."""
    if not isinstance(image, np.ndarray) or image.size == 0:
        raise InputError("detector input is not an image")
    if image.dtype != np.uint8:
        raise InputError(f"detector input must be 8-bit, got {image.dtype}")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    raise InputError(f"detector input has unexpected shape {image.shape}")
