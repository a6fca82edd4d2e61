"""The worker's side of the fan-out: each table's public channels mirrored from Redis.

A :class:`RelayHub` is a :class:`overlay.hub.Broadcaster` fed by messages instead of log
entries: it applies each patch to its copy of the view (a patch of revision + 1, in order),
keeps the resume history and serves subscribers exactly as the writer's hub does (the same
messages, byte for byte). It never releases anything itself, so it cannot release early.

:class:`RelaySource` is the one Redis reader of a worker: a pattern subscription to every
table's channels, and a :class:`RelayHub` per (table, channel) a page asked for. When a patch
does not follow (Redis pub/sub dropped one) or the connection was lost, it reads the
channel's snapshot and the relay's subscribers get a ``snapshot`` with ``reason``
``behind``: they go on from the writer's current view, with no gap and nothing doubled.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from engine.channels import ChannelSpec
from engine.errors import FeltcastError
from overlay.fanout import (
    TABLES_KEY,
    channel_key,
    channels_key,
    parse_redis_url,
    snapshot_key,
    split_channel_key,
)
from overlay.fanout.publisher import RedisLink, _reason, backoff
from overlay.hub import Broadcaster, ChannelMessage, apply_merge_patch

__all__ = ["RelayHub", "RelaySource", "RelayUnavailableError", "UnknownTableError",
           "parse_message"]

_log = logging.getLogger(__name__)

PATTERN = channel_key("*", "*")


class UnknownTableError(FeltcastError):
    """No writer publishes that table or channel (yet)."""

    code = "not_found"


class RelayUnavailableError(FeltcastError):
    """Redis cannot be reached: the worker can serve no table it has not mirrored yet."""

    code = "unavailable"


def parse_message(text: str | bytes) -> ChannelMessage:
    """A published message: parsed once, its text kept as it came (relayed byte for byte)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("type") not in ("snapshot", "patch") \
            or not isinstance(data.get("revision"), int):
        raise ValueError("not a channel message")
    message = ChannelMessage(data)
    message._text = text
    return message


class RelayHub(Broadcaster):
    """One table's channel as published by its writer (see the module docstring)."""

    def __init__(self, table: str, spec: ChannelSpec, *, queue_size: int = 256,
                 history: int = 4096) -> None:
        super().__init__(spec, queue_size=queue_size, history=history)
        self.table = table
        self._revision = -1
        """-1 until the first snapshot: a page waits for it."""
        self.ready = asyncio.Event()
        self.resyncs = 0
        """Snapshots taken because the stream did not follow (or at a reconnect)."""

    @property
    def revision(self) -> int:
        return max(self._revision, 0)

    def take(self, message: ChannelMessage) -> bool:
        """Apply a published patch; False when it does not follow (a snapshot is needed).
        A patch already applied (revision at or below ours) is ignored."""
        data = message.data
        if self._revision < 0 or data.get("log_id", self.log_id) != self.log_id:
            return False
        revision = message.revision
        if revision <= self._revision:
            return True
        if revision != self._revision + 1:
            return False
        self._view = apply_merge_patch(self._view, data.get("patch"))
        self._revision = revision
        self.seq = int(data.get("seq", self.seq))
        self._snapshot = None
        self._send(message)
        return True

    def reset(self, snapshot: ChannelMessage) -> None:
        """Stand at ``snapshot`` (the writer's view at its revision); subscribers that were
        elsewhere get it as a ``behind`` snapshot."""
        data = snapshot.data
        log_id = str(data.get("log_id", ""))
        if log_id == self.log_id and snapshot.revision == self._revision:
            return
        first = self._revision < 0
        self.log_id = log_id
        self._revision = snapshot.revision
        self._view = data.get("view") or {}
        self.seq = int(data.get("seq", 0))
        self._history.clear()
        self._snapshot = None
        if not first:
            self.resyncs += 1
        for subscription in self._subscribers:
            subscription.resync()
        self.ready.set()


class RelaySource(RedisLink):
    """A worker's Redis reader and its relays (see the module docstring). A device: its
    alert says when Redis cannot be reached."""

    source = "relay"
    kind = "relay_offline"
    consequence = "pages served here keep their last picture"

    def __init__(self, url: str, *, queue_size: int = 256,
                 clock: Callable[[], float] = time.time) -> None:
        super().__init__(parse_redis_url(url, "--redis"), clock)
        self.queue_size = queue_size
        self.relays: dict[tuple[str, str], RelayHub] = {}
        self._client: aioredis.Redis | None = None
        self._syncing: dict[tuple[str, str], list[ChannelMessage]] = {}
        self._subscribed = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()

    def _set_connected(self, connected: bool, error: BaseException | None = None) -> None:
        super()._set_connected(connected, error)
        if not connected:
            self._subscribed.clear()

    # --- pages ------------------------------------------------------------------------------

    async def tables(self) -> list[str]:
        """The tables whose writers have published (sorted)."""
        try:
            members = await self._client_now().smembers(TABLES_KEY)
        except (RedisError, OSError) as error:
            raise self._unavailable(error) from error
        return sorted(t.decode() if isinstance(t, bytes) else t for t in members)

    async def channels(self, table: str) -> list[ChannelSpec]:
        """The public channels ``table`` publishes ([] for an unknown table)."""
        try:
            text = await self._client_now().get(channels_key(table))
        except (RedisError, OSError) as error:
            raise self._unavailable(error) from error
        if text is None:
            return []
        return [ChannelSpec.from_dict(entry) for entry in json.loads(text)]

    def _unavailable(self, error: BaseException | None) -> RelayUnavailableError:
        return RelayUnavailableError(f"Redis at {self.where} cannot be reached "
                                     f"({_reason(error)}): try again in a moment")

    async def hub(self, table: str, channel: str, *, timeout: float = 10.0) -> RelayHub:
        """The relay of ``table``'s ``channel``, with its first snapshot.

        :raises UnknownTableError: no writer publishes it.
        """
        key = (table, channel)
        relay = self.relays.get(key)
        if relay is None:
            spec = next((s for s in await self.channels(table) if s.name == channel), None)
            if spec is None:
                raise UnknownTableError(f"no table {table!r} with a public channel "
                                        f"{channel!r} is published here")
            relay = self.relays.setdefault(key, RelayHub(table, spec,
                                                         queue_size=self.queue_size))
            if self._subscribed.is_set():
                self._start_sync(relay)
        try:
            await asyncio.wait_for(relay.ready.wait(), timeout)
        except TimeoutError:
            raise UnknownTableError(f"table {table!r} has published no {channel!r} view "
                                    "yet") from None
        return relay

    def _client_now(self) -> aioredis.Redis:
        if self._client is None:
            raise self._unavailable(None)
        return self._client

    # --- reading ----------------------------------------------------------------------------

    async def run(self) -> None:
        """Read until cancelled, reconnecting (and resynchronising every relay) after every
        failure."""
        failures = 0
        while True:
            client = aioredis.from_url(self.url, socket_connect_timeout=5,
                                       socket_keepalive=True, health_check_interval=5)
            pubsub = client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.psubscribe(PATTERN)
                self._client = client
                self._set_connected(True)
                failures = 0
                self._subscribed.set()
                for relay in list(self.relays.values()):  # whatever was missed meanwhile
                    self._start_sync(relay)
                while True:
                    message = await pubsub.get_message(timeout=None)
                    if message is not None:
                        self._dispatch(message)
            except (RedisError, OSError) as error:
                self._set_connected(False, error)
            finally:
                self._client = None
                await self._closer.close(pubsub, client)
            await asyncio.sleep(backoff(failures))
            failures += 1

    def _dispatch(self, raw: dict[str, Any]) -> None:
        channel = raw.get("channel")
        if isinstance(channel, bytes):
            channel = channel.decode()
        key = split_channel_key(channel) if isinstance(channel, str) else None
        relay = self.relays.get(key) if key is not None else None
        if relay is None:
            return  # a table or channel nobody asked this worker for
        try:
            message = parse_message(raw["data"])
        except (ValueError, UnicodeDecodeError):
            _log.warning("relay %s/%s: a message that is not a channel message was "
                         "ignored", *key)  # type: ignore[misc]
            return
        pending = self._syncing.get(key)  # type: ignore[arg-type]
        if pending is not None:
            pending.append(message)
        elif message.type == "snapshot":
            relay.reset(message)
        elif not relay.take(message):
            self._start_sync(relay)

    def _start_sync(self, relay: RelayHub) -> None:
        task = asyncio.get_running_loop().create_task(self._sync(relay))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _sync(self, relay: RelayHub) -> None:
        """Stand at the channel's stored snapshot, then apply what came meanwhile."""
        key = (relay.table, relay.name)
        if key in self._syncing:
            return
        pending: list[ChannelMessage] = []
        self._syncing[key] = pending
        try:
            client = self._client
            text = None if client is None else await client.get(snapshot_key(*key))
            if text is not None:
                relay.reset(parse_message(text))
        except (RedisError, OSError) as error:
            _log.warning("relay %s/%s: no snapshot: %s", *key, _reason(error))
        finally:
            del self._syncing[key]
        for message in pending:
            if message.type == "snapshot":
                relay.reset(message)
            elif not relay.take(message):
                self._start_sync(relay)
                return

    async def close(self) -> None:
        """Close every relay (their pages are told ``going away``) and stop resyncing."""
        for relay in self.relays.values():
            relay.close()
        for task in list(self._tasks):
            task.cancel()


