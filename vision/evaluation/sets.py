"""``scripts/evaluate.py sets``: how much a learned set helps on physical sets the models never saw.

Held-out sets (``../shared/data``; none was trained on):

* ``roboflow-chinese``, one set per shooting date (``IMG_YYYYMMDD_*`` held-out sources of
  ``datasets/splits/roboflow-chinese.json`` with at least :data:`MIN_PHOTOS` photos as uploaded,
  augmented copies left out). Two ways to learn: ``view``,
  one view per face (each face's first labelled tile, photos in manifest order), read that face's
  tiles in the date's other photos; ``photo``, every labelled tile of the first photo, read the
  date's other photos (the faces that photo lacks fall back to the shipped models).
* the table-photo validation photos (``datasets/real-labels/table-photos.jsonl``): mostly one
  set (two styles of flowers show), the only one with flowers and seasons in several photos, but
  its training photos were trained on, so it is reported apart. It holds up to four augmented
  copies of each photo (one ``set_id``); copies count as one photo, so no tile is read in a copy of
  the photo it was learned from.
* ``crops-labelled``'s validation sets (one crop per face): each crop read with a profile of the
  set's other faces only (``fallback``), which shows whether a profile steals tiles of faces it
  lacks; they hold no second crop of a face to read after learning it.
* the same crop sets rendered (``vision.evaluation.rendered_sets``), as printed and mirrored, and
  the Unicode art mirrored: learned from a photo of the set laid out in the documented order,
  read in shuffled photos of it (``photo``); the only held-out sets whose flowers and seasons
  are read in photos other than the one they were learned from.

Tiles are cut from the labelled boxes, so the classifier and the set are judged without the
detector. Per set: tiles, top-1 before and after, flowers and seasons apart, ECE and NLL.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from scoring.errors import InputError
from vision.dataset.crops import VALIDATION_SETS, load_labelled_crops
from vision.dataset.paths import shared_data_dir
from vision.evaluation.classification import ClassificationReport
from vision.evaluation.rendered_sets import rendered_sets
from vision.evaluation.set_tiles import HeldOutSet, Tile
from vision.imageio import PhotoSource, read_bgr
from vision.models.classifier import TileClassifier
from vision.models.crops import crop_detection
from vision.models.detector import TileDetector
from vision.sets.head import evidence_for
from vision.sets.learn import cut_views
from vision.sets.profile import as_view, empty_profile, model_digest, with_views
from vision.types import Detection

MIN_PHOTOS = 4


def roboflow_sets(classifier: TileClassifier, data: Path) -> list[HeldOutSet]:
    """The roboflow-chinese photos of the split's held-out sources, grouped by shooting date (see
    the module doc); the training sources' dates are left out, as a classifier member learned them."""
    from vision.dataset.roboflow import read_split

    manifest = data / "roboflow-chinese" / "manifest.jsonl"
    if not manifest.is_file():
        return []
    held_out = {source for source, entry in read_split().sources.items() if entry.get("split") == "val"}
    by_date: dict[str, list[dict]] = defaultdict(list)
    for line in manifest.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        source = str(record.get("source", ""))
        if (not record.get("augmented") and source.startswith("IMG_2") and len(source) > 12
                and source in held_out):
            by_date[source[4:12]].append(record)
    sets = []
    for date, records in sorted(by_date.items()):
        if len(records) < MIN_PHOTOS:
            continue
        tiles = []
        for number, record in enumerate(records):
            path = manifest.parent / record["image"]
            labelled = [t for t in record["tiles"] if t["code"] != "back"]
            detections = [Detection(box=tuple(t["box"]), score=1.0) for t in labelled]
            image = read_bgr(path)
            codes = [t["code"] for t in labelled]
            views = cut_views(PhotoSource(path), detections, codes, path.name)
            tiles += [Tile(number, code, crop_detection(image, d, classifier.input_size), view)
                      for d, code, view in zip(detections, codes, views, strict=True)]
        sets.append(HeldOutSet(f"roboflow {date}", tuple(tiles)))
    return sets


def table_photo_set(classifier: TileClassifier) -> list[HeldOutSet]:
    """The validation photos of the automatic table we labelled: the only photos here with flowers
    and seasons in several photos, mostly of one set (two styles of flowers show), its training
    photos trained on, so it is not held out; reported apart. Tiles are cut as the classifier's
    evaluation cuts them (``table_photo_detection``: a wide box our review marks upright is cut
    upright)."""
    from vision.dataset.manifest import image_path, read_manifest
    from vision.training.classifier_data import REAL_LABELS_MANIFEST, table_photo_detection

    if not REAL_LABELS_MANIFEST.is_file():
        return []
    tiles = []
    records = [r for r in read_manifest(REAL_LABELS_MANIFEST) if r.split == "val" and r.reviewed]
    groups: dict[str, int] = {}
    for record in records:
        number = groups.setdefault(record.set_id or record.image, len(groups))
        path = image_path(record, REAL_LABELS_MANIFEST)
        if not path.is_file():
            return []
        labelled = [t for t in record.tiles if t.code in classifier.labels and t.code != "back"
                    and not t.face_down]
        detections = [table_photo_detection(t) for t in labelled]
        image = read_bgr(path)
        views = cut_views(PhotoSource(path), detections, [t.code for t in labelled], path.name)
        tiles += [Tile(number, t.code, crop_detection(image, d, classifier.input_size), view)
                  for t, d, view in zip(labelled, detections, views, strict=True)]
    return [HeldOutSet("table-photos val (seen in training)", tuple(tiles))] if tiles else []


def crop_sets() -> list[HeldOutSet]:
    """The validation crop sets, one crop per tile."""
    by_set: dict[str, list[Tile]] = defaultdict(list)
    for number, crop in enumerate(load_labelled_crops("val")):
        if crop.set_id in VALIDATION_SETS and crop.code != "back":
            image = read_bgr(crop.path)
            view = as_view(image, crop.code, crop.path.name)
            by_set[crop.set_id].append(Tile(number, crop.code, image, view))
    return [HeldOutSet(f"crops {name}", tuple(tiles)) for name, tiles in sorted(by_set.items())]


def _learn_read(held: HeldOutSet, protocol: str) -> list[tuple[list[int], list[int]]]:
    """(tiles learned, tiles read) pairs of one protocol."""
    if protocol == "view":
        first: dict[str, int] = {}
        for index, tile in enumerate(held.tiles):
            first.setdefault(tile.code, index)
        learned = sorted(first.values())
        return [(learned, [i for i, tile in enumerate(held.tiles)
                           if tile.photo != held.tiles[first[tile.code]].photo])]
    if protocol == "photo":
        learned = [i for i, tile in enumerate(held.tiles) if tile.photo == 0]
        return [(learned, [i for i, tile in enumerate(held.tiles) if tile.photo != 0])]
    return [([j for j in range(len(held.tiles)) if held.tiles[j].code != tile.code], [i])
            for i, tile in enumerate(held.tiles)]


def _summary(labels: list[str], truth: list[str], probabilities: np.ndarray) -> dict[str, float | int | None]:
    report = ClassificationReport(labels, truth, probabilities)
    top1, count = report.top1()
    flowers, flower_count = report.top1("flowers_seasons")
    return {"tiles": count, "top1": top1, "flowers": flowers if flower_count else None,
            "flower_tiles": flower_count, "ece": report.ece(), "nll": report.nll()}


def evaluate_set(held: HeldOutSet, protocol: str, classifier: TileClassifier) -> dict[str, object]:
    """Before and after learning, on the tiles read (a tile read in several rounds counts once each)."""
    crops = [tile.crop for tile in held.tiles]
    before = classifier.probabilities(crops)
    _, embeddings = classifier.features(crops)
    if embeddings is None:
        raise InputError(f"{classifier.model_path} has no embedding output")
    digest = model_digest(classifier.model_path)
    truth: list[str] = []
    rows_before, rows_after = [], []
    for learned, read in _learn_read(held, protocol):
        profile = with_views(empty_profile("evaluation", digest), [held.tiles[i].view for i in learned],
                             classifier, digest)
        evidence = evidence_for(profile, classifier.labels)
        rows_before.append(before[read])
        rows_after.append(evidence.adjust(before[read], embeddings[read]))
        truth += [held.tiles[i].code for i in read]
    return {"set": held.name, "protocol": protocol,
            "before": _summary(classifier.labels, truth, np.concatenate(rows_before)),
            "after": _summary(classifier.labels, truth, np.concatenate(rows_after))}


def _pooled(results: Sequence[dict], key: str, which: str) -> float | None:
    counted = [(r[which][key], r[which]["tiles" if key == "top1" else "flower_tiles"]) for r in results]
    total = sum(count for value, count in counted if value is not None)
    if not total:
        return None
    return sum(value * count for value, count in counted if value is not None) / total


def _cell(value: object) -> str:
    return "-" if value is None else f"{100 * float(value):.1f}%"  # type: ignore[arg-type]


def print_table(results: Sequence[dict]) -> None:
    print("| held-out set | learned from | tiles read | top-1 before | after | flowers+seasons before | "
          "after | ECE before | after |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        b, a = r["before"], r["after"]
        print(f"| {r['set']} | {r['protocol']} | {b['tiles']} | {_cell(b['top1'])} | {_cell(a['top1'])} | "
              f"{_cell(b['flowers'])} | {_cell(a['flowers'])} | {b['ece']:.3f} | {a['ece']:.3f} |")
    for protocol, rendered in sorted({(r["protocol"], r["kind"] == "rendered") for r in results}):
        chosen = [r for r in results if r["protocol"] == protocol and (r["kind"] == "rendered") == rendered]
        worst = min(r["after"]["top1"] - r["before"]["top1"] for r in chosen)
        label = f"{protocol} (rendered sets)" if rendered else protocol
        print(f"{label}: top-1 {_cell(_pooled(chosen, 'top1', 'before'))} -> "
              f"{_cell(_pooled(chosen, 'top1', 'after'))}, flowers+seasons "
              f"{_cell(_pooled(chosen, 'flowers', 'before'))} -> "
              f"{_cell(_pooled(chosen, 'flowers', 'after'))}, "
              f"worst set change {100 * worst:+.1f} points")


PROTOCOLS = {"roboflow": ("view", "photo"), "table": ("view", "photo"), "crops": ("fallback",),
             "rendered": ("photo",)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="evaluate.py sets", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="shared data folder (default ../shared/data)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)
    data = args.data or shared_data_dir()
    try:
        classifier = TileClassifier()
        groups = {"roboflow": roboflow_sets(classifier, data), "table": table_photo_set(classifier),
                  "crops": crop_sets(), "rendered": rendered_sets(classifier, TileDetector())}
        if not any(groups.values()):
            raise InputError(f"no held-out sets found in {data}")
        results = [{**evaluate_set(held, protocol, classifier), "kind": kind}
                   for kind, sets in groups.items() for held in sets for protocol in PROTOCOLS[kind]]
    except InputError as error:
        print(f"evaluate: error: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        print_table(results)
    return 0
