"""Main and side pots (R16) and splitting a pot in whole chips (R17).

>>> build_pots([100, 300, 300], [False, False, False], seats=[1, 2, 3])
(Pot(amount=300, seats=(1, 2, 3)), Pot(amount=400, seats=(2, 3)))
>>> split_pot(101, 2, chip_unit=1)
(51, 50)
>>> split_pot(250, 3, chip_unit=25)
(100, 75, 75)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pot:
    """A pot: its chips and the seats that can win it (R16)."""

    amount: int
    seats: tuple[int, ...]


def build_pots(contributions: Sequence[int], folded: Sequence[bool], *, seats: Sequence[int],
               dead: int = 0) -> tuple[Pot, ...]:
    """The main pot and side pots from each position's total contribution.

    Every distinct contribution level caps a layer; a layer is won among the players still
    in the hand who reached it (R16). Adjacent layers with the same contenders merge. ``dead``
    chips (antes under a dead-ante rule) go to the main pot. Positions follow ``seats``.
    """
    pots: list[Pot] = []
    previous = 0
    pending = dead
    for level in sorted(set(contributions) | {0}):
        pending += sum(min(c, level) - min(c, previous) for c in contributions)
        contenders = tuple(seat for seat, c, out in zip(seats, contributions, folded, strict=True)
                           if c >= level and not out)
        while pots and pots[-1].seats == contenders:
            pending += pots.pop().amount
        if pending:
            pots.append(Pot(pending, contenders))
        pending = 0
        previous = level
    return tuple(pots)


def split_pot(amount: int, winners: int, *, chip_unit: int = 1) -> tuple[int, ...]:
    """Shares of a pot split ``winners`` ways in units of the smallest chip (R17).

    The whole indivisible remainder goes to the first winner; callers order the winners by
    the odd-chip rule (R17: first clockwise from the button by default, as PokerKit does).
    """
    if winners <= 0:
        raise ValueError("a pot needs at least one winner")
    units = amount // chip_unit
    share = (units // winners) * chip_unit
    shares = [share] * winners
    shares[0] += amount - share * winners
    return tuple(shares)
