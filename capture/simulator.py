"""A simulated RFID table: a reader speaking the native protocol over a real pseudo-terminal or
a TCP socket on 127.0.0.1, hands dealt as real reads with realistic timing, injectable faults,
and recorded traces (JSON lines) replayed at real speed or on a virtual clock.

The simulated reader uses the standard antenna layout (:meth:`AntennaMap.standard`):
antennas 1-10 are the seats, 11 the board, 12 the muck and 13 the burn pile.

>>> hand = DealtHand.random(random.Random(7), seats=(1, 2, 3))
>>> sorted(hand.hole), len(hand.board), len(hand.burns)
([1, 2, 3], 5, 3)

Faults a test can inject: :meth:`SimulatedReader.inject` (garbage bytes or bad lines),
``silent = True`` (the watchdog case), :meth:`SimulatedReader.unplug` /
:meth:`~SimulatedReader.replug`, a tag placed on two antennas (crosstalk), unknown tags,
``miss_rate`` (flickering reads) and ``seq_skip`` (lost lines).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import time
import tty
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from capture.rfid.protocol import (
    HELLO_REQUEST,
    PROTOCOL_VERSION,
    Heartbeat,
    Hello,
    Inventory,
    format_line,
)
from capture.rfid.reader import RfidCapture
from engine.cards import FULL_DECK, Card
from engine.errors import InvalidInputError

log = logging.getLogger(__name__)

BOARD_ANTENNA = 11
MUCK_ANTENNA = 12
BURN_ANTENNA = 13


def simulated_uid(card: Card, deck: int = 1) -> str:
    """The UID of ``card`` in simulated deck ``deck`` (an ISO 15693-like E004… UID)."""
    return f"E0040{deck:03X}5EED{card.index:04X}"


def simulated_deck(deck: int = 1) -> dict[str, Card]:
    """UID -> card for a whole simulated deck."""
    return {simulated_uid(card, deck): card for card in FULL_DECK}


# -- traces -------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class TraceRecord:
    """Bytes a reader sent, ``t`` seconds after the trace started."""

    t: float
    data: bytes

    def to_json(self) -> str:
        """``{"t": …, "line": "…"}`` for one protocol line ending in CRLF (``"eol": "lf"``
        when it ends in LF alone), ``{"t": …, "raw": "<hex>"}`` for anything else."""
        t = round(self.t, 6)
        for eol, name in ((b"\r\n", None), (b"\n", "lf")):
            body = self.data[:-len(eol)].decode("latin-1")
            if (self.data.endswith(eol) and body.isascii() and body.isprintable()
                    and "\n" not in body):
                return json.dumps({"t": t, "line": body} | ({"eol": name} if name else {}))
        return json.dumps({"t": t, "raw": self.data.hex()})

    @classmethod
    def from_json(cls, text: str) -> TraceRecord:
        """:raises InvalidInputError: for a line that is not a trace record."""
        try:
            data = json.loads(text)
            t = float(data["t"])
            eol = "\n" if data.get("eol") == "lf" else "\r\n"
            payload = (data["line"] + eol).encode("ascii") if "line" in data else (
                bytes.fromhex(data["raw"]))
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise InvalidInputError(f"not a trace record: {text[:60]!r} ({error})") from None
        return cls(t, payload)


def write_trace(records: Iterable[TraceRecord], path: Path) -> None:
    path.write_text("".join(record.to_json() + "\n" for record in records))


def read_trace(path: Path) -> list[TraceRecord]:
    """:raises InvalidInputError: naming the bad line."""
    records = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip():
            try:
                records.append(TraceRecord.from_json(line))
            except InvalidInputError as error:
                raise InvalidInputError(f"{path}:{number}: {error}") from None
    return records


def replay_virtual(records: Sequence[TraceRecord], capture: RfidCapture, reader: str, *,
                   start: float = 0.0, tick_s: float = 0.1, settle_s: float = 2.0) -> None:
    """Replay a trace into ``capture`` on a virtual clock: no sleeping, no I/O.

    The presence tracker is ticked every ``tick_s`` of virtual time, and for ``settle_s``
    after the last record, exactly as the live capture would be.
    """
    coordinator = capture.coordinators[reader]
    decoder = coordinator.config.decoder()
    now = start
    for record in records:
        target = start + record.t
        while now + tick_s < target:
            now += tick_s
            capture.tick(now)
        now = max(now, target)
        coordinator.feed(decoder, record.data, target)
    end = now + settle_s
    while now < end:
        now += tick_s
        capture.tick(now)


# -- ports ----------------------------------------------------------------------------------

class _PtyPort:
    """The device side of a pseudo-terminal; the host opens :attr:`path` like a serial port."""

    def __init__(self, on_data: Callable[[bytes], None], link: Path | None) -> None:
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)
        tty.setraw(self._master)
        os.set_blocking(self._master, False)
        self.device = os.ttyname(self._slave)
        self.link = link
        if link is not None:
            link.unlink(missing_ok=True)
            link.symlink_to(self.device)
        self.dropped = 0
        self._on_data = on_data
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(self._master, self._readable)

    @property
    def path(self) -> str:
        return str(self.link) if self.link is not None else self.device

    def _readable(self) -> None:
        try:
            data = os.read(self._master, 1024)
        except OSError:
            return
        self._on_data(data)

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._master, view)
            except (BlockingIOError, OSError):
                self.dropped += 1  # nobody reads: a real UART loses the bytes too
                return
            view = view[written:]

    def close(self) -> None:
        self._loop.remove_reader(self._master)
        os.close(self._master)
        os.close(self._slave)
        if self.link is not None:
            self.link.unlink(missing_ok=True)


class _TcpPort:
    """A listening socket on 127.0.0.1; every client gets the reader's output."""

    def __init__(self, on_data: Callable[[bytes], None], on_connect: Callable[[], None]) -> None:
        self._on_data = on_data
        self._on_connect = on_connect
        self._server: asyncio.Server | None = None
        self._clients: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self.port = 0

    async def start(self, port: int) -> None:
        self._server = await asyncio.start_server(self._client, "127.0.0.1", port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._clients.add(writer)
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            self._on_connect()
            while data := await reader.read(1024):
                self._on_data(data)
        except OSError:
            pass
        finally:
            self._clients.discard(writer)
            if task is not None:
                self._tasks.discard(task)
            writer.close()

    @property
    def path(self) -> str:
        return f"tcp:127.0.0.1:{self.port}"

    def write(self, data: bytes) -> None:
        for writer in list(self._clients):
            if writer.is_closing():
                continue
            writer.write(data)

    async def aclose(self) -> None:
        if self._server is not None:
            self._server.close()
        for writer in list(self._clients):
            writer.close()
        for task in list(self._tasks):
            task.cancel()
        if self._server is not None:
            await self._server.wait_closed()
        self._server = None


# -- the reader -------------------------------------------------------------------------

class SimulatedReader:
    """A reader on a simulated table. Place and remove tags; it reports every antenna every
    ``scan_interval`` seconds, and a heartbeat every ``heartbeat_interval`` seconds."""

    def __init__(self, name: str = "table-a", *, antennas: int = 13, firmware: str = "sim-1.0",
                 protocol: int = PROTOCOL_VERSION, scan_interval: float = 0.1,
                 heartbeat_interval: float = 1.0, checksum: bool = True, miss_rate: float = 0.0,
                 seed: int = 0, clock: Callable[[], float] = time.monotonic,
                 trace: list[TraceRecord] | None = None) -> None:
        self.name = name
        self.antennas = antennas
        self.firmware = firmware
        self.protocol = protocol
        self.scan_interval = scan_interval
        self.heartbeat_interval = heartbeat_interval
        self.checksum = checksum
        self.miss_rate = miss_rate
        self.silent = False
        """When true the reader sends nothing and ignores commands (a hung firmware)."""
        self.seq_skip = 0
        """Lines to skip in the sequence once (as if they had been lost)."""
        self.trace = trace
        self.clock = clock
        self._started = clock()
        self._rng = random.Random(seed)
        self._tags: dict[int, list[str]] = {a: [] for a in range(1, antennas + 1)}
        self._seq = 0
        self._pty: _PtyPort | None = None
        self._pty_link: Path | None = None
        self._tcp: _TcpPort | None = None
        self._tcp_port = 0
        self._plugged = True
        self._task: asyncio.Task[None] | None = None
        self._commands = b""

    # the physical table
    def place(self, antenna: int, *uids: str) -> None:
        self._antenna(antenna).extend(uids)

    def remove(self, antenna: int, *uids: str) -> None:
        tags = self._antenna(antenna)
        for uid in uids:
            tags.remove(uid)

    def move(self, uid: str, source: int, target: int) -> None:
        self.remove(source, uid)
        self.place(target, uid)

    def clear(self, antenna: int | None = None) -> None:
        for number in [antenna] if antenna is not None else list(self._tags):
            self._antenna(number).clear()

    def contents(self, antenna: int) -> tuple[str, ...]:
        return tuple(self._antenna(antenna))

    def _antenna(self, antenna: int) -> list[str]:
        try:
            return self._tags[antenna]
        except KeyError:
            raise InvalidInputError(f"the simulated reader has no antenna {antenna}") from None

    # output
    def _send(self, data: bytes) -> None:
        if not self._plugged or self.silent:
            return
        if self.trace is not None:
            self.trace.append(TraceRecord(self.clock() - self._started, data))
        if self._pty is not None:
            self._pty.write(data)
        if self._tcp is not None:
            self._tcp.write(data)

    def _line(self, message: Hello | Inventory | Heartbeat) -> None:
        self._send(format_line(message, with_checksum=self.checksum).encode() + b"\r\n")

    def send_hello(self) -> None:
        self._line(Hello(self.name, self.firmware, self.protocol, self.antennas))

    def inject(self, data: bytes | str) -> None:
        """Put raw bytes on the line (noise, a malformed line, a truncated line)."""
        self._send(data.encode("latin-1") if isinstance(data, str) else data)

    def _next_seq(self) -> int:
        self._seq = (self._seq + 1 + self.seq_skip) % 2**32
        self.seq_skip = 0
        return self._seq

    def scan(self) -> None:
        """One inventory round: every antenna's snapshot (the scan loop calls this)."""
        for antenna in range(1, self.antennas + 1):
            uids = tuple(dict.fromkeys(
                uid for uid in self._tags[antenna] if self._rng.random() >= self.miss_rate))
            self._line(Inventory(self._next_seq(), antenna, uids))

    def heartbeat(self) -> None:
        uptime = int((self.clock() - self._started) * 1000)
        self._line(Heartbeat(self._next_seq(), uptime))

    def _host_data(self, data: bytes) -> None:
        self._commands = (self._commands + data)[-256:]
        while b"\n" in self._commands:
            line, _, self._commands = self._commands.partition(b"\n")
            if line.strip() == HELLO_REQUEST.encode() and not self.silent:
                self.send_hello()

    async def _run(self) -> None:
        next_heartbeat = self.clock()
        while True:
            if self._plugged and not self.silent:
                self.scan()
                if self.clock() >= next_heartbeat:
                    self.heartbeat()
                    next_heartbeat = self.clock() + self.heartbeat_interval
            await asyncio.sleep(self.scan_interval)

    # ports and plugging
    async def open_pty(self, link: Path | None = None) -> str:
        """Expose the reader on a new pseudo-terminal; returns the path to open (``link``,
        a symlink that survives unplug/replug, when given)."""
        self._pty_link = link
        self._pty = _PtyPort(self._host_data, link)
        self.send_hello()  # power-up
        self._ensure_running()
        return self._pty.path

    async def open_tcp(self, port: int = 0) -> int:
        """Listen on 127.0.0.1 (``port`` 0: any free port); returns the port."""
        self._tcp = _TcpPort(self._host_data, self.send_hello)
        await self._tcp.start(port)
        self._tcp_port = self._tcp.port
        self._ensure_running()
        return self._tcp_port

    def _ensure_running(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"sim-reader-{self.name}")

    async def unplug(self) -> None:
        """Pull the cable: the pty disappears / the TCP connections drop and are refused."""
        self._plugged = False
        if self._pty is not None:
            self._pty.close()
        if self._tcp is not None:
            await self._tcp.aclose()

    async def replug(self) -> None:
        """Plug it back in: a new pty behind the same link, or the same TCP port; the reader
        powers up again (sequence numbers restart)."""
        self._plugged = True
        self._seq = 0
        self._started = self.clock()
        if self._pty is not None:
            self._pty = _PtyPort(self._host_data, self._pty_link)
            self.send_hello()
        if self._tcp is not None:
            self._tcp = _TcpPort(self._host_data, self.send_hello)
            await self._tcp.start(self._tcp_port)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._plugged:
            await self.unplug()
        self._pty = None
        self._tcp = None

    async def __aenter__(self) -> SimulatedReader:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.close()


def spaced_read(antenna: int, uid: str) -> str:
    """A home-built reader's line for one tag read: ``3: 04 A1 B2 C3 D4 E5 F6``."""
    return f"{antenna}: {' '.join(uid[i:i + 2] for i in range(0, len(uid), 2))}"


class UidLineReader(SimulatedReader):
    """A home-built reader, as the ``uid-lines`` adapter (:mod:`capture.rfid.adapters`)
    reads one: every scan it prints one line per tag on each antenna (``line_of(antenna,
    uid)``, by default :func:`spaced_read`) and nothing for an empty antenna. No hello, no
    heartbeat, no sequence numbers or checksums; it ignores what the host sends. Placing,
    removing, faults (:meth:`inject` for firmware chatter) and unplugging work as for
    :class:`SimulatedReader`."""

    def __init__(self, name: str = "home", *,
                 line_of: Callable[[int, str], str] = spaced_read,
                 **options: object) -> None:
        super().__init__(name, **options)  # type: ignore[arg-type]
        self.line_of = line_of

    def send_hello(self) -> None:
        pass  # such firmware introduces itself to nobody

    def scan(self) -> None:
        for antenna in range(1, self.antennas + 1):
            for uid in dict.fromkeys(self._tags[antenna]):
                if self._rng.random() >= self.miss_rate:
                    self.inject(self.line_of(antenna, uid) + "\r\n")

    def heartbeat(self) -> None:
        pass  # such firmware has none

    def _host_data(self, data: bytes) -> None:
        pass  # nor does it listen


async def replay_real_time(records: Sequence[TraceRecord], reader: SimulatedReader,
                           speed: float = 1.0) -> None:
    """Send a recorded trace out of ``reader``'s ports at the recorded pace (``speed`` 2.0
    plays twice as fast). The reader's own scanning should be stopped (``silent`` is ignored
    for replayed bytes only while this runs)."""
    loop = asyncio.get_running_loop()
    begin = loop.time()
    for record in records:
        delay = begin + record.t / speed - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        reader.inject(record.data)


# -- dealing ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class DealtHand:
    """What a dealer deals: two hole cards per seat, burns, a board, and who folds when."""

    hole: Mapping[int, tuple[Card, Card]]
    board: tuple[Card, ...]
    burns: tuple[Card, ...]
    folds: Mapping[int, int] = field(default_factory=dict)
    """seat -> street (0 pre-flop, 1 flop, 2 turn, 3 river) on which the seat folds."""

    @classmethod
    def random(cls, rng: random.Random, seats: Sequence[int],
               fold_rate: float = 0.5) -> DealtHand:
        """A shuffled deal to ``seats`` with a full board, three burns and random folds
        (never everybody: at least two seats see the river)."""
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        hole = {seat: (deck[i], deck[i + len(seats)]) for i, seat in enumerate(seats)}
        rest = deck[2 * len(seats):]
        burns = (rest[0], rest[4], rest[6])
        board = (rest[1], rest[2], rest[3], rest[5], rest[7])
        folders = [seat for seat in seats if rng.random() < fold_rate][:max(0, len(seats) - 2)]
        return cls(hole, board, burns, {seat: rng.randrange(4) for seat in folders})


@dataclass(frozen=True, slots=True)
class DealTiming:
    """Seconds between a dealer's moves; ``scale`` < 1 speeds everything up for tests."""

    card_s: float = 0.4
    street_s: float = 6.0
    fold_s: float = 2.0
    scale: float = 1.0

    def scaled(self, seconds: float) -> float:
        return seconds * self.scale


async def play_hand(reader: SimulatedReader, hand: DealtHand,
                    uid_of: Callable[[Card], str] = simulated_uid,
                    timing: DealTiming = DealTiming(), *, clear_at_end: bool = True) -> None:
    """Deal ``hand`` on the simulated table as a dealer would: hole cards one at a time
    clockwise, folds to the muck, a burn before each street, the board, then the table is
    cleared."""

    async def pause(seconds: float) -> None:
        await asyncio.sleep(timing.scaled(seconds))

    seats = sorted(hand.hole)
    for round_ in range(2):
        for seat in seats:
            reader.place(seat, uid_of(hand.hole[seat][round_]))
            await pause(timing.card_s)
    streets = [hand.board[:3], hand.board[3:4], hand.board[4:5]]
    for street in range(4):
        for seat in seats:
            if hand.folds.get(seat) == street:
                await pause(timing.fold_s)  # the betting before the fold
                for card in hand.hole[seat]:
                    reader.move(uid_of(card), seat, MUCK_ANTENNA)
        if street == 3 or not streets[street]:
            break
        await pause(timing.street_s)
        reader.place(BURN_ANTENNA, uid_of(hand.burns[street]))
        await pause(timing.card_s)
        for card in streets[street]:
            reader.place(BOARD_ANTENNA, uid_of(card))
            await pause(timing.card_s)
    await pause(timing.street_s)
    if clear_at_end:
        reader.clear()
        await pause(timing.street_s)


async def deal_forever(reader: SimulatedReader, seats: Callable[[], Sequence[int]],
                       rng: random.Random, timing: DealTiming = DealTiming(), *,
                       on_hand: Callable[[DealtHand], object] | None = None,
                       uid_of: Callable[[Card], str] = simulated_uid,
                       fold_rate: float = 0.5) -> None:
    """Deal random hands on the simulated table until cancelled (the demo's dealer).

    ``seats()`` is asked before every hand (players bust); ``on_hand`` sees each deal before
    its first card is placed, so an automatic operator can act consistently with it.
    """
    while True:
        occupied = list(seats())
        if len(occupied) < 2:
            await asyncio.sleep(timing.scaled(timing.street_s))
            continue
        hand = DealtHand.random(rng, occupied, fold_rate)
        if on_hand is not None:
            on_hand(hand)
        await play_hand(reader, hand, uid_of, timing)
