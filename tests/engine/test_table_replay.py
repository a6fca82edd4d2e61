"""The table after a restart is its log replayed (engine/table_replay.py)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import FULL_DECK
from engine.events import Event, HandStarted
from engine.table import Table
from engine.table_events import ButtonSet, LevelStarted, PlayerSeated, SeatEmptied
from engine.table_replay import ReplayMismatchError, replay_table
from tests.hands import drive_hand


def play(seed: int, hands: int) -> tuple[Table, list[Event], list[int]]:
    """A table played live, its log, and the log length after each hand (cut points)."""
    rng = random.Random(seed)
    table = Table()
    log: list[Event] = []
    seats = sorted(rng.sample(range(1, 11), rng.randint(3, 8)))
    for seat in seats:
        event = PlayerSeated(seat, f"P{seat}", rng.choice((800, 3000, 5000)))
        table.seat_player(event.seat, event.name, event.stack)
        log.append(event)
    table.set_button(seats[0])
    log.append(ButtonSet(seats[0]))
    cuts = []
    for number in range(hands):
        if len(table.stacks) < 2:
            break
        if number == 3:
            level = table.set_level(2)
            log.append(LevelStarted(2, level.small_blind, level.big_blind))
        hand = table.start_hand()
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        drive_hand(hand, rng, deck)
        log.extend(hand.events)
        cuts.append(len(log))
        log.extend(table.finish_hand())
    return table, log, cuts


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_replayed_table_equals_the_live_one(seed: int) -> None:
    live, log, _ = play(seed, 12)
    replayed = replay_table(Table(), log)
    assert replayed.stacks == live.stacks
    assert replayed.names == live.names
    assert replayed.button == live.button
    assert replayed.hand_number == live.hand_number
    assert replayed.level == live.level
    # The next hand starts identically on both.
    if len(live.stacks) >= 2:
        assert replayed.start_hand().started == live.start_hand().started


def test_a_hand_cut_off_mid_way_continues_after_replay() -> None:
    _, log, cuts = play(7, 3)
    start = max(i for i, e in enumerate(log[:cuts[-1]]) if isinstance(e, HandStarted))
    middle = (start + cuts[-1]) // 2
    replayed = replay_table(Table(), log[:middle])
    assert replayed.hand is not None
    assert list(replayed.hand.events) == log[start:middle]


def test_a_log_from_other_rules_is_refused() -> None:
    _, log, _ = play(3, 2)
    doctored = [PlayerSeated(e.seat, e.name, e.stack + 1) if isinstance(e, PlayerSeated) else e
                for e in log]
    with pytest.raises(ReplayMismatchError, match="does not match"):
        replay_table(Table(), doctored)


def test_seat_changes_between_hands_replay() -> None:
    table = Table()
    log: list[Event] = [PlayerSeated(1, "Ann", 5000), PlayerSeated(2, "Bo", 5000),
                        PlayerSeated(3, "Cy", 5000), ButtonSet(1), PlayerSeated(2, "Bob", 4000),
                        SeatEmptied(3)]
    replay_table(table, log)
    assert table.names == {1: "Ann", 2: "Bob"}
    assert table.stacks == {1: 5000, 2: 4000}
