"""Capture event values: JSON round trip, validation, reprs, and no burn card anywhere (R19)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.capture_events import (
    BOARD,
    BURN,
    EVENT_TYPES,
    MUCK,
    BoardCardRead,
    BurnSeen,
    CaptureEvent,
    CaptureFault,
    CardMucked,
    CardRemoved,
    FaultKind,
    HoleCardsRead,
    ReaderOffline,
    ReaderOnline,
    Zone,
    ZoneKind,
    event_from_dict,
)
from engine.cards import FULL_DECK, Card
from engine.errors import InvalidInputError

cards = st.sampled_from(FULL_DECK)
times = st.floats(0, 1e6, allow_nan=False)
sources = st.text("abcdef-0123456789", max_size=12)
seats = st.integers(1, 10)
zones = st.one_of(seats.map(Zone.at_seat), st.sampled_from([BOARD, MUCK]))
events = st.one_of(
    st.builds(lambda s, c, t, src: HoleCardsRead(s, (c[0], c[1]), t, src), seats,
              st.lists(cards, min_size=2, max_size=2, unique=True), times, sources),
    st.builds(BoardCardRead, cards, st.integers(1, 5), times, sources),
    st.builds(CardMucked, cards, times, sources),
    st.builds(CardRemoved, zones, cards, times, sources),
    st.builds(BurnSeen, st.integers(0, 52), times, sources),
    st.builds(ReaderOnline, sources, sources, st.integers(1, 9), st.integers(1, 64), times,
              sources),
    st.builds(ReaderOffline, sources, st.text(max_size=20), times, sources),
    st.builds(CaptureFault, st.sampled_from(FaultKind), sources, st.text(max_size=30), times,
              sources, st.lists(zones, max_size=3).map(tuple),
              st.lists(cards, max_size=3).map(tuple), sources, st.integers(1, 99),
              st.booleans()),
)


@given(events)
def test_every_event_round_trips_through_json(event: CaptureEvent) -> None:
    data = json.loads(json.dumps(event.to_dict()))
    assert event_from_dict(data) == event
    assert data["type"] in EVENT_TYPES


@given(events)
def test_reprs_round_trip(event: CaptureEvent) -> None:
    namespace: dict[str, object] = {cls.__name__: cls for cls in EVENT_TYPES.values()}
    namespace |= {"Card": Card, "Zone": Zone, "FaultKind": FaultKind, "ZoneKind": ZoneKind}
    assert eval(repr(event), namespace) == event


def test_events_are_frozen() -> None:
    event = CardMucked(Card("Ah"), 1.0, "table-a")
    with pytest.raises(AttributeError):
        event.card = Card("Kd")  # type: ignore[misc]


def test_no_event_can_carry_a_burn_card() -> None:
    # R19: the burn zone has no card-carrying event; BurnSeen has no card field at all.
    with pytest.raises(InvalidInputError, match="R19"):
        CardRemoved(BURN, Card("Ah"), 1.0)
    assert "card" not in BurnSeen(3, 1.0).to_dict()


@pytest.mark.parametrize(("text", "zone"), [("seat3", Zone(ZoneKind.SEAT, 3)),
                                           ("Seat 10", Zone(ZoneKind.SEAT, 10)),
                                           ("BOARD", BOARD), (" muck ", MUCK),
                                           ("burn", BURN)])
def test_zone_names(text: str, zone: Zone) -> None:
    assert Zone.parse(text) == zone
    assert Zone.parse(str(zone)) == zone


@pytest.mark.parametrize("text", ["seat0", "seat11", "seat", "table", "", "board2"])
def test_bad_zone_names_are_refused(text: str) -> None:
    with pytest.raises(InvalidInputError, match="not a"):
        Zone.parse(text)


@pytest.mark.parametrize("data", [
    {"type": "nope", "t": 1},
    {"type": "card_mucked", "t": 1},
    {"type": "card_mucked", "t": 1, "card": "Zz"},
    {"type": "board_card_read", "t": 1, "card": "Ah", "position": 6},
    {"type": "hole_cards_read", "t": 1, "seat": 3, "cards": ["Ah"]},
    {"type": "hole_cards_read", "t": 1, "seat": 3, "cards": ["Ah", "Ah"]},
    {"type": "hole_cards_read", "t": 1, "seat": True, "cards": ["Ah", "Kd"]},
    {"type": "capture_fault", "t": 1, "kind": "meltdown", "reader": "a", "detail": "",
     "zones": [], "count": 1, "misdeal": False},
    {"type": "card_removed", "t": 1, "zone": "burn", "card": "Ah"},
    {"type": "burn_seen", "count": 2},
    [1, 2],
])
def test_bad_dicts_are_refused_with_an_input_error(data: object) -> None:
    with pytest.raises(InvalidInputError):
        event_from_dict(data)  # type: ignore[arg-type]
