"""The models on the held-out sources of ``roboflow-chinese``: ``scripts/evaluate.py roboflow``.

One image per held-out source (``datasets/splits/roboflow-chinese.json``, part ``val``): the photo
as uploaded where the export has it, else the first augmented copy the mirror test found
unmirrored (a mirrored copy has no right reading). Each image is read at each ``zoom`` (scaled up
with cubic interpolation: a 640x640 photo holds no tile taller than about 200 px, and a close-up
is what the detector must also find). Reported, overall, per kind of copy, per family (the naming
scheme: the nearest thing to a physical set the names tell) and per band of tile height in the
image as read:

- detector recall and precision at IoU 0.5 (a detection centred away from every labelled tile is
  not judged: loose tiles off the hand are often unboxed);
- classifier top-1 on crops cut from the true boxes (flowers and seasons apart);
- end to end: ``PhotoPipeline.read_tiles`` (detector, classifier, closer looks, as ``taicam
  photo`` reads), each labelled tile right when a reading matches its box and reads its code; and
  the photos with every labelled tile right (hand photos, 14-24 tiles, apart).
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
from vision.evaluation.detection import judged_detections, match_pairs
from vision.models.classifier import crop_detection
from vision.types import Detection

#: Tile-height bands (pixels, in the image as read): the issue's.
BANDS = ((0, 40, "<40"), (40, 120, "40-120"), (120, 300, "120-300"), (300, 10**6, ">300"))
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


def _matches(pred: np.ndarray, scores: Sequence[float], truth: np.ndarray) -> dict[int, int]:
    """Truth index -> prediction index of the greedy IoU-0.5 matching."""
    return {t: p for p, t in match_pairs(pred, scores, truth)}


def score_image(report: RoboflowReport, name: str, scopes: list[str], image: np.ndarray, truth: np.ndarray,
                codes: list[str], detect: Detect, classify: ClassifyCrops, read_tiles: ReadTiles) -> None:
    """Count one image (boxes in its pixels) into the tallies of ``scopes`` and its bands."""
    detections = detect(image)
    boxes = np.asarray([d.box for d in detections], np.float32).reshape(-1, 4)
    found = _matches(boxes, [d.score for d in detections], truth)
    judged = int(judged_detections(boxes, truth).sum()) if len(boxes) else 0
    crops = [crop_detection(image, Detection(box=tuple(float(v) for v in box), score=1.0)) for box in truth]
    read = classify(crops) if crops else []
    readings = read_tiles(image)
    read_boxes = np.asarray([box for box, _ in readings], np.float32).reshape(-1, 4)
    e2e = _matches(read_boxes, [1.0] * len(readings), truth)
    right = [i in e2e and readings[e2e[i]][1] == code for i, code in enumerate(codes)]
    wrong = right.count(False)
    if wrong:
        report.worst.append((name, wrong, len(codes)))
    hand = HAND_TILES[0] <= len(codes) <= HAND_TILES[1]
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


def evaluate_roboflow(detect: Detect, classify: ClassifyCrops, read_tiles: ReadTiles,
                      zooms: Sequence[float] = (1.0, 3.0), data_dir: Path | None = None,
                      split: RoboflowSplit | None = None, limit: int | None = None,
                      log: Callable[[str], None] | None = None) -> RoboflowReport:
    """The report on the held-out images (``limit``: the first few only, for a quick look)."""
    split = split or read_split()
    images = evaluation_images(load_roboflow(data_dir), split)[:limit]
    if not images:
        raise InputError("no held-out roboflow-chinese images to evaluate")
    report = RoboflowReport()
    for number, image in enumerate(images):
        picture = cv2.imread(str(image.path), cv2.IMREAD_COLOR)
        if picture is None:
            raise InputError(f"cannot read {image.path}")
        codes = [tile.code for tile in image.tiles]
        for zoom in zooms:
            scaled = picture if zoom == 1 else cv2.resize(picture, None, fx=zoom, fy=zoom,
                                                          interpolation=cv2.INTER_CUBIC)
            kind = "augmented" if image.augmented else "uploaded"
            scopes = [f"zoom:{zoom:g}", f"zoom:{zoom:g}/kind:{kind}",
                      f"zoom:{zoom:g}/family:{split.family(image.source)}"]
            score_image(report, f"{image.path.name}@{zoom:g}", scopes, scaled, image.boxes * zoom, codes,
                        detect, classify, read_tiles)
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
