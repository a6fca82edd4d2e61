"""Tournament events: the clock, stack corrections, disqualifications and prizes (issue 10).

Like :mod:`engine.table_events`, these record what changes outside a hand so that the
tournament after a restart is its log replayed: :meth:`engine.clock.TournamentClock.replay`
folds the clock events, :mod:`engine.table_replay` applies :class:`StackCorrected` and
:class:`PlayerDisqualified` to the table. All are public (levels, stacks, places and prizes are
on every screen). Times (``at``) are wall-clock seconds chosen by the caller: the engine never
reads a clock.

>>> from engine.events import Event
>>> e = StackCorrected(seat=4, stack=12_500, previous=12_000, reason="miscounted pot")
>>> Event.from_dict(e.to_dict()) == e
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.events import Event

__all__ = [
    "ClockAdjusted",
    "ClockLevelSet",
    "ClockPaused",
    "ClockResumed",
    "ClockStarted",
    "PlayerDisqualified",
    "PrizeAwarded",
    "StackCorrected",
]


@dataclass(frozen=True, slots=True)
class ClockStarted(Event):
    """The tournament clock starts at wall time ``at`` with ``elapsed`` seconds already on
    it (0: the start of level 1; a final table resuming mid-structure logs where it stands)."""

    kind: ClassVar[str] = "clock_started"

    at: float
    elapsed: float = 0.0


@dataclass(frozen=True, slots=True)
class ClockPaused(Event):
    """The floor stops the clock (the level's remaining time stands still)."""

    kind: ClassVar[str] = "clock_paused"

    at: float


@dataclass(frozen=True, slots=True)
class ClockResumed(Event):
    """The clock runs again after a pause."""

    kind: ClassVar[str] = "clock_resumed"

    at: float


@dataclass(frozen=True, slots=True)
class ClockAdjusted(Event):
    """The operator changes the time left in the current level: ``seconds`` > 0 adds time,
    < 0 takes it away (running past the level's end moves on to the next period)."""

    kind: ClassVar[str] = "clock_adjusted"

    seconds: float
    at: float


@dataclass(frozen=True, slots=True)
class ClockLevelSet(Event):
    """The operator moves the clock to the start of level ``number`` (full time on it)."""

    kind: ClassVar[str] = "clock_level_set"

    number: int
    at: float


@dataclass(frozen=True, slots=True)
class StackCorrected(Event):
    """A stack corrected between hands, never silently: who, from what to what, and why."""

    kind: ClassVar[str] = "stack_corrected"

    seat: int
    stack: int
    previous: int
    reason: str


@dataclass(frozen=True, slots=True)
class PlayerDisqualified(Event):
    """The tournament director excludes a player (001 §2.22, §3.7): his chips leave play,
    he forfeits any prize and the players ranked below him move up (R23)."""

    kind: ClassVar[str] = "player_disqualified"

    seat: int
    name: str
    reason: str
    chips_removed: int = 0
    """The stack he had at the table (0: he had already busted)."""


@dataclass(frozen=True, slots=True)
class PrizeAwarded(Event):
    """A finishing place and its prize (R23), logged when the player's place is final:
    at his elimination (001 §3.8: paid at once), or for the winner when the tournament ends.
    A later disqualification above him is logged as another award with the new place."""

    kind: ClassVar[str] = "prize_awarded"

    name: str
    place: int
    prize: int
    hand_number: int = 0
    seat: int = 0
