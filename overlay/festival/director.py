"""The tournament director's service: the festival kept as a log, asked by the tables.

:class:`Director` replays the festival's log (:func:`engine.festival_events.replay_festival`;
an empty log gets the seat draw of the settings) and answers :meth:`Director.next_hand`
under one lock: the table's finished hand is recorded (once: by the table's own hand
number), then its next hand dealt if the festival allows it, each an event of the log
persisted before the answer. A refused deal (R24: hand-for-hand, the table waits for the
others) is an :class:`engine.errors.IllegalActionError` that names the rule and the tables
waited for; its finished hand stays recorded. The answer, stored with the command's id,
seats the table: every player with his seat and stack (moved players included), and, at a
table's first hand (and the final table's), the button the draw placed.

The director's orders (:meth:`Director.order`: a move, a break, hand-for-hand switched) are
events of the same log, with the command's id: refused with the festival's reason (nothing
logged), or recorded and answered with the moves made at once; a move or break that waits
for its table's hand is carried out when that table reports it, and its players are seated
by the tables' next answers like the rules' own moves.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from engine.errors import IllegalActionError
from engine.events import Event
from engine.festival import FINAL_NAME, Festival, Move
from engine.festival_events import (
    FestivalDrawn,
    FestivalHandDealt,
    FestivalHandFinished,
    apply_order,
    replay_festival,
)
from overlay.festival.channels import places_view
from overlay.festival.settings import FestivalSettings, seating
from overlay.hub import TableLog
from overlay.store import Acknowledgement

__all__ = ["MOVES_SHOWN", "Director"]

MOVES_SHOWN = 50
"""The newest moves the festival's state lists (the director's page)."""


class Director:
    """The festival and its log (see the module docstring)."""

    def __init__(self, settings: FestivalSettings, log: TableLog) -> None:
        self.settings = settings
        self.log = log
        self.festival: Festival | None = None
        self.finished: dict[str, int] = {}
        """Each table's last finished hand (its own count), as recorded."""
        self.dealt: dict[str, int] = {}
        self.seated: dict[str, str] = {}
        """The festival table each table's service played its last hand as."""
        self.moves: list[dict[str, Any]] = []
        """Every move the festival made (balancing, a break, the final table), oldest first:
        what the director's page lists."""
        self._lock = asyncio.Lock()

    async def start(self) -> None:
        """The festival as its log has it; an empty log gets the seat draw."""
        events = [entry.payload for entry in self.log.store.iter_all()]
        for event in events:
            self._note(event)
        self.festival = replay_festival(events, on_moves=self._moved)  # type: ignore[arg-type]
        if self.festival is None:
            s = self.settings
            drawn = FestivalDrawn(s.players, s.tables, s.stack, s.seats_per_table, s.seed,
                                  s.prizes)
            self.festival = drawn.festival()  # refused before anything is logged
            await self.log.append([drawn], source="director")

    def _note(self, event: Any) -> None:
        if isinstance(event, FestivalHandFinished):
            self.finished[event.table] = event.table_hand
        elif isinstance(event, FestivalHandDealt):
            self.dealt[event.table] = event.table_hand
            self.seated[event.table] = event.seated

    def table_name(self, key: str) -> str | None:
        """The festival's name of the table a service plays as ``key`` (the final table is
        played by the configured one); None for a table that was broken.

        :raises IllegalActionError: a table the festival never had."""
        festival = self._festival()
        names = {table.name for table in festival.tables}
        if key in names:
            return key
        if key == self.settings.final_table and FINAL_NAME in names:
            return FINAL_NAME
        if key in self.settings.tables:
            return None
        raise IllegalActionError(f"there is no table {key!r} in the festival")

    def _festival(self) -> Festival:
        if self.festival is None:
            raise IllegalActionError("the festival has not started")
        return self.festival

    async def next_hand(self, command_id: str, key: str, table_hand: int,
                        stacks: Mapping[str, int] | None) -> dict[str, Any]:
        """Table ``key`` asks to deal its hand ``table_hand``; ``stacks`` are its players'
        chips after the hand before it (None for its first). The answer (also to a retry
        of ``command_id``): ``{"ok", "hand_id", "table", "seats": [[seat, player, stack]],
        "button", "hand_for_hand"}``.

        :raises IllegalActionError: not now (R24), or a report the festival refuses.
        """
        async with self._lock:
            stored = await self.log.answer(command_id)
            if stored is not None:
                return stored
            festival = self._festival()
            name = self.table_name(key)
            if name is not None and festival.table(name).playing:
                if stacks is None or self.dealt.get(key) != table_hand - 1:
                    raise IllegalActionError(
                        f"{key} is playing festival hand {festival.table(name).hand_id}: "
                        f"report its stacks with its next hand ({self.dealt.get(key)} + 1)")
                # Its hand is over: record it (players missing from the report busted).
                table = festival.table(name)
                report = {player: int(stacks.get(player, 0))
                          for player, _ in table.start_stacks}  # who was dealt in
                finished = FestivalHandFinished(key, table_hand - 1, tuple(report.items()),
                                                name)
                festival, moves = festival.finish(name, report)
                await self._append([finished])
                self._moved(finished, moves)
                self.festival = festival
                name = self.table_name(key)  # broken, or the final table formed
            if name is None:  # its players play elsewhere now (nothing logged: asked
                # again, the answer may have changed: the final table may be its to play)
                return {"ok": True, "id": command_id, "broken": True, "table": key,
                        "seats": [], "tables": [t.name for t in festival.tables],
                        "remaining": festival.remaining}
            festival, hand_id = festival.deal(name)  # R24 may refuse: nothing more logged
            dealt = FestivalHandDealt(key, table_hand, hand_id, name)
            started = festival.table(name)
            answer = {"ok": True, "id": command_id, "hand_id": hand_id, "table": name,
                      "seats": seating(started, dict(festival.stacks)),
                      "hand_for_hand": festival.hand_for_hand,
                      "remaining": festival.remaining}
            if self.seated.get(key) != name:  # a new table drawn: its button too (R1)
                answer["button"] = started.button
            await self._append([dealt], Acknowledgement(command_id, answer))
            self.festival = festival
            return answer

    async def order(self, command_id: str, event: Event) -> dict[str, Any]:
        """One of the director's orders (:data:`engine.festival_events.ORDERS`), with the
        command's id (a retry gets the first answer). The answer: ``{"ok", "id", "moves",
        "orders", "hand_for_hand"}``: the moves made at once (none while the table plays
        its hand: the order waits in ``orders``).

        :raises IllegalActionError: the festival refuses it (nothing is logged).
        """
        async with self._lock:
            stored = await self.log.answer(command_id)
            if stored is not None:
                return stored
            festival, moves = apply_order(self._festival(), event)
            answer = {"ok": True, "id": command_id, "moves": [_move(m) for m in moves],
                      "orders": _orders(festival),
                      "hand_for_hand": festival.hand_for_hand}
            await self._append([event], Acknowledgement(command_id, answer))
            self.festival = festival
            self._moved(event, moves)
            return answer

    def _moved(self, event: Event, moves: tuple[Move, ...]) -> None:
        after = (f"{event.table} hand {event.table_hand}"
                 if isinstance(event, FestivalHandFinished) else "the director's order")
        self.moves.extend({**_move(move), "after": after} for move in moves)

    async def _append(self, events: list[Event],
                      acknowledgement: Acknowledgement | None = None) -> None:
        await self.log.append(events, source="director",
                              acknowledge=None if acknowledgement is None
                              else (lambda _seq: acknowledgement))
        for event in events:
            self._note(event)

    def state(self) -> dict[str, Any]:
        """The festival as the pages show it: tables, seats and stacks, standings."""
        festival = self._festival()
        stacks = dict(festival.stacks)
        standings = festival.standings
        return {
            "name": self.settings.name,
            "remaining": festival.remaining,
            "hand_for_hand": festival.hand_for_hand,
            "round": festival.round_id,
            "tables": [{"name": table.name, "playing": table.playing,
                        "hand_id": table.hand_id, "button": table.button,
                        "seats": seating(table, stacks)} for table in festival.tables],
            "busts": [{"player": bust.name, "hand_id": bust.hand_number,
                       "start_stack": bust.start_stack} for bust in standings.busts],
            **places_view(festival),
            "moves": self.moves[-MOVES_SHOWN:][::-1],
            "orders": _orders(festival),
            "lapsed": [{"order": lapse.order.describe(), "reason": lapse.reason}
                       for lapse in festival.lapsed[-MOVES_SHOWN:][::-1]],
            "hand_for_hand_ordered": festival.ordered_hand_for_hand,
            "chips": sum(stacks.values()),
        }


def _move(move: Move) -> dict[str, Any]:
    return {"player": move.player, "from_table": move.from_table,
            "from_seat": move.from_seat, "to_table": move.to_table, "to_seat": move.to_seat,
            "reason": move.reason}


def _orders(festival: Festival) -> list[dict[str, Any]]:
    """The director's orders waiting for their tables' hands, as the pages list them."""
    return [{"order": order.describe(), "player": order.player, "to_table": order.to_table,
             "to_seat": order.to_seat, "break_table": order.break_table}
            for order in festival.orders]
