"""The tournament clock (R21) with breaks, pauses and adjustments, replayed from its events;
levels change only between hands; the action clock (R12)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.clock import ActionClock, TournamentClock
from engine.errors import ConfigError, IllegalActionError
from engine.events import Event
from engine.table import Table
from engine.table_events import ButtonSet, LevelStarted, PlayerSeated
from engine.table_replay import replay_table
from engine.tournament import DEFAULT_STRUCTURE, Break, Structure
from engine.tournament_events import (
    ClockAdjusted,
    ClockLevelSet,
    ClockPaused,
    ClockResumed,
    ClockStarted,
)

T0 = 1_796_036_000.0
MIN = 60.0
WITH_BREAKS = Structure.from_rows([(25, 50), (50, 100), (100, 200, 25), (200, 400)],
                                  minutes=20, breaks=[Break(2, 15, "Dinner break")])


def test_default_structure_is_unchanged_and_has_no_breaks() -> None:
    assert DEFAULT_STRUCTURE.breaks == ()
    assert [p.is_break for p in DEFAULT_STRUCTURE.periods()] == [False] * 18
    assert DEFAULT_STRUCTURE.level_at(40 * MIN).big_blind == 200


def test_levels_run_by_the_clock() -> None:
    clock = TournamentClock(DEFAULT_STRUCTURE).start(T0)
    assert clock.level_at(T0).number == 1 and clock.remaining(T0) == 20 * MIN
    assert clock.level_at(T0 + 20 * MIN - 0.5).number == 1
    assert clock.level_at(T0 + 20 * MIN).number == 2
    assert clock.remaining(T0 + 25 * MIN) == 15 * MIN
    assert clock.next_level(T0).big_blind == 100  # type: ignore[union-attr]
    last = clock.level_at(T0 + 10**7)
    assert last.number == 18 and clock.remaining(T0 + 10**7) is None
    assert clock.next_level(T0 + 10**7) is None


def test_breaks_sit_between_levels() -> None:
    clock = TournamentClock(WITH_BREAKS).start(T0)
    at = T0 + 45 * MIN  # 40 minutes of levels, then 5 into the break
    assert clock.is_break(at) and clock.remaining(at) == 10 * MIN
    assert clock.level_at(at).number == 3  # the next hand is dealt at level 3
    status = clock.status(at)
    assert (status.is_break, status.period_name, status.level.ante) == (True, "Dinner break",
                                                                      25)
    assert status.to_dict()["next"]["big_blind"] == 200
    assert not clock.is_break(T0 + 55 * MIN) and clock.level_at(T0 + 55 * MIN).number == 3
    assert clock.remaining(T0 + 55 * MIN) == 20 * MIN


def test_pause_resume_and_adjust() -> None:
    clock = TournamentClock(DEFAULT_STRUCTURE).start(T0)
    clock = clock.pause(T0 + 5 * MIN)
    assert not clock.running and clock.remaining(T0 + 3600) == 15 * MIN  # stands still
    clock = clock.resume(T0 + 60 * MIN)
    assert clock.remaining(T0 + 61 * MIN) == 14 * MIN
    clock = clock.adjust(2 * MIN, T0 + 61 * MIN)  # the floor adds two minutes
    assert clock.remaining(T0 + 61 * MIN) == 16 * MIN
    clock = clock.adjust(10 * MIN, T0 + 61 * MIN)  # more than the level's length: it stays
    assert clock.level_at(T0 + 61 * MIN).number == 1
    assert clock.remaining(T0 + 61 * MIN) == 26 * MIN
    clock = clock.adjust(-30 * MIN, T0 + 61 * MIN)  # past the end: on into level 2
    assert clock.level_at(T0 + 61 * MIN).number == 2
    assert clock.remaining(T0 + 61 * MIN) == 16 * MIN
    clock = clock.set_level(5, T0 + 62 * MIN)
    assert clock.level_at(T0 + 62 * MIN).big_blind == 600
    assert clock.remaining(T0 + 63 * MIN) == 19 * MIN


def test_a_level_set_before_the_start_is_where_the_clock_starts() -> None:
    clock = TournamentClock().set_level(4, T0).adjust(-5 * MIN).start(T0 + 100, 60)
    assert clock.level_at(T0 + 100).number == 4
    assert clock.remaining(T0 + 100) == 14 * MIN


def test_clock_refuses_commands_out_of_turn() -> None:
    clock = TournamentClock()
    with pytest.raises(IllegalActionError, match="has not started"):
        clock.resume(T0)
    with pytest.raises(IllegalActionError, match="not running"):
        clock.pause(T0)
    running = clock.start(T0)
    with pytest.raises(IllegalActionError, match="already running or paused"):
        running.start(T0 + 1)
    with pytest.raises(IllegalActionError, match="already running"):
        running.resume(T0 + 1)
    with pytest.raises(ConfigError, match="there is no level 19"):
        running.set_level(19, T0)


def test_structure_validates_breaks() -> None:
    with pytest.raises(ConfigError, match="breaks go between levels 1 and 2"):
        Structure.from_rows([(1, 2), (2, 4)], breaks=[Break(2, 10)])
    with pytest.raises(ConfigError, match="positive number of minutes"):
        Structure.from_rows([(1, 2), (2, 4)], breaks=[Break(1, 0)])
    with pytest.raises(ConfigError, match="two breaks after the same level"):
        Structure.from_rows([(1, 2), (2, 4), (3, 6)], breaks=[Break(1, 5), Break(1, 5)])


# A command is (kind, seconds after the previous one, argument).
commands = st.lists(st.tuples(st.sampled_from(["start", "pause", "resume", "adjust", "level"]),
                              st.floats(0, 3000, allow_nan=False),
                              st.integers(-1500, 1500)), max_size=25)


@given(commands, st.floats(0, 50_000, allow_nan=False))
def test_the_clock_is_its_events_replayed(script: list[tuple[str, float, int]],
                                          later: float) -> None:
    live = TournamentClock(WITH_BREAKS)
    log: list[Event] = []
    now = T0
    for kind, wait, arg in script:
        now += wait
        event: Event = {
            "start": ClockStarted(now, abs(arg)), "pause": ClockPaused(now),
            "resume": ClockResumed(now), "adjust": ClockAdjusted(float(arg), now),
            "level": ClockLevelSet(abs(arg) % 4 + 1, now)}[kind]
        try:
            live = live.apply(event)
        except IllegalActionError:
            continue  # the service refuses it and logs nothing
        log.append(Event.from_dict(event.to_dict()))
    replayed = TournamentClock.replay(WITH_BREAKS, log)
    assert replayed == live
    at = now + later
    assert replayed.status(at) == live.status(at)
    remaining = live.remaining(at)
    if remaining is not None and live.running:  # a running clock counts down second by second
        step = min(remaining, 1.0) / 2
        assert live.remaining(at + step) == pytest.approx(remaining - step)
    if not live.running:
        assert live.status(at + 999).remaining == live.status(at).remaining


def test_levels_change_only_between_hands_r21() -> None:
    table = Table()
    log: list[Event] = [PlayerSeated(seat, f"P{seat}", 5000) for seat in (1, 2, 3)]
    log.append(ButtonSet(1))
    replay_table(table, log)
    clock = TournamentClock(table.structure).start(T0)

    def level_due(now: float) -> None:  # what the service does before each hand
        level = clock.level_at(now)
        if level.number != table.level.number:
            table.set_level(level.number)
            log.append(LevelStarted(level.number, level.small_blind, level.big_blind))

    level_due(T0 + 19 * MIN)
    hand = table.start_hand()
    assert hand.big_blind == 50
    for seat in hand.seats:
        hand.deal_hole(seat, None)
    hand.call()
    log.extend(hand.events)
    seen = len(hand.events)
    level_due(T0 + 21 * MIN)  # level 2 is due in the middle of the hand
    assert table.hand is hand and hand.big_blind == 50 and table.level.number == 1
    while not hand.is_over:
        hand.fold()
    log.extend(hand.events[seen:])
    log.extend(table.finish_hand())
    level_due(T0 + 22 * MIN)
    second = table.start_hand()
    assert second.big_blind == 100 and second.started is not None
    assert second.started.level == 2
    log.extend(second.events)
    replayed = replay_table(Table(), log)
    assert replayed.level.number == 2 and replayed.hand is not None
    assert replayed.hand.started == second.started
    assert replayed.stacks == table.stacks


def test_action_clock_r12() -> None:
    called = ActionClock(seat=4, called_at=T0)
    assert called.ends_at == T0 + 70
    assert not called.in_countdown(T0 + 59) and called.in_countdown(T0 + 61)
    assert called.remaining(T0 + 65) == 5 and not called.expired(T0 + 69.9)
    assert called.expired(T0 + 70) and called.remaining(T0 + 80) == 0
    assert called.to_dict() == {"seat": 4, "ends_at": T0 + 70, "countdown_at": T0 + 60}
