"""The commentators' screen in a real booth (issue 21), in Debian's Chromium.

A demo tournament plays on ``feltcast demo`` while the commentary screen is open at the three
sizes a booth uses. After every render (each snapshot and patch the page applies) the page
itself is checked: no scrollbar, no element outside the viewport, no text cut (an element's
content wider than its box, or taller where it clips), no "null"/"undefined"/"NaN", and one
stack per player on the whole screen: every figure marked as a player's stack is the stack of
his seat in that very view. Then the Channel list and a refused channel, on ``feltcast
serve``.
"""

from __future__ import annotations

import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import Error as PlaywrightError

from tests.pages.conftest import Probe, watch
from tests.pages.harness import Harness
from tests.pages.service import Service, running_service, start_demo, stop_demo
from tests.pages.tournament_views import tournament_view

SIZES = ((1366, 768), (1920, 1080), (2560, 1440))
MIN_HANDS = 4
"""Hands the screens see at least (a level change, the first hands' statistics and stories).
The seed is one whose first hands see flops, showdowns and an all-in."""
SEED = 13
PARTS = ("stack figures", "stacks of the decision", "M", "story lines", "statistics",
         "ICM during a hand", "flop")
"""What must have been on every screen while it was checked. What comes only when the cards
say so (outs, SPR, an all-in, a bust-out) is counted too, and checked from fixture views below
(``test_a_crowded_screen_is_fitted_not_cut``, ``test_every_live_pair_has_its_effective_stack``,
``test_a_bust_out_shows_as_such``)."""

# Installed in the page: checks the screen after every render and keeps what went wrong.
CHECK = r"""() => {
  window.booth = {checks: 0, problems: [], seen: {}, hands: []};
  const where = (node) => node.tagName.toLowerCase() + (node.id ? "#" + node.id : "")
    + (typeof node.className === "string" && node.className
      ? "." + node.className.trim().split(/\s+/).join(".") : "");
  const note = (view, text) => {
    if (window.booth.problems.length < 40) {
      window.booth.problems.push(`hand ${view.table.hand_number} ${view.table.street}: ${text}`);
    }
  };
  const first = {};
  window.booth.first = first;  // the hand in which each part was first seen (diagnostics)
  let hand = null;
  const seen = (key) => {
    window.booth.seen[key] = (window.booth.seen[key] || 0) + 1;
    if (!(key in first)) first[key] = hand;
  };
  let scanned = null;
  let scannedAt = -Infinity;
  // The whole-page scan (every element's box and overflow): at the first render of each
  // street of each hand (the showdown and the hand's end included), and again at most every
  // SCAN_MS within one: three screens scanning every one of a fast demo's renders keep both
  // cores of a busy machine busy. The cheap checks (tally) run at every render.
  const SCAN_MS = 1000;
  const scan = (view) => {
    const moment = `${view.table.hand_number}:${view.table.street}`;
    if (moment === scanned && performance.now() - scannedAt < SCAN_MS) return;
    scanned = moment;
    scannedAt = performance.now();
    window.booth.scans = (window.booth.scans || 0) + 1;
    const root = document.documentElement;
    if (root.scrollHeight > innerHeight || root.scrollWidth > innerWidth) {
      note(view, `the page scrolls: ${root.scrollWidth}x${root.scrollHeight}`);
    }
    for (const node of document.body.querySelectorAll("*")) {
      if (node.offsetParent === null && node !== document.body) continue;  // not shown
      const box = node.getBoundingClientRect();
      if (!box.width && !box.height) continue;
      if (box.left < -0.5 || box.top < -0.5 || box.right > innerWidth + 0.5
          || box.bottom > innerHeight + 0.5) {
        note(view, `${where(node)} outside the viewport`);
      }
      if (node.clientWidth > 0 && node.scrollWidth > node.clientWidth + 1) {
        note(view, `${where(node)} cut: ${node.scrollWidth} > ${node.clientWidth} px`
          + ` "${node.textContent.slice(0, 40)}"`);
      }
      const style = getComputedStyle(node);
      if (style.overflowY !== "visible" && node.clientHeight > 0
          && node.scrollHeight > node.clientHeight + 1) {
        note(view, `${where(node)} clipped: ${node.scrollHeight} > ${node.clientHeight} px`);
      }
      if (style.overflowY === "auto" || style.overflowY === "scroll") {
        note(view, `${where(node)} can scroll`);
      }
    }
    const text = document.body.innerText;
    for (const bad of ["null", "undefined", "NaN", "[object Object]"]) {
      if (!text.includes(bad)) continue;
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      while (walker.nextNode()) {
        const found = walker.currentNode;
        if (found.textContent.includes(bad) && found.parentElement.offsetParent !== null) {
          note(view, `"${bad}" shown in ${where(found.parentElement)}: "${found.textContent}"`);
        }
      }
    }
  };
  const tally = (view) => {
    // One stack per player per moment: every stack figure is his seat's stack in this view.
    const stacks = new Map((view.seats || []).filter((s) => s.name !== null)
      .map((s) => [String(s.seat), s.stack]));
    for (const node of document.querySelectorAll("[data-stack-seat]")) {
      if (node.offsetParent === null) continue;
      const seat = node.dataset.stackSeat;
      if (Number(node.dataset.chips) !== stacks.get(seat)
          || node.textContent !== stacks.get(seat).toLocaleString("en-US")) {
        note(view, `seat ${seat}: ${where(node)} shows ${node.textContent}, `
          + `the seat has ${stacks.get(seat)}`);
      }
      seen("stack figures");
    }
    const shown = (selector) => [...document.querySelectorAll(selector)]
      .filter((n) => n.offsetParent !== null && n.textContent.trim());
    if ((view.table.board || []).length >= 3) seen("flop");
    if (shown("#booth-rows tr").length) seen("stacks of the decision");
    if (shown("#booth-rows .booth-spr").length) seen("SPR");
    if (shown(".outs-odds").some((n) => / by the river$| on the river$/.test(n.textContent))) {
      seen("outs with odds");
    }
    if (shown(".player .m").length) seen("M");
    if (shown(".player .story").length) seen("story lines");
    if (shown(".player .stats").length) seen("statistics");
    if (shown("#allin").length) seen("all-in");
    if (shown(".player.busted").length) seen("bust-out");
    if (shown("#icm-pot-row").length) seen("ICM during a hand");
  };
  window.feltcast.onRender((view) => {
    window.booth.checks += 1;
    hand = view.table.hand_number;
    if (hand && !window.booth.hands.includes(hand)) window.booth.hands.push(hand);
    scan(view);
    tally(view);
  });
}"""


def open_screen(browser: Browser, url: str, probe: Probe, size: tuple[int, int]) -> Page:
    # Reduced motion: the cards' deal-in animation would put a card's box above its panel for
    # a third of a second; the layout is what is checked.
    context = browser.new_context(viewport={"width": size[0], "height": size[1]},
                                  reduced_motion="reduce")
    page = watch(context.new_page(), probe)
    page.goto(url)
    expect(page.locator("html")).to_have_attribute("data-connection", "live", timeout=30000)
    page.evaluate(CHECK)
    return page


def keep_screenshot(page: Page, path: Path) -> None:
    """A screenshot for the test artifacts. It is no assertion: a screenshot that cannot be
    taken (Chromium waits for fonts while the page re-renders several times a second on a
    busy machine) is noted beside it instead of failing the test."""
    try:
        page.screenshot(path=str(path), timeout=20000)
    except PlaywrightError as error:
        path.with_suffix(".txt").write_text(f"no screenshot: {error}\n")


def test_the_screen_fits_every_booth_size_through_a_demo_tournament(
        browser: Browser, tmp_path: Path, artifacts: Path) -> None:
    began = time.monotonic()
    probe = Probe()
    demo = start_demo(tmp_path / "demo", speed=24, delay=2, seed=SEED)
    pages: list[Page] = []
    try:
        line = demo.until(r"commentary +http://127\.0\.0\.1:\d+/commentary", timeout=120)
        found = re.search(r"(http://127\.0\.0\.1:\d+/commentary\S*)", line)
        assert found is not None
        pages = [open_screen(browser, found[1], probe, size) for size in SIZES]
        # Watch until every part a booth needs has come up on every screen (bust-outs and
        # all-ins come when the cards say so), or a problem shows, or the deadline.
        # The deadline counts from the test's start and leaves pytest-timeout's 300 s room
        # for the screenshots and the checks: a slow run fails saying what it saw.
        deadline = began + 200
        while True:
            booths: list[dict[str, Any]] = [page.evaluate("window.booth") for page in pages]
            hands = [len(b["hands"]) for b in booths]  # watched from the first render on
            done = all(all(b["seen"].get(part) for part in PARTS) for b in booths)
            if (done and min(hands) >= MIN_HANDS) or any(b["problems"] for b in booths) \
                    or time.monotonic() > deadline:
                break
            pages[0].wait_for_timeout(1000)
        # The table frozen for the screenshots (SIGSTOP: its sockets stay open, nothing new
        # comes): a screen re-rendering a fast demo several times a second keeps Chromium
        # from taking one for a minute.
        demo.process.send_signal(signal.SIGSTOP)
        try:
            for page, (width, height) in zip(pages, SIZES, strict=True):
                keep_screenshot(page, artifacts / f"commentary-booth-{width}x{height}.png")
        finally:
            demo.process.send_signal(signal.SIGCONT)
        assert [b["problems"] for b in booths] == [[]] * len(SIZES)
        for booth, (width, height) in zip(booths, SIZES, strict=True):
            # Every screen watched MIN_HANDS hands, checked at every render and scanned
            # whole at least once a hand (a busy machine renders less often, never less).
            assert len(booth["hands"]) >= MIN_HANDS, booth
            assert booth["checks"] >= booth["scans"] >= MIN_HANDS, booth
            # What a booth needs came up and was checked with everything else.
            missing = [part for part in PARTS if not booth["seen"].get(part)]
            assert missing == [], (width, height, missing, booth["first"], hands)
        print("first seen in hand:", [b["first"] for b in booths], "hands:", hands,
              "checks:", [(b["checks"], b["scans"]) for b in booths])
    finally:
        for page in pages:
            page.context.close()
        stop_demo(demo)
    assert probe.page_errors == []
    assert probe.unexpected_console_errors() == []
    assert probe.foreign_requests() == []


# --- channels --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    with running_service(tmp_path_factory.mktemp("booth"), 3.0) as running:
        yield running


def test_the_channel_list_offers_what_the_token_opens(browser: Browser,
                                                      service: Service) -> None:
    probe = Probe()
    page = open_screen(browser, f"{service.base}/commentary?token={service.secure}", probe,
                       (1920, 1080))
    try:
        select = page.locator("#channel-select")
        options = select.locator("option")
        # venue, delayed and secure; never the operator's channel or a disabled one.
        expect(options).to_have_count(3)
        assert sorted(options.evaluate_all("ns => ns.map(n => n.value)")) == [
            "delayed", "secure", "venue"]
        expect(select).to_have_value("delayed")
        expect(page.locator("#delay")).to_have_text("3 s behind live")
        select.select_option("secure")
        expect(page.locator("#delay")).to_have_text("Live")
        assert "channel=secure" in page.url  # a reload keeps the choice
        expect(page.locator("html")).to_have_attribute("data-connection", "live")
        assert page.evaluate("window.feltcast.channel.channel") == "secure"
    finally:
        page.context.close()
    assert probe.page_errors == [] and probe.unexpected_console_errors() == []


def test_a_refused_channel_is_named_with_its_reason(browser: Browser, tmp_path: Path) -> None:
    # Its own service: the page's retries with a wrong token count against 127.0.0.1.
    probe = Probe(allow_websocket_errors=True)
    with running_service(tmp_path / "refused", 3.0) as service:
        context = browser.new_context(viewport={"width": 1366, "height": 768})
        page = context.new_page()
        page.on("pageerror", lambda error: probe.page_errors.append(str(error)))
        try:
            page.goto(f"{service.base}/commentary?channel=secure&token=not-the-token")
            expect(page.locator("#connection")).to_have_text(
                "Channel secure refused: that token does not open the secure channel",
                timeout=30000)
            page.goto(f"{service.base}/commentary?channel=delayd")
            expect(page.locator("#connection")).to_have_text(re.compile(
                r"^Channel delayd refused: there is no channel 'delayd' \(channels: .*\)$"),
                timeout=30000)
        finally:
            context.close()
    assert probe.page_errors == []


# --- a crowded screen, from the harness's fixture views ---------------------------------------


def crowded_view() -> dict[str, Any]:
    """Nine players with long names, thirty actions, long story lines, an all-in's ten
    outcomes: more than a 1366x768 screen holds at full size."""
    view = tournament_view("delayed")
    names = {1: "Ashton Alexander Griffin-Whitmore", 2: "Kalidou Sow", 3: "Mira Lindqvist",
             4: "Rast Andersson", 5: "Maximiliano Konstantinopoulos", 6: "Daniel Ortega",
             7: "Yuki Tanaka", 8: "Lena Fischer", 9: "Diego Ferreira da Silva"}
    seats = view["seats"]
    seats[4].update(name="Maximiliano Konstantinopoulos", stack=51000, stack_bb=6.4,
                    folded=True, cards=["2c", "2d"], last_action="Fold")
    seats.append({**seats[5], "seat": 9, "name": names[9], "stack": 61000})
    seats[0]["outs"] = {**seats[0]["outs"], "next_card": 0.14, "by_river": 0.2631}
    tournament = view["tournament"]
    tournament["players"] = [{"seat": s["seat"], "name": names[s["seat"]],
                              "display_name": names[s["seat"]].split()[0], "country": "DE",
                              "photo": None, "stack": s["stack"] + s["bet"], "share": 0.1,
                              "rank": i + 1, "prize_so_far": 0}
                             for i, s in enumerate(seats) if s["name"]]
    tournament["field"]["total_chips"] = sum(s["stack"] + s["bet"] for s in seats) + 702000
    tournament["icm"] = {str(p["seat"]): 10000.0 for p in tournament["players"]}
    story = {"biggest_won": {"hand": 12, "chips": 1840000},
             "biggest_lost": {"hand": 30, "chips": 921000}, "lead_taken": 3, "lead_hand": 51,
             "knocked_out": [{"name": "Olga Petrova", "hand": 41},
                             {"name": "Tom Brenner", "hand": 30}],
             "doubled": [{"hand": 7, "through": "Maximiliano Konstantinopoulos"}]}
    seated = [str(p["seat"]) for p in tournament["players"]]
    stats = {"hands": 48, "vpip": 0.25, "pfr": 0.2, "three_bet": 0.08, "af": 2.5, "wtsd": 0.3}
    tournament["stories"] = {seat: story for seat in seated}
    tournament["stats"] = {seat: stats for seat in seated}
    actions = view["table"]["actions"]
    for n in range(30):
        actions.append({"seat": 4, "name": "Rast", "street": "flop", "verb": "bet",
                        "amount": 1000 + n, "text": f"Rast bets {1000 + n:,}"})
    outcomes = [{"probability": p, "stacks": [1, 1], "winners": [4], "busted": [1],
                 "doubled": [4], "split": False, "equity": [0.0, 1000.0 * i]}
                for i, p in enumerate([0.3, 0.2, 0.1, 0.1, 0.1, 0.05, 0.05, 0.04, 0.03, 0.03])]
    tournament["allin"] = {"seats": [1, 4], "chip_equity": [0.25, 0.75],
                           "expected_stacks": [1, 2], "equity_before": [9000.0, 12000.0],
                           "expected_equity": [8000.0, 13000.5], "boards": 990,
                           "outcomes": outcomes}
    return view


def test_a_crowded_screen_is_fitted_not_cut(page: Page, harness: Harness,
                                            artifacts: Path) -> None:
    page.set_viewport_size({"width": 1366, "height": 768})
    harness.set_view("delayed", crowded_view())
    page.goto(f"{harness.base}/commentary")
    expect(page.locator("html")).to_have_attribute("data-revision", "1")
    page.evaluate(CHECK)
    page.evaluate("window.feltcast.render(window.feltcast.channel.view)")
    booth = page.evaluate("window.booth")
    page.screenshot(path=str(artifacts / "commentary-crowded-1366x768.png"))
    assert booth["problems"] == [] and booth["checks"] == 1
    # The action log keeps its newest lines.
    expect(page.locator("#history li").last).to_have_text("Rast bets 1,029")
    expect(page.locator(".history-earlier")).to_have_text(re.compile(r"^\d+ earlier actions$"))
    # A long name is shortened by the rule, the full name its tooltip.
    name = page.locator(".player[data-seat='1'] .name")
    expect(name).to_have_attribute("title", "Ashton Alexander Griffin-Whitmore")
    assert name.inner_text() in ("A. Alexander Griffin-Whitmore", "A. Griffin-Whitmore",
                                 "Griffin-Whitmore")
    # Stacks of the decision: Ashton (734,000 behind) against Rast (954,000 and a 24,000 bet).
    expect(page.locator("#booth-numbers")).to_have_text("734,000 behind · 91.8 BB · M 36.7")
    rast = page.locator("#booth-rows tr[data-seat='4']")
    expect(rast.locator(".booth-effective")).to_have_text("734,000")
    expect(rast.locator(".booth-bb")).to_have_text("91.8 BB")
    expect(rast.locator(".booth-spr")).to_have_text("1.0")  # 734,000 over the 702,000 pot
    # Yuki is all-in for less: nothing more to decide against him.
    expect(page.locator("#booth-rows tr")).to_have_count(1)
    expect(page.locator(".player[data-seat='1'] .outs-odds")).to_have_text(
        "14.0% next card · 26.3% by the river")
    # The ICM table says what it shows: a hand is running.
    expect(page.locator("#icm-caption")).to_have_text(
        "Stacks now · prize equity expected once this all-in is decided (every outcome weighed)")
    outcomes = page.locator("#allin-outcomes .outcome:not(.more)")
    assert 1 <= outcomes.count() <= 8
    expect(page.locator("#allin-outcomes .outcome.more")).to_have_text(
        re.compile(r"^\d+ more outcomes \(\d+\.\d%\)$"))


def test_every_live_pair_has_its_effective_stack(page: Page, harness: Harness) -> None:
    view = tournament_view("delayed")
    daniel = view["seats"][5]
    daniel.update(folded=False, last_action=None, equity=None)  # seat 6 still in, 88,000
    harness.set_view("delayed", view)
    page.goto(f"{harness.base}/commentary")
    expect(page.locator("html")).to_have_attribute("data-revision", "1")
    rows = page.locator("#booth-rows tr")
    # Ashton to act against Rast and Daniel (Yuki is all in), then the pair without him.
    expect(rows).to_have_count(4)
    expect(rows.nth(0).locator(".booth-effective")).to_have_text("734,000")
    expect(rows.nth(1).locator(".booth-effective")).to_have_text("88,000")
    expect(rows.nth(2)).to_have_text("Other pairs")
    pair = page.locator("#booth-rows tr[data-pair='4-6']")
    expect(pair.locator(".fit-name").first).to_have_attribute("title", "Rast Andersson")
    assert pair.locator(".fit-name").evaluate_all("ns => ns.map(n => n.title)") == [
        "Rast Andersson", "Daniel Ortega"]
    expect(pair.locator(".booth-effective")).to_have_text("88,000")
    expect(pair.locator(".booth-bb")).to_have_text("11.0 BB")
    expect(pair.locator(".booth-spr")).to_have_text("0.1")  # 88,000 over the 702,000 pot
    # Pre-flop there is no SPR column (it is a post-flop figure).
    harness.push_patch("delayed", {"table": {"street": "preflop", "board": []}})
    expect(page.locator("#booth-spr-head")).to_be_hidden()
    expect(page.locator("#booth-rows .booth-spr")).to_have_count(0)


def test_how_far_behind_live_is_said_in_words(page: Page, harness: Harness) -> None:
    harness.set_view("delayed", tournament_view("delayed"))
    page.goto(f"{harness.base}/commentary")
    expect(page.locator("html")).to_have_attribute("data-revision", "1")
    said = page.evaluate("""async () => {
        const { behindText } = await import('/static/commentary.js');
        return [0, 30, 119, 900, 1800, 3600, 3900].map(behindText);
    }""")
    assert said == ["Live", "30 s behind live", "119 s behind live", "15 min behind live",
                    "30 min behind live", "1 h behind live", "1 h 5 min behind live"]


def test_a_bust_out_shows_as_such(page: Page, harness: Harness) -> None:
    view = tournament_view("delayed")
    view["table"].update(street="over", to_call=0)
    yuki = next(s for s in view["seats"] if s["seat"] == 7)
    yuki.update(all_in=False, outs=None, equity=None)  # stack 0: his chips went to Rast
    rast = next(s for s in view["seats"] if s["seat"] == 4)
    rast.update(winner=True, won=702000, stack=rast["stack"] + 702000, bet=0)
    for seat in view["seats"]:
        seat["to_act"] = False
    harness.set_view("delayed", view)
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(f"{harness.base}/commentary")
    expect(page.locator("html")).to_have_attribute("data-revision", "1")
    page.evaluate(CHECK)
    page.evaluate("window.feltcast.render(window.feltcast.channel.view)")
    out = page.locator(".player[data-seat='7']")
    expect(out.locator(".state")).to_have_text("Busted")
    # No "0.0 BB", "M 0.0" or "Chips 0.0%" for a player who is out.
    expect(out.locator(".bb")).to_be_hidden()
    expect(out.locator(".m")).to_be_hidden()
    expect(out.locator(".chip-share")).to_have_text("")
    expect(page.locator(".player[data-seat='4'] .state")).to_have_text("Wins 702,000")
    expect(page.locator("#icm-pot-row")).to_be_hidden()  # the pot is in Rast's stack now
    booth = page.evaluate("window.booth")
    assert booth["problems"] == [] and booth["seen"].get("bust-out") == 1
