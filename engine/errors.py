"""The one error hierarchy of Feltcast.

Every error a user can cause is a :class:`ValueError` subclass whose message a floor
manager understands. The service maps these to HTTP and websocket errors in one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class FeltcastError(Exception):
    """Root of every error Feltcast raises on purpose."""

    #: A short, stable, machine-readable code (used in JSON errors).
    code = "error"


class InvalidInputError(FeltcastError, ValueError):
    """Input that cannot be understood (bad syntax, unknown names)."""

    code = "invalid_input"


class InvalidCardError(InvalidInputError):
    """A card code that is not a card, e.g. ``Ax`` or ``1h``. The message names the token."""

    code = "invalid_card"

    def __init__(self, message: str, token: str = "") -> None:
        super().__init__(message)
        self.token = token


class DuplicateCardError(InvalidCardError):
    """The same card given twice where every card must be distinct."""

    code = "duplicate_card"


class ConfigError(InvalidInputError):
    """A configuration value that is missing, of the wrong type or out of range.

    The message names the key and the problem.
    """

    code = "config_error"

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"configuration error at {key!r}: {problem}")
        self.key = key
        self.problem = problem




class InvalidHandError(InvalidInputError):
    """A hand with the wrong number of cards (two hole cards; 5-7 cards to evaluate)."""

    code = "invalid_hand"


class InvalidBoardError(InvalidInputError):
    """A board that cannot be: 1, 2 or more than 5 cards, or no cards left to complete it."""

    code = "invalid_board"


class PlayerCountError(InvalidInputError):
    """Equity needs between 2 and 10 known hands."""

    code = "player_count"


@dataclass(frozen=True, slots=True)
class Ruling:
    """What the rules do instead of a refused action (R8: a short raise is completed to the
    minimum or becomes a call): ``text`` for the floor, and the action itself, ``kind``
    (``"raise_to"``, ``"bet"`` or ``"call"``) for ``seat`` with ``amount`` (a street total;
    ``None`` for a call), so that a console applies it in one tap.

    >>> Ruling("raise to 500", "raise_to", 3, 500).to_json()["command"]
    {'type': 'raise_to', 'seat': 3, 'amount': 500}
    """

    text: str
    kind: str
    seat: int
    amount: int | None = None

    def command(self) -> dict[str, Any]:
        """The operator command (``docs/commands.md``) that applies the ruling."""
        fields: dict[str, Any] = {"type": self.kind, "seat": self.seat}
        if self.amount is not None:
            fields["amount"] = self.amount
        return fields

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "command": self.command()}


class IllegalActionError(InvalidInputError):
    """An action the rules do not allow now (out of turn, below the minimum, ...).

    ``rule`` is the rule ID (e.g. ``"R7"``), ``legal`` the options the player has instead,
    JSON-ready (e.g. ``({"type": "call", "amount": 24000, "to": 24000}, {"type": "fold"})``,
    see :meth:`engine.actions.LegalActions.to_json`) and ``ruling`` what the floor would rule
    for an amount below the minimum (R8, a :class:`Ruling`). The hand's state is unchanged
    when this is raised.
    """

    code = "illegal_action"

    def __init__(self, message: str, *, rule: str = "",
                 legal: tuple[dict[str, Any], ...] = (), ruling: Ruling | None = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.legal = legal
        self.ruling = ruling


class StaleCommandError(InvalidInputError):
    """A command built on a view of the table that has changed since (another device acted
    first): refused, never applied to a state its sender did not see."""

    code = "stale_command"


class HandHistoryError(InvalidInputError):
    """A hand history (PHH) that cannot be read or replayed; the message names the spot."""

    code = "hand_history"


class NoPhhSpellingError(HandHistoryError):
    """A hand played under a live ruling PHH's conventions cannot express (R5: the call of
    the full big blind over a short all-in blind); the other formats still carry it."""

    code = "no_phh_spelling"
