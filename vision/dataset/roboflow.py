"""The "Chinese Mahjong Detection" photos (``../shared/data/roboflow-chinese``) and their fixed split.

The export holds up to five copies of each uploaded photo (``source``): the photo resized
(``upstream_split`` ``valid``) and augmented copies (turned, sheared, often mirrored). Copies of
one photo, and photos of one scene taken in a row, look alike, so the split is by *photo group*,
never by copy. A group is read off the source's name by a fixed rule (:func:`photo_group`):

- ``IMG_YYYYMMDD_HHMMSS``: one group per shooting date (one sitting, one set);
- ``IMG_NNNN`` camera-roll numbers and ``name_NNN`` series (``hand_021``): blocks of
  :data:`SERIES_BLOCK` consecutive numbers; the sources within :data:`SERIES_GUARD` numbers of
  a held-out block are left out of training (the scene photographed before or after);
- ``A_B_C_n`` web uploads: one group per million of the upload number ``A`` (an album);
- screenshots: one group per date in their name; any other name is a group of its own.

A source whose labels cannot be right is ``excluded`` too: one set holds four of each face, so an
image with more than :data:`MOST_OF_ONE_FACE` tiles of one code that are at least half its tiles
was labelled one class for a whole row (seven sources of ``IMG_27xx``, every tile ``1p``).

Each group also has a *family* (:func:`photo_family`: the naming scheme, the nearest thing to a
physical set the names tell). The validation groups are chosen per family and per stratum (groups
with an as-uploaded copy, groups without), in the order of the SHA-1 of the group name, until
:data:`VALIDATION_SHARE` of the stratum's sources are held out. ``scripts/split_roboflow.py``
writes the result to ``datasets/splits/roboflow-chinese.json``; training and evaluation read that
committed file, never the rule, so the split cannot drift.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scoring.errors import InputError
from vision.dataset.paths import REPO_ROOT, shared_data_dir

#: The committed split file.
SPLIT_PATH = REPO_ROOT / "datasets" / "splits" / "roboflow-chinese.json"
#: Share of each family's sources held out (whole groups, so a little more).
VALIDATION_SHARE = 0.25
#: Numbered series are grouped in blocks of this many consecutive numbers.
SERIES_BLOCK = 20
#: Sources this close in number to a held-out block are in neither part (``excluded``).
SERIES_GUARD = 2
#: More tiles of one code than a set has (with flowers, one each, far fewer) mark a mislabelled image.
MOST_OF_ONE_FACE = 4
#: Series with fewer sources than this share one family ("families", "discards": a few shots each).
SMALL_SERIES = 6

_DATED = re.compile(r"IMG_(\d{8})_\d+")
_CAMERA_ROLL = re.compile(r"IMG_(\d+)_JPG$")
_UPLOAD = re.compile(r"(\d+)_\d+_\d+_n_jpg$")
_SERIES = re.compile(r"([a-z_]+?)_(\d+)_jpg$")
_SCREENSHOT = re.compile(r"Screenshot-(\d{4}-\d{2}-\d{2})")


@dataclass(frozen=True)
class RoboflowTile:
    """One labelled tile: canonical code and box (pixels of the 640x640 image)."""

    code: str
    box: tuple[float, float, float, float]


@dataclass(frozen=True)
class RoboflowImage:
    """One image of the export: a copy of the uploaded photo ``source``."""

    path: Path
    source: str
    augmented: bool
    tiles: tuple[RoboflowTile, ...]

    @property
    def boxes(self) -> np.ndarray:
        return np.asarray([t.box for t in self.tiles], np.float32).reshape(-1, 4)


def roboflow_dir(data_dir: Path | None = None) -> Path:
    return (data_dir or shared_data_dir()) / "roboflow-chinese"


def load_roboflow(data_dir: Path | None = None) -> list[RoboflowImage]:
    """Every image of the export, in manifest order; a clear error when the data is absent."""
    folder = roboflow_dir(data_dir)
    manifest = folder / "manifest.jsonl"
    if not manifest.is_file():
        raise InputError(f"no roboflow-chinese manifest at {manifest}")
    images = []
    for line in manifest.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        tiles = tuple(RoboflowTile(str(t["code"]), tuple(float(v) for v in t["box"]))  # type: ignore[arg-type]
                      for t in row["tiles"])
        images.append(RoboflowImage(folder / row["image"], str(row["source"]), bool(row["augmented"]), tiles))
    return images


def _series_number(source: str) -> tuple[str, int] | None:
    """(series name, number) of a numbered source (camera roll or named series), else None."""
    if match := _CAMERA_ROLL.match(source):
        return "IMG", int(match.group(1))
    if match := _SERIES.match(source):
        return match.group(1), int(match.group(2))
    return None


def photo_group(source: str) -> str:
    """The photo group of a source name (see the module docstring)."""
    if match := _DATED.match(source):
        return f"date-{match.group(1)}"
    if numbered := _series_number(source):
        name, number = numbered
        return f"{name}-{number // SERIES_BLOCK * SERIES_BLOCK:04d}"
    if match := _UPLOAD.match(source):
        return f"upload-{int(match.group(1)) // 1_000_000}M"
    if match := _SCREENSHOT.match(source):
        return f"screenshot-{match.group(1)}"
    return f"web-{source}"


def photo_family(source: str, series_sizes: dict[str, int]) -> str:
    """The naming scheme a source belongs to: its stand-in for a physical set (``series_sizes``:
    how many sources each named series has, so the small ones share one family)."""
    if _DATED.match(source):
        return "dated-IMG"
    if numbered := _series_number(source):
        name = numbered[0]
        if name == "IMG":
            return "camera-roll-IMG"
        return f"series-{name}" if series_sizes.get(name, 0) >= SMALL_SERIES else "series-small"
    if _UPLOAD.match(source):
        return "web-uploads"
    if _SCREENSHOT.match(source):
        return "screenshots"
    return "web-other"


def _sha(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def mislabelled(image: RoboflowImage) -> bool:
    """More tiles of one code than a set holds, making up half the image's tiles or more."""
    counts: dict[str, int] = defaultdict(int)
    for tile in image.tiles:
        counts[tile.code] += 1
    most = max(counts.values(), default=0)
    return most > MOST_OF_ONE_FACE and 2 * most >= len(image.tiles)


def make_split(images: Iterable[RoboflowImage]) -> dict[str, dict[str, str]]:
    """Each source's ``split`` (train / val / excluded), ``group`` and ``family``, by the fixed rule."""
    images = list(images)
    wrong = {image.source for image in images if mislabelled(image)}
    sources = sorted({image.source for image in images})
    uploaded = {image.source for image in images if not image.augmented}
    series_sizes: dict[str, int] = defaultdict(int)
    for source in sources:
        if numbered := _series_number(source):
            series_sizes[numbered[0]] += 1
    group_of = {source: photo_group(source) for source in sources}
    family_of = {source: photo_family(source, series_sizes) for source in sources}
    members: dict[str, list[str]] = defaultdict(list)
    for source in sources:
        members[group_of[source]].append(source)
    strata: dict[tuple[str, bool], list[str]] = defaultdict(list)
    for group, names in members.items():
        strata[(family_of[names[0]], any(name in uploaded for name in names))].append(group)
    held_out: set[str] = set()
    for groups in strata.values():
        total = sum(len(members[group]) for group in groups)
        taken = 0
        for group in sorted(groups, key=_sha):
            if taken >= VALIDATION_SHARE * total:
                break
            held_out.add(group)
            taken += len(members[group])
    guarded = _guarded(sources, {source for source in sources if group_of[source] in held_out}) | wrong
    return {source: {"split": "excluded" if source in wrong else "val" if group_of[source] in held_out else
                     "excluded" if source in guarded else "train",
                     "group": group_of[source], "family": family_of[source]}
            for source in sources}


def _guarded(sources: list[str], validation: set[str]) -> set[str]:
    """Training sources of a numbered series within :data:`SERIES_GUARD` of a held-out number."""
    held: dict[str, list[int]] = defaultdict(list)
    for source in validation:
        if numbered := _series_number(source):
            held[numbered[0]].append(numbered[1])
    guarded = set()
    for source in sources:
        numbered = _series_number(source)
        if source in validation or numbered is None:
            continue
        name, number = numbered
        if any(abs(number - other) <= SERIES_GUARD for other in held.get(name, ())):
            guarded.add(source)
    return guarded


@dataclass(frozen=True)
class RoboflowSplit:
    """The committed split: each source's part, photo group and family, and which augmented
    copies show mirrored faces (image file name -> True, False, or None: the test could not tell), as
    ``scripts/split_roboflow.py`` found."""

    sources: dict[str, dict[str, str]]
    mirrored: dict[str, bool | None]

    def part(self, source: str) -> str:
        entry = self.sources.get(source)
        if entry is None:
            raise InputError(f"source {source!r} is not in the roboflow-chinese split file")
        return entry["split"]

    def family(self, source: str) -> str:
        return self.sources[source]["family"]

    def group(self, source: str) -> str:
        return self.sources[source]["group"]

    def images(self, images: Iterable[RoboflowImage], part: str) -> list[RoboflowImage]:
        return [image for image in images if self.part(image.source) == part]

    def unmirrored(self, image: RoboflowImage) -> bool:
        """An as-uploaded copy, or an augmented one the mirror test found unmirrored."""
        return not image.augmented or self.mirrored.get(image.path.name) is False


def read_split(path: Path = SPLIT_PATH) -> RoboflowSplit:
    """The committed split file; a clear error when it is missing or malformed."""
    if not path.is_file():
        raise InputError(f"no roboflow-chinese split file at {path} (run scripts/split_roboflow.py)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        mirrored = {str(k): None if v is None else bool(v) for k, v in data["mirrored"].items()}
        return RoboflowSplit(dict(data["sources"]), mirrored)
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise InputError(f"{path} is not a roboflow-chinese split file: {error}") from error
