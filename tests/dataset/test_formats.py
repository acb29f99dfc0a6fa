"""YOLO and COCO exporters/readers round-trip the labels; the loader finds every format; stats and
preview work on real and synthetic data."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from shared_data import require_shared_data

from scoring.errors import InputError
from vision.dataset.coco import read_coco
from vision.dataset.formats import detect_format, export_dataset, load_dataset
from vision.dataset.manifest import ManifestRecord, TileLabel, read_manifest, write_manifest
from vision.dataset.paths import shared_data_dir
from vision.dataset.preview import contact_sheet, write_png
from vision.dataset.stats import dataset_stats, format_stats, image_look
from vision.dataset.yolo import parse_names, read_yolo

TABLE_PHOTOS = shared_data_dir() / "table-photos"


@pytest.fixture()
def small_dataset(tmp_path: Path) -> Path:
    """Two images with tiles of every kind of label (face, back, sideways, quad, group, role)."""
    folder = tmp_path / "src"
    (folder / "images").mkdir(parents=True)
    records = []
    for index in range(2):
        image = np.full((120, 160, 3), 90 + index * 40, np.uint8)
        cv2.imwrite(str(folder / "images" / f"{index}.jpg"), image)
        records.append(ManifestRecord(
            image=f"images/{index}.jpg", width=160, height=120,
            tiles=[TileLabel("5p", (10, 10, 40, 50), quad=((10, 10), (40, 10), (40, 50), (10, 50)), group=0,
                             role="concealed"),
                   TileLabel("back", (50, 10, 80, 50), face_down=True, group=1, role="concealed_kong",
                             extra={"face": "9p", "visible": 0.8}),
                   TileLabel("7z", (90, 20, 140, 50), rotated=True, group=0, role="winning")],
            hand={"concealed": ["7z"], "melds": [], "flowers": [], "winning_tile": "7z"}, split="train"))
    write_manifest(folder / "manifest.jsonl", records)
    return folder


def test_yolo_round_trip_keeps_codes_and_boxes(small_dataset: Path, tmp_path: Path) -> None:
    records, anchor = load_dataset(small_dataset)
    written = export_dataset(records, anchor, tmp_path / "yolo", "yolo")
    assert written.name == "data.yaml"
    assert detect_format(tmp_path / "yolo")[0] == "yolo"
    back = read_yolo(tmp_path / "yolo")
    assert len(back) == 2
    for original, copy in zip(records, back, strict=True):
        assert [t.code for t in copy.tiles] == [t.code for t in original.tiles]
        for a, b in zip(original.tiles, copy.tiles, strict=True):
            assert np.allclose(a.box, b.box, atol=0.01)
        assert copy.tiles[1].face_down
        assert (tmp_path / "yolo" / copy.image).is_file()


def test_coco_round_trip_keeps_flags_quads_groups_and_hand(small_dataset: Path, tmp_path: Path) -> None:
    records, anchor = load_dataset(small_dataset)
    export_dataset(records, anchor, tmp_path / "coco", "coco")
    back, coco_anchor = load_dataset(tmp_path / "coco")
    assert coco_anchor.name == "annotations.json"
    for original, copy in zip(records, back, strict=True):
        assert copy.hand == original.hand and copy.split == "train"
        for a, b in zip(original.tiles, copy.tiles, strict=True):
            keys = ("code", "rotated", "face_down", "group", "role")
            assert [getattr(a, k) for k in keys] == [getattr(b, k) for k in keys]
            assert np.allclose(a.box, b.box, atol=0.01)
            assert (a.quad is None) == (b.quad is None)
            assert a.extra == b.extra


def test_manifest_export_copies_images_and_labels(small_dataset: Path, tmp_path: Path) -> None:
    records, anchor = load_dataset(small_dataset)
    export_dataset(records, anchor, tmp_path / "copy", "manifest", link=True)
    copied = read_manifest(tmp_path / "copy" / "manifest.jsonl")
    assert [r.tiles for r in copied] == [r.tiles for r in records]
    assert all((tmp_path / "copy" / r.image).exists() for r in copied)


def test_export_refuses_its_own_folder_and_unknown_formats(small_dataset: Path, tmp_path: Path) -> None:
    records, anchor = load_dataset(small_dataset)
    with pytest.raises(InputError, match="must differ"):
        export_dataset(records, anchor, small_dataset, "yolo")
    with pytest.raises(InputError, match="unknown format"):
        export_dataset(records, anchor, tmp_path / "x", "voc")


def test_loader_rejects_what_it_cannot_read(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        load_dataset(tmp_path / "missing")
    with pytest.raises(InputError, match="no manifest.jsonl"):
        load_dataset(tmp_path)
    (tmp_path / "notes.json").write_text('{"a": 1}', encoding="utf-8")
    with pytest.raises(InputError):
        load_dataset(tmp_path / "notes.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"images": [{"id": 1}]}', encoding="utf-8")
    with pytest.raises(InputError, match="malformed image"):
        read_coco(bad)


@pytest.mark.parametrize(
    ("text", "names"),
    [("names: ['a', 'b c']\n", ["a", "b c"]),
     ("nc: 2\nnames:\n  - 1m\n  - '2m'\n", ["1m", "2m"]),
     ("names:\n  0: 5p\n  1: back\nother: 1\n", ["5p", "back"])],
)
def test_parse_yolo_names(text: str, names: list[str]) -> None:
    assert parse_names(text) == names


def test_reads_the_shared_table_photos_as_unknown_tiles() -> None:
    require_shared_data("table-photos")
    records, _ = load_dataset(TABLE_PHOTOS)
    assert len(records) == 158
    stats = dataset_stats(records)
    assert stats.tiles > 1000
    assert stats.classes["unknown"] == stats.tiles  # the upstream class ids are garbled
    assert stats.problems == 0


def test_stats_and_preview(small_dataset: Path, tmp_path: Path) -> None:
    records, anchor = load_dataset(small_dataset)
    stats = dataset_stats(records)
    data = stats.to_json()
    assert data["classes"] == {"5p": 2, "7z": 2, "back": 2}
    assert data["layout"]["sideways"] == 2 and data["layout"]["face_down"] == 2
    assert "missing classes" in format_stats(stats)
    assert data["box_fraction"]["hand_width_median"] > 0
    look = image_look(records, anchor, 5)
    assert look["images"] == 2 and 80 < look["brightness_v"] < 140 and look["colourfulness_s"] == 0
    assert image_look(records, anchor, 0) == {}
    json.dumps(data)
    sheet = contact_sheet(records, anchor, columns=3, cell_width=200)
    assert sheet.shape[1] == 3 * 204
    # The label outline is drawn in the concealed colour where the box edge is.
    path = write_png(tmp_path / "sheet.png", sheet)
    assert cv2.imread(str(path)).shape == sheet.shape
    with pytest.raises(InputError, match="PNG"):
        write_png(tmp_path / "sheet.jpg", sheet)
