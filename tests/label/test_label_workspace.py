"""The workspace: every change is one atomic manifest write, undoable, and nothing else is lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from label_helpers import seed_labels
from PIL import Image

from scoring.errors import InputError
from vision.dataset.manifest import ManifestRecord, TileLabel, read_manifest, write_manifest
from vision.label.workspace import LabelWorkspace, StaleEditError, upright_size


def edit_of(record: ManifestRecord, **changes) -> dict:
    return {"tiles": [t.to_json() for t in record.tiles], "reviewed": False, "context": {}, **changes}


def test_folder_lists_images_and_ignores_the_sidecar(photo_dir: Path) -> None:
    (photo_dir / ".taicam-label").mkdir()
    (photo_dir / ".taicam-label" / "x.jpg").write_bytes(b"not listed")
    (photo_dir / "notes.txt").write_text("not an image")
    workspace = LabelWorkspace(photo_dir)
    assert workspace.keys == ["images/table0.jpg", "images/table1.jpg", "images/table2.jpg"]
    assert workspace.image_size(1) == (640, 640)


def test_save_changes_one_record_and_keeps_every_other_key(photo_dir: Path) -> None:
    seed_labels(photo_dir)
    foreign = ManifestRecord(image="elsewhere/gone.jpg", width=10, height=10,
                             tiles=[TileLabel(code="1z", box=(1, 1, 5, 5))])
    records = read_manifest(photo_dir / "manifest.jsonl")
    write_manifest(photo_dir / "manifest.jsonl", [foreign, *records])
    workspace = LabelWorkspace(photo_dir)
    record = workspace.record(0)
    edit = edit_of(record)
    edit["tiles"][0]["code"] = "7z"
    workspace.save(0, edit, base_revision=0)

    saved = read_manifest(photo_dir / "manifest.jsonl")
    assert [r.image for r in saved] == ["elsewhere/gone.jpg", "images/table0.jpg"]
    assert saved[0].to_json() == foreign.to_json()  # a record for a missing photo is kept verbatim
    assert [t.code for t in saved[1].tiles] == ["7z", "2m", "3m", "5p", "5p", "5p"]
    assert saved[1].source == "import" and saved[1].extra == {"note": "kept"}
    assert saved[1].tiles[0].source_label == "up0"
    assert workspace.revision(0) == 1


def test_undo_and_redo_walk_the_saved_history(photo_dir: Path) -> None:
    workspace = LabelWorkspace(photo_dir)
    box = [10, 10, 50, 60]
    workspace.save(1, {"tiles": [{"code": "1p", "box": box}]}, 0)
    workspace.save(1, {"tiles": [{"code": "2p", "box": box}]}, 1)

    def codes() -> list[str]:
        lines = (photo_dir / "manifest.jsonl").read_text().splitlines()
        return [tile["code"] for line in lines for tile in json.loads(line)["tiles"]]

    assert codes() == ["2p"]
    assert workspace.undo(1) and codes() == ["1p"]
    assert workspace.undo(1) and codes() == []  # before the first save: no record at all
    assert not workspace.undo(1)
    assert workspace.redo(1) and codes() == ["1p"]
    workspace.save(1, {"tiles": [{"code": "3p", "box": box}]}, workspace.revision(1))
    assert not workspace.redo(1)  # a new change ends the redo branch
    assert codes() == ["3p"]


def test_stale_revision_is_refused(photo_dir: Path) -> None:
    workspace = LabelWorkspace(photo_dir)
    workspace.save(0, {"tiles": []}, 0)
    with pytest.raises(StaleEditError):
        workspace.save(0, {"tiles": [{"code": "1p", "box": [1, 1, 9, 9]}]}, 0)


@pytest.mark.parametrize("tiles, message", [
    ([{"code": "9x", "box": [1, 1, 9, 9]}], "unknown tile code"),
    ([{"code": "1p", "box": [9, 1, 1, 9]}], "empty"),
    ([{"code": "1p", "box": [1, 1, 9, 9], "role": "boss"}], "role"),
    ("not a list", "list"),
])
def test_bad_edits_are_refused_and_the_manifest_is_untouched(photo_dir: Path, tiles, message) -> None:
    seed_labels(photo_dir)
    before = (photo_dir / "manifest.jsonl").read_bytes()
    workspace = LabelWorkspace(photo_dir)
    with pytest.raises(InputError, match=message):
        workspace.save(0, {"tiles": tiles}, None)
    assert (photo_dir / "manifest.jsonl").read_bytes() == before


def test_manifest_elsewhere_stores_paths_relative_to_itself(photo_dir: Path, tmp_path: Path) -> None:
    manifest = tmp_path / "labels" / "real.jsonl"
    workspace = LabelWorkspace(photo_dir, manifest)
    workspace.save(2, {"tiles": [{"code": "8s", "box": [1, 2, 30, 40]}], "reviewed": True}, 0)
    (record,) = read_manifest(manifest)
    assert record.image == "../photos/images/table2.jpg" and record.reviewed is True
    assert LabelWorkspace(photo_dir, manifest).record(2).tiles[0].code == "8s"  # found again on restart


def test_missing_folder_and_malformed_manifest_are_input_errors(photo_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a folder"):
        LabelWorkspace(tmp_path / "nope")
    (photo_dir / "manifest.jsonl").write_text('{"image": "images/table0.jpg", "width": 0}\n')
    with pytest.raises(InputError, match="manifest.jsonl:1"):
        LabelWorkspace(photo_dir)


def test_sizes_are_those_of_the_upright_photo(tmp_path: Path) -> None:
    """A phone photo stored sideways with an EXIF turn: boxes are in the upright picture's pixels."""
    folder = tmp_path / "exif"
    folder.mkdir()
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise to display
    Image.new("RGB", (400, 300), "green").save(folder / "phone.jpg", exif=exif)
    assert upright_size(folder / "phone.jpg") == (300, 400)
    (folder / "empty.jpg").write_bytes(b"")
    workspace = LabelWorkspace(folder)
    assert workspace.image_size(workspace.index_of("phone.jpg")) == (300, 400)
    with pytest.raises(InputError, match="empty.jpg: the file is empty"):
        workspace.image_size(workspace.index_of("empty.jpg"))


def test_moving_boxes_keeps_a_hand_the_labels_cannot_rebuild(photo_dir: Path) -> None:
    """A synthetic scene's hand knows the face of a kong laid face-down; editing a box must not lose it."""
    tiles = [TileLabel(code="back", box=(10 + 20 * i, 10, 28 + 20 * i, 34), face_down=True, group=1,
                       role="concealed_kong") for i in range(4)]
    hand = {"concealed": ["1m"], "melds": [{"kind": "kong", "tiles": ["7z"] * 4, "concealed": True}],
            "flowers": [], "winning_tile": "1m", "context": {"self_drawn": True}}
    write_manifest(photo_dir / "manifest.jsonl",
                   [ManifestRecord(image="images/table0.jpg", width=640, height=640, tiles=tiles, hand=hand)])
    workspace = LabelWorkspace(photo_dir)
    edit = edit_of(workspace.record(0), context={"self_drawn": True, "seat_wind": "2z"})
    edit["tiles"][0]["box"] = [12, 12, 30, 36]
    workspace.save(0, edit, 0)
    saved = read_manifest(photo_dir / "manifest.jsonl")[0].hand
    assert saved == {**hand, "context": {"self_drawn": True, "seat_wind": "2z"}}


def test_a_manifest_changed_by_another_program_is_not_overwritten(photo_dir: Path) -> None:
    seed_labels(photo_dir)
    workspace = LabelWorkspace(photo_dir)
    workspace.save(0, edit_of(workspace.record(0)), 0)
    # Someone else's tool rewrites the manifest while the page is open.
    theirs = [*read_manifest(photo_dir / "manifest.jsonl"),
              ManifestRecord(image="images/table2.jpg", width=640, height=640, source="other tool")]
    write_manifest(photo_dir / "manifest.jsonl", theirs)
    before = (photo_dir / "manifest.jsonl").read_bytes()
    with pytest.raises(InputError, match="changed by another program"):
        workspace.save(1, {"tiles": [{"code": "1p", "box": [1, 1, 9, 9]}]}, 0)
    assert (photo_dir / "manifest.jsonl").read_bytes() == before
    assert workspace.record(1) is None and workspace.revision(1) == 0
    assert LabelWorkspace(photo_dir).record(2).source == "other tool"  # a restart picks it up


def test_links_leading_out_of_the_folder_are_not_listed(photo_dir: Path, tmp_path: Path) -> None:
    outside = tmp_path / "private.jpg"
    outside.write_bytes((photo_dir / "images" / "table0.jpg").read_bytes())
    (photo_dir / "images" / "sneaky.jpg").symlink_to(outside)
    (photo_dir / "images" / "alias.jpg").symlink_to(photo_dir / "images" / "table1.jpg")
    assert LabelWorkspace(photo_dir).keys == ["images/alias.jpg", "images/table0.jpg", "images/table1.jpg",
                                              "images/table2.jpg"]
