"""The pages against the real service: ``feltcast serve`` as a subprocess, Debian's Chromium.

A hand is played through the operator console by clicks (cards entered by hand, as when
capture fails); the overlays on ``secure``, ``venue`` and ``delayed`` and the commentary screen
watch it. Each channel shows exactly what it may, when it may: ``venue`` never draws a hole
card (R20: the hand ends without a showdown), ``delayed`` draws them no earlier than D seconds
after they were dealt. A missing or wrong token is refused.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.pages.conftest import Probe
from tests.pages.service import Service, running_service

DELAY = 4.0  # seconds: long enough to look at the delayed overlay before it may show a card


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    with running_service(tmp_path_factory.mktemp("serve"), DELAY) as running:
        yield running


def watch(browser: Browser, probe: Probe, width: int = 1920, height: int = 1080) -> Page:
    page = browser.new_page(viewport={"width": width, "height": height})
    page.on("console", lambda m: probe.console_errors.append(m.text)
            if m.type == "error" else None)
    page.on("pageerror", lambda error: probe.page_errors.append(str(error)))
    page.on("request", lambda request: probe.requests.append(request.url))
    return page


# Records, in the page, every hole card ever drawn face up and when it first appeared.
RECORD_FACES = """() => {
    window.firstSeen = {};
    const record = () => {
        for (const n of document.querySelectorAll('.player .card.face')) {
            const code = n.dataset.card;
            if (!(code in window.firstSeen)) window.firstSeen[code] = Date.now();
        }
    };
    new MutationObserver(record).observe(document.body, {subtree: true, childList: true});
    record();
}"""


def hole_cards(page: Page, seat: int) -> list[str]:
    codes: list[str] = page.locator(f".player[data-seat='{seat}'] .card").evaluate_all(
        "ns => ns.map(n => n.dataset.card || 'back')")
    return codes


def test_a_hand_played_by_clicks_reaches_each_channel_as_it_may(
        browser: Browser, service: Service, artifacts: Path) -> None:
    probe = Probe()
    console = watch(browser, probe, 1366, 1024)
    secure = watch(browser, probe)
    venue = watch(browser, probe)
    delayed = watch(browser, probe)
    commentary = watch(browser, probe, 1600, 1000)
    try:
        console.goto(f"{service.base}/operator?token={service.operator}")
        secure.goto(f"{service.base}/overlay?channel=secure&token={service.secure}")
        venue.goto(f"{service.base}/overlay?channel=venue")
        delayed.goto(f"{service.base}/overlay?channel=delayed")
        commentary.goto(f"{service.base}/commentary")
        for page in (console, secure, venue, delayed, commentary):
            expect(page.locator("html")).to_have_attribute("data-connection", "live")
        venue.evaluate(RECORD_FACES)
        delayed.evaluate(RECORD_FACES)
        expect(console.locator("#pages .chip")).to_have_count(5)  # every page said hello

        def click(selector: str) -> None:
            button = console.locator(selector)
            expect(button).to_be_enabled()
            button.click()
            expect(console.locator("body")).not_to_have_class("busy")
            expect(console.locator("#error")).to_be_hidden()

        def enter_cards(target: str, cards: list[str]) -> None:
            if console.locator("#manual").is_hidden():  # the picker: one tap away
                console.click("#btn-cards")
            console.select_option("#manual-target", target)
            for card in cards:
                console.click(f".pick[data-card='{card}']")
            click("#btn-manual-send")

        click("#btn-next-hand")
        dealt_at = time.time()
        enter_cards("seat:1", ["Ah", "Kd"])
        enter_cards("seat:4", ["Js", "Ts"])
        enter_cards("seat:7", ["Qd", "Qc"])
        expect(console.locator("#manual")).to_be_hidden()  # no card missing: it closed
        # secure: live and full; venue: live, public (backs only).
        expect(secure.locator(".player[data-seat='7'] .card.face")).to_have_count(2)
        assert hole_cards(secure, 1) == ["Ah", "Kd"]
        expect(venue.locator(".player[data-seat='7'] .card.back")).to_have_count(2)
        assert hole_cards(venue, 1) == ["back", "back"]
        # delayed: nothing before D has passed (looked at just before, unless dealing was so
        # slow on a loaded machine that D is nearly over; the time stamps below prove it) ...
        time.sleep(max(0.0, dealt_at + DELAY - 0.8 - time.time()))
        if time.time() < dealt_at + DELAY - 0.2:
            assert delayed.evaluate("Object.keys(window.firstSeen)") == []
        # ... and everything once it has.
        expect(delayed.locator(".player[data-seat='7'] .card.face")).to_have_count(2,
                                                                                timeout=10000)
        first_seen = delayed.evaluate("window.firstSeen")
        assert set(first_seen) == {"Ah", "Kd", "Js", "Ts", "Qd", "Qc"}
        assert min(first_seen.values()) / 1000 >= dealt_at + DELAY - 0.05

        # Pre-flop, three-handed: the button acts first (R4): a minimum raise, two calls.
        expect(console.locator("#to-act-name")).to_have_text("Seat 1 · Ashton Griffin")
        console.click("#keypad .key[data-key='min']")
        click("#btn-amount")
        expect(console.locator("#to-act-name")).to_have_text("Seat 4 · Rast")
        click("#btn-call")
        expect(console.locator("#to-act-name")).to_have_text("Seat 7 · Yuki Tanaka")
        click("#btn-call")
        enter_cards("board", ["Qs", "9s", "8c"])
        for page in (secure, venue):
            expect(page.locator("#board .card.face")).to_have_count(3)
        expect(secure.locator(".player[data-seat='4'] .equity-value")).not_to_have_text("")
        expect(venue.locator(".player.has-equity")).to_have_count(0)
        expect(delayed.locator("#board .card.face")).to_have_count(3, timeout=10000)
        for name, page in (("secure", secure), ("venue", venue), ("delayed", delayed)):
            page.wait_for_timeout(400)
            page.screenshot(path=str(artifacts / f"e2e-overlay-{name}-flop.png"),
                            omit_background=True)
        commentary.screenshot(path=str(artifacts / "e2e-commentary-flop.png"), full_page=True)

        # Flop: Rast bets, the others fold; the hand ends without a showdown.
        expect(console.locator("#to-act-name")).to_have_text("Seat 4 · Rast")
        expect(console.locator("#amount-label")).to_have_text("Bet")
        console.click("#keypad .key[data-key='min']")
        click("#btn-amount")
        click("#btn-fold")
        click("#btn-fold")
        expect(secure.locator("#winner-name")).to_contain_text("Rast wins")
        expect(console.locator("#btn-next-hand")).to_be_enabled()
        expect(delayed.locator("#winner-name")).to_contain_text("Rast wins", timeout=10000)
        expect(commentary.locator(".player[data-seat='4'] .state")).to_contain_text("Wins",
                                                                                   timeout=10000)
        # The venue never drew a hole card: folded hands are dead (R20), nothing was shown.
        assert venue.evaluate("Object.keys(window.firstSeen)") == []
        expect(venue.locator("#winner-name")).to_contain_text("Rast wins")
    finally:
        for page in (console, secure, venue, delayed, commentary):
            page.close()
    assert probe.page_errors == []
    assert probe.unexpected_console_errors() == []
    assert probe.foreign_requests() == []


def test_a_missing_or_wrong_token_is_refused(browser: Browser, service: Service) -> None:
    probe = Probe(allow_websocket_errors=True, allow_rejections=True)
    overlay = watch(browser, probe)
    console = watch(browser, probe, 1366, 1024)
    try:
        for query in ("", "&token=wrong", f"&token={service.operator[:-1]}"):
            overlay.goto(f"{service.base}/overlay?channel=secure{query}")
            overlay.wait_for_timeout(800)
            expect(overlay.locator("html")).not_to_have_attribute("data-connection", "live")
            expect(overlay.locator(".player")).to_have_count(0)
        console.goto(f"{service.base}/operator")
        console.fill("#token-input", service.secure)  # opens secure, not the console
        console.click("#login button[type=submit]")
        expect(console.locator("#login-message")).to_have_text("the operator token is wrong")
        expect(console.locator("#console")).to_be_hidden()
    finally:
        overlay.close()
        console.close()
    assert probe.page_errors == []
    assert probe.unexpected_console_errors() == []
    assert probe.foreign_requests() == []


def test_an_all_in_showdown_is_revealed_and_its_winning_five_highlighted(
        browser: Browser, service: Service, artifacts: Path) -> None:
    probe = Probe()
    console = watch(browser, probe, 1366, 1024)
    secure = watch(browser, probe)
    venue = watch(browser, probe)
    hands = {1: ["Ah", "Kd"], 4: ["Js", "Ts"], 7: ["Qd", "Qc"]}
    try:
        console.goto(f"{service.base}/operator?token={service.operator}")
        secure.goto(f"{service.base}/overlay?channel=secure&token={service.secure}")
        venue.goto(f"{service.base}/overlay?channel=venue")
        for page in (console, secure, venue):
            expect(page.locator("html")).to_have_attribute("data-connection", "live")

        def click(selector: str) -> None:
            expect(console.locator(selector)).to_be_enabled()
            console.click(selector)
            expect(console.locator("body")).not_to_have_class("busy")
            expect(console.locator("#error")).to_be_hidden()

        def needed() -> list[str]:
            options: list[str] = console.locator("#manual-target option").evaluate_all(
                "os => os.filter(o => o.text.includes('missing')).map(o => o.value)")
            return options

        def open_picker() -> None:
            if console.locator("#manual").is_hidden():  # the picker: one tap away
                console.click("#btn-cards")

        click("#btn-next-hand")
        for seat, cards in hands.items():
            open_picker()
            console.select_option("#manual-target", f"seat:{seat}")
            for card in cards:
                console.click(f".pick[data-card='{card}']")
            click("#btn-manual-send")
        # Whoever acts first folds, the next moves all-in, the last calls: R14 all-in showdown.
        folded = console.locator("#to-act-name").text_content() or ""
        click("#btn-fold")
        click("#btn-all-in")
        if console.locator("#btn-call").is_enabled():
            click("#btn-call")
        else:  # the all-in covers the last player: calling is all-in too
            click("#btn-all-in")
        for board in (["Qs", "9s", "8c"], ["2h"], ["3c"]):
            expect(console.locator("#manual-target option", has_text="Board (")).to_have_count(1)
            assert "board" in needed()
            open_picker()
            console.select_option("#manual-target", "board")
            for card in board:
                console.click(f".pick[data-card='{card}']")
            click("#btn-manual-send")
        expect(secure.locator("#winner")).to_be_visible()
        expect(secure.locator(".card.best")).to_have_count(5)  # the winner's best five
        expect(venue.locator("#winner")).to_be_visible()
        expect(venue.locator(".card.best")).to_have_count(5)
        # The venue sees the two hands that went to showdown, never the folded one (R20).
        folded_seat = int(folded.split("·")[0].replace("Seat", "").strip())
        expect(venue.locator(".player .card.face")).to_have_count(4)
        expect(venue.locator(f".player[data-seat='{folded_seat}'] .card.face")).to_have_count(0)
        for name, page in (("secure", secure), ("venue", venue)):
            page.wait_for_timeout(500)
            page.screenshot(path=str(artifacts / f"e2e-overlay-{name}-showdown.png"),
                            omit_background=True)
    finally:
        for page in (console, secure, venue):
            page.close()
    assert probe.page_errors == []
    assert probe.unexpected_console_errors() == []
    assert probe.foreign_requests() == []
