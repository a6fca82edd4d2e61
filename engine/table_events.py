"""Table-level events: what the tournament director and the operator change between hands.

Hands log their own events (:mod:`engine.events`); these record everything else that changes
the table, so that the table after a restart is the log replayed
(:func:`engine.table_replay.replay_table`). All are public: names, stacks, levels and the button
are on every screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.events import Event, Secrecy

__all__ = [
    "AbsenceSet",
    "AccessRecorded",
    "ButtonSet",
    "ClockCalled",
    "ClockStopped",
    "DevicesReported",
    "LevelStarted",
    "PlayerSeated",
    "SeatEmptied",
]


@dataclass(frozen=True, slots=True)
class PlayerSeated(Event):
    """A player sits down, or (same seat) a name or stack is corrected between hands."""

    kind: ClassVar[str] = "player_seated"

    seat: int
    name: str
    stack: int


@dataclass(frozen=True, slots=True)
class SeatEmptied(Event):
    """A seat becomes empty between hands (the player left the table)."""

    kind: ClassVar[str] = "seat_emptied"

    seat: int


@dataclass(frozen=True, slots=True)
class ButtonSet(Event):
    """The button placed by the floor (after the R1 draw, or where a final table resumes)."""

    kind: ClassVar[str] = "button_set"

    seat: int


@dataclass(frozen=True, slots=True)
class LevelStarted(Event):
    """A blind level (R21); it applies from the next hand, never mid-hand."""

    kind: ClassVar[str] = "level_started"

    number: int
    small_blind: int
    big_blind: int
    ante: int = 0
    ante_mode: str = "none"
    ends_at: float | None = None
    """Wall-clock end of the level when a tournament clock runs, else None."""


@dataclass(frozen=True, slots=True)
class AbsenceSet(Event):
    """R11: a player is marked absent (or back); takes effect from the next hand."""

    kind: ClassVar[str] = "absence_set"

    seat: int
    absent: bool


@dataclass(frozen=True, slots=True)
class ClockCalled(Event):
    """R12: the clock is called on the player to act (a minute, then ten seconds)."""

    kind: ClassVar[str] = "clock_called"

    seat: int
    seconds: float = 70.0


@dataclass(frozen=True, slots=True)
class ClockStopped(Event):
    """The clock is withdrawn (the player acted, or the floor stopped it)."""

    kind: ClassVar[str] = "clock_stopped"


@dataclass(frozen=True, slots=True)
class DevicesReported(Event):
    """The service's devices as the operator console shows them (readers, OBS, channels,
    connected pages, alerts): ``report`` is that JSON object as text. Logged when something
    changes, so the operator's view is the log replayed like everything else."""

    kind: ClassVar[str] = "devices_reported"

    report: str

    @property
    def secrecy(self) -> Secrecy:
        """Internal: the devices, alerts and connected pages are the operator's business, not
        the audience's (and the pages list grows with the audience)."""
        return Secrecy.INTERNAL


@dataclass(frozen=True, slots=True)
class AccessRecorded(Event):
    """The access audit: a connection to a live channel with hole cards opened (``open``) or
    closed (``close``), or a snapshot of one read once (``read``), with who held it: the role
    of its token, the peer address and the browser's user agent. Internal: the operator's
    only; ``feltcast audit`` lists them for a time window."""

    kind: ClassVar[str] = "access_recorded"

    action: str
    connection: str
    """Pairs an ``open`` with its ``close``."""
    channel: str
    role: str
    peer: str
    user_agent: str = ""

    @property
    def secrecy(self) -> Secrecy:
        return Secrecy.INTERNAL
