"""The tournament clock (R21) and the action clock (R12), as pure values: time is an argument.

:class:`TournamentClock` runs through a :class:`~engine.tournament.Structure`'s periods (levels
and breaks). The floor starts, pauses, resumes and adjusts it; every such command is an event
(:mod:`engine.tournament_events`) and the clock is the fold of those events
(:meth:`TournamentClock.replay`), so it survives a restart: a clock replayed from the log at
any later moment shows exactly what the live one shows.

R21: a new level starts with the next hand, never mid-hand. The clock only says which level
is *due*; the service hands it to :meth:`engine.table.Table.set_level` (which defers a change
during a hand) and logs :class:`engine.table_events.LevelStarted` before the next hand starts.

>>> from engine.tournament import DEFAULT_STRUCTURE
>>> clock = TournamentClock(DEFAULT_STRUCTURE).start(1000.0)
>>> clock.level_at(1000.0 + 25 * 60).big_blind, clock.remaining(1000.0 + 25 * 60)
(100, 900.0)
>>> clock = clock.pause(1000.0 + 25 * 60).adjust(60)
>>> clock.remaining(9_999_999.0)
960.0
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from engine.errors import IllegalActionError
from engine.events import Event
from engine.tournament import DEFAULT_STRUCTURE, BlindLevel, Period, Structure
from engine.tournament_events import (
    ClockAdjusted,
    ClockLevelSet,
    ClockPaused,
    ClockResumed,
    ClockStarted,
)

__all__ = ["ACTION_CLOCK_COUNTDOWN", "ACTION_CLOCK_SECONDS", "ActionClock", "ClockStatus",
           "TournamentClock"]

CLOCK_EVENTS = (ClockStarted, ClockPaused, ClockResumed, ClockAdjusted, ClockLevelSet)


@dataclass(frozen=True, slots=True)
class ClockStatus:
    """What a clock graphic shows at one moment (``as_of``, wall time)."""

    level: BlindLevel
    """The level in play; during a break the level that follows it."""
    is_break: bool
    running: bool
    started: bool
    remaining: float | None
    """Seconds left in the current period at ``as_of``; None in the last level (for ever)."""
    as_of: float
    next_level: BlindLevel | None
    """The level after the current one (during a break: the one after the break), or None."""
    period_name: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The ``tournament.clock`` object of the view (see helpers' contract)."""
        nxt = self.next_level
        return {
            "level": self.level.number, "small_blind": self.level.small_blind,
            "big_blind": self.level.big_blind, "ante": self.level.ante,
            "is_break": self.is_break, "running": self.running, "started": self.started,
            "remaining": self.remaining, "as_of": self.as_of, "name": self.period_name,
            "next": None if nxt is None else {
                "level": nxt.number, "small_blind": nxt.small_blind,
                "big_blind": nxt.big_blind, "ante": nxt.ante},
        }


@dataclass(frozen=True, slots=True)
class TournamentClock:
    """Where the tournament stands in its structure; a frozen value (each verb returns a new
    clock).

    The state is an anchor: at wall time ``anchor`` the clock was ``into`` seconds into
    period ``period`` (an index into :meth:`Structure.periods`), and it has run since then if
    ``running``. ``into`` may be negative: the operator added time beyond the period's length.
    """

    structure: Structure = DEFAULT_STRUCTURE
    started: bool = False
    running: bool = False
    period: int = 0
    into: float = 0.0
    anchor: float = 0.0

    # --- queries ---------------------------------------------------------------------------

    def position(self, now: float) -> tuple[int, float]:
        """``(period index, seconds into it)`` at wall time ``now``."""
        periods = self.structure.periods()
        t = self.into + (max(now - self.anchor, 0.0) if self.running else 0.0)
        p = self.period
        while p < len(periods) - 1:
            seconds = periods[p].seconds
            if seconds is None or t < seconds:
                break
            t -= seconds
            p += 1
        return p, t

    def period_at(self, now: float) -> Period:
        return self.structure.periods()[self.position(now)[0]]

    def level_at(self, now: float) -> BlindLevel:
        """The level due at ``now`` (during a break: the level after it). R21: a table moves
        to it with its next hand."""
        return self.period_at(now).level

    def is_break(self, now: float) -> bool:
        return self.period_at(now).is_break

    def remaining(self, now: float) -> float | None:
        """Seconds left in the current period (None: the last level, which lasts for ever)."""
        p, t = self.position(now)
        seconds = self.structure.periods()[p].seconds
        return None if seconds is None else seconds - t

    def next_level(self, now: float) -> BlindLevel | None:
        """The level that follows the current one: during a break the level the break leads
        to; None in the last level."""
        period = self.period_at(now)
        if period.is_break:
            return period.level
        number = period.level.number + 1
        return self.structure.level(number) if number <= len(self.structure.levels) else None

    def status(self, now: float) -> ClockStatus:
        """Everything a clock graphic needs at ``now``."""
        p, _ = self.position(now)
        period = self.structure.periods()[p]
        return ClockStatus(level=period.level, is_break=period.is_break, running=self.running,
                           started=self.started, remaining=self.remaining(now), as_of=now,
                           next_level=self.next_level(now), period_name=period.name)

    # --- verbs -----------------------------------------------------------------------------

    def _at(self, now: float, **changes: Any) -> TournamentClock:
        p, t = self.position(now)
        return replace(self, period=p, into=t, anchor=max(now, self.anchor), **changes)

    def start(self, now: float, elapsed: float = 0.0) -> TournamentClock:
        """Start the clock at wall time ``now``, ``elapsed`` seconds on from where it stands
        (level 1 unless the operator set another level or adjusted it before the start).

        :raises IllegalActionError: if it has already started.
        """
        if self.started:
            raise IllegalActionError("the tournament clock is already running or paused; "
                                     "resume it instead")
        if elapsed < 0:
            raise IllegalActionError("the clock cannot start with negative time elapsed")
        return replace(self, started=True, running=True, into=self.into + float(elapsed),
                       anchor=now)._at(now)

    def pause(self, now: float) -> TournamentClock:
        """:raises IllegalActionError: unless the clock is running."""
        if not self.running:
            raise IllegalActionError("the tournament clock is not running")
        return self._at(now, running=False)

    def resume(self, now: float) -> TournamentClock:
        """:raises IllegalActionError: unless the clock is started and paused."""
        if not self.started:
            raise IllegalActionError("the tournament clock has not started")
        if self.running:
            raise IllegalActionError("the tournament clock is already running")
        return replace(self, running=True, anchor=max(now, self.anchor))

    def adjust(self, seconds: float, now: float | None = None) -> TournamentClock:
        """Add ``seconds`` to the time left in the period running at ``now`` (negative: take
        time away; past the period's end the clock moves on to the next one). ``now``
        defaults to the last change (for a paused clock: the moment it stopped)."""
        base = self._at(self.anchor if now is None else now)
        return replace(base, into=base.into - seconds)._at(base.anchor)

    def set_level(self, number: int, now: float) -> TournamentClock:
        """Move to the start of level ``number`` with its full time.

        :raises ConfigError: for a level the structure does not have.
        """
        self.structure.level(number)
        index = next(i for i, p in enumerate(self.structure.periods())
                     if p.level.number == number and not p.is_break)
        return replace(self, period=index, into=0.0, anchor=max(now, self.anchor))

    # --- events ----------------------------------------------------------------------------

    def apply(self, event: Event) -> TournamentClock:
        """The clock after a logged clock event (any other event changes nothing)."""
        if isinstance(event, ClockStarted):
            return self.start(event.at, event.elapsed)
        if isinstance(event, ClockPaused):
            return self.pause(event.at)
        if isinstance(event, ClockResumed):
            return self.resume(event.at)
        if isinstance(event, ClockAdjusted):
            return self.adjust(event.seconds, event.at)
        if isinstance(event, ClockLevelSet):
            return self.set_level(event.number, event.at)
        return self

    @classmethod
    def replay(cls, structure: Structure, events: Iterable[Event]) -> TournamentClock:
        """The clock a log leaves (the events in order; non-clock events are skipped)."""
        clock = cls(structure)
        for event in events:
            clock = clock.apply(event)
        return clock


ACTION_CLOCK_SECONDS = 60.0
"""R12: a called clock gives the player one minute..."""
ACTION_CLOCK_COUNTDOWN = 10.0
"""... then a ten-second countdown, after which he checks if he can, else folds."""


@dataclass(frozen=True, slots=True)
class ActionClock:
    """R12: a clock called on ``seat`` at wall time ``called_at``."""

    seat: int
    called_at: float
    seconds: float = ACTION_CLOCK_SECONDS + ACTION_CLOCK_COUNTDOWN

    @property
    def ends_at(self) -> float:
        return self.called_at + self.seconds

    def remaining(self, now: float) -> float:
        return max(self.ends_at - now, 0.0)

    def in_countdown(self, now: float) -> bool:
        """The final ten seconds (R12)."""
        return 0.0 < self.remaining(now) <= ACTION_CLOCK_COUNTDOWN

    def expired(self, now: float) -> bool:
        return now >= self.ends_at

    def to_dict(self) -> dict[str, Any]:
        """The view's ``tournament.action_clock`` object."""
        return {"seat": self.seat, "ends_at": self.ends_at,
                "countdown_at": self.ends_at - ACTION_CLOCK_COUNTDOWN}
