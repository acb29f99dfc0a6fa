"""The annotated picture's tags: none hides another, a tile's face or the banner, and they read on a
phone (the picture shrunk to 400 px wide)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.decode.budget import NO_DEADLINE
from vision.models import models_dir
from vision.report.overlay import OUTPUT_SIDE, PHONE_TEXT, PHONE_WIDTH, label_height_for, tag_layout
from vision.report.tag_places import place_tags, rects_overlap

SAMPLES = Path(__file__).resolve().parents[2] / "datasets" / "samples"
MODELS = ("detector.onnx", "classifier.onnx", "classifier.labels.json")
missing = [name for name in MODELS if not (models_dir() / name).is_file()]
CONTEXT = {"seat_wind": "1z", "round_wind": "2z", "self_drawn": False}


def _assert_clear(tags, boxes, canvas):
    width, height = canvas
    for n, tag in enumerate(tags):
        x1, y1, x2, y2 = tag.rect
        assert 0 <= x1 < x2 <= width and 0 <= y1 < y2 <= height, tag
        for other in tags[n + 1:]:
            assert not rects_overlap(tag.rect, other.rect), (tag, other)
        for box in boxes:
            assert not rects_overlap(tag.rect, box), (tag, box)


def test_tags_along_a_tight_tilted_row_keep_clear_of_each_other_and_the_tiles():
    """Seventeen tiles 40 px wide, each 12 px higher than the last: a tag straight above each one
    would sit on the next tile's face and the next tag."""
    boxes = [(100 + 42 * i, 600 - 12 * i, 140 + 42 * i, 660 - 12 * i) for i in range(17)]
    texts = [f"{i % 9 + 1}m" for i in range(17)]
    texts[8] = "4s win"
    tags = place_tags(texts, [(len(t) * 20 + 6, 40) for t in texts], boxes, [(0, 0, 0)] * 17, boxes,
                      (1280, 960), 4)
    _assert_clear(tags, boxes, (1280, 960))
    # Each tag stays near its tile: within a few tag heights.
    for tag, box in zip(tags, boxes, strict=True):
        centre = np.array([(tag.rect[0] + tag.rect[2]) / 2, (tag.rect[1] + tag.rect[3]) / 2])
        assert np.hypot(*(centre - [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])) < 6 * 40


@pytest.mark.parametrize("width, height", [(1280, 960), (960, 1280), (1600, 1200), (4032, 3024)])
def test_the_label_font_scales_with_the_picture_so_a_phone_can_read_it(width, height):
    assert label_height_for(width, height) * PHONE_WIDTH / width >= PHONE_TEXT


@pytest.fixture(scope="module")
def pipeline():
    from vision.pipeline import PhotoPipeline

    return PhotoPipeline(photo_budget=NO_DEADLINE)


@pytest.mark.skipif(bool(missing), reason=f"shipped models not present: {', '.join(missing)}")
@pytest.mark.parametrize("image", ["hand-busy-table.jpg", "hand-concealed-kong.jpg",
                                   "hand-fully-concealed.jpg"])
def test_no_tag_hides_another_a_tile_or_the_banner_on_a_tilted_or_low_angle_row(pipeline, image):
    """These photos' rows run tilted or seen low: "chow" was drawn under "4s win" and group names
    hidden under tile tags."""
    from vision.imageio import PhotoSource

    result = pipeline.read_photo(SAMPLES / image, context=CONTEXT)
    picture, scale = PhotoSource(SAMPLES / image).image(OUTPUT_SIDE)
    shrink = min(1.0, OUTPUT_SIDE / max(picture.shape[:2]))
    plan = tag_layout(picture.shape, result, shrink * scale)
    canvas = (picture.shape[1], picture.shape[0])
    assert len(plan.tile_tags) == len(result.readings)
    assert len(plan.group_tags) == len(result.decoded.best.groups)
    assert plan.banner_rect is not None
    _assert_clear(plan.tags, plan.tile_boxes + [plan.banner_rect], canvas)
    for tag in plan.tags:  # every tag's text is PHONE_TEXT px tall or more at 400 px wide
        assert (tag.rect[3] - tag.rect[1]) * PHONE_WIDTH / canvas[0] >= PHONE_TEXT
    assert plan.label_height * PHONE_WIDTH / canvas[0] >= PHONE_TEXT
