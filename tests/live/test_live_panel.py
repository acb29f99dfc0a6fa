"""The live picture and snapshots, drawn from real engine updates (real decoder and scoring)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from test_live_engine import HAND, Table

from vision.live.capture import Frame
from vision.live.output import save_snapshot
from vision.live.panel import PanelInfo, draw_live, panel_lines

INFO = PanelInfo(rules="taiwan", processed_fps=12.5, hold_seconds=0.8)


def frame_image() -> np.ndarray:
    image = np.full((480, 800, 3), (40, 110, 50), np.uint8)
    for i in range(len(HAND)):
        x = 20 + 41 * i
        image[100:156, x : x + 40] = (225, 235, 240)
    return image


def texts(update) -> list[str]:
    return [text for text, _ in panel_lines(update, INFO)]


def test_before_the_first_frame():
    image = frame_image()
    drawn = draw_live(image, None, INFO)
    assert drawn.shape == image.shape and not np.array_equal(drawn, image)
    assert any("waiting" in text for text in texts(None))


def test_while_tiles_are_laid_out_the_panel_asks_to_hold_still():
    table = Table()
    for n in range(1, 6):
        table.show(table.row(HAND[:n]), 0.3)
    lines = texts(table.last)
    assert any("hold still" in text for text in lines)
    assert not any(text.startswith("TOTAL") for text in lines)
    drawn = draw_live(frame_image(), table.last, INFO)
    assert drawn.shape == (480, 800, 3)


def test_a_steady_hand_shows_its_groups_and_itemised_score():
    table = Table()
    table.show(table.row(HAND), 2.0)
    update = table.last
    document = update.announced.document
    lines = texts(update)
    assert f"TOTAL {document['score']['total']} tai" in lines
    # How far to trust it, in the photo's own words (never a "reading confidence" share beside them).
    assert document["statement"] in lines and not any("confidence" in text for text in lines)
    assert any(text.startswith("hand: ") and "7p 7p" in text for text in lines)
    for item in document["score"]["items"]:
        assert any(item["name"] in text for text in lines)
    image = frame_image()
    drawn = draw_live(image, update, INFO)
    assert drawn.shape == image.shape
    # The photo overlay outlines the hand's groups around the row: pixels change just outside it.
    assert not np.array_equal(drawn[90:99, 20:700], image[90:99, 20:700])


def test_a_snapshot_saves_the_picture_and_the_reading(tmp_path: Path):
    table = Table()
    table.show(table.row(HAND), 2.0)
    image = frame_image()
    frame = Frame(image=image, index=20, timestamp=2.0, grabbed_at=0.0)
    path = save_snapshot(
        tmp_path / "snaps", frame, draw_live(image, table.last, INFO), table.last, "camera 0", "taiwan"
    )
    files = sorted(p.name for p in (tmp_path / "snaps").iterdir())
    assert len(files) == 3 and not any(name.startswith(".") for name in files)
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["status"] == "steady" and len(document["tiles"]) == len(HAND)
    assert document["announced"]["score"]["total"] == table.last.announced.document["score"]["total"]
