"""End to end over a real TCP socket on 127.0.0.1, several readers at once, and a reader
that is not there yet."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

from capture.rfid.antenna_map import AntennaMap
from capture.rfid.reader import ReaderConfig, ReaderState, RfidCapture
from capture.rfid.transports import SerialEndpoint, TcpEndpoint
from capture.simulator import BOARD_ANTENNA, SimulatedReader, simulated_deck, simulated_uid
from engine.capture_events import (
    BoardCardRead,
    CaptureEvent,
    CardRemoved,
    FaultKind,
    HoleCardsRead,
    ReaderOffline,
    ReaderOnline,
)
from engine.cards import Card

from .rig import FAST, Rig, rig


def uid(code: str) -> str:
    return simulated_uid(Card(code))


async def test_hole_cards_and_board_over_tcp(tmp_path: Path) -> None:
    async with rig(tmp_path, "tcp") as r:
        r.sim.place(4, uid("As"), uid("Ks"))
        r.sim.place(BOARD_ANTENNA, uid("Qs"), uid("Js"), uid("Ts"))
        await r.until(lambda: r.of(HoleCardsRead) and len(r.of(BoardCardRead)) == 3)
        assert r.of(HoleCardsRead)[0].cards == (Card("As"), Card("Ks"))
        assert r.of(ReaderOnline)[0].firmware == "sim-1.0"


async def test_tcp_reader_unplugged_and_back_on_the_same_port(tmp_path: Path) -> None:
    async with rig(tmp_path, "tcp") as r:
        r.sim.place(4, uid("As"), uid("Ks"))
        await r.until(lambda: r.of(HoleCardsRead))
        await r.sim.unplug()
        await r.until(lambda: r.faults(FaultKind.READER_OFFLINE))
        assert r.capture.stats()[0].state is ReaderState.OFFLINE
        await asyncio.sleep(0.5)  # several refused reconnection attempts
        assert len(r.of(ReaderOffline)) == 1
        r.sim.remove(4, uid("Ks"))
        await r.sim.replug()
        await r.until(lambda: len(r.of(ReaderOnline)) == 2)
        await r.until(lambda: r.of(CardRemoved))
        assert [(e.zone.seat, e.card) for e in r.of(CardRemoved)] == [(4, Card("Ks"))]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def test_a_reader_that_is_not_there_yet_is_offline_then_online(tmp_path: Path) -> None:
    port = free_port()
    events: list[CaptureEvent] = []
    config = ReaderConfig("table-a", TcpEndpoint("127.0.0.1", port), backoff_initial_s=0.05,
                          backoff_max_s=0.1, watchdog_s=0.6)
    capture = RfidCapture([config], AntennaMap.standard("table-a"), simulated_deck(),
                          events.append, presence=FAST, tick_s=0.05)
    rig_view = Rig(SimulatedReader("table-a"), capture, events)
    async with capture:
        await rig_view.until(lambda: rig_view.faults(FaultKind.READER_OFFLINE))
        await asyncio.sleep(0.4)
        assert len(rig_view.faults(FaultKind.READER_OFFLINE)) == 1
        async with SimulatedReader("table-a", scan_interval=0.05) as sim:
            await sim.open_tcp(port)
            sim.place(1, uid("2h"), uid("7d"))
            await rig_view.until(lambda: rig_view.of(HoleCardsRead), timeout=5)
    assert capture.coordinators["table-a"].connects >= 1


async def test_two_readers_feed_one_table(tmp_path: Path) -> None:
    # Seats on a serial reader, the board on a TCP reader: one tracker, one event stream.
    events: list[CaptureEvent] = []
    async with SimulatedReader("seats", scan_interval=0.05) as seats, \
            SimulatedReader("centre", antennas=3, scan_interval=0.05) as centre:
        path = await seats.open_pty(tmp_path / "seats")
        port = await centre.open_tcp()
        antenna_map = AntennaMap.from_config({
            "seats": {str(n): f"seat{n}" for n in range(1, 11)},
            "centre": {"1": "board", "2": "muck", "3": "burn"}})
        readers = [ReaderConfig("seats", SerialEndpoint(path), watchdog_s=0.6),
                   ReaderConfig("centre", TcpEndpoint("127.0.0.1", port), watchdog_s=0.6)]
        capture = RfidCapture(readers, antenna_map, simulated_deck(), events.append,
                              presence=FAST, tick_s=0.05)
        view = Rig(seats, capture, events)
        async with capture:
            await view.until(lambda: len(view.of(ReaderOnline)) == 2)
            seats.place(9, uid("Ac"), uid("Ad"))
            centre.place(1, uid("Ah"))
            centre.place(3, uid("As"))
            await view.until(lambda: view.of(HoleCardsRead) and view.of(BoardCardRead))
            await centre.unplug()
            await view.until(lambda: view.of(ReaderOffline))
            seats.place(9, uid("Kc"))  # the other reader carries on meanwhile
            await view.until(lambda: view.faults(FaultKind.TOO_MANY_CARDS))
    assert {e.reader for e in view.of(ReaderOnline)} == {"seats", "centre"}
    assert view.of(ReaderOffline)[0].reader == "centre"
    assert view.of(HoleCardsRead)[0].source == "seats"
    assert view.of(BoardCardRead)[0].source == "centre"


async def test_stop_always_returns_while_data_is_flowing(tmp_path: Path) -> None:
    # Regression: asyncio.wait_for (3.11) could swallow the cancellation of a read that was
    # completing at that moment, and stop() then waited for ever.
    async with SimulatedReader("table-a", scan_interval=0.002) as sim:
        path = await sim.open_pty(tmp_path / "busy")
        sim.place(1, uid("Ah"), uid("Kh"))
        for _ in range(25):
            capture = RfidCapture([ReaderConfig("table-a", SerialEndpoint(path))],
                                  AntennaMap.standard("table-a"), simulated_deck(),
                                  lambda event: None, presence=FAST)
            await capture.start()
            await asyncio.sleep(0.03)
            async with asyncio.timeout(3):
                await capture.stop()
