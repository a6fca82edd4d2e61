"""A simulated festival on a real PostgreSQL: the tournament director's service and three
tables' services (each its own log, in its own schema, one writer), every hand asked of the
director before it is dealt, played by an automatic dealer at each table, the tables taking
turns a command each (the same play every run), down to the final table and to one winner:
the seat draw, balancing and breaking, hand-for-hand from eleven players (R24: a table that
finished waits for the others), the final table at ten (R23), chips conserved
festival-wide, every hand recorded once."""

from __future__ import annotations

import random
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient

from engine.cards import FULL_DECK
from engine.festival import FINAL_NAME
from engine.festival_events import FestivalHandDealt, FestivalHandFinished, replay_festival
from overlay.app import create_app
from overlay.config import parse_config
from overlay.festival.app import create_festival_app
from overlay.festival.settings import FESTIVAL_SCHEMA, parse_festival
from overlay.keys import TABLE_KEY, TOKENS_KEY
from overlay.store import open_store, with_schema
from tests.pg import PostgresServer

TOKEN = "festival-token-for-tests-0123456789"
TABLES = ("table-1", "table-2", "table-3")
PLAYERS = [f"Player {n:02d}" for n in range(1, 25)]
STACK = 10_000
MAX_TURNS = 20_000


def festival_settings(url: str) -> Any:
    return parse_festival({
        "festival": {"name": "Test Festival", "tables": list(TABLES), "players": PLAYERS,
                     "stack": STACK, "seats_per_table": 9, "seed": 7, "token": TOKEN,
                     "prizes": [5000, 3000, 2000]},
        "database": {"url": url}})


def table_config(tmp: Path, key: str, url: str, director: str) -> Any:
    return parse_config({
        "table": {"name": key.replace("-", " ").title(), "seats": 10},
        "delay": {"seconds": 60},
        "database": {"url": url, "schema": key.replace("-", "_")},
        "festival": {"url": director, "table": key, "token": TOKEN},
        "data_dir": str(tmp / key),
    })


class Dealer:
    """One table's automatic dealer, one command a turn: asks for the next hand (a refusal
    with R24 is a turn spent waiting), deals the hole cards and the board, and plays: a shove
    now and then, called or folded to."""

    def __init__(self, client: TestClient, key: str, seed: int) -> None:
        self.client, self.key = client, key
        self.rng = random.Random(seed)
        self.deck: list[str] = []
        self.waits = 0
        """Refusals with R24: the table waited for the others (hand-for-hand)."""
        self.hands = 0
        self.broken = False
        self.done = False

    async def command(self, kind: str, **fields: Any) -> tuple[int, dict[str, Any]]:
        token = self.client.server.app[TOKENS_KEY].tokens.operator
        response = await self.client.post(
            "/api/commands", json={"id": str(uuid.uuid4()), "type": kind, **fields},
            headers={"Authorization": f"Bearer {token}"})
        return response.status, await response.json()

    async def step(self) -> None:
        """One command of this table's."""
        hand = self.client.server.app[TABLE_KEY].table.hand
        if hand is None or hand.is_over:
            await self.next_hand()
            return
        waiting = [seat for seat in hand.seats if hand.hole_cards(seat) is None]
        if waiting:
            status, answer = await self.command(
                "deal_cards", seat=waiting[0], cards=[self.deck.pop(), self.deck.pop()])
        elif (legal := hand.legal_actions()) is not None:
            roll = self.rng.random()
            if legal.max_raise_to is not None and roll < 0.2:
                kind = "all_in"
            elif legal.call_amount:
                kind = "call" if roll < 0.6 else "fold"
            else:
                kind = "check"
            status, answer = await self.command(kind, seat=legal.seat)
        else:
            count = 3 if not hand.board else 1
            status, answer = await self.command(
                "deal_board", cards=[self.deck.pop() for _ in range(count)])
        assert status == 200, answer

    async def next_hand(self) -> None:
        status, answer = await self.command("next_hand")
        if status == 409 and answer["error"].get("rule") == "R24":
            self.waits += 1  # hand-for-hand: the others first
            return
        if status == 409 and "fewer than two players" in answer["error"]["message"]:
            self.done = True  # the winner alone: the festival is over
            return
        assert status == 200, answer
        hand = self.client.server.app[TABLE_KEY].table.hand
        if hand is None or hand.is_over:  # no hand: this table was broken
            self.broken = True
            self.done = self.key != TABLES[0]  # that one plays the final table once formed
            return
        self.hands += 1
        self.deck = [card.code for card in FULL_DECK]
        self.rng.shuffle(self.deck)


async def test_a_festival_is_played_down_to_its_final_table_and_a_winner(
        aiohttp_client: Any, tmp_path: Path, pg_server: PostgresServer) -> None:
    url = pg_server.create_database()
    director = await aiohttp_client(create_festival_app(festival_settings(url),
                                                        tmp_path / "director"))
    base = str(director.make_url("")).rstrip("/")
    tables = {key: await aiohttp_client(create_app(table_config(tmp_path, key, url, base)))
              for key in TABLES}
    dealers = [Dealer(client, key, seed) for seed, (key, client) in enumerate(tables.items())]
    for _ in range(MAX_TURNS):  # the tables in turn, a command each: the same play each run
        live = [dealer for dealer in dealers if not dealer.done]
        if not live:
            break
        for dealer in live:
            await dealer.step()
    assert all(dealer.done for dealer in dealers), "the festival did not end"

    state = await (await director.get("/api/festival")).json()
    # One winner, who holds every chip; every other player out, each once.
    assert state["remaining"] == 1
    assert state["chips"] == len(PLAYERS) * STACK
    busted = [bust["player"] for bust in state["busts"]]
    assert len(busted) == len(set(busted)) == len(PLAYERS) - 1
    assert [table["name"] for table in state["tables"]] == [FINAL_NAME]
    assert sum(dealer.waits for dealer in dealers) > 0  # hand-for-hand made tables wait

    # The festival's log: every table hand dealt once and finished once, in order.
    log = open_store(with_schema(url, FESTIVAL_SCHEMA))
    events = [entry.payload for entry in log.iter_all()]
    log.close()
    dealt = Counter((e.table, e.table_hand) for e in events
                    if isinstance(e, FestivalHandDealt))
    assert set(dealt.values()) == {1}
    finished = [(e.table, e.table_hand) for e in events if isinstance(e, FestivalHandFinished)]
    assert len(finished) == len(set(finished))
    # Hand-for-hand rounds: one festival hand id dealt at several tables at once.
    by_id = Counter(e.hand_id for e in events if isinstance(e, FestivalHandDealt))
    assert max(by_id.values()) >= 2
    # The final table was formed at ten players or fewer (R23), all at one table, and
    # played by the table configured for it.
    first = next(i for i, e in enumerate(events)
                 if isinstance(e, FestivalHandDealt) and e.seated == FINAL_NAME)
    formed = replay_festival(events[:first])
    assert formed is not None and 2 <= formed.remaining <= 10
    assert [table.name for table in formed.tables] == [FINAL_NAME]
    assert events[first].table == TABLES[0]  # type: ignore[attr-defined]
    # Each table's own log agrees: every chip a table's players hold now is the festival's.
    winner_table = tables[TABLES[0]].server.app[TABLE_KEY].table
    assert sum(winner_table.stacks.values()) == len(PLAYERS) * STACK
    broken = [dealer.key for dealer in dealers if dealer.broken]
    assert set(broken) >= {"table-2", "table-3"}
    for key in ("table-2", "table-3"):
        assert tables[key].server.app[TABLE_KEY].table.names == {}  # its players moved on
