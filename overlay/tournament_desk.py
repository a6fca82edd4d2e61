"""The tournament in the service: the clock, stack corrections, disqualifications, prizes and
player identity, as typed operator commands that become log events (``docs/commands.md``,
"Tournament"; ``docs/tournament.md``, "In the service").

:class:`TournamentDesk` is owned by :class:`overlay.table_service.TableService` and runs under
its lock: each command checks and changes the engine values (the clock is
:class:`engine.clock.TournamentClock`, places and prizes :class:`engine.payouts.Standings`) and
returns the events to log. Everything is rebuilt from the log at start-up (:meth:`apply`), so
the clock, the prizes and the identities survive a restart.

* The clock starts at the table's current level (full time); pause, resume and adjust follow.
  When it crosses into a new level or break the service logs ``level_started`` for the level
  then due (R21: the table deals it from its next hand, never mid-hand), so every channel's
  clock changes state at the boundary.
* After a hand with eliminations the places and prizes are logged (``prize_awarded``, R22,
  R23); a disqualification re-logs those who move up.
* Identity (``player_identified``) comes from ``set_player``, a photo upload or a CSV import
  (:mod:`overlay.players`).
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Sequence
from typing import Any

from engine.clock import CLOCK_EVENTS, TournamentClock
from engine.errors import FeltcastError, IllegalActionError, InvalidInputError
from engine.events import Event, HandStarted, PlayerEliminated
from engine.identity import PlayerIdentified
from engine.payouts import Standings
from engine.table import Table
from engine.table_events import LevelStarted, PlayerSeated
from engine.tournament_events import (
    ClockAdjusted,
    ClockLevelSet,
    ClockPaused,
    ClockResumed,
    ClockStarted,
    PlayerDisqualified,
    PrizeAwarded,
)
from overlay import commands as cmd
from overlay.commands import Dispatcher
from overlay.config import Config
from overlay.players import PhotoStore, PlayerDirectory

_log = logging.getLogger(__name__)

__all__ = ["TournamentDesk", "tournament_config"]


def tournament_config(config: Config) -> dict[str, Any]:
    """What ``GET /api/config`` tells pages and tools of the tournament: its name, field,
    prizes and the whole structure (levels with their minutes, breaks)."""
    settings = config.tournament_settings
    structure = config.structure
    entrants = config.tournament.entrants or len(config.players)
    return {
        "name": settings.name or None, "entrants": entrants or None,
        "prize_pool": config.tournament.prize_pool or None,
        "currency": settings.currency or None,
        "prizes": list(settings.prizes(max(entrants, 2))),
        "levels": [{"level": lv.number, "small_blind": lv.small_blind,
                    "big_blind": lv.big_blind, "ante": lv.ante, "minutes": lv.minutes}
                   for lv in structure.levels],
        "breaks": [{"after_level": b.after_level, "minutes": b.minutes, "name": b.name}
                   for b in structure.breaks],
    }


class TournamentDesk:
    """The service's tournament state and commands (see the module docstring)."""

    def __init__(self, config: Config, table: Table) -> None:
        self.config = config
        self.settings = config.tournament_settings
        self.photos = PhotoStore(config.data_dir)
        self.reset(table)

    def reset(self, table: Table) -> None:
        """Forget everything (before a replay of the whole log into ``table``)."""
        self.table = table
        self.clock = TournamentClock(table.structure)
        self.players = PlayerDirectory()
        self._seen: dict[str, int] = {}
        """Every player's name -> his last seat (busted players included)."""
        self._ops: list[tuple[str, Any]] = []
        """Busts and disqualifications in log order (rebuilds the standings)."""
        self._logged: dict[str, tuple[int, int]] = {}
        """name -> (place, prize) last logged."""

    def state(self) -> dict[str, Any]:
        """What :meth:`reset` starts and the log builds (for a checkpoint)."""
        return {"clock": self.clock, "players": self.players, "seen": self._seen,
                "ops": self._ops, "logged": self._logged}

    def restore(self, table: Table, state: dict[str, Any]) -> None:
        """Stand where :meth:`state` stood, following ``table``."""
        self.table = table
        self.clock, self.players = state["clock"], state["players"]
        self._seen, self._ops, self._logged = state["seen"], state["ops"], state["logged"]

    # --- the log ---------------------------------------------------------------------------

    @staticmethod
    def takes(payload: object) -> bool:
        """True for events only the desk follows (the table ignores them)."""
        return isinstance(payload, (*CLOCK_EVENTS, PrizeAwarded, PlayerIdentified))

    def apply(self, payload: object) -> None:
        """Follow one logged event (at start-up, and after every append)."""
        if isinstance(payload, CLOCK_EVENTS):
            self.clock = self.clock.apply(payload)
        elif isinstance(payload, PrizeAwarded):
            self._logged[payload.name] = (payload.place, payload.prize)
        elif isinstance(payload, PlayerIdentified):
            self.players.apply(payload)
        elif isinstance(payload, PlayerSeated):
            self._seen[payload.name] = payload.seat
        elif isinstance(payload, HandStarted):
            for seat, name in zip(payload.seats, payload.names, strict=True):
                self._seen[name] = seat
        elif isinstance(payload, PlayerEliminated | PlayerDisqualified):
            if isinstance(payload, PlayerDisqualified):
                self._seen.setdefault(payload.name, payload.seat)
            self._out(payload, self._ops)
            self.players.apply(payload)
        elif isinstance(payload, Event):
            self.players.apply(payload)

    def _out(self, event: PlayerEliminated | PlayerDisqualified,
             ops: list[tuple[str, Any]]) -> None:
        """Add a bust (players busting in one hand share an entry: R22 ranks them by their
        stacks at its start) or a disqualification to ``ops``."""
        if isinstance(event, PlayerDisqualified):
            ops.append(("dq", event.name))
            return
        hand = self.table.hand
        start = 0
        if hand is not None and hand.started is not None and \
                hand.started.hand_number == event.hand_number and event.seat in hand.seats:
            start = hand.started.stacks[hand.seats.index(event.seat)]
        last = ops[-1] if ops else None
        if last is not None and last[0] == "bust" and last[1][0] == event.hand_number:
            last[1][1][event.name] = start
        else:
            ops.append(("bust", (event.hand_number, {event.name: start})))

    # --- places and prizes (R22, R23) ------------------------------------------------------

    def entrants(self) -> int:
        return self.settings.entrants or max(len(self._seen), 2)

    def standings(self, ops: Sequence[tuple[str, Any]] | None = None) -> Standings:
        """Places and prizes after the logged busts and disqualifications (or ``ops``)."""
        ops = self._ops if ops is None else ops
        prizes = self.settings.prizes(self.entrants())
        # Still in: the players at the table; out: the busted and disqualified. A player who
        # left his seat without busting (moved to another table) is neither.
        out = [name for op, value in ops
               for name in (value[1] if op == "bust" else (value,))]
        names = list(dict.fromkeys([*self.table.names.values(), *out]))
        standings = Standings.start(names, prizes)
        for op, value in ops:
            if op == "bust":
                standings = standings.bust(value[0], value[1])
            else:
                standings = standings.disqualify(value)
        return standings

    def prize_events(self, after: Sequence[PlayerEliminated | PlayerDisqualified] = (),
                     ) -> list[Event]:
        """``prize_awarded`` for every decided place not logged yet, or changed (a
        disqualification moves the players below up), with the busts and disqualifications
        ``after`` (not logged yet: they are logged together) counted."""
        ops = copy.deepcopy(self._ops)
        for event in after:
            self._out(event, ops)
        out: list[Event] = []
        try:
            finishes = self.standings(ops).finishes()
        except FeltcastError as error:  # prizes are commentary: never stop the table for them
            _log.warning("the places and prizes could not be worked out: %s", error)
            return out
        for finish in finishes:
            if self._logged.get(finish.name) != (finish.place, finish.prize):
                out.append(PrizeAwarded(finish.name, finish.place, finish.prize,
                                        finish.hand_number, self._seen.get(finish.name, 0)))
        return out

    # --- the clock (R21) -------------------------------------------------------------------

    def level_due(self, now: float) -> int | None:
        """The level the clock says is due at ``now`` (None: the clock has not started)."""
        if not self.clock.started:
            return None
        return self.clock.level_at(now).number

    def level_event(self, number: int, now: float) -> LevelStarted:
        """``level_started`` for ``number`` with the clock's end of that level."""
        level = self.table.structure.level(number)
        ends_at: float | None = None
        if self.clock.started and self.clock.running:
            remaining = self.clock.remaining(now)
            if remaining is not None:
                ends_at = now + remaining
                if self.clock.is_break(now):
                    ends_at += level.minutes * 60
        return LevelStarted(level.number, level.small_blind, level.big_blind, level.ante,
                            str(self.table.rules.ante_mode), ends_at=ends_at)

    def next_boundary(self, now: float) -> float | None:
        """Seconds until the clock enters its next period (None: it does not run, or the
        last level lasts for ever)."""
        if not self.clock.running:
            return None
        remaining = self.clock.remaining(now)
        return None if remaining is None else max(remaining, 0.0)

    def start_level_of_table(self) -> float:
        """Seconds into the structure where the table's current level starts."""
        elapsed = 0.0
        number = (self.table._pending_level or self.table.level).number  # R21: the next hand's
        for period in self.table.structure.periods():
            if period.level.number == number and not period.is_break:
                return elapsed
            elapsed += period.seconds or 0.0
        return elapsed

    # --- commands --------------------------------------------------------------------------

    def register(self, commands: Dispatcher) -> None:
        """The desk's commands (the service registers the clock's: they move the table's
        level too)."""
        commands.register(cmd.CorrectStack, lambda c: [
            self.table.correct_stack(c.seat, c.stack, c.reason)])
        commands.register(cmd.Disqualify, self._disqualify)
        commands.register(cmd.SetPlayer, self._set_player)

    def _disqualify(self, command: cmd.Disqualify) -> list[Event]:
        event = self.table.disqualify(command.seat, command.reason)
        return [event, *self.prize_events(after=[event])]

    def _set_player(self, command: cmd.SetPlayer) -> list[Event]:
        seat = command.seat
        self.check_seat(seat)
        return [self.players.identify(seat, dict(command.changes),
                                      table_name=self.table.names.get(seat),
                                      photos=self.photos)]

    def clock_command(self, command: cmd.Command, now: float) -> list[Event]:
        """The event of a tournament clock command (nothing is changed if it is refused).

        :raises IllegalActionError: a command the clock does not allow now.
        """
        clock = self.clock
        event: Event
        if isinstance(command, cmd.StartClock):
            event = ClockStarted(now, self.start_level_of_table())
        elif isinstance(command, cmd.PauseClock):
            event = ClockPaused(now)
        elif isinstance(command, cmd.ResumeClock):
            event = ClockResumed(now)
        else:
            assert isinstance(command, cmd.AdjustClock)
            if not clock.started:
                raise IllegalActionError("the tournament clock has not started")
            event = ClockAdjusted(command.seconds, now)
        clock.apply(event)  # raises (e.g. pausing a paused clock) before anything changes
        return [event]

    def level_set(self, number: int, now: float) -> list[Event]:
        """``set_level`` on a running clock moves the clock too (full time on the level)."""
        if not self.clock.started:
            return []
        return [ClockLevelSet(number, now)]

    # --- identity --------------------------------------------------------------------------

    def import_rows(self, events: Sequence[PlayerIdentified]) -> list[PlayerIdentified]:
        """Identity events of a CSV import, checked against the table's seats."""
        for event in events:
            self.check_seat(event.seat)
        return list(events)

    def check_seat(self, seat: int) -> None:
        """:raises InvalidInputError: ``seat`` is not one of the table's (1 to its size)."""
        if not 1 <= seat <= self.table.rules.max_seats:
            raise InvalidInputError(f"seat {seat} does not exist "
                                    f"(1-{self.table.rules.max_seats})")
