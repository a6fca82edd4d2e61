"""The field at a glance: players remaining, chips, average stack, shares, big blinds, ranks.

Pure arithmetic over the stacks the table holds (between hands: the stacks after the last
hand; during one: the stacks at its start, so nothing moves before the hand is decided).

>>> f = Field.of({1: 12_000, 4: 6_000, 7: 2_000}, big_blind=400, entrants=10)
>>> f.remaining, f.average, f.chip_leader, f.player(4).in_big_blinds, f.player(7).rank
(3, 6666, 1, 15.0, 3)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import IllegalActionError

__all__ = ["Field", "PlayerStanding"]


@dataclass(frozen=True, slots=True)
class PlayerStanding:
    """One player's place in the field."""

    seat: int
    stack: int
    share: float
    """Fraction of all chips in play (0-1)."""
    in_big_blinds: float | None
    """Stack in big blinds (None without a big blind)."""
    rank: int
    """1 = chip leader; equal stacks share a rank."""


@dataclass(frozen=True, slots=True)
class Field:
    """The players still in, by seat, with their stacks."""

    stacks: tuple[tuple[int, int], ...]
    """``(seat, stack)`` of every player with chips, by seat."""
    big_blind: int = 0
    entrants: int | None = None

    @classmethod
    def of(cls, stacks: Mapping[int, int], *, big_blind: int = 0,
           entrants: int | None = None) -> Field:
        """The field of the players in ``stacks`` (seat -> chips; busted seats omitted)."""
        if any(c < 0 for c in stacks.values()):
            raise IllegalActionError("a stack cannot be negative")
        return cls(tuple(sorted((s, c) for s, c in stacks.items() if c > 0)), big_blind,
                   entrants)

    @property
    def remaining(self) -> int:
        return len(self.stacks)

    @property
    def total_chips(self) -> int:
        return sum(c for _, c in self.stacks)

    @property
    def average(self) -> int:
        """Average stack, whole chips rounded down (0 for an empty field)."""
        return self.total_chips // self.remaining if self.stacks else 0

    @property
    def average_in_big_blinds(self) -> float | None:
        if not self.big_blind or not self.stacks:
            return None
        return round(self.total_chips / self.remaining / self.big_blind, 1)

    @property
    def chip_leader(self) -> int | None:
        """The seat with the most chips (the lowest seat among equals), or None."""
        if not self.stacks:
            return None
        return min(self.stacks, key=lambda sc: (-sc[1], sc[0]))[0]

    def rank(self, seat: int) -> int:
        """1 + the number of players with more chips."""
        stack = self._stack(seat)
        return 1 + sum(1 for _, c in self.stacks if c > stack)

    def _stack(self, seat: int) -> int:
        for s, c in self.stacks:
            if s == seat:
                return c
        raise IllegalActionError(f"nobody with chips sits in seat {seat}")

    def player(self, seat: int) -> PlayerStanding:
        stack = self._stack(seat)
        bb = round(stack / self.big_blind, 1) if self.big_blind else None
        return PlayerStanding(seat, stack, stack / self.total_chips, bb, self.rank(seat))

    def players(self) -> tuple[PlayerStanding, ...]:
        """Every player, chip leader first (seat order among equal stacks)."""
        return tuple(sorted((self.player(s) for s, _ in self.stacks),
                            key=lambda p: (p.rank, p.seat)))

    def to_dict(self) -> dict[str, Any]:
        """The view's ``tournament.field`` object."""
        return {"entrants": self.entrants, "remaining": self.remaining,
                "total_chips": self.total_chips, "average": self.average,
                "average_bb": self.average_in_big_blinds, "chip_leader": self.chip_leader}
