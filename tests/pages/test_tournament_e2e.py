"""The tournament graphics against the real service: ``feltcast serve`` as a subprocess,
Debian's Chromium, commands over the operator API.

The service's own routes serve every graphic with its asset version stamped in; each page says
hello with its page id (the console lists it); the leaderboard, lower third and level clock draw
the ``tournament`` object the service computes from the configured players; the R12 clock
called by the operator counts down on the overlay of the channel it was released on.
"""

from __future__ import annotations

import re
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.pages.conftest import Probe
from tests.pages.service import Service, running_service

DELAY = 2.0
GRAPHICS = ("leaderboard", "lowerthird", "elimination", "payouts", "clock")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    with running_service(tmp_path_factory.mktemp("serve"), DELAY) as running:
        yield running


def clock_seconds(text: str) -> int:
    """'1:05' or, in the final ten seconds, '7'."""
    minutes, _, seconds = text.rpartition(":")
    return int(minutes or 0) * 60 + int(seconds)


def watch(browser: Browser, probe: Probe, url: str) -> Page:
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    page.on("console", lambda m: probe.console_errors.append(m.text)
            if m.type == "error" else None)
    page.on("pageerror", lambda error: probe.page_errors.append(str(error)))
    page.on("request", lambda r: probe.requests.append(r.url))
    page.goto(url)
    expect(page.locator("html")).to_have_attribute("data-connection", "live")
    return page


def test_graphics_on_the_real_service(browser: Browser, service: Service) -> None:
    probe = Probe()
    pages = {name: watch(browser, probe, f"{service.base}/{name}?channel=venue"
                         + ("&seat=4" if name == "lowerthird" else ""))
             for name in GRAPHICS}
    try:
        version = service.request("/api/config")["version"]
        for page in pages.values():
            expect(page.locator('meta[name="feltcast-version"]')).to_have_attribute(
                "content", version)
        # The console knows each graphic by its id, on its channel, with current assets.
        wanted = [{"page": name, "channel": "venue", "version": version, "current": True}
                  for name in GRAPHICS]
        deadline = time.monotonic() + 10
        while True:
            listed = service.view("operator")["operator"]["pages"]
            if all(entry in listed for entry in wanted) or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert all(entry in listed for entry in wanted), listed
        # The leaderboard draws the service's tournament object: the configured players by
        # stack, their share of the chips.
        tournament = service.view("venue")["tournament"]
        board = pages["leaderboard"]
        expect(board.locator(".row:not(.out) .name")).to_have_text(
            ["Ashton Griffin", "Rast", "Yuki Tanaka"])
        expect(board.locator(".row .stack")).to_have_text(["500,000", "420,000", "310,000"])
        share = next(p for p in tournament["players"] if p["seat"] == 1)["share"]
        expect(board.locator(".row[data-seat='1'] .share-value")).to_have_text(
            f"{share * 100:.1f}%")
        expect(board.locator("#remaining")).to_contain_text("3")
        # The lower third of seat 4, with its place in the field.
        third = pages["lowerthird"]
        expect(third.locator("#third")).to_have_class(re.compile(r"\bshown\b"))
        expect(third.locator("#name")).to_have_text("Rast")
        expect(third.locator("#position")).to_have_text("2nd of 3")
        expect(third.locator("#photo .initials")).to_have_text("RA")
        # The level clock shows what the service says of the clock.
        clock = tournament["clock"]
        level = pages["clock"]
        expect(level.locator("#level")).to_have_text(f"Level {clock['level']}")
        if not clock["running"] and isinstance(clock["remaining"], float | int):
            whole = int(-(-clock["remaining"] // 1))
            expect(level.locator("#time")).to_have_text(f"{whole // 60}:{whole % 60:02d}")
        # The operator starts the clock: it runs on every page, counting locally; taking a
        # minute away and pausing reach the page as they happen.
        assert service.command("start_clock")["ok"]
        expect(level.locator("#state")).to_have_text("")
        first = clock_seconds(level.locator("#time").inner_text())
        level.wait_for_timeout(1300)
        assert 1 <= first - clock_seconds(level.locator("#time").inner_text()) <= 4
        assert service.command("adjust_clock", seconds=-60)["ok"]
        expect(level.locator("#time")).to_have_text(re.compile(
            "^(" + "|".join(f"{t // 60}:{t % 60:02d}" for t in range(first - 66, first - 59))
            + ")$"))
        assert service.command("pause_clock")["ok"]
        expect(level.locator("#state")).to_have_text("Paused")
        paused = level.locator("#time").inner_text()
        level.wait_for_timeout(1100)
        expect(level.locator("#time")).to_have_text(paused)
        assert service.command("resume_clock")["ok"]
        expect(level.locator("#state")).to_have_text("")
        # The player's identity from the console reaches the lower third and the leaderboard.
        assert service.command("set_player", seat=4, name="Rast Andersson",
                       display_name="Rast", country="SE")["ok"]
        expect(third.locator("#full-name")).to_have_text("Rast Andersson")
        expect(third.locator("#flag img")).to_have_attribute("src", "/static/flags/se.svg")
        expect(board.locator(".row[data-seat='4'] .flag img")).to_have_attribute(
            "src", "/static/flags/se.svg")
        third.wait_for_function("() => document.querySelector('#flag img').naturalWidth > 0")
        # A hand starts and the floor calls the clock on the player to act (R12): the overlay
        # on the venue channel (no delay) shows it on that player, counting down from 1:10.
        overlay = watch(browser, probe, f"{service.base}/overlay?channel=venue")
        assert service.command("next_hand")["ok"]
        cards = iter(["Ah", "As", "Kd", "Kc", "7s", "2d"])
        for seated in (1, 4, 7):
            assert service.command("deal_cards", seat=seated,
                           cards=[next(cards), next(cards)])["ok"]
        seat = next(s for s in service.view("venue")["seats"] if s["to_act"])
        assert service.command("call_clock", seat=seat["seat"])["ok"]
        expect(overlay.locator("#action-clock")).to_be_visible()
        expect(overlay.locator("#action-clock-name")).to_have_text(seat["name"])
        expect(overlay.locator("#action-clock-time")).to_have_text(
            re.compile(r"^1:(0\d|10)$"))
        expect(overlay.locator(f".player[data-seat='{seat['seat']}']")).to_have_class(
            re.compile(r"\bon-clock\b"))
        called = overlay.locator("#action-clock-time").inner_text()
        overlay.wait_for_timeout(1500)
        assert overlay.locator("#action-clock-time").inner_text() != called
        pages["overlay"] = overlay
        # The delayed channel's overlay shows the same clock only once its delay has passed,
        # counting the same seconds (the service puts the delay into the clock's times).
        delayed = watch(browser, probe, f"{service.base}/overlay?channel=delayed")
        pages["delayed"] = delayed
        expect(delayed.locator("#action-clock")).to_be_visible(timeout=10000)
        live_left = clock_seconds(overlay.locator("#action-clock-time").inner_text())
        delayed_left = clock_seconds(delayed.locator("#action-clock-time").inner_text())
        assert abs((delayed_left - live_left) - DELAY) <= 1.5, (live_left, delayed_left)
    finally:
        for page in pages.values():
            page.close()
    assert probe.page_errors == []
    assert probe.unexpected_console_errors() == []
    assert probe.foreign_requests() == []


def play_all_in(service: Service, cards: dict[int, list[str]], board: list[str]) -> None:
    """Everyone all in before the flop (a short stack calls), then the board."""
    if not service.command("next_hand")["ok"]:
        raise AssertionError("next_hand refused")
    for seat, hole in cards.items():
        service.command("deal_cards", seat=seat, cards=hole)
    while True:
        to_act = [s for s in service.view("venue")["seats"] if s["to_act"]]
        if not to_act:
            break
        try:
            service.command("all_in", seat=to_act[0]["seat"])
        except urllib.error.HTTPError:
            service.command("call", seat=to_act[0]["seat"])  # all in by calling
    for part in (board[:3], board[3:4], board[4:]):
        if service.view("venue")["table"]["street"] not in ("over", "showdown"):
            service.command("deal_board", cards=part)


def test_bust_outs_reach_each_channel_when_it_shows_them(browser: Browser,
                                                         service: Service) -> None:
    probe = Probe()
    record = """() => { window.shown = [];
        new MutationObserver(() => { const n = document.documentElement.dataset.showing;
            if (n && !window.shown.some(s => s[0] === n)) window.shown.push([n, Date.now()]); })
        .observe(document.documentElement, {attributes: true}); }"""
    venue = watch(browser, probe, f"{service.base}/elimination?channel=venue&seconds=1")
    delayed = watch(browser, probe, f"{service.base}/elimination?channel=delayed&seconds=1")
    board = watch(browser, probe, f"{service.base}/leaderboard?channel=delayed")
    try:
        for page in (venue, delayed):
            page.evaluate(record)
        # The hand of the clock test is still running: finish it, then Ashton's aces beat
        # both others all in; Yuki (the smaller stack) finishes 3rd, Rast 2nd (R22).
        while (to_act := [s for s in service.view("venue")["seats"] if s["to_act"]]):
            service.command("fold", seat=to_act[0]["seat"])
        started = time.time()
        play_all_in(service, {1: ["Ah", "As"], 4: ["7c", "2d"], 7: ["8c", "3d"]},
                    ["Kd", "Qh", "4s", "5c", "9h"])
        done = time.time()
        venue.wait_for_function("() => window.shown.length === 2", timeout=15000)
        delayed.wait_for_function("() => window.shown.length === 2", timeout=15000)
        shown_venue = venue.evaluate("window.shown")
        shown_delayed = delayed.evaluate("window.shown")
        assert [key for key, _ in shown_venue] == ["3|Yuki Tanaka", "2|Rast Andersson"]
        assert [key for key, _ in shown_delayed] == ["3|Yuki Tanaka", "2|Rast Andersson"]
        # Venue is live; the delayed channel shows the first bust-out no earlier than its delay
        # after the hand was played.
        assert shown_venue[0][1] / 1000 < done + DELAY
        assert shown_delayed[0][1] / 1000 >= started + DELAY - 0.05
        # The delayed leaderboard shows the winner alone, the others by place.
        expect(board.locator(".row:not(.out) .name")).to_have_text(["Ashton Griffin"])
        expect(board.locator(".row.out .rank")).to_have_text(["2nd", "3rd"])
        expect(board.locator(".row.out .name")).to_have_text(["Rast", "Yuki Tanaka"])
    finally:
        for page in (venue, delayed, board):
            page.close()
    assert probe.page_errors == []
    assert probe.unexpected_console_errors() == []
    assert probe.foreign_requests() == []


def test_the_program_on_the_real_service(browser: Browser, service: Service) -> None:
    """The composed program against the service's own headers (its CSP lets only its own
    pages frame a page): every graphic draws, the program is one page on one socket in the
    console's list, and the lower third the operator cues comes and goes."""
    from tests.pages.test_themes import put

    probe = Probe()
    page = watch(browser, probe, f"{service.base}/program?channel=venue")
    try:
        # (whoever is still in play after the other tests of this service)
        player = service.view("venue")["tournament"]["players"][0]
        overlay = page.frame_locator("iframe[data-graphic=overlay]")
        expect(overlay.locator(f".player[data-seat='{player['seat']}']")).to_have_count(1)
        expect(page.frame_locator("iframe[data-graphic=clock]").locator("#level")).to_have_text(
            re.compile(r"^Level \d+$"))
        deadline = time.monotonic() + 10
        while True:
            listed = [entry for entry in service.view("operator")["operator"]["pages"]
                      if entry["channel"] == "venue"]
            # (a socket is "unknown" until its hello has been read: wait for the hello)
            if (listed and all(entry["page"] != "unknown" for entry in listed)) \
                    or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert [entry["page"] for entry in listed] == ["program"], listed
        third = page.frame_locator("iframe[data-graphic=lowerthird]")
        expect(third.locator("#third")).not_to_have_class(re.compile(r"\bshown\b"))
        assert put(service.base, service.operator, {"lowerthird": player["seat"]})["on_air"][
            "lowerthird"] == player["seat"]
        expect(third.locator("#third")).to_have_class(re.compile(r"\bshown\b"))
        expect(third.locator("#name")).to_have_text(player["display_name"])
        put(service.base, service.operator, {"lowerthird": None})
        expect(third.locator("#third")).not_to_have_class(re.compile(r"\bshown\b"))
        headers = urllib.request.urlopen(f"{service.base}/program", timeout=10).headers
        assert "frame-ancestors 'self'" in headers["Content-Security-Policy"]
    finally:
        page.close()
    assert probe.page_errors == [] and probe.unexpected_console_errors() == []
    assert probe.foreign_requests() == []
