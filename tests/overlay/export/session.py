"""A real table log for the export tests, written by the service's own code.

:func:`record_session` runs :class:`overlay.table_service.TableService` on a
:class:`overlay.hub.TableLog` over a SQLite :class:`overlay.store.EventStore` in a data
directory, and plays scripted hands through its commands, as the operator console does:
names with spaces, quotes and non-Latin letters, an undone raise, a misdeal (R13), hole cards
never read, an all-in with side pots (R16), a split pot (R17), a big-blind ante level (R4,
R21) and eliminations (R22). The clock is fake (each command a few seconds later), so times are
known.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

from engine.events import Street
from overlay.config import parse_config
from overlay.hub import TableLog
from overlay.store import open_store
from overlay.table_service import TableService

T0 = 1_796_036_000.0
"""The fake clock's start: 2026-11-30T10:53:20Z."""

PLAYERS: list[dict[str, Any]] = [
    {"seat": 1, "name": "Ann Smith", "stack": 20_000},
    {"seat": 3, "name": "Zoë Ørsted", "stack": 20_000},
    {"seat": 5, "name": "李雷", "stack": 6_000},
    {"seat": 8, "name": 'Bo "The Wall" O\'Brien', "stack": 3_000},
    {"seat": 9, "name": "Émile Tremblay-Côté", "stack": 30_000},
]
TABLE_NAME = "Main Event Final Table"


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


class Session:
    """Drives the service one command at a time; the actor is the engine's."""

    def __init__(self, service: TableService, clock: Clock) -> None:
        self.service = service
        self.clock = clock

    async def send(self, kind: str, **fields: Any) -> None:
        self.clock.now += 2.5
        await self.service.execute({"id": uuid.uuid4().hex, "type": kind, **fields})

    @property
    def actor(self) -> int:
        hand = self.service.hand
        assert hand is not None and hand.actor_seat is not None, "nobody is to act"
        return hand.actor_seat

    async def deal(self, cards: dict[int, str]) -> None:
        """Start the next hand and deal hole cards (``"AhKh"``; a seat not given: unread)."""
        await self.send("next_hand")
        hand = self.service.hand
        assert hand is not None
        for seat in hand.seats:
            text = cards.get(seat)
            hole = [text[:2], text[2:]] if text else [None, None]
            await self.send("deal_cards", seat=seat, cards=hole)

    async def act(self, *steps: str) -> None:
        """Steps: ``fold``, ``check``, ``call``, ``all_in``, ``raise_to N``, ``undo``,
        ``board CARDS``, ``show SEAT [CARDS]``, ``muck SEAT``."""
        for step in steps:
            words = step.split()
            verb = words[0]
            if verb == "raise_to":
                await self.send("raise_to", seat=self.actor, amount=int(words[1]))
            elif verb in ("fold", "check", "call", "all_in"):
                await self.send(verb, seat=self.actor)
            elif verb == "undo":
                await self.send("undo")
            elif verb == "board":
                await self.send("deal_board", cards=[words[1][k:k + 2]
                                                     for k in range(0, len(words[1]), 2)])
            elif verb == "show":
                cards = ([words[2][:2], words[2][2:]] if len(words) > 2 else None)
                await self.send("show_hand", seat=int(words[1]),
                                **({"cards": cards} if cards else {}))
            elif verb == "muck":
                await self.send("muck_hand", seat=int(words[1]))
            elif verb == "misdeal":
                await self.send("misdeal")
            else:
                raise AssertionError(f"unknown step {step!r}")

    async def check_down(self, *boards: str) -> None:
        """Check every betting round to the end, dealing ``boards`` (flop, turn, river)."""
        for board in ("", *boards):
            if board:
                await self.act(f"board {board}")
            while (hand := self.service.hand) is not None and hand.actor_seat is not None:
                legal = hand.legal_actions()
                assert legal is not None
                await self.act("check" if legal.can_check else "call")

    def street(self) -> Street:
        hand = self.service.hand
        assert hand is not None
        return hand.street


async def _play(data_dir: Path) -> None:
    config = parse_config({
        "table": {"name": TABLE_NAME, "seats": 9, "button": 1, "chip_unit": 25,
                  "levels": [[100, 200], [200, 400, 400]], "ante_mode": "big_blind"},
        "players": PLAYERS,
        "data_dir": str(data_dir),
    })
    clock = Clock()
    store = open_store(data_dir=data_dir)
    table_log = TableLog(store, clock=clock)
    service = TableService(config, table_log, clock=clock)
    await service.start()
    s = Session(service, clock)
    try:
        # Hand 1: button 1, SB 3, BB 5; first to act 8. A raise is taken back (undo) and
        # made again smaller; Ann wins without a showdown.
        await s.deal({1: "AhKh", 3: "7c2d", 5: "9s9d", 8: "Qc4h", 9: "JdTd"})
        await s.act("fold", "raise_to 700", "undo", "raise_to 600", "call", "fold", "fold")
        await s.act("board 2h7hKd", "check", "raise_to 800", "fold")
        # Hand 2: a misdeal (R13) voids it: nothing to export.
        await s.deal({1: "2c3c", 3: "4c5c", 5: "6c7c", 8: "8c9c", 9: "TcJc"})
        await s.act("misdeal")
        # Hand 3: button 3, SB 5, BB 8 (hand 2 was void, R13). Seat 5's cards are never
        # read; four players check it down and seat 5 shows his cards by hand.
        await s.deal({1: "QsQd", 3: "8d8h", 8: "AcJs", 9: "6s5s"})
        await s.act("fold")  # seat 9
        await s.check_down("3c4d9h", "Ts", "2s")
        hand = service.hand
        assert hand is not None and hand.street is Street.SHOWDOWN
        await s.act("show 5 KcKs")
        # Level 2 (200/400, big-blind ante 400) from the next hand on (R21).
        await s.send("set_level", level=2)
        # Hand 4: button 5, SB 8, BB 9. All-ins with side pots (R16): Bo, the shortest, wins
        # the main pot, Ann the side pots; Zoë and 李雷 bust (R22).
        await s.deal({1: "KdKs", 3: "QhQc", 5: "JhJc", 8: "AsAd", 9: "5d5c"})
        await s.act("raise_to 5000", "all_in", "all_in", "call", "call", "call")
        await s.check_down("2c3d4s", "9c", "8s")
        # Hand 5: a split pot (R17): the board plays, a royal flush.
        await s.deal({1: "2d3h", 8: "4h6d", 9: "7d2h"})
        await s.check_down("AcKcQc", "Jc", "Tc")
    finally:
        service.close()
        await table_log.close()


def record_session(data_dir: Path) -> Path:
    """Play the scripted session into ``data_dir`` (``feltcast.db``); returns ``data_dir``."""
    asyncio.run(_play(data_dir))
    return data_dir
