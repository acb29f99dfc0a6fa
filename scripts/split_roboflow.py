"""Write the fixed split of ``../shared/data/roboflow-chinese``: ``python scripts/split_roboflow.py``.

Writes ``datasets/splits/roboflow-chinese.json`` (committed): each source's part (train / val /
excluded), photo group and family by the rule of ``vision.dataset.roboflow``, and for every
augmented copy whether it shows mirrored faces (``vision.evaluation.mirrored``, read with the
classifier ``--classifier``, by default the shipped one; null where it could not tell). The test's
accuracy is measured on the as-uploaded copies as they are and mirrored, and printed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import cv2

from scoring.errors import InputError
from vision.dataset.files import atomic_write_text
from vision.dataset.roboflow import SPLIT_PATH, load_roboflow, make_split
from vision.imageio import read_bgr


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=None, help="shared data folder")
    parser.add_argument("--out", type=Path, default=SPLIT_PATH)
    parser.add_argument("--classifier", type=Path, default=None, help="classifier ONNX for the mirror test")
    args = parser.parse_args(argv)
    from vision.evaluation.mirrored import mirror_verdict
    from vision.models.classifier import TileClassifier

    try:
        images = load_roboflow(args.data_dir)
        reader = TileClassifier(args.classifier, flower_model=False, turned_view=False)
    except InputError as error:
        print(f"split_roboflow: error: {error}", file=sys.stderr)
        return 2
    sources = make_split(images)
    mirrored: dict[str, bool | None] = {}
    margins: dict[str, float] = {}
    checks: Counter[str] = Counter()
    for image in images:
        picture = read_bgr(image.path)
        codes = [tile.code for tile in image.tiles]
        if image.augmented:
            verdict = mirror_verdict(reader, picture, image.boxes, codes)
            mirrored[image.path.name] = verdict.mirrored
            margins[image.path.name] = verdict.margin
            continue
        # The as-uploaded copy is unmirrored; mirrored by us it must be found mirrored.
        width = picture.shape[1]
        boxes = image.boxes
        flipped_boxes = boxes.copy()
        flipped_boxes[:, [0, 2]] = width - boxes[:, [2, 0]]
        checks[f"uploaded:{mirror_verdict(reader, picture, boxes, codes).mirrored}"] += 1
        checks[f"flipped:{mirror_verdict(reader, cv2.flip(picture, 1), flipped_boxes, codes).mirrored}"] += 1
    document = {
        "rule": "vision.dataset.roboflow.make_split; mirrored: vision.evaluation.mirrored.mirror_verdict",
        "classifier": str(reader.model_path.name),
        "counts": dict(Counter(entry["split"] for entry in sources.values())),
        "mirror_test_on_uploaded_copies": dict(sorted(checks.items())),
        "sources": sources,
        "mirrored": mirrored,
        "mirror_margins": margins,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.out, json.dumps(document, indent=0, sort_keys=False) + "\n")
    verdicts = Counter(str(value) for value in mirrored.values())
    print(f"{args.out}: {document['counts']}; augmented copies mirrored {dict(verdicts)}; "
          f"test on the uploaded copies {dict(sorted(checks.items()))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
