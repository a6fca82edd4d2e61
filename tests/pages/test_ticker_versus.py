"""The on-air ticker and the all-in "versus" graphic in Debian's Chromium (issue 19,
docs/pages.md): the crawl of the operator's lines, the last hands and the field, a line the
operator takes back leaving at once; the versus graphic's hands, chances and prize money from
the view's ``allin``, hidden once the hand is decided; the elimination graphic giving way to
it (they share a region: overlay/graphics/layouts.py TIME_SHARED)."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from tests.pages.harness import Harness
from tests.pages.test_themes import until
from tests.pages.test_tournament_pages import bust_shown, open_graphic
from tests.pages.tournament_views import allin_view, eliminated, tournament_view


def crawl(page: Page) -> list[list[str]]:
    """What the crawl carries now: [kind, text] per item."""
    found: list[list[str]] = page.evaluate("""() => [...document.querySelectorAll(
        '#track .crawl-item')].map((n) => [n.classList[1], n.textContent])""")
    return found


def shift(page: Page) -> float:
    value: float = page.evaluate("""() => new DOMMatrix(getComputedStyle(
        document.getElementById('track')).transform).m41""")
    return value


def passes(page: Page) -> int:
    count: int = page.evaluate("Number(document.documentElement.dataset.passes || 0)")
    return count


def fresh_pass(page: Page) -> int:
    """Wait for the next pass to start (so that what follows happens within one pass)."""
    before = passes(page)
    until(lambda: passes(page) > before, "the next pass")
    return passes(page)


def theme_with(harness: Harness, messages: list[str]) -> dict[str, Any]:
    return {"type": "theme", "theme": {**harness.graphics.state(), "messages": messages}}


def test_the_ticker_crawls_the_operators_lines_the_last_hands_and_the_field(
        page: Page, harness: Harness, artifacts: Path) -> None:
    view = tournament_view()
    view["tournament"]["name"] = "Main Event"
    open_graphic(page, harness, "ticker", view, query="&speed=1500")
    expect(page.locator("#label")).to_have_text("Main Event")
    assert crawl(page) == [["hand", "Hand 41: Rast wins 4,800 with two pair"],
                           ["field", "7 / 10 players left · Average 7,142 (11.9 BB) · "
                                     "Prize pool €100,000"]]
    # It moves, right to left.
    first = shift(page)
    until(lambda: shift(page) < first - 20, "the crawl to move")
    # The operator's lines come with the look on air: they join the pass now crawling at
    # once (at its end, the crawl going on from where it is), and lead the next pass.
    current = fresh_pass(page)
    harness.push_raw("delayed", theme_with(harness, ["Welcome to the final table",
                                                     "Play resumes at 20:00"]))
    before = shift(page)
    until(lambda: [k for k, _ in crawl(page)] == ["hand", "field", "operator", "operator"],
          "the operator's lines in this pass")
    assert passes(page) == current
    assert shift(page) <= before  # no jump back to the start
    # A new hand joins at the next pass (nothing jumps while it is read); the older one stays.
    harness.push_patch("delayed", {"tournament": {"ticker": "Hand 42: Mira wins 9,600"}})
    until(lambda: passes(page) > current, "the next pass")
    assert crawl(page) == [
        ["operator", "Welcome to the final table"], ["operator", "Play resumes at 20:00"],
        ["hand", "Hand 41: Rast wins 4,800 with two pair"], ["hand", "Hand 42: Mira wins 9,600"],
        ["field", "7 / 10 players left · Average 7,142 (11.9 BB) · Prize pool €100,000"]]
    page.screenshot(path=str(artifacts / "ticker.png"), omit_background=True)
    # A line the operator takes back leaves at once, in the middle of the pass.
    current = fresh_pass(page)
    harness.push_raw("delayed", theme_with(harness, ["Play resumes at 20:00"]))
    until(lambda: [t for k, t in crawl(page) if k == "operator"]
          == ["Play resumes at 20:00"], "the line to leave")
    assert passes(page) == current
    assert page.locator("#track > *").count() == 2 * len(crawl(page)) - 1  # one dot between
    # The lines taken off air: the hands and the field crawl on.
    harness.push_raw("delayed", theme_with(harness, []))
    until(lambda: [k for k, _ in crawl(page)] == ["hand", "hand", "field"],
          "the operator's lines to leave")
    # Nothing to crawl (a service without a tournament, no lines): the strip is off air.
    bare = copy.deepcopy(view)
    bare["tournament"] = None
    open_graphic(page, harness, "ticker", bare)
    expect(page.locator("#stage")).to_have_class(re.compile(r"\bempty\b"))
    assert crawl(page) == []


def test_the_versus_graphic_shows_hands_chances_and_prize_money_until_the_hand_is_decided(
        page: Page, harness: Harness, artifacts: Path) -> None:
    view = allin_view()
    open_graphic(page, harness, "versus", view)
    expect(page.locator("#stage")).not_to_have_class(re.compile(r"\bempty\b"))
    rows = page.locator("#rows .versus-row")
    expect(rows).to_have_count(2)
    ashton, yuki = page.locator(".versus-row[data-seat='1']"), page.locator(
        ".versus-row[data-seat='7']")
    expect(ashton.locator(".name")).to_have_text("Ashton")  # the display name
    expect(ashton.locator(".versus-hole .card")).to_have_count(2)
    expect(ashton.locator(".versus-win")).to_have_text("27%")
    expect(ashton.locator(".versus-tag.win .value")).to_have_text("€15,400")
    expect(ashton.locator(".versus-tag.lose")).to_have_text(re.compile(r"If lost\s*€7,300",
                                                                       re.I))
    expect(yuki.locator(".versus-win")).to_have_text("73%")
    expect(yuki).to_have_class(re.compile(r"\bleading\b"))
    expect(yuki.locator(".versus-tag.lose")).to_have_text(re.compile(r"Out with\s*€5,000",
                                                                     re.I))
    expect(yuki.locator(".versus-tag.lose")).to_have_class(re.compile(r"\bout\b"))
    expect(page.locator("#pot")).to_have_text("Pot 702,000")
    page.wait_for_timeout(500)  # the entrance
    page.screenshot(path=str(artifacts / "versus.png"), omit_background=True)
    # The hand is decided: the graphic goes (the elimination graphic comes then).
    harness.push_patch("delayed", {"table": {"street": "over"}, "tournament": {"allin": None}})
    expect(page.locator("#stage")).to_have_class(re.compile(r"\bempty\b"))
    expect(page.locator("html")).to_have_attribute("data-versus", "")


def test_the_elimination_graphic_gives_way_to_a_new_all_in(page: Page,
                                                           harness: Harness) -> None:
    view = tournament_view()
    open_graphic(page, harness, "elimination", view, query="&seconds=20")
    busted = eliminated(view, 6, 7, 5000, 42)
    harness.push_patch("delayed", {"tournament": {
        "players": busted["tournament"]["players"],
        "eliminations": busted["tournament"]["eliminations"]}})
    bust_shown(page)
    expect(page.locator("#bust")).to_be_visible()
    harness.push_patch("delayed", {"tournament": {"allin": allin_view()["tournament"]["allin"]}})
    expect(page.locator("#bust")).to_be_hidden()   # visibility: hidden, at once
    harness.push_patch("delayed", {"tournament": {"allin": None}})
    expect(page.locator("#bust")).to_be_visible()
    bust_shown(page)
