"""What a player may do now: :class:`LegalActions`, a frozen answer to "whose turn is it?".

The operator console greys out buttons from it and the clock (R12) expires the decision it
describes. Amounts are integer chips; raise amounts are "to" totals for the street (R6).
"""

from __future__ import annotations

from dataclasses import dataclass

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

    def describe(self) -> str:
        """``"call 24,000 or fold"``: the options joined for a message."""
        options = self.options()
        return ", ".join(options[:-1]) + " or " + options[-1]
