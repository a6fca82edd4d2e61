"""The operator console on a tablet (issue 20): at each size, with touch, everything a hand
needs is on the screen without scrolling, and a message never moves a key."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.pages.conftest import Probe
from tests.pages.harness import Harness
from tests.pages.views import operator_view, ten_handed_preflop_view

SIZES = [(1024, 768), (1180, 820), (1366, 1024), (820, 1180)]
HAND_CONTROLS = ["#to-act-name", "#btn-fold", "#btn-check", "#btn-call", "#btn-all-in",
                 "#amount", "#presets", "#btn-amount", "#btn-undo", "#btn-misdeal",
                 "#btn-next-hand", "#btn-cards", "#btn-clock", "#level-up", "#connection"]
KEYS = [f"#keypad .key[data-key='{key}']" for key in
        ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "000", "min", "max", "back", "clear")]


def ten_handed_view() -> dict[str, Any]:
    """Ten seats pre-flop, seat 4 to act (the most a console shows), with the operator
    object's devices and an alert."""
    view = ten_handed_preflop_view()
    view["channel"]["name"] = "operator"
    operator = copy.deepcopy(operator_view()["operator"])
    operator["legal"].update(seat=4, name="Rast", call=8000, all_in=954000,
                             raise_={"min": 16000, "max": 954000})
    operator["legal"].pop("raise_")
    operator["legal"]["raise"] = {"min": 16000, "max": 954000}
    operator["legal"]["presets"] = [
        {"key": "min", "label": "Min", "amount": 16000},
        {"key": "2.5x", "label": "2.5x", "amount": 20000},
        {"key": "3x", "label": "3x", "amount": 24000},
        {"key": "pot", "label": "Pot", "amount": 36000},
        {"key": "all_in", "label": "All-in", "amount": 954000}]
    operator["cards_needed"] = [{"target": "seat", "seat": 10, "count": 2}]
    operator["auto_operator"] = "paused"  # the demo's key too: the widest top line
    operator["tags"] = ["cooler"]
    view["operator"] = operator
    view["alerts"] = operator_view()["alerts"]
    return view


@pytest.fixture
def touch_page(browser: Browser, harness: Harness, probe: Probe,
               request: pytest.FixtureRequest) -> Iterator[Page]:
    width, height = request.param
    harness.reset()
    context = browser.new_context(viewport={"width": width, "height": height},
                                  device_scale_factor=1, has_touch=True)
    tab = context.new_page()
    tab.on("console", lambda m: probe.console_errors.append(m.text)
           if m.type == "error" else None)
    tab.on("pageerror", lambda error: probe.page_errors.append(str(error)))
    yield tab
    context.close()
    assert probe.page_errors == []
    assert probe.unexpected_console_errors() == []


# Every box in one round trip: each selector must match one displayed element.
BOXES = """selectors => Object.fromEntries(selectors.map(selector => {
    const nodes = document.querySelectorAll(selector);
    if (nodes.length !== 1) return [selector, null];
    const r = nodes[0].getBoundingClientRect();
    return [selector, r.width > 0 && r.height > 0
        ? {x: r.x, y: r.y, width: r.width, height: r.height} : null];
}))"""


def boxes(page: Page, selectors: list[str]) -> dict[str, dict[str, float]]:
    found: dict[str, dict[str, float] | None] = page.evaluate(BOXES, selectors)
    missing = [selector for selector, box in found.items() if box is None]
    assert missing == [], f"not displayed (or not one element): {missing}"
    return {selector: box for selector, box in found.items() if box is not None}


# The part of an element that no ancestor clips (overflow other than visible): its width.
UNCLIPPED = """selector => {
    const node = document.querySelector(selector);
    let {left, right} = node.getBoundingClientRect();
    for (let up = node.parentElement; up; up = up.parentElement) {
        if (getComputedStyle(up).overflowX === 'visible') continue;
        const box = up.getBoundingClientRect();
        left = Math.max(left, box.left);
        right = Math.min(right, box.right);
    }
    return [right - left, node.getBoundingClientRect().width];
}"""
TOP_LINE = ["#hand-number", "#street", "#blinds", "#level-down", "#level-up", "#btn-graphics",
            "#btn-tag", "#btn-auto", "#btn-keys", "#connection"]
"""The status bar's first line: every key whole, none cut by the line's edge."""


def assert_whole(page: Page, selectors: list[str]) -> None:
    for selector in selectors:
        shown, width = page.evaluate(UNCLIPPED, selector)
        assert width > 0 and shown >= width - 0.5, (selector, shown, width)


def assert_inside(page: Page, selectors: list[str]) -> None:
    viewport = page.viewport_size
    assert viewport is not None
    assert page.evaluate("window.scrollY") == 0
    for selector, box in boxes(page, selectors).items():
        assert box["width"] > 0 and box["height"] > 0, selector
        assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
        assert box["x"] + box["width"] <= viewport["width"] + 0.5, (selector, box, viewport)
        assert box["y"] + box["height"] <= viewport["height"] + 0.5, (selector, box, viewport)


@pytest.mark.parametrize("touch_page", SIZES, indirect=True, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_hand_fits_the_screen_and_messages_never_move_a_key(
        touch_page: Page, harness: Harness, probe: Probe) -> None:
    probe.allow_rejections = True  # the 409 below, on purpose
    page = touch_page
    harness.set_view("operator", ten_handed_view())
    page.goto(f"{harness.base}/operator?token=op-token-123")
    expect(page.locator("html")).to_have_attribute("data-revision", "1")
    seats = [f".seat[data-seat='{n}']" for n in range(1, 11)]
    expect(page.locator(".seat.to-act")).to_have_attribute("data-seat", "4")
    expect(page.locator(".preset")).to_have_count(5)
    everything = HAND_CONTROLS + KEYS + seats + [".seat.to-act", ".preset[data-preset='3x']"]
    assert_inside(page, everything)
    expect(page.locator("#btn-auto")).to_have_text("Resume demo")
    assert_whole(page, TOP_LINE)
    # Touch targets: every key and action at least 40 px high.
    for selector, box in boxes(page, HAND_CONTROLS[1:5] + KEYS + ["#btn-amount"]).items():
        assert box["height"] >= 40, (selector, box)
    before = boxes(page, everything)

    # An error, with a ruling to apply, and a new alert: nothing moves.
    harness.reply_next(409, {"error": {
        "code": "illegal_action", "rule": "R9",
        "message": "Kalidou Sow (seat 2) cannot fold: it is Rast's turn (seat 4) (R9). " * 3,
        "ruling": {"text": "raise to 16,000", "command": {"type": "raise_to", "seat": 4,
                                                          "amount": 16000}}}})
    page.locator("#btn-fold").tap()
    expect(page.locator("#error")).to_be_visible()
    expect(page.locator("#apply-ruling")).to_be_visible()
    alerts = ten_handed_view()["alerts"] * 4
    harness.push_patch("operator", {"alerts": alerts})
    expect(page.locator("#alerts li")).to_have_count(4)
    assert boxes(page, everything) == before
    assert_inside(page, ["#error", "#apply-ruling", "#dismiss-error"])
    page.locator("#dismiss-error").tap()
    expect(page.locator("#error")).to_be_hidden()

    # The 52-card picker opens in one tap; cards already on the table are greyed out.
    expect(page.locator("#btn-cards")).to_have_text("Cards · seat 10")
    page.locator("#btn-cards").tap()
    expect(page.locator("#manual")).to_be_visible()
    expect(page.locator("#manual-target")).to_have_value("seat:10")
    expect(page.locator(".pick")).to_have_count(52)
    assert_inside(page, ["#picker", "#btn-manual-send", "#btn-manual-close", "#manual-target"])
    viewport = page.viewport_size
    assert viewport is not None
    picks = page.locator(".pick").evaluate_all(
        "ns => ns.map(n => n.getBoundingClientRect()).map(r => [r.left, r.top, r.right, r.bottom])")
    assert len(picks) == 52
    for left, top, right, bottom in picks:
        assert 0 <= left < right <= viewport["width"] and 0 <= top < bottom <= viewport["height"]
        assert bottom - top >= 40  # a card is a touch target
    expect(page.locator(".pick:disabled")).to_have_count(20)  # ten hands on the table
    expect(page.locator(".pick[data-card='Ah']")).to_be_disabled()
    page.locator(".pick[data-card='2c']").tap()
    page.locator(".pick[data-card='7h']").tap()
    page.locator("#btn-manual-send").tap()
    harness.wait_until(lambda: len(harness.commands) == 2)
    assert harness.commands[1].body["type"] == "deal_cards"
    assert harness.commands[1].body["cards"] == ["2c", "7h"]
    page.locator("#btn-manual-close").tap()
    expect(page.locator("#manual")).to_be_hidden()
    assert boxes(page, everything) == before


@pytest.mark.parametrize("touch_page", [(1024, 768), (820, 1180)], indirect=True,
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_at_the_river_show_and_muck_fit_beside_every_seat(touch_page: Page,
                                                          harness: Harness) -> None:
    page = touch_page
    view = ten_handed_view()
    view["table"].update(street="river", board=["Qs", "9s", "8c", "2h", "3c"])
    harness.set_view("operator", view)
    page.goto(f"{harness.base}/operator?token=op-token-123")
    expect(page.locator("html")).to_have_attribute("data-revision", "1")
    expect(page.locator(".seat .show:visible")).to_have_count(10)
    assert_inside(page, [f".seat[data-seat='{n}'] {tool}" for n in range(1, 11)
                         for tool in (".show", ".muck", ".more", ".hole")])
    # The rarer tools are one tap away, in the seat's sheet.
    page.locator(".seat[data-seat='4'] .more").tap()
    expect(page.locator("#seat-sheet-title")).to_have_text("Seat 4 · Rast")
    assert_inside(page, ["#seat-sheet .restrict", "#seat-sheet .away", "#btn-seat-close"])
    page.locator("#btn-seat-close").tap()
    expect(page.locator("#seat-sheet")).to_be_hidden()
