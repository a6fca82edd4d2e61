"""The commentators' equity screen (delayed channel by default) in Debian's Chromium."""

from __future__ import annotations

import time
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

from tests.pages.conftest import Probe
from tests.pages.harness import Harness
from tests.pages.views import clock_text, flop_view, showdown_view


def open_commentary(page: Page, harness: Harness, channel: str, revision: int = 1,
                    query: str = "") -> None:
    page.goto(f"{harness.base}/commentary{query}")
    expect(page.locator("html")).to_have_attribute("data-revision", str(revision))


def player(page: Page, seat: int) -> Locator:
    return page.locator(f".player[data-seat='{seat}']")


def test_defaults_to_the_delayed_channel_and_shows_everything(
        page: Page, harness: Harness, artifacts: Path) -> None:
    made = time.time()
    view = flop_view("delayed")
    harness.set_view("delayed", view)
    page.set_viewport_size({"width": 1600, "height": 1000})
    open_commentary(page, harness, "delayed")
    (hello,) = harness.hellos_on("delayed")
    assert hello.message["page"] == "commentary"
    # Delay and "as of" time (local time of the view's as_of).
    expect(page.locator("#delay")).to_have_text("30 s behind live")
    as_of = page.evaluate(
        f"new Date({view['channel']['as_of']} * 1000)"
        ".toLocaleTimeString('en-GB', {hour12: false})")
    expect(page.locator("#as-of")).to_have_text(as_of)
    expect(page.locator("#blinds")).to_have_text("4,000 / 8,000")
    expect(page.locator("#level-clock")).to_have_text(clock_text(754, made, " left"))
    # Win, tie, equity, hand strength, outs listed and counted, stacks in BB.
    ashton = player(page, 1)
    expect(ashton.locator(".equity-value")).to_have_text("27.0%")
    expect(ashton.locator(".win-tie")).to_have_text("win 27.0% · tie 0.0%")
    expect(ashton.locator(".hand")).to_have_text("Ace High")
    expect(ashton.locator(".outs-count")).to_have_text("6 outs")
    codes = ashton.locator(".outs-cards .card").evaluate_all("ns => ns.map(n => n.dataset.card)")
    assert codes == ["Jh", "Jd", "Jc", "Th", "Td", "Tc"]
    expect(ashton.locator(".bb")).to_have_text("91.8 BB")
    expect(ashton.locator(".state")).to_have_text("To act")
    expect(player(page, 7).locator(".outs-count")).to_have_text("5 outs")
    expect(player(page, 4).locator(".outs")).to_be_hidden()
    expect(player(page, 4).locator(".bet")).to_have_text("bet 24,000")
    # Pot odds for the player to act: 24,000 to call into 726,000.
    expect(page.locator("#odds-call")).to_have_text("24,000")
    expect(page.locator("#odds-ratio")).to_have_text("30.3 : 1")
    expect(page.locator("#odds-needed")).to_have_text("3.2%")
    expect(page.locator("#odds-has")).to_have_text("27.0%")
    # The hand's action history, by street.
    expect(page.locator("#history li")).to_have_text([
        "Pre-flop", "Yuki Tanaka is all-in for 206,000", "Lena Fischer folds",
        "Ashton Griffin calls 206,000", "Rast calls 206,000", "Flop", "Rast bets 24,000"])
    page.wait_for_timeout(400)
    page.screenshot(path=str(artifacts / "commentary-flop.png"), full_page=True)
    page.set_viewport_size({"width": 1366, "height": 768})  # a laptop across the booth
    page.wait_for_timeout(200)
    page.screenshot(path=str(artifacts / "commentary-laptop.png"))


def test_a_burst_of_patches_is_drawn_once_with_its_last_view(
        page: Page, harness: Harness) -> None:
    # A burst of events (an action, its pot, stacks, equities; a fast demo) comes as patches
    # a few milliseconds apart: the screen draws the burst's last view, not every step.
    view = flop_view("delayed")
    harness.set_view("delayed", view)
    open_commentary(page, harness, "delayed")
    page.evaluate("window.rendered = []; window.feltcast.onRender("
                  "(view) => window.rendered.push(view.channel.as_of))")
    first = view["channel"]["as_of"]
    patches = [{"channel": {"as_of": first + n}} for n in range(1, 31)]
    revision = harness.push_burst("delayed", patches)
    expect(page.locator("html")).to_have_attribute("data-revision", str(revision))
    last = first + len(patches)
    page.wait_for_function(f"window.rendered.at(-1) === {last}")
    expect(page.locator("#as-of")).to_have_text(page.evaluate(
        f"new Date({last} * 1000).toLocaleTimeString('en-GB', {{hour12: false}})"))
    rendered = page.evaluate("window.rendered")
    assert rendered == sorted(rendered) and len(rendered) <= len(patches) // 3, rendered


def test_showdown_and_no_pot_odds_without_a_bet(page: Page, harness: Harness) -> None:
    harness.set_view("delayed", showdown_view("delayed"))
    open_commentary(page, harness, "delayed")
    expect(page.locator("#odds")).to_be_hidden()
    expect(player(page, 4).locator(".state")).to_have_text("Wins 702,000")
    expect(page.locator(".pot-eligible")).to_have_text(["won by Rast", "won by Rast"])


def test_on_the_venue_channel_nothing_secret_appears(page: Page, harness: Harness) -> None:
    harness.set_view("venue", flop_view("venue"))
    open_commentary(page, harness, "venue", query="?channel=venue")
    expect(page.locator("#delay")).to_have_text("Live")
    expect(page.locator(".player .card.face")).to_have_count(0)
    expect(page.locator(".player.has-equity")).to_have_count(0)
    expect(page.locator(".player .outs")).to_have_count(7)
    for outs in page.locator(".player .outs").all():
        expect(outs).to_be_hidden()
    expect(page.locator("#odds-has")).to_have_text("—")


def test_shows_when_the_server_is_gone_and_keeps_the_numbers(
        page: Page, harness: Harness, probe: Probe) -> None:
    probe.allow_websocket_errors = True
    harness.set_view("delayed", flop_view("delayed"))
    open_commentary(page, harness, "delayed")
    expect(page.locator("#connection")).to_be_hidden()
    harness.stop_server()
    expect(page.locator("#connection")).to_have_text(  # the reconnect's back-off, on a busy box
        "Server unreachable — showing the last known state", timeout=30_000)
    expect(player(page, 1).locator(".equity-value")).to_have_text("27.0%")
    harness.restart_server()
    expect(page.locator("#connection")).to_be_hidden(timeout=15000)
