"""The real labelled tile crops (``../shared/data/crops-labelled``), grouped by physical tile set.

Why sets: the 700 crops were cut from photos of whole sets laid out in grids (``set-photos/``),
about one crop per face per set. Two crops of one set share body colour, ink, carving and the
camera, so a random split would put near-twins in train and validation and flatter the model.
Every crop therefore carries a ``set_id`` and the validation part is a fixed list of whole sets.

How the sets were found (by eye, on contact sheets of the crops in file-number order, checked
against the runs of 42 distinct faces the numbering forms): from crop 141 on, the files come in
runs that each show one set's faces once; the boundaries are in :data:`SET_RUNS`. Crops 1-140
are a shuffle of several web-shop sets that cannot be told apart reliably, so they form one
group, ``mix-web``, that is always in the training part; so are the short odd runs (four
differently cut 1-dots, the small cropped extras at the end).

The validation sets, :data:`VALIDATION_SETS`, are complete sets (every face, flowers and seasons
included) of different styles: Taiwanese-style red/green, a corner-indexed set, a cream set and a
blue-ink set.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from scoring.errors import InputError
from scoring.tiles import VISION_CODES
from vision.dataset.paths import shared_data_dir

#: (first crop number, last crop number, set id), in file-number order. Crops not covered by a run
#: belong to ``mix-web`` (1-140) or ``mix-extra`` (the rest).
SET_RUNS: tuple[tuple[int, int, str], ...] = (
    (141, 182, "set-141-cream-black"),
    (183, 224, "set-183-white-redgreen"),
    (225, 260, "set-225-corner-index"),
    (261, 296, "set-261-blue-letters"),
    (297, 340, "set-297-corner-number"),
    (341, 374, "set-341-corner-number-bold"),
    (375, 416, "set-375-yellow"),
    (417, 428, "set-417-small-letters"),
    (429, 432, "extra-429-dots1"),
    (433, 461, "set-433-blue-corner"),
    (462, 503, "set-462-white-black"),
    (504, 541, "set-504-potted-flowers"),
    (542, 582, "set-542-green-flowers"),
    (583, 586, "extra-583-dots1"),
    (587, 628, "set-587-white-green"),
    (631, 674, "set-631-blue-ink"),
)
MIXED_WEB_SET = "mix-web"
MIXED_EXTRA_SET = "mix-extra"

#: Whole sets held out for validation (never trained on, never used to render training scenes).
VALIDATION_SETS: frozenset[str] = frozenset(
    {"set-183-white-redgreen", "set-297-corner-number", "set-462-white-black", "set-631-blue-ink"}
)


@dataclass(frozen=True)
class LabelledCrop:
    """One real single-tile photo: where it is, what it shows, which physical set, which split."""

    path: Path
    code: str
    set_id: str
    split: str
    number: int


def set_id_for(number: int) -> str:
    """The physical-set id of crop ``images/<number>.jpg``."""
    for first, last, set_id in SET_RUNS:
        if first <= number <= last:
            return set_id
    return MIXED_WEB_SET if number <= 140 else MIXED_EXTRA_SET


def split_for(set_id: str) -> str:
    """``"val"`` for the held-out sets, else ``"train"``."""
    return "val" if set_id in VALIDATION_SETS else "train"


def crops_dir(data_dir: Path | None = None) -> Path:
    """The crops folder inside the shared data (``$TAICAM_SHARED_DATA`` or ``../shared/data``)."""
    return (data_dir or shared_data_dir()) / "crops-labelled"


def load_labelled_crops(split: str | None = None, data_dir: Path | None = None) -> list[LabelledCrop]:
    """All labelled crops (or one ``split``: ``"train"`` / ``"val"``), in file-number order.

    Raises InputError if the shared data is missing or a label is not a tile code.
    """
    if split not in (None, "train", "val"):
        raise InputError(f"unknown split {split!r} (expected train or val)")
    folder = crops_dir(data_dir)
    manifest = folder / "manifest.jsonl"
    if not manifest.is_file():
        raise InputError(f"labelled crops not found: {manifest} (set TAICAM_SHARED_DATA)")
    crops = list(_parse_manifest(folder, manifest.read_text(encoding="utf-8").splitlines()))
    crops.sort(key=lambda crop: crop.number)
    return [crop for crop in crops if split is None or crop.split == split]


def _parse_manifest(folder: Path, lines: Iterable[str]) -> Iterable[LabelledCrop]:
    for line_number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        obj = json.loads(line)
        code = obj["tiles"][0]["code"]
        if code not in VISION_CODES:
            raise InputError(f"{folder}/manifest.jsonl:{line_number}: unknown code {code!r}")
        number = int(Path(obj["image"]).stem)
        set_id = set_id_for(number)
        yield LabelledCrop(folder / obj["image"], code, set_id, split_for(set_id), number)
