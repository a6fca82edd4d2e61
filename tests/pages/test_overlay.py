"""The OBS overlay in Debian's Chromium against the harness server (docs/view-model.md).

Every test also checks, in the ``page`` fixture's teardown, that the page raised no error, logged
no console error and sent no request that leaves 127.0.0.1.
"""

from __future__ import annotations

import copy
import re
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Locator, Page, expect

from tests.pages.conftest import Probe
from tests.pages.harness import LOG_ID, Harness
from tests.pages.views import clock_text, flop_view, showdown_view, ten_handed_preflop_view


def open_overlay(page: Page, harness: Harness, channel: str, view: dict[str, Any],
                 revision: int = 1, query: str = "&all=1") -> None:
    """``&all=1``: these tests look at every player's box, folded ones included (by default the
    overlay shows only the players still in the hand: test_only_the_players_in_the_hand)."""
    harness.set_view(channel, view, revision)
    page.goto(f"{harness.base}/overlay?channel={channel}{query}")
    expect(page.locator("html")).to_have_attribute("data-revision", str(revision))
    # Every font weight is fetched up front, so an outage can never leave text unstyled.
    assert page.evaluate("document.fonts.ready.then(() => [...document.fonts].filter("
                         "f => f.status === 'loaded').length)") == 4


def seat_box(page: Page, seat: int) -> Locator:
    return page.locator(f".player[data-seat='{seat}']")


def card_codes(page: Page, selector: str) -> list[str | None]:
    codes: list[str | None] = page.eval_on_selector_all(
        selector, "nodes => nodes.map(n => n.dataset.card || null)")
    return codes


def test_renders_every_part_of_the_fixture_view(page: Page, harness: Harness) -> None:
    made = time.time()
    open_overlay(page, harness, "delayed", flop_view("delayed"))
    # Seats in seat order, the empty seat 5 left out.
    expect(page.locator(".player .name")).to_have_text(
        ["Ashton Griffin", "Kalidou Sow", "Mira Lindqvist", "Rast", "Daniel Ortega",
         "Yuki Tanaka", "Lena Fischer"])
    ashton = seat_box(page, 1)
    expect(ashton).to_have_class("player to-act has-equity")
    expect(page.locator("#stage")).to_have_class("stage")
    expect(ashton.locator(".position")).to_have_text("BTN")
    expect(ashton.locator(".chips")).to_have_text("734,000")
    expect(ashton.locator(".bb")).to_have_text("91.8 BB")
    expect(ashton.locator(".equity-value")).to_have_text("27%")
    expect(ashton.locator(".hand")).to_have_text("Ace High")
    assert card_codes(page, ".player[data-seat='1'] .card") == ["Ah", "Kd"]
    width = ashton.locator(".equity-fill").evaluate("n => n.style.width")
    assert width == "27%"
    rast = seat_box(page, 4)
    expect(rast.locator(".action")).to_have_text("Bet 24,000")
    expect(rast.locator(".equity-value")).to_have_text("66%")
    expect(rast.locator(".bb")).to_have_text("119 BB")
    for folded in (2, 3, 6, 8):
        expect(seat_box(page, folded)).to_have_class("player folded")
        expect(seat_box(page, folded).locator(".action")).to_have_text("Fold")
    yuki = seat_box(page, 7)
    expect(yuki).to_have_class("player all-in has-equity")
    # All in: the amount stays, "ALL IN" under it.
    expect(yuki.locator(".chips")).to_have_text("206,000")
    expect(yuki.locator(".bb")).to_have_text("ALL IN")
    expect(yuki.locator(".action")).to_have_text("All-in 206,000")
    # Board: three cards and two empty places; pot = pots + bets in front (726,000).
    assert card_codes(page, "#board .card") == ["Qs", "9s", "8c", None, None]
    expect(page.locator("#board .card.slot")).to_have_count(2)
    expect(page.locator("#street")).to_have_text("Flop")
    expect(page.locator("#pot-total")).to_have_text("726,000")
    expect(page.locator(".side-pot")).to_have_text(["Main pot662,000", "Side pot 140,000"])
    expect(page.locator("#table-name")).to_have_text("Main Event Final Table")
    expect(page.locator("#hand-number")).to_have_text("Hand 57")
    expect(page.locator("#level")).to_have_text("Level 12")
    expect(page.locator("#blinds")).to_have_text("4,000 / 8,000")
    expect(page.locator("#ante")).to_have_text("BB ante 8,000")
    # The level ends 754 s after the view's as_of: the clock counts down on the view's time.
    expect(page.locator("#level-clock")).to_have_text(clock_text(754, made))
    expect(page.locator("#winner")).to_be_hidden()
    # The bundled font is the one drawn (served from /static/fonts, nothing from outside).
    assert page.evaluate("document.fonts.ready.then(() => [...document.fonts].filter("
                         "f => f.family.replaceAll('\"', '') === 'Inter' && f.status === 'loaded')"
                         ".map(f => f.weight).sort())") == ["400", "600", "700", "800"]
    # The OBS source is transparent.
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgba(0, 0, 0, 0)"
    assert page.evaluate("[innerWidth, innerHeight]") == [1920, 1080]


def test_hello_names_page_version_token_and_no_resume(page: Page, harness: Harness) -> None:
    open_overlay(page, harness, "secure", flop_view("secure"), query="&token=s3cret")
    (hello,) = harness.hellos_on("secure")
    assert hello.message == {"type": "hello", "page": "overlay", "version": "dev",
                             "resume": None, "log_id": None, "look": None}
    assert hello.token == "s3cret"


def test_patches_update_in_place(page: Page, harness: Harness) -> None:
    open_overlay(page, harness, "delayed", flop_view("delayed"), revision=5)
    page.evaluate("document.querySelector('#board .card').dataset.mark = 'kept'")
    seats = copy.deepcopy(flop_view("delayed")["seats"])
    seats[0].update(to_act=False, bet=24000, stack=710000, stack_bb=88.8,
                    last_action="Call 24,000")
    for seat in seats:
        seat["bet"] = 0
    harness.push_patch("delayed", {"table": {"street": "turn", "board": ["Qs", "9s", "8c", "2h"],
                                             "pots": [{"amount": 710000, "eligible": [1, 4, 7],
                                                       "winners": [], "label": "Main pot"},
                                                      {"amount": 88000, "eligible": [1, 4],
                                                       "winners": [], "label": "Side pot 1"}],
                                             "to_call": 0},
                                   "seats": seats},
                       events=[{"kind": "board_dealt", "cards": ["2h"]}])
    expect(page.locator("html")).to_have_attribute("data-revision", "6")
    expect(page.locator("#street")).to_have_text("Turn")
    assert card_codes(page, "#board .card") == ["Qs", "9s", "8c", "2h", None]
    # The flop cards are the same elements (only the new card animates in).
    assert page.evaluate("document.querySelector('#board .card').dataset.mark") == "kept"
    expect(seat_box(page, 1).locator(".chips")).to_have_text("710,000")
    expect(seat_box(page, 1).locator(".action")).to_have_text("Call 24,000")
    expect(seat_box(page, 1)).not_to_have_class("player to-act has-equity")
    expect(page.locator("#pot-total")).to_have_text("798,000")
    # A merge patch that touches one key leaves the rest alone.
    harness.push_patch("delayed", {"table": {"hand_number": 58}})
    expect(page.locator("#hand-number")).to_have_text("Hand 58")
    expect(page.locator("#street")).to_have_text("Turn")


def test_a_revision_gap_resyncs_from_a_fresh_snapshot(page: Page, harness: Harness) -> None:
    open_overlay(page, harness, "delayed", flop_view("delayed"), revision=10)
    harness.push_gap("delayed", {"table": {"hand_number": 60}})  # revision 12: 11 was lost
    harness.wait_until(lambda: len(harness.hellos_on("delayed")) == 2)
    assert harness.hellos_on("delayed")[1].message["resume"] is None
    assert harness.hellos_on("delayed")[1].message["log_id"] is None
    expect(page.locator("html")).to_have_attribute("data-revision", "12")
    expect(page.locator("#hand-number")).to_have_text("Hand 60")
    expect(page.locator("html")).to_have_attribute("data-connection", "live")
    # A patch before any snapshot on a new socket is a gap too; so is a stale revision.
    harness.push_raw("delayed", {"type": "patch", "revision": 12, "patch": {}, "events": []})
    harness.wait_until(lambda: len(harness.hellos_on("delayed")) == 3)
    expect(page.locator("#hand-number")).to_have_text("Hand 60")


def test_keeps_last_graphics_when_the_server_goes_and_recovers(
        page: Page, harness: Harness, probe: Probe, artifacts: Path) -> None:
    probe.allow_websocket_errors = True  # Chromium logs each refused reconnect
    open_overlay(page, harness, "delayed", flop_view("delayed"), revision=20)
    harness.stop_server()
    expect(page.locator("html")).to_have_attribute("data-connection", "offline")
    page.wait_for_timeout(1200)  # a few reconnect attempts against a closed port
    expect(page.locator(".player")).to_have_count(7)
    expect(seat_box(page, 1).locator(".chips")).to_have_text("734,000")
    assert card_codes(page, "#board .card.face") == ["Qs", "9s", "8c"]
    expect(page.locator("#stage")).to_be_visible()
    expect(page.locator("body")).not_to_contain_text("disconnect", ignore_case=True)
    page.screenshot(path=str(artifacts / "overlay-server-gone.png"), omit_background=True)
    # The server comes back with the table moved on: the page resumes and re-hydrates.
    moved = flop_view("delayed")
    moved["table"]["board"] = ["Qs", "9s", "8c", "Kh"]
    moved["table"]["street"] = "turn"
    harness.set_view("delayed", moved, revision=23)
    harness.restart_server()
    expect(page.locator("html")).to_have_attribute("data-revision", "23", timeout=15000)
    expect(page.locator("html")).to_have_attribute("data-connection", "live")
    assert harness.hellos_on("delayed")[-1].message["resume"] == 20
    assert harness.hellos_on("delayed")[-1].message["log_id"] == LOG_ID
    assert card_codes(page, "#board .card.face") == ["Qs", "9s", "8c", "Kh"]


def test_resumes_with_only_the_patches_it_missed(page: Page, harness: Harness,
                                                 probe: Probe) -> None:
    probe.allow_websocket_errors = True
    open_overlay(page, harness, "delayed", flop_view("delayed"), revision=30)
    harness.channels["delayed"].resume = True
    page.evaluate("document.querySelector('#board .card').dataset.mark = 'kept'")
    harness.stop_server()
    expect(page.locator("html")).to_have_attribute("data-connection", "offline")
    harness.push_patch("delayed", {"table": {"hand_number": 58}})
    harness.push_patch("delayed", {"table": {"street": "turn",
                                             "board": ["Qs", "9s", "8c", "Kh"]}})
    harness.restart_server()
    expect(page.locator("html")).to_have_attribute("data-revision", "32", timeout=15000)
    expect(page.locator("html")).to_have_attribute("data-connection", "live")
    assert harness.hellos_on("delayed")[-1].message["resume"] == 30
    assert harness.hellos_on("delayed")[-1].message["log_id"] == LOG_ID
    expect(page.locator("#hand-number")).to_have_text("Hand 58")
    assert card_codes(page, "#board .card.face") == ["Qs", "9s", "8c", "Kh"]
    # Patched in place, never rebuilt from a snapshot.
    assert page.evaluate("document.querySelector('#board .card').dataset.mark") == "kept"


def test_resumes_when_nothing_was_missed(page: Page, harness: Harness, probe: Probe) -> None:
    probe.allow_websocket_errors = True
    open_overlay(page, harness, "delayed", flop_view("delayed"), revision=40)
    harness.channels["delayed"].resume = True
    harness.stop_server()
    expect(page.locator("html")).to_have_attribute("data-connection", "offline")
    harness.restart_server()
    # The server sends nothing (nothing was missed): the page is live on its current view.
    expect(page.locator("html")).to_have_attribute("data-connection", "live", timeout=15000)
    # "live" shows as the socket opens, before its hello has reached the server.
    harness.wait_until(lambda: len(harness.hellos_on("delayed")) == 2)
    assert harness.hellos_on("delayed")[-1].message["resume"] == 40
    expect(page.locator("html")).to_have_attribute("data-revision", "40")
    harness.push_patch("delayed", {"table": {"hand_number": 61}})
    expect(page.locator("#hand-number")).to_have_text("Hand 61")
    expect(page.locator("html")).to_have_attribute("data-revision", "41")


def test_server_error_messages_do_not_break_the_graphics(page: Page, harness: Harness) -> None:
    open_overlay(page, harness, "delayed", flop_view("delayed"), revision=3)
    harness.push_raw("delayed", {"type": "error", "error": {"code": "slow_client",
                                                             "message": "too far behind"}})
    page.wait_for_function("window.feltcast.channel.lastError !== null")
    assert page.evaluate("window.feltcast.channel.lastError") == {
        "code": "slow_client", "message": "too far behind"}
    harness.push_patch("delayed", {"table": {"hand_number": 59}})
    expect(page.locator("#hand-number")).to_have_text("Hand 59")
    expect(page.locator(".player")).to_have_count(7)


def test_unknown_cards_never_show_a_face(page: Page, harness: Harness) -> None:
    view = flop_view("venue")
    view["seats"][3]["cards"] = ["??", "Xx"]  # garbage is never drawn as a face either
    open_overlay(page, harness, "venue", view)
    expect(page.locator(".player .card.back")).to_have_count(6)  # seats 1, 4, 7
    expect(page.locator(".player .card.face")).to_have_count(0)
    expect(page.locator(".player .card .rank")).to_have_count(0)
    assert page.locator(".player .card").evaluate_all(
        "nodes => nodes.every(n => n.textContent === '' && !n.dataset.card)")
    # Folded players' unknown cards are mucked; no equity or hand strength is shown.
    expect(seat_box(page, 2).locator(".card")).to_have_count(0)
    expect(page.locator(".player.has-equity")).to_have_count(0)
    expect(page.locator(".player .equity-value")).to_have_text([""] * 7)
    expect(page.locator("#stage")).to_have_class("stage no-equity")  # no empty column
    expect(page.locator(".player .hand")).to_have_text([""] * 7)
    # The board is public.
    assert card_codes(page, "#board .card.face") == ["Qs", "9s", "8c"]


def test_showdown_highlights_the_winning_five(page: Page, harness: Harness) -> None:
    open_overlay(page, harness, "delayed", showdown_view("delayed"))
    expect(page.locator("#winner-name")).to_have_text("Rast wins 702,000")
    expect(page.locator("#winner-hand")).to_have_text("Straight, Queen High")
    # Pot labels stay on one line (the panel sizes to its content, never wraps).
    heights = page.locator(".pot-row > *").evaluate_all(
        "ns => ns.map(n => n.getBoundingClientRect().height)")
    assert max(heights) < 70, heights
    assert card_codes(page, "#board .card.best") == ["Qs", "9s", "8c"]
    assert card_codes(page, "#board .card.muted") == ["2h", "3c"]
    assert card_codes(page, ".player[data-seat='4'] .card.best") == ["Js", "Ts"]
    assert card_codes(page, ".player[data-seat='1'] .card.muted") == ["Ah", "Kd"]
    expect(seat_box(page, 4)).to_have_class("player winner has-equity")
    expect(seat_box(page, 4).locator(".action")).to_have_text("Wins 702,000")


def test_data_is_text_never_markup(page: Page, harness: Harness) -> None:
    view = flop_view("delayed")
    view["seats"][0]["name"] = "<img src=x onerror=alert(1)>"
    view["table"]["name"] = "<b>bold</b>"
    open_overlay(page, harness, "delayed", view)
    # (the name is fitted to its box: its full form is the box's tooltip)
    expect(seat_box(page, 1).locator(".name")).to_have_attribute("title",
                                                                 "<img src=x onerror=alert(1)>")
    expect(page.locator("#table-name")).to_have_text("<b>bold</b>")
    expect(page.locator("#stage img, #stage b")).to_have_count(0)


def test_screenshots_of_the_transparent_overlay(page: Page, harness: Harness,
                                                artifacts: Path) -> None:
    open_overlay(page, harness, "delayed", flop_view("delayed"))
    page.wait_for_timeout(700)  # let the entrance transitions finish
    page.screenshot(path=str(artifacts / "overlay-delayed-flop.png"), omit_background=True)
    harness.push_snapshot("delayed", showdown_view("delayed"), 9)
    expect(page.locator("html")).to_have_attribute("data-revision", "9")
    page.wait_for_timeout(700)
    page.screenshot(path=str(artifacts / "overlay-delayed-showdown.png"), omit_background=True)
    open_overlay(page, harness, "venue", flop_view("venue"), 3)
    page.wait_for_timeout(700)
    shot = artifacts / "overlay-venue-flop.png"
    page.screenshot(path=str(shot), omit_background=True)
    # A PNG with an alpha channel (colour type 6): OBS composites it over the video.
    header = shot.read_bytes()[:26]
    assert header[:8] == b"\x89PNG\r\n\x1a\n" and header[25] == 6
    # For people reviewing the look: the same graphics over a dark felt, as on air.
    harness.push_snapshot("venue", showdown_view("delayed"), 4)
    expect(page.locator("html")).to_have_attribute("data-revision", "4")
    page.add_style_tag(content="body { background: radial-gradient(ellipse at 60% 40%, "
                               "#2f6b48 0%, #123524 55%, #07160f 100%) !important; }")
    page.wait_for_timeout(700)
    page.screenshot(path=str(artifacts / "overlay-preview-on-felt.png"))


def test_ten_handed_table_fits_the_stage(page: Page, harness: Harness, artifacts: Path) -> None:
    open_overlay(page, harness, "secure", ten_handed_preflop_view())
    expect(page.locator(".player")).to_have_count(10)
    page.wait_for_timeout(700)
    boxes = page.locator(".player").evaluate_all(
        "ns => ns.map(n => { const r = n.getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom]; })")
    table = page.locator("#table").bounding_box()
    assert table is not None
    for left, top, right, bottom in boxes:
        assert left >= 0 and top >= 0 and right <= 1920 and bottom <= 1080
        assert right < table["x"] or bottom < table["y"]  # never under the board panel
    # A long name is fitted inside its box (a shorter form of it, then smaller type), never
    # cut and never spilling over the stack; the full name is its tooltip.
    name = seat_box(page, 5).locator(".name")
    full = next(s["name"] for s in ten_handed_preflop_view()["seats"] if s["seat"] == 5)
    expect(name).to_have_attribute("title", full)
    assert name.evaluate("n => n.scrollWidth <= n.clientWidth + 1")
    assert card_codes(page, "#board .card") == []  # pre-flop: the board comes with the flop
    expect(page.locator("#street")).to_have_text("Pre-flop")
    expect(page.locator("#pot-total")).to_have_text("20,000")
    page.screenshot(path=str(artifacts / "overlay-secure-ten-handed.png"), omit_background=True)


def test_between_hands_the_board_panel_fades_and_no_cards_show(page: Page,
                                                               harness: Harness) -> None:
    view = flop_view("delayed")
    view["table"].update(street=None, board=[], pots=[], to_call=0, min_raise_to=None,
                         actions=[])
    view["table"]["level"]["ends_at"] = None
    for seat in view["seats"]:
        seat.update(cards=[], equity=None, hand=None, outs=None, last_action=None, bet=0,
                    to_act=False, folded=False, all_in=False)
    open_overlay(page, harness, "delayed", view)
    expect(page.locator("#table")).to_have_class("table-panel idle")
    expect(page.locator(".player .card")).to_have_count(0)
    expect(page.locator("#board .card")).to_have_count(0)
    expect(page.locator(".player .action")).to_have_count(7)
    for action in page.locator(".player .action").all():
        expect(action).to_be_hidden()
    expect(page.locator("#level-clock")).to_have_text("")
    # The next hand starts: the panel comes back; the board appears with the flop, its five
    # places then (no empty places before it).
    harness.push_patch("delayed", {"table": {"street": "preflop", "hand_number": 58}})
    expect(page.locator("#table")).to_have_class("table-panel")
    expect(page.locator("#board .card")).to_have_count(0)
    harness.push_patch("delayed", {"table": {"street": "flop", "board": ["Qs", "9s", "8c"]}})
    expect(page.locator("#board .card.slot")).to_have_count(2)


def test_a_hand_won_before_the_flop_shows_no_empty_board(page: Page, harness: Harness) -> None:
    view = showdown_view("delayed")
    view["table"].update(street="over", board=[])
    open_overlay(page, harness, "delayed", view)
    expect(page.locator("#winner-name")).to_have_text("Rast wins 702,000")
    expect(page.locator(".board-row")).to_be_hidden()
    expect(page.locator(".pot-row")).to_be_visible()
    # The next hand's flop brings the board back.
    harness.push_patch("delayed", {"table": {"street": "flop", "board": ["Ah", "7d", "2c"]}})
    expect(page.locator(".board-row")).to_be_visible()
    expect(page.locator("#board .card:not(.slot)")).to_have_count(3)


def test_level_clock_counts_on_the_servers_time_not_the_last_event(page: Page,
                                                                   harness: Harness) -> None:
    # The last event was five minutes ago: the level has 754 - 300 s left, not 754.
    made = time.time()
    view = flop_view("delayed", as_of=made - 30 - 300)
    open_overlay(page, harness, "delayed", view)
    expect(page.locator("#level-clock")).to_have_text(clock_text(454, made))
    # On a live channel whose server clock runs 100 s ahead of this machine, the page learns
    # the offset from the events' times.
    made = time.time()
    live = flop_view("secure")
    open_overlay(page, harness, "secure", live, revision=2)
    expect(page.locator("#level-clock")).to_have_text(clock_text(754, made))
    harness.push_patch("secure", {"table": {"hand_number": 58}},
                       events=[{"kind": "action_taken", "seat": 1, "time": time.time() + 100}])
    expect(page.locator("#level-clock")).to_have_text(clock_text(654, made))


def test_only_the_players_in_the_hand_are_shown(page: Page, harness: Harness) -> None:
    """Broadcast convention: from five players only those still in the hand, each leaving as
    he folds; everyone between hands; the board appears with the flop."""
    view = flop_view("delayed")
    open_overlay(page, harness, "delayed", view, query="")
    expect(page.locator(".player .name")).to_have_text(["Ashton Griffin", "Rast", "Yuki Tanaka"])
    harness.push_patch("delayed", {"seats": [{**s, "folded": True} if s["seat"] == 1 else s
                                             for s in view["seats"]]})
    expect(page.locator(".player .name")).to_have_text(["Rast", "Yuki Tanaka"])  # Ashton folds
    harness.push_patch("delayed", {"table": {"street": None, "board": [], "pots": []},
                                   "seats": [{**s, "folded": False} for s in view["seats"]]})
    expect(page.locator(".player")).to_have_count(7)  # between hands: everyone
    harness.push_patch("delayed", {"table": {"street": "preflop"}})
    expect(page.locator("#board .card")).to_have_count(0)  # no empty places before the flop


def test_a_player_box_has_his_photo_and_flag_and_fits_a_long_name(page: Page,
                                                                  harness: Harness) -> None:
    """Issue 19: photo and flag in the box when the player's identity has them; a long name
    is fitted (a shorter form of it), never cut."""
    from tests.pages.tournament_views import tournament_view

    view = tournament_view()
    players = view["tournament"]["players"]
    ashton = next(p for p in players if p["seat"] == 1)
    ashton["display_name"] = "Ashton Alexander Griffin-Whitmore"
    open_overlay(page, harness, "delayed", view)
    rast, yuki = seat_box(page, 4), seat_box(page, 7)
    expect(rast.locator(".player-photo img")).to_have_attribute("src", "/static/favicon.svg")
    expect(rast).to_have_class(re.compile(r"\bhas-photo\b"))
    expect(rast.locator(".player-flag img")).to_have_attribute("src", "/static/flags/se.svg")
    expect(yuki.locator(".player-flag img")).to_have_attribute("src", "/static/flags/jp.svg")
    expect(yuki.locator(".player-photo")).to_be_hidden()  # no photo: no empty frame
    expect(yuki).not_to_have_class(re.compile(r"\bhas-photo\b"))
    name = seat_box(page, 1).locator(".name")
    expect(name).to_have_attribute("title", "Ashton Alexander Griffin-Whitmore")
    assert name.inner_text() in ("A. Alexander Griffin-Whitmore", "A. Griffin-Whitmore",
                                 "Griffin-Whitmore")
    assert name.evaluate("n => n.scrollWidth <= n.clientWidth + 1"), name.evaluate(
        "n => [n.textContent, n.scrollWidth, n.clientWidth, n.style.cssText]")
    # The hole cards stay the largest thing in the box.
    heights = rast.evaluate("""n => ({cards: n.querySelector('.hole .card')
        .getBoundingClientRect().height, photo: n.querySelector('.player-photo')
        .getBoundingClientRect().height})""")
    assert heights["cards"] > heights["photo"] > 0
    # A player without a country or a photo (Danny) shows neither.
    expect(seat_box(page, 6).locator(".player-flag")).to_have_class(re.compile(r"\bnone\b"))
