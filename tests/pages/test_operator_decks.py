"""The operator console's Decks panel in Debian's Chromium: the guided scan's prompt and
progress from ``operator.decks`` (docs/view-model.md), and deck commands on clicks
(docs/commands.md, "Decks")."""

from __future__ import annotations

import copy
from typing import Any

from playwright.sync_api import Page, expect

from tests.pages.harness import Harness
from tests.pages.test_operator import open_console, sent, settle
from tests.pages.views import operator_view


def decks_view(scan: dict[str, Any] | None) -> dict[str, Any]:
    view = copy.deepcopy(operator_view())
    view["operator"]["between_hands"] = True
    view["operator"]["legal"] = None
    view["operator"]["decks"] = {
        "active": "Blue 1",
        "decks": [{"name": "Blue 1", "status": "active", "cards": 52},
                  {"name": "Red 2", "status": "ready", "cards": 52},
                  {"name": "Old 0", "status": "retired", "cards": 52}],
        "scan": scan,
    }
    return view


SCAN: dict[str, Any] = {"name": "Green 3", "phase": "scan", "card": "Qh", "done": 15, "total": 52,
        "text": "Put the Queen of hearts (Qh) alone on antenna 11 of table (card 16 of 52).",
        "reader": "table", "antenna": 11,
        "message": "this tag belongs to the active deck 'Blue 1'; a card from another deck "
                   "is on the antenna"}


def test_the_decks_panel_shows_the_scan_prompt_and_sends_deck_commands(
        page: Page, harness: Harness) -> None:
    open_console(page, harness, decks_view(None))
    panel = page.locator("#decks")
    expect(panel).to_be_visible()
    expect(page.locator("#deck-active")).to_have_text("Active deck: Blue 1")
    expect(page.locator("#deck-scan")).to_be_hidden()
    rows = page.locator("#deck-list li")
    expect(rows).to_have_count(3)
    expect(page.locator("#deck-list li[data-deck='Old 0'] button")).to_have_count(0)
    expect(page.locator("[data-action=activate][data-deck='Blue 1']")).to_be_disabled()
    # The reader list comes from the capture sources of the view.
    expect(page.locator("#deck-reader option")).to_have_text(["table", "burn"])

    page.fill("#deck-name", "Green 3")
    page.fill("#deck-antenna", "11")
    page.click("#btn-deck-start")
    settle(page)
    page.click("[data-action=activate][data-deck='Red 2']")
    settle(page)
    retire = page.locator("[data-action=retire][data-deck='Red 2']")
    retire.click()  # retiring is for good: the first tap only arms the button
    expect(retire).to_have_text("Tap again: retire for good")
    retire.click()
    settle(page)
    assert sent(harness, 3) == [
        {"type": "deck_scan_start", "name": "Green 3", "reader": "table", "antenna": 11},
        {"type": "deck_activate", "name": "Red 2"},
        {"type": "deck_retire", "name": "Red 2"}]

    # During the scan: the card to present drawn big, progress, phase, the last refusal.
    harness.push_snapshot("operator", decks_view(SCAN), 2)
    expect(page.locator("#deck-scan")).to_be_visible()
    expect(page.locator("#deck-scan-card .card.face")).to_have_attribute("data-card", "Qh")
    expect(page.locator("#deck-scan-card .card")).to_have_attribute("aria-label",
                                                                    "Queen of hearts")
    expect(page.locator("#deck-scan-text")).to_have_text(SCAN["text"])
    expect(page.locator("#deck-scan-title")).to_have_text(
        "Deck Green 3 · Scan · table, antenna 11")
    expect(page.locator("#deck-scan-count")).to_have_text("15 of 52 registered")
    assert page.locator("#deck-scan-progress").evaluate("p => [p.value, p.max]") == [15, 52]
    expect(page.locator("#deck-scan-message")).to_have_text(str(SCAN["message"]))
    expect(page.locator("#deck-form")).to_be_hidden()  # one scan at a time

    verify = {**SCAN, "phase": "verify", "card": "As", "done": 0, "message": None,
              "text": "Verification: put the Ace of spades (As) on antenna 11 of table "
                      "(card 1 of 52), or the whole deck at once."}
    harness.push_snapshot("operator", decks_view(verify), 3)
    expect(page.locator("#deck-scan-card .card.face")).to_have_attribute("data-card", "As")
    expect(page.locator("#deck-scan-title")).to_contain_text("Verification")
    expect(page.locator("#deck-scan-count")).to_have_text("0 of 52 verified")
    expect(page.locator("#deck-scan-message")).to_have_text("")
    page.click("#btn-deck-cancel")
    settle(page)
    assert sent(harness, 4)[-1] == {"type": "deck_scan_cancel"}
    expect(page.locator("#deck-save")).to_be_hidden()

    # Verified but not saved (its name was taken meanwhile): saved under another name.
    unsaved = {**SCAN, "phase": "done", "card": None, "done": 52, "saved": False,
               "text": "Deck 'Green 3' is verified but was not saved: save it under another "
                       "name, or close it.",
               "message": "the deck could not be saved: a deck called 'Green 3' already exists"}
    harness.push_snapshot("operator", decks_view(unsaved), 4)
    expect(page.locator("#deck-save")).to_be_visible()
    expect(page.locator("#deck-save-name")).to_have_value("Green 3")
    expect(page.locator("#deck-scan-message")).to_contain_text("already exists")
    page.fill("#deck-save-name", "Green 4")
    harness.push_snapshot("operator", decks_view({**unsaved, "message": None}), 5)
    expect(page.locator("#deck-save-name")).to_have_value("Green 4")  # what was typed stays
    page.click("#btn-deck-save")
    settle(page)
    assert sent(harness, 5)[-1] == {"type": "deck_scan_save", "name": "Green 4"}
    saved = {**unsaved, "name": "Green 4", "saved": True, "message": None,
             "text": "Deck 'Green 4' is registered, verified and saved: take it off the "
                     "antenna and activate it."}
    harness.push_snapshot("operator", decks_view(saved), 6)
    expect(page.locator("#deck-save")).to_be_hidden()


def test_the_decks_panel_is_hidden_without_rfid(page: Page, harness: Harness) -> None:
    open_console(page, harness)  # operator.decks absent: no reader configured
    expect(page.locator("#console")).to_be_visible()
    expect(page.locator("#decks")).to_be_hidden()
