"""The composed program overlay in Debian's Chromium (issue 19, docs/graphics.md "The
program"): every on-air graphic in one browser source, in frames that share the program's one
channel socket; placed by the layout on air so that no two overlap, at any size; the lower
third follows the operator's cue."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Frame, Page, expect

from overlay.graphics.layouts import EXCLUSIVE, regions_of
from tests.pages.conftest import Probe, settle, watch
from tests.pages.harness import Harness
from tests.pages.test_layouts import DRAWN
from tests.pages.tournament_views import allin_view, eliminated

GRAPHICS = ("overlay", "clock", "ticker", "lowerthird", "versus", "elimination")


def frame(page: Page, graphic: str) -> Frame:
    handle = page.locator(f"iframe[data-graphic={graphic}]").element_handle()
    assert handle is not None
    content = handle.content_frame()
    assert content is not None
    return content


def cue(harness: Harness, seat: int | None) -> None:
    harness.push_raw("delayed", {"type": "theme", "theme": {**harness.graphics.state(),
                                                            "lowerthird": seat}})


@pytest.mark.parametrize("layout", ["column-left", "bottom-bar"])
@pytest.mark.timeout(300)
def test_the_program_composes_every_graphic_on_one_socket_without_overlap(
        browser: Browser, harness: Harness, artifacts: Path, layout: str) -> None:
    probe = Probe()
    harness.reset()
    harness.set_view("delayed", allin_view(), 1)
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        page = watch(context.new_page(), probe)
        page.goto(f"{harness.base}/program?channel=delayed&layout={layout}")
        expect(page.locator("iframe")).to_have_count(len(GRAPHICS))
        for graphic in GRAPHICS:
            expect(page.frame_locator(f"iframe[data-graphic={graphic}]").locator("html")
                   ).to_have_attribute("data-revision", "1")
        # One socket, one hello: the frames share the program's channel client.
        assert [hello.message["page"] for hello in harness.hellos] == ["program"]
        assert harness.connected("delayed") == 1
        cue(harness, 4)
        expect(frame(page, "lowerthird").locator("#third")).to_have_class(
            re.compile(r"\bshown\b"))
        expect(frame(page, "lowerthird").locator("#name")).to_have_text("Rast")
        expect(frame(page, "versus").locator(".versus-row")).to_have_count(2)
        for graphic in GRAPHICS:  # the entrances
            settle(frame(page, graphic))
        drawn: dict[str, list[float]] = {}
        for graphic in GRAPHICS:
            for region, box in frame(page, graphic).evaluate(DRAWN).items():
                assert region not in drawn, region
                drawn[region] = box
        page.screenshot(path=str(artifacts / f"program-{layout}-720p.png"),
                        omit_background=True)
        regions = regions_of(layout)["landscape"]
        assert {"event", "players", "table", "clock", "ticker", "lowerthird", "versus"} \
            <= set(drawn)
        for region, (left, top, right, bottom) in drawn.items():
            r = regions[region]
            assert left >= r["x"] - 1 and top >= r["y"] - 1, region
            assert right <= r["x"] + r["width"] + 1 and bottom <= r["y"] + r["height"] + 1, \
                region
        shown = [name for name in (*EXCLUSIVE, "versus") if name in drawn]
        for a, b in itertools.combinations(shown, 2):
            (al, at, ar, ab), (bl, bt, br, bb) = drawn[a], drawn[b]
            assert ar <= bl or br <= al or ab <= bt or bb <= at, (a, drawn[a], b, drawn[b])
        # A patch reaches every frame through the one socket: the hand is decided, a bust-out.
        view = allin_view()
        busted = eliminated(view, 7, 7, 5000, 57)
        harness.push_patch("delayed", {"table": {"street": "over"}, "tournament": {
            "allin": None, "players": busted["tournament"]["players"],
            "eliminations": busted["tournament"]["eliminations"]}})
        expect(frame(page, "versus").locator("#stage")).to_have_class(re.compile(r"\bempty\b"))
        expect(frame(page, "elimination").locator("#bust")).to_have_class(
            re.compile(r"\bshown\b"))
        expect(frame(page, "elimination").locator("#name")).to_have_text("Yuki")
        # The cue taken back: the lower third slides out.
        cue(harness, None)
        expect(frame(page, "lowerthird").locator("#third")).not_to_have_class(
            re.compile(r"\bshown\b"))
        assert harness.connected("delayed") == 1
    finally:
        context.close()
    assert probe.page_errors == [] and probe.unexpected_console_errors() == []
    assert probe.foreign_requests() == []


def test_a_program_that_cannot_open_its_channel_draws_nothing(page: Page,
                                                             harness: Harness) -> None:
    """No snapshot ever comes (a channel the server has no view of): no frame draws a
    thing."""
    page.goto(f"{harness.base}/program?channel=nowhere")
    expect(page.locator("iframe")).to_have_count(len(GRAPHICS))
    page.wait_for_timeout(1500)
    for graphic in GRAPHICS:
        drawn: dict[str, Any] = frame(page, graphic).evaluate(DRAWN)
        assert drawn == {}, (graphic, drawn)
