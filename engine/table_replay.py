"""The table after a restart is its log replayed.

:class:`TableRecorder` applies logged events, in order, to a :class:`~engine.table.Table`:
table-level events (:mod:`engine.table_events`) through the table's own methods, each hand by
starting it the way the live table did (the logged ``hand_started`` must equal the one the
table produces: a check that the log and the engine agree) and then replaying its logged
events into it. Eliminations are derived by the table again and compared with the log.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.errors import FeltcastError
from engine.events import Event, HandStarted, PlayerEliminated
from engine.hand import Hand
from engine.production_events import PRODUCTION_EVENTS
from engine.table import Table
from engine.table_events import (
    AbsenceSet,
    ButtonSet,
    ClockCalled,
    ClockStopped,
    LevelStarted,
    PlayerSeated,
    SeatEmptied,
)
from engine.tournament_events import (
    ClockAdjusted,
    ClockLevelSet,
    ClockPaused,
    ClockResumed,
    ClockStarted,
    PlayerDisqualified,
    PrizeAwarded,
    StackCorrected,
)

#: Events the table itself ignores: the tournament clock (:class:`engine.clock.TournamentClock`
#: folds them), prizes (:class:`engine.payouts.Standings`) and the production's events
#: (:mod:`engine.production_events`).
NOT_TABLE_EVENTS = (ClockStarted, ClockPaused, ClockResumed, ClockAdjusted, ClockLevelSet,
                    PrizeAwarded, *PRODUCTION_EVENTS)

__all__ = ["ReplayMismatchError", "TableRecorder", "replay_table"]


class ReplayMismatchError(FeltcastError):
    """The log does not replay: it was not written by this engine's rules."""

    code = "replay_mismatch"


class TableRecorder:
    """Feeds logged events into ``table`` (see the module docstring)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self._hand_events: list[Event] = []
        self._eliminated: list[PlayerEliminated] = []
        self._finished = True

    @classmethod
    def following(cls, table: Table) -> TableRecorder:
        """A recorder standing where a replay of the log would stand once it has made
        ``table`` (a table played live by its commands): the current hand's events taken,
        its end (stacks back, eliminations) already applied when it is over."""
        recorder = cls(table)
        hand = table.hand
        if hand is not None:
            recorder._hand_events = list(hand.events)
            recorder._finished = hand.is_over
        return recorder

    def apply(self, event: Event) -> None:
        if isinstance(event, HandStarted):
            self.flush()
            hand = self.table.start_hand()
            if hand.started != event:
                raise ReplayMismatchError(
                    f"hand {event.hand_number} in the log does not match the table "
                    f"(log: {event!r}; table: {hand.started!r})")
            self._hand_events = [event]
            self._finished = False
        elif isinstance(event, PlayerEliminated):
            self.flush()
            expected = self._eliminated.pop(0) if self._eliminated else None
            if expected != event:
                raise ReplayMismatchError(f"elimination {event!r} in the log, the table "
                                          f"derived {expected!r}")
        elif isinstance(event, PlayerSeated):
            self.flush()
            if event.seat in self.table.names:
                self.table.update_player(event.seat, event.name, event.stack)
            else:
                self.table.seat_player(event.seat, event.name, event.stack)
        elif isinstance(event, SeatEmptied):
            self.flush()
            self.table.remove_player(event.seat)
        elif isinstance(event, ButtonSet):
            self.flush()
            self.table.set_button(event.seat)
        elif isinstance(event, LevelStarted):
            self.table.set_level(event.number)
        elif isinstance(event, AbsenceSet):
            self.table.set_absent(event.seat, event.absent)
        elif isinstance(event, ClockCalled | ClockStopped):
            pass  # the clock is timing, kept by the service; the hand records the expiry
        elif isinstance(event, StackCorrected):
            self.flush()
            previous = self.table.stacks.get(event.seat)
            if previous != event.previous:
                raise ReplayMismatchError(f"{event!r} in the log, but seat {event.seat} has "
                                          f"{previous} chips at that point")
            self.table.correct_stack(event.seat, event.stack, event.reason)
        elif isinstance(event, PlayerDisqualified):
            self.flush()
            if event.seat in self.table.names:  # else he was no longer at this table
                self.table.disqualify(event.seat, event.reason)
        elif isinstance(event, NOT_TABLE_EVENTS):
            pass
        elif self._hand_events:
            self._hand_events.append(event)
        else:
            raise ReplayMismatchError(f"{event.kind} outside a hand")

    def flush(self) -> None:
        """Bring the table's current hand up to the events applied so far."""
        if not self._hand_events:
            return
        self.table.hand = Hand.replay(self._hand_events)
        if not self._finished and self.table.hand.is_over:
            self._finished = True
            self._eliminated.extend(self.table.finish_hand())


def replay_table(table: Table, events: Iterable[Event]) -> Table:
    """Apply ``events`` (a table's log, in order) to ``table`` and return it."""
    recorder = TableRecorder(table)
    for event in events:
        recorder.apply(event)
    recorder.flush()
    return table
