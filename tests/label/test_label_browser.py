"""End to end in a real headless Chromium (Playwright, Debian's chromium): the page, not the API.

Open a folder of real table photos, correct codes (typed and by alias), move a box, group a set,
reload, and check the manifest holds exactly those corrections; then undo/redo, and a keyboard-only
pass on an unlabelled photo (new box, sideways, face-down, winning tile, win context, reviewed).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from label_helpers import RunningServer, real_photos, start_server

from vision.dataset.manifest import read_manifest

#: The canvas is 640 css px high at this viewport (header 40, tile strip 104), so one screen pixel
#: is one photo pixel.
VIEWPORT = {"width": 1300, "height": 784}


@pytest.fixture
def page(browser, server: RunningServer) -> Iterator[object]:
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server.url)
    page.wait_for_selector("body[data-ready='1']")
    yield page
    context.close()
    assert errors == []


@contextmanager
def page_on_own_server(browser, folder: Path) -> Iterator[object]:
    """A ready page on a server of its own, for tests whose folder differs from ``photo_dir``'s."""
    running = start_server(folder)
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.goto(running.url)
        page.wait_for_selector("body[data-ready='1']")
        yield page
    finally:
        context.close()
        running.stop()


def settle(page) -> None:
    """Wait until every change made so far is saved."""
    page.wait_for_function("() => !S.saving && !S.pending")
    assert not page.locator("#status").get_attribute("class"), page.inner_text("#status")


def screen_point(page, x: float, y: float) -> tuple[float, float]:
    """Photo pixel -> page coordinates."""
    return page.evaluate("""([x, y]) => {
        const r = canvas.getBoundingClientRect(), ratio = canvas.width / r.width;
        return [r.left + (S.ox + x * S.scale) / ratio, r.top + (S.oy + y * S.scale) / ratio];
    }""", [x, y])


def click_photo(page, x: float, y: float, shift: bool = False) -> None:
    sx, sy = screen_point(page, x, y)
    if shift:
        page.keyboard.down("Shift")
    page.mouse.click(sx, sy)
    if shift:
        page.keyboard.up("Shift")


def test_corrections_survive_a_reload_exactly(page, server: RunningServer, photo_dir: Path) -> None:
    assert page.evaluate("S.scale") == pytest.approx(1.0)
    assert page.evaluate("S.tiles.length") == 6

    page.keyboard.press("Tab")  # first tile in reading order: 1m
    page.keyboard.type("7z")
    page.keyboard.press("Enter")  # correct a code by typing it
    settle(page)
    page.keyboard.press("Tab")
    page.keyboard.press("/")
    page.keyboard.type("N")  # an alias, in the code box
    page.keyboard.press("Enter")
    settle(page)

    sx, sy = screen_point(page, 198, 225)  # move the third tile by (+30, +12) photo pixels
    page.mouse.move(sx, sy)
    page.mouse.down()
    page.mouse.move(sx + 15, sy + 6, steps=3)
    page.mouse.move(sx + 30, sy + 12, steps=3)
    page.mouse.up()
    settle(page)

    click_photo(page, 238, 225)  # group the three 5p into an exposed pung
    click_photo(page, 278, 225, shift=True)
    click_photo(page, 318, 225, shift=True)
    page.keyboard.press("g")
    settle(page)

    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.evaluate("S.tiles.map(t => t.code)") == ["7z", "4z", "3m", "5p", "5p", "5p"]
    assert "pung: 5p 5p 5p" in page.inner_text("#hand-summary")

    (record,) = read_manifest(photo_dir / "manifest.jsonl")
    expected_tiles = [
        {"code": "7z", "box": [100, 200, 136, 250], "source_label": "up0"},
        {"code": "4z", "box": [140, 200, 176, 250], "source_label": "up1"},
        {"code": "3m", "box": [210, 212, 246, 262], "source_label": "up2"},
        {"code": "5p", "box": [220, 200, 256, 250], "group": 0, "role": "meld", "source_label": "up3"},
        {"code": "5p", "box": [260, 200, 296, 250], "group": 0, "role": "meld", "source_label": "up4"},
        {"code": "5p", "box": [300, 200, 336, 250], "group": 0, "role": "meld", "source_label": "up5"},
    ]
    assert record.to_json() == {
        "image": "images/table0.jpg", "width": 640, "height": 640, "tiles": expected_tiles,
        "hand": {"concealed": ["3m", "4z", "7z"], "melds": [{"kind": "pung", "tiles": ["5p"] * 3,
                                                             "concealed": False}],
                 "flowers": [], "context": {}},
        "source": "import", "reviewed": False, "note": "kept",
    }

    page.keyboard.press("Control+z")  # undo the grouping (the server keeps the history)
    page.wait_for_function("() => S.tiles.every(t => t.group === null)")
    (record,) = read_manifest(photo_dir / "manifest.jsonl")
    assert all(tile.group is None for tile in record.tiles) and record.tiles[2].box == (210, 212, 246, 262)
    page.keyboard.press("Control+y")
    page.wait_for_function("() => S.tiles.filter(t => t.group === 0).length === 3")
    assert [t.group for t in read_manifest(photo_dir / "manifest.jsonl")[0].tiles] == [None] * 3 + [0] * 3


def test_keyboard_only_labelling_of_a_new_photo(page, server: RunningServer, photo_dir: Path) -> None:
    page.keyboard.press("n")
    page.wait_for_function("() => S.index === 1")
    assert page.evaluate("S.tiles.length") == 0  # no model, no proposals

    start, end = screen_point(page, 400, 300), screen_point(page, 460, 340)
    page.mouse.move(*start)  # drag on the empty photo: a new box
    page.mouse.down()
    page.mouse.move(*end, steps=4)
    page.mouse.up()
    settle(page)
    assert page.evaluate("S.tiles[0].code") == "unknown"
    page.keyboard.press("l")  # the unidentified tile is the low-confidence one
    page.keyboard.type("2s")
    page.keyboard.press("Enter")
    page.keyboard.press("r")  # it lies sideways: the face turns, the box stays
    page.keyboard.press("w")
    settle(page)
    page.keyboard.press("c")
    page.keyboard.press("Space")  # self drawn
    page.select_option("#ctx-seat_wind", "3z")
    page.keyboard.press("Escape")
    settle(page)
    # One tile is no winning hand: the scorer says so next to the hand (a label check).
    assert "not a legal winning hand" in page.inner_text("#hand-check")
    page.keyboard.press("v")  # reviewed, and on to the next photo
    page.wait_for_function("() => S.index === 2")

    record = next(r for r in read_manifest(photo_dir / "manifest.jsonl") if r.image == "images/table1.jpg")
    (tile,) = record.tiles
    assert tile.code == "2s" and tile.rotated and tile.role == "winning" and not tile.face_down
    assert tile.box == (400, 300, 460, 340)
    # Corner 0 is the face's top-left as read: turned a quarter clockwise, that is the top-right corner.
    assert tile.quad == ((460, 300), (460, 340), (400, 340), (400, 300))
    assert record.reviewed is True
    assert record.hand["winning_tile"] == "2s" and record.hand["concealed"] == ["2s"]
    assert record.hand["context"] == {"self_drawn": True, "seat_wind": "3z"}
    listed = json.loads(page.evaluate("JSON.stringify(S.images[1])"))
    assert listed["reviewed"] is True


def test_face_down_and_delete(page, server: RunningServer, photo_dir: Path) -> None:
    click_photo(page, 118, 225)
    page.keyboard.press("f")
    settle(page)
    click_photo(page, 158, 225)
    page.keyboard.press("Delete")
    settle(page)
    (record,) = read_manifest(photo_dir / "manifest.jsonl")
    assert [(t.code, t.face_down) for t in record.tiles][:2] == [("back", True), ("3m", False)]
    assert len(record.tiles) == 5
    click_photo(page, 118, 225)
    page.keyboard.press("f")  # face up again: the code it had comes back
    settle(page)
    assert read_manifest(photo_dir / "manifest.jsonl")[0].tiles[0].code == "1m"
    page.keyboard.press("/")
    page.keyboard.type("?")  # the labeller cannot tell: "unknown"
    page.keyboard.press("Enter")
    settle(page)
    assert read_manifest(photo_dir / "manifest.jsonl")[0].tiles[0].code == "unknown"
    assert page.evaluate("isLow(S.tiles[0])") is False  # a person decided; l skips it


def test_review_view_lists_counts_and_opens_the_contact_sheet(page, server: RunningServer) -> None:
    page.keyboard.press("Shift+R")
    page.wait_for_selector("#counts tr[data-code='5p']")
    assert page.inner_text("#counts tr[data-code='5p'] td:last-child") == "3"
    assert page.text_content("#unreviewed-count") == "(3 of 3)"
    page.click("#counts tr[data-code='5p']")
    page.wait_for_function("() => document.querySelectorAll('#sheet img').length === 3")
    page.wait_for_function("() => [...document.querySelectorAll('#sheet img')]"
                           ".every(i => i.complete && i.naturalWidth > 0)")
    page.click("#sheet figure >> nth=2")  # opens the tile in the editor, selected
    page.wait_for_function("() => S.view === 'label' && S.primary === 5")


def test_zoom_on_small_tiles_keeps_clicks_on_target(page, server: RunningServer) -> None:
    page.keyboard.press("z")  # nothing selected: frame all tiles
    assert page.evaluate("S.zoomed") and page.evaluate("S.scale") > 1.5
    click_photo(page, 278, 225)
    assert page.evaluate("S.primary") == 4
    page.keyboard.press("n")  # the zoom follows to the next photo's tiles (none there: whole photo)
    page.wait_for_function("() => S.index === 1")
    assert page.evaluate("S.scale") == pytest.approx(1.0)


def test_keyboard_selection_and_upside_down(page, server: RunningServer, photo_dir: Path) -> None:
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Space")  # 2m + 3m
    page.keyboard.press("Space")  # + the first 5p
    assert page.evaluate("[...S.sel].sort()") == [1, 2, 3]
    page.keyboard.press("h")  # these stand in the concealed row
    settle(page)
    page.keyboard.press("Escape")
    click_photo(page, 318, 225)
    page.keyboard.press("t")  # the last 5p lies upside down
    settle(page)
    tiles = read_manifest(photo_dir / "manifest.jsonl")[0].tiles
    assert [(t.group, t.role) for t in tiles[1:4]] == [(0, "concealed")] * 3
    assert tiles[5].box == (300, 200, 336, 250)
    assert tiles[5].quad == ((336, 250), (300, 250), (300, 200), (336, 200))  # corner 0: the face's top-left


def test_tile_strip_shows_every_tile_upright_and_selects_on_click(page, server: RunningServer) -> None:
    captions = page.eval_on_selector_all("#strip figcaption", "els => els.map(e => e.textContent)")
    assert captions == ["1m", "2m", "3m", "5p", "5p", "5p"]
    sizes = page.eval_on_selector_all("#strip canvas", "els => els.map(c => [c.width, c.height])")
    assert all(height > width for width, height in sizes)  # upright tiles are cut taller than wide
    page.click("#strip figure >> nth=4")
    assert page.evaluate("S.primary") == 4
    page.keyboard.type("9p")
    page.keyboard.press("Enter")
    settle(page)
    assert page.text_content("#strip figure:nth-child(5) figcaption") == "9p"


def test_a_broken_photo_is_reported_and_skipped(browser, photo_dir: Path) -> None:
    (photo_dir / "images" / "table1x.jpg").write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    with page_on_own_server(browser, photo_dir) as page:
        page.keyboard.press("n")
        page.wait_for_function("() => S.index === 1 && S.photo")
        page.keyboard.press("n")
        page.wait_for_function("() => S.index === 2 && !S.photo")
        assert "cannot open this photo" in page.inner_text("#status")
        assert "table1x.jpg" in page.inner_text("#status")
        page.keyboard.press("n")
        page.wait_for_function("() => S.index === 3 && S.photo")
        assert not (photo_dir / "manifest.jsonl").exists()  # nothing was written for the broken photo


def test_an_edit_made_in_another_window_wins_and_the_page_says_so(page, server: RunningServer,
                                                                   photo_dir: Path) -> None:
    workspace = server.server.app.workspace  # a second window saves first
    other = {"tiles": [t.to_json() for t in workspace.record(0).tiles], "reviewed": True}
    other["tiles"][0]["code"] = "9m"
    workspace.save(0, other, workspace.revision(0))
    page.keyboard.press("Tab")
    page.keyboard.type("1p")
    page.keyboard.press("Enter")
    page.wait_for_function("() => S.tiles[0].code === '9m' && !S.saving")
    assert "another window" in page.inner_text("#status")
    assert read_manifest(photo_dir / "manifest.jsonl")[0].tiles[0].code == "9m"


def test_photos_dropped_into_an_empty_folder_can_be_labelled(browser, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with page_on_own_server(browser, empty) as page:
        assert "no photos" in page.inner_text("#status")
        page.set_input_files("#upload-input", [str(p) for p in real_photos(2)])
        page.wait_for_function("() => S.images.length === 2 && S.index === 0 && S.photo")
        assert sorted(p.parent.name for p in empty.rglob("*.jpg")) == ["uploads", "uploads"]
