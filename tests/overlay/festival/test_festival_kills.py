"""A whole festival through its failures (issue 24's proof): a real PostgreSQL and a real
Redis on loopback, the tournament director's service, three tables each a ``feltcast serve``
process of its own (publishing to Redis, a ``--standby`` beside the first) and two
``feltcast worker`` processes with viewers of every table's ``delayed`` channel on each.
The demo's automatic dealers (:class:`overlay.demo.festival.FestivalDealer`) play it down to
its final table and a winner through hand-for-hand, over each table's HTTP API as a console
does (a command refused with 503 or lost with its connection is sent again with its id). In
the middle of hands: Redis is killed with ``kill -9`` and started again once a table's
operator sees it gone; the first table's writer is killed with ``kill -9`` and its standby
takes over; a worker is killed with ``kill -9`` and started again (the test is the
supervisor a systemd unit would be); PostgreSQL is restarted (every session cut) while
hand-for-hand is on. Then: a winner; every table's log whole (every hand once, its hash
chain verified) and the festival's log agreeing with it hand for hand; chips conserved at
every finished hand; the places complete and ranked as R22 says, paid as configured (R23);
every viewer through the workers with no gap and nothing before its delay."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import aiohttp

from engine.channels import ChannelFilter, ChannelSpec, ChannelView
from engine.events import HandEnded, HandStarted
from engine.festival import FINAL_NAME
from engine.festival_events import FestivalHandDealt, FestivalHandFinished, replay_festival
from overlay.auth import SHARED_ROLES, rotate_tokens
from overlay.demo.festival import FestivalDealer
from overlay.demo.servers import find_binary, redis_installed
from overlay.festival.app import create_festival_app
from overlay.festival.settings import FESTIVAL_SCHEMA, parse_festival
from overlay.keys import DIRECTOR_KEY
from overlay.store import open_existing_store, open_store, with_schema
from tests.overlay.fanout.test_relay import (
    Viewer,
    spawn_worker,
    start_worker,
    without_nulls,
    worker_answers,
)
from tests.overlay.test_cli_start import Running
from tests.pg import PostgresServer, free_port
from tests.redis_server import RedisServer
from tests.system_packages import unless_installed

WAIT = 180.0  # generous: a busy machine only makes things slower
DELAY = 1.0
TOKEN = "festival-kills-token-0123456789"
TABLES = ("table-1", "table-2", "table-3")
PLAYERS = [f"Player {n:02d}" for n in range(1, 15)]
"""14 players at three tables of six: balancing, a table broken at twelve, hand-for-hand
from eleven (R24), the final table at ten (R23)."""
STACK = 10_000
PRIZES = [7000, 4200, 2800]
SEED = 3

pytestmark = [
    unless_installed(redis_installed(), "redis-server is not installed (Debian package "
                                        "redis-server)"),
    unless_installed(find_binary("pg_ctl") is not None, "PostgreSQL is not installed "
                                                         "(Debian package postgresql)"),
]


class ViewHand:
    """What a :class:`FestivalDealer` reads of a hand, from the table's ``operator`` view
    (``docs/view-model.md``): over or not, the seats still waiting for hole cards, the
    board, the decision pending."""

    def __init__(self, view: dict[str, Any]) -> None:
        operator = view["operator"]
        self.is_over = bool(operator["between_hands"])
        self.seats = [need["seat"] for need in operator["cards_needed"]
                      if need["target"] == "seat"]
        self.board = view["table"]["board"] or []
        self.legal = operator["legal"]

    def hole_cards(self, seat: int) -> None:
        return None  # self.seats lists only the seats waiting for theirs

    def legal_actions(self) -> Any:
        if self.legal is None:
            return None
        limits = self.legal["bet"] or self.legal["raise"]
        return SimpleNamespace(seat=self.legal["seat"], call_amount=self.legal["call"] or 0,
                               max_raise_to=limits["max"] if limits else None)


class Table:
    """One table: its configuration and data directory, its writer's process (and a
    standby's), where it answers, its operator token, its operator view as of the last
    command."""

    def __init__(self, root: Path, key: str, database: str, director: str,
                 redis: str) -> None:
        self.key, self.schema = key, key.replace("-", "_")
        self.data = root / key / "data"
        self.data.mkdir(parents=True)
        self.config = root / key / "feltcast.toml"
        self.config.write_text(f'''
[table]
name = "{key.replace("-", " ").title()}"
seats = 10

[delay]
seconds = {DELAY}

[database]
url = "{database}"
schema = "{self.schema}"

[festival]
url = "{director}"
table = "{key}"
token = "{TOKEN}"

[fanout]
url = "{redis}"
table = "{key}"
''')
        self.token = rotate_tokens(self.data, SHARED_ROLES).operator
        self.writer: Running | None = None
        self.standby: Running | None = None
        self.base = ""
        self.view: dict[str, Any] = {}
        self.ended: list[int] = []
        """The exit status of every writer that ended (the supervisor took note)."""

    def serve(self, *extra: str) -> Running:
        return Running(subprocess.Popen(
            [sys.executable, "-m", "overlay", "serve", "--config", str(self.config), "--data",
             str(self.data), "--port", "0", *extra], text=True, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"}))

    @staticmethod
    def serving(running: Running) -> str:
        """The address ``running`` serves on, once it does."""
        line = running.until(r"serving '", timeout=WAIT)
        return re.search(r"on (http://\S+) ", line).group(1)  # type: ignore[union-attr]

    async def supervise(self) -> int | None:
        """As a supervisor does when the writer's process ended (killed, or stopped by
        itself with status 3 once its standby took the lease while the database was away):
        the standby serves the table, and the ended writer is started again as a standby.
        The ended writer's exit status, None while it runs."""
        assert self.writer is not None and self.standby is not None
        status = self.writer.process.poll()
        if status is None:
            return None
        await asyncio.to_thread(self.standby.until, "took over this table's log", WAIT)
        base = await asyncio.to_thread(self.serving, self.standby)
        if self.writer.process.stdout is not None:
            self.writer.process.stdout.close()
        self.writer, self.base = self.standby, base
        self.standby = self.serve("--standby")
        await asyncio.to_thread(self.standby.until, "standing by", WAIT)
        self.ended.append(status)
        return status

    def end(self) -> None:
        for running in (self.writer, self.standby):
            if running is not None and running.process.poll() is None:
                running.process.kill()
                running.process.wait()
            if running is not None and running.process.stdout is not None:
                running.process.stdout.close()


class Console:
    """A table's console as the dealer uses it: a command sent again with its id while the
    answer is a 503 or the connection fails (the first answer comes back, nothing is applied
    twice), then the operator view read again."""

    def __init__(self, table: Table, session: aiohttp.ClientSession) -> None:
        self.table, self.session = table, session
        self.retried: list[tuple[str, int, str]] = []
        """(command, status, error code) of every answer that made it send again."""
        self.acknowledged = 0

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.table.token}"}

    async def post(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        deadline = time.monotonic() + WAIT
        while True:
            try:
                async with self.session.post(f"{self.table.base}{path}", json=body,
                                             headers=self.headers()) as response:
                    status, answer = response.status, await response.json()
            except (aiohttp.ClientError, OSError) as error:
                status, answer = 0, {"error": {"code": type(error).__name__}}
            if status not in (0, 503):
                break
            if status == 0 and self.table.standby is not None:
                await self.table.supervise()
            self.retried.append((body["type"], status, answer["error"].get("code", "")))
            assert time.monotonic() < deadline, f"{self.table.key}: {self.retried[-5:]}"
            await asyncio.sleep(0.05)
        if status == 200:
            self.acknowledged += 1
        await self.refresh()
        return status, answer

    async def refresh(self) -> None:
        self.table.view = (await self.state("operator"))["view"]

    async def state(self, channel: str) -> dict[str, Any]:
        """The channel's snapshot (view, revision, seq) from the table's service."""
        deadline = time.monotonic() + WAIT
        while True:
            try:
                async with self.session.get(f"{self.table.base}/api/state?channel={channel}",
                                            headers=self.headers()) as response:
                    text = await response.text()
                    if response.status == 200:
                        data: dict[str, Any] = json.loads(text)
                        return data
                    said = f"{response.status} {text[:300]}"
            except (aiohttp.ClientError, OSError) as error:
                said = repr(error)
            assert time.monotonic() < deadline, f"{self.table.key}: no {channel} state: {said}"
            await asyncio.sleep(0.05)


class RemoteDealer(FestivalDealer):
    """The demo's dealer at a table served by another process: the hand read from its
    operator view (:class:`ViewHand`), the commands through its :class:`Console`."""

    def __init__(self, console: Console, rng: random.Random) -> None:
        super().__init__(None, console.post, console.table.key, rng,
                         plays_final=console.table.key == TABLES[0])
        self.console = console

    def current_hand(self) -> ViewHand:
        return ViewHand(self.console.table.view)


class TimedViewer(Viewer):
    """A page's channel client that notes when each message arrived."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.received: list[tuple[float, dict[str, Any]]] = []

    async def reached(self, revision: int) -> None:
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(
                lambda: self.revision is not None and self.revision >= revision), WAIT)

    async def _take(self, text: str) -> None:
        self.received.append((time.time(), json.loads(text)))
        await super()._take(text)

    def early(self) -> list[Any]:
        """Every message that arrived before its delay had passed: a patch before its
        event's time + D, a snapshot before the time of the last event it holds + D."""
        out = []
        for at, data in self.received:
            if data["type"] == "patch":
                times = [event["time"] for event in data.get("events", [])]
            else:
                times = [(data["view"].get("channel") or {}).get("as_of") or 0.0]
            out += [(at, t, data["type"]) for t in times if at < t + DELAY]
        return out


def mid_hand(table: Table) -> bool:
    """A hand under way at ``table``: blinds posted, hole cards dealt, not over."""
    hand = ViewHand(table.view) if table.view else None
    return hand is not None and not hand.is_over and not hand.seats


def operator_picture(view: dict[str, Any]) -> dict[str, Any]:
    table = view["table"]
    return {"hand": table["hand_number"], "street": table["street"], "board": table["board"],
            "pots": table["pots"], "to_act": (view["operator"].get("legal") or {}).get("seat"),
            "seats": [(s["seat"], s.get("name"), s.get("stack"), s.get("bet"), s.get("cards"))
                      for s in view["seats"] if s.get("name")]}


async def test_a_festival_is_played_to_its_winner_through_kills_of_every_process(
        aiohttp_client: Any, tmp_path: Path) -> None:
    with PostgresServer() as pg, RedisServer() as redis:
        database = pg.create_database()
        settings = parse_festival({
            "festival": {"name": "Kill Festival", "tables": list(TABLES), "players": PLAYERS,
                         "stack": STACK, "seats_per_table": 6, "seed": SEED, "token": TOKEN,
                         "prizes": PRIZES},
            "database": {"url": database}})
        director = await aiohttp_client(create_festival_app(settings, tmp_path / "director"))
        director_url = str(director.make_url("")).rstrip("/")
        tables = {key: Table(tmp_path, key, database, director_url, redis.url)
                  for key in TABLES}
        workers: dict[int, Any] = {}
        viewers: dict[tuple[int, str], TimedViewer] = {}
        async with aiohttp.ClientSession() as session:
            try:
                for table in tables.values():
                    table.writer = table.serve()
                for n in range(2):
                    port = free_port()
                    workers[port] = spawn_worker(redis.url, port, tmp_path / f"worker-{n}.log")
                for table in tables.values():
                    assert table.writer is not None
                    table.base = await asyncio.to_thread(table.serving, table.writer)
                first = tables[TABLES[0]]
                first.standby = first.serve("--standby")  # once the writer holds the lease
                for n, process in enumerate(workers.values()):
                    await asyncio.to_thread(worker_answers, process, tmp_path / f"worker-{n}.log")
                await asyncio.to_thread(first.standby.until, "standing by", WAIT)
                consoles = {key: Console(table, session) for key, table in tables.items()}
                for console in consoles.values():
                    await console.refresh()
                await published(session, next(iter(workers)))
                for port in workers:
                    for key in TABLES:
                        viewers[port, key] = TimedViewer(
                            f"ws://127.0.0.1:{port}/t/{key}/ws/delayed")
                        viewers[port, key].start()
                for viewer in viewers.values():
                    await viewer.reached(0)
                rng = random.Random(SEED)
                dealers = [RemoteDealer(consoles[key], random.Random(rng.random()))
                           for key in TABLES]
                kills = Kills(tables, consoles, redis, pg, workers, tmp_path,
                              director.server.app[DIRECTOR_KEY])
                for _ in range(100_000):
                    live = [dealer for dealer in dealers if not dealer.done]
                    if not live:
                        break
                    for dealer in live:
                        await dealer.step()
                        await kills.after_step(dealer.key)
                assert all(dealer.done for dealer in dealers), "the festival did not end"
                assert sorted(kills.done) == ["postgresql", "redis", "worker", "writer"], kills.done
                await kills.check(dealers)
                state = await (await director.get("/api/festival")).json()
                check_places(state)
                for (port, key), viewer in viewers.items():
                    await caught_up(viewer, consoles[key], database)
                    assert viewer.errors == [], (port, key, viewer.errors)
                    assert viewer.early() == [], (port, key)
                check_viewers(viewers, kills)
                for viewer in viewers.values():
                    await viewer.stop()
            finally:
                for viewer in viewers.values():
                    if viewer._task is not None and not viewer._task.done():
                        viewer._task.cancel()
                for process in workers.values():
                    process.kill()
                    process.wait(WAIT)
                for table in tables.values():
                    table.end()
        await director.close()
        check_logs(database, tables, state)
        print("kills:", kills.notes)  # shown with pytest -s


async def published(session: aiohttp.ClientSession, port: int) -> None:
    """Wait until every table publishes its channels (a worker lists it)."""
    deadline = time.monotonic() + WAIT
    while True:
        try:
            async with session.get(f"http://127.0.0.1:{port}/api/tables") as response:
                listed = (await response.json())["tables"] if response.status == 200 else []
        except (aiohttp.ClientError, OSError):
            listed = []
        if [entry["table"] for entry in listed] == list(TABLES):
            return
        assert time.monotonic() < deadline, f"the tables were not published: {listed}"
        await asyncio.sleep(0.05)


class Kills:
    """The failures, each in the middle of a hand: Redis killed at the second table's first
    hand (started again once a table's operator is told it is gone), the first table's
    writer killed at its second hand or later (its standby takes over), PostgreSQL restarted
    once hand-for-hand is on, a worker killed at the final table (started again on its
    port). What each showed is kept in :attr:`notes`."""

    def __init__(self, tables: dict[str, Table], consoles: dict[str, Console],
                 redis: RedisServer, pg: PostgresServer, workers: dict[int, Any],
                 root: Path, director: Any) -> None:
        self.tables, self.consoles, self.redis, self.pg = tables, consoles, redis, pg
        self.workers, self.root, self.director = workers, root, director
        self.done: list[str] = []
        self.notes: dict[str, Any] = {}
        self.redis_down: float | None = None
        self.acknowledged_before = 0
        self.killed_worker = 0

    def acknowledged(self) -> int:
        return sum(console.acknowledged for console in self.consoles.values())

    async def after_step(self, key: str) -> None:
        table = self.tables[key]
        if self.redis_down is not None:
            if any(alert["kind"] == "fanout_offline" for alert in table.view.get("alerts", [])):
                await self.redis_back(key)
            return
        if not mid_hand(table):
            return
        hand = table.view["table"]["hand_number"]
        festival = self.director.festival
        if "redis" not in self.done and key == "table-2":
            await self.kill_redis(key, hand)
        elif "writer" not in self.done and key == "table-1" and hand >= 2:
            await self.kill_writer(table, hand)
        elif "postgresql" not in self.done and festival.hand_for_hand:
            await self.restart_postgresql(key, hand)
        elif "worker" not in self.done and len(festival.tables) == 1 and key == "table-1":
            await self.kill_worker(key, hand)  # at the final table

    async def kill_redis(self, key: str, hand: int) -> None:
        self.done.append("redis")
        self.redis.kill()  # SIGKILL: every connection cut, every snapshot gone
        self.redis_down = time.monotonic()
        self.acknowledged_before = self.acknowledged()
        self.notes["redis"] = {"at": f"{key} hand {hand}"}

    async def redis_back(self, key: str) -> None:
        self.notes["redis"].update(
            alert_at=key, commands_while_down=self.acknowledged() - self.acknowledged_before)
        self.redis_down = None
        await asyncio.to_thread(self.redis.start)  # the same port, empty

    async def kill_writer(self, table: Table, hand: int) -> None:
        self.done.append("writer")
        assert table.writer is not None and table.standby is not None
        before = operator_picture(table.view)
        table.writer.process.send_signal(signal.SIGKILL)
        await asyncio.to_thread(table.writer.process.wait, WAIT)
        status = await table.supervise()
        assert status == -signal.SIGKILL
        took = next(line for line in table.writer.lines if "took over" in line)
        await self.consoles[table.key].refresh()
        # Every acknowledged command is in the log the standby read: the same hand.
        assert operator_picture(table.view) == before
        self.notes["writer"] = {"at": f"{table.key} hand {hand}", "status": status,
                                "took_over": took.split("took over ")[-1]}

    async def kill_worker(self, key: str, hand: int) -> None:
        self.done.append("worker")
        port, process = next(iter(self.workers.items()))
        os.kill(process.pid, signal.SIGKILL)
        status = await asyncio.to_thread(process.wait, WAIT)
        log = self.root / "worker-0.log"
        log.write_bytes(b"")
        self.workers[port] = await asyncio.to_thread(start_worker, self.redis.url, port, log)
        self.killed_worker = port
        self.notes["worker"] = {"at": f"{key} hand {hand}", "status": status, "port": port}

    async def restart_postgresql(self, key: str, hand: int) -> None:
        self.done.append("postgresql")
        retried = {k: len(console.retried) for k, console in self.consoles.items()}
        await asyncio.to_thread(self.pg.restart)  # -m immediate: every session cut
        self.retried_before = retried
        self.notes["postgresql"] = {"at": f"{key} hand {hand}", "hand_for_hand": True}

    async def check(self, dealers: list[RemoteDealer]) -> None:
        """What each failure showed, once the festival is over."""
        assert self.notes["redis"]["commands_while_down"] > 0  # the tables went on
        after = {key: console.retried[self.retried_before[key]:]
                 for key, console in self.consoles.items()}
        # The commands sent on the cut connections refused (503) and sent again; no other
        # answer made a console send a command again, at any time.
        assert any(after.values()), after
        # 503, or no answer from a writer that stopped itself (status 3) because its standby
        # took the lease while the database was away: its standby answered the command.
        assert all(status == 503 or (status == 0 and 3 in self.tables[key].ended)
                   for key, each in after.items() for _, status, _ in each), after
        self.notes["postgresql"]["writers_stopped"] = {
            key: table.ended for key, table in self.tables.items() if table.ended}
        assert all(len(console.retried) == len(after[key])
                   for key, console in self.consoles.items()), \
            {key: console.retried for key, console in self.consoles.items()}
        self.notes["postgresql"]["refused"] = Counter(
            (kind, code) for each in after.values() for kind, _, code in each)
        assert sum(dealer.waits for dealer in dealers) > 0  # hand-for-hand made tables wait


def check_viewers(viewers: dict[tuple[int, str], TimedViewer], kills: Kills) -> None:
    """Every viewer resynchronised with a snapshot only when it had to: after Redis or the
    writer came back (``behind``), or after its worker died when the worker started again
    no longer held the revision it stood at (``cannot_resume``; a worker that relays the
    table's recent history from Redis lets it resume with patches). Whether one had to
    depends on the moment of each kill (a table with nothing to publish while Redis was
    away loses nothing, and its viewers go on with patches): the snapshots are counted, not
    required; that no viewer missed anything is checked by its revisions (no gap) and by
    :func:`caught_up`."""
    reasons = Counter(reason for viewer in viewers.values() for reason in viewer.snapshots)
    assert set(reasons) <= {"behind", "cannot_resume"}, reasons
    for (port, key), viewer in viewers.items():
        if port == kills.killed_worker:
            assert viewer.connects >= 2, (key, viewer.connects, viewer.refused)  # started again
        else:
            assert viewer.connects == 1 and "cannot_resume" not in viewer.snapshots
    kills.notes["viewers"] = {"snapshots": dict(reasons),
                              "messages": sum(len(v.received) for v in viewers.values())}


async def caught_up(viewer: TimedViewer, console: Console, database: str) -> None:
    """Once the table's ``delayed`` channel released the last entry of its log it shows (the
    entries after it are the service's own: device reports, access records), the viewer
    stands where the channel stands."""
    spec = await delayed_spec(console)
    last = await asyncio.to_thread(last_shown, database, console.table, spec)
    deadline = time.monotonic() + WAIT
    while True:
        delayed = await console.state("delayed")
        if delayed["seq"] >= last:
            break
        assert time.monotonic() < deadline, (console.table.key, delayed["seq"], last)
        await asyncio.sleep(0.1)
    await viewer.reached(delayed["revision"])
    assert viewer.revision == delayed["revision"]
    assert without_nulls(viewer.view) == without_nulls(delayed["view"])


async def delayed_spec(console: Console) -> ChannelSpec:
    """The table's ``delayed`` channel as its service configured it (``GET /api/config``)."""
    async with console.session.get(f"{console.table.base}/api/config") as response:
        config = await response.json()
    [channel] = [c for c in config["channels"] if c["name"] == "delayed"]
    return ChannelSpec("delayed", ChannelFilter(channel["filter"]), delay=channel["delay"])


def last_shown(database: str, table: Table, spec: ChannelSpec) -> int:
    """The sequence number of the last entry of ``table``'s log that ``spec`` shows: where
    its hub stands once everything is released."""
    store = open_existing_store(with_schema(database, table.schema), table.data)
    try:
        view = ChannelView(spec)
        view.offer_all(store.iter_all())
    finally:
        store.close()
    return max((item.event.seq for item in view.due(float("inf"))), default=0)


def check_places(state: dict[str, Any]) -> None:
    """One winner with every chip; every player placed once; R22: a later bust finishes
    higher, busts of one hand (one hand-for-hand round) by their stacks at its start, equal
    stacks sharing the place; R23: the prizes as configured, paid to the places."""
    assert state["remaining"] == 1
    assert state["chips"] == len(PLAYERS) * STACK
    assert [table["name"] for table in state["tables"]] == [FINAL_NAME]
    [(_, winner, chips)] = state["tables"][0]["seats"]
    assert chips == len(PLAYERS) * STACK
    finishes = {f["player"]: f for f in state["finishes"]}
    assert sorted(finishes) == sorted(PLAYERS) and len(state["finishes"]) == len(PLAYERS)
    assert finishes[winner]["place"] == 1
    busts = state["busts"]
    assert sorted(bust["player"] for bust in busts) == sorted(set(PLAYERS) - {winner})

    def rank(bust: dict[str, Any]) -> tuple[int, int]:  # larger: finished higher
        return bust["hand_id"], bust["start_stack"]
    for bust in busts:
        above = 1 + sum(1 for other in busts if rank(other) > rank(bust))  # the winner too
        tied = sum(1 for other in busts if rank(other) == rank(bust))  # himself too
        assert finishes[bust["player"]]["place"] == above + 1, bust
        assert (finishes[bust["player"]]["tied"] or 1) == tied, bust
    assert [p["prize"] for p in state["payouts"]] == PRIZES
    assert all(p["player"] for p in state["payouts"])
    assert sum(f["prize"] or 0 for f in state["finishes"]) == sum(PRIZES)


def check_logs(database: str, tables: dict[str, Table], state: dict[str, Any]) -> None:
    """Every table's log whole and verified, the festival's log agreeing with it."""
    festival = open_store(with_schema(database, FESTIVAL_SCHEMA))
    events: list[Any] = [entry.payload for entry in festival.iter_all()]
    festival.close()
    dealt = Counter((e.table, e.table_hand) for e in events
                    if isinstance(e, FestivalHandDealt))
    finished = Counter((e.table, e.table_hand) for e in events
                       if isinstance(e, FestivalHandFinished))
    assert set(dealt.values()) == set(finished.values()) == {1}
    assert set(dealt) == set(finished)  # every hand dealt was finished, once
    # Chips conserved: the field holds every chip after every finished hand.
    for i, event in enumerate(events):
        if isinstance(event, FestivalHandFinished):
            after = replay_festival(events[:i + 1])
            assert after is not None
            assert sum(chips for _, chips in after.stacks) == len(PLAYERS) * STACK, i
    by_id = Counter(e.hand_id for e in events if isinstance(e, FestivalHandDealt))
    assert max(by_id.values()) >= 2  # hand-for-hand rounds: one id at several tables
    first = next(i for i, e in enumerate(events)
                 if isinstance(e, FestivalHandDealt) and e.seated == FINAL_NAME)
    formed = replay_festival(events[:first])
    assert formed is not None and 2 <= formed.remaining <= 10  # R23: at ten or fewer
    assert events[first].table == TABLES[0]  # type: ignore[attr-defined]
    for key, table in tables.items():
        store = open_store(with_schema(database, table.schema))
        entries = list(store.iter_all())
        store.close()
        assert [e.seq for e in entries] == list(range(1, len(entries) + 1))
        started = [e.payload.hand_number for e in entries if isinstance(e.payload, HandStarted)]
        ended = sum(1 for e in entries if isinstance(e.payload, HandEnded))
        assert started == list(range(1, len(started) + 1)) and ended == len(started), key
        assert {(key, n) for n in started} == {hand for hand in dealt if hand[0] == key}
    verifying = [subprocess.Popen(
        [sys.executable, "-m", "overlay", "log", "verify", "--config", str(table.config),
         "--data-dir", str(table.data)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True) for table in tables.values()]
    for process in verifying:  # each table's hash chain and signed checkpoints
        said, _ = process.communicate(timeout=WAIT)
        assert process.returncode == 0, said
