"""Events: exact JSON round trip for every kind, and secrecy per the events contract."""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

# Every event kind, the table-level ones included, takes part in the round-trip tests.
import engine.table_events  # noqa: F401
from engine.cards import FULL_DECK, Card
from engine.errors import InvalidInputError
from engine.events import (
    EVENT_KINDS,
    ActionKind,
    CardBurned,
    Event,
    HandMucked,
    HoleCardsDealt,
    Secrecy,
    Street,
)
from engine.pots import Pot


def strategy_for(hint: Any) -> st.SearchStrategy[Any]:
    origin = typing.get_origin(hint)
    if origin is types.UnionType or origin is typing.Union:
        return st.one_of(*(strategy_for(a) for a in typing.get_args(hint)))
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return st.lists(strategy_for(args[0]), max_size=5).map(tuple)
        return st.tuples(*(strategy_for(a) for a in args))
    if hint is type(None):
        return st.none()
    if hint is Card:
        return st.sampled_from(FULL_DECK)
    if hint is bool:
        return st.booleans()
    if hint is int:
        return st.integers(-(10**12), 10**12)
    if hint is float:
        return st.floats(allow_nan=False, allow_infinity=False)
    if hint is str:
        return st.text(max_size=12)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return st.sampled_from(list(hint))
    if hint is Pot:
        return st.builds(Pot, st.integers(0, 10**9),
                         st.lists(st.integers(1, 10), max_size=10).map(tuple))
    raise AssertionError(f"no strategy for {hint!r}")


def event_strategy(cls: type[Event]) -> st.SearchStrategy[Event]:
    hints = typing.get_type_hints(cls)
    fields = {f.name: strategy_for(hints[f.name]) for f in dataclasses.fields(cls)}
    return st.builds(cls, **fields)


ANY_EVENT = st.one_of(*(event_strategy(cls) for cls in EVENT_KINDS.values()))


@settings(max_examples=400)
@given(ANY_EVENT)
def test_json_round_trip_is_exact(event: Event) -> None:
    data = json.loads(json.dumps(event.to_dict()))
    assert data["kind"] == event.kind
    assert Event.from_dict(data) == event


@settings(max_examples=200)
@given(ANY_EVENT)
def test_public_view_is_public_and_never_events_have_none(event: Event) -> None:
    view = event.public_view()
    if event.secrecy in (Secrecy.NEVER, Secrecy.INTERNAL):
        assert view is None
    else:
        assert view is not None and view.secrecy is Secrecy.PUBLIC
        assert type(view) is type(event)
        if event.secrecy is Secrecy.PUBLIC:
            assert view == event


def test_every_kind_is_registered_once_and_snake_case() -> None:
    contract = {"hole_cards_dealt", "board_dealt", "action_taken", "blind_posted",
                "hand_started", "pot_awarded", "hand_voided", "action_undone"}
    assert contract <= set(EVENT_KINDS)
    for kind, cls in EVENT_KINDS.items():
        assert cls.kind == kind and kind == kind.lower() and " " not in kind


def test_cards_are_codes_and_unknown_cards_null() -> None:
    event = HoleCardsDealt(3, (Card("Ah"), None))
    assert event.to_dict() == {"kind": "hole_cards_dealt", "seat": 3, "cards": ["Ah", None]}
    assert event.secrecy is Secrecy.SECRET
    assert HoleCardsDealt(3, (None, None)).secrecy is Secrecy.PUBLIC
    assert CardBurned(Card("2c")).secrecy is Secrecy.NEVER
    assert HandMucked(4, (Card("Ah"), Card("Kd"))).public_view() == HandMucked(4, (None, None))


@settings(max_examples=200)
@given(ANY_EVENT)
def test_repr_round_trips(event: Event) -> None:
    namespace: dict[str, object] = {cls.__name__: cls for cls in EVENT_KINDS.values()}
    namespace.update(Card=Card, Pot=Pot, Street=Street, ActionKind=ActionKind)
    assert eval(repr(event), namespace) == event


@pytest.mark.parametrize("data", [{"kind": "no_such_thing"}, {"seat": 1},
                                  {"kind": "hole_cards_dealt", "seat": 1}])
def test_bad_dicts_are_input_errors(data: dict[str, Any]) -> None:
    with pytest.raises(InvalidInputError):
        Event.from_dict(data)
