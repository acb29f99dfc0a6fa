"""The classifier's data: split by physical set, table-photo labels, copy matching, pseudo-labels."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np
from shared_data import needs_shared_data

from scoring.tiles import FACE_CODES
from vision.dataset.crops import VALIDATION_SETS, load_labelled_crops, set_id_for
from vision.dataset.manifest import TileLabel, read_manifest
from vision.dataset.paths import shared_data_dir
from vision.models.crops import InputSize, crop_detection
from vision.training.classifier_data import (
    SET_PHOTO_FLOWERS_MANIFEST,
    load_sources,
    set_photo_samples,
    table_photo_detection,
)
from vision.training.classifier_labels import (
    MANIFEST_PATH,
    PhotoBoxes,
    group_of,
    is_sideways,
    load_upright,
    match_boxes,
    resolve_image,
    split_for_group,
)
from vision.training.classifier_pseudo import MANIFEST_PATH as PSEUDO_MANIFEST
from vision.training.classifier_pseudo import thumbnails

needs_crops = needs_shared_data("crops-labelled")


@needs_crops
def test_validation_is_whole_physical_sets_covering_every_face() -> None:
    crops = load_labelled_crops()
    splits_of_set: dict[str, set[str]] = defaultdict(set)
    for crop in crops:
        splits_of_set[crop.set_id].add(crop.split)
    assert all(len(splits) == 1 for splits in splits_of_set.values())
    validation = [crop for crop in crops if crop.split == "val"]
    assert {crop.set_id for crop in validation} == VALIDATION_SETS
    assert {crop.code for crop in validation} == set(FACE_CODES)
    assert 0.15 < len(validation) / len(crops) < 0.35


def test_set_runs_and_mixed_groups() -> None:
    assert set_id_for(1) == set_id_for(140) == "mix-web"
    assert set_id_for(183) == set_id_for(224) == "set-183-white-redgreen"
    assert set_id_for(700) == "mix-extra"


def test_table_photo_labels_keep_photo_groups_whole_and_match_the_detector_split() -> None:
    records = read_manifest(MANIFEST_PATH)
    assert len(records) == 158
    split_of_group: dict[str, set[str]] = defaultdict(set)
    for record in records:
        split_of_group[record.set_id].add(record.split)
        assert record.set_id == group_of(Path(record.image).name)
    assert all(len(splits) == 1 for splits in split_of_group.values())
    for group, (split,) in split_of_group.items():
        assert split == split_for_group(group)
        is_detector_val = hashlib.sha1(group.encode()).digest()[0] % 5 == 0
        assert (split == "val") == is_detector_val
    validation = [record for record in records if record.split == "val"]
    assert validation and all(record.reviewed for record in validation)
    labelled = [tile.code for record in validation for tile in record.tiles if tile.code != "unknown"]
    assert len(labelled) >= 0.9 * sum(len(record.tiles) for record in validation)


def test_boxes_reviewed_as_upright_are_wide_and_not_flagged_sideways_in_the_manifest() -> None:
    """The review's ``upright`` entries and the manifest agree: each names a wide box (the only kind
    the box rule would turn), and that tile is not flagged sideways."""
    upright = load_upright()
    assert sum(len(indices) for indices in upright.values()) == 146
    tiles_of = {Path(record.image).name: record.tiles for record in read_manifest(MANIFEST_PATH)}
    for name, indices in upright.items():
        for index in indices:
            tile = tiles_of[name][index]
            assert is_sideways(tuple(tile.box)) and not tile.rotated, (name, index)


def test_a_wide_box_labelled_upright_is_cut_upright_and_a_sideways_one_turned() -> None:
    wide = (100.0, 100.0, 200.0, 160.0)
    upright = table_photo_detection(TileLabel(code="1z", box=wide))
    assert upright.quad is not None
    corners = np.array(upright.quad)
    assert corners[0].tolist() == [corners[:, 0].min(), corners[:, 1].min()]  # top-left first: upright
    assert table_photo_detection(TileLabel(code="1z", box=wide, rotated=True)).quad is None
    assert table_photo_detection(TileLabel(code="1z", box=(100.0, 100.0, 160.0, 200.0))).quad is None
    image = np.zeros((300, 300, 3), np.uint8)
    image[100:130, 100:200] = 255  # the top half of the box white: upright, white stays on top
    crop = crop_detection(image, upright, InputSize(64, 48))
    assert crop[: crop.shape[0] // 3].mean() > 200 and crop[-crop.shape[0] // 3:].mean() < 50


@needs_shared_data("table-photos")
def test_table_photo_images_resolve_to_the_shared_files() -> None:
    record = read_manifest(MANIFEST_PATH)[0]
    assert resolve_image(record).is_file()


def test_box_matching_survives_shift_scale_and_rotation_of_a_copy() -> None:
    rng = np.random.default_rng(5)
    centres = np.array([[60 + 30 * i, 300 + rng.uniform(-3, 3)] for i in range(16)])
    angle = np.deg2rad(17)
    rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    moved = (centres - 320) @ rotation.T * 1.2 + 330
    order = rng.permutation(16)

    def photo(points: np.ndarray) -> PhotoBoxes:
        boxes = [(x - 10, y - 14, x + 10, y + 14) for x, y in points]
        return PhotoBoxes(Path("x.jpg"), 640, 640, boxes, [47] * len(boxes))

    mapping = match_boxes(photo(centres), photo(moved[order]))
    assert mapping is not None
    assert [int(order[j]) for j in mapping] == list(range(16))
    assert match_boxes(photo(centres), photo(moved[:15])) is None


def test_pseudo_labels_are_reviewed_training_crops() -> None:
    records = read_manifest(PSEUDO_MANIFEST)
    assert len(records) == 1050
    labelled = [record for record in records if record.tiles[0].code != "unknown"]
    assert all(record.split == "train" and record.reviewed for record in labelled)
    assert all(not record.reviewed for record in records if record.tiles[0].code == "unknown")


def test_set_photo_flowers_are_eight_distinct_flowers_per_reviewed_photo() -> None:
    records = read_manifest(SET_PHOTO_FLOWERS_MANIFEST)
    assert len(records) == 6 and len({record.set_id for record in records}) == 5
    for record in records:
        assert record.split == "train" and record.reviewed
        assert sorted(tile.code for tile in record.tiles) == [f"{n}f" for n in range(1, 9)]
        for tile in record.tiles:
            x1, y1, x2, y2 = tile.box
            assert 0 <= x1 < x2 <= record.width and 0 <= y1 < y2 <= record.height


@needs_shared_data("set-photos")
def test_set_photo_flowers_are_cut_from_the_photos_and_look_like_no_validation_crop() -> None:
    """The set photos are not the labelled sets' photos; no cut may be a validation tile's twin
    (the pseudo-labels' leak rule), or training on it would flatter the held-out figures."""
    samples = set_photo_samples(SET_PHOTO_FLOWERS_MANIFEST, shared_data_dir(), InputSize(64, 48))
    assert len(samples) == 48 and all(s.source == "set-photo" for s in samples)
    assert all(s.image.shape == (128, 96, 3) and s.image.std() > 20 for s in samples)
    validation = thumbnails([cv2.imread(str(c.path)) for c in load_labelled_crops("val")])
    similarity = thumbnails([s.image for s in samples]) @ validation.T
    assert similarity.max() < 0.92


@needs_crops
def test_set_photo_flowers_join_the_sources_only_when_asked() -> None:
    size = InputSize(64, 48)
    without = load_sources(size=size)
    with_them = load_sources(size=size, set_photo_flowers=True)
    assert not any(s.source == "set-photo" for s in without)
    assert len(with_them) == len(without) + 48
