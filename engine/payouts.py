"""Payouts (R23): prize tables, prizes in whole money units, finishing places (R22) and
disqualifications.

The default table is the seeds' (001 §3.7), a percentage of the prize pool per place by field
size:

========  ===========  ===========  ===========  ===========
place     up to 10     11-20        21-30        31 or more
========  ===========  ===========  ===========  ===========
1         50 %         42 %         40 %         34 %
2         30 %         28 %         25 %         22 %
3         20 %         19 %         17 %         17 %
4                      11 %         11 %         13 %
5                                   7 %          9 %
6                                                5 %
========  ===========  ===========  ===========  ===========

(001 allows at most 44 entrants; larger fields keep the last column.) A custom table comes from
the configuration (:meth:`PayoutTable.from_config`): percentages or fixed amounts per place.

**Rounding.** Prizes are whole multiples of ``unit`` (the smallest money amount paid, 1 by
default): each place gets its percentage of the pool rounded *down* to the unit, and what
rounding leaves over goes to first place, so the prizes always sum to the pool exactly.

**Places** (R22, 001 §1.15). A player is out when the hand he busted in ends; players busting
in the same hand are ranked by their stacks at the start of that hand, larger stack higher.
Players who started that hand with exactly equal stacks tie: they share the places they take
and split those places' prizes equally (the remainder unit to the first listed).

**Disqualification** (001 §2.22, §3.7). A disqualified player loses any claim to a prize and
the players ranked below him move up one place each, prizes with them (R23). He leaves the
ranking: the next player out takes the place he would have had.

>>> default_payouts(10).prizes(10_000)
(5000, 3000, 2000)
>>> default_payouts(25).prizes(1001)
(401, 250, 170, 110, 70)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from engine.errors import ConfigError, IllegalActionError

__all__ = [
    "DEFAULT_TABLE",
    "Bust",
    "Finish",
    "PayoutTable",
    "Standings",
    "default_payouts",
]

DEFAULT_TABLE: tuple[tuple[int | None, tuple[int, ...]], ...] = (
    (10, (50, 30, 20)),
    (20, (42, 28, 19, 11)),
    (30, (40, 25, 17, 11, 7)),
    (None, (34, 22, 17, 13, 9, 5)),
)
"""001 §3.7: ``(largest field size or None, percentages by place)``."""


@dataclass(frozen=True, slots=True)
class PayoutTable:
    """How a prize pool is paid: ``percentages`` per place (summing to 100) or fixed
    ``amounts`` per place (then the pool is their sum). Place 1 first; never increasing."""

    percentages: tuple[Fraction, ...] = ()
    amounts: tuple[int, ...] = ()
    unit: int = 1
    """The smallest money amount paid (prizes are multiples of it)."""

    def __post_init__(self) -> None:
        if bool(self.percentages) == bool(self.amounts):
            raise ConfigError("payouts", "give either percentages or amounts per place")
        if isinstance(self.unit, bool) or not isinstance(self.unit, int) or self.unit <= 0:
            raise ConfigError("payouts.unit", f"must be a positive whole amount, not "
                              f"{self.unit!r}")
        values: Sequence[Fraction | int] = self.percentages or self.amounts
        what = "percentage" if self.percentages else "amount"
        for place, value in enumerate(values, 1):
            if value <= 0:
                raise ConfigError("payouts", f"place {place}: the {what} must be more than 0, "
                                  f"not {_show(value)}")
            if place > 1 and value > values[place - 2]:
                raise ConfigError("payouts", f"place {place} pays more than place {place - 1} "
                                  f"({_show(value)} > {_show(values[place - 2])})")
        if self.percentages and sum(self.percentages) != 100:
            raise ConfigError("payouts", "the percentages add up to "
                              f"{_show(sum(self.percentages, Fraction(0)))}, not 100")
        if self.amounts and any(a % self.unit for a in self.amounts):
            raise ConfigError("payouts", f"every amount must be a multiple of the unit "
                              f"{self.unit}")

    @property
    def places(self) -> int:
        """How many places are paid."""
        return len(self.percentages or self.amounts)

    @classmethod
    def from_percentages(cls, percentages: Iterable[int | str | Fraction],
                         *, unit: int = 1) -> PayoutTable:
        return cls(percentages=tuple(_fraction("percentages", p) for p in percentages),
                   unit=unit)

    @classmethod
    def from_config(cls, config: Mapping[str, Any], *, entrants: int | None = None
                    ) -> PayoutTable:
        """A table from the configuration's ``payouts`` object:

        * ``{"percentages": [50, 30, 20]}`` (numbers or decimal strings such as ``"12.5"``);
        * ``{"amounts": [5000, 3000, 2000]}`` (fixed prizes; the pool is their sum);
        * ``{"by_field_size": [{"up_to": 10, "percentages": [...]}, ...,
          {"percentages": [...]}]}`` (the first entry whose ``up_to`` covers ``entrants``;
          an entry without ``up_to`` covers any size);
        * ``{"default": true}`` or ``{}``: the seeds' table (needs ``entrants``).

        Each may add ``"unit"`` (the smallest money amount paid).

        :raises ConfigError: naming the key and what is wrong with it.
        """
        if not isinstance(config, Mapping):
            raise ConfigError("payouts", "must be an object such as {\"percentages\": [50, "
                              "30, 20]}")
        unit = config.get("unit", 1)
        if isinstance(unit, bool) or not isinstance(unit, int):
            raise ConfigError("payouts.unit", f"must be a whole amount, not {unit!r}")
        known = {"percentages", "amounts", "by_field_size", "default", "unit"}
        unknown = sorted(set(config) - known)
        if unknown:
            raise ConfigError("payouts", f"unknown key(s) {', '.join(unknown)} (expected "
                              "percentages, amounts, by_field_size or default, and unit)")
        if "by_field_size" in config:
            return cls._from_schedule(config["by_field_size"], entrants, unit)
        if "percentages" in config and "amounts" in config:
            raise ConfigError("payouts", "give percentages or amounts, not both")
        if "percentages" in config:
            values = _list("payouts.percentages", config["percentages"])
            return cls(percentages=tuple(_fraction("payouts.percentages", v) for v in values),
                       unit=unit)
        if "amounts" in config:
            values = _list("payouts.amounts", config["amounts"])
            for v in values:
                if isinstance(v, bool) or not isinstance(v, int):
                    raise ConfigError("payouts.amounts", f"{v!r} is not a whole amount")
            return cls(amounts=tuple(values), unit=unit)
        if config.get("default", True) is not True:
            raise ConfigError("payouts.default", "true is the only value (or give percentages, "
                              "amounts or by_field_size)")
        if entrants is None:
            raise ConfigError("payouts", "the default table depends on the number of "
                              "entrants: set tournament.entrants")
        return replace(default_payouts(entrants), unit=unit)

    @classmethod
    def _from_schedule(cls, rows: Any, entrants: int | None, unit: int) -> PayoutTable:
        key = "payouts.by_field_size"
        if entrants is None:
            raise ConfigError(key, "needs the number of entrants (tournament.entrants)")
        rows = _list(key, rows)
        previous = 0
        for k, row in enumerate(rows):
            if not isinstance(row, Mapping):
                raise ConfigError(key, f"entry {k + 1} must be an object")
            up_to = row.get("up_to")
            if up_to is not None and (isinstance(up_to, bool) or not isinstance(up_to, int)
                                      or up_to <= previous):
                raise ConfigError(key, f"entry {k + 1}: up_to must be a whole number above "
                                  f"{previous}")
            body = {name: value for name, value in row.items() if name != "up_to"}
            table = cls.from_config({**body, "unit": unit})
            if up_to is None or entrants <= up_to:
                return table
            previous = up_to
        raise ConfigError(key, f"no entry covers a field of {entrants} (add one without "
                          "up_to)")

    def prizes(self, prize_pool: int | None = None) -> tuple[int, ...]:
        """The prize of each paid place, place 1 first: whole multiples of ``unit`` summing
        to ``prize_pool`` exactly (see the module docstring for the rounding rule). For fixed
        amounts the pool may be omitted; if given it must equal their sum.

        :raises ConfigError: for a negative pool, one not a multiple of the unit, or one that
            does not match fixed amounts.
        """
        if self.amounts:
            total = sum(self.amounts)
            if prize_pool is not None and prize_pool != total:
                raise ConfigError("prize_pool", f"the fixed prizes add up to {total:,}, but "
                                  f"the prize pool is {prize_pool:,}")
            return self.amounts
        if prize_pool is None:
            raise ConfigError("prize_pool", "a percentage table needs the prize pool")
        if isinstance(prize_pool, bool) or not isinstance(prize_pool, int) or prize_pool < 0:
            raise ConfigError("prize_pool", f"must be a whole amount of 0 or more, not "
                              f"{prize_pool!r}")
        if prize_pool % self.unit:
            raise ConfigError("prize_pool", f"{prize_pool:,} is not a multiple of the unit "
                              f"{self.unit}")
        units = prize_pool // self.unit
        shares = [int(units * p / 100) * self.unit for p in self.percentages]
        shares[0] += prize_pool - sum(shares)
        return tuple(shares)

    def prize_for(self, place: int, prize_pool: int | None = None) -> int:
        """The prize for finishing ``place`` (0 outside the paid places)."""
        if place < 1:
            raise IllegalActionError(f"there is no place {place}")
        prizes = self.prizes(prize_pool)
        return prizes[place - 1] if place <= len(prizes) else 0

    def pay_jumps(self, prize_pool: int | None = None) -> tuple[tuple[int, int], ...]:
        """``(place, jump)`` for every place from the first unpaid one up to 2nd: what a
        player in that place gains by outlasting one more player (the next place's prize
        minus this one's)."""
        prizes = (*self.prizes(prize_pool), 0)
        return tuple((place, prizes[place - 2] - prizes[place - 1])
                     for place in range(len(prizes), 1, -1))


def default_payouts(entrants: int) -> PayoutTable:
    """The seeds' table for a field of ``entrants`` (R23, 001 §3.7).

    :raises ConfigError: for fewer than two entrants.
    """
    if isinstance(entrants, bool) or not isinstance(entrants, int) or entrants < 2:
        raise ConfigError("entrants", f"a tournament needs at least 2 entrants, not "
                          f"{entrants!r}")
    for largest, row in DEFAULT_TABLE:
        if largest is None or entrants <= largest:
            if len(row) >= entrants:  # never pay everyone: the last place's share goes up
                row = _fold(row, entrants - 1)
            return PayoutTable.from_percentages(row)
    raise AssertionError("unreachable")  # pragma: no cover


def _fold(row: tuple[int, ...], places: int) -> tuple[int, ...]:
    """``row`` cut to ``places`` places, the cut shares added to first place (tiny fields)."""
    kept = list(row[:places])
    kept[0] += sum(row[places:])
    return tuple(kept)


def _show(value: Fraction | int) -> str:
    if isinstance(value, Fraction) and value.denominator != 1:
        return f"{float(value):g}"
    return f"{int(value):,}"


def _list(key: str, value: Any) -> list[Any]:
    if not isinstance(value, list | tuple) or not value:
        raise ConfigError(key, "must be a non-empty list, place 1 first")
    return list(value)


def _fraction(key: str, value: Any) -> Fraction:
    if isinstance(value, bool):
        raise ConfigError(key, f"{value!r} is not a number")
    try:
        return Fraction(str(value)) if isinstance(value, float) else Fraction(value)
    except (TypeError, ValueError, ZeroDivisionError):
        raise ConfigError(key, f"{value!r} is not a number") from None


# --- places ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bust:
    """A player out of the tournament in hand ``hand_number`` with ``start_stack`` chips at
    the start of that hand (R22)."""

    name: str
    hand_number: int
    start_stack: int


@dataclass(frozen=True, slots=True)
class Finish:
    """A finishing place. ``tied`` > 1 when players with equal starting stacks busted in the
    same hand (they share the places ``place`` .. ``place + tied - 1`` and their prizes)."""

    name: str
    place: int
    prize: int
    hand_number: int = 0
    tied: int = 1


@dataclass(frozen=True, slots=True)
class Standings:
    """The places of a tournament as it runs (R22, R23): the players still in, the busts in
    order, the disqualified. A frozen value: each verb returns a new one.

    ``prizes`` are the paid places' amounts (place 1 first, e.g.
    ``PayoutTable.prizes(pool)``). The first places are decided last: a bust's place is one
    more than the number of players (not disqualified) still in after his hand, plus those who
    outranked him in it.
    """

    prizes: tuple[int, ...]
    alive: tuple[str, ...]
    busts: tuple[Bust, ...] = ()
    disqualified: tuple[str, ...] = ()

    @classmethod
    def start(cls, players: Iterable[str], prizes: Sequence[int]) -> Standings:
        names = tuple(players)
        if len(set(names)) != len(names):
            raise IllegalActionError("two players have the same name")
        return cls(tuple(prizes), names)

    @property
    def remaining(self) -> int:
        """Players still in the tournament."""
        return len(self.alive)

    def bust(self, hand_number: int, start_stacks: Mapping[str, int]) -> Standings:
        """The players of ``start_stacks`` (name -> stack at the start of the hand) are out
        after hand ``hand_number``.

        :raises IllegalActionError: for a player who is not in the tournament.
        """
        for name in start_stacks:
            if name not in self.alive:
                raise IllegalActionError(f"{name} is not in the tournament")
        out = tuple(Bust(name, hand_number, stack) for name, stack in start_stacks.items())
        return replace(self, alive=tuple(n for n in self.alive if n not in start_stacks),
                       busts=self.busts + out)

    def disqualify(self, name: str) -> Standings:
        """001 §3.7: ``name`` forfeits his place and prize; the players below move up.

        :raises IllegalActionError: for an unknown or already disqualified player.
        """
        if name in self.disqualified:
            raise IllegalActionError(f"{name} is already disqualified")
        if name not in self.alive and all(b.name != name for b in self.busts):
            raise IllegalActionError(f"{name} is not in the tournament")
        return replace(self, alive=tuple(n for n in self.alive if n != name),
                       disqualified=(*self.disqualified, name))

    def finishes(self) -> tuple[Finish, ...]:
        """Every decided place, best first (the winner once one player is left)."""
        out: list[Finish] = []
        place = len(self.alive) + 1
        if len(self.alive) == 1:
            out.append(Finish(self.alive[0], 1, self._prize(1, 1)[0]))
        groups: dict[int, list[Bust]] = {}
        for b in self.busts:
            if b.name not in self.disqualified:
                groups.setdefault(b.hand_number, []).append(b)
        for hand in sorted(groups, reverse=True):
            group = sorted(groups[hand], key=lambda b: -b.start_stack)  # R22
            k = 0
            while k < len(group):
                tied = [b for b in group[k:] if b.start_stack == group[k].start_stack]
                shares = self._prize(place, len(tied))
                out.extend(Finish(b.name, place, share, b.hand_number, len(tied))
                           for b, share in zip(tied, shares, strict=True))
                place += len(tied)
                k += len(tied)
        return tuple(out)

    def _prize(self, place: int, tied: int) -> tuple[int, ...]:
        total = sum(self.prizes[p - 1] for p in range(place, place + tied)
                    if p <= len(self.prizes))
        share = total // tied
        return (total - share * (tied - 1), *([share] * (tied - 1)))

    def finish_of(self, name: str) -> Finish | None:
        """``name``'s place and prize, or None while he is still in (or disqualified)."""
        for f in self.finishes():
            if f.name == name:
                return f
        return None

    def places(self) -> tuple[tuple[int, int, str | None], ...]:
        """``(place, prize, name or None)`` for every paid place (the payouts graphic)."""
        names: dict[int, str] = {}
        for f in self.finishes():
            place = f.place
            while place in names:  # tied players fill the places they share, in order
                place += 1
            names[place] = f.name
        return tuple((p, prize, names.get(p)) for p, prize in enumerate(self.prizes, 1))
