"""The commentary screen's tournament context against the real service (``feltcast serve`` as a
subprocess, Debian's Chromium): what is at stake (ICM prize equity next to the chip share,
summing to the prizes still to be won; the field; the pay jump), an all-in's outcomes with
each player's prize equity before and after (on secure and delayed, and on venue never before
the hands are face up, R14), then the ticker line and the session statistics.

The last test draws fixture views from the harness (``tests/pages/harness.py``) to reach the
cases a short session cannot (above the money, no prize pool, many outcomes). Every test also
asserts: no page error, no console error, no request that leaves 127.0.0.1.
The tests share one service and run in order.
"""

from __future__ import annotations

import re
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.pages.conftest import Probe
from tests.pages.harness import Harness
from tests.pages.service import Service, running_service
from tests.pages.tournament_views import tournament_view

DELAY = 2.0
POOL = 10000
TOURNAMENT = f"""
[tournament]
name = "Main Event"
entrants = 4
prize_pool = {POOL}
currency = "EUR"

[[players]]
seat = 9
name = "Lena Fischer"
stack = 100000
"""
# Everyone all in before the flop; Lena's quads win the main pot, Rast's full house both side
# pots, Ashton keeps what he had over Rast, Yuki busts in 4th (no prize: three places paid).
HOLE = {1: ["Ah", "As"], 4: ["Kd", "Kc"], 7: ["7s", "2d"], 9: ["8c", "8d"]}
BOARD = [["8h", "8s", "Kh"], ["3c"], ["4d"]]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """The service's usual three players, a fourth, and a 10,000 EUR prize pool."""
    with running_service(tmp_path_factory.mktemp("serve"), DELAY,
                         extra_config=TOURNAMENT) as running:
        yield running


def euros(text: str) -> int:
    """'€3,294' → 3294."""
    return int(re.sub(r"[^\d]", "", text))


def watch(browser: Browser, probe: Probe, url: str) -> Page:
    page = browser.new_page(viewport={"width": 1600, "height": 1200})
    page.on("console", lambda m: probe.console_errors.append(m.text)
            if m.type == "error" else None)
    page.on("pageerror", lambda error: probe.page_errors.append(str(error)))
    page.on("request", lambda r: probe.requests.append(r.url))
    page.goto(url)
    expect(page.locator("html")).to_have_attribute("data-connection", "live")
    return page


def check_probe(probe: Probe) -> None:
    assert probe.page_errors == []
    assert probe.unexpected_console_errors() == []
    assert probe.foreign_requests() == []


def check_icm(page: Page, tournament: dict[str, Any]) -> None:
    """The ICM table shows the view's equities, adding up to the prizes still to be won."""
    payouts = tournament["payouts"]
    at_stake = sum(p["prize"] for p in payouts["places"] if p["place"] <= payouts["remaining"])
    icm = tournament["icm"]
    assert sum(icm.values()) == pytest.approx(at_stake, abs=0.05)
    rows = page.locator("#icm-rows tr")
    expect(rows).to_have_count(len(tournament["players"]))
    for player in tournament["players"]:
        row = page.locator(f"#icm-rows tr[data-seat='{player['seat']}']")
        expect(row.locator(".icm-value")).to_have_text(f"€{round(icm[str(player['seat'])]):,}")
        expect(row.locator(".icm-share")).to_have_text(f"{player['share'] * 100:.1f}%")
    shown = [euros(text) for text in page.locator("#icm-rows .icm-value").all_inner_texts()]
    assert abs(sum(shown) - at_stake) <= len(shown)  # each row rounded to a whole euro
    expect(page.locator("#icm-total")).to_have_text(f"€{at_stake:,}")
    expect(page.locator("#icm-prizes")).to_have_text(f"prizes still to win €{at_stake:,}")


def test_what_is_at_stake(browser: Browser, service: Service, artifacts: Path) -> None:
    probe = Probe()
    page = watch(browser, probe, f"{service.base}/commentary")  # delayed by default
    try:
        expect(page.locator("#stakes")).to_be_visible()
        expect(page.locator("#stakes-title")).to_have_text("Main Event: what is at stake")
        # The delayed channel shows the seated players once its delay has passed.
        expect(page.locator("#field-remaining")).to_have_text("4 of 4", timeout=10000)
        tournament = service.view("delayed")["tournament"]
        expect(page.locator("#field-leader")).to_have_text("Ashton Griffin")
        expect(page.locator("#field-pool")).to_have_text("€10,000")
        average = tournament["field"]["average"]
        expect(page.locator("#field-average")).to_have_text(re.compile(
            rf"^{average:,} \(\d[\d,.]* BB\)$"))
        # Four left, three paid: the bubble.
        expect(page.locator("#pay-jump")).to_have_text(
            "Next out finishes 4th: no prize · 3rd pays €2,000 (+€2,000) · the bubble")
        check_icm(page, tournament)
        # Each player's card: chip share next to prize equity.
        ashton = page.locator(".player[data-seat='1']")
        share = next(p for p in tournament["players"] if p["seat"] == 1)["share"]
        expect(ashton.locator(".chip-share")).to_have_text(f"Chips {share * 100:.1f}%")
        expect(ashton.locator(".prize-equity")).to_have_text(
            f"ICM €{round(tournament['icm']['1']):,}")
        expect(page.locator("#allin")).to_be_hidden()
        expect(page.locator("#ticker")).to_be_hidden()  # no hand played yet
        # An identity set by the operator reaches the commentators on this channel's delay.
        assert service.command("set_player", seat=9, name="Lena Fischer",
                       display_name="Lena", country="DE")["ok"]
        # Name boxes show the full name (shortened only when it does not fit: docs/pages.md).
        expect(page.locator("#icm-rows tr[data-seat='9'] th")).to_have_text("Lena Fischer")
        expect(page.locator(".player[data-seat='9'] .flag img")).to_have_attribute(
            "src", "/static/flags/de.svg")
        page.wait_for_timeout(300)
        page.screenshot(path=str(artifacts / "commentary-stakes.png"), full_page=True)
    finally:
        page.close()
    check_probe(probe)


RECORD = """() => {
    window.allinSeen = [];
    const note = () => {
        if (document.documentElement.dataset.allin !== "1") return;
        window.allinSeen.push({at: Date.now(),
            faces: document.querySelectorAll(".player .hole .card.face").length});
    };
    new MutationObserver(note).observe(document.documentElement,
        {attributes: true, subtree: true, childList: true});
}"""


def test_all_in_outcomes_by_channel(browser: Browser, service: Service,
                                    artifacts: Path) -> None:
    probe = Probe()
    secure = watch(browser, probe, f"{service.base}/commentary?channel=secure"
                   f"&token={service.secure}")
    delayed = watch(browser, probe, f"{service.base}/commentary?channel=delayed")
    venue = watch(browser, probe, f"{service.base}/commentary?channel=venue")
    pages = (secure, delayed, venue)
    try:
        for page in pages:
            page.evaluate(RECORD)
        assert service.command("next_hand")["ok"]
        for seat, cards in HOLE.items():
            assert service.command("deal_cards", seat=seat, cards=cards)["ok"]
        started = time.time()
        while True:
            to_act = [s["seat"] for s in service.view("operator")["seats"] if s["to_act"]]
            if len(to_act) == 0:
                break
            # Someone still to act: no all-in run-out yet, on any channel (secure knows
            # every card but the betting is not over).
            assert service.view("secure")["tournament"]["allin"] is None
            last = time.time()
            try:
                service.command("all_in", seat=to_act[0])
            except urllib.error.HTTPError:
                service.command("call", seat=to_act[0])  # all in by calling
        allin = service.view("secure")["tournament"]["allin"]
        assert allin is not None and allin["seats"] == [1, 4, 7, 9]
        # Secure: at once, with the view's numbers.
        expect(secure.locator("#allin")).to_be_visible()
        rows = secure.locator("#allin-players tr")
        expect(rows).to_have_count(4)
        names = {1: "Ashton Griffin", 4: "Rast", 7: "Yuki Tanaka", 9: "Lena Fischer"}
        for index, seat in enumerate(allin["seats"]):
            row = secure.locator(f"#allin-players tr[data-seat='{seat}']")
            expect(row.locator("th")).to_have_text(names[seat])
            expect(row.locator(".chip-equity")).to_have_text(
                f"{allin['chip_equity'][index] * 100:.1f}%")
            expect(row.locator(".equity-before")).to_have_text(
                f"€{round(allin['equity_before'][index]):,}")
            expect(row.locator(".equity-after")).to_have_text(
                f"€{round(allin['expected_equity'][index]):,}")
        # Prize equity before the hand is the ICM the stakes table shows.
        icm = service.view("secure")["tournament"]["icm"]
        assert allin["equity_before"] == pytest.approx([icm[str(s)] for s in allin["seats"]],
                                                       abs=0.01)
        outcomes = sorted(allin["outcomes"], key=lambda o: -o["probability"])
        assert sum(o["probability"] for o in outcomes) == pytest.approx(1, abs=1e-4)
        items = secure.locator("#allin-outcomes .outcome:not(.more)")
        expect(items).to_have_count(min(8, len(outcomes)))
        expect(items.first.locator(".outcome-probability")).to_have_text(
            f"{outcomes[0]['probability'] * 100:.1f}%")
        # The likeliest: Ashton's aces hold; everyone else busts.
        assert outcomes[0]["winners"] == [1] and outcomes[0]["busted"] == [4, 7, 9]
        expect(items.first.locator(".outcome-text")).to_have_text(
            "Ashton Griffin doubles up; Rast, Yuki Tanaka and Lena bust")
        expect(items.first.locator(".outcome-equity")).to_have_text(
            "Ashton Griffin €5,000 · Rast €3,000 · Yuki Tanaka €2,000 · Lena €0")
        expect(secure.locator("#allin-boards")).to_have_text(
            f"Every remaining board counted: {allin['boards']:,}")
        secure.wait_for_timeout(300)
        secure.screenshot(path=str(artifacts / "commentary-allin.png"), full_page=True)
        # Delayed: the same, no earlier than its delay after the last action.
        expect(delayed.locator("#allin")).to_be_visible(timeout=15000)
        first_delayed = delayed.evaluate("window.allinSeen[0].at") / 1000
        assert first_delayed >= last + DELAY - 0.05
        # Venue: only with every hand face up (R14 turns them over when the betting is over).
        expect(venue.locator("#allin")).to_be_visible()
        seen = venue.evaluate("window.allinSeen")
        assert seen and all(entry["faces"] == 8 for entry in seen), seen
        assert seen[0]["at"] / 1000 >= started
        for part in BOARD:
            assert service.command("deal_board", cards=part)["ok"]
        for page in pages:
            expect(page.locator("#allin")).to_be_hidden(timeout=15000)
    finally:
        for page in pages:
            page.close()
    check_probe(probe)


def test_after_the_hand_ticker_stats_and_the_money(browser: Browser, service: Service,
                                                   artifacts: Path) -> None:
    probe = Probe()
    page = watch(browser, probe, f"{service.base}/commentary")
    try:
        tournament = service.view("delayed")["tournament"]
        assert tournament["field"]["remaining"] == 3  # Yuki busted in 4th
        assert isinstance(tournament["ticker"], str) and tournament["ticker"]
        expect(page.locator("#ticker")).to_be_visible()
        expect(page.locator("#ticker-text")).to_have_text(tournament["ticker"])
        assert "Yuki Tanaka" in tournament["ticker"]
        # Session statistics: one hand each, everyone put chips in voluntarily.
        for seat in (1, 4, 9):
            stats = tournament["stats"][str(seat)]
            line = page.locator(f".player[data-seat='{seat}'] .stats")
            expect(line).to_contain_text(f"{stats['hands']} hand")
            expect(line).to_contain_text(f"VPIP {stats['vpip'] * 100:.0f}%")
            expect(line).to_contain_text(f"PFR {stats['pfr'] * 100:.0f}%")
        assert tournament["stats"]["9"]["vpip"] == 1
        # In the money now: the next out takes 3rd and its prize.
        expect(page.locator("#field-remaining")).to_have_text("3 of 4")
        expect(page.locator("#pay-jump")).to_have_text(
            "Next out finishes 3rd: €2,000 · 2nd pays €3,000 (+€1,000)")
        expect(page.locator("#field-leader")).to_have_text("Rast")
        check_icm(page, tournament)
        page.wait_for_timeout(300)
        page.screenshot(path=str(artifacts / "commentary-after-all-in.png"), full_page=True)
    finally:
        page.close()
    check_probe(probe)


def test_patches_above_the_money_without_prizes_and_many_outcomes(
        page: Page, harness: Harness) -> None:
    """The same screen from the harness's fixture views: every part re-renders from patches
    (docs/view-model.md); above the money, without a prize pool, more outcomes than fit."""
    view = tournament_view("delayed")
    view["tournament"]["stats"] = {"4": {"hands": 12, "vpip": 0.25, "pfr": 0.1667,
                                         "three_bet": None, "af": None, "wtsd": 0.5}}
    harness.set_view("delayed", view)
    page.goto(f"{harness.base}/commentary")
    expect(page.locator("html")).to_have_attribute("data-revision", "1")
    # Seven left, nine paid (the fixture's payouts name no remaining: the field's is used).
    expect(page.locator("#pay-jump")).to_have_text(
        "Next out finishes 7th: €5,000 · 6th pays €6,000 (+€1,000)")
    # Twelve hands: VPIP and PFR with their sample, greyed; no 3-bet, AF or WTSD yet.
    stats = page.locator(".player[data-seat='4'] .stats")
    expect(stats).to_have_text("VPIP 25% · PFR 17% of 12 hands")
    expect(stats).to_have_class(re.compile(r"\bsmall-sample\b"))
    harness.push_patch("delayed", {"tournament": {"stats": {"4": {"hands": 40}}}})
    expect(stats).to_have_text("VPIP 25% · PFR 17% · WTSD 50% of 40 hands")  # unknown ones out
    expect(stats).not_to_have_class(re.compile(r"\bsmall-sample\b"))
    expect(page.locator(".player[data-seat='4'] .flag img")).to_have_attribute(
        "src", "/static/flags/se.svg")
    expect(page.locator("#ticker-text")).to_have_text("Hand 41: Rast wins 4,800 with two pair")
    # Three places paid: four more players out before the money.
    places = [{"place": 1, "prize": 50000, "name": None, "jump": 20000},
              {"place": 2, "prize": 30000, "name": None, "jump": 10000},
              {"place": 3, "prize": 20000, "name": None, "jump": 20000}]
    harness.push_patch("delayed", {"tournament": {"payouts": {"places": places, "paid": 3,
                                                              "remaining": 7}}})
    expect(page.locator("#pay-jump")).to_have_text(
        "Next out finishes 7th: no prize · 4 more out before the money")
    # An all-in with more outcomes than fit: the likeliest eight, the rest summed.
    outcomes = [{"probability": p, "stacks": [1, 1], "winners": [4], "busted": [1],
                 "doubled": [4], "split": False, "equity": [0.0, 1000.0 * i]}
                for i, p in enumerate([0.3, 0.2, 0.1, 0.1, 0.1, 0.05, 0.05, 0.04, 0.03, 0.03])]
    allin = {"seats": [1, 4], "chip_equity": [0.25, 0.75], "expected_stacks": [1, 2],
             "equity_before": [9000.0, 12000.0], "expected_equity": [8000.0, 13000.5],
             "boards": 990, "outcomes": outcomes}
    harness.push_patch("delayed", {"tournament": {"allin": allin}})
    expect(page.locator("#allin")).to_be_visible()
    expect(page.locator("#allin-outcomes .outcome:not(.more)")).to_have_count(8)
    expect(page.locator("#allin-outcomes .outcome.more")).to_have_text(
        "2 more outcomes (6.0%)")
    expect(page.locator("#allin-outcomes .outcome-text").first).to_have_text(
        "Rast doubles up; Ashton busts")
    expect(page.locator("#allin-players tr[data-seat='4'] .equity-change")).to_have_text(
        "+€1,001")
    expect(page.locator("#allin-players tr[data-seat='1'] .equity-change")).to_have_text(
        "−€1,000")
    harness.push_patch("delayed", {"tournament": {"allin": None}})
    expect(page.locator("#allin")).to_be_hidden()
    # No prize pool: no prizes, no ICM, no pay jump; the field stays.
    harness.push_patch("delayed", {"tournament": {"payouts": None, "icm": None}})
    expect(page.locator("#icm")).to_be_hidden()
    expect(page.locator("#field-pool")).to_have_text("—")
    expect(page.locator("#pay-jump")).to_have_text("")
    expect(page.locator("#field-remaining")).to_have_text("7 of 10")
    expect(page.locator(".player[data-seat='4'] .prize-equity")).to_have_text("")
