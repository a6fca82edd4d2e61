"""The ``operator`` object of the view model (``docs/view-model.md``, operator channel only).

Everything here is read from the engine's hand: the pending decision and its limits
(:class:`~engine.actions.LegalActions`, R6-R8, R10), what an undo would take back (the
engine's own rule: the last command and what it caused), the clock (R12) and the cards the
hand still waits for. The device fields (``capture``, ``decks``, ``obs``, ``channels``,
``pages``) and the view's ``alerts`` belong to the service: the reducer leaves them empty
(``[]``, ``null`` for ``obs`` and ``decks``) and :func:`with_devices` fills them in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.actions import LegalActions, bet_presets
from engine.errors import InvalidInputError
from engine.events import ActionTaken, BetReturned, Street
from engine.hand import Hand
from engine.view_text import r8_ruling, undo_label

__all__ = ["DEVICE_FIELDS", "ClockState", "operator_view", "with_devices"]

#: The operator fields the service provides from its devices and connections.
DEVICE_FIELDS = ("capture", "decks", "obs", "channels", "pages", "refused_pages")


@dataclass(frozen=True, slots=True)
class ClockState:
    """A clock called on ``seat`` at log time ``started`` (R12: a minute, then ten seconds)."""

    seat: int
    started: float
    minute: float = 60.0
    countdown: float = 10.0

    def at(self, now: float) -> tuple[str, float]:
        """The phase and the seconds left in it at ``now``."""
        elapsed = max(0.0, now - self.started)
        if elapsed < self.minute:
            return "minute", round(self.minute - elapsed, 1)
        if elapsed < self.minute + self.countdown:
            return "countdown", round(self.minute + self.countdown - elapsed, 1)
        return "expired", 0.0


def operator_view(hand: Hand | None, legal: LegalActions | None, clock: ClockState | None,
                  as_of: float | None) -> dict[str, Any]:
    """The ``operator`` object for the hand as the operator channel knows it."""
    return {
        "between_hands": hand is None or hand.started is None or hand.is_over,
        "legal": _legal(hand, legal),
        "undo": _undo(hand),
        "clock": _clock(legal, clock, as_of),
        "cards_needed": _cards_needed(hand),
        "capture": [],
        "decks": None,
        "obs": None,
        "channels": [],
        "pages": [],
        "refused_pages": [],
    }


def with_devices(view: dict[str, Any], devices: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``view`` with the service's fields: ``alerts`` (any channel that shows
    them) and, on the operator view, ``capture``, ``decks``, ``obs``, ``channels`` and
    ``pages``.

    :raises InvalidInputError: for a key that is not one of those.
    """
    unknown = sorted(set(devices) - {"alerts", *DEVICE_FIELDS})
    if unknown:
        raise InvalidInputError(f"not a device field of the view: {', '.join(unknown)}")
    out = dict(view)
    if "alerts" in devices:
        out["alerts"] = list(devices["alerts"])
    if "operator" in out:
        operator = dict(out["operator"])
        for key in DEVICE_FIELDS:
            if key in devices:
                operator[key] = devices[key]
        out["operator"] = operator
    return out


def _legal(hand: Hand | None, legal: LegalActions | None) -> dict[str, Any] | None:
    if hand is None or legal is None:
        return None
    limits = None
    if legal.min_raise_to is not None and legal.max_raise_to is not None:
        limits = {"min": legal.min_raise_to, "max": legal.max_raise_to}
    all_in = None
    if hand.can_all_in(legal.seat):
        all_in = legal.max_raise_to if legal.max_raise_to is not None else legal.call_to
    return {
        "seat": legal.seat, "name": legal.name,
        "fold": legal.can_fold,
        "check": legal.can_check,
        "call": legal.call_amount if legal.can_call else None,
        "bet": limits if legal.is_bet else None,
        "raise": None if legal.is_bet else limits,
        "all_in": all_in,
        "ruling": r8_ruling(legal),
        "presets": bet_presets(legal, hand.total_pot,
                               chip_unit=hand.started.chip_unit if hand.started else 1),
    }


def _undo(hand: Hand | None) -> dict[str, Any]:
    """What :meth:`Hand.undo` would take back: the last command of the hand."""
    if hand is None or hand.started is None:
        return {"available": False, "label": None}
    names = dict(zip(hand.seats, hand.names, strict=True))
    events = hand.effective_events
    for event in reversed(events[1:]):
        if event.is_command:
            return {"available": True, "label": undo_label(event, names)}
    return {"available": False, "label": None}


def _clock(legal: LegalActions | None, clock: ClockState | None,
           as_of: float | None) -> dict[str, Any]:
    if clock is None:
        return {"seat": legal.seat if legal is not None else None, "phase": "idle",
                "remaining": None}
    phase, remaining = clock.at(as_of if as_of is not None else clock.started)
    return {"seat": clock.seat, "phase": phase, "remaining": remaining}


def _cards_needed(hand: Hand | None) -> list[dict[str, Any]]:
    """Hole cards not read for live seats, and the next board cards once a round closed."""
    if hand is None or hand.started is None or hand.is_over:
        return []
    out: list[dict[str, Any]] = []
    for seat in hand.seats:
        if hand.is_folded(seat) or hand.is_mucked(seat):
            continue
        hole = hand.hole_cards(seat)
        missing = 2 if hole is None else sum(1 for c in hole if c is None)
        if missing:
            out.append({"target": "seat", "seat": seat, "count": missing})
    events = hand.effective_events
    waiting = (hand.street in (Street.PREFLOP, Street.FLOP, Street.TURN)
               and len(hand.live_seats) > 1 and hand.legal_actions() is None
               and not isinstance(events[-1], ActionTaken | BetReturned))
    if waiting:
        out.append({"target": "board", "count": 3 if not hand.board else 1})
    return out
