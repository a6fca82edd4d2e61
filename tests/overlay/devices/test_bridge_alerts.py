"""Capture alerts travel in a public event: whatever a fault or the engine says, no card of
the fault reaches an alert's message (R20: hole cards never reach a live public output)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from engine.capture_events import CaptureFault, FaultKind, Zone
from engine.cards import FULL_DECK, Card
from overlay.devices.faults import safe_detail, without_cards

cards = st.lists(st.sampled_from(FULL_DECK), min_size=0, max_size=3, unique=True)
words = st.lists(st.one_of(
    st.sampled_from(["seat3", "board", "suspected", "misdeal", "(R13)", "on", "and", "As",
                     "Kh,", "[Td", "2c]", "tags", "say"]),
    st.sampled_from(FULL_DECK).map(lambda c: c.code),
    st.text(alphabet="abcdefghTJQKA23456789shdc()[],:; ", max_size=8)), max_size=12)


@given(cards, words, st.sampled_from(list(FaultKind)))
def test_no_card_of_a_fault_reaches_its_alert(fault_cards: list[Card], text: list[str],
                                              kind: FaultKind) -> None:
    detail = " ".join(text + [c.code for c in fault_cards])
    fault = CaptureFault(kind, "table", detail, 1.0, "table", (Zone.parse("seat3"),),
                         tuple(fault_cards))
    message = safe_detail(fault)
    for card in FULL_DECK:  # no card code stands as a word of its own
        assert card.code not in message.split()
    for card in fault_cards:
        assert card.code not in message


@given(words)
def test_engine_messages_lose_their_cards(text: list[str]) -> None:
    message = without_cards(" ".join(text))
    tokens = set(re.split(r"[^A-Za-z0-9]+", message))  # "[Td," is the token "Td"
    assert not tokens & {card.code for card in FULL_DECK}


def test_a_duplicate_alert_names_the_zones_not_the_card() -> None:
    fault = CaptureFault(FaultKind.DUPLICATE_CARD, "table",
                         "two tags both say Ah: on seat3 and on board", 1.0, "table",
                         (Zone.parse("seat3"), Zone.parse("board")), (Card("Ah"),))
    assert safe_detail(fault) == ("two tags read as the same card (seat3 and board): "
                                   "suspected misdeal (R13); confirm with Misdeal")
