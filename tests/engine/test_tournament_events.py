"""Tournament events: exact JSON round trip, registry, public; stack corrections and
disqualifications through the table, and a replayed table equal to the live one."""

from __future__ import annotations

import dataclasses
import doctest
import importlib
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import tournament_events as te
from engine.errors import IllegalActionError
from engine.events import EVENT_KINDS, Event, Secrecy
from engine.log import TableEvent
from engine.table import Table
from engine.table_events import ButtonSet, PlayerSeated
from engine.table_replay import ReplayMismatchError, replay_table

CLASSES = [getattr(te, name) for name in te.__all__]
finite = st.floats(allow_nan=False, allow_infinity=False)
text = st.text(max_size=30)


def strategy_for(cls: type[Event]) -> st.SearchStrategy[Any]:
    hints = {"float": finite, "int": st.integers(-10**12, 10**12), "str": text}
    fields = {f.name: hints[str(f.type)] for f in dataclasses.fields(cls)}
    return st.builds(cls, **fields)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.kind)
@given(data=st.data())
def test_round_trip_is_exact(cls: type[Event], data: st.DataObject) -> None:
    event = data.draw(strategy_for(cls))
    wire = json.loads(json.dumps(event.to_dict()))
    back = Event.from_dict(wire)
    assert back == event and type(back) is cls
    assert eval(repr(event), vars(te)) == event  # reprs round-trip
    assert event.secrecy is Secrecy.PUBLIC and event.public_view() == event
    logged = TableEvent.from_dict(json.loads(json.dumps(
        TableEvent.record(7, 1.5, event, source="operator").to_dict())))
    assert logged.payload == event


def test_every_kind_is_registered_and_distinct() -> None:
    kinds = [cls.kind for cls in CLASSES]
    assert len(set(kinds)) == len(kinds)
    assert all(EVENT_KINDS[k] is cls for k, cls in zip(kinds, CLASSES, strict=True))


def test_old_logs_without_optional_fields_still_read() -> None:
    assert Event.from_dict({"kind": "clock_started", "at": 5}) == te.ClockStarted(5.0, 0.0)
    assert Event.from_dict({"kind": "player_disqualified", "seat": 3, "name": "Bo",
                            "reason": "chip dumping"}).chips_removed == 0  # type: ignore


def seated() -> tuple[Table, list[Event]]:
    log: list[Event] = [PlayerSeated(s, f"P{s}", 4000 + 100 * s) for s in (2, 5, 7)]
    log.append(ButtonSet(2))
    return replay_table(Table(), log), log


def test_stack_corrections_are_events_with_a_reason() -> None:
    table, _ = seated()
    event = table.correct_stack(5, 4700, "  a 200 chip hidden under the cards ")
    assert event == te.StackCorrected(5, 4700, 4500, "a 200 chip hidden under the cards")
    assert table.stacks[5] == 4700
    with pytest.raises(IllegalActionError, match="needs a reason"):
        table.correct_stack(5, 4800, " ")
    with pytest.raises(IllegalActionError, match="needs chips to stay seated"):
        table.correct_stack(5, 0, "bust")
    hand = table.start_hand()
    with pytest.raises(IllegalActionError, match="cannot correct a stack during a hand"):
        table.correct_stack(5, 4800, "recount")
    with pytest.raises(IllegalActionError, match="cannot disqualify a player during a hand"):
        table.disqualify(5, "abuse")
    assert hand.is_over is False


def test_replayed_table_equals_the_live_one() -> None:
    live, log = seated()
    log.append(live.correct_stack(7, 5000, "recount after the break"))
    hand = live.start_hand()
    for seat in hand.seats:
        hand.deal_hole(seat, None)
    mid = len(hand.events)
    while not hand.is_over:
        hand.fold()
    # clock events logged in the middle of a hand are not the hand's (or the table's)
    log.extend([*hand.events[:mid], te.ClockPaused(10.0), te.ClockResumed(20.0),
                *hand.events[mid:]])
    log.extend(live.finish_hand())
    log.append(live.disqualify(2, "chip dumping (001 §2.22)"))
    log.append(te.PrizeAwarded("P2", 0, 0))
    replayed = replay_table(Table(), [Event.from_dict(e.to_dict()) for e in log])
    assert replayed.stacks == live.stacks == {5: live.stacks[5], 7: live.stacks[7]}
    assert replayed.names == live.names
    assert replayed.disqualified == live.disqualified
    assert live.disqualified[0].chips_removed > 0


def test_a_correction_that_does_not_fit_the_log_is_refused() -> None:
    _, log = seated()
    log.append(te.StackCorrected(5, 9000, 1234, "typo"))
    with pytest.raises(ReplayMismatchError, match="seat 5 has 4500 chips"):
        replay_table(Table(), log)


@pytest.mark.parametrize("module", ["engine.clock", "engine.field", "engine.icm",
                                    "engine.payouts", "engine.tournament",
                                    "engine.tournament_events"])
def test_module_examples(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0
