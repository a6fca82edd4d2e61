"""The operator console in Debian's Chromium: typed commands on clicks (docs/commands.md),
the keypad's limits and the server's error messages."""

from __future__ import annotations

import copy
import re
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from tests.pages.conftest import Probe
from tests.pages.harness import Harness
from tests.pages.views import operator_view

TOKEN = "op-token-123"
UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def open_console(page: Page, harness: Harness, view: dict[str, Any] | None = None,
                 revision: int = 1) -> None:
    harness.set_view("operator", view or operator_view(), revision)
    page.goto(f"{harness.base}/operator")
    expect(page.locator("#login")).to_be_visible()
    page.fill("#token-input", TOKEN)
    page.click("#login button[type=submit]")
    expect(page.locator("html")).to_have_attribute("data-revision", str(revision))


def sent(harness: Harness, count: int) -> list[dict[str, Any]]:
    harness.wait_until(lambda: len(harness.commands) >= count)
    assert len(harness.commands) == count
    for command in harness.commands:
        assert command.authorization == f"Bearer {TOKEN}"
        assert UUID4.match(command.body["id"])
        # A table command carries the revision of the view it was built on
        # (docs/commands.md); a deck command does not.
        if command.body["type"].startswith("deck_"):
            assert "revision" not in command.body
        else:
            assert isinstance(command.body["revision"], int) and command.body["revision"] >= 1
    return [{k: v for k, v in c.body.items() if k not in ("id", "revision")}
            for c in harness.commands]


def settle(page: Page) -> None:
    """Wait until no command is in flight."""
    expect(page.locator("body")).not_to_have_class("busy")


def test_token_is_entered_once_and_kept_for_the_tab(page: Page, harness: Harness) -> None:
    open_console(page, harness)
    (hello,) = harness.hellos_on("operator")
    assert hello.token == TOKEN and hello.message["page"] == "operator"
    assert page.evaluate("sessionStorage.getItem('feltcast.operator.token')") == TOKEN
    page.reload()
    expect(page.locator("#console")).to_be_visible()
    expect(page.locator("#login")).to_be_hidden()
    harness.wait_until(lambda: len(harness.hellos_on("operator")) == 2)
    assert harness.hellos_on("operator")[1].token == TOKEN


def test_clicks_send_typed_commands(page: Page, harness: Harness) -> None:
    open_console(page, harness)
    expect(page.locator("#to-act-name")).to_have_text("Seat 1 · Ashton Griffin")
    expect(page.locator("#btn-check")).to_be_disabled()  # facing a bet: no check
    expect(page.locator("#btn-next-hand")).to_be_disabled()  # a hand is running
    expect(page.locator("#btn-call")).to_have_text("Call 24,000")
    expect(page.locator("#btn-all-in")).to_have_text("All-in 734,000")
    expect(page.locator("#undo-label")).to_have_text("Undo: Rast bets 24,000")
    page.click("#btn-call")  # fold, check, call, raise and all-in never ask
    settle(page)
    page.click("#btn-fold")
    settle(page)
    page.click("#btn-all-in")
    settle(page)
    expect(page.locator("#confirm")).to_be_hidden()
    for key in ("5", "000", "0"):
        page.click(f"#keypad .key[data-key='{key}']")
    expect(page.locator("#amount")).to_have_text("50,000")
    expect(page.locator("#btn-amount")).to_have_text("Raise to 50,000")
    page.click("#btn-amount")
    settle(page)
    expect(page.locator("#amount")).to_have_text("0")  # cleared once acknowledged
    page.click("#btn-undo")
    settle(page)
    page.click("#btn-misdeal")  # it asks first (R13 voids the hand)
    expect(page.locator("#confirm-text")).to_contain_text("void hand 57")
    page.click("#btn-confirm-no")
    expect(page.locator("#confirm")).to_be_hidden()
    page.click("#btn-misdeal")
    page.click("#btn-confirm-yes")
    settle(page)
    page.click("#btn-clock")
    settle(page)
    assert sent(harness, 7) == [
        {"type": "call", "seat": 1},
        {"type": "fold", "seat": 1},
        {"type": "all_in", "seat": 1},
        {"type": "raise_to", "seat": 1, "amount": 50000},
        {"type": "undo"},
        {"type": "misdeal"},
        {"type": "call_clock", "seat": 1},
    ]
    ids = {command.body["id"] for command in harness.commands}
    assert len(ids) == 7


def test_keypad_clamps_to_the_maximum_and_flags_amounts_below_the_minimum(
        page: Page, harness: Harness, probe: Probe) -> None:
    probe.allow_rejections = True  # Chromium logs the 422 it is sent on purpose
    open_console(page, harness)
    expect(page.locator("#amount-min")).to_have_text("min 48,000")
    expect(page.locator("#amount-max")).to_have_text("max 734,000")
    expect(page.locator("#btn-amount")).to_be_disabled()
    for _ in range(7):
        page.click("#keypad .key[data-key='9']")
    expect(page.locator("#amount")).to_have_text("734,000")
    expect(page.locator("#amount")).to_have_class("amount clamped")
    page.click("#keypad .key[data-key='back']")
    expect(page.locator("#amount")).to_have_text("73,400")
    page.click("#keypad .key[data-key='min']")
    expect(page.locator("#amount")).to_have_text("48,000")
    page.keyboard.press("Escape")  # a keyboard works like the keypad
    for key in "60000":
        page.keyboard.press(key)
    expect(page.locator("#amount")).to_have_text("60,000")
    page.keyboard.press("Backspace")
    expect(page.locator("#amount")).to_have_text("6,000")
    page.click("#keypad .key[data-key='max']")
    expect(page.locator("#amount")).to_have_text("734,000")
    # Below the minimum: R8 is the engine's ruling; the keypad explains and never changes it.
    page.click("#keypad .key[data-key='clear']")
    for key in ("3", "000", "0"):
        page.click(f"#keypad .key[data-key='{key}']")
    expect(page.locator("#amount")).to_have_text("30,000")
    expect(page.locator("#ruling")).to_contain_text("(R8)")
    expect(page.locator("#keypad")).to_have_class("keypad below-min")
    ruling = {"text": "raise to 48,000",
              "command": {"type": "raise_to", "seat": 1, "amount": 48000}}
    harness.reply_next(409, {"error": {  # the shape of docs/commands.md, "Replies"
        "code": "illegal_action", "rule": "R8", "ruling": ruling,
        "legal": [{"type": "call", "amount": 24000, "to": 24000},
                  {"type": "raise_to", "min": 48000, "max": 734000, "all_in": False},
                  {"type": "fold"}],
        "message": "A raise to 30,000 is below the minimum of 48,000; it adds 6,000 of the "
                   "24,000 increment, 50 % or more, so it is completed to 48,000 (R8)."}})
    page.click("#btn-amount")
    expect(page.locator("#error-message")).to_have_text(
        "A raise to 30,000 is below the minimum of 48,000; it adds 6,000 of the 24,000 "
        "increment, 50 % or more, so it is completed to 48,000 (R8).")
    expect(page.locator("#error-detail")).to_have_text("illegal_action · R8")
    expect(page.locator("#amount")).to_have_text("30,000")  # kept for a correction
    expect(page.locator("#apply-ruling")).to_have_text("Apply: raise to 48,000")
    page.click("#apply-ruling")
    settle(page)
    expect(page.locator("#error")).to_be_hidden()
    assert sent(harness, 2) == [{"type": "raise_to", "seat": 1, "amount": 30000},
                                {"type": "raise_to", "seat": 1, "amount": 48000}]


def test_every_rejection_shows_the_servers_message(page: Page, harness: Harness,
                                                   probe: Probe) -> None:
    probe.allow_rejections = True  # Chromium logs the 409 and 401 it is sent on purpose
    open_console(page, harness)
    harness.reply_next(409, {"error": {"code": "illegal_action", "rule": "R9",
                                       "message": "It is not seat 1's turn: seat 4 acts (R9)"}})
    page.click("#btn-fold")
    expect(page.locator("#error-message")).to_have_text(
        "It is not seat 1's turn: seat 4 acts (R9)")
    expect(page.locator("#error-detail")).to_have_text("illegal_action · R9")
    expect(page.locator("#apply-ruling")).to_be_hidden()
    page.click("#dismiss-error")
    expect(page.locator("#error")).to_be_hidden()
    # A refused token sends the operator back to the token form with the server's words.
    harness.reply_next(401, {"error": {"code": "unauthorized",
                                       "message": "The operator token is missing or wrong"}})
    page.click("#btn-call")
    expect(page.locator("#login")).to_be_visible()
    expect(page.locator("#login-message")).to_have_text("The operator token is missing or wrong")
    assert page.evaluate("sessionStorage.getItem('feltcast.operator.token')") is None


def test_between_hands_seats_names_stacks_and_next_hand(page: Page, harness: Harness) -> None:
    view = operator_view()
    view["operator"].update(between_hands=True, legal=None)
    view["table"].update(street=None, board=[], to_call=0)
    for seat in view["seats"]:
        seat.update(cards=[], to_act=False, folded=False, last_action=None, bet=0, equity=None)
    open_console(page, harness, view)
    expect(page.locator("#btn-fold")).to_be_disabled()
    expect(page.locator("#keypad .key[data-key='5']")).to_be_disabled()
    expect(page.locator("#btn-misdeal")).to_be_disabled()
    sheet = page.locator("#seat-sheet")
    page.locator(".seat[data-seat='5'] .more").click()  # an empty seat: seat a player
    expect(page.locator("#seat-sheet-title")).to_have_text("Seat 5")
    expect(sheet.locator(".edit-name")).to_have_value("")
    expect(sheet.locator(".empty")).to_be_hidden()
    sheet.locator(".edit-name").fill("Pia Wunderlich")
    sheet.locator(".edit-stack").fill("1,250,000")
    sheet.locator(".save").click()
    settle(page)
    page.click("#btn-seat-close")
    page.locator(".seat[data-seat='6'] .more").click()
    expect(sheet.locator(".edit-name")).to_have_value("Daniel Ortega")
    sheet.locator(".empty").click()  # removing a player asks first
    expect(page.locator("#confirm-text")).to_have_text(
        "Remove Daniel Ortega from seat 6? The seat becomes empty.")
    page.click("#btn-confirm-yes")
    settle(page)
    expect(sheet).to_be_hidden()
    page.click("#btn-next-hand")
    settle(page)
    assert sent(harness, 3) == [
        {"type": "set_seat", "seat": 5, "name": "Pia Wunderlich", "stack": 1250000},
        {"type": "empty_seat", "seat": 6},
        {"type": "next_hand"},
    ]


def test_manual_card_entry_when_capture_fails(page: Page, harness: Harness) -> None:
    view = operator_view()
    view["operator"]["cards_needed"] = [{"target": "seat", "seat": 4, "count": 2}]
    open_console(page, harness, view)
    expect(page.locator("#btn-cards")).to_have_class("btn needed")
    expect(page.locator("#btn-cards")).to_have_text("Cards · seat 4")
    page.click("#btn-cards")  # one tap opens the picker
    expect(page.locator("#manual-target")).to_have_value("seat:4")
    expect(page.locator(".pick[data-card='Qs']")).to_be_disabled()  # on the board
    expect(page.locator(".pick[data-card='Ah']")).to_be_disabled()  # in a hand
    page.click(".pick[data-card='2c']")
    page.click(".pick[data-card='7h']")
    page.click(".pick[data-card='2c']")  # tapped again: taken back
    page.click(".pick[data-card='3c']")
    expect(page.locator("#manual-picked")).to_have_text("7h 3c")
    page.click("#btn-manual-send")
    settle(page)
    expect(page.locator("#manual-picked")).to_have_text("")
    page.select_option("#manual-target", "board")
    page.click(".pick[data-card='Kh']")
    page.click("#btn-manual-send")
    settle(page)
    assert sent(harness, 2) == [{"type": "deal_cards", "seat": 4, "cards": ["7h", "3c"]},
                                {"type": "deal_board", "cards": ["Kh"]}]


def test_clock_health_channels_and_live_updates(page: Page, harness: Harness,
                                                artifacts: Path) -> None:
    page.set_viewport_size({"width": 1366, "height": 1024})
    open_console(page, harness)
    expect(page.locator("#health .chip")).to_have_text(
        ["reader:table: silent (no frame for 12 s)", "reader:burn: ok", "OBS: Stream delay 30 s"])
    expect(page.locator("#channels .chip")).to_have_text(
        ["venue live · 2", "delayed 30 s · 3", "secure live · 1"])
    expect(page.locator("#alerts li")).to_have_text(["reader:table: Reader 'table' is silent"])
    expect(page.locator("#pages .chip").nth(1)).to_contain_text("old version")
    # A page its channel refuses (it stays blank on air): named with the reason.
    expect(page.locator("#pages .chip.refused")).to_have_text(
        "overlay on secure refused (10.0.0.7): that token does not open the secure channel")
    expect(page.locator("#clock")).to_have_text("—")
    expect(page.locator("#btn-stop-clock")).to_be_disabled()
    # As the service sends a called clock (R12): the operator's phase and seat, and the
    # tournament's action_clock, which every page counts down from (on server time).
    ends = time.time() + 59.5
    harness.push_patch("operator", {"operator": {"clock": {"seat": 1, "phase": "minute",
                                                           "remaining": 59.5}},
                                    "tournament": {"action_clock": {
                                        "seat": 1, "ends_at": ends, "countdown_at": ends - 10}}})
    expect(page.locator("#clock")).to_have_text(re.compile(r"^0:5\d · Ashton Griffin$"))
    expect(page.locator("#btn-stop-clock")).to_be_enabled()
    page.wait_for_timeout(300)
    page.screenshot(path=str(artifacts / "operator-tablet.png"), full_page=True)
    page.set_viewport_size({"width": 820, "height": 1180})  # a tablet held upright
    page.wait_for_timeout(200)
    page.screenshot(path=str(artifacts / "operator-tablet-portrait.png"), full_page=True)
    page.set_viewport_size({"width": 1366, "height": 1024})
    # The next player is to act: the buttons follow the server's legal actions.
    legal = copy.deepcopy(operator_view()["operator"]["legal"])
    legal.update(seat=4, name="Rast", check=True, call=None, raise_=None)
    legal.pop("raise_")
    legal.update(bet={"min": 8000, "max": 954000}, raise_to=None)
    legal.pop("raise_to")
    legal["raise"] = None
    harness.push_patch("operator", {"operator": {"legal": legal, "clock": {"phase": "idle",
                                                                            "seat": None,
                                                                            "remaining": None}}})
    expect(page.locator("#to-act-name")).to_have_text("Seat 4 · Rast")
    expect(page.locator("#btn-check")).to_be_enabled()
    expect(page.locator("#btn-call")).to_be_disabled()
    expect(page.locator("#amount-label")).to_have_text("Bet")
    expect(page.locator("#amount-min")).to_have_text("min 8,000")
    page.click("#keypad .key[data-key='min']")
    page.click("#btn-amount")
    settle(page)
    page.click("#btn-check")
    settle(page)
    assert sent(harness, 2) == [{"type": "bet", "seat": 4, "amount": 8000},
                                {"type": "check", "seat": 4}]


def test_a_token_refused_by_the_channel_asks_for_it_again(page: Page, harness: Harness) -> None:
    open_console(page, harness)
    harness.push_raw("operator", {"type": "error", "error": {
        "code": "unauthorized", "message": "This channel needs the operator token"}})
    expect(page.locator("#login")).to_be_visible()
    expect(page.locator("#login-message")).to_have_text("This channel needs the operator token")
    assert page.evaluate("sessionStorage.getItem('feltcast.operator.token')") is None
    harness.wait_until(lambda: harness.connected("operator") == 0)
    # Any other channel error is shown like a rejected command; the console keeps working.
    page.fill("#token-input", TOKEN)
    page.click("#login button[type=submit]")
    harness.wait_until(lambda: harness.connected("operator") == 1)
    expect(page.locator("#console")).to_be_visible()
    harness.push_raw("operator", {"type": "error", "error": {
        "code": "capture_fault", "message": "Reader 'table' went offline"}})
    expect(page.locator("#error-message")).to_have_text("Reader 'table' went offline")


def test_a_wrong_token_is_refused_before_any_command(page: Page, harness: Harness,
                                                     probe: Probe) -> None:
    probe.allow_rejections = True  # Chromium logs the 401 of the token check
    harness.operator_token = TOKEN
    harness.set_view("operator", operator_view())
    page.goto(f"{harness.base}/operator")
    page.fill("#token-input", "not-the-token")
    page.click("#login button[type=submit]")
    expect(page.locator("#login-message")).to_have_text("the operator token is wrong")
    expect(page.locator("#console")).to_be_hidden()
    assert page.evaluate("sessionStorage.getItem('feltcast.operator.token')") is None
    assert harness.commands == []
    page.fill("#token-input", TOKEN)
    page.click("#login button[type=submit]")
    expect(page.locator("#console")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("data-connection", "live")
    page.wait_for_timeout(300)  # the token check has answered: the console stays
    expect(page.locator("#login")).to_be_hidden()


def test_seat_tools_button_and_level_send_their_commands(page: Page, harness: Harness) -> None:
    view = operator_view()
    view["table"]["street"] = "river"
    view["seats"][6]["sitting_out"] = True  # Yuki is away (R11)
    open_console(page, harness, view)
    ashton, yuki = page.locator(".seat[data-seat='1']"), page.locator(".seat[data-seat='7']")
    page.locator(".seat[data-seat='2'] .more").click()
    expect(page.locator("#seat-sheet .restrict")).to_be_hidden()  # folded: no R10
    page.click("#btn-seat-close")
    expect(page.locator(".seat[data-seat='5'] .more")).to_be_hidden()  # an empty seat
    sheet = page.locator("#seat-sheet")
    ashton.locator(".more").click()
    sheet.locator(".restrict").click()  # an exposed card asks first (R10)
    expect(page.locator("#confirm-text")).to_contain_text("Ashton Griffin exposed a hole card")
    page.click("#btn-confirm-yes")
    settle(page)
    expect(sheet).to_be_hidden()
    ashton.locator(".show").click()
    settle(page)
    ashton.locator(".muck").click()
    settle(page)
    ashton.locator(".more").click()
    expect(sheet.locator(".editor")).to_be_hidden()  # only between hands
    sheet.locator(".away").click()
    settle(page)
    page.click("#btn-seat-close")
    yuki.locator(".more").click()
    expect(sheet.locator(".away")).to_have_text("Back (R11)")
    sheet.locator(".away").click()
    settle(page)
    page.click("#btn-seat-close")
    page.click("#level-up")  # a level change asks first
    expect(page.locator("#btn-confirm-yes")).to_have_text("Yes, level 13")
    page.click("#btn-confirm-yes")
    settle(page)
    page.click("#level-down")
    page.keyboard.press("Escape")  # cancelled: nothing sent
    expect(page.locator("#confirm")).to_be_hidden()
    page.click("#level-down")
    page.keyboard.press("Enter")
    settle(page)
    harness.push_patch("operator", {"operator": {"between_hands": True, "legal": None},
                                    "table": {"street": None}})
    ashton.locator(".more").click()
    expect(sheet.locator(".restrict")).to_be_hidden()
    sheet.locator(".button-here").click()
    settle(page)
    assert sent(harness, 8) == [
        {"type": "restrict", "seat": 1},
        {"type": "show_hand", "seat": 1},
        {"type": "muck_hand", "seat": 1},
        {"type": "set_absent", "seat": 1, "absent": True},
        {"type": "set_absent", "seat": 7, "absent": False},
        {"type": "set_level", "level": 13},
        {"type": "set_level", "level": 11},
        {"type": "set_button", "seat": 1},
    ]


def test_bet_sizes_are_totals_with_the_chips_added_and_digits_are_completed(
        page: Page, harness: Harness) -> None:
    """Issue 20: presets from operator.legal.presets, every amount a street total ("to") with
    the chips it adds beside, Call and All-in alike; a 2.5x open in two taps; "5" completed to
    50,000 from the minimum."""
    view = operator_view()
    view["seats"][0].update(bet=8000, stack=726000)  # Ashton has 8,000 in front
    view["operator"]["legal"].update(call=16000, all_in=734000, presets=[
        {"key": "min", "label": "Min", "amount": 48000},
        {"key": "half_pot", "label": "½ pot", "amount": 400000},
        {"key": "pot", "label": "Pot", "amount": 700000},
        {"key": "all_in", "label": "All-in", "amount": 734000}])
    open_console(page, harness, view)
    call, all_in = page.locator("#btn-call"), page.locator("#btn-all-in")
    expect(call.locator(".label")).to_have_text("Call 24,000")
    expect(call.locator(".added")).to_have_text("+16,000")
    expect(all_in.locator(".label")).to_have_text("All-in 734,000")
    expect(all_in.locator(".added")).to_have_text("+726,000")
    expect(page.locator(".preset")).to_have_text(["Min48K", "½ pot400K", "Pot700K",
                                                  "All-in734K"])
    page.click(".preset[data-preset='half_pot']")  # tap 1
    expect(page.locator("#amount")).to_have_text("400,000")
    expect(page.locator("#amount-added")).to_have_text("+392,000 added")
    expect(page.locator(".preset.chosen")).to_have_attribute("data-preset", "half_pot")
    expect(page.locator("#btn-amount")).to_have_text("Raise to 400,000")
    page.click("#btn-amount")  # tap 2
    settle(page)
    # Predictive entry: "5" is 50,000 (the first amount at or above the 48,000 minimum),
    # "12" is 120,000; typed on to 30,000 it is a short raise again, for R8.
    page.click("#keypad .key[data-key='5']")
    expect(page.locator("#amount")).to_have_text("50,000")
    expect(page.locator("#amount")).to_have_class(re.compile(r"\bpredicted\b"))
    expect(page.locator("#btn-amount")).to_have_text("Raise to 50,000")
    page.click("#btn-amount")
    settle(page)
    for key in ("1", "2"):
        page.click(f"#keypad .key[data-key='{key}']")
    expect(page.locator("#amount")).to_have_text("120,000")
    page.click("#keypad .key[data-key='clear']")
    for key in ("3", "0", "000"):
        page.click(f"#keypad .key[data-key='{key}']")
    expect(page.locator("#amount")).to_have_text("30,000")
    expect(page.locator("#amount")).not_to_have_class(re.compile(r"\bpredicted\b"))
    expect(page.locator("#keypad")).to_have_class("keypad below-min")
    page.keyboard.press("Shift+Digit3")  # the third size from the keyboard
    expect(page.locator("#amount")).to_have_text("700,000")
    assert sent(harness, 2) == [{"type": "raise_to", "seat": 1, "amount": 400000},
                                {"type": "raise_to", "seat": 1, "amount": 50000}]
