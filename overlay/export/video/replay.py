"""An animated replay of a PHH hand history: the hand as log entries at a broadcast's pace.

:func:`phh_entries` replays the history through the engine (:mod:`engine.phh`) and stamps
every event with a time as a televised hand would unfold: forced bets at once, hole cards
dealt around the table, a pause before each decision, longer ones when a street is dealt and
at the showdown. The entries then go through the same timeline and renderer as footage.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import phh
from engine.errors import FeltcastError, HandHistoryError
from engine.events import (
    ActionTaken,
    BoardDealt,
    Event,
    HandEnded,
    HandMucked,
    HandShown,
    HoleCardsDealt,
    PotAwarded,
    Street,
)
from engine.log import TableEvent

__all__ = ["Pace", "phh_entries"]


@dataclass(frozen=True, slots=True)
class Pace:
    """Seconds before each kind of step (``scale`` multiplies them all)."""

    deal: float = 0.25
    """Between two players' hole cards."""
    first_deal: float = 1.5
    """From the forced bets to the first hole cards."""
    action: float = 1.6
    """Before each decision."""
    board: float = 2.2
    """Before a flop, turn or river."""
    show: float = 1.6
    """Before a hand is tabled or mucked at the showdown."""
    finish: float = 1.2
    """From the last step to the pot being pushed."""
    hold: float = 5.0
    """The finished hand stays on screen this long at the end."""
    scale: float = 1.0


def phh_entries(history: phh.HandHistory, *, t0: float = 0.0,
                pace: Pace | None = None) -> list[TableEvent]:
    """The hand's events as log entries from ``t0`` on (the last entry is the hand's end;
    the caller holds the picture for ``pace.hold`` seconds).

    :raises HandHistoryError: naming the action the engine refused.
    """
    pace = pace or Pace()
    hand = phh.start(history)
    entries: list[TableEvent] = []
    now = t0

    def take(events: list[Event]) -> None:
        nonlocal now
        paid = False
        for event in events:
            if isinstance(event, PotAwarded | HandEnded) and not paid:
                now += pace.finish * pace.scale  # a moment before the pot is pushed
                paid = True
            entries.append(TableEvent.record(len(entries) + 1, now, event))

    take(list(hand.events))
    dealt = False
    for number, action in enumerate(history.actions, 1):
        before = len(hand.events)
        try:
            event = phh.apply_action(hand, action)
        except FeltcastError as error:
            where = f"{history.source}: " if history.source else ""
            raise HandHistoryError(f"{where}action {number} {action!r}: {error}") from None
        if event is None:
            continue
        now += _pause(event, pace, dealt)
        dealt = dealt or isinstance(event, HoleCardsDealt)
        take(list(hand.events[before:]))
    if hand.street is Street.SHOWDOWN and not hand.is_over:
        before = len(hand.events)
        hand.resolve_showdown()
        now += pace.show * pace.scale
        take(list(hand.events[before:]))
    if not hand.is_over:
        raise HandHistoryError(f"{history.source or 'the hand history'}: the hand is not over "
                               f"after its last action ({hand.street})")
    return entries


def _pause(event: Event, pace: Pace, dealt: bool) -> float:
    if isinstance(event, HoleCardsDealt):
        seconds = pace.deal if dealt else pace.first_deal
    elif isinstance(event, BoardDealt):
        seconds = pace.board
    elif isinstance(event, HandShown | HandMucked):
        seconds = pace.show
    elif isinstance(event, ActionTaken):
        seconds = pace.action
    else:
        seconds = pace.finish
    return seconds * pace.scale
