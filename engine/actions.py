"""What a player may do now: :class:`LegalActions`, a frozen answer to "whose turn is it?".

The operator console greys out buttons from it and the clock (R12) expires the decision it
describes. Amounts are integer chips; raise amounts are "to" totals for the street (R6).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.events import Street


def chips(amount: int) -> str:
    """Chips as a floor manager writes them: ``24,000``."""
    return f"{amount:,}"


@dataclass(frozen=True, slots=True)
class Restriction:
    """A reason an otherwise normal option is not available, with its rule ID."""

    rule: str
    reason: str


@dataclass(frozen=True, slots=True)
class LegalActions:
    """The options of the player whose turn it is.

    ``call_amount`` is the chips a call adds (0 when checking is possible), ``call_to`` his
    street total after calling; ``min_raise_to`` / ``max_raise_to`` bound a bet or raise
    "to" (both ``None`` when he may not bet or raise). A bet or raise below the minimum is
    only legal as an all-in, i.e. ``max_raise_to`` itself.
    """

    seat: int
    name: str
    street: Street
    can_check: bool
    call_amount: int
    call_to: int
    is_bet: bool
    min_raise_to: int | None
    max_raise_to: int | None
    restrictions: tuple[Restriction, ...] = ()

    @property
    def can_fold(self) -> bool:
        return True

    @property
    def can_call(self) -> bool:
        return not self.can_check

    @property
    def can_raise(self) -> bool:
        return self.max_raise_to is not None

    def options(self) -> tuple[str, ...]:
        """The options in words, e.g. ``("call 24,000", "raise to 48,000-310,000", "fold")``."""
        out: list[str] = []
        if self.can_check:
            out.append("check")
        else:
            out.append(f"call {chips(self.call_amount)}")
        if self.min_raise_to is not None and self.max_raise_to is not None:
            verb = "bet" if self.is_bet else "raise to"
            if self.min_raise_to >= self.max_raise_to:
                out.append(f"{verb} {chips(self.max_raise_to)} (all-in)")
            else:
                out.append(f"{verb} {chips(self.min_raise_to)}-{chips(self.max_raise_to)}")
        out.append("fold")
        return tuple(out)

    def to_json(self) -> tuple[dict[str, Any], ...]:
        """The options as data, in the order of :meth:`options`: ``check``, or ``call`` with
        the chips it adds (``amount``) and the street total (``to``); ``bet`` or ``raise_to``
        with ``min`` and ``max`` totals (``all_in`` true when only the whole stack is left);
        ``fold``.

        >>> LegalActions(4, "Rast", Street.FLOP, False, 24000, 24000, False, 48000,
        ...              310000).to_json()  # doctest: +NORMALIZE_WHITESPACE
        ({'type': 'call', 'amount': 24000, 'to': 24000},
         {'type': 'raise_to', 'min': 48000, 'max': 310000, 'all_in': False},
         {'type': 'fold'})
        """
        out: list[dict[str, Any]] = []
        if self.can_check:
            out.append({"type": "check"})
        else:
            out.append({"type": "call", "amount": self.call_amount, "to": self.call_to})
        if self.min_raise_to is not None and self.max_raise_to is not None:
            out.append({"type": "bet" if self.is_bet else "raise_to",
                        "min": min(self.min_raise_to, self.max_raise_to),
                        "max": self.max_raise_to,
                        "all_in": self.min_raise_to >= self.max_raise_to})
        out.append({"type": "fold"})
        return tuple(out)

    def describe(self) -> str:
        """``"call 24,000 or fold"``: the options joined for a message."""
        options = self.options()
        return ", ".join(options[:-1]) + " or " + options[-1]


#: The pot fractions of the presets after the flop, with their keys and labels.
_POT_FRACTIONS = (("half_pot", "½ pot", 1, 2), ("two_thirds_pot", "⅔ pot", 2, 3),
                  ("three_quarters_pot", "¾ pot", 3, 4))


def bet_presets(legal: LegalActions, pot: int, *, chip_unit: int = 1) -> list[dict[str, Any]]:
    """The console's bet sizes for this decision, from the engine's legal range: ``min``;
    pre-flop 2.5x and 3x the bet to call; after the flop half, two thirds and three quarters
    of the pot; the pot; ``all_in``. Each is ``{"key", "label", "amount"}``, ``amount`` a
    street total ("raise to", R6). ``pot`` is every chip in the middle, this street's bets
    included; a pot-sized raise is the call plus the pot after the call. Amounts are rounded
    to ``chip_unit``; sizes outside the legal range or equal to a smaller one are left out;
    none when the player may not bet or raise.

    >>> legal = LegalActions(4, "Rast", Street.PREFLOP, False, 8000, 8000, False, 16000,
    ...                      954000)
    >>> [(p["key"], p["amount"]) for p in bet_presets(legal, 20000)]
    [('min', 16000), ('2.5x', 20000), ('3x', 24000), ('pot', 36000), ('all_in', 954000)]
    """
    low, high = legal.min_raise_to, legal.max_raise_to
    if low is None or high is None:
        return []
    out: list[dict[str, Any]] = [{"key": "min", "label": "Min", "amount": min(low, high)}]
    unit = max(1, chip_unit)
    after_call = pot + legal.call_amount

    def add(key: str, label: str, amount: float) -> None:
        rounded = int(amount / unit + 0.5) * unit
        if low < rounded < high and all(rounded > p["amount"] for p in out):
            out.append({"key": key, "label": label, "amount": rounded})

    if legal.street is Street.PREFLOP and not legal.is_bet:
        add("2.5x", "2.5x", legal.call_to * 2.5)
        add("3x", "3x", legal.call_to * 3)
    else:
        for key, label, numerator, denominator in _POT_FRACTIONS:
            add(key, label, legal.call_to + after_call * numerator / denominator)
    add("pot", "Pot", legal.call_to + after_call)
    if high > out[0]["amount"]:
        out.append({"key": "all_in", "label": "All-in", "amount": high})
    return out
