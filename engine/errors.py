"""The one error hierarchy of Feltcast.

Every error a user can cause is a :class:`ValueError` subclass whose message a floor
manager understands. The service maps these to HTTP and websocket errors in one place.
"""

from __future__ import annotations


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


class IllegalActionError(InvalidInputError):
    """An action the rules do not allow now (out of turn, below the minimum, ...).

    ``rule`` is the rule ID (e.g. ``"R7"``), ``legal`` the options the player has instead
    (e.g. ``("call 24,000", "fold")``) and ``ruling`` what the floor would rule for an
    amount below the minimum (R8), e.g. ``"call"`` or ``"raise to 4,000"``. The hand's
    state is unchanged when this is raised.
    """

    code = "illegal_action"

    def __init__(self, message: str, *, rule: str = "", legal: tuple[str, ...] = (),
                 ruling: str = "") -> None:
        super().__init__(message)
        self.rule = rule
        self.legal = legal
        self.ruling = ruling


class HandHistoryError(InvalidInputError):
    """A hand history (PHH) that cannot be read or replayed; the message names the spot."""

    code = "hand_history"
