"""The page's proposals and the review's disagreements with the real shipped ONNX models.

Skipped where ``models/`` (or ``$TAICAM_MODELS``) has no model yet; the rest of the tool never
needs one.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest
from label_helpers import real_photos
from shared_data import require_shared_data

from vision.dataset.crops import load_labelled_crops
from vision.dataset.manifest import read_manifest
from vision.label.proposals import ModelBundle, ProposalCache
from vision.label.review import disagreements
from vision.label.seeds import seed_tiles
from vision.label.server import LabelApp
from vision.label.workspace import LabelWorkspace
from vision.photo_benchmark import far_off

MODELS = ModelBundle()


@pytest.fixture
def crop_folder(tmp_path: Path) -> tuple[Path, list]:
    """Real single-tile photos from the held-out sets, one per code, in ``tmp/crops``."""
    require_shared_data("crops-labelled")
    crops = load_labelled_crops(split="val")
    one_each = list({crop.code: crop for crop in crops}.values())[:24]
    folder = tmp_path / "crops"
    folder.mkdir()
    for number, crop in enumerate(one_each):  # names sort in this order: photo i is crop i
        shutil.copy(crop.path, folder / f"{number:03d}.jpg")
    return folder, one_each


@pytest.mark.skipif(not MODELS.has_classifier, reason="no classifier model in models/ yet")
def test_model_readings_are_cached_and_catch_a_wrong_label(crop_folder) -> None:
    folder, crops = crop_folder
    workspace = LabelWorkspace(folder)
    cache = ProposalCache(workspace.sidecar_dir, MODELS)
    for index, crop in enumerate(crops):  # a person labelled each whole crop
        width, height = workspace.image_size(index)
        workspace.save(index, {"tiles": [{"code": crop.code, "box": [0, 0, width, height]}]}, 0)
    read = [cache.readings(workspace.key(i), workspace.image_file(i), workspace.record(i).tiles)[0]
            for i in range(len(crops))]
    for reading in read:  # top-5, best first, calibrated probabilities
        assert len(reading) == 5 and reading[0][1] >= reading[1][1] >= reading[4][1]
        assert 0 < sum(p for _, p in reading) <= 1.0001
    sure = [i for i, (reading, crop) in enumerate(zip(read, crops, strict=True))
            if reading[0][0] == crop.code and reading[0][1] >= 0.5]
    assert len(sure) >= 3, "the shipped classifier reads fewer than 3 of these held-out crops surely"

    wrong = sure[0]  # now a label mistake: the review must point at exactly this tile
    edit = {"tiles": [{"code": "9s" if crops[wrong].code != "9s" else "1m",
                       "box": list(workspace.record(wrong).tiles[0].box)}]}
    workspace.save(wrong, edit, workspace.revision(wrong))
    rows = disagreements(workspace, cache)
    flagged = {row["index"] for row in rows if row["kind"] == "code"}  # (a detector adds box rows)
    assert wrong in flagged and not flagged & set(sure[1:])
    row = next(r for r in rows if r["index"] == wrong)
    assert row["model"] == crops[wrong].code and row["kind"] == "code"
    assert list(workspace.sidecar_dir.glob("proposals/*.json"))  # cached beside the manifest
    assert not any(".taicam-label" in r.image for r in read_manifest(workspace.manifest_path))


@pytest.mark.skipif(not MODELS.has_classifier, reason="no classifier model in models/ yet")
def test_yolo_boxes_get_the_classifiers_codes_and_top_k(tmp_path: Path) -> None:
    photo = real_photos(1)[0]
    labels = photo.parent.parent / "labels" / f"{photo.stem}.txt"
    folder = tmp_path / "rack"
    (folder / "images").mkdir(parents=True)
    (folder / "labels").mkdir()
    shutil.copy(photo, folder / "images" / photo.name)
    boxes = [line.split()[1:] for line in labels.read_text().splitlines() if line.strip()]
    (folder / "labels" / labels.name).write_text("".join(f"0 {' '.join(box)}\n" for box in boxes))
    (folder / "data.yaml").write_text("names: ['tile']\n")  # boxes known, codes not
    classifier_only = tmp_path / "models"  # with a detector the proposals would come from it
    classifier_only.mkdir()
    for name in ("classifier.onnx", "classifier.labels.json"):
        (classifier_only / name).symlink_to(MODELS.paths["classifier"].with_name(name))
    workspace = LabelWorkspace(folder)
    app = LabelApp(workspace, ProposalCache(workspace.sidecar_dir, ModelBundle(classifier_only)))
    state = app.image_state(0)
    assert state["source"] == "yolo" and state["tiles"]
    assert len(state["tiles"]) == len(boxes)
    for tile in state["tiles"]:  # the classifier proposes each code, the YOLO name is kept
        assert len(tile["candidates"]) == 5 and tile["code"] == tile["candidates"][0][0]
        assert tile["source_label"] == "tile"


@pytest.mark.skipif(not MODELS.has_detector, reason="no detector model in models/ yet")
def test_detector_proposes_tiles_for_an_unlabelled_photo(tmp_path: Path) -> None:
    folder = tmp_path / "photos"
    folder.mkdir()
    shutil.copy(real_photos(1)[0], folder / "table.jpg")
    workspace = LabelWorkspace(folder)
    cache = ProposalCache(workspace.sidecar_dir, MODELS)
    tiles, source = seed_tiles(workspace, cache, 0)
    assert source == "detector" and tiles
    for tile in tiles:
        x1, y1, x2, y2 = tile["box"]
        assert 0 <= x1 < x2 <= 640 and 0 <= y1 < y2 <= 640
        assert tile["face_down"] if tile["code"] == "back" else not tile.get("face_down")
    assert seed_tiles(workspace, cache, 0) == (tiles, source)  # second time from the sidecar cache
    assert not (folder / "manifest.jsonl").exists()  # proposals are never written as labels


@pytest.mark.skipif(not MODELS.has_detector, reason="no detector model in models/ yet")
def test_proposals_for_a_hand_far_off_in_a_big_photo_come_from_a_closer_look(tmp_path) -> None:
    """A phone photo of the whole table: the bundled photo from above, four times its size with the
    hand in the middle. The detector alone at its input size finds a few tiles; the page proposes
    every tile of the close photo."""
    near = cv2.imread(str(Path(__file__).resolve().parents[2] / "datasets/samples/hand-overhead.jpg"))
    width = near.shape[1]
    folder = tmp_path / "photos"
    folder.mkdir()
    cv2.imwrite(str(folder / "far.jpg"), far_off(near, 4), [cv2.IMWRITE_JPEG_QUALITY, 92])
    workspace = LabelWorkspace(folder)
    cache = ProposalCache(workspace.sidecar_dir, MODELS)
    proposed = cache.detections(workspace.key(0), workspace.image_file(0))
    assert len(proposed) == len(MODELS.detect(near))
    xs = np.array([(tile["box"][0] + tile["box"][2]) / 2 for tile in proposed])
    assert (xs > 3 * width // 2).all() and (xs < 3 * width // 2 + width).all()
