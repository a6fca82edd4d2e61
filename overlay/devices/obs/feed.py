"""From the table's event stream to the moments automation rules react to.

Rules name *moments*: every engine event kind as it is (``hand_started``, ``street_started``,
``hand_shown``, ``hand_ended``, ...) plus a few the engine does not emit as such but a
production cares about:

- ``all_in_showdown``: the first hand tabled face up because betting is over with players
  all-in (R14), before the remaining board is run out. Payload: ``hand_number``, ``street``
  (the street whose betting ended it, e.g. ``preflop``).
- ``player_eliminated``: one per player who busted in the hand, best finish first (R22).
  Payload: ``hand_number``, ``seat``, ``name``, ``order`` (0 for the first named by the
  engine).

Tournament moments (``level_started``, ``break_started``) come from the tournament clock and
pass through unchanged.

:class:`AutomationFeed` reads events in their JSON form (``Event.to_dict()``, as channels
carry them), so it sees exactly what the overlay's channel shows. It keeps the little state
it needs per hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

Moment = tuple[str, dict[str, Any]]
"""An automation event kind and its payload."""


@dataclass
class AutomationFeed:
    """Turns table events into automation moments, in order."""

    _hand_number: int = 0
    _names: dict[int, str] = field(default_factory=dict)
    _street: str = "preflop"
    _all_in_announced: bool = False

    def moments(self, event: Mapping[str, Any]) -> tuple[Moment, ...]:
        """The moments one event makes: its own kind first, then any derived ones."""
        kind = str(event.get("kind", ""))
        if not kind:
            return ()
        found: list[Moment] = [(kind, dict(event))]
        if kind == "hand_started":
            self._start_hand(event)
        elif kind == "street_started":
            self._street = str(event.get("street", ""))
        elif kind == "hand_shown":
            found.extend(self._shown(event))
        elif kind == "hand_ended":
            found.extend(self._ended(event))
        return tuple(found)

    def _start_hand(self, event: Mapping[str, Any]) -> None:
        self._hand_number = int(event.get("hand_number", 0))
        seats = event.get("seats") or ()
        names = event.get("names") or ()
        self._names = {int(seat): str(name) for seat, name in zip(seats, names, strict=False)}
        self._street = "preflop"
        self._all_in_announced = False

    def _shown(self, event: Mapping[str, Any]) -> list[Moment]:
        # R14: with betting over and players all-in, the engine tables every hand itself
        # (auto) before the showdown street; at a real showdown hands are shown there.
        if not event.get("auto") or self._street == "showdown":
            return []
        if self._all_in_announced:
            return []
        self._all_in_announced = True
        return [("all_in_showdown", {"hand_number": self._hand_number,
                                     "street": self._street})]

    def _ended(self, event: Mapping[str, Any]) -> list[Moment]:
        busted = [int(seat) for seat in event.get("busted") or ()]
        return [("player_eliminated", {"hand_number": self._hand_number, "seat": seat,
                                       "name": self._names.get(seat, f"Seat {seat}"),
                                       "order": order})
                for order, seat in enumerate(busted)]
