"""The writer's side of the fan-out: every public channel's messages to Redis.

:class:`RedisPublisher` subscribes to each published hub like any page does (a snapshot
first, then one patch per released item, a fresh snapshot if it fell behind) and puts each
message on Redis with the channel's snapshot, in one ``MULTI`` (the package docstring). It is
a device (:class:`overlay.devices.Device`): while Redis cannot be reached the operator sees an
error alert (the festival's web workers keep showing this table's last picture) and the
publisher retries with a growing pause; once back it publishes each channel's snapshot first,
so every worker catches up. The table itself never waits for Redis: the log is the truth and
the table's own pages are served as before.

It also publishes the table's look on air (``desk``): at every connection and every change,
the look as the table's pages get it, the theme's stylesheet and the files it loads (each
file once per connection, by its content's hash), so that a worker's pages of this table
wear the same look and follow it live. The tournament director's service publishes its
standings' channels with the same class (``festival``: under :data:`FESTIVAL_KEY`, not
listed among the tables).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError

from engine.errors import ConfigError
from overlay.alerts import Alert, AlertBook, AlertLevel
from overlay.devices import DeviceStatus
from overlay.fanout import (
    FESTIVAL_KEY,
    TABLES_KEY,
    FanoutSettings,
    channel_key,
    channels_key,
    look_key,
    media_key,
    published_channels,
    snapshot_key,
)
from overlay.hub import Broadcaster, ChannelMessage
from overlay.signals import Signal

if TYPE_CHECKING:
    from overlay.graphics.desk import GraphicsDesk

__all__ = ["RedisPublisher"]

_log = logging.getLogger(__name__)

REDIS_CONNECTIONS = 50
"""Connections a process opens to Redis at most. A command that finds them all busy waits
for one (up to :data:`REDIS_WAIT_S`) instead of failing: a burst of viewers arriving at once
(a stream's start) asks Redis for a table's channels once per viewer until the first relay
is made, and redis-py's default pool refuses the 101st at once ("Too many connections"), a
503 to that viewer."""
REDIS_WAIT_S = 10.0
BACKOFF_INITIAL = 0.25
BACKOFF_MAX = 5.0
SOURCE = "fanout"
WATCH_SECONDS = 1.0


def backoff(failures: int) -> float:
    """Seconds to wait after ``failures`` failed connections in a row."""
    return min(BACKOFF_MAX, BACKOFF_INITIAL * 2 ** min(failures, 30))


class RedisLink:
    """The device shape of a part that keeps a Redis connection (the writer's publisher, a
    worker's relay source): an error alert while Redis cannot be reached, a ``changed``
    signal when that changes, and the link's closing (:class:`Closer`)."""

    source = "redis"
    kind = "redis_offline"
    consequence = "what Redis carries waits until it is back"

    def __init__(self, url: str, clock: Callable[[], float]) -> None:
        self.url = url
        self.changed = Signal(self.source)
        self.connected = False
        self._alerts = AlertBook(clock=clock, expire_seconds=60.0)
        self._closer = Closer()

    def status(self) -> DeviceStatus:
        return DeviceStatus()

    def alerts(self) -> list[Alert]:
        return self._alerts.current()

    @property
    def where(self) -> str:
        """The server's address, never a password."""
        return self.url.split("@")[-1]

    def _set_connected(self, connected: bool, error: BaseException | None = None) -> None:
        if connected:
            changed = self._alerts.clear(("redis",))
        else:
            changed = self._alerts.raise_alert(("redis",), Alert(
                AlertLevel.ERROR, self.source, self.kind,
                f"Redis at {self.where} cannot be reached ({_reason(error)}): "
                f"{self.consequence}", sticky=True))
        if connected != self.connected:
            _log.log(logging.INFO if connected else logging.WARNING, "%s: Redis at %s %s",
                     self.source, self.where,
                     "reached" if connected else f"lost: {_reason(error)}")
        self.connected = connected
        if changed:
            self.changed.emit()

    async def wait_closed(self) -> None:
        """Once its task was cancelled: until its connections are closed."""
        await self._closer.wait()


class RedisPublisher(RedisLink):
    """Publishes the public hubs of one table (see the module docstring)."""

    source = SOURCE
    kind = "fanout_offline"
    consequence = ("the festival's web pages show this table's last picture until it is "
                   "back")

    def __init__(self, settings: FanoutSettings, hubs: Mapping[str, Broadcaster], *,
                 clock: Callable[[], float] = time.time, desk: GraphicsDesk | None = None,
                 festival: bool = False) -> None:
        if not settings.enabled:
            raise ConfigError("fanout.url", "no Redis server configured")
        super().__init__(settings.url, clock)
        self.settings = settings
        self.key = FESTIVAL_KEY if festival else settings.table
        """Whose channels these are: the table's key, or the festival's."""
        self.listed = not festival
        self.desk = desk
        self.hubs = [hubs[spec.name] for spec in
                     published_channels(hub.spec for hub in hubs.values())]
        self.published = 0
        """Messages put on Redis since the start (tests and the benchmark read it)."""
        self.looks = 0
        """Looks put on Redis since the start."""

    # --- publishing ------------------------------------------------------------------------

    async def run(self) -> None:
        """Publish until cancelled, reconnecting after every failure."""
        failures = 0
        while True:
            client = redis_client(self.settings.url)
            try:
                await self._register(client)
                self._set_connected(True)
                failures = 0
                async with asyncio.TaskGroup() as group:
                    pumps = [group.create_task(self._pump(client, hub)) for hub in self.hubs]
                    watch = group.create_task(self._watch(client))
                    looks = None if self.desk is None else \
                        group.create_task(self._looks(client, self.desk))
                    await asyncio.wait(pumps)
                    watch.cancel()
                    if looks is not None:
                        looks.cancel()
                return  # every hub closed: the service stops
            except* (RedisError, OSError) as errors:
                self._set_connected(False, errors.exceptions[0])
            finally:
                await self._closer.close(client)
            await asyncio.sleep(backoff(failures))
            failures += 1

    async def _watch(self, client: aioredis.Redis) -> None:
        """Ask Redis every :data:`WATCH_SECONDS` whether it still holds this table's channels:
        a quiet table learns that Redis is gone (and the operator sees it), or that it came
        back empty (restarted: the client's own health check reconnects without a word), and
        puts its channels and their snapshots there again, without waiting for its next
        message."""
        while True:
            await asyncio.sleep(WATCH_SECONDS)
            if not await client.exists(channels_key(self.key)):
                raise RedisConnectionError("Redis no longer holds this table's channels "
                                           "(restarted empty?): putting them there again")

    async def _register(self, client: aioredis.Redis) -> None:
        table = self.key
        specs = [hub.spec.to_dict() for hub in self.hubs]
        async with client.pipeline(transaction=True) as pipe:
            if self.listed:
                pipe.sadd(TABLES_KEY, table)
            pipe.set(channels_key(table), json.dumps(specs, separators=(",", ":")))
            await pipe.execute()

    async def _looks(self, client: aioredis.Redis, desk: GraphicsDesk) -> None:
        """The look on air now, then at every change (the newest only, if several came)."""
        changed = asyncio.Event()
        disconnect = desk.changed.connect(changed.set)
        sent: set[str] = set()  # the files this connection has put (Redis may be new)
        try:
            while True:
                changed.clear()
                css, files = desk.on_air_files()
                look = json.dumps({"look": desk.state(), "css": css,
                                   "files": {media.file_name: media.content_type
                                             for media in files}}, separators=(",", ":"))
                async with client.pipeline(transaction=True) as pipe:
                    for media in files:
                        if media.file_name not in sent:
                            pipe.set(media_key(media.file_name), media.data)
                    pipe.set(look_key(self.key), look)
                    pipe.publish(look_key(self.key), look)
                    await pipe.execute()
                sent.update(media.file_name for media in files)
                self.looks += 1
                await changed.wait()
        finally:
            disconnect()

    async def _pump(self, client: aioredis.Redis, hub: Broadcaster) -> None:
        subscription = hub.subscribe()  # a snapshot first: every worker catches up
        try:
            async for message in subscription:
                await self._put(client, hub, message)
        finally:
            subscription.close()

    async def _put(self, client: aioredis.Redis, hub: Broadcaster,
                   message: ChannelMessage) -> None:
        table = self.key
        snapshot = hub.snapshot_message()  # at this message's revision or later
        published = snapshot if message.type == "snapshot" else message
        async with client.pipeline(transaction=True) as pipe:
            pipe.set(snapshot_key(table, hub.name), snapshot.text)
            pipe.publish(channel_key(table, hub.name), published.text)
            await pipe.execute()
        self.published += 1


class Closer:
    """Closes a Redis client even when the task closing it is cancelled meanwhile (a stop
    cancels again after a moment): the close goes on in a task of its own, which
    :meth:`wait` awaits."""

    def __init__(self) -> None:
        self._task: asyncio.Task[None] | None = None

    async def close(self, *clients: Any) -> None:
        async def close_all() -> None:
            for client in clients:
                with contextlib.suppress(RedisError, OSError):
                    await client.aclose()

        self._task = asyncio.ensure_future(close_all())
        await asyncio.shield(self._task)

    async def wait(self) -> None:
        if self._task is not None:
            await self._task


def redis_client(url: str) -> aioredis.Redis:
    """A client of the Redis at ``url`` for one connection's life: a bounded pool that makes
    a command wait for a free connection (:data:`REDIS_CONNECTIONS`), short connect timeouts,
    keep-alive and health checks; closing the client closes its pool."""
    pool = aioredis.BlockingConnectionPool.from_url(
        url, max_connections=REDIS_CONNECTIONS, timeout=REDIS_WAIT_S,
        socket_connect_timeout=5, socket_keepalive=True, health_check_interval=5)
    return aioredis.Redis.from_pool(pool)


def _reason(error: BaseException | None) -> str:
    if error is None:
        return "unknown error"
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0][:200]
