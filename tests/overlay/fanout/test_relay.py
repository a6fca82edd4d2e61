"""The fan-out between processes on a real Redis server (127.0.0.1): a table's service
publishes its public channels, a festival worker relays them; what a viewer of the worker gets
is what a viewer of the table gets, byte for byte, through Redis being killed and restarted
and the worker being killed and restarted; nothing secret crosses Redis, nothing early."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import redis.asyncio as aioredis
from aiohttp.test_utils import TestClient

from engine.channels import ChannelFilter, ChannelSpec
from overlay.app import create_app
from overlay.config import parse_config
from overlay.fanout import TABLES_KEY, channels_key, published_channels, snapshot_key
from overlay.fanout.worker import WorkerSettings, create_worker_app
from overlay.hub import apply_merge_patch
from overlay.keys import (
    GRAPHICS_KEY,
    HUBS_KEY,
    PUBLISHER_KEY,
    RELAY_KEY,
    TABLE_KEY,
    TOKENS_KEY,
)
from tests.pg import free_port
from tests.redis_server import RedisServer

DELAY = 0.5
TABLE = "final"
WAIT = 60.0  # generous: a busy machine only makes things slower


@pytest.fixture
def redis() -> AsyncIterator[RedisServer]:
    with RedisServer() as server:
        yield server  # type: ignore[misc]


def writer_config(tmp_path: Path, url: str, **more: Any) -> Any:
    return parse_config({**more,
        "table": {"name": "Festival Final", "seats": 9, "button": 1},
        "players": [{"seat": 1, "name": "Ashton", "stack": 50_000},
                    {"seat": 4, "name": "Tong", "stack": 50_000},
                    {"seat": 7, "name": "Rast", "stack": 50_000}],
        "delay": {"seconds": DELAY},
        "channels": {"secure": {"enabled": True}, "reveal": {"enabled": True}},
        "fanout": {"url": url, "table": TABLE},
        "data_dir": str(tmp_path / "data"),
    })


async def command(client: TestClient, kind: str, **fields: Any) -> None:
    token = client.server.app[TOKENS_KEY].tokens.operator
    response = await client.post("/api/commands", json={"id": str(uuid.uuid4()), "type": kind,
                                                        **fields},
                                 headers={"Authorization": f"Bearer {token}"})
    assert response.status == 200, await response.text()


async def play_hand(client: TestClient, cards: list[str]) -> None:
    """A hand to showdown: everyone all in or calling, the board dealt."""
    await command(client, "next_hand")
    hand = client.server.app[TABLE_KEY].hand
    assert hand is not None
    deck = iter(cards)
    for seat in hand.seats:
        await command(client, "deal_cards", seat=seat, cards=[next(deck), next(deck)])
    while (legal := hand.legal_actions()) is not None:
        await command(client, "check" if legal.can_check else "call", seat=legal.seat)
    for board in ([next(deck), next(deck), next(deck)], [next(deck)], [next(deck)]):
        await command(client, "deal_board", cards=board)
        while (legal := hand.legal_actions()) is not None:
            await command(client, "check", seat=legal.seat)
    assert hand.is_over


HANDS = [["Ah", "As", "Kd", "Kc", "7s", "2d", "Qd", "9c", "3h", "5s", "Jh"],
         ["Td", "Th", "8c", "8d", "4s", "4h", "Ac", "Kh", "2c", "6d", "9s"]]


class Viewer:
    """A page's channel client (as ``static/js/channel.js``): hello, then a snapshot or the
    missed patches, each patch revision + 1; reconnects and resumes when the socket drops."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.view: dict[str, Any] | None = None
        self.revision: int | None = None
        self.log_id: str | None = None
        self.texts: list[str] = []
        self.snapshots: list[str] = []
        """The ``reason`` of every snapshot after the first."""
        self.errors: list[str] = []
        self.connects = 0
        self.refused = ""
        """Why the last connection failed (none yet: empty)."""
        self._changed = asyncio.Condition()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> Viewer:
        self._task = asyncio.create_task(self._run())
        return self

    async def _run(self) -> None:
        async with aiohttp.ClientSession() as session:
            while True:
                try:
                    async with session.ws_connect(self.url, compress=15) as ws:
                        self.connects += 1
                        await ws.send_json({"type": "hello", "page": "test",
                                            "resume": self.revision, "log_id": self.log_id})
                        async for message in ws:
                            if message.type is not aiohttp.WSMsgType.TEXT:
                                break  # the connection failed (an ERROR message): again
                            await self._take(message.data)
                except (aiohttp.ClientError, OSError) as error:
                    self.refused = repr(error)
                await asyncio.sleep(0.1)  # the page's back-off, briefly

    async def _take(self, text: str) -> None:
        data = json.loads(text)
        if data["type"] == "snapshot":
            if self.view is not None:
                self.snapshots.append(data.get("reason", ""))
            self.view, self.revision, self.log_id = data["view"], data["revision"], \
                data["log_id"]
        elif data["type"] == "patch":
            if data["revision"] != (self.revision or 0) + 1:
                self.errors.append(f"patch {data['revision']} after {self.revision}")
            self.view = apply_merge_patch(self.view, data["patch"])
            self.revision = data["revision"]
            self.texts.append(text)
        async with self._changed:
            self._changed.notify_all()

    async def reached(self, revision: int) -> None:
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(
                lambda: self.revision is not None and self.revision >= revision), WAIT)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await self._task


class Spy:
    """Everything published on the Redis server, with when it arrived."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.seen: list[tuple[float, str, str]] = []
        self._task: asyncio.Task[None] | None = None
        self.ready = asyncio.Event()

    async def _run(self) -> None:
        client = aioredis.from_url(self.url)
        pubsub = client.pubsub(ignore_subscribe_messages=True)
        await pubsub.psubscribe("*")
        self.ready.set()
        try:
            while True:
                message = await pubsub.get_message(timeout=None)
                if message is not None:
                    self.seen.append((time.time(), message["channel"].decode(),
                                      message["data"].decode()))
        finally:
            await pubsub.aclose()
            await client.aclose()

    async def start(self) -> Spy:
        self._task = asyncio.create_task(self._run())
        await asyncio.wait_for(self.ready.wait(), WAIT)
        return self

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await self._task


async def until(predicate: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


def ws_url(client: TestClient, path: str) -> str:
    return str(client.make_url(path)).replace("http://", "ws://")


async def released(writer: TestClient, channel: str = "delayed") -> int:
    """The writer's revision once its channel has released everything logged (the delay
    passed): waits for it."""
    hub = writer.server.app[HUBS_KEY][channel]
    await until(lambda: hub.view.next_release() is None, f"{channel} to release all")
    return int(hub.revision)


def without_nulls(value: Any) -> Any:
    """A view as a page holds it: a merge patch deletes a key it sets to null (RFC 7386)."""
    if isinstance(value, dict):
        return {key: without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    return value


def hub_view(writer: TestClient, channel: str) -> Any:
    return without_nulls(writer.server.app[HUBS_KEY][channel].snapshot_message().data["view"])


async def test_a_worker_serves_each_public_channel_as_the_table_does(
        aiohttp_client: Any, tmp_path: Path, redis: RedisServer) -> None:
    spy = await Spy(redis.url).start()
    writer = await aiohttp_client(create_app(writer_config(tmp_path, redis.url)))
    worker = await aiohttp_client(create_worker_app(WorkerSettings(redis.url)))
    publisher = writer.server.app[PUBLISHER_KEY]
    await until(lambda: publisher.published >= 2, "the first snapshots on Redis")
    tables = await (await worker.get("/api/tables")).json()
    assert tables["tables"] == [{"table": TABLE, "channels": ["venue", "delayed", "reveal"]}]
    viewers = {}
    for channel in ("venue", "delayed", "reveal"):
        direct = Viewer(ws_url(writer, f"/ws/{channel}")).start()
        relayed = Viewer(ws_url(worker, f"/t/{TABLE}/ws/{channel}")).start()
        await direct.reached(0)
        await relayed.reached(0)
        viewers[channel] = direct, relayed
    start = {channel: writer.server.app[HUBS_KEY][channel].revision for channel in viewers}
    for cards in HANDS:
        await play_hand(writer, cards)
    for channel, (direct, relayed) in viewers.items():
        revision = await released(writer, channel)
        assert revision > start[channel] + 20
        await direct.reached(revision)
        await relayed.reached(revision)
        # The same messages, byte for byte (the text the writer's hub made once).
        assert relayed.texts == direct.texts
        assert without_nulls(relayed.view) == without_nulls(direct.view) \
            == hub_view(writer, channel)
        assert relayed.errors == direct.errors == []
        assert relayed.snapshots == []
        await direct.stop()
        await relayed.stop()
    # The same snapshot over HTTP.
    state = await (await worker.get(f"/t/{TABLE}/api/state?channel=delayed")).json()
    assert without_nulls(state["view"]) == without_nulls(viewers["delayed"][0].view)
    await spy.stop()
    # Only the public channels (and the look on air) crossed Redis, and the delayed one only
    # after its delay.
    channels = {name for _, name, _ in spy.seen}
    assert channels == {f"feltcast:t:{TABLE}:{name}" for name in ("venue", "delayed", "reveal")
                        } | {f"feltcast:look:{TABLE}"}
    early = [(at, data["events"][0]) for at, name, text in spy.seen
             if name.endswith(":delayed") and (data := json.loads(text))["type"] == "patch"
             and at < data["events"][0]["time"] + DELAY]
    assert early == []
    live = [json.loads(text) for _, name, text in spy.seen
            if name.endswith((":venue", ":reveal"))]
    hole_cards = [event for data in live for event in data.get("events", [])
                  if event["kind"] == "hole_cards_dealt" and not event.get("revealed")
                  and any(card is not None for card in event["cards"])]
    assert hole_cards == []
    assert sum(1 for data in live for event in data.get("events", [])
               if event["kind"] == "hole_cards_dealt") >= 12  # they were there, masked


def test_only_channels_open_without_a_token_are_published() -> None:
    specs = [ChannelSpec("venue", ChannelFilter.PUBLIC),
             ChannelSpec("delayed", ChannelFilter.FULL, delay=900),
             ChannelSpec("secure", ChannelFilter.FULL, requires_token=True),
             ChannelSpec("studio", ChannelFilter.FULL, delay=60, requires_token=True),
             ChannelSpec("operator", ChannelFilter.FULL, requires_token=True, internal=True),
             ChannelSpec("off", ChannelFilter.PUBLIC, enabled=False)]
    assert [spec.name for spec in published_channels(specs)] == ["venue", "delayed"]


async def test_unknown_tables_and_channels_are_404_and_pages_are_served(
        aiohttp_client: Any, tmp_path: Path, redis: RedisServer) -> None:
    logo = tmp_path / "logo.svg"
    logo.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8">'
                    '<rect width="8" height="8"/></svg>')
    writer = await aiohttp_client(create_app(writer_config(
        tmp_path, redis.url, graphics={"theme": "classic", "logo": str(logo)})))
    worker = await aiohttp_client(create_worker_app(WorkerSettings(redis.url)))
    publisher = writer.server.app[PUBLISHER_KEY]
    await until(lambda: publisher.published >= 2 and publisher.looks >= 1,
                "the first snapshots and the look on Redis")
    # The table's look, relayed: its stylesheet and its files, served by the worker.
    on_air = writer.server.app[GRAPHICS_KEY].state()
    page = await (await worker.get(f"/t/{TABLE}/leaderboard")).text()
    assert f'href="/t/{TABLE}/graphics/theme.css?' in page and 'data-theme="classic"' in page
    css = await worker.get(f"/t/{TABLE}/graphics/theme.css")
    assert await css.text() == await (await writer.get(on_air["css"])).text()
    relayed = await worker.get(on_air["logo"])
    assert relayed.status == 200 and await relayed.read() == logo.read_bytes()
    assert relayed.headers["Content-Type"] == "image/svg+xml"
    for table in ("nowhere", "No:Such"):
        assert (await worker.get(f"/t/{table}/graphics/theme.css")).status == 404
    # A rehearsal's ?theme= picks a bundled one; a table with no look yet wears the default.
    rehearsal = await (await worker.get(f"/t/{TABLE}/leaderboard?theme=contrast")).text()
    assert 'data-theme="contrast"' in rehearsal
    assert 'data-theme="dark"' in await (await worker.get("/t/nowhere/leaderboard")).text()
    for path in ("/t/nowhere/ws/delayed", f"/t/{TABLE}/ws/secure", f"/t/{TABLE}/ws/operator",
                 f"/t/{TABLE}/api/state?channel=secure"):
        response = await worker.get(path)
        assert response.status == 404, path
        assert (await response.json())["error"]["code"] == "not_found"
    page = await worker.get(f"/t/{TABLE}/overlay")
    assert page.status == 200
    assert 'content="dev"' not in await page.text()
    refused = await worker.get(f"/t/{TABLE}/ws/delayed", headers={
        "Origin": "http://evil.example", "Connection": "Upgrade", "Upgrade": "websocket",
        "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
    assert refused.status == 403


async def test_viewers_resync_when_redis_is_killed_and_comes_back(
        aiohttp_client: Any, tmp_path: Path, redis: RedisServer) -> None:
    writer = await aiohttp_client(create_app(writer_config(tmp_path, redis.url)))
    worker = await aiohttp_client(create_worker_app(WorkerSettings(redis.url)))
    app = writer.server.app
    publisher = app[PUBLISHER_KEY]
    await until(lambda: publisher.published >= 2, "the first snapshots on Redis")
    viewer = Viewer(ws_url(worker, f"/t/{TABLE}/ws/delayed")).start()
    operator = Viewer(ws_url(writer, "/ws/operator?token="
                             + app[TOKENS_KEY].tokens.operator)).start()
    await play_hand(writer, HANDS[0])
    await viewer.reached(await released(writer))
    redis.kill()
    # The operator is told; the table goes on without Redis (the log is the truth).
    await until(lambda: any(alert["kind"] == "fanout_offline"
                            for alert in (operator.view or {}).get("alerts", [])),
                "the operator's alert")
    await play_hand(writer, HANDS[1])
    during = await released(writer)
    assert (viewer.revision or 0) < during  # the worker's viewers wait, frozen
    redis.start()
    await viewer.reached(during)
    assert without_nulls(viewer.view) == hub_view(writer, "delayed")
    assert viewer.snapshots == ["behind"]  # one resync, then patches again
    assert viewer.errors == []
    await until(lambda: not any(alert["kind"] == "fanout_offline"
                                for alert in (operator.view or {}).get("alerts", [])),
                "the alert to clear")
    await command(writer, "next_hand")
    await viewer.reached(await released(writer))
    assert without_nulls(viewer.view) == hub_view(writer, "delayed")
    await viewer.stop()
    await operator.stop()


def start_worker(url: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    """``feltcast worker`` in a process of its own, once it answers (it says so)."""
    process = spawn_worker(url, port, log)
    worker_answers(process, log)
    return process


def spawn_worker(url: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    """``feltcast worker`` in a process of its own, its output appended to ``log``."""
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "overlay", "worker", "--redis", url, "--port", str(port)],
            stdout=out, stderr=subprocess.STDOUT)


def worker_answers(process: subprocess.Popen[bytes], log: Path) -> None:
    """Wait until the worker ``process`` answers (it says so in ``log``, after its last
    stop)."""
    deadline = time.monotonic() + WAIT
    while b"Feltcast worker on" not in log.read_bytes().split(b"stopped")[-1]:
        assert process.poll() is None, log.read_text()
        assert time.monotonic() < deadline, "the worker did not start"
        time.sleep(0.05)


async def test_viewers_resume_when_a_worker_is_killed_and_restarted(
        aiohttp_client: Any, tmp_path: Path, redis: RedisServer) -> None:
    writer = await aiohttp_client(create_app(writer_config(tmp_path, redis.url)))
    port = free_port()
    log = tmp_path / "worker.log"
    worker = await asyncio.to_thread(start_worker, redis.url, port, log)
    try:
        viewer = Viewer(f"ws://127.0.0.1:{port}/t/{TABLE}/ws/delayed").start()
        await play_hand(writer, HANDS[0])
        await viewer.reached(await released(writer))
        os.kill(worker.pid, signal.SIGKILL)
        await asyncio.to_thread(worker.wait, WAIT)
        await play_hand(writer, HANDS[1])
        log.write_bytes(b"")
        worker = await asyncio.to_thread(start_worker, redis.url, port, log)
        await viewer.reached(await released(writer))
        assert without_nulls(viewer.view) == hub_view(writer, "delayed")
        assert viewer.connects >= 2
        assert viewer.errors == []
        assert viewer.snapshots == ["cannot_resume"]  # a new worker: a snapshot, no gap
        await viewer.stop()
    finally:
        worker.kill()
        worker.wait(WAIT)


async def test_a_quiet_table_is_put_on_redis_again_after_a_restart(
        aiohttp_client: Any, tmp_path: Path, redis: RedisServer) -> None:
    """Redis killed and started again at once, empty, while the table is between hands: the
    table puts its channels and their snapshots on Redis again by itself, without waiting
    for its next command, and a worker started then serves its pages."""
    writer = await aiohttp_client(create_app(writer_config(tmp_path, redis.url)))
    publisher = writer.server.app[PUBLISHER_KEY]
    await until(lambda: publisher.published >= 2, "the first snapshots on Redis")
    await play_hand(writer, HANDS[0])
    client = aioredis.from_url(redis.url)
    try:
        # Quiet: every channel released all it holds, and it is on Redis.
        last = {name: await released(writer, name) for name in ("venue", "delayed")}

        async def stored(name: str) -> int:
            text = await client.get(snapshot_key(TABLE, name))
            return int(json.loads(text)["revision"]) if text else -1
        for name, revision in last.items():
            deadline = time.monotonic() + WAIT
            while await stored(name) < revision:
                assert time.monotonic() < deadline, f"{name} not on Redis"
                await asyncio.sleep(0.05)
        redis.restart()  # killed and started again: empty
        await client.aclose()
        client = aioredis.from_url(redis.url)
        keys = [channels_key(TABLE), snapshot_key(TABLE, "delayed")]
        deadline = time.monotonic() + WAIT
        while await client.exists(*keys) < len(keys):
            assert time.monotonic() < deadline, "the table was not put on Redis again"
            await asyncio.sleep(0.05)
        assert await client.sismember(TABLES_KEY, TABLE)
        worker = await aiohttp_client(create_worker_app(WorkerSettings(redis.url)))
        viewer = Viewer(ws_url(worker, f"/t/{TABLE}/ws/delayed")).start()
        await viewer.reached(await released(writer))
        assert without_nulls(viewer.view) == hub_view(writer, "delayed")
        await viewer.stop()
    finally:
        await client.aclose()


async def test_a_channel_whose_snapshot_came_late_is_served_once_it_is_there(
        aiohttp_client: Any, tmp_path: Path, redis: RedisServer) -> None:
    """A worker asked for a table's channel before its snapshot is on Redis (the table
    registered, nothing more yet) refuses that page (404); once the snapshot is there, the
    next page gets the channel, though no message announced it (a quiet table sends none)."""
    writer = await aiohttp_client(create_app(writer_config(tmp_path, redis.url)))
    publisher = writer.server.app[PUBLISHER_KEY]
    await until(lambda: publisher.published >= 2, "the first snapshots on Redis")
    client = aioredis.from_url(redis.url)
    try:
        later = "later"  # a second table: registered, its snapshot not yet put
        await client.set(channels_key(later), await client.get(channels_key(TABLE)))
        await client.sadd(TABLES_KEY, later)
        worker = await aiohttp_client(create_worker_app(WorkerSettings(redis.url)))
        source = worker.server.app[RELAY_KEY]
        await until(lambda: source.connected, "the worker on Redis")
        response = await worker.get(f"/t/{later}/api/state?channel=delayed")
        assert response.status == 404  # after the worker's wait for it
        assert "has published no 'delayed' view yet" in await response.text()
        await client.set(snapshot_key(later, "delayed"),
                         await client.get(snapshot_key(TABLE, "delayed")))
        response = await worker.get(f"/t/{later}/api/state?channel=delayed")
        assert response.status == 200, await response.text()
        assert without_nulls((await response.json())["view"]) == hub_view(writer, "delayed")
    finally:
        await client.aclose()


async def test_a_crowd_arriving_at_once_is_served_without_a_refusal(
        aiohttp_client: Any, tmp_path: Path, redis: RedisServer) -> None:
    # A stream starts: hundreds of pages open the same channels and pages of a worker in the
    # same moment, before it has made the relays. Each asks Redis for the table's channels or
    # look; a command that finds every connection busy waits for one: nobody gets a 503.
    # (With redis-py's default pool the 101st concurrent command failed at once.)
    writer = await aiohttp_client(create_app(writer_config(tmp_path, redis.url)))
    worker = await aiohttp_client(create_worker_app(WorkerSettings(redis.url)))
    publisher = writer.server.app[PUBLISHER_KEY]
    await until(lambda: publisher.published >= 2, "the first snapshots on Redis")

    async def viewer(session: aiohttp.ClientSession, channel: str) -> str:
        async with session.ws_connect(ws_url(worker, f"/t/{TABLE}/ws/{channel}")) as ws:
            await ws.send_json({"type": "hello", "page": "overlay"})
            message = await asyncio.wait_for(ws.receive_json(), WAIT)
            return str(message["type"])

    async def page(session: aiohttp.ClientSession, name: str) -> int:
        async with session.get(str(worker.make_url(f"/t/{TABLE}/{name}"))) as response:
            await response.read()
            return response.status

    connector = aiohttp.TCPConnector(limit=0)  # every request at once
    async with aiohttp.ClientSession(connector=connector) as session:
        answers = await asyncio.gather(
            *(viewer(session, ("venue", "delayed", "reveal")[n % 3]) for n in range(240)),
            *(page(session, ("leaderboard", "overlay", "clock")[n % 3]) for n in range(120)),
            return_exceptions=True)
    refused = [a for a in answers if not isinstance(a, int | str)]
    assert refused == []
    assert answers[:240] == ["snapshot"] * 240
    assert answers[240:] == [200] * 120
