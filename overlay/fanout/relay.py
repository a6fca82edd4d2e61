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

It also keeps each table's look on air (:class:`RelayedLook`: read at a page's first asking,
then followed on the look's pub/sub channel), and tells the pages that follow it of each
change, as the table's own service does (an out-of-band ``{"type": "theme"}``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from engine.channels import ChannelSpec
from engine.errors import FeltcastError
from overlay.fanout import (
    LOOK_PATTERN,
    TABLE_KEY_PATTERN,
    TABLES_KEY,
    channel_key,
    channels_key,
    look_key,
    media_key,
    parse_redis_url,
    snapshot_key,
    split_channel_key,
    split_look_key,
)
from overlay.fanout.publisher import RedisLink, _reason, backoff, redis_client
from overlay.graphics.themes import Media
from overlay.hub import Broadcaster, ChannelMessage, Subscription, apply_merge_patch

__all__ = ["RelayHub", "RelaySource", "RelayUnavailableError", "RelayedLook",
           "UnknownTableError", "parse_message"]

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


@dataclass(frozen=True, slots=True)
class RelayedLook:
    """A table's look on air as its writer published it, served by a worker: the look as
    the pages get it (its stylesheet at ``/t/<table>/graphics/theme.css``), the stylesheet,
    and the files it loads (by their served names)."""

    table: str
    state: Mapping[str, Any]
    css: str = field(repr=False)
    files: Mapping[str, Media] = field(repr=False)
    message: ChannelMessage = field(repr=False, compare=False)

    @classmethod
    def parse(cls, table: str, text: str | bytes, files: Mapping[str, Media],
              ) -> RelayedLook:
        """The look published for ``table`` (``files``: those already held, by name).

        :raises ValueError: not a look."""
        data = json.loads(text)
        state, css = data.get("look"), data.get("css")
        if not isinstance(state, dict) or not isinstance(css, str) \
                or not isinstance(state.get("look"), str):
            raise ValueError("not a look")
        version = str(state.get("css", "")).partition("?")[2]
        state = {**state, "css": f"/t/{table}/graphics/theme.css"
                                 + (f"?{version}" if version else "")}
        return cls(table, state, css, files, ChannelMessage.out_of_band(
            {"type": "theme", "theme": state}))

    @staticmethod
    def wanted(text: str | bytes) -> dict[str, str]:
        """The files a published look loads: ``{served name: content type}``."""
        files = json.loads(text).get("files")
        return {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else {}


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
        self.looks: dict[str, RelayedLook] = {}
        """Each table's look on air, once a page asked for it."""
        self._following: dict[str, weakref.WeakSet[Subscription]] = {}
        self._look_lock = asyncio.Lock()

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
        if not relay.ready.is_set() and self._subscribed.is_set():
            # A new relay, or one whose snapshot was not on Redis when last asked for (or
            # the asking failed): a quiet table publishes nothing that would bring it.
            self._start_sync(relay)
        try:
            await asyncio.wait_for(relay.ready.wait(), timeout)
        except TimeoutError:
            raise UnknownTableError(f"table {table!r} has published no {channel!r} view "
                                    "yet") from None
        return relay

    async def look(self, table: str) -> RelayedLook | None:
        """``table``'s look on air (None: it published none, or Redis is away)."""
        if not TABLE_KEY_PATTERN.fullmatch(table):
            return None  # not a table's key: nothing to ask Redis
        if table not in self.looks:
            await self._read_look(table)
        return self.looks.get(table)

    def follow_look(self, table: str, subscription: Subscription, shown: object) -> None:
        """Tell ``subscription`` of every change of ``table``'s look, and of the look now
        unless ``shown`` (what the page's hello says it shows) is already it."""
        self._following.setdefault(table, weakref.WeakSet()).add(subscription)
        look = self.looks.get(table)
        if look is None:
            self._start(self._read_look(table))
        elif shown != look.state["look"]:
            subscription.notice(look.message)

    def media(self, file_name: str) -> Media | None:
        """A file of a table's look on air, by its served name."""
        for look in self.looks.values():
            found = look.files.get(file_name)
            if found is not None:
                return found
        return None

    async def _read_look(self, table: str) -> None:
        client = self._client
        if client is None:
            return
        try:
            async with self._look_lock:  # looks are taken one at a time, in order
                text = await client.get(look_key(table))
                if text is not None:
                    await self._take_look(table, text)
        except (ValueError, UnicodeDecodeError, RedisError, OSError) as error:
            _log.warning("relay %s: no look: %s", table, _reason(error))

    async def _take_look(self, table: str, text: str | bytes) -> None:
        """Hold ``table``'s published look (and its files), and tell the pages following
        it. A file Redis does not hold (or not as named) is left out: the page draws with
        its fallback fonts and without that image."""
        wanted = RelayedLook.wanted(text)
        held = self.looks.get(table)
        files = {name: media for name, media in (held.files if held else {}).items()
                 if name in wanted}
        client = self._client
        for name, content_type in wanted.items():
            if name in files or client is None:
                continue
            found = self.media(name)
            if found is None:
                data = await client.get(media_key(name))
                if data is not None:
                    raw = data.encode() if isinstance(data, str) else bytes(data)
                    found = Media(raw, content_type, name)
            if found is not None and found.file_name == name:
                files[name] = found
        look = RelayedLook.parse(table, text, files)
        if held is not None and held.state == look.state and held.css == look.css:
            return
        self.looks[table] = look
        for subscription in list(self._following.get(table, ())):
            if not subscription.closed:
                subscription.notice(look.message)

    def _start(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

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
            client = redis_client(self.url)
            pubsub = client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.psubscribe(PATTERN, LOOK_PATTERN)
                self._client = client
                self._set_connected(True)
                failures = 0
                self._subscribed.set()
                for relay in list(self.relays.values()):  # whatever was missed meanwhile
                    self._start_sync(relay)
                for table in {*self.looks, *self._following}:
                    self._start(self._read_look(table))
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
        if isinstance(channel, str) and (table := split_look_key(channel)) is not None:
            if table in self.looks or table in self._following:
                self._start(self._take_look_safely(table, raw["data"]))
            return
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

    async def _take_look_safely(self, table: str, text: str | bytes) -> None:
        try:
            async with self._look_lock:
                await self._take_look(table, text)
        except (ValueError, UnicodeDecodeError, RedisError, OSError) as error:
            _log.warning("relay %s: a look was ignored: %s", table, _reason(error))

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


