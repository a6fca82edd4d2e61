"""The broadcast's keys of the operator console on the real service, in Debian's Chromium
(issue 20): Hide graphics fades every on-air page out, each channel when it reaches the
moment; Tag hand marks the hand for the editors and no audience; the demo's automatic
operator is paused and resumed from the console (docs/pages.md, "The broadcast")."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.pages.conftest import Probe
from tests.pages.service import Service, running_service, start_demo

DELAY = 4.0
"""The delayed channel's security delay (seconds)."""

ON_AIR = ["/overlay?channel=venue", "/leaderboard?channel=venue", "/clock?channel=venue",
          "/lowerthird?channel=venue&seat=1", "/elimination?channel=venue",
          "/payouts?channel=venue"]

# When the page's graphics went off air and back (the browser's wall clock, ms).
_WATCH = """() => {
    window.offAir = [];
    const root = document.documentElement;
    new MutationObserver(() => window.offAir.push(
        [root.classList.contains('graphics-hidden'), Date.now()]))
      .observe(root, {attributes: true, attributeFilter: ['class']});
}"""
_OPACITY = "() => getComputedStyle(document.body).opacity"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    with running_service(tmp_path_factory.mktemp("production"), DELAY) as running:
        yield running


def open_page(browser: Browser, url: str, probe: Probe, *, touch: bool = False,
              width: int = 1920, height: int = 1080) -> Page:
    context = browser.new_context(viewport={"width": width, "height": height},
                                  has_touch=touch)
    page = context.new_page()
    page.on("console", lambda m: probe.console_errors.append(m.text)
            if m.type == "error" else None)
    page.on("pageerror", lambda error: probe.page_errors.append(str(error)))
    page.goto(url)
    expect(page.locator("html")).to_have_attribute("data-connection", "live")
    return page


def off_air(page: Page) -> bool:
    return bool(page.evaluate("() => document.documentElement.classList"
                              ".contains('graphics-hidden')"))


def test_hide_graphics_fades_every_on_air_page_in_step_with_its_channel(
        browser: Browser, service: Service) -> None:
    probe = Probe()
    console = open_page(browser, f"{service.base}/operator?token={service.operator}", probe,
                        touch=True, width=1180, height=820)
    live = [open_page(browser, f"{service.base}{path}", probe) for path in ON_AIR]
    delayed = open_page(browser, f"{service.base}/overlay?channel=delayed", probe)
    commentary = open_page(browser, f"{service.base}/commentary?channel=delayed", probe)
    for page in [*live, delayed, commentary]:
        page.evaluate(_WATCH)
        assert not off_air(page) and page.evaluate(_OPACITY) == "1"
    key = console.locator("#btn-graphics")
    expect(key).to_have_text("Hide graphics")
    clicked = console.evaluate("() => { document.getElementById('btn-graphics').click();"
                               " return Date.now(); }")
    expect(key).to_have_text("Show graphics")
    expect(key).to_have_attribute("aria-pressed", "true")
    expect(key).to_have_class(re.compile(r"\boff-air\b"))
    for page in live:  # faded out: fully transparent once the transition has run
        page.wait_for_function("() => getComputedStyle(document.body).opacity === '0'",
                               timeout=30_000)
    # The delayed stream hides its graphics with its pictures: no earlier than the delay.
    delayed.wait_for_function("() => window.offAir.length > 0", timeout=60_000)
    hidden_at = delayed.evaluate("() => window.offAir[0]")
    assert hidden_at[0] is True and hidden_at[1] >= clicked + DELAY * 1000 - 50, \
        (hidden_at, clicked)
    assert not off_air(commentary)  # the commentators keep their screen
    assert not off_air(console)
    console.keyboard.press("g")  # the laptop's key: back on air
    expect(key).to_have_text("Hide graphics")
    for page in live:
        page.wait_for_function("() => getComputedStyle(document.body).opacity === '1'",
                               timeout=30_000)
    delayed.wait_for_function("() => window.offAir.length > 1", timeout=60_000)
    assert delayed.evaluate("() => window.offAir[1][0]") is False
    assert probe.page_errors == [] and probe.unexpected_console_errors() == []


def test_a_hand_is_tagged_from_the_console_and_no_audience_sees_it(
        browser: Browser, service: Service) -> None:
    probe = Probe()
    console = open_page(browser, f"{service.base}/operator?token={service.operator}", probe,
                        touch=True, width=1024, height=768)
    venue = open_page(browser, f"{service.base}/overlay?channel=venue", probe)
    view = service.request("/api/state?channel=operator")["view"]
    if view["operator"]["between_hands"]:
        service.command("next_hand")
    number = service.request("/api/state?channel=operator")["view"]["table"]["hand_number"]
    tag = console.locator("#btn-tag")
    expect(tag).to_have_text("Tag hand")
    tag.tap()
    expect(console.locator("#tag-sheet")).to_be_visible()
    expect(console.locator("#tag-title")).to_have_text(f"Tag hand {number}")
    console.locator("#tag-note").fill("Ashton shows the bluff")
    console.keyboard.press("Enter")
    expect(tag).to_have_text("Tagged (1)")
    expect(console.locator("#tag-list li")).to_have_text(["Ashton shows the bluff"])
    expect(console.locator("#tag-note")).to_have_value("")  # ready for another
    console.locator("#btn-tag-save").tap()  # a tag without words
    expect(console.locator("#tag-list li")).to_have_text(
        ["Ashton shows the bluff", "(tagged without a note)"])
    console.keyboard.press("Escape")
    expect(console.locator("#tag-sheet")).to_be_hidden()
    assert "bluff" not in venue.evaluate("() => document.body.innerText")
    for channel in ("venue", "secure"):
        text = str(service.request(f"/api/state?channel={channel}"))
        assert "bluff" not in text and "'tags'" not in text, channel
    assert probe.page_errors == [] and probe.unexpected_console_errors() == []


# --- the demo's automatic operator --------------------------------------------------------


def entries_after(base: str, token: str, after: int) -> list[dict[str, Any]]:
    """The log's entries after ``after`` (``GET /api/log``, page by page)."""
    out: list[dict[str, Any]] = []
    while True:
        request = urllib.request.Request(f"{base}/api/log?after={after}",
                                         headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=30) as response:
            page: list[dict[str, Any]] = json.loads(response.read())["entries"]
        if not page:
            return out
        out += page
        after = page[-1]["seq"]


def test_the_demo_is_paused_and_resumed_from_the_console(browser: Browser,
                                                         tmp_path: Path) -> None:
    probe = Probe(allow_rejections=True)
    demo = start_demo(tmp_path / "demo", speed=8, delay=2, seed=5)
    try:
        pattern = r"operator console +(http://127\.0\.0\.1:\d+/operator\?token=\S+)"
        found = re.search(pattern, demo.until(pattern, timeout=120))
        assert found is not None
        url = found[1]
        base, token = url.split("/operator?token=")
        demo.until(r"^hand 1: ", timeout=120)
        console = open_page(browser, url, probe, touch=True, width=1180, height=820)
        key = console.locator("#btn-auto")
        expect(key).to_have_text("Pause demo")
        key.tap()
        expect(key).to_have_text("Resume demo")
        demo.until(r"the automatic operator is paused", timeout=120)
        before = entries_after(base, token, 0)
        paused_at = before[-1]["seq"] if before else 0
        # The console has the table: one change of its own (whichever the hand allows; a
        # hand waiting for its board is voided).
        revision = console.evaluate("() => document.documentElement.dataset.revision")
        kind = next(((button, kind) for button, kind in (
            ("#btn-check", "action_taken"), ("#btn-call", "action_taken"),
            ("#btn-fold", "action_taken"), ("#btn-next-hand", "hand_started"))
            if console.locator(button).is_enabled()), ("#btn-misdeal", "hand_voided"))
        console.locator(kind[0]).tap()
        if kind[1] == "hand_voided":
            console.locator("#btn-confirm-yes").tap()
        expect(console.locator("html")).not_to_have_attribute("data-revision", revision)
        mine = entries_after(base, token, paused_at)
        key.tap()  # resume
        expect(key).to_have_text("Pause demo")
        demo.until(r"the automatic operator plays again", timeout=120)
        number = max(int(m) for line in demo.lines
                     for m in re.findall(r"^hand (\d+): ", line))
        # It plays on: a later hand is finished (the next one, or the one after it when the
        # console's change voided the hand it had: a void hand prints no line).
        while int(re.findall(r"^hand (\d+): ", demo.until(r"^hand \d+: ", timeout=120))[0]) \
                <= number:
            pass
        # While it was paused, only the console acted: its one change.
        kinds = [e["event"]["kind"] for e in mine]
        acted = [k for k in kinds if k in ("action_taken", "hand_started", "hand_voided")]
        assert acted == [kind[1]], kinds
        assert probe.page_errors == []
    finally:
        demo.process.terminate()
        demo.process.wait(timeout=60)
        assert demo.process.stdout is not None
        demo.process.stdout.close()
