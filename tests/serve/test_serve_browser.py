"""The table's page in a real headless Chromium at a phone's 390x844: a game of four from a photo.

Start a game, upload a bundled photo, fix a tile by tapping it, give the win, score, add the hand,
and check the balances and the next dealer; each screen's screenshot is checked (not blank, the
screen's own elements visible). ``TAICAM_SAVE_SCREENS=1`` also keeps them in ``datasets/screens/``
for the README. Refused uploads (not a photo, too large, a decompression bomb) say so on the page.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from serve_helpers import SAMPLES, RunningServe

PHONE = {"width": 390, "height": 844}
SCREENS = Path(__file__).resolve().parents[2] / "datasets" / "screens"


@pytest.fixture
def page(browser, serve: RunningServe) -> Iterator[object]:
    context = browser.new_context(viewport=PHONE, device_scale_factor=1, is_mobile=True, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(serve.url)
    page.wait_for_selector("body[data-ready='1']")
    yield page
    context.close()
    assert errors == []
    assert all(url.startswith(serve.url) for url in requests), "the page loaded something from elsewhere"


def check_screen(page, name: str, tmp_path: Path, visible: list[str]) -> None:
    """Screenshot the viewport; it must not be blank, and ``visible`` selectors must show."""
    for selector in visible:
        assert page.locator(selector).first.is_visible(), (name, selector)
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path))
    pixels = np.asarray(Image.open(path).convert("RGB"))
    assert pixels.shape[:2] == (PHONE["height"], PHONE["width"])
    assert pixels.std() > 20 and len(np.unique(pixels.reshape(-1, 3), axis=0)) > 50, f"{name} looks blank"
    if os.environ.get("TAICAM_SAVE_SCREENS"):
        SCREENS.mkdir(parents=True, exist_ok=True)
        Image.open(path).convert("P", palette=Image.Palette.ADAPTIVE, colors=128).save(
            SCREENS / f"{name}.png", optimize=True)


def wait_idle(page) -> None:
    page.wait_for_function("() => !document.body.dataset.busy")


def test_a_hand_from_a_photo_into_a_game_of_four(page, serve: RunningServe, tmp_path: Path) -> None:
    for i, player in enumerate(["Ann", "Bo", "Cy", "Di"]):
        page.fill(f"input[name=p{i}]", player)
    check_screen(page, "1-new-game", tmp_path, ["#new-game", "#start-game"])
    page.click("#start-game")
    page.wait_for_selector("#table:not([hidden])")
    assert page.inner_text("#round-line").startswith("E round, hand 1: Ann deals")

    page.click("#go-photo")
    check_screen(page, "2-photo", tmp_path, ["label[for=photo-input]"])
    page.set_input_files("#photo-input", str(SAMPLES / "hand-overhead.jpg"))
    page.wait_for_selector("body[data-screen='reading']", timeout=60_000)
    wait_idle(page)
    codes = page.eval_on_selector_all("#groups .tile", "nodes => nodes.map(n => n.dataset.code)")
    hand = "7m 8m 9m 2p 2p 2p 5p 5p 1s 2s 3s 4m 5m 6m 9p 9p 9p 9p 4f 7f 8f"
    assert sorted(codes) == sorted(hand.split(" "))
    assert page.locator("#picture .box").count() == 21 and page.locator("#groups .tile.win").count() == 1
    check_screen(page, "3-reading", tmp_path, ["#picture-img", "#groups .tile", "#reading-next"])

    # The autumn flower is tapped on the picture and said to be spring: the hand is read again.
    page.locator("#picture .box", has_text="7f").click()
    page.wait_for_selector("#picker:not([hidden])")
    check_screen(page, "4-tile-picker", tmp_path,
                 ["#picker-top button", "#picker-grid button[data-code='5f']"])
    page.click("#picker-grid button[data-code='5f']")
    page.wait_for_selector("#fixes button", timeout=60_000)
    wait_idle(page)
    assert page.inner_text("#fixes") == "7f=5f ✕"
    codes = page.eval_on_selector_all("#groups .tile", "nodes => nodes.map(n => n.dataset.code)")
    assert "5f" in codes and "7f" not in codes

    page.click("#reading-next")
    page.click("#winner-buttons button[data-winner='1']")      # Bo (South) wins
    page.click("#discarder-buttons button[data-discarder='2']")  # on Cy's discard
    check_screen(page, "5-win", tmp_path, ["#winner-buttons button[aria-pressed=true]", "#score-now"])
    page.click("#score-now")
    page.wait_for_selector("body[data-screen='score']")
    items = page.inner_text("#items")
    assert "Closed wait" in items and "間聽" in items and "Flower tile" in items and "花牌" in items
    assert page.inner_text("#total") == "Total 7 tai"
    assert page.inner_text("#lines").startswith("Cy pays Bo 7")
    assert page.inner_text("#sure").startswith("sure")
    check_screen(page, "6-score", tmp_path, ["#items td", "#total", "#lines li", "#add-hand"])

    page.click("#add-hand")
    page.wait_for_selector("body[data-screen='game']")
    wait_idle(page)
    balances = page.eval_on_selector_all("#players .balance", "nodes => nodes.map(n => n.textContent)")
    assert balances == ["0", "+7", "-7", "0"]
    # Ann dealt and did not win: the deal passes to Bo, who now sits East.
    assert page.inner_text("#round-line").startswith("E round, hand 2: Bo deals")
    assert page.locator("#players li.dealer .name").inner_text() == "Bo (dealer)"
    assert "Next dealer: Bo" in page.inner_text("#message")
    check_screen(page, "7-table", tmp_path, ["#players li.dealer", "#hands li"])

    (stored,) = serve.store.hands(serve.store.current().id)
    assert stored["fixes"] == ["7f=5f"] and stored["deltas"] == [0, 7, -7, 0]
    assert "5f" in stored["reading"]["hand"]["flowers"]


def test_a_second_phone_sees_the_same_game(browser, page, serve: RunningServe) -> None:
    for i, player in enumerate(["Ann", "Bo", "Cy", "Di"]):
        page.fill(f"input[name=p{i}]", player)
    page.click("#start-game")
    page.wait_for_selector("#table:not([hidden])")
    other = browser.new_context(viewport=PHONE).new_page()
    other.goto(serve.url)
    other.wait_for_selector("#table:not([hidden])")
    page.click("#draw-hand")  # taiwan: the dealer keeps the deal on a draw, streak 1
    other.wait_for_function("() => document.querySelector('#round-line').textContent.includes('streak 1')",
                            timeout=10_000)
    assert "Ann deals" in other.inner_text("#round-line")
    other.close()


def bomb_png() -> bytes:
    """A PNG of a few hundred bytes whose header says 30000x30000 pixels."""
    out = io.BytesIO()
    Image.new("1", (30000, 30000)).save(out, format="PNG", optimize=True)
    return out.getvalue()


@pytest.mark.parametrize(("name", "content", "said"), [
    ("notes.jpg", b"these are not the droids", "is not a photo"),
    ("bomb.png", None, "the limit is 12.6 MP"),
])
def test_a_refused_upload_says_why_on_the_page(page, tmp_path: Path, name: str, content: bytes | None,
                                                said: str) -> None:
    for i, player in enumerate(["Ann", "Bo", "Cy", "Di"]):
        page.fill(f"input[name=p{i}]", player)
    page.click("#start-game")
    page.click("#go-photo")
    path = tmp_path / name
    path.write_bytes(content if content is not None else bomb_png())
    page.set_input_files("#photo-input", str(path))
    page.wait_for_selector("#message:not([hidden])", timeout=10_000)
    assert said in page.inner_text("#message") and "refused" in page.inner_text("#message")
    assert page.evaluate("document.body.dataset.screen") == "photo"


def test_a_photo_over_the_limit_is_not_even_sent(page, tmp_path: Path) -> None:
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.url))
    path = tmp_path / "huge.jpg"
    path.write_bytes(b"\xff\xd8\xff" + bytes(21 * 1024 * 1024))
    page.evaluate("show('photo')")
    page.set_input_files("#photo-input", str(path))
    page.wait_for_selector("#message:not([hidden])")
    assert "the limit is 20 MB" in page.inner_text("#message")
    assert not any("/api/photos" in url for url in sent)


def test_on_a_laptop_a_hand_typed_with_the_tile_picker_is_scored_and_added(browser,
                                                                           serve: RunningServe) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(serve.url)
    page.wait_for_selector("body[data-ready='1']")
    for i, player in enumerate(["Ann", "Bo", "Cy", "Di"]):
        page.fill(f"input[name=p{i}]", player)
    page.click("#start-game")
    page.wait_for_selector("#table:not([hidden])")
    page.click("#go-type")
    for code in ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "2p", "3p", "4p", "5s", "6s",
                 "1z", "1z"]:
        page.click(f"#type-grid button[data-code='{code}']")
    page.click(".notation-keys button[data-key='+']")
    page.click("#type-grid button[data-code='7s']")
    assert page.input_value("#notation") == "1m 2m 3m 4m 5m 6m 7m 8m 9m 2p 3p 4p 5s 6s 1z 1z +7s"
    page.click("#type-next")
    page.click("#winner-buttons button[data-winner='0']")  # Ann, the dealer, self-drawn
    page.click("#score-now")
    page.wait_for_selector("body[data-screen='score']")
    assert page.inner_text("#sure").startswith("typed by hand")
    total = int(page.inner_text("#total").split()[1])
    page.click("#add-hand")
    page.wait_for_selector("body[data-screen='game']")
    balances = page.eval_on_selector_all("#players .balance", "nodes => nodes.map(n => n.textContent)")
    assert balances == [f"+{3 * (total + 1)}", f"-{total + 1}", f"-{total + 1}", f"-{total + 1}"]
    assert "Ann deals (streak 1)" in page.inner_text("#round-line")  # the dealer won: keeps the deal
    page.click("#undo-hand")
    page.wait_for_function("() => document.querySelector('#round-line').textContent.includes('hand 1')")
    assert serve.store.hands(serve.store.current().id) == []
    context.close()


def test_a_photo_that_makes_no_hand_says_what_to_do(page, tmp_path: Path) -> None:
    for i, player in enumerate(["Ann", "Bo", "Cy", "Di"]):
        page.fill(f"input[name=p{i}]", player)
    page.click("#start-game")
    page.click("#go-photo")
    cropped = tmp_path / "half-a-hand.jpg"  # the sample's left part: two tiles of the hand are cut off
    Image.open(SAMPLES / "hand-overhead.jpg").crop((0, 0, 900, 960)).save(cropped, quality=92)
    page.set_input_files("#photo-input", str(cropped))
    page.wait_for_selector("body[data-screen='reading']", timeout=60_000)
    wait_idle(page)
    refusal = page.inner_text("#refusal")
    assert refusal.startswith("not a winning hand") and "2 tiles are missing" in refusal
    assert "Tap a tile that is read wrong" in refusal and "type the hand" in refusal
    assert page.locator("#groups .tile").count() == 16 and page.is_disabled("#reading-next")
    check_screen(page, "3b-refused", tmp_path, ["#refusal", "#groups .tile"])
    page.click("#refused-type")
    assert page.evaluate("document.body.dataset.screen") == "type"
