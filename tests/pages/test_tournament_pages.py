"""The tournament graphics (issue 10) in Debian's Chromium against the harness server.

Leaderboard, lower third, elimination, payouts and level clock pages, and the clock bug and R12
action clock on the overlay: first paint from a snapshot, updates from merge patches,
re-hydration after the server comes back, local countdowns, fallbacks for a missing photo or
flag, data written as text. The ``page`` fixture's teardown also asserts: no page error, no
console error, no request that leaves 127.0.0.1. Screenshots land in ``test-artifacts/``.
"""

from __future__ import annotations

import copy
import re
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from tests.pages.conftest import Probe
from tests.pages.harness import Harness
from tests.pages.tournament_views import eliminated, tournament_view

GRAPHICS = ("leaderboard", "lowerthird", "elimination", "payouts", "clock")
FELT = ("body { background: radial-gradient(ellipse at 60% 40%, #2f6b48 0%, #123524 55%, "
        "#07160f 100%) !important; }")


def open_graphic(page: Page, harness: Harness, name: str, view: dict[str, Any],
                 revision: int = 1, query: str = "", channel: str = "delayed") -> None:
    harness.set_view(channel, view, revision)
    page.goto(f"{harness.base}/{name}?channel={channel}{query}")
    expect(page.locator("html")).to_have_attribute("data-revision", str(revision))
    page.evaluate("document.fonts.ready")


def texts(page: Page, selector: str) -> list[str]:
    found: list[str] = page.locator(selector).all_text_contents()
    return found


def settle_and_shoot(page: Page, path: Path) -> None:
    """A screenshot after the entrance animations, transparent as OBS composites it."""
    page.wait_for_timeout(600)
    page.screenshot(path=str(path), omit_background=True)


# ---- leaderboard -------------------------------------------------------------------------


def test_leaderboard_first_paint(page: Page, harness: Harness, artifacts: Path) -> None:
    open_graphic(page, harness, "leaderboard", tournament_view())
    hello = harness.hellos_on("delayed")[0]
    assert hello.message["page"] == "leaderboard"
    rows = page.locator(".row")
    expect(rows).to_have_count(10)
    expect(page.locator(".row:not(.out) .name")).to_have_text(
        ["Rast", "Ashton", "Mira", "Lena", "Yuki", "Kalidou", "Danny"])
    expect(page.locator(".row:not(.out) .rank")).to_have_text([str(n) for n in range(1, 8)])
    leader = page.locator(".row[data-seat='4']")
    expect(leader).to_have_class(re.compile(r"\bleader\b"))
    expect(leader.locator(".stack")).to_have_text("12,000")
    expect(leader.locator(".bb")).to_have_text("20.0 BB")
    expect(leader.locator(".share-value")).to_have_text("24.0%")
    # Bars are drawn against the leader; the text is the share of all chips.
    widths = page.locator(".row:not(.out) .share-fill").evaluate_all(
        "ns => ns.map(n => n.style.width)")
    assert widths[0] == "100%" and widths[1] == "75%" and widths[-1] == "25%"
    # Eliminated players follow, greyed, by place, with their prize (none for 10th).
    out = page.locator(".row.out")
    expect(out.locator(".rank")).to_have_text(["8th", "9th", "10th"])
    expect(out.locator(".name")).to_have_text(["Olga", "Tom", "Jo"])
    expect(out.locator(".stack")).to_have_text(["€4,000", "€3,000", ""])
    # greyed by dimmer type (still legible on the panel), not faded
    dim, live = (page.locator(sel).first.evaluate("n => getComputedStyle(n).color")
                 for sel in (".row.out .name", ".row:not(.out) .name"))
    assert dim != live
    assert dim == page.evaluate("""() => { const probe = document.createElement('span');
      probe.style.color = 'var(--ink-dim)'; document.body.append(probe);
      const c = getComputedStyle(probe).color; probe.remove(); return c; }""")
    expect(page.locator("#remaining")).to_have_text("7 / 10")
    expect(page.locator("#average")).to_have_text("7,142")
    expect(page.locator("#average-bb")).to_have_text("11.9 BB")
    expect(page.locator("#level")).to_have_text("5")
    expect(page.locator("#blinds")).to_have_text("300 / 600")
    expect(page.locator("#event-name")).to_have_text("Main Event Final Table")
    # Bundled flags are drawn (loaded from the server); a player without a country has none.
    flag = leader.locator(".flag img")
    expect(flag).to_have_attribute("src", "/static/flags/se.svg")
    page.wait_for_function("document.querySelector(\".row[data-seat='4'] .flag img\")"
                           ".naturalWidth > 0")
    expect(page.locator(".row[data-seat='6'] .flag")).to_have_class(re.compile(r"\bnone\b"))
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgba(0, 0, 0, 0)"
    box = page.locator("#board").bounding_box()
    assert box is not None and box["y"] + box["height"] <= 1080 and box["x"] >= 0
    settle_and_shoot(page, artifacts / "leaderboard.png")
    page.add_style_tag(content=FELT)
    page.screenshot(path=str(artifacts / "leaderboard-on-felt.png"))


def test_leaderboard_updates_from_patches(page: Page, harness: Harness) -> None:
    view = tournament_view()
    open_graphic(page, harness, "leaderboard", view, revision=4)
    page.evaluate("document.querySelector(\".row[data-seat='1']\").dataset.mark = 'kept'")
    # Ashton doubles through Rast: a patch replaces the players list (arrays are replaced).
    players = copy.deepcopy(view["tournament"]["players"])
    by_seat = {p["seat"]: p for p in players}
    by_seat[1].update(stack=18000, in_bb=30.0, share=0.36, rank=1)
    by_seat[4].update(stack=3000, in_bb=5.0, share=0.06, rank=6)
    by_seat[3]["rank"], by_seat[8]["rank"], by_seat[7]["rank"] = 2, 3, 4
    by_seat[2]["rank"], by_seat[6]["rank"] = 5, 7
    harness.push_patch("delayed", {"tournament": {"players": players,
                                                  "field": {"chip_leader": 1}}})
    expect(page.locator("html")).to_have_attribute("data-revision", "5")
    expect(page.locator(".row:not(.out) .name")).to_have_text(
        ["Ashton", "Mira", "Lena", "Yuki", "Kalidou", "Rast", "Danny"])
    expect(page.locator(".row[data-seat='1'] .stack")).to_have_text("18,000")
    expect(page.locator(".row[data-seat='1']")).to_have_class(re.compile(r"\bleader\b"))
    # The row is updated in place (its share bar animates), never rebuilt.
    assert page.evaluate(
        "document.querySelector(\".row[data-seat='1']\").dataset.mark") == "kept"
    # A bust-out: the player moves to the eliminated rows with place and prize.
    busted = eliminated(harness.channels["delayed"].view or {}, 6, 7, 5000, 42)
    harness.push_patch("delayed", {"tournament": {
        "players": busted["tournament"]["players"],
        "eliminations": busted["tournament"]["eliminations"],
        "field": {"remaining": 6}}})
    expect(page.locator(".row.out .name")).to_have_text(["Danny", "Olga", "Tom", "Jo"])
    expect(page.locator(".row.out .rank").first).to_have_text("7th")
    expect(page.locator(".row.out .stack").first).to_have_text("€5,000")
    expect(page.locator("#remaining")).to_have_text("6 / 10")


def test_leaderboard_options_and_no_tournament(page: Page, harness: Harness) -> None:
    view = tournament_view()
    del view["tournament"]
    open_graphic(page, harness, "leaderboard", view, query="&rows=3&out=0")
    # A service without tournament context: nothing on screen, no error.
    expect(page.locator("#stage")).to_have_class(re.compile(r"\bempty\b"))
    harness.push_patch("delayed", {"tournament": tournament_view()["tournament"]})
    expect(page.locator("#stage")).not_to_have_class(re.compile(r"\bempty\b"))
    expect(page.locator(".row .name")).to_have_text(["Rast", "Ashton", "Mira"])
    expect(page.locator(".row.out")).to_have_count(0)


# ---- lower third -------------------------------------------------------------------------


def third_is_shown(page: Page) -> None:
    expect(page.locator("#third")).to_have_class(re.compile(r"\bshown\b"))


def third_is_gone(page: Page) -> None:
    expect(page.locator("#third")).not_to_have_class(re.compile(r"\bshown\b"))


def test_lowerthird_by_seat(page: Page, harness: Harness, artifacts: Path) -> None:
    view = tournament_view()
    view["tournament"]["players"][0]["prize_so_far"] = 4000
    view["tournament"]["stats"] = {"4": {"hands": 40, "vpip": 0.25, "pfr": 0.2,
                                         "three_bet": 0.05, "af": 2.5, "wtsd": None}}
    open_graphic(page, harness, "lowerthird", view, query="&seat=4&stats=1")
    third_is_shown(page)
    expect(page.locator("#name")).to_have_text("Rast")
    expect(page.locator("#full-name")).to_have_text("Rast Andersson")
    expect(page.locator("#status")).to_have_text("Chip leader")
    expect(page.locator("#stack")).to_have_text("12,000")
    expect(page.locator("#bb")).to_have_text("20.0 BB")
    expect(page.locator("#position")).to_have_text("1st of 7")
    expect(page.locator("#prize")).to_have_text("€4,000")
    expect(page.locator("#flag img")).to_have_attribute("src", "/static/flags/se.svg")
    # ?stats=1: the session statistics (an unknown one is left out, never shown as 0).
    expect(page.locator("#stats")).to_have_text(
        "40 hands · VPIP 25% · PFR 20% · 3-bet 5% · AF 2.5")
    expect(page.locator("#third")).to_have_class(re.compile(r"\bwith-stats\b"))
    # The photo is loaded from the server (a same-origin path) and drawn, not the initials.
    page.wait_for_function("document.querySelector('#photo img').naturalWidth > 0")
    expect(page.locator("#photo")).not_to_have_class(re.compile(r"no-photo"))
    expect(page.locator("#photo .initials")).to_be_hidden()
    box = page.locator("#third").bounding_box()
    assert box is not None and box["y"] + box["height"] <= 1080 and box["x"] >= 0
    settle_and_shoot(page, artifacts / "lowerthird-seat.png")
    page.add_style_tag(content=FELT)
    page.screenshot(path=str(artifacts / "lowerthird-on-felt.png"))
    # A patch: the stack changes in place; the entrance is not replayed for the same player.
    harness.push_patch("delayed", {"tournament": {"players": [
        {**view["tournament"]["players"][0], "stack": 15000, "in_bb": 25.0}]}})
    expect(page.locator("#stack")).to_have_text("15,000")
    third_is_shown(page)
    # The seat empties: the lower third slides out.
    harness.push_patch("delayed", {"tournament": {"players": []}})
    third_is_gone(page)


def test_lowerthird_by_name_falls_back_to_initials_and_code(page: Page, harness: Harness,
                                                            probe: Probe) -> None:
    probe.allow_rejections = True  # Chromium logs the 404s of the missing photo and flag
    view = tournament_view()
    mira = view["tournament"]["players"][2]
    mira.update(photo="/media/players/missing.jpg", country="XX")  # no such files
    open_graphic(page, harness, "lowerthird", view, query="&player=mira%20LINDQVIST")
    third_is_shown(page)
    expect(page.locator("#name")).to_have_text("Mira")
    expect(page.locator("#photo")).to_have_class(re.compile(r"\bno-photo\b"))
    expect(page.locator("#photo .initials")).to_have_text("ML")
    expect(page.locator("#photo .initials")).to_be_visible()
    expect(page.locator("#flag")).to_have_class(re.compile(r"\bmissing\b"))
    expect(page.locator("#flag .flag-code")).to_have_text("XX")
    expect(page.locator("#flag .flag-code")).to_be_visible()
    expect(page.locator("#position")).to_have_text("3rd of 7")
    expect(page.locator("#prize-fact")).to_be_hidden()  # no prize yet: nothing, never "0"
    expect(page.locator("#stats")).to_be_hidden()  # no ?stats=1
    # Off-site photos and malformed codes are never requested at all.
    mira.update(photo="http://203.0.113.7/x.jpg", country="de\"><img")
    harness.push_snapshot("delayed", view, 2)
    expect(page.locator("#photo")).to_have_class(re.compile(r"\bno-photo\b"))
    expect(page.locator("#flag")).to_have_class(re.compile(r"\bnone\b"))
    expect(page.locator("#photo img, #flag img")).to_have_count(0)
    # Mira busts: found by name among the eliminated, with place and prize.
    harness.push_snapshot("delayed", eliminated(view, 3, 7, 5000, 43), 3)
    expect(page.locator("#status")).to_have_text("Eliminated")
    expect(page.locator("#stack")).to_have_text("7th")
    expect(page.locator("#prize")).to_have_text("€5,000")
    expect(page.locator("#third")).to_have_class(re.compile(r"\bout\b"))
    third_is_shown(page)


def test_lowerthird_hold_slides_out(page: Page, harness: Harness) -> None:
    open_graphic(page, harness, "lowerthird", tournament_view(), query="&seat=1&hold=2.5")
    third_is_shown(page)
    expect(page.locator("#name")).to_have_text("Ashton")
    expect(page.locator("#third")).not_to_have_class(re.compile(r"\bshown\b"), timeout=8000)
    # A patch for the same player does not bring it back; OBS showing the source again does.
    harness.push_patch("delayed", {"tournament": {"ticker": "Hand 58"}})
    page.wait_for_timeout(300)
    third_is_gone(page)
    page.evaluate("window.dispatchEvent(new CustomEvent('obsSourceVisibleChanged',"
                  " {detail: {visible: true}}))")
    third_is_shown(page)
    # Unknown player: nothing on screen.
    open_graphic(page, harness, "lowerthird", tournament_view(), query="&player=Nobody")
    page.wait_for_timeout(300)
    third_is_gone(page)
    assert page.locator("#third").evaluate("n => getComputedStyle(n).opacity") == "0"


# ---- elimination -------------------------------------------------------------------------


def bust_shown(page: Page) -> None:
    expect(page.locator("#bust")).to_have_class(re.compile(r"\bshown\b"))


def bust_hidden(page: Page, timeout: float = 5000) -> None:
    expect(page.locator("#bust")).not_to_have_class(re.compile(r"\bshown\b"), timeout=timeout)


def test_elimination_shows_then_hides(page: Page, harness: Harness, artifacts: Path) -> None:
    view = tournament_view()
    open_graphic(page, harness, "elimination", view, revision=3, query="&seconds=1.2")
    # Bust-outs known at the first paint are history: nothing is shown.
    page.wait_for_timeout(300)
    bust_hidden(page, timeout=100)
    assert page.locator("#bust").evaluate("n => getComputedStyle(n).opacity") == "0"
    busted = eliminated(view, 6, 7, 5000, 42)
    harness.push_patch("delayed", {"tournament": {
        "players": busted["tournament"]["players"],
        "eliminations": busted["tournament"]["eliminations"], "field": {"remaining": 6}}})
    bust_shown(page)
    expect(page.locator("#name")).to_have_text("Danny")
    expect(page.locator("#place")).to_have_text("7th")
    expect(page.locator("#prize")).to_have_text("€5,000")
    expect(page.locator("#detail")).to_have_text("Hand 42 · 6 players left")
    expect(page.locator("#photo .initials")).to_have_text("DO")  # no photo: initials
    expect(page.locator("#flag")).to_have_class(re.compile(r"\bnone\b"))
    settle_and_shoot(page, artifacts / "elimination.png")
    page.add_style_tag(content=FELT)
    page.screenshot(path=str(artifacts / "elimination-on-felt.png"))
    bust_hidden(page)
    # A patch that does not add a bust-out does not bring it back.
    harness.push_patch("delayed", {"tournament": {"ticker": "Hand 43: Ann wins 1,200"}})
    page.wait_for_timeout(400)
    bust_hidden(page, timeout=100)


def test_two_busts_in_one_hand_show_in_order(page: Page, harness: Harness) -> None:
    view = tournament_view()
    open_graphic(page, harness, "elimination", view, query="&seconds=1")
    # R22: both bust in hand 44; the smaller starting stack (Danny) finishes 7th, Kalidou 6th.
    both = eliminated(eliminated(view, 6, 7, 5000, 44), 2, 6, 6000, 44)
    page.evaluate("""() => { window.seen = [];
        new MutationObserver(() => { const n = document.documentElement.dataset.showing;
            if (n && window.seen[window.seen.length - 1] !== n) window.seen.push(n); })
        .observe(document.documentElement, {attributes: true}); }""")
    # The service may release them in consecutive patches, the better place first.
    kalidou = eliminated(view, 2, 6, 6000, 44)
    harness.push_patch("delayed", {"tournament": {
        "players": kalidou["tournament"]["players"],
        "eliminations": kalidou["tournament"]["eliminations"]}})
    harness.push_patch("delayed", {"tournament": {
        "players": both["tournament"]["players"],
        "eliminations": both["tournament"]["eliminations"]}})
    bust_shown(page)
    expect(page.locator("#name")).to_have_text("Danny")
    expect(page.locator("#name")).to_have_text("Kalidou", timeout=5000)
    expect(page.locator("#place")).to_have_text("6th")
    expect(page.locator("#prize")).to_have_text("€6,000")
    bust_hidden(page)
    assert page.evaluate("window.seen") == ["7|Daniel Ortega", "6|Kalidou Sow"]
    # Their places ranked again (a festival's hand-for-hand round): the same bust-outs, not
    # news; the next bust-out is.
    swapped = eliminated(eliminated(view, 2, 7, 5000, 44), 6, 6, 6000, 44)
    yuki = eliminated(swapped, 7, 5, 8000, 45)
    harness.push_patch("delayed", {"tournament": {
        "eliminations": swapped["tournament"]["eliminations"]}})
    harness.push_patch("delayed", {"tournament": {
        "players": yuki["tournament"]["players"],
        "eliminations": yuki["tournament"]["eliminations"]}})
    bust_shown(page)
    expect(page.locator("#name")).to_have_text("Yuki")
    assert page.evaluate("window.seen") == ["7|Daniel Ortega", "6|Kalidou Sow",
                                            "5|Yuki Tanaka"]


def test_elimination_after_a_reconnect(page: Page, harness: Harness, probe: Probe) -> None:
    probe.allow_websocket_errors = True
    view = tournament_view()
    open_graphic(page, harness, "elimination", view, revision=7, query="&seconds=2")
    harness.stop_server()
    expect(page.locator("html")).to_have_attribute("data-connection", "offline")
    # While the page was away Yuki busted: the fresh snapshot is news for this page; the
    # bust-outs it already knew are not replayed.
    harness.set_view("delayed", eliminated(view, 7, 7, 5000, 45), revision=9)
    harness.restart_server()
    expect(page.locator("html")).to_have_attribute("data-revision", "9", timeout=15000)
    bust_shown(page)
    expect(page.locator("#name")).to_have_text("Yuki")
    expect(page.locator("#flag img")).to_have_attribute("src", "/static/flags/jp.svg")
    bust_hidden(page)
    # A bust-out taken back by the operator is hidden at once.
    again = eliminated(view, 2, 7, 5000, 46)
    harness.push_snapshot("delayed", again, 10)
    bust_shown(page)
    expect(page.locator("#name")).to_have_text("Kalidou")
    harness.push_snapshot("delayed", view, 11)
    bust_hidden(page, timeout=1500)


# ---- payouts -----------------------------------------------------------------------------


def test_payouts_places_jumps_and_states(page: Page, harness: Harness,
                                         artifacts: Path) -> None:
    view = tournament_view()
    open_graphic(page, harness, "payouts", view)
    expect(page.locator(".place-row")).to_have_count(9)
    expect(page.locator(".place-row .place")).to_have_text(
        ["1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th", "9th"])
    expect(page.locator(".place-row .prize")).to_have_text(
        ["€30,000", "€20,000", "€14,000", "€10,000", "€8,000", "€6,000", "€5,000", "€4,000",
         "€3,000"])
    # Pay jumps: what one place higher adds.
    expect(page.locator(".place-row .jump")).to_have_text(
        ["", "+€10,000", "+€6,000", "+€4,000", "+€2,000", "+€2,000", "+€1,000", "+€1,000",
         "+€1,000"])
    states = page.locator(".place-row").evaluate_all("ns => ns.map(n => n.dataset.state)")
    assert states == ["in-play"] * 6 + ["next", "paid", "paid"]
    expect(page.locator(".place-row.paid .who")).to_have_text(["Olga Petrova", "Tom Brenner"])
    expect(page.locator(".place-row.next .who")).to_have_text("Next out")
    expect(page.locator("#pool")).to_have_text("€100,000")
    expect(page.locator("#remaining")).to_have_text("7 / 10")
    expect(page.locator("#next")).to_have_text("7th · €5,000")
    settle_and_shoot(page, artifacts / "payouts.png")
    page.add_style_tag(content=FELT)
    page.screenshot(path=str(artifacts / "payouts-on-felt.png"))
    # Danny busts in 7th: the highlight moves up one place.
    busted = eliminated(view, 6, 7, 5000, 42)
    harness.push_patch("delayed", {"tournament": {
        "payouts": busted["tournament"]["payouts"], "field": {"remaining": 6}}})
    expect(page.locator(".place-row.next .place")).to_have_text("6th")
    expect(page.locator(".place-row[data-place='7'] .who")).to_have_text("Daniel Ortega")
    expect(page.locator("#next")).to_have_text("6th · €6,000")


def test_payouts_above_the_bubble_and_other_currencies(page: Page, harness: Harness) -> None:
    view = tournament_view()
    tour = view["tournament"]
    tour["field"].update(entrants=40, remaining=12)
    tour["payouts"].update(currency="CHF", prize_pool=100000)
    for row in tour["payouts"]["places"]:
        row["name"] = None
    open_graphic(page, harness, "payouts", view)
    expect(page.locator("#next-label")).to_have_text("Bubble")
    expect(page.locator("#next")).to_have_text("3 to the money")
    expect(page.locator(".place-row.next")).to_have_count(0)
    expect(page.locator(".place-row.in-play")).to_have_count(9)
    expect(page.locator(".place-row .prize").first).to_have_text("CHF 30,000")
    # A unit that is no ISO 4217 currency is written after the amount.
    harness.push_patch("delayed", {"tournament": {"payouts": {"currency": "POINTS"}}})
    expect(page.locator(".place-row .prize").first).to_have_text("30,000 POINTS")
    # No payout table (no prize pool configured): nothing on screen.
    harness.push_patch("delayed", {"tournament": {"payouts": None}})
    expect(page.locator("#stage")).to_have_class(re.compile(r"\bempty\b"))


# ---- level clock -------------------------------------------------------------------------


def clock_seconds(text: str) -> int:
    minutes, seconds = text.split(":")
    return int(minutes) * 60 + int(seconds)


def test_clock_counts_down_locally(page: Page, harness: Harness, artifacts: Path) -> None:
    # Clock readings allow ~10 s for a slow page load on a busy machine; a clock that ignored
    # as_of or the channel's delay would be off by 30 s or more.
    view = tournament_view()
    open_graphic(page, harness, "clock", view)
    expect(page.locator("#level")).to_have_text("Level 5")
    expect(page.locator("#blinds")).to_have_text("300 / 600")
    expect(page.locator("#ante-fact")).to_be_hidden()  # no ante this level
    expect(page.locator("#next")).to_have_text("500 / 1,000 · Ante 100")
    expect(page.locator("#players")).to_have_text("7 / 10")
    expect(page.locator("#average")).to_have_text("7,142")
    expect(page.locator("#pool")).to_have_text("€100,000")
    # 734.2 s left at the view's as_of, which is now on the delayed channel's clock.
    expect(page.locator("#time")).to_have_text(re.compile(r"^12:(0[5-9]|1[0-5])$"))
    first = clock_seconds(page.locator("#time").inner_text())
    page.wait_for_timeout(1500)
    second = clock_seconds(page.locator("#time").inner_text())
    assert 1 <= first - second <= 6, (first, second)  # it counts with no message arriving
    settle_and_shoot(page, artifacts / "clock.png")
    page.add_style_tag(content=FELT)
    page.screenshot(path=str(artifacts / "clock-on-felt.png"))
    # Paused (a patch): the time stands still, flagged.
    harness.push_patch("delayed", {"tournament": {"clock": {"running": False,
                                                            "remaining": 500.0}}})
    expect(page.locator("#time")).to_have_text("8:20")
    expect(page.locator("#state")).to_have_text("Paused")
    page.wait_for_timeout(1200)
    expect(page.locator("#time")).to_have_text("8:20")
    # A break: no blinds, the level after it comes next.
    harness.push_patch("delayed", {"tournament": {"clock": {
        "is_break": True, "running": True, "remaining": 61.0,
        "as_of": view["tournament"]["clock"]["as_of"]}}})
    expect(page.locator("#level")).to_have_text("Break")
    expect(page.locator("#blinds")).to_be_hidden()
    expect(page.locator("#clock")).to_have_class(re.compile(r"\bbreak\b"))
    expect(page.locator("#state")).to_have_text("")
    expect(page.locator("#clock")).to_have_class(re.compile(r"\blast-minute\b"), timeout=4000)


def test_clock_counts_on_the_servers_time_with_the_delay_in_it(page: Page,
                                                               harness: Harness) -> None:
    # The delayed channel (30 s): the service wrote the clock's as_of at the moment viewers
    # see it, so the page counts from it on the server's time and never subtracts the delay
    # again (that would show 30 s too much).
    open_graphic(page, harness, "clock", tournament_view())
    expect(page.locator("#time")).to_have_text(re.compile(r"^12:(0[5-9]|1[0-5])$"))
    # The clock's last change was five minutes ago: 734.2 - 300 s are left.
    view = tournament_view()
    view["channel"]["as_of"] -= 300
    view["tournament"]["clock"]["as_of"] -= 300
    open_graphic(page, harness, "clock", view)
    expect(page.locator("#time")).to_have_text(re.compile(r"^7:(0[5-9]|1[0-5])$"))
    # A server whose clock runs 100 s ahead of this machine: the page learns the offset from
    # the events' times and counts on the server's time.
    live = tournament_view("secure")
    open_graphic(page, harness, "clock", live, channel="secure")
    expect(page.locator("#time")).to_have_text(re.compile(r"^12:(0[5-9]|1[0-5])$"))
    harness.push_patch("secure", {"table": {"hand_number": 58}},
                       events=[{"kind": "action_taken", "seat": 1, "time": time.time() + 100}])
    expect(page.locator("#time")).to_have_text(re.compile(r"^10:(2[5-9]|3[0-5])$"))
    # Not started yet: the level's full time, standing still, no as_of.
    harness.push_patch("secure", {"tournament": {"clock": {
        "running": False, "started": False, "remaining": 1200.0, "as_of": None}}})
    expect(page.locator("#time")).to_have_text("20:00")
    expect(page.locator("#state")).to_have_text("Not started")


# ---- the overlay's clock bug and the R12 action clock --------------------------------------


def test_overlay_clock_bug_and_action_clock(page: Page, harness: Harness,
                                            artifacts: Path) -> None:
    view = tournament_view()
    as_of = view["tournament"]["clock"]["as_of"]  # server time (the delay is in it)
    view["tournament"]["action_clock"] = {"seat": 1, "ends_at": as_of + 42.4,
                                          "countdown_at": as_of + 32.4}
    open_graphic(page, harness, "overlay", view)
    # The tournament clock drives the bug (734.2 s at as_of), with the next level.
    expect(page.locator("#level-clock")).to_have_text(re.compile(r"^12:(0[5-9]|1[0-5])$"))
    expect(page.locator("#next-level")).to_have_text("Next 500 / 1,000 · Ante 100")
    expect(page.locator("#level")).to_have_text("Level 12")  # the hand's level (R21)
    # R12: the clock called on Ashton, counting down, his box marked.
    expect(page.locator("#action-clock")).to_be_visible()
    # One display name per player on every graphic: "Ashton", as the leaderboard says.
    expect(page.locator("#action-clock-name")).to_have_text("Ashton")
    expect(page.locator(".player[data-seat='1'] .name")).to_have_text("Ashton")
    expect(page.locator("#action-clock-time")).to_have_text(re.compile(r"^0:(3[3-9]|4[0-3])$"))
    expect(page.locator(".player[data-seat='1']")).to_have_class(re.compile(r"\bon-clock\b"))
    expect(page.locator(".player.on-clock")).to_have_count(1)
    page.wait_for_timeout(600)
    page.screenshot(path=str(artifacts / "overlay-action-clock.png"), omit_background=True)
    # The final ten seconds: plain seconds, flagged.
    harness.push_patch("delayed", {"tournament": {"action_clock": {
        "ends_at": as_of + 8.2, "countdown_at": as_of - 1.8}}})
    expect(page.locator("#action-clock")).to_have_class(re.compile(r"\bfinal\b"))
    expect(page.locator("#action-clock-time")).to_have_text(re.compile(r"^[1-9]$"))
    # Expired, then taken off (null): the bug shows 0 and then goes.
    harness.push_patch("delayed", {"tournament": {"action_clock": {"ends_at": as_of - 1}}})
    expect(page.locator("#action-clock-time")).to_have_text("0")
    harness.push_patch("delayed", {"tournament": {"action_clock": None}})
    expect(page.locator("#action-clock")).to_be_hidden()
    expect(page.locator(".player.on-clock")).to_have_count(0)
    # Paused: the level clock stands still.
    harness.push_patch("delayed", {"tournament": {"clock": {"running": False,
                                                            "remaining": 125.0}}})
    expect(page.locator("#level-clock")).to_have_text("2:05")
    expect(page.locator("#level-clock")).to_have_class(re.compile(r"\bpaused\b"))
    page.wait_for_timeout(1100)
    expect(page.locator("#level-clock")).to_have_text("2:05")
    # Between hands on a break: BREAK instead of the level and blinds.
    harness.push_patch("delayed", {"table": {"street": None},
                                   "tournament": {"clock": {"is_break": True,
                                                            "running": True}}})
    expect(page.locator("#level")).to_have_text("Break")
    expect(page.locator("#blinds")).to_have_text("")
    expect(page.locator("#ante")).to_be_hidden()
    page.wait_for_timeout(300)
    page.screenshot(path=str(artifacts / "overlay-break.png"), omit_background=True)
    # A clock not started yet is not shown on air (the table level's end is, if known).
    harness.push_patch("delayed", {"tournament": {"clock": {
        "is_break": False, "running": False, "started": False, "remaining": 1200.0,
        "as_of": None}}})
    expect(page.locator("#level-clock")).to_have_text(re.compile(r"^12:(2[4-9]|3[0-4])$"))
    harness.push_patch("delayed", {"table": {"level": {"ends_at": None}}})
    expect(page.locator("#level-clock")).to_have_text("")
    # The next hand: the level is back.
    harness.push_patch("delayed", {"table": {"street": "preflop"},
                                   "tournament": {"clock": {"is_break": False}}})
    expect(page.locator("#level")).to_have_text("Level 12")
    expect(page.locator("#blinds")).to_have_text("4,000 / 8,000")


def test_overlay_without_tournament_keeps_the_table_level_clock(page: Page,
                                                                harness: Harness) -> None:
    view = tournament_view()
    del view["tournament"]
    open_graphic(page, harness, "overlay", view)
    expect(page.locator("#level-clock")).to_have_text(re.compile(r"^12:(2[4-9]|3[0-4])$"))
    expect(page.locator("#next-level")).to_have_text("")
    expect(page.locator("#action-clock")).to_be_hidden()


# ---- every graphic -----------------------------------------------------------------------

EVIL = "<img src=x onerror=window.pwned=1>"
# What each graphic shows of the field on a first paint, and the selector that proves it.
FIRST_PAINT = {
    "leaderboard": (".row:not(.out) .name", "Rast"),
    "lowerthird": ("#name", "Rast"),
    "payouts": (".place-row.next .place", "7th"),
    "clock": ("#level", "Level 5"),
}


REHYDRATED = ("leaderboard", "lowerthird", "payouts", "clock")


def tab(page: Page, probe: Probe) -> Page:
    """Another tab in the test's browser context, watched like the fixture's page."""
    extra = page.context.new_page()
    extra.on("console", lambda m: probe.console_errors.append(m.text)
             if m.type == "error" else None)
    extra.on("pageerror", lambda error: probe.page_errors.append(str(error)))
    extra.on("request", lambda r: probe.requests.append(r.url))
    return extra


def test_graphics_rehydrate_after_the_server_comes_back(page: Page, harness: Harness,
                                                        probe: Probe) -> None:
    probe.allow_websocket_errors = True  # Chromium logs each refused reconnect
    view = tournament_view()
    harness.set_view("delayed", view, revision=20)
    tabs = {name: page if name == REHYDRATED[0] else tab(page, probe) for name in REHYDRATED}
    for name, graphic in tabs.items():
        graphic.goto(f"{harness.base}/{name}?channel=delayed"
                     + ("&seat=4" if name == "lowerthird" else ""))
    for name, graphic in tabs.items():
        expect(graphic.locator("html")).to_have_attribute("data-revision", "20")
        selector, text = FIRST_PAINT[name]
        expect(graphic.locator(selector).first).to_have_text(text)
    harness.stop_server()
    for graphic in tabs.values():
        expect(graphic.locator("html")).to_have_attribute("data-connection", "offline")
    page.wait_for_timeout(600)
    # The last graphics stay on screen while the server is away.
    for name, graphic in tabs.items():
        selector, text = FIRST_PAINT[name]
        expect(graphic.locator(selector).first).to_have_text(text)
        expect(graphic.locator("body")).not_to_contain_text("disconnect", ignore_case=True)
    # It comes back with the tournament moved on: Rast busted in 7th, the clock in level 6.
    moved = eliminated(view, 4, 7, 5000, 50)
    moved["tournament"]["clock"].update(level=6, small_blind=500, big_blind=1000)
    harness.set_view("delayed", moved, revision=31)
    harness.restart_server()
    for graphic in tabs.values():
        expect(graphic.locator("html")).to_have_attribute("data-revision", "31", timeout=15000)
    resumed = {hello.message["page"]: hello.message["resume"]
               for hello in harness.hellos_on("delayed")[len(REHYDRATED):]}
    assert resumed == {name: 20 for name in REHYDRATED}
    board, third, payouts, clock = (tabs[name] for name in REHYDRATED)
    expect(board.locator(".row:not(.out) .name").first).to_have_text("Ashton")
    expect(board.locator(".row.out .name").first).to_have_text("Rast")
    expect(third.locator("#third")).not_to_have_class(re.compile(r"\bshown\b"))
    expect(payouts.locator(".place-row.next .place")).to_have_text("6th")
    expect(payouts.locator(".place-row[data-place='7'] .who")).to_have_text("Rast Andersson")
    expect(clock.locator("#level")).to_have_text("Level 6")
    expect(clock.locator("#blinds")).to_have_text("500 / 1,000")


def test_names_are_text_never_markup(page: Page, harness: Harness) -> None:
    view = tournament_view()
    tour = view["tournament"]
    for player in tour["players"]:
        player.update(name=f"{EVIL} {player['name']}", display_name=EVIL, photo=None)
    for out in tour["eliminations"]:
        out.update(name=EVIL, display_name=EVIL)
    tour["payouts"]["places"][8]["name"] = EVIL
    tour["payouts"]["currency"] = "<b>"
    view["table"]["name"] = "<b>bold</b>"
    for revision, name in enumerate(GRAPHICS, 1):
        query = "&seat=4" if name == "lowerthird" else "&seconds=30"
        open_graphic(page, harness, name, view, revision=revision * 10, query=query)
        if name == "elimination":  # shown only once a bust-out arrives
            harness.push_snapshot("delayed", eliminated(view, 1, 7, 5000, 42), 51)
            expect(page.locator("#bust")).to_have_class(re.compile(r"\bshown\b"))
        # The clock shows no names; its prize pool carries the "<b>" currency as text.
        expect(page.locator("#stage")).to_contain_text(
            "100,000 <b>" if name == "clock" else EVIL)
        assert page.evaluate("window.pwned") is None, name
        # No element came from the data: the only images are flags and photos the page made.
        assert page.locator("#stage img:not(.flag-img):not(.photo img)").count() == 0, name
        assert page.locator("#stage b").count() == 0, name


def test_graphics_load_only_local_modules_and_styles() -> None:
    static = Path(__file__).resolve().parents[2] / "static"
    for name in GRAPHICS:
        html = (static / f"{name}.html").read_text()
        assert 'name="feltcast-version" content="dev"' in html  # the service stamps it
        sources = re.findall(r'(?:src|href)="([^"]+)"', html)
        assert f"/static/{name}.js" in sources and "/static/css/graphics.css" in sources
        assert sources[-2:] == ["/graphics/theme.css", f"/static/{name}.js"]  # theme last
        for source in sources[:-2]:
            assert source.startswith("/static/"), (name, source)
            assert (static / source.removeprefix("/static/")).is_file(), (name, source)


def test_big_fields_fit_the_stage(page: Page, harness: Harness, artifacts: Path) -> None:
    view = tournament_view()
    tour = view["tournament"]
    extra = [{**tour["players"][-1], "seat": 10 + n, "name": f"Player {n}",
              "display_name": f"Player {n}", "rank": 8 + n, "stack": 1000 - n}
             for n in range(3)]
    tour["players"] += extra  # ten in play
    tour["eliminations"] += [{"place": 11 + n, "name": f"Out {n}", "display_name": f"Out {n}",
                              "country": None, "prize": 0, "hand": 5} for n in range(5)]
    tour["payouts"]["places"] = [{"place": n, "prize": 3000 - n * 50, "name": None}
                                 for n in range(1, 31)]
    open_graphic(page, harness, "leaderboard", view)
    # Ten players and the best two of eight eliminated: twelve rows, inside the stage.
    expect(page.locator(".row")).to_have_count(12)
    expect(page.locator(".row.out .rank")).to_have_text(["8th", "9th"])
    page.wait_for_timeout(600)
    box = page.locator("#board").bounding_box()
    assert box is not None and box["y"] + box["height"] <= 1080, box
    open_graphic(page, harness, "payouts", view, revision=2)
    # Thirty places paid: the first twenty in two columns; the summary names the next out.
    expect(page.locator(".place-row")).to_have_count(20)
    expect(page.locator("#stage")).to_have_class(re.compile(r"\btwo-columns\b"))
    page.wait_for_timeout(600)
    box = page.locator("#payouts").bounding_box()
    assert box is not None and box["y"] + box["height"] <= 1080 and box["x"] >= 0, box
    assert box["x"] + box["width"] <= 1920, box
    expect(page.locator("#next")).to_have_text("7th · €2,650")
    page.screenshot(path=str(artifacts / "payouts-two-columns.png"), omit_background=True)


def test_shared_formats(page: Page, harness: Harness) -> None:
    open_graphic(page, harness, "clock", tournament_view())
    results = page.evaluate("""async () => {
        const t = await import('/static/js/tournament.js');
        const ordinals = [];
        for (let n = 1; n <= 125; n++) ordinals.push(t.ordinal(n));
        return {
            ordinals,
            money: [t.money(30000, 'EUR'), t.money(1500, 'USD'), t.money(250, 'GBP'),
                    t.money(100, null), t.money(null, 'EUR'), t.money(5, 'XYZW')],
            bb: [t.bigBlindsText(20), t.bigBlindsText(99.94), t.bigBlindsText(142.3),
                 t.bigBlindsText(null), t.bigBlindsText(10000), t.bigBlindsText(6650.4)],
            share: [t.shareText(0.2413), t.shareText(1), t.shareText(null)],
            initials: [t.initials('Ann Smith'), t.initials('Rast'),
                       t.initials(' Jean  de la Fontaine '), t.initials('Łukasz Żak'),
                       t.initials(''), t.initials(null)],
            codes: [t.countryCode('DE'), t.countryCode('de'), t.countryCode('DEU'),
                    t.countryCode('D"'), t.countryCode(null)],
            paths: [t.localPath('/media/players/a.jpg'), t.localPath('//evil.example/x.jpg'),
                    t.localPath('http://evil.example/x.jpg'), t.localPath('/a\\\\b'),
                    t.localPath(7)],
            level: [t.levelRemaining({remaining: 100, running: true, as_of: 1000}, 1030.5),
                    t.levelRemaining({remaining: 100, running: false, as_of: 1000}, 1030),
                    t.levelRemaining({remaining: 10, running: true, as_of: 1000}, 2000),
                    t.levelRemaining({remaining: 100, running: true, as_of: 1000}, 990),
                    t.levelRemaining({remaining: null, running: true, as_of: 1000}, 1000),
                    t.levelRemaining(null, 1000)],
            clock: (() => {
                // One level clock (docs/view-model.md): a channel at log time 1020, 10 s late.
                const channel = {viewNow: () => 1020, view: {channel: {delay: 10}}};
                const started = {remaining: 100, running: true, as_of: 1000, started: true};
                const waiting = {remaining: 600, running: false, as_of: null, started: false};
                const table = {level: {ends_at: 1100}};
                return [t.levelClock({tournament: {clock: started}, table}, channel),
                        t.levelClock({tournament: {clock: waiting}, table}, channel),
                        t.levelClock({tournament: {clock: waiting}, table}, channel,
                                     {unstarted: true}),
                        t.levelClock({table: {level: {ends_at: null}}}, channel),
                        t.levelClock({table}, channel, {unstarted: true})];
            })(),
            action: [t.actionClockRemaining({seat: 1, ends_at: 1070}, 1000),
                     t.actionClockFinal({seat: 1, ends_at: 1070}, 1059),
                     t.actionClockFinal({seat: 1, ends_at: 1070}, 1060),
                     t.actionClockFinal({seat: 1, ends_at: 1070, countdown_at: 1065}, 1062),
                     t.actionClockRemaining(null, 1000)],
        };
    }""")

    def ordinal(n: int) -> str:
        suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(
            n % 10, "th")
        return f"{n}{suffix}"
    assert results["ordinals"] == [ordinal(n) for n in range(1, 126)]
    assert results["money"] == ["€30,000", "$1,500", "£250", "100", "", "5 XYZW"]
    assert results["bb"] == ["20.0 BB", "99.9 BB", "142 BB", "", "10,000 BB", "6,650 BB"]
    assert results["share"] == ["24.1%", "100.0%", ""]
    assert results["initials"] == ["AS", "RA", "JF", "ŁŻ", "", ""]
    assert results["codes"] == ["DE", None, None, None, None]
    assert results["paths"] == ["/media/players/a.jpg", None, None, None, None]
    assert results["level"] == [69.5, 100, 0, 100, None, None]
    assert results["action"] == [70, False, True, False, None]
    assert results["clock"] == [
        {"remaining": 70, "running": True, "tournament": True},  # on server time: 1030
        {"remaining": 80, "running": True, "tournament": False},  # the table level, log time
        {"remaining": 600, "running": False, "tournament": True},  # standing, not started
        None, None]
