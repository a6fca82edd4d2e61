"""Reader coordinators and the table's RFID capture.

One :class:`ReaderCoordinator` per reader owns that reader's I/O: it connects, asks for the
reader's ``HELLO``, decodes lines, watches for silence, and reconnects with exponential
backoff. Nobody else talks to the device. It reports to a :class:`ReaderListener`.

:class:`RfidCapture` is the listener for one table: it runs the coordinators of all the
table's readers, feeds their snapshots into one :class:`PresenceTracker`, freezes a reader's
zones while it is down, and hands every :class:`CaptureEvent` to a sink callback. The service
runs it in a cleanup context::

    async with RfidCapture(readers, antenna_map, deck_cards, sink=queue.put_nowait):
        ...

Faults never raise out of here: each becomes a :class:`CaptureFault` and a log line (state
transitions are logged once, not every retry).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import TracebackType
from typing import Protocol

from engine.capture_events import (
    CaptureEvent,
    CaptureFault,
    FaultKind,
    ReaderOffline,
    ReaderOnline,
)
from engine.cards import Card
from engine.errors import ConfigError

from .adapters import Decoder, NativeDecoder, UidLinesDecoder, UidLinesSettings
from .antenna_map import AntennaMap
from .presence import PresenceConfig, PresenceTracker
from .protocol import (
    HELLO_REQUEST,
    PROTOCOL_VERSION,
    Heartbeat,
    Hello,
    Inventory,
    LineError,
    Message,
    UnknownLine,
)
from .transports import ByteStream, Endpoint

log = logging.getLogger(__name__)

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class ReaderConfig:
    """One reader of a table. ``name`` must match the reader's ``HELLO name=``."""

    name: str
    endpoint: Endpoint
    watchdog_s: float | None = 3.0
    """Silence longer than this marks the reader offline (it sends HB every second); None:
    no watchdog (a reader that is quiet when it has nothing to say)."""
    backoff_initial_s: float = 0.5
    backoff_max_s: float = 15.0
    connect_timeout_s: float = 5.0
    hello_retry_s: float = 1.0
    """How often to repeat ``HELLO?`` until the reader answers."""
    require_checksum: bool = False
    malformed_report_s: float = 5.0
    """At most one malformed-line fault per this many seconds (each carries the count)."""
    accept_any_name: bool = False
    """Take whatever reader answers (a registration station), instead of refusing a reader
    whose HELLO name differs from ``name``."""
    uid_lines: UidLinesSettings | None = None
    """Set for a reader that prints one tag read per line (``protocol = "uid-lines"``,
    :mod:`capture.rfid.adapters`) instead of speaking the native protocol. Such a reader is
    quiet while no tag is on it: its watchdog is off unless ``watchdog_s`` is given for it."""

    def __post_init__(self) -> None:
        if not self.name:
            raise ConfigError("readers.name", "a reader needs a name")
        if (self.watchdog_s is not None and self.watchdog_s <= 0) \
                or self.backoff_initial_s <= 0 or self.backoff_max_s <= 0:
            raise ConfigError(f"readers.{self.name}", "timeouts must be positive")

    def decoder(self) -> Decoder:
        """A decoder for one connection to this reader."""
        if self.uid_lines is not None:
            return UidLinesDecoder(self.name, self.uid_lines)
        return NativeDecoder(require_checksum=self.require_checksum)

    def backoff(self, failures: int) -> float:
        """Seconds to wait after ``failures`` failed attempts in a row."""
        return min(self.backoff_max_s, self.backoff_initial_s * 2 ** min(failures, 30))


class ReaderState(StrEnum):
    CONNECTING = "connecting"
    ONLINE = "online"
    OFFLINE = "offline"


@dataclass(frozen=True, slots=True)
class ReaderStats:
    """What the operator's device list shows for one reader."""

    name: str
    state: ReaderState
    firmware: str
    connects: int
    lines: int
    malformed: int
    lost: int


class ReaderListener(Protocol):
    def reader_event(self, event: CaptureEvent) -> None:
        """Online, offline and fault events of a reader."""

    def reader_inventory(self, reader: str, inventory: Inventory, now: float) -> None:
        """One antenna snapshot from an online reader."""

    def reader_up(self, reader: str, now: float) -> None: ...

    def reader_down(self, reader: str, now: float) -> None: ...


class ReaderCoordinator:
    """Owns one reader's connection; see the module docstring."""

    def __init__(self, config: ReaderConfig, listener: ReaderListener,
                 clock: Clock = time.monotonic) -> None:
        self.config = config
        self.listener = listener
        self.clock = clock
        self.state = ReaderState.CONNECTING
        self.firmware = ""
        self.connects = 0
        self.lines = 0
        self.malformed = 0
        self.lost = 0
        self._seq: int | None = None
        self._hello: Hello | None = None
        self._ignored_reason = ""
        self._malformed_reported_at: float | None = None
        self._down_reported = False

    @property
    def name(self) -> str:
        return self.config.name

    def stats(self) -> ReaderStats:
        return ReaderStats(self.name, self.state, self.firmware, self.connects, self.lines,
                           self.malformed, self.lost)

    # -- the loop -------------------------------------------------------------------------

    async def run(self) -> None:
        """Connect, read and reconnect until cancelled. Never raises anything else."""
        failures = 0
        while True:
            try:
                async with asyncio.timeout(self.config.connect_timeout_s):
                    stream = await self.config.endpoint.open()
            except (TimeoutError, OSError) as error:
                self._go_down(FaultKind.READER_OFFLINE,
                              f"cannot connect to {self.config.endpoint}: {error or 'timeout'}")
                await asyncio.sleep(self.config.backoff(failures))
                failures += 1
                continue
            self.connects += 1
            self._hello = None
            self._seq = None
            try:
                kind, reason = await self._pump(stream)
            except OSError as error:
                kind, reason = FaultKind.READER_OFFLINE, f"connection lost: {error}"
            finally:
                with contextlib.suppress(OSError):
                    await stream.close()
            if self._hello is not None:
                failures = 0  # it worked for a while: retry quickly
            self._go_down(kind, reason)
            await asyncio.sleep(self.config.backoff(failures))
            failures += 1

    async def _pump(self, stream: ByteStream) -> tuple[FaultKind, str]:
        decoder = self.config.decoder()
        watchdog = self.config.watchdog_s
        if decoder.greets:
            await stream.write(HELLO_REQUEST.encode() + b"\n")
        asked = heard = self.clock()
        self._take(decoder.poll(heard), heard)  # an adapter's reader "says" HELLO now
        while True:
            now = self.clock()
            timeout = 3600.0 if watchdog is None else watchdog - (now - heard)
            if self._hello is None and decoder.greets:
                timeout = min(timeout, self.config.hello_retry_s)
            due = decoder.next_poll()
            if due is not None:
                timeout = min(timeout, due - now)
            try:
                # asyncio.timeout, not wait_for: on Python 3.11 wait_for can swallow a
                # cancellation that races with the read completing, and stop() would hang.
                async with asyncio.timeout(max(timeout, 0.001)):
                    data = await stream.read()
            except TimeoutError:
                now = self.clock()
                self._take(decoder.poll(now), now)
                if watchdog is not None and now - heard >= watchdog:
                    return (FaultKind.READER_SILENT,
                            f"silent for {now - heard:.1f} s (watchdog {watchdog} s)")
                if (self._hello is None and decoder.greets
                        and now - asked >= self.config.hello_retry_s):
                    await stream.write(HELLO_REQUEST.encode() + b"\n")
                    asked = now
                continue
            if not data:
                return FaultKind.READER_OFFLINE, "connection closed"
            heard = self.clock()
            self.feed(decoder, data, heard)
            if (self._hello is None and decoder.greets
                    and heard - asked >= self.config.hello_retry_s):
                await stream.write(HELLO_REQUEST.encode() + b"\n")  # it talks but never said
                asked = heard                                        # HELLO: ask again

    def feed(self, decoder: Decoder, data: bytes, now: float) -> None:
        """Decode ``data`` received at ``now`` and act on every line (also used to replay
        recorded traces on a virtual clock)."""
        self._take(decoder.feed(data, now), now)

    def _take(self, items: Iterable[Message | LineError], now: float) -> None:
        for item in items:
            try:
                self._handle(item, now)
            except Exception:  # a bug must not take the reader down with it
                log.exception("reader %s: error handling %r", self.name, item)

    # -- lines ----------------------------------------------------------------------------

    def _emit(self, event: CaptureEvent) -> None:
        try:
            self.listener.reader_event(event)
        except Exception:
            log.exception("reader %s: listener failed on %r", self.name, event)

    def _fault(self, kind: FaultKind, detail: str, now: float, count: int = 1) -> None:
        log.warning("reader %s: %s: %s", self.name, kind, detail)
        self._emit(CaptureFault(kind, self.name, detail, now, self.name, count=count))

    def _handle(self, item: Message | LineError, now: float) -> None:
        self.lines += 1
        if isinstance(item, LineError):
            self.malformed += 1
            last = self._malformed_reported_at
            if last is None or now - last >= self.config.malformed_report_s:
                self._malformed_reported_at = now
                self._fault(FaultKind.MALFORMED_LINE,
                            f"skipped a bad line ({item.error}); {self.malformed} so far", now,
                            self.malformed)
            return
        if isinstance(item, Hello):
            self._on_hello(item, now)
            return
        if isinstance(item, UnknownLine) or self._hello is None or self._ignored_reason:
            return  # nothing is used before a valid HELLO
        if isinstance(item, Inventory | Heartbeat):
            if self._seq is not None and item.seq != (self._seq + 1) % 2**32:
                missing = (item.seq - self._seq - 1) % 2**32
                self.lost += missing
                self._fault(FaultKind.LINES_LOST,
                            f"{missing} line(s) lost (seq {self._seq} then {item.seq})", now,
                            self.lost)
            self._seq = item.seq
        if isinstance(item, Inventory):
            if item.antenna > self._hello.antennas:
                self.malformed += 1
                self._fault(FaultKind.MALFORMED_LINE, f"antenna {item.antenna} does not exist "
                            f"(the reader has {self._hello.antennas})", now, self.malformed)
                return
            self.listener.reader_inventory(self.name, item, now)

    def _on_hello(self, hello: Hello, now: float) -> None:
        self._seq = None
        if hello.protocol != PROTOCOL_VERSION:
            self._ignored_reason = f"protocol version {hello.protocol}"
            self._fault(FaultKind.PROTOCOL_MISMATCH,
                        f"the reader speaks protocol {hello.protocol}, Feltcast speaks "
                        f"{PROTOCOL_VERSION}; its reads are ignored", now)
        elif hello.name != self.name and not self.config.accept_any_name:
            self._ignored_reason = f"reader says it is {hello.name!r}"
            self._fault(FaultKind.WRONG_READER,
                        f"{self.config.endpoint} should be reader {self.name!r} but says it is "
                        f"{hello.name!r}; its reads are ignored (swapped cables?)", now)
        else:
            self._ignored_reason = ""
        if self._ignored_reason and self.state is ReaderState.ONLINE:
            self._go_down(FaultKind.READER_OFFLINE, self._ignored_reason)
        self._hello = hello
        self.firmware = hello.firmware
        if self.state is not ReaderState.ONLINE and not self._ignored_reason:
            self.state = ReaderState.ONLINE
            self._down_reported = False
            log.info("reader %s online (%s, firmware %s, %d antennas)", self.name,
                     self.config.endpoint, hello.firmware, hello.antennas)
            self.listener.reader_up(self.name, now)
            self._emit(ReaderOnline(self.name, hello.firmware, hello.protocol, hello.antennas,
                                    now, self.name))

    def _go_down(self, kind: FaultKind, reason: str) -> None:
        now = self.clock()
        self.state = ReaderState.OFFLINE
        if self._down_reported:
            log.debug("reader %s still offline: %s", self.name, reason)
            return
        self._down_reported = True
        self.listener.reader_down(self.name, now)
        self._fault(kind, f"reader {self.name} offline: {reason}; its zones are frozen", now)
        self._emit(ReaderOffline(self.name, reason, now, self.name))


class SnapshotQueue:
    """A :class:`ReaderListener` that queues the snapshots of one antenna (deck registration,
    diagnostics) and the reader's own events."""

    def __init__(self, antenna: int) -> None:
        self.antenna = antenna
        self.snapshots: asyncio.Queue[tuple[str, ...]] = asyncio.Queue()
        self.events: asyncio.Queue[CaptureEvent] = asyncio.Queue()

    def reader_event(self, event: CaptureEvent) -> None:
        self.events.put_nowait(event)

    def reader_inventory(self, reader: str, inventory: Inventory, now: float) -> None:
        if inventory.antenna == self.antenna:
            self.snapshots.put_nowait(inventory.uids)

    def reader_up(self, reader: str, now: float) -> None:
        pass

    def reader_down(self, reader: str, now: float) -> None:
        pass


class RfidCapture:
    """One table's RFID capture: its readers, one presence tracker, one event sink."""

    def __init__(self, readers: Sequence[ReaderConfig], antenna_map: AntennaMap,
                 cards: Mapping[str, Card], sink: Callable[[CaptureEvent], object], *,
                 presence: PresenceConfig | None = None,
                 occupied_seats: Iterable[int] | None = None,
                 clock: Clock = time.monotonic, tick_s: float = 0.1) -> None:
        names = [reader.name for reader in readers]
        if len(set(names)) != len(names):
            raise ConfigError("readers", "two readers have the same name")
        unknown = antenna_map.readers() - set(names)
        if unknown:
            raise ConfigError("antennas", f"the antenna map names unknown readers {unknown}")
        self.tracker = PresenceTracker(antenna_map, cards, presence, occupied_seats)
        self.sink = sink
        self.clock = clock
        self.tick_s = tick_s
        self.coordinators = {config.name: ReaderCoordinator(config, self, clock)
                             for config in readers}
        self._tasks: list[asyncio.Task[None]] = []
        self._diverted: dict[tuple[str, int], ReaderListener] = {}

    def divert(self, reader: str, antenna: int, listener: ReaderListener | None) -> None:
        """Hand the snapshots of one reader antenna to ``listener`` (a deck registration's
        :class:`SnapshotQueue`) instead of the presence tracker; ``None`` gives them back.
        The antenna's zone keeps what it last had until its next snapshot after that."""
        if reader not in self.coordinators:
            raise ConfigError("reader", f"there is no reader called {reader!r}")
        if listener is None:
            self._diverted.pop((reader, antenna), None)
        else:
            self._diverted[(reader, antenna)] = listener

    def set_cards(self, cards: Mapping[str, Card]) -> None:
        """A deck was activated: UID -> card from now on."""
        self.tracker.set_cards(cards)

    def set_occupied_seats(self, seats: Iterable[int] | None) -> None:
        """The seats that have a player (for the card-at-an-empty-seat check, R13)."""
        self.tracker.set_occupied_seats(seats)

    # ReaderListener
    def reader_event(self, event: CaptureEvent) -> None:
        self._publish([event])

    def reader_inventory(self, reader: str, inventory: Inventory, now: float) -> None:
        diverted = self._diverted.get((reader, inventory.antenna))
        if diverted is not None:
            diverted.reader_inventory(reader, inventory, now)
            return
        self._publish(self.tracker.observe(reader, inventory.antenna, inventory.uids, now))

    def reader_up(self, reader: str, now: float) -> None:
        self.tracker.thaw(reader, now)

    def reader_down(self, reader: str, now: float) -> None:
        self.tracker.freeze(reader)

    def _publish(self, events: Iterable[CaptureEvent]) -> None:
        for event in events:
            try:
                self.sink(event)
            except Exception:
                log.exception("capture sink failed on %r", event)

    # lifecycle
    def stats(self) -> list[ReaderStats]:
        return [coordinator.stats() for coordinator in self.coordinators.values()]

    def tick(self, now: float) -> None:
        """Let time pass for the presence tracker (run every ``tick_s`` by :meth:`start`)."""
        self._publish(self.tracker.tick(now))

    async def _ticker(self) -> None:
        while True:
            await asyncio.sleep(self.tick_s)
            self.tick(self.clock())

    async def start(self) -> None:
        if self._tasks:
            return
        self._tasks = [asyncio.create_task(c.run(), name=f"rfid-reader-{c.name}")
                       for c in self.coordinators.values()]
        self._tasks.append(asyncio.create_task(self._ticker(), name="rfid-presence-tick"))

    async def stop(self) -> None:
        tasks, self._tasks = self._tasks, []
        while tasks:
            for task in tasks:
                task.cancel()
            done, pending = await asyncio.wait(tasks, timeout=1.0)
            for task in done:
                if not task.cancelled() and task.exception() is not None:
                    log.error("capture task %s failed", task.get_name(),
                              exc_info=task.exception())
            tasks = list(pending)  # a task that ignored the cancellation is cancelled again

    async def __aenter__(self) -> RfidCapture:
        await self.start()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.stop()
