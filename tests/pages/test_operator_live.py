"""Two operator consoles on the real service (issue 20): a tablet (touch) at the table and a
laptop (keyboard) in the truck play the same hands on ``feltcast serve``.

Each sees the other's actions at once; a 2.5x open takes two taps; an R8 ruling is applied by
its button; undo and a confirmed misdeal; a command built on a view that changed since is
refused, never applied to the player now to act; two commands sent at once are serialised and
the second, built on the same view, is refused; then a hand played from the keyboard alone.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.pages.conftest import Probe
from tests.pages.service import Service, running_service


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    with running_service(tmp_path_factory.mktemp("live"), 2.0) as running:
        yield running


def console(browser: Browser, service: Service, probe: Probe, *, touch: bool,
            width: int, height: int) -> Page:
    context = browser.new_context(viewport={"width": width, "height": height},
                                  has_touch=touch, device_scale_factor=1)
    page = context.new_page()
    page.on("console", lambda m: probe.console_errors.append(m.text)
            if m.type == "error" else None)
    page.on("pageerror", lambda error: probe.page_errors.append(str(error)))
    page.goto(f"{service.base}/operator?token={service.operator}")
    expect(page.locator("html")).to_have_attribute("data-connection", "live")
    return page


def settle(page: Page) -> None:
    expect(page.locator("body")).not_to_have_class("busy")


def seat_of(view: dict[str, Any], number: int) -> dict[str, Any]:
    seat: dict[str, Any] = next(s for s in view["seats"] if s["seat"] == number)
    return seat


def to_act(*pages: Page, text: str) -> None:
    for page in pages:
        expect(page.locator("#to-act-name")).to_have_text(text)


def test_two_consoles_play_together_and_a_stale_command_is_refused(
        browser: Browser, service: Service) -> None:
    probe = Probe(allow_rejections=True)  # the refusals below are on purpose
    tablet = console(browser, service, probe, touch=True, width=1180, height=820)
    laptop = console(browser, service, probe, touch=False, width=1366, height=1024)
    try:
        tablet.locator("#btn-next-hand").tap()
        settle(tablet)
        for seat, cards in ((1, ["Ah", "Kd"]), (4, ["Js", "Ts"]), (7, ["Qd", "Qc"])):
            service.command("deal_cards", seat=seat, cards=cards)
        view = service.view("operator")
        big_blind = view["table"]["level"]["big_blind"]
        to_act(tablet, laptop, text="Seat 1 · Ashton Griffin")

        # A 2.5x open in two taps on the tablet; the laptop sees it at once.
        tablet.locator(".preset[data-preset='2.5x']").tap()
        tablet.locator("#btn-amount").tap()
        to_act(tablet, laptop, text="Seat 4 · Rast")
        assert seat_of(service.view("operator"), 1)["bet"] == big_blind * 5 // 2

        # The laptop types a short raise: refused with the R8 ruling, applied by its button.
        short = big_blind * 5 // 2 + big_blind * 3 // 2 * 3 // 4
        laptop.keyboard.type(str(short))
        expect(laptop.locator("#amount")).to_have_text(f"{short:,}")
        laptop.keyboard.press("Enter")
        expect(laptop.locator("#error-detail")).to_have_text("illegal_action · R8")
        expect(laptop.locator("#apply-ruling")).to_have_text(
            f"Apply: raise to {big_blind * 4:,}")
        laptop.click("#apply-ruling")
        to_act(tablet, laptop, text="Seat 7 · Yuki Tanaka")
        expect(laptop.locator("#error")).to_be_hidden()
        assert seat_of(service.view("operator"), 4)["bet"] == big_blind * 4

        # Undo on the tablet names what it takes back; both consoles are back at seat 4.
        expect(tablet.locator("#undo-label")).to_have_text(
            f"Undo: Rast raises to {big_blind * 4:,}")
        tablet.locator("#btn-undo").tap()
        to_act(tablet, laptop, text="Seat 4 · Rast")

        # The laptop's view falls behind (its socket stops); the tablet calls for Rast. The
        # laptop's fold, meant for Rast, is refused: Yuki, now to act, keeps his hand.
        laptop.evaluate("window.feltcast.channel.stop()")
        settle(tablet)
        tablet.locator("#btn-call").tap()
        to_act(tablet, text="Seat 7 · Yuki Tanaka")
        expect(laptop.locator("#to-act-name")).to_have_text("Seat 4 · Rast")
        settle(laptop)
        laptop.keyboard.press("f")
        expect(laptop.locator("#error-detail")).to_have_text("stale_command")
        expect(laptop.locator("#error-message")).to_contain_text("was not applied")
        view = service.view("operator")
        assert not seat_of(view, 4)["folded"] and not seat_of(view, 7)["folded"]
        assert view["operator"]["legal"]["seat"] == 7
        laptop.evaluate("window.feltcast.channel.start()")
        to_act(laptop, text="Seat 7 · Yuki Tanaka")
        laptop.click("#dismiss-error")

        # Both consoles act on the same view (their sockets held, so that neither can see the
        # other's command): the service serialises the two commands; the one that comes
        # second (the laptop's, sent once the tablet's is applied), built on a view that has
        # changed, is refused.
        expect(tablet.locator("html")).to_have_attribute(
            "data-revision", laptop.locator("html").get_attribute("data-revision") or "")
        assert service.view("operator")["operator"]["legal"]["seat"] == 7
        for page in (tablet, laptop):
            page.evaluate("window.feltcast.channel.stop()")
        tablet.evaluate("document.getElementById('btn-call').click()")
        expect(tablet.locator("#btn-fold")).to_be_disabled()  # sent: waiting for its view
        deadline = time.monotonic() + 10
        while not (seat_of(service.view("operator"), 7)["last_action"] or "").startswith("Call"):
            assert time.monotonic() < deadline, "the tablet's call was not applied"
            time.sleep(0.05)  # polling the service's state, not waiting for time
        laptop.evaluate("document.getElementById('btn-fold').click()")
        expect(laptop.locator("#error-detail")).to_have_text("stale_command")
        expect(tablet.locator("#error")).to_be_hidden()
        for page in (tablet, laptop):
            page.evaluate("window.feltcast.channel.start()")
            settle(page)
        yuki = seat_of(service.view("operator"), 7)
        assert not yuki["folded"] and (yuki["last_action"] or "").startswith("Call")

        # A misdeal asks first, then voids the hand (R13): stacks back, on both consoles.
        tablet.locator("#btn-misdeal").tap()
        expect(tablet.locator("#confirm-text")).to_contain_text("void hand")
        tablet.locator("#btn-confirm-yes").tap()
        for page in (tablet, laptop):
            expect(page.locator("#btn-next-hand")).to_be_enabled()
        stacks = {s["seat"]: s["stack"] for s in service.view("operator")["seats"] if s["name"]}
        assert stacks == {1: 500000, 4: 420000, 7: 310000}
    finally:
        for page in (tablet, laptop):
            page.context.close()
    assert probe.page_errors == []
    assert probe.unexpected_console_errors() == []


def test_a_hand_played_from_the_keyboard_alone(browser: Browser, service: Service) -> None:
    probe = Probe()
    if not service.view("operator")["operator"]["between_hands"]:
        service.command("misdeal")  # whatever another test left running
    laptop = console(browser, service, probe, touch=False, width=1366, height=1024)

    def press(key: str) -> None:
        settle(laptop)
        laptop.keyboard.press(key)

    def enter_cards(codes: str) -> None:
        press("d")
        expect(laptop.locator("#manual")).to_be_visible()
        for char in codes:
            laptop.keyboard.press(char)
        expect(laptop.locator("#manual-picked")).to_have_text(
            " ".join(codes[i:i + 2].capitalize() for i in range(0, len(codes), 2)))
        laptop.keyboard.press("Enter")
        expect(laptop.locator("#manual-picked")).to_have_text("")

    try:
        press("?")  # the keys are listed on the page
        expect(laptop.locator("#keys-list dt").first).to_have_text("F")
        press("Escape")
        expect(laptop.locator("#keys-help")).to_be_hidden()
        press("n")
        expect(laptop.locator("#btn-cards")).to_have_class("btn needed")
        enter_cards("ahkd")
        enter_cards("jsts")
        enter_cards("qdqc")
        expect(laptop.locator("#manual")).to_be_hidden()  # nothing missing: it closed
        to_act(laptop, text="Seat 1 · Ashton Griffin")
        press("f")
        to_act(laptop, text="Seat 4 · Rast")
        press("c")
        to_act(laptop, text="Seat 7 · Yuki Tanaka")
        press("k")
        enter_cards("qs9s8c")  # the flop
        to_act(laptop, text="Seat 4 · Rast")
        press("k")
        to_act(laptop, text="Seat 7 · Yuki Tanaka")
        press("Shift+Digit1")  # the first size: the minimum bet
        expect(laptop.locator(".preset.chosen")).to_have_attribute("data-preset", "min")
        press("Enter")
        to_act(laptop, text="Seat 4 · Rast")
        press("f")
        expect(laptop.locator("#btn-next-hand")).to_be_enabled()
        view = service.view("operator")
        assert seat_of(view, 7)["winner"] and seat_of(view, 1)["folded"]
    finally:
        laptop.context.close()
    assert probe.page_errors == []
    assert probe.unexpected_console_errors() == []
