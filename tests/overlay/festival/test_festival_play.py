"""A simulated festival on a real PostgreSQL: the tournament director's service and three
tables' services (each its own log, in its own schema, one writer), every hand asked of the
director before it is dealt, played by an automatic dealer at each table, the tables taking
turns a command each (the same play every run), down to the final table and to one winner:
the seat draw, balancing and breaking, hand-for-hand from eleven players (R24: a table that
finished waits for the others), the final table at ten (R23), chips conserved
festival-wide, every hand recorded once. The director publishes its standings on a real
Redis and a web worker relays them beside each table's channels: the places and prizes
reach the worker's viewers, each place released on a channel no earlier than the bust it
ranks is released on that channel at its table, and none for a channel delayed longer."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient

from engine.events import PlayerEliminated
from engine.festival import FINAL_NAME
from engine.festival_events import FestivalHandDealt, FestivalHandFinished, replay_festival
from overlay.app import create_app
from overlay.config import parse_config
from overlay.demo.festival import FestivalDealer, play_festival
from overlay.fanout.worker import WorkerSettings, create_worker_app
from overlay.festival.app import create_festival_app
from overlay.festival.settings import FESTIVAL_SCHEMA, parse_festival
from overlay.keys import LOG_KEY, PUBLISHER_KEY, TABLE_KEY, TOKENS_KEY
from overlay.store import open_store, with_schema
from tests.overlay.fanout.test_relay import Spy, Viewer, until, ws_url
from tests.pg import PostgresServer
from tests.redis_server import RedisServer

TOKEN = "festival-token-for-tests-0123456789"
TABLES = ("table-1", "table-2", "table-3")
PLAYERS = [f"Player {n:02d}" for n in range(1, 25)]
STACK = 10_000


STANDINGS_DELAY = 30.0
"""The festival's delayed standings' delay: shorter than the tables' (60 s), so that the
worker finds no standings for their delayed channel."""


def festival_settings(url: str, redis: str = "") -> Any:
    return parse_festival({
        "festival": {"name": "Test Festival", "tables": list(TABLES), "players": PLAYERS,
                     "stack": STACK, "seats_per_table": 9, "seed": 7, "token": TOKEN,
                     "prizes": [5000, 3000, 2000]},
        "database": {"url": url},
        **({"fanout": {"url": redis, "delay": STANDINGS_DELAY}} if redis else {})})


def table_config(tmp: Path, key: str, url: str, director: str, redis: str = "") -> Any:
    return parse_config({
        "table": {"name": key.replace("-", " ").title(), "seats": 10},
        "delay": {"seconds": 60},
        "database": {"url": url, "schema": key.replace("-", "_")},
        "festival": {"url": director, "table": key, "token": TOKEN},
        "data_dir": str(tmp / key),
        **({"fanout": {"url": redis, "table": key}} if redis else {}),
    })


class Watch(Viewer):
    """A worker's viewer of the festival's standings that notes when each player's place
    came: the log time of the director's event that released it."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.places: dict[str, float] = {}
        self.channels: set[str] = set()

    async def _take(self, text: str) -> None:
        await super()._take(text)
        data = json.loads(text)
        self.channels.add(data.get("channel", ""))
        events = data.get("events", [])
        for player in ((self.view or {}).get("festival") or {}).get("finishes", {}):
            if player not in self.places:
                # A snapshot (the first) has no event: a place there came before any bust.
                self.places[player] = events[0]["time"] if events else -1.0


def bust_times(tables: dict[str, TestClient]) -> dict[str, float]:
    """Each player's bust, as the tables logged it: its log time (each table's channel
    releases it that long after as its own delay says)."""
    return {entry.payload.name: entry.time for client in tables.values()
            for entry in client.server.app[LOG_KEY].store.iter_all()
            if isinstance(entry.payload, PlayerEliminated)}


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
    with RedisServer() as redis:
        await play_and_check(aiohttp_client, tmp_path, url, redis.url)


async def play_and_check(aiohttp_client: Any, tmp_path: Path, url: str, redis: str) -> None:
    spy = await Spy(redis).start()
    director = await aiohttp_client(create_festival_app(festival_settings(url, redis),
                                                        tmp_path / "director"))
    base = str(director.make_url("")).rstrip("/")
    tables = {key: await aiohttp_client(create_app(table_config(tmp_path, key, url, base,
                                                                redis)))
              for key in TABLES}
    worker = await aiohttp_client(create_worker_app(WorkerSettings(redis)))
    publishers = [client.server.app[PUBLISHER_KEY] for client in (director, *tables.values())]
    await until(lambda: all(p.published >= 2 for p in publishers), "every channel on Redis")
    # The worker pairs each tables' channel with the festival's standings released no
    # earlier: none for their delayed channel (60 s; the standings' is 30 s), none for a
    # channel no table publishes, and none directly.
    for path in ("/festival/ws/delayed", "/festival/api/state?channel=delayed",
                 "/festival/ws/nowhere", "/t/festival/ws/venue"):
        response = await worker.get(path)
        assert response.status == 404, path
    page = await (await worker.get("/t/table-1/leaderboard?channel=delayed")).text()
    assert '<html data-standings="venue" ' in page  # its pages on delayed: their own view
    watches = {"venue": Watch(ws_url(worker, "/festival/ws/venue")).start()}
    for watch in watches.values():
        await watch.reached(0)
    dealers = [dealer(client, key, seed) for seed, (key, client) in enumerate(tables.items())]
    await play_festival(dealers)  # the tables in turn, a command each: the same play each run
    assert all(each.done for each in dealers)

    state = await (await director.get("/api/festival")).json()
    busts = bust_times(tables)
    assert len(busts) == len(PLAYERS) - 1
    # The worker's viewers get the festival's places and prizes, the director's own.
    for channel, watch in watches.items():
        assert watch.channels == {channel}  # the standings released as the channel is
        await until(lambda w=watch: len(w.places) == len(PLAYERS), f"{channel}'s places")
        assert watch.view is not None
        standings = watch.view["festival"]
        assert standings["finishes"] == {f["player"]: {k: v for k, v in f.items()
                                                       if k != "player"}
                                         for f in state["finishes"]}
        assert standings["payouts"] == {str(p["place"]): {"prize": p["prize"],
                                                          "player": p["player"]}
                                        for p in state["payouts"]}
        assert standings["remaining"] == 1 and standings["entrants"] == len(PLAYERS)
        # Never a place before the bust it ranks: both released at their log time (the
        # venue channels are live), the place's (the director recorded the table's hand)
        # after the bust's (the table logged it first).
        early = {name: (at, busts.get(name)) for name, at in watch.places.items()
                 if name != state["finishes"][0]["player"]
                 and (name not in busts or at < busts[name])}
        assert early == {}
    await spy.stop()
    # No standings left the director's process before their time on the delayed channel.
    published = [(at, json.loads(text)) for at, name, text in spy.seen
                 if name == "feltcast:t:festival:delayed"]
    assert published
    assert [data for at, data in published if data["type"] == "patch"
            and at < data["events"][0]["time"] + STANDINGS_DELAY] == []
    for watch in watches.values():
        assert watch.errors == []
        await watch.stop()
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
