"""Tournament blind levels (R21): the structure, its breaks, and which level a given moment
falls in.

Time is an argument (seconds since the tournament clock started), never read here. A level
change takes effect with the next hand (:class:`engine.table.Table` asks for the level only
when it starts a hand). Breaks sit between levels (:class:`Break`); the running clock is
:class:`engine.clock.TournamentClock`.

>>> DEFAULT_STRUCTURE.level_at(0).big_blind, DEFAULT_STRUCTURE.level_at(20 * 60).big_blind
(50, 100)
>>> DEFAULT_STRUCTURE.level_at(10**9).number
18
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import ConfigError


@dataclass(frozen=True, slots=True)
class BlindLevel:
    """One level: blinds, ante (0: none) and its length in minutes."""

    number: int
    small_blind: int
    big_blind: int
    ante: int = 0
    minutes: int = 20

    def describe(self) -> str:
        ante = f", ante {self.ante:,}" if self.ante else ""
        return f"Level {self.number}: {self.small_blind:,}/{self.big_blind:,}{ante}"


@dataclass(frozen=True, slots=True)
class Break:
    """A pause in play after level ``after_level`` (the clock runs; no hands are dealt)."""

    after_level: int
    minutes: int
    name: str = "Break"


@dataclass(frozen=True, slots=True)
class Period:
    """One stretch of the clock: a level, or a break (then ``level`` is the level that
    follows it). ``seconds`` is None for the last level, which lasts for ever."""

    level: BlindLevel
    is_break: bool = False
    seconds: float | None = 1200.0
    name: str = ""


@dataclass(frozen=True, slots=True)
class Structure:
    """The levels in order, with breaks between some of them; the last level lasts for
    ever."""

    levels: tuple[BlindLevel, ...]
    starting_stack: int = 5000
    breaks: tuple[Break, ...] = ()

    def __post_init__(self) -> None:
        if not self.levels:
            raise ConfigError("levels", "a structure needs at least one level")
        for k, level in enumerate(self.levels):
            if level.number != k + 1:
                raise ConfigError("levels", f"level {k + 1} is numbered {level.number}")
            if not 0 <= level.small_blind <= level.big_blind or level.big_blind <= 0:
                raise ConfigError("levels", f"level {level.number}: blinds "
                                  f"{level.small_blind}/{level.big_blind} are not valid")
            if level.minutes <= 0 or level.ante < 0:
                raise ConfigError("levels", f"level {level.number}: minutes and ante must "
                                  "be positive")
        after = [b.after_level for b in self.breaks]
        for b in self.breaks:
            if not 1 <= b.after_level < len(self.levels):
                raise ConfigError("breaks", f"a break after level {b.after_level}: breaks go "
                                  f"between levels 1 and {len(self.levels)}")
            if b.minutes <= 0:
                raise ConfigError("breaks", f"the break after level {b.after_level} needs "
                                  "a positive number of minutes")
        if len(set(after)) != len(after):
            raise ConfigError("breaks", "two breaks after the same level")
        if _not_chips(self.starting_stack):
            raise ConfigError("starting_stack", "must be a positive number of chips")

    @classmethod
    def from_rows(cls, rows: Sequence[tuple[int, int] | tuple[int, int, int]], *,
                  minutes: int = 20, starting_stack: int = 5000,
                  breaks: Sequence[Break] = ()) -> Structure:
        """Levels from ``(small, big)`` or ``(small, big, ante)`` rows."""
        levels = tuple(BlindLevel(k + 1, row[0], row[1], row[2] if len(row) > 2 else 0,
                                  minutes) for k, row in enumerate(rows))
        return cls(levels, starting_stack, tuple(breaks))

    def periods(self) -> tuple[Period, ...]:
        """The clock's timeline: every level, and each break after its level."""
        breaks = {b.after_level: b for b in self.breaks}
        out: list[Period] = []
        last = len(self.levels)
        for level in self.levels:
            out.append(Period(level, False, None if level.number == last
                              else level.minutes * 60.0, level.describe()))
            pause = breaks.get(level.number)
            if pause is not None:
                out.append(Period(self.levels[level.number], True, pause.minutes * 60.0,
                                  pause.name))
        return tuple(out)

    def period_at(self, elapsed_seconds: float) -> Period:
        """The period running ``elapsed_seconds`` after the start (breaks included)."""
        remaining = elapsed_seconds
        periods = self.periods()
        for period in periods:
            if period.seconds is None:
                return period
            remaining -= period.seconds
            if remaining < 0:
                return period
        return periods[-1]  # pragma: no cover - the last period lasts for ever

    def level(self, number: int) -> BlindLevel:
        if not 1 <= number <= len(self.levels):
            raise ConfigError("level", f"there is no level {number} (1-{len(self.levels)})")
        return self.levels[number - 1]

    def level_at(self, elapsed_seconds: float) -> BlindLevel:
        """The level running ``elapsed_seconds`` after the start (R21); during a break, the
        level that follows it (the next hand is dealt at that level)."""
        return self.period_at(elapsed_seconds).level


def _not_chips(stack: object) -> bool:
    return isinstance(stack, bool) or not isinstance(stack, int) or stack <= 0


DEFAULT_STRUCTURE = Structure.from_rows(
    [(25, 50), (50, 100), (100, 200), (200, 400), (300, 600), (500, 1000), (700, 1400),
     (1000, 2000), (1500, 3000), (2000, 4000), (3000, 6000), (4000, 8000), (6000, 12000),
     (8000, 16000), (10000, 20000), (15000, 30000), (20000, 40000), (30000, 60000)])
"""The default structure of rule R21 (001 §3.9): 20-minute levels from 25/50 to
30,000/60,000, no ante, 5,000 starting stack."""
