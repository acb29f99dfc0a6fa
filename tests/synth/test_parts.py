"""The renderer's parts: face styles, lens distortion of labels, tile geometry."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from shared_data import require_shared_data

from scoring.tiles import FACE_CODES
from vision.dataset.crops import VALIDATION_SETS
from vision.synth.bodies import Body, tile_axes
from vision.synth.camera import distort_image, distort_points, orbit_camera
from vision.synth.faces import FACE_SIZE, face_styles, fill_missing
from vision.synth.procedural import (
    SetLook,
    available_fonts,
    draw_face,
    draw_flower_number,
    procedural_style,
)


def test_procedural_sets_draw_all_42_distinct_faces() -> None:
    assert len(available_fonts()) >= 4
    style = procedural_style(np.random.default_rng(3), "proc:test")
    faces = [style.faces[code][0] for code in FACE_CODES]
    assert all(face.shape == (FACE_SIZE[1], FACE_SIZE[0], 3) for face in faces)
    # Every face differs from every other (no blank or duplicated drawing).
    for i in range(len(faces)):
        for j in range(i + 1, len(faces)):
            difference = np.abs(faces[i].astype(int) - faces[j].astype(int)).mean()
            assert difference > 2.0, (FACE_CODES[i], FACE_CODES[j])


def test_procedural_flower_pictures_do_not_tell_the_faces_apart() -> None:
    # Only the number and the name may name a flower or season: drawn from the same random state,
    # two faces share their picture (the lower half), so a model cannot learn the picture instead.
    look = SetLook(np.random.default_rng(5))
    plum, spring = (draw_face(code, look, np.random.default_rng(11)) for code in ("1f", "5f"))
    lower = FACE_SIZE[1] // 2
    assert np.array_equal(plum[lower:], spring[lower:])
    assert np.abs(plum[:lower].astype(int) - spring[:lower].astype(int)).mean() > 2.0
    # The number sits left on some faces and right on others, as real sets print it.
    sides = set()
    for seed in range(12):
        face = draw_face("3f", look, np.random.default_rng(seed)).astype(int)
        top = face[: FACE_SIZE[1] // 6]
        ink = np.abs(top - np.median(top, axis=(0, 1))).sum(axis=2) > 60
        sides.add(bool(ink[:, : FACE_SIZE[0] // 2].sum() > ink[:, FACE_SIZE[0] // 2:].sum()))
    assert sides == {True, False}


def test_varied_flower_numbers_keep_the_picture_and_vary_in_size_and_glyph() -> None:
    """The flower model's varied numbers (``--varied-flower-numbers``) still leave the picture alone,
    sit on the side asked for in the top third, and differ in height from face to face."""
    look = SetLook(np.random.default_rng(5))
    plum, spring = (draw_face(code, look, np.random.default_rng(11), varied_numbers=True)
                    for code in ("1f", "5f"))
    lower = FACE_SIZE[1] // 2
    assert np.array_equal(plum[lower:], spring[lower:])
    heights = set()
    for seed in range(16):
        for left in (True, False):
            canvas = np.full((256, 192, 3), 240, np.uint8)
            out = draw_flower_number(canvas, 1 + seed % 4, (30, 30, 200), left, np.random.default_rng(seed))
            rows, columns = np.nonzero(np.abs(out.astype(int) - 240).sum(axis=2) > 60)
            assert len(rows), "a number was drawn"
            assert rows.max() < 256 * 0.36
            assert (columns.mean() < 96) == left
            heights.add(int(rows.max() - rows.min()) // 4)
    assert len(heights) >= 4, heights


def test_a_procedural_flower_can_show_a_given_picture_under_its_own_name_and_number() -> None:
    look = SetLook(np.random.default_rng(5))
    picture = np.zeros((60, 50, 3), np.uint8)
    picture[:, :, 1] = 200  # a green field, easy to find
    plum, spring = (draw_face(code, look, np.random.default_rng(11), picture) for code in ("1f", "5f"))
    height, width = FACE_SIZE[1], FACE_SIZE[0]
    middle = plum[int(height * 0.5):int(height * 0.9), int(width * 0.2):int(width * 0.8)].astype(int)
    assert np.abs(middle - (0, 200, 0)).max() < 30
    top = height // 3
    assert np.abs(plum[:top].astype(int) - spring[:top].astype(int)).mean() > 2.0


def test_training_styles_mix_sources_and_validation_styles_are_held_out_sets() -> None:
    train = face_styles("train")
    kinds = {style.name.split(":")[0] for style in train}
    assert "proc" in kinds
    val = face_styles("val")
    assert all(style.name.removeprefix("crop:") in VALIDATION_SETS for style in val)
    assert not {s.name for s in val} & {s.name for s in train}


def test_missing_faces_are_borrowed_from_another_style() -> None:
    require_shared_data("crops-labelled")  # the styles short of faces are the real crop sets' and art's
    pool = face_styles("train")
    partial = next((s for s in pool if len(s.codes) < len(FACE_CODES)), None)
    assert partial is not None
    missing = next(code for code in FACE_CODES if code not in partial.codes)
    face = fill_missing(partial, missing, pool, np.random.default_rng(0))
    assert face.shape == (FACE_SIZE[1], FACE_SIZE[0], 3)


def test_distorted_labels_follow_the_distorted_image() -> None:
    """A dot drawn at an undistorted position lands where distort_points says (the labels' mapping)."""
    width, height, k1 = 640, 480, 0.12
    rng = np.random.default_rng(0)
    for _ in range(5):
        point = np.array([[rng.uniform(40, 600), rng.uniform(40, 440)]])
        image = np.zeros((height, width, 3), np.uint8)
        cv2.circle(image, tuple(int(round(v)) for v in point[0]), 3, (255, 255, 255), -1)
        distorted = distort_image(image, k1)
        moments = cv2.moments(distorted[:, :, 0].astype(np.float32))
        found = np.array([moments["m10"] / moments["m00"], moments["m01"] / moments["m00"]])
        expected = distort_points(np.round(point), k1, width, height)[0]
        assert np.linalg.norm(found - expected) < 0.6


def test_a_tile_face_projects_inside_its_body_outline_and_faces_the_camera() -> None:
    camera = orbit_camera(np.zeros(3), 600.0, 50.0, -90.0, 0.0, 800.0, 640, 480)
    body = Body(np.array([0.0, 0.0, 10.0]), tile_axes(True, 0.0), (28.0, 37.0, 20.0), (0, 0, 0), (0, 0, 0))
    face, _ = camera.project(body.side_quad(2, 1))
    outline = body.footprint_polygon(camera).reshape(-1, 2).astype(np.float32)
    for x, y in face:
        assert cv2.pointPolygonTest(outline, (float(x), float(y)), True) > -1.0
    # Corner 0 is the face's top-left as read: away from the player (smaller y in the image), at left.
    assert face[0][1] < face[3][1] and face[0][0] < face[1][0]


def test_without_shared_data_training_scenes_use_drawn_sets_and_validation_scenes_refuse(monkeypatch) -> None:
    from scoring.errors import InputError
    from vision.synth import SceneConfig, render_scene
    from vision.synth.faces import load_art_styles, load_crop_styles

    caches = (face_styles, load_crop_styles, load_art_styles)
    monkeypatch.setenv("TAICAM_SHARED_DATA", "/nonexistent/shared-data")
    for cache in caches:
        cache.cache_clear()
    try:
        with pytest.raises(InputError, match="no real tile sets"):
            render_scene(np.random.default_rng(0), SceneConfig(width=320, height=240, split="val"))
        _, record = render_scene(np.random.default_rng(0), SceneConfig(width=320, height=240))
        assert record.set_id.startswith("proc:")
    finally:
        monkeypatch.undo()
        for cache in caches:
            cache.cache_clear()
