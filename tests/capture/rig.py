"""An end-to-end rig: a simulated reader on a real pty or TCP socket, and the real capture."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from capture.rfid.antenna_map import AntennaMap
from capture.rfid.presence import PresenceConfig
from capture.rfid.reader import ReaderConfig, RfidCapture
from capture.rfid.transports import Endpoint, SerialEndpoint, TcpEndpoint
from capture.simulator import SimulatedReader, simulated_deck
from engine.capture_events import CaptureEvent, CaptureFault, FaultKind
from engine.cards import Card

NAME = "table-a"
FAST = PresenceConfig(min_reads=2, settle_s=0.1, release_s=0.3)
E = TypeVar("E")


@dataclass
class Rig:
    sim: SimulatedReader
    capture: RfidCapture
    events: list[CaptureEvent] = field(default_factory=list)

    def of(self, kind: type[E]) -> list[E]:
        return [e for e in self.events if isinstance(e, kind)]

    def faults(self, kind: FaultKind) -> list[CaptureFault]:
        return [e for e in self.of(CaptureFault) if e.kind is kind]

    async def until(self, predicate: Callable[[], object], timeout: float = 5.0,
                    what: str = "condition") -> None:
        """Wait (really) until ``predicate()`` is true; fail after ``timeout`` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            if loop.time() > deadline:
                raise AssertionError(f"timed out waiting for {what}; events: {self.events}")
            await asyncio.sleep(0.02)

    async def quiet(self, seconds: float) -> list[CaptureEvent]:
        """Wait ``seconds`` and return what happened meanwhile."""
        start = len(self.events)
        await asyncio.sleep(seconds)
        return self.events[start:]


@contextlib.asynccontextmanager
async def rig(tmp_path: Path, transport: str = "pty", *, cards: Mapping[str, Card] | None = None,
              occupied: Iterable[int] | None = None, sink_wrapper: Callable[
                  [Callable[[CaptureEvent], None]], Callable[[CaptureEvent], object]] | None = None,
              reader_name: str = NAME, **sim_options: object) -> AsyncIterator[Rig]:
    sim = SimulatedReader(reader_name, scan_interval=0.05, heartbeat_interval=0.25,
                          **sim_options)  # type: ignore[arg-type]
    endpoint: Endpoint
    if transport == "pty":
        path = await sim.open_pty(tmp_path / "reader-a")
        endpoint = SerialEndpoint(path)
    else:
        endpoint = TcpEndpoint("127.0.0.1", await sim.open_tcp())
    config = ReaderConfig(NAME, endpoint, watchdog_s=0.6, backoff_initial_s=0.05,
                          backoff_max_s=0.2, connect_timeout_s=1.0, hello_retry_s=0.2,
                          malformed_report_s=0.0)
    events: list[CaptureEvent] = []
    sink: Callable[[CaptureEvent], object] = events.append
    if sink_wrapper is not None:
        sink = sink_wrapper(events.append)
    capture = RfidCapture([config], AntennaMap.standard(NAME), cards or simulated_deck(), sink,
                          presence=FAST, occupied_seats=occupied, tick_s=0.05)
    try:
        async with capture:
            yield Rig(sim, capture, events)
    finally:
        await sim.close()
