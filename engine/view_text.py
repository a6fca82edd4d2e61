"""Words for the page view model (``docs/view-model.md``): actions, pots, undo labels, R8.

Pure formatting of what the engine decided; nothing here knows a rule of poker. Amounts use
thousands separators (:func:`engine.actions.chips`).

>>> action_text("Rast", ActionTaken(4, ActionKind.RAISE, to=17000, added=17000))
'Rast raises to 17,000'
>>> last_action_text(ActionTaken(4, ActionKind.CALL, to=17000, added=9000))
'Call 9,000'
"""

from __future__ import annotations

from engine.actions import LegalActions, chips
from engine.events import (
    ActionKind,
    ActionTaken,
    BoardDealt,
    Event,
    HandMucked,
    HandShown,
    HandVoided,
    HoleCardsDealt,
    PlayerRestricted,
)

__all__ = ["action_amount", "action_text", "last_action_text", "pot_label", "r8_ruling",
           "undo_label"]

_FORCED = {"R11": "absent, R11", "R12": "clock, R12"}
_VERBS = {ActionKind.FOLD: "folds", ActionKind.CHECK: "checks", ActionKind.CALL: "calls",
          ActionKind.BET: "bets", ActionKind.RAISE: "raises to"}
_SHORT = {ActionKind.FOLD: "Fold", ActionKind.CHECK: "Check", ActionKind.CALL: "Call",
          ActionKind.BET: "Bet", ActionKind.RAISE: "Raise to"}


def action_amount(action: ActionTaken) -> int | None:
    """The amount a reader expects next to the verb: the chips a call adds, the street total
    of a bet or raise (R6: "raise **to**"), ``None`` for a fold or a check."""
    if action.action is ActionKind.CALL:
        return action.added
    if action.action in (ActionKind.BET, ActionKind.RAISE):
        return action.to
    return None


def action_text(name: str, action: ActionTaken) -> str:
    """``"Rast raises to 17,000"``, ``"Bo calls 5,000, all-in"``, ``"Cy folds (clock, R12)"``."""
    amount = action_amount(action)
    text = f"{name} {_VERBS[action.action]}"
    if amount is not None:
        text += f" {chips(amount)}"
    if action.all_in:
        text += ", all-in"
    if action.rule in _FORCED:
        text += f" ({_FORCED[action.rule]})"
    return text


def last_action_text(action: ActionTaken) -> str:
    """The short form under a player's name: ``"Raise to 17,000"``, ``"All-in 310,000"``."""
    if action.all_in and action.action is not ActionKind.FOLD:
        return f"All-in {chips(action.to)}"
    amount = action_amount(action)
    word = _SHORT[action.action]
    return word if amount is None else f"{word} {chips(amount)}"


def pot_label(number: int) -> str:
    """``"Main pot"`` for pot 0, then ``"Side pot 1"``, ``"Side pot 2"`` … (R16)."""
    return "Main pot" if number == 0 else f"Side pot {number}"


def undo_label(event: Event, names: dict[int, str]) -> str:
    """What an undo takes back, in words (the command the engine's undo would remove)."""
    def who(seat: int) -> str:
        return names.get(seat, f"Seat {seat}")

    if isinstance(event, ActionTaken):
        return action_text(who(event.seat), event)
    if isinstance(event, HoleCardsDealt):
        return f"Hole cards of seat {event.seat} ({who(event.seat)})"
    if isinstance(event, BoardDealt):
        cards = " ".join(c.code for c in event.cards)
        return f"{str(event.street).capitalize()} {cards}"
    if isinstance(event, HandShown):
        return f"{who(event.seat)} shows"
    if isinstance(event, HandMucked):
        return f"{who(event.seat)} mucks"
    if isinstance(event, PlayerRestricted):
        return f"{who(event.seat)} restricted to call or fold ({event.rule})"
    if isinstance(event, HandVoided):
        return f"Hand voided ({event.reason}, {event.rule})"
    return event.kind.replace("_", " ").capitalize()


def r8_ruling(legal: LegalActions) -> str | None:
    """The 50 % rule (R8) for the amounts of ``legal``, or ``None`` when it cannot apply
    (no bet or raise possible, or only an all-in, whose amount is never below the minimum).

    The engine rules an amount below the minimum completed when it adds at least half the
    minimum increment over the amount to call (``engine.hand.Hand.verify_raise_to``); with
    a raise open and the minimum not capped by the stack, that increment is
    ``min_raise_to - call_to``.
    """
    low, high = legal.min_raise_to, legal.max_raise_to
    if low is None or high is None or low >= high:
        return None
    increment = low - legal.call_to
    half = (increment + 1) // 2
    if legal.is_bet:
        return (f"A bet of less than {chips(low)} that is at least {chips(half)} is completed "
                f"to {chips(low)}; less than that is a check (R8).")
    return (f"A raise to less than {chips(low)} that adds at least {chips(half)} is completed "
            f"to {chips(low)}; less than that is a call (R8).")
