"""The festival's log: what the tournament director's service decided, as events.

A festival (:class:`engine.festival.Festival`) changes by the tables' hands (dealt,
finished) and by the director's orders (a move, a break, hand-for-hand switched); each is
one event of the festival's own log, and the festival after a restart is that log replayed
(:func:`replay_festival`): the draw is seeded, so the moves that followed a hand come out the
same again. All are public (names, stacks and seats are on every screen).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import ClassVar

from engine.errors import InvalidInputError
from engine.events import Event
from engine.festival import Festival, Move

__all__ = ["ORDERS", "FestivalBreakOrdered", "FestivalDrawn", "FestivalHandDealt",
           "FestivalHandFinished", "FestivalHandForHandOrdered", "FestivalMoveOrdered",
           "FestivalOrderWithdrawn", "apply_order", "festival_after", "replay_festival"]


@dataclass(frozen=True, slots=True)
class FestivalDrawn(Event):
    """The seat draw: the players, the tables (in order), the starting stack, the table
    size, the draw's seed and the prizes (place 1 first)."""

    kind: ClassVar[str] = "festival_drawn"

    players: tuple[str, ...]
    tables: tuple[str, ...]
    stack: int
    seats_per_table: int
    seed: int
    prizes: tuple[int, ...] = ()

    def festival(self) -> Festival:
        return Festival.draw(self.players, self.tables, stack=self.stack,
                             seats_per_table=self.seats_per_table, seed=self.seed,
                             prizes=self.prizes)


@dataclass(frozen=True, slots=True)
class FestivalHandDealt(Event):
    """Table ``table`` started its hand ``table_hand`` (its own count) as festival hand
    ``hand_id``, playing the festival's table ``seated`` (its own, or the final table)."""

    kind: ClassVar[str] = "festival_hand_dealt"

    table: str
    table_hand: int
    hand_id: int
    seated: str = ""


@dataclass(frozen=True, slots=True)
class FestivalHandFinished(Event):
    """Table ``table``'s hand ``table_hand``, played as the festival's table ``seated``,
    ended with these stacks (``(player, chips)``, 0 for a bust)."""

    kind: ClassVar[str] = "festival_hand_finished"

    table: str
    table_hand: int
    stacks: tuple[tuple[str, int], ...]
    seated: str = ""


@dataclass(frozen=True, slots=True)
class FestivalMoveOrdered(Event):
    """The director ordered ``player`` to ``to_table`` (at ``to_seat``; 0: the open seat
    that posts the big blind soonest), between his table's hands
    (:meth:`engine.festival.Festival.move`)."""

    kind: ClassVar[str] = "festival_move_ordered"

    player: str
    to_table: str
    to_seat: int = 0


@dataclass(frozen=True, slots=True)
class FestivalBreakOrdered(Event):
    """The director ordered table ``table`` broken
    (:meth:`engine.festival.Festival.break_table`)."""

    kind: ClassVar[str] = "festival_break_ordered"

    table: str


@dataclass(frozen=True, slots=True)
class FestivalHandForHandOrdered(Event):
    """The director switched hand-for-hand on or off
    (:meth:`engine.festival.Festival.set_hand_for_hand`)."""

    kind: ClassVar[str] = "festival_hand_for_hand_ordered"

    on: bool


@dataclass(frozen=True, slots=True)
class FestivalOrderWithdrawn(Event):
    """The director withdrew his order, still waiting, to move ``player`` (or to break
    ``break_table``) (:meth:`engine.festival.Festival.withdraw`)."""

    kind: ClassVar[str] = "festival_order_withdrawn"

    player: str = ""
    break_table: str = ""


def apply_order(festival: Festival, event: Event) -> tuple[Festival, tuple[Move, ...]]:
    """The festival after one of the director's orders, and the moves it made now.

    :raises IllegalActionError: the festival refuses it (see its ``verify_`` methods).
    """
    if isinstance(event, FestivalMoveOrdered):
        return festival.move(event.player, event.to_table, event.to_seat)
    if isinstance(event, FestivalBreakOrdered):
        return festival.break_table(event.table)
    if isinstance(event, FestivalHandForHandOrdered):
        return festival.set_hand_for_hand(event.on)
    if isinstance(event, FestivalOrderWithdrawn):
        return festival.withdraw(event.player, event.break_table), ()
    raise TypeError(f"{event.kind} is not an order")


ORDERS = (FestivalMoveOrdered, FestivalBreakOrdered, FestivalHandForHandOrdered,
          FestivalOrderWithdrawn)
"""The director's orders."""


def festival_after(festival: Festival | None, event: Event,
                   ) -> tuple[Festival | None, tuple[Move, ...]]:
    """The festival after one event of its log (the draw makes it; other events before the
    draw change nothing), and the moves that event made.

    :raises IllegalActionError: the festival refuses the event.
    """
    if isinstance(event, FestivalDrawn):
        return event.festival(), ()
    if festival is None:
        return None, ()
    if isinstance(event, FestivalHandDealt):
        return festival.deal(event.seated or event.table)[0], ()
    if isinstance(event, FestivalHandFinished):
        return festival.finish(event.seated or event.table, dict(event.stacks))
    if isinstance(event, ORDERS):
        return apply_order(festival, event)
    return festival, ()


def replay_festival(events: Iterable[Event],
                    on_moves: Callable[[Event, tuple[Move, ...]], None]
                    | None = None) -> Festival | None:
    """The festival the log's events make (None before the draw); ``on_moves`` is told of
    the moves each finished hand or order made (the same again: the draws are seeded).

    :raises InvalidInputError: a log that does not start with the draw, or an event the
        festival refuses (the log was not written by the director's service).
    """
    festival: Festival | None = None
    for event in events:
        if isinstance(event, FestivalDrawn) and festival is not None:
            raise InvalidInputError("the festival's log holds a second draw")
        if festival is None and not isinstance(event, FestivalDrawn):
            raise InvalidInputError(f"the festival's log starts with {event.kind}, not the "
                                    "draw")
        festival, moves = festival_after(festival, event)
        if on_moves is not None and isinstance(event, (FestivalHandFinished, *ORDERS)):
            on_moves(event, moves)
    return festival
