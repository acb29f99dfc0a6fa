"""The scripted table video: tiles appear on schedule, the hand covers tiles, the light changes."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.live.scenario import Script, TableScene, compose, script_frames, tile_masks, write_video


def toy_scene(n: int = 6) -> TableScene:
    empty = np.full((240, 320, 3), (60, 110, 40), np.uint8)
    full = empty.copy()
    quads = []
    for i in range(n):
        x = 20 + i * 40
        quads.append(np.array([[x, 100], [x + 34, 100], [x + 34, 146], [x, 146]], float))
        cv2.rectangle(full, (x, 100), (x + 34, 146), (230, 240, 245), -1)
    return TableScene(full, empty, tuple(quads), tuple(range(n)), {})


def tiles_visible(scene: TableScene, image: np.ndarray) -> list[bool]:
    return [bool(image[123, int(quad[0][0]) + 17].min() > 140) for quad in scene.quads]  # ivory, not skin


def test_compose_shows_only_the_chosen_tiles():
    scene = toy_scene()
    image = compose(scene, tile_masks(scene), [0, 2])
    assert tiles_visible(scene, image) == [True, False, True, False, False, False]


def test_tiles_appear_on_schedule_and_the_hand_covers_them():
    scene = toy_scene()
    script = Script(fps=10, lead_in=0.5, tile_interval=0.3, hold=1.0, sweep=1.0, tail=1.0)
    frames, times = script_frames(scene, script)
    frames = list(frames)
    assert len(frames) == round(times.end * 10)
    assert times.last_tile == 0.5 + 5 * 0.3
    assert sum(tiles_visible(scene, frames[4])) == 0  # t = 0.4
    assert sum(tiles_visible(scene, frames[5])) == 1  # t = 0.5: first tile down
    assert sum(tiles_visible(scene, frames[20])) == 6  # t = 2.0: all down
    start, end = times.hand_over
    covered = [6 - sum(tiles_visible(scene, frames[i])) for i in range(round(start * 10), round(end * 10))]
    assert max(covered) >= 2
    before = frames[round(times.light_change * 10) - 1].astype(int).mean()
    after = frames[round(times.light_change * 10)].astype(int).mean()
    assert after < 0.85 * before


def test_write_video_round_trips(tmp_path: Path):
    scene = toy_scene(3)
    frames, times = script_frames(scene, Script(fps=10, hold=0.5, sweep=0.5, tail=0.5))
    path = tmp_path / "scene.avi"
    written = write_video(path, frames, times.fps)
    capture = cv2.VideoCapture(str(path))
    assert int(capture.get(cv2.CAP_PROP_FRAME_COUNT)) == written == round(times.end * 10)
    capture.release()


def test_clearing_the_table_leaves_it_empty():
    scene = toy_scene()
    frames, times = script_frames(scene, Script(fps=10, hold=0.5, sweep=0.5, tail=1.0, clear_after=1.0))
    frames = list(frames)
    assert times.cleared == times.light_change + 1.0
    assert sum(tiles_visible(scene, frames[round(times.cleared * 10) - 1])) == 6
    assert sum(tiles_visible(scene, frames[round(times.cleared * 10)])) == 0
    assert len(frames) == round((times.cleared + 1.0) * 10)
