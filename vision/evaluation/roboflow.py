"""The models on the held-out sources of ``roboflow-chinese``: ``scripts/evaluate.py roboflow``.

One image per held-out source (``datasets/splits/roboflow-chinese.json``, part ``val``): the photo
as uploaded where the export has it, else the first augmented copy the mirror test found
unmirrored (a mirrored copy has no right reading). Each is read in up to three *views*, each a
1280x960 picture or the image itself, so that every band of tile height is tried:

- ``full``: the 640x640 image as it is;
- ``far``: the image at half size in the middle of a 1280x960 picture of its border colour (a
  hand seen from across the table: tiles under 40 px);
- ``close``: a window about 2.6 tiles high around the middle labelled tile, scaled up to 1280x960
  (a close-up of a few large tiles; upscaled, so softer than a real close-up). Tiles cut by the
  window are not judged either way.

Reported overall, per view, per kind of copy, per family (the naming scheme: the nearest thing to
a physical set the names tell) and per band of tile height in the picture as read:

- detector recall and precision (a detection centred away from every labelled tile is not
  judged: loose tiles off the hand are often unboxed);
- classifier top-1 on crops cut from the true boxes (flowers and seasons apart);
- end to end: ``PhotoPipeline.read_tiles`` (detector, classifier, closer looks, as ``taicam
  photo`` reads), each labelled tile right when a reading matches its box and reads its code; and
  the photos with every labelled tile right (hand photos, 14-24 tiles, apart).

A detection matches a labelled tile by centres (``vision.evaluation.matching.match_centres``), not
by IoU: the label boxes of turned tiles are loose and an augmented copy's are often shifted off
their tiles by a fifth of a tile or more (the box of the turned box; the uploaded rows at a slant
are boxed loosely too), while a detection hugs its tile.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from scoring.errors import InputError
from vision.dataset.roboflow import RoboflowImage, RoboflowSplit, load_roboflow, read_split
from vision.evaluation.detection import judged_detections
from vision.evaluation.matching import match_centres
from vision.imageio import read_bgr
from vision.models.crops import crop_detection
from vision.types import Detection

#: Tile-height bands (pixels, in the image as read): the issue's.
BANDS = ((0, 40, "<40"), (40, 120, "40-120"), (120, 300, "120-300"), (300, 10**6, ">300"))
#: The picture size of the far and close views (a phone photo's 4:3).
VIEW_SIZE = (1280, 960)
#: The close view's window height, in median tile heights.
CLOSE_TILES = 2.6
#: A tile at least this much inside the close window is judged; one partly inside is not.
INSIDE_SHARE = 0.9
#: A photo of one hand: its row, flowers and melds.
HAND_TILES = (14, 24)
FLOWER_CODES = frozenset(f"{n}f" for n in range(1, 9))


def band_of(height: float) -> str:
    return next(name for low, high, name in BANDS if low <= height < high)


def evaluation_images(images: Sequence[RoboflowImage], split: RoboflowSplit,
                      part: str = "val") -> list[RoboflowImage]:
    """One image per source of ``part``: the uploaded copy, else the first unmirrored augmented one."""
    chosen: dict[str, RoboflowImage] = {}
    for image in split.images(images, part):
        if not split.unmirrored(image):
            continue
        held = chosen.get(image.source)
        if held is None or (held.augmented and not image.augmented):
            chosen[image.source] = image
    return [chosen[source] for source in sorted(chosen)]


@dataclass
class Tally:
    """Counts of one scope (all, a family, a band, a kind of copy)."""

    tiles: int = 0
    found: int = 0  # detector matches (IoU 0.5)
    detections: int = 0  # judged detections
    read_right: int = 0  # classifier on true boxes
    flowers: int = 0
    flowers_right: int = 0
    e2e_right: int = 0
    e2e_flowers_right: int = 0
    photos: int = 0
    photos_right: int = 0
    hand_photos: int = 0
    hand_photos_right: int = 0

    def to_json(self) -> dict[str, object]:
        def rate(a: int, b: int) -> float | None:
            return round(a / b, 4) if b else None

        return {"photos": self.photos, "tiles": self.tiles,
                "detector_recall": rate(self.found, self.tiles),
                "detector_precision": rate(self.found, self.detections),
                "classifier_top1": rate(self.read_right, self.tiles),
                "classifier_top1_flowers_seasons": rate(self.flowers_right, self.flowers),
                "flowers_seasons": self.flowers,
                "e2e_tile_accuracy": rate(self.e2e_right, self.tiles),
                "e2e_flowers_seasons": rate(self.e2e_flowers_right, self.flowers),
                "photos_every_tile_right": rate(self.photos_right, self.photos),
                "hand_photos": self.hand_photos,
                "hand_photos_every_tile_right": rate(self.hand_photos_right, self.hand_photos)}


@dataclass
class RoboflowReport:
    """Tallies by scope name (``all``, ``kind:uploaded``, ``family:web-uploads``, ``band:40-120``,
    ``zoom:3``), and the worst photos (most tiles wrong end to end)."""

    tallies: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    worst: list[tuple[str, int, int]] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        worst = sorted(self.worst, key=lambda row: -row[1])[:15]
        return {"scopes": {name: tally.to_json() for name, tally in sorted(self.tallies.items())},
                "worst_photos": [{"image": name, "wrong": wrong, "tiles": tiles}
                                 for name, wrong, tiles in worst]}


Detect = Callable[[np.ndarray], list[Detection]]
ClassifyCrops = Callable[[list[np.ndarray]], list[str]]
ReadTiles = Callable[[np.ndarray], list[tuple[tuple[float, float, float, float], str]]]


def _outside(boxes: np.ndarray, ignore: np.ndarray) -> np.ndarray:
    """Which boxes are not centred inside any ignore box."""
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    if not len(ignore) or not len(boxes):
        return np.ones(len(boxes), bool)
    cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    inside = ((cx[:, None] >= ignore[None, :, 0]) & (cx[:, None] <= ignore[None, :, 2])
              & (cy[:, None] >= ignore[None, :, 1]) & (cy[:, None] <= ignore[None, :, 3]))
    return ~inside.any(axis=1)


@dataclass(frozen=True)
class View:
    """A picture to read, its labelled boxes and codes in its pixels, and the boxes not judged."""

    name: str
    image: np.ndarray
    boxes: np.ndarray
    codes: list[str]
    ignore: np.ndarray


def far_view(image: np.ndarray, boxes: np.ndarray, codes: list[str]) -> View:
    """The image at half size in the middle of a 1280x960 picture of its border's median colour."""
    width, height = VIEW_SIZE
    small = cv2.resize(image, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    border = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]])
    canvas = np.empty((height, width, 3), np.uint8)
    canvas[:] = np.median(border, axis=0).astype(np.uint8)
    x0, y0 = (width - small.shape[1]) // 2, (height - small.shape[0]) // 2
    canvas[y0:y0 + small.shape[0], x0:x0 + small.shape[1]] = small
    offset = np.array([x0, y0, x0, y0], np.float32)
    return View("far", canvas, boxes * 0.5 + offset, codes, np.zeros((0, 4), np.float32))


def close_view(image: np.ndarray, boxes: np.ndarray, codes: list[str]) -> View | None:
    """A window :data:`CLOSE_TILES` median tiles high around the middle labelled tile, scaled to
    1280x960; None when the image is too small for one."""
    if not len(boxes):
        return None
    width, height = VIEW_SIZE
    tile = float(np.median(boxes[:, 3] - boxes[:, 1]))
    window_h = CLOSE_TILES * tile
    window_w = window_h * width / height
    rows, cols = image.shape[:2]
    if window_w > cols or window_h > rows:
        return None
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    middle = centres[int(np.argmin(np.linalg.norm(centres - centres.mean(axis=0), axis=1)))]
    x0 = float(np.clip(middle[0] - window_w / 2, 0, cols - window_w))
    y0 = float(np.clip(middle[1] - window_h / 2, 0, rows - window_h))
    scale = height / window_h
    matrix = np.array([[scale, 0, -x0 * scale], [0, scale, -y0 * scale]], np.float32)
    picture = cv2.warpAffine(image, matrix, (width, height), flags=cv2.INTER_CUBIC)
    moved = (boxes - np.array([x0, y0, x0, y0], np.float32)) * scale
    clipped = np.clip(moved, 0, [width, height, width, height])
    area = np.prod(moved[:, 2:] - moved[:, :2], axis=1)
    share = np.prod(np.maximum(clipped[:, 2:] - clipped[:, :2], 0), axis=1) / np.maximum(area, 1e-6)
    judged = share >= INSIDE_SHARE
    if not judged.any():
        return None
    return View("close", picture, moved[judged], [c for c, j in zip(codes, judged, strict=True) if j],
                clipped[(share > 0) & ~judged])


def score_image(report: RoboflowReport, name: str, scopes: list[str], view: View, detect: Detect,
                classify: ClassifyCrops, read_tiles: ReadTiles) -> None:
    """Count one view into the tallies of ``scopes`` and of its tiles' bands."""
    image, truth, codes = view.image, view.boxes, view.codes
    detections = detect(image)
    boxes = np.asarray([d.box for d in detections], np.float32).reshape(-1, 4)
    keep = _outside(boxes, view.ignore)
    boxes = boxes[keep]
    found = match_centres(boxes, [d.score for d, k in zip(detections, keep, strict=True) if k], truth)
    judged = int(judged_detections(boxes, truth).sum()) if len(boxes) else 0
    crops = [crop_detection(image, Detection(box=tuple(float(v) for v in box), score=1.0)) for box in truth]
    read = classify(crops) if crops else []
    readings = read_tiles(image)
    read_boxes = np.asarray([box for box, _ in readings], np.float32).reshape(-1, 4)
    e2e = match_centres(read_boxes, [1.0] * len(readings), truth)
    right = [i in e2e and readings[e2e[i]][1] == code for i, code in enumerate(codes)]
    wrong = right.count(False)
    if wrong:
        report.worst.append((name, wrong, len(codes)))
    hand = HAND_TILES[0] <= len(codes) <= HAND_TILES[1] and view.name != "close"
    for scope in scopes:
        tally = report.tallies[scope]
        tally.photos += 1
        tally.photos_right += int(wrong == 0)
        tally.hand_photos += int(hand)
        tally.hand_photos_right += int(hand and wrong == 0)
        tally.detections += judged
    for i, code in enumerate(codes):
        band = f"band:{band_of(float(truth[i, 3] - truth[i, 1]))}"
        for scope in [*scopes, band]:
            tally = report.tallies[scope]
            tally.tiles += 1
            tally.found += int(i in found)
            tally.read_right += int(read[i] == code)
            tally.e2e_right += int(right[i])
            if code in FLOWER_CODES:
                tally.flowers += 1
                tally.flowers_right += int(read[i] == code)
                tally.e2e_flowers_right += int(right[i])


def image_views(image: np.ndarray, boxes: np.ndarray, codes: list[str], names: Sequence[str]) -> list[View]:
    """The views ``names`` (of full, far, close) of one image that exist."""
    views: list[View | None] = []
    for name in names:
        if name == "full":
            views.append(View("full", image, boxes, codes, np.zeros((0, 4), np.float32)))
        elif name == "far":
            views.append(far_view(image, boxes, codes))
        elif name == "close":
            views.append(close_view(image, boxes, codes))
        else:
            raise InputError(f"unknown view {name!r} (full, far, close)")
    return [view for view in views if view is not None]


VIEWS = ("full", "far", "close")


def evaluate_roboflow(detect: Detect, classify: ClassifyCrops, read_tiles: ReadTiles,
                      views: Sequence[str] = VIEWS, data_dir: Path | None = None,
                      split: RoboflowSplit | None = None, limit: int | None = None,
                      log: Callable[[str], None] | None = None) -> RoboflowReport:
    """The report on the held-out images (``limit``: the first few only, for a quick look)."""
    split = split or read_split()
    images = evaluation_images(load_roboflow(data_dir), split)[:limit]
    if not images:
        raise InputError("no held-out roboflow-chinese images to evaluate")
    report = RoboflowReport()
    for number, image in enumerate(images):
        picture = read_bgr(image.path)
        kind = "augmented" if image.augmented else "uploaded"
        for view in image_views(picture, image.boxes, [tile.code for tile in image.tiles], views):
            scopes = [f"view:{view.name}", f"view:{view.name}/kind:{kind}",
                      f"view:{view.name}/family:{split.family(image.source)}"]
            if view.name == "full":
                scopes.append(f"view:full/group:{split.group(image.source)}")
            score_image(report, f"{image.path.name}@{view.name}", scopes, view, detect, classify, read_tiles)
        if log is not None and number % 25 == 24:
            log(f"{number + 1} of {len(images)} images")
    return report


#: The columns of the printed table (JSON key, heading).
COLUMNS = (("tiles", "tiles"), ("detector_recall", "det. recall"), ("detector_precision", "det. precision"),
           ("classifier_top1", "cls top-1"), ("classifier_top1_flowers_seasons", "cls flowers"),
           ("e2e_tile_accuracy", "e2e tiles"), ("e2e_flowers_seasons", "e2e flowers"),
           ("photos", "photos"), ("photos_every_tile_right", "photos all right"),
           ("hand_photos", "hand photos"), ("hand_photos_every_tile_right", "hands all right"))


def _cell(value: object) -> str:
    if value is None:
        return "-"
    return f"{100 * value:.1f}%" if isinstance(value, float) else str(value)


def print_roboflow_json(results: dict[str, object]) -> None:
    """A report's JSON as a Markdown table, one row per scope, then the worst photos."""
    print("| scope | " + " | ".join(heading for _, heading in COLUMNS) + " |")
    print("|---|" + "---|" * len(COLUMNS))
    for name, row in results["scopes"].items():  # type: ignore[union-attr]
        cells = [_cell(row[key]) for key, _ in COLUMNS]
        print(f"| {name} | " + " | ".join(cells) + " |")
    for row in results["worst_photos"][:10]:  # type: ignore[index]
        print(f"worst: {row['image']} {row['wrong']} of {row['tiles']} tiles wrong")
