"""The roboflow-chinese split: groups by a fixed rule, never straddling parts, and the committed file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.errors import InputError
from vision.dataset.roboflow import (
    SERIES_GUARD,
    SPLIT_PATH,
    RoboflowImage,
    RoboflowTile,
    load_roboflow,
    make_split,
    mislabelled,
    photo_group,
    read_split,
    roboflow_dir,
)


def test_groups_follow_the_naming_rule() -> None:
    assert photo_group("IMG_20231222_153012_jpg") == photo_group("IMG_20231222_160101_jpg") == "date-20231222"
    assert photo_group("IMG_20231224_100000_jpg") != photo_group("IMG_20231222_100000_jpg")
    assert photo_group("hand_021_jpg") == photo_group("hand_039_jpg") == "hand-0020"
    assert photo_group("hand_040_jpg") == "hand-0040"
    assert photo_group("IMG_2761_JPG") == "IMG-2760"
    assert photo_group("367362342_966412384458625_1506370883166840771_n_jpg") == "upload-367M"
    assert photo_group("Screenshot-2023-10-24-at-22-29-11-2x_png_jpg") == "screenshot-2023-10-24"
    assert photo_group("2aGXQnBH5SHRuF2LqyrkpYxAIOY3vY_jpg") == "web-2aGXQnBH5SHRuF2LqyrkpYxAIOY3vY_jpg"


def _images(sources: list[str], uploaded: set[str]) -> list[RoboflowImage]:
    images = []
    for source in sources:
        images.append(RoboflowImage(Path(f"{source}-a.jpg"), source, True, ()))
        if source in uploaded:
            images.append(RoboflowImage(Path(f"{source}-v.jpg"), source, False, ()))
    return images


def test_a_group_is_never_split_and_neighbours_of_held_out_numbers_are_left_out() -> None:
    sources = [f"hand_{n:03d}_jpg" for n in range(100)] + [f"IMG_202311{d:02d}_1200{s}_jpg"
                                                           for d in range(1, 29) for s in range(3)]
    split = make_split(_images(sources, {sources[0], sources[150]}))
    parts: dict[str, set[str]] = {}
    for entry in split.values():
        parts.setdefault(entry["group"], set()).add(entry["split"] if entry["split"] == "val" else "not-val")
    assert all(len(found) == 1 for found in parts.values())
    assert {entry["split"] for entry in split.values()} == {"train", "val", "excluded"}
    held = {int(s[5:8]) for s, e in split.items() if s.startswith("hand") and e["split"] == "val"}
    for source, entry in split.items():
        if source.startswith("hand") and entry["split"] == "train":
            assert all(abs(int(source[5:8]) - n) > SERIES_GUARD for n in held)
    assert split == make_split(_images(sorted(sources, reverse=True), {sources[0], sources[150]}))


def test_more_of_one_face_than_a_set_holds_marks_an_image_mislabelled() -> None:
    def image(codes: list[str]) -> RoboflowImage:
        return RoboflowImage(Path("x.jpg"), "IMG_2780_JPG", False,
                             tuple(RoboflowTile(code, (0, 0, 10, 10)) for code in codes))

    assert mislabelled(image(["1p"] * 14))
    assert not mislabelled(image(["1p"] * 4 + ["2p"] * 4))
    assert not mislabelled(image(["1p"] * 5 + [f"{n}s" for n in range(1, 10)] * 2))  # two sets in a grid
    split = make_split([image(["1p"] * 14), RoboflowImage(Path("y.jpg"), "hand_001_jpg", False, ())])
    assert split["IMG_2780_JPG"]["split"] == "excluded"


@pytest.mark.skipif(not (roboflow_dir() / "manifest.jsonl").is_file(),
                    reason="needs ../shared/data/roboflow-chinese")
def test_the_committed_split_is_the_rule_applied_to_the_data() -> None:
    images = load_roboflow()
    committed = read_split()
    assert committed.sources == make_split(images)
    augmented = {image.path.name for image in images if image.augmented}
    assert set(committed.mirrored) == augmented


def test_a_missing_or_malformed_split_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no roboflow-chinese split file"):
        read_split(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"sources": []}))
    with pytest.raises(InputError, match="not a roboflow-chinese split file"):
        read_split(bad)


def test_the_split_file_is_committed() -> None:
    assert SPLIT_PATH.is_file()
