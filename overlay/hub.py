"""Fan-out of the table log to channel subscribers (asyncio).

One :class:`ChannelHub` per channel holds the channel's state (a reducer's replay of exactly
what the channel may see, :mod:`engine.channels`) and its *revision*: the number of items the
channel has released, counted from the start of the log. Revisions are a pure function of the
log and the clock, so they mean the same after a restart.

A subscriber receives (see ``docs/channels.md`` for the message schema):

1. a ``snapshot`` (the channel's *view* and its revision) — or, when it resumes from a
   revision the hub still holds, only the patches it missed;
2. then one ``patch`` per released item, in order, revision + 1 each time (no gap, no
   duplicate): a JSON Merge Patch (RFC 7386) of the view plus the item's event;
3. a new ``snapshot`` with ``"reason": "behind"`` (a resync) if it fell behind: its bounded
   queue overflowed. A slow subscriber never blocks the publisher or the other subscribers.

This is the wire protocol of ``docs/view-model.md``: the websocket handler forwards
:attr:`ChannelMessage.text` as it is.

Delayed channels release items with a loop timer at their due time (no polling loop).

:class:`TableLog` is the write path: stamp time and sequence numbers, persist the batch
(:class:`overlay.store.EventStore`: on the loop thread for SQLite's sub-millisecond commits,
else in a worker thread), and only then offer it to every hub.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Generic, Protocol, TypeVar

from engine.channels import ChannelItem, ChannelSpec, ChannelView
from engine.errors import FeltcastError
from engine.log import LoggedEvent, TableEvent
from overlay.sockets import Frames
from overlay.store import Acknowledgement, EventStore, LeaseLostError

__all__ = [
    "Broadcaster",
    "ChannelHub",
    "ChannelMessage",
    "EventListReducer",
    "Reducer",
    "Subscription",
    "SubscriptionClosed",
    "TableLog",
    "apply_merge_patch",
    "hubs_for",
    "merge_patch",
]

S = TypeVar("S")
_log = logging.getLogger(__name__)
Clock = Callable[[], float]


class Reducer(Protocol[S]):
    """How a channel's state and view are built from the items it releases (pluggable: the
    service plugs in the page view model, :class:`engine.view.TableViewReducer`)."""

    def initial(self) -> S:
        """The state of an empty log."""

    def apply(self, state: S, item: ChannelItem) -> S:
        """The state after ``item`` (may update ``state`` in place and return it)."""

    def snapshot(self, state: S) -> dict[str, Any]:
        """The JSON-safe view of ``state`` (a fresh object: the hub keeps it to diff)."""


class EventListReducer:
    """The simplest reducer: the view is the list of released items (tests, debugging)."""

    def initial(self) -> list[dict[str, Any]]:
        return []

    def apply(self, state: list[dict[str, Any]], item: ChannelItem) -> list[dict[str, Any]]:
        state.append(item.to_dict())
        return state

    def snapshot(self, state: list[dict[str, Any]]) -> dict[str, Any]:
        return {"items": list(state)}


def merge_patch(old: Any, new: Any) -> Any:
    """The JSON Merge Patch (RFC 7386) that turns ``old`` into ``new``.

    Objects are diffed key by key (a removed key becomes ``null``); anything else is replaced
    whole. (RFC 7386 cannot set a key to ``null``: such a key is deleted on the client.)
    """
    if not isinstance(old, dict) or not isinstance(new, dict):
        return new
    patch: dict[str, Any] = {}
    for key in old.keys() - new.keys():
        patch[key] = None
    for key, value in new.items():
        if key not in old:
            patch[key] = value
        elif old[key] != value:
            patch[key] = merge_patch(old[key], value) if isinstance(value, dict) and \
                isinstance(old[key], dict) else value
    return patch


def apply_merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 applied to a copy of ``target`` (what a client does with a ``patch``)."""
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = apply_merge_patch(result.get(key), value)
    return result


def item_event(item: ChannelItem) -> dict[str, Any]:
    """An item's event as a patch lists it: the payload's fields plus ``seq`` and ``time``
    (and ``revealed`` for a hole card shown after its hand)."""
    data = item.event.payload.to_dict()
    data["seq"] = item.event.seq
    data["time"] = item.event.time
    if item.revealed:
        data["revealed"] = True
    return data


class ChannelMessage:
    """One message to subscribers; ``data`` is JSON-ready and ``text`` its JSON (made once,
    shared by every subscriber)."""

    __slots__ = ("_data", "_frames", "_text", "revision", "type")

    def __init__(self, data: dict[str, Any]) -> None:
        self._data: dict[str, Any] | None = data
        self._text: str | None = None
        self._frames: Frames | None = None
        self.type: str = data["type"]
        self.revision: int = data["revision"]

    @classmethod
    def out_of_band(cls, data: dict[str, Any]) -> ChannelMessage:
        """A message outside the channel's revisions (the look on air,
        :meth:`Subscription.notice`): its revision is -1 and its JSON has none."""
        message = cls({**data, "revision": -1})
        message._data = data
        return message

    @classmethod
    def from_text(cls, text: str, kind: str, revision: int) -> ChannelMessage:
        """A message known by its JSON text (a checkpoint's history): parsed only if read."""
        message = cls.__new__(cls)
        message._data, message._text, message.type, message.revision = None, text, kind, revision
        message._frames = None
        return message

    @property
    def data(self) -> dict[str, Any]:
        if self._data is None:
            assert self._text is not None
            self._data = json.loads(self._text)
        return self._data

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = json.dumps(self._data, separators=(",", ":"))
        return self._text

    @property
    def frames(self) -> Frames:
        """Its websocket frames, made once for every socket (:mod:`overlay.sockets`)."""
        if self._frames is None:
            self._frames = Frames(self.text)
        return self._frames

    def compact(self) -> None:
        """Keep only the JSON text (half the memory: what a resume sends; :attr:`data` is
        parsed again should anyone ask)."""
        if self._data is not None:
            self.text  # noqa: B018 (made once, kept)
            self._data = None
        self._frames = None

    def __repr__(self) -> str:
        return f"ChannelMessage({self.data!r})"


class History:
    """A channel's resume history in a checkpoint: the messages themselves while the state
    is captured on the event loop (a list of references: no cost there), their JSON text
    once pickled, which :mod:`overlay.checkpoints` does in its worker thread (a message never
    changes once made, so that is safe)."""

    __slots__ = ("entries",)

    def __init__(self, messages: Sequence[ChannelMessage] | Sequence[tuple[str, str, int]]):
        self.entries: Sequence[Any] = messages

    def __reduce__(self) -> tuple[Any, ...]:
        return (History, ([m if isinstance(m, tuple) else (m.text, m.type, m.revision)
                           for m in self.entries],))


START_HISTORY = 128
"""The resume history a delayed channel keeps across a restart: its newest patches (a page
that lost its connection during the restart misses the few seconds' worth released
meanwhile; one that was gone longer gets a snapshot). Each costs a start one view."""

_FRESH = 64
"""The newest messages of a history that keep their data as well as their text (the live
consumers read it); older ones keep the text only (:meth:`ChannelMessage.compact`)."""

_RESYNC = object()  # queue marker: the subscriber fell behind


class SubscriptionClosed(FeltcastError):
    """The subscription (or its channel) was closed."""

    code = "subscription_closed"


class Subscription:
    """One subscriber's ordered stream of messages (``async for message in subscription``).

    A bounded queue of its own (a deque and one waiter: cheaper than ``asyncio.Queue`` when a
    message goes to a hundred subscribers); when it overflows, the backlog is replaced by a
    resync marker, read as a fresh snapshot.
    """

    def __init__(self, hub: Broadcaster, maxsize: int) -> None:
        self.hub = hub
        self.resyncs = 0
        """How many times this subscriber fell behind and was resynchronised."""
        self._items: deque[object] = deque()
        self._maxsize = max(1, maxsize)
        self._waiter: asyncio.Future[None] | None = None
        self._skip_through = -1
        self._notice: ChannelMessage | None = None
        self.closed = False
        self.direct: Callable[[ChannelMessage], bool] | None = None
        """Set by the socket's writer (:func:`overlay.sockets.forward`): takes a message at
        once, without waking the writer's task, when nothing is queued before it (True),
        or declines it (False: a slow socket), so that it is queued. A thousand sockets cost
        a thousand writes, not a thousand task switches."""

    def _push(self, message: object) -> None:
        if not self._items and self.direct is not None and self._notice is None \
                and isinstance(message, ChannelMessage) and self._direct(message):
            return
        if len(self._items) >= self._maxsize:
            self.resync()
        else:
            self._items.append(message)
            self._wake()

    def _direct(self, message: ChannelMessage) -> bool:
        """Hand ``message`` to :attr:`direct` (nothing queued before it): True when taken."""
        if message.revision <= self._skip_through:
            return True  # already in the snapshot sent
        try:
            return self.direct(message)  # type: ignore[misc]
        except Exception:  # the socket broke: its writer ends and says why
            self.direct = None
            return False

    def resync(self) -> None:
        """Drop the backlog: the next message is a fresh snapshot (``reason`` ``behind``)."""
        if not self.closed:
            self.resyncs += 1
            self._items.clear()  # a snapshot replaces the backlog
            self._items.append(_RESYNC)
            self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def notice(self, message: ChannelMessage) -> None:
        """Send ``message`` (out of band: :meth:`ChannelMessage.out_of_band`) before anything
        still queued; a notice not yet sent is replaced (only the newest one matters)."""
        if not self.closed:
            self._notice = message
            self._wake()

    def _next(self) -> ChannelMessage | None:
        if self._notice is not None:
            notice, self._notice = self._notice, None
            return notice
        while self._items:
            item = self._items.popleft()
            if item is _RESYNC:
                message = self.hub.snapshot_message(reason="behind")
                self._skip_through = message.revision
                return message
            assert isinstance(item, ChannelMessage)
            if item.revision > self._skip_through:
                return item
        return None

    async def get(self) -> ChannelMessage:
        """The next message; waits for one. Raises :class:`SubscriptionClosed` once closed."""
        while True:
            if self.closed:
                raise SubscriptionClosed(f"subscription to {self.hub.name} closed")
            message = self._next()
            if message is not None:
                return message
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter

    def get_nowait(self) -> ChannelMessage | None:
        """The next message if one is waiting, else ``None``."""
        return None if self.closed else self._next()

    @property
    def backlog(self) -> int:
        return len(self._items)

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> ChannelMessage:
        try:
            return await self.get()
        except SubscriptionClosed:
            raise StopAsyncIteration from None

    def close(self) -> None:
        """Stop receiving (idempotent); a waiting reader ends its ``async for``."""
        if not self.closed:
            self.closed = True
            self.direct = None
            self.hub._subscribers.discard(self)
            self._items.clear()
            self._wake()


class Broadcaster:
    """The subscribers of one channel's stream of messages: its resume history, its snapshot
    and :meth:`subscribe` (the protocol of the module docstring). Two kinds feed it:
    :class:`ChannelHub` from the table log, :class:`overlay.fanout.relay.RelayHub` from
    another process's hub over Redis; a subscriber cannot tell them apart."""

    def __init__(self, spec: ChannelSpec, *, log_id: str = "", queue_size: int = 256,
                 history: int = 4096) -> None:
        self.spec = spec
        self.log_id = log_id
        self.queue_size = queue_size
        self._view: dict[str, Any] = {}
        self.seq = 0
        """The log sequence number of the last released item."""
        self._history: deque[ChannelMessage] = deque(maxlen=history)
        self._subscribers: set[Subscription] = set()
        self._snapshot: ChannelMessage | None = None
        self.closed = False

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def revision(self) -> int:
        """How many items this channel has released since the start of the log."""
        raise NotImplementedError

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    def _send(self, message: ChannelMessage) -> None:
        """Keep a released ``patch`` in the resume history and queue it for every
        subscriber."""
        self._history.append(message)
        if len(self._history) > _FRESH:  # older patches only ever resume a page
            self._history[-_FRESH - 1].compact()
        for subscriber in self._subscribers:
            subscriber._push(message)

    def snapshot_message(self, *, reason: str = "") -> ChannelMessage:
        """The channel's view now as a ``snapshot`` message; ``reason`` says why a client
        that already had a view gets a new one (``behind``, ``cannot_resume``)."""
        if self._snapshot is None:
            self._snapshot = ChannelMessage({
                "type": "snapshot", "channel": self.spec.name, "log_id": self.log_id,
                "revision": self.revision, "seq": self.seq, "view": self._view})
        if not reason:
            return self._snapshot
        return ChannelMessage({**self._snapshot.data, "reason": reason})

    def subscribe(self, *, resume_from: int | None = None, log_id: str | None = None,
                  ) -> Subscription:
        """A new subscriber: a snapshot first, or only the missed patches when it resumes.

        ``resume_from`` is the last revision the client has (of log ``log_id``); it resumes
        when that is still in the hub's history, otherwise it gets a snapshot.
        """
        if self.closed:
            raise FeltcastError(f"channel {self.spec.name} is closed")
        subscription = Subscription(self, self.queue_size)
        missed = self._missed_since(resume_from, log_id)
        if missed is None or len(missed) >= self.queue_size:
            reason = "" if resume_from is None else "cannot_resume"
            subscription._push(self.snapshot_message(reason=reason))
        else:
            for message in missed:
                subscription._push(message)
        self._subscribers.add(subscription)
        return subscription

    def _missed_since(self, revision: int | None, log_id: str | None,
                      ) -> list[ChannelMessage] | None:
        if revision is None or log_id != self.log_id or not 0 <= revision <= self.revision:
            return None
        if revision == self.revision:
            return []
        oldest = self.revision - len(self._history) + 1
        if revision + 1 < oldest:
            return None
        start = revision + 1 - oldest
        return [self._history[i] for i in range(start, len(self._history))]

    def close(self) -> None:
        """Forget subscribers (each one's ``async for`` ends)."""
        self.closed = True
        for subscription in list(self._subscribers):
            subscription.close()


class ChannelHub(Broadcaster, Generic[S]):
    """The state and the subscribers of one channel (see the module docstring)."""

    def __init__(self, spec: ChannelSpec, reducer: Reducer[S], *, log_id: str = "",
                 clock: Clock = time.time, queue_size: int = 256, history: int = 4096,
                 loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(spec, log_id=log_id, queue_size=queue_size, history=history)
        self.reducer = reducer
        self.clock = clock
        self.view = ChannelView(spec)
        self.state: S = reducer.initial()
        self._view = self._picture()
        self._loop = loop
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at: float | None = None

    @property
    def revision(self) -> int:
        """How many items this channel has released since the start of the log."""
        return self.view.released

    # --- input ---------------------------------------------------------------------------

    def offer(self, events: Iterable[TableEvent]) -> None:
        """Take newly persisted log events (in order); release what is due, time the rest."""
        for event in events:
            self.view.offer(event)
        self.release_due()

    def release_due(self, *, starting: bool = False) -> int:
        """Release every item due now to the state and the subscribers; returns how many.

        ``starting`` (the service's start, no subscriber yet): a live channel takes the items
        into its state without a patch each and keeps no resume history (its pages get a
        snapshot when they come back); a delayed one keeps the patches of its last
        :data:`START_HISTORY` items, which its pages may resume from."""
        if self.closed:
            return 0
        items = self.view.due(self.clock())
        if items:
            first = self.view.released - len(items) + 1
            # Patches older than the history window would reach no one (e.g. the replay of a
            # long log at start-up, or a burst with no subscriber): fold them without views.
            window = self._history.maxlen or 0
            if starting and not self._subscribers:
                window = START_HISTORY if self.resumes_across_starts else 0
            quiet = 0 if self._subscribers else max(0, len(items) - window)
            for item in items[:quiet]:
                self._fold(item)
            if quiet:
                self._history.clear()
                self._view = self._picture()
            for revision, item in enumerate(items[quiet:], first + quiet):
                self._fold(item)
                view = self._picture()
                message = self._patch(revision, item, merge_patch(self._view, view))
                self._view = view
                self._send(message)
            self._snapshot = None
        if starting:  # a start from a checkpoint stands where a full replay stands
            while len(self._history) > START_HISTORY:
                self._history.popleft()
        self._schedule()
        return len(items)

    def _fold(self, item: ChannelItem) -> None:
        self.seq = max(self.seq, item.event.seq)
        try:
            self.state = self.reducer.apply(self.state, item)
        except Exception:  # a reducer bug must not stop the channel (fail visible)
            _log.exception("channel %s: the view could not take log event %d (%s)",
                           self.spec.name, item.event.seq, item.event.kind)

    def _picture(self) -> dict[str, Any]:
        try:
            return self.reducer.snapshot(self.state)
        except Exception:
            _log.exception("channel %s: the view could not be drawn at log event %d",
                           self.spec.name, self.seq)
            return self._view  # the last good view: the screen keeps its last graphics

    def _patch(self, revision: int, item: ChannelItem, patch: Any) -> ChannelMessage:
        return ChannelMessage({"type": "patch", "channel": self.spec.name,
                               "revision": revision, "seq": item.event.seq, "patch": patch,
                               "events": [item_event(item)]})

    def _schedule(self) -> None:
        due = self.view.next_release()
        if due is None or self.closed:
            return
        if self._timer is not None:
            if self._timer_at == due:
                return
            self._timer.cancel()
        loop = self._loop or asyncio.get_running_loop()
        self._timer_at = due
        self._timer = loop.call_later(max(0.0, due - self.clock()), self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        self._timer_at = None
        self.release_due()  # reschedules itself (also when the timer fired a bit early)

    # --- checkpoints -----------------------------------------------------------------------

    def checkpoint(self) -> dict[str, Any]:
        """What :meth:`restore` needs to stand where this hub stands now (pickled on the
        event loop with the rest of the service's state by :mod:`overlay.checkpoints`): the
        channel's view of the log (released count, items waiting for their delay), the
        reducer's state and the drawn view. The resume history is :meth:`resume_history`."""
        return {"view": self.view, "state": self.state, "picture": self._view, "seq": self.seq}

    def resume_history(self) -> History:
        """The patches a page may resume from after a restart (the messages themselves, which
        never change: pickled as the JSON the subscribers got, away from the event loop)."""
        return History(list(self._history)[-START_HISTORY:] if self.resumes_across_starts
                       else [])

    @property
    def resumes_across_starts(self) -> bool:
        """Whether a page may resume this channel after a restart with only what it missed:
        a delayed channel's pages (the stream: a snapshot would be one more thing that can go
        wrong on air). A live channel's pages get a snapshot then, which saves a start the
        drawing of its resume history (a view per item)."""
        return self.spec.delay > 0

    def restore(self, saved: Mapping[str, Any], history: History) -> None:
        """Stand where :meth:`checkpoint` and :meth:`resume_history` stood (a fresh hub,
        before its log's start)."""
        if self.view.last_seq != 0 or self._subscribers:
            raise FeltcastError(f"channel {self.name} is in use: it cannot be restored")
        self.view, self.state, self._view = saved["view"], saved["state"], saved["picture"]
        self.seq = saved["seq"]
        self._history.clear()
        self._history.extend(ChannelMessage.from_text(*entry)
                             for entry in history.entries)
        self._snapshot = None

    def close(self) -> None:
        """Stop timers and forget subscribers (the log stays)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        super().close()


class TableLog:
    """The write path: stamp, persist (durably), then publish to every hub.

    ``await table_log.append(events)`` returns once the events are committed to the store: at
    that point they are acknowledged and survive a crash.
    """

    def __init__(self, store: EventStore, hubs: Iterable[ChannelHub[Any]] = (), *,
                 clock: Clock = time.time) -> None:
        self.store = store
        self.hubs: dict[str, ChannelHub[Any]] = {}
        self.clock = clock
        self._lock = asyncio.Lock()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="feltcast-log")
        self._last_time = -float("inf")
        self._published = 0
        self._uncertain = False
        self.on_lease_lost: Callable[[str], None] | None = None
        """Told when another service took this log over (the service stops)."""
        for hub in hubs:
            self.add_hub(hub)

    def add_hub(self, hub: ChannelHub[Any]) -> None:
        """Attach a hub; it must start from an empty view (call before :meth:`start`; a
        checkpoint restores it afterwards, :meth:`ChannelHub.restore`)."""
        if hub.view.last_seq != 0:
            raise FeltcastError(f"channel {hub.name} already has events")
        hub.log_id = self.store.log_id
        self.hubs[hub.name] = hub

    async def start(self, *, after: int = 0, last_time: float = -float("inf")) -> int:
        """Replay the persisted log into every hub; returns the number of events replayed.

        ``after``: the hubs were restored to stand at that entry (a checkpoint, whose last
        entry's time is ``last_time``); only the entries after it are replayed."""
        loop = asyncio.get_running_loop()
        self._last_time = last_time
        replayed = 0
        while True:
            batch = await loop.run_in_executor(self._executor, self.store.read, after, 5000)
            if not batch:
                break
            for hub in self.hubs.values():
                for event in batch:
                    hub.view.offer(event)
            after = batch[-1].seq
            replayed += len(batch)
            self._last_time = batch[-1].time
        self._published = after
        for hub in self.hubs.values():
            hub.release_due(starting=True)
        return replayed

    @property
    def published(self) -> int:
        """The last entry every hub has been offered."""
        return self._published

    @property
    def last_time(self) -> float:
        """The time of the last entry published (log times never go backwards)."""
        return self._last_time

    async def append(self, events: Sequence[LoggedEvent], *, source: str = "engine",
                     acknowledge: Callable[[int], Acknowledgement] | None = None,
                     ) -> list[TableEvent]:
        """Log ``events`` (one batch, one transaction) and publish them; returns the entries.

        ``acknowledge(last_seq)`` gives the answer of the command that produced the events,
        stored in the same transaction (the log's last sequence number with the batch
        applied: its last entry's, or the log's for a command that logged nothing).

        :raises StoreError: the batch was not acknowledged. (If it was committed all the same,
            e.g. the connection broke during the commit, the next append publishes it first.)
        """
        if not events and acknowledge is None:
            return []
        async with self._lock:
            if self._uncertain:
                await self._catch_up()
            stamp = max(self.clock(), self._last_time)  # log times never go backwards
            first = self.store.last_seq + 1
            batch = [TableEvent.record(first + i, stamp, event, source=source)
                     for i, event in enumerate(events)]
            ack = acknowledge(first + len(batch) - 1) if acknowledge is not None else None
            write = functools.partial(self.store.append, batch, acknowledgement=ack, now=stamp)
            try:
                if self.store.commits_fast:  # ~0.1 ms: cheaper than a thread hop and the GIL
                    write()
                else:
                    await asyncio.get_running_loop().run_in_executor(self._executor, write)
            except LeaseLostError as error:
                self._uncertain = True
                if self.on_lease_lost is not None:
                    self.on_lease_lost(str(error))
                raise
            except Exception:
                self._uncertain = True
                raise
            if batch:
                self._publish(batch)
        return batch

    async def answer(self, command_id: str) -> dict[str, Any] | None:
        """The stored answer to a command already acknowledged (``None``: never was)."""
        if self.store.commits_fast:
            return self.store.answer(command_id)
        return await asyncio.get_running_loop().run_in_executor(
            self._executor, self.store.answer, command_id)

    def _publish(self, batch: Sequence[TableEvent]) -> None:
        self._last_time = max(self._last_time, batch[-1].time)
        self._published = batch[-1].seq
        for hub in self.hubs.values():
            hub.offer(batch)

    async def _catch_up(self) -> None:
        """Publish what the log holds beyond what the hubs have (after a failed append)."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._executor, self.store.refresh)
        while self._published < self.store.last_seq:
            batch = await loop.run_in_executor(self._executor, self.store.read,
                                               self._published, 5000)
            if not batch:
                break
            _log.warning("log events %d-%d were committed without an acknowledgement; "
                         "publishing them now", batch[0].seq, batch[-1].seq)
            self._publish(batch)
        self._uncertain = False

    def hub(self, name: str) -> ChannelHub[Any]:
        try:
            return self.hubs[name]
        except KeyError:
            raise FeltcastError(f"no channel named {name!r}") from None

    async def close(self) -> None:
        for hub in self.hubs.values():
            hub.close()
        await asyncio.get_running_loop().run_in_executor(self._executor, self.store.close)
        self._executor.shutdown(wait=True)


def hubs_for(specs: Mapping[str, ChannelSpec], reducer_for: Callable[[ChannelSpec], Reducer[Any]],
             **options: Any) -> list[ChannelHub[Any]]:
    """One hub per enabled channel of ``specs``."""
    return [ChannelHub(spec, reducer_for(spec), **options)
            for spec in specs.values() if spec.enabled]
