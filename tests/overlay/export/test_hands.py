"""The log read back hand by hand (overlay.export.hands) on logs written by the service's own
code (TableService on a SQLite store) and by seeded random tournament play."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InvalidInputError
from engine.events import (
    ActionKind,
    ActionTaken,
    ActionUndone,
    HandEnded,
    HandStarted,
    HoleCardsDealt,
    Secrecy,
    Street,
)
from engine.hand import Hand
from engine.log import TableEvent
from engine.table_replay import ReplayMismatchError
from overlay.export.hands import HandRecord, iso_utc, parse_hand_range, read_hands
from overlay.store import open_store
from tests.hands import random_log
from tests.overlay.export.session import PLAYERS, T0, TABLE_NAME


def test_every_hand_of_the_service_log_is_read(session_hands: list[HandRecord]) -> None:
    assert [r.number for r in session_hands] == [1, 2, 3, 4, 5]
    assert [r.is_void for r in session_hands] == [False, True, False, False, False]
    assert all(r.table == TABLE_NAME for r in session_hands)
    first = session_hands[0]
    names = {p["seat"]: p["name"] for p in PLAYERS}
    assert dict(zip(first.seats, first.names, strict=True)) == names
    assert first.starting_stacks == tuple(p["stack"] for p in sorted(
        PLAYERS, key=lambda p: first.seats.index(p["seat"])))
    assert (first.small_blind, first.big_blind, first.ante, first.level) == (100, 200, 0, 1)
    level2 = session_hands[3]
    assert (level2.small_blind, level2.big_blind, level2.ante, level2.level) == (200, 400,
                                                                                   400, 2)
    assert level2.antes[level2.seats.index(9)] == 400  # the big blind's ante (R4)


def test_stacks_chain_from_hand_to_hand(session_hands: list[HandRecord]) -> None:
    # Each hand starts with the stacks the previous one (not void, R13) finished with.
    previous: dict[int, int] = {}
    for record in session_hands:
        for seat, stack in zip(record.seats, record.starting_stacks, strict=True):
            if seat in previous:
                assert stack == previous[seat], (record.number, seat)
        previous = dict(zip(record.seats, record.finishing_stacks, strict=True))
    assert sum(session_hands[-1].finishing_stacks) == sum(p["stack"] for p in PLAYERS)


def test_undone_actions_are_gone_and_times_come_from_the_log(
        session_hands: list[HandRecord], session_dir: Path) -> None:
    first = session_hands[0]
    assert any(isinstance(e.payload, ActionUndone) for e in first.entries)
    raises = [e.to for e in first.hand.effective_events
              if isinstance(e, ActionTaken) and e.action in (ActionKind.RAISE, ActionKind.BET)]
    assert raises == [600, 800]  # the raise to 700 was taken back
    assert first.entries[0].kind == "hand_started"
    assert first.started_at == first.entries[0].time > T0
    assert first.ended_at == first.entries[-1].time > first.started_at
    assert iso_utc(T0) == "2026-11-30T10:53:20.000Z"
    # the hand's entries are its stretch of the log, less the burn cards (R19)
    store = open_store(data_dir=session_dir)
    try:
        stretch = [e for e in store.iter_all() if first.first_seq <= e.seq <= first.last_seq]
    finally:
        store.close()
    assert list(first.entries) == [e for e in stretch if e.secrecy is not Secrecy.NEVER]


def test_burn_cards_are_in_no_hand_record() -> None:
    log = random_log(8, 10)  # a burn card before every board card (R19)
    burns = {e.seq for e in log if e.secrecy is Secrecy.NEVER}
    assert burns
    records = list(read_hands(log))
    kept = {e.seq for r in records for e in r.entries}
    assert not kept & burns
    for record in records:  # everything else of the hand's stretch is there
        stretch = {e.seq for e in log if record.first_seq <= e.seq <= record.last_seq}
        assert stretch - burns == {e.seq for e in record.entries}


def test_void_hand_is_marked_with_its_reason(session_hands: list[HandRecord]) -> None:
    void = session_hands[1]
    assert void.is_void and not void.is_complete
    assert void.void_reason == "misdeal, R13"
    assert void.finishing_stacks == void.starting_stacks


def test_eliminations_belong_to_their_hand(session_hands: list[HandRecord]) -> None:
    out = session_hands[3].eliminations
    assert sorted(e.seat for e in out) == [3, 5]
    assert all(not r.eliminations for r in session_hands if r.number != 4)


def test_numbers_select_hands_without_replaying_the_others(session_dir: Path) -> None:
    store = open_store(data_dir=session_dir)
    try:
        chosen = list(read_hands(store.iter_all(), numbers={2, 4, 99}))
    finally:
        store.close()
    assert [r.number for r in chosen] == [2, 4]


def test_reading_streams(session_dir: Path) -> None:
    # The first hand comes out before the log has been read past the second hand's start.
    store = open_store(data_dir=session_dir)
    consumed: list[int] = []

    def tap() -> Iterator[TableEvent]:
        for entry in store.iter_all(chunk=3):
            consumed.append(entry.seq)
            yield entry

    try:
        hands = read_hands(tap())
        first = next(hands)
        starts = [e.seq for e in store.iter_all() if isinstance(e.payload, HandStarted)]
        assert first.number == 1 and consumed[-1] == starts[1]
    finally:
        store.close()


def test_a_hand_still_running_at_the_end_is_yielded_incomplete() -> None:
    log = random_log(11, 3)
    started = max(k for k, e in enumerate(log) if isinstance(e.payload, HandStarted))
    cut = next(k for k in range(started, len(log))
               if isinstance(log[k].payload, HoleCardsDealt))
    last = list(read_hands(log[:cut + 1]))[-1]
    assert not last.hand.is_over and not last.is_complete and not last.is_void


def test_a_log_the_engine_refuses_names_the_hand() -> None:
    log = random_log(5, 2)
    k = next(k for k, e in enumerate(log) if isinstance(e.payload, ActionTaken))
    payload = log[k].payload
    assert isinstance(payload, ActionTaken)
    wrong = dataclasses.replace(log[k], payload=dataclasses.replace(payload, seat=99))
    broken = [*log[:k], wrong, *log[k + 1:]]  # an action by nobody at the table
    with pytest.raises(ReplayMismatchError, match=r"hand 1 \(log entries 1-"):
        list(read_hands(broken))


@settings(max_examples=15)
@given(seed=st.integers(0, 10_000))
def test_random_logs_read_back_to_the_engine_hands(seed: int) -> None:
    log = random_log(seed, 12)
    records = list(read_hands(log))
    started = [e.payload for e in log if isinstance(e.payload, HandStarted)]
    assert [r.number for r in records] == [s.hand_number for s in started]
    for record in records:
        events = [e.payload for e in record.entries
                  if not e.kind.startswith("capture.") and e.kind != "player_eliminated"]
        assert Hand.replay(events).stacks == record.hand.stacks  # type: ignore[arg-type]
        ends = [e.payload for e in record.entries if isinstance(e.payload, HandEnded)]
        if record.is_complete:
            assert ends[-1].stacks == record.finishing_stacks
        else:
            assert record.hand.street is Street.VOID


def test_parse_hand_range() -> None:
    assert parse_hand_range("12-14,45") == frozenset({12, 13, 14, 45})
    assert parse_hand_range(" 3 , 1-2 ,3") == frozenset({1, 2, 3})
    assert parse_hand_range("7-7") == frozenset({7})


@pytest.mark.parametrize(("text", "message"), [
    ("", "no hands given"),
    ("12-", "'12-' is not a hand number or a range"),
    ("a-b", "is not a hand number or a range"),
    ("40-12", "runs backwards: write 12-40"),
    ("0-3", "numbered from 1"),
    ("1,,2", "'' is not a hand number"),
    ("1-1000000000", "more than 100,000 hands"),
])
def test_bad_hand_ranges_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        parse_hand_range(text)
