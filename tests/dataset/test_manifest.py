"""The manifest round-trips every key, rejects malformed lines with a clear reason, writes atomically."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shared_data import require_shared_data

from scoring.errors import InputError
from vision.dataset.manifest import (
    ManifestRecord,
    TileLabel,
    image_path,
    quad_to_box,
    read_manifest,
    record_problems,
    write_manifest,
)
from vision.dataset.paths import shared_data_dir

SHARED_CROPS = shared_data_dir() / "crops-labelled" / "manifest.jsonl"


def _record() -> ManifestRecord:
    return ManifestRecord(
        image="images/0.jpg",
        width=640,
        height=480,
        tiles=[
            TileLabel(code="5p", box=(10, 20, 50, 75.5), quad=((10, 20), (50, 20), (50, 75.5), (10, 75.5)),
                      group=0, role="concealed"),
            TileLabel(code="back", box=(60, 20, 100, 75), face_down=True, group=1, role="concealed_kong",
                      extra={"face": "9p"}),
            TileLabel(code="3m", box=(110, 30, 170, 70), rotated=True, group=2, role="winning"),
        ],
        hand={"concealed": ["1m"], "melds": [], "flowers": [], "winning_tile": "1m"},
        split="train",
        set_id="synth:uni",
        source="synth",
        reviewed=False,
        extra={"seed": 7},
    )


def test_round_trip_keeps_every_key(tmp_path: Path) -> None:
    path = tmp_path / "manifest.jsonl"
    write_manifest(path, [_record(), _record()])
    records = read_manifest(path)
    assert len(records) == 2
    assert records[0] == _record()
    line = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert line["tiles"][1]["face"] == "9p"
    assert line["seed"] == 7
    assert "rotated" not in line["tiles"][0]  # defaults are not written


def test_reads_the_shared_crops_manifest() -> None:
    require_shared_data("crops-labelled", "manifest.jsonl")
    records = read_manifest(SHARED_CROPS)
    assert len(records) == 700
    assert all(len(r.tiles) == 1 for r in records)
    assert any(r.extra.get("corrected") for r in records)
    assert image_path(records[0], SHARED_CROPS).exists()


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("{not json", "not valid JSON"),
        ('{"image": "a.jpg", "width": 10, "height": 10, "tiles": [{"code": "10m", "box": [0,0,1,1]}]}',
         "unknown tile code"),
        ('{"image": "a.jpg", "width": 10, "height": 10, "tiles": [{"code": "1m", "box": [5,0,1,1]}]}',
         "empty"),
        ('{"image": "a.jpg", "width": 0, "height": 10, "tiles": []}', "positive integer"),
        ('{"image": "a.jpg", "width": 10, "height": 10, "tiles": [{"code": "1m", "box": [0,0,1]}]}',
         "box must be"),
        ('{"image": "a.jpg", "width": 10, "height": 10, "tiles": [], "split": "later"}', "unknown split"),
        ('{"image": "a.jpg", "width": 10, "height": 10, "tiles": [{"code": "1m", "box": [0,0,1,1], '
         '"role": "boss"}]}', "unknown tile role"),
    ],
)
def test_malformed_lines_name_file_line_and_reason(tmp_path: Path, line: str, reason: str) -> None:
    path = tmp_path / "m.jsonl"
    good = '{"image": "b.jpg", "width": 10, "height": 10, "tiles": []}'
    path.write_text(good + "\n\n" + line + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=reason) as info:
        read_manifest(path)
    assert ":3:" in str(info.value)


def test_missing_manifest_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read manifest"):
        read_manifest(tmp_path / "nope.jsonl")


def test_failed_write_leaves_old_file_intact(tmp_path: Path) -> None:
    path = tmp_path / "manifest.jsonl"
    write_manifest(path, [_record()])
    before = path.read_bytes()

    def broken():
        yield _record()
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError):
        write_manifest(path, broken())
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["manifest.jsonl"]


def test_record_problems_flags_boxes_outside_and_face_down_mismatch() -> None:
    record = _record()
    assert record_problems(record) == []
    record.tiles[0].box = (600, 20, 700, 80)
    record.tiles[2].face_down = True
    problems = record_problems(record)
    assert len(problems) == 2


def test_quad_to_box() -> None:
    assert quad_to_box([(3, 4), (10, 1), (12, 8), (2, 9)]) == (2, 1, 12, 9)


def test_written_manifest_is_readable_by_others(tmp_path: Path) -> None:
    path = tmp_path / "manifest.jsonl"
    write_manifest(path, [_record()])
    assert path.stat().st_mode & 0o044 == 0o044
    path.chmod(0o640)
    write_manifest(path, [_record()])
    assert path.stat().st_mode & 0o777 == 0o640
