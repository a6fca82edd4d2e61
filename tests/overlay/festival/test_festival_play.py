"""A simulated festival on a real PostgreSQL: the tournament director's service and three
tables' services (each its own log, in its own schema, one writer), every hand asked of the
director before it is dealt, played by an automatic dealer at each table, the tables taking
turns a command each (the same play every run), down to the final table and to one winner:
the seat draw, balancing and breaking, hand-for-hand from eleven players (R24: a table that
finished waits for the others), the final table at ten (R23), chips conserved
festival-wide, every hand recorded once."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient

from engine.festival import FINAL_NAME
from engine.festival_events import FestivalHandDealt, FestivalHandFinished, replay_festival
from overlay.app import create_app
from overlay.config import parse_config
from overlay.demo.festival import FestivalDealer, play_festival
from overlay.festival.app import create_festival_app
from overlay.festival.settings import FESTIVAL_SCHEMA, parse_festival
from overlay.keys import TABLE_KEY, TOKENS_KEY
from overlay.store import open_store, with_schema
from tests.pg import PostgresServer

TOKEN = "festival-token-for-tests-0123456789"
TABLES = ("table-1", "table-2", "table-3")
PLAYERS = [f"Player {n:02d}" for n in range(1, 25)]
STACK = 10_000


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


def dealer(client: TestClient, key: str, seed: int) -> FestivalDealer:
    """The demo's automatic dealer at a table's service, commands through its HTTP API."""
    token = client.server.app[TOKENS_KEY].tokens.operator

    async def post(path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        response = await client.post(path, json=body,
                                     headers={"Authorization": f"Bearer {token}"})
        return response.status, await response.json()
    return FestivalDealer(client.server.app, post, key, random.Random(seed),
                          plays_final=key == TABLES[0])


async def test_a_festival_is_played_down_to_its_final_table_and_a_winner(
        aiohttp_client: Any, tmp_path: Path, pg_server: PostgresServer) -> None:
    url = pg_server.create_database()
    director = await aiohttp_client(create_festival_app(festival_settings(url),
                                                        tmp_path / "director"))
    base = str(director.make_url("")).rstrip("/")
    tables = {key: await aiohttp_client(create_app(table_config(tmp_path, key, url, base)))
              for key in TABLES}
    dealers = [dealer(client, key, seed) for seed, (key, client) in enumerate(tables.items())]
    await play_festival(dealers)  # the tables in turn, a command each: the same play each run
    assert all(each.done for each in dealers)

    state = await (await director.get("/api/festival")).json()
    # One winner, who holds every chip; every other player out, each once.
    assert state["remaining"] == 1
    assert state["chips"] == len(PLAYERS) * STACK
    busted = [bust["player"] for bust in state["busts"]]
    assert len(busted) == len(set(busted)) == len(PLAYERS) - 1
    assert [table["name"] for table in state["tables"]] == [FINAL_NAME]
    assert sum(each.waits for each in dealers) > 0  # hand-for-hand made tables wait

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
    broken = [each.key for each in dealers if each.broken]
    assert set(broken) >= {"table-2", "table-3"}
    for key in ("table-2", "table-3"):
        assert tables[key].server.app[TABLE_KEY].table.names == {}  # its players moved on
    # The director's moves: balancing and breaking at three tables, then the final table.
    reasons = Counter(move["reason"] for move in state["moves"])
    assert reasons["final table"] == formed.remaining and reasons["break"] > 0
    # Its places: one winner, the prizes paid to the first three.
    assert [f["place"] for f in state["finishes"]][:1] == [1]
    assert [p["prize"] for p in state["payouts"]] == [5000, 3000, 2000]
    assert all(p["player"] for p in state["payouts"])
    # A restart of the director's service stands exactly where it stood (its log replayed,
    # the final table's hands included).
    await director.close()
    restarted = await aiohttp_client(create_festival_app(festival_settings(url),
                                                         tmp_path / "director"))
    assert await (await restarted.get("/api/festival")).json() == state
