"""Recorded reader traces (JSON lines): record live, replay on a virtual clock and in real time."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from capture.rfid.antenna_map import AntennaMap
from capture.rfid.presence import PresenceConfig
from capture.rfid.reader import ReaderConfig, RfidCapture
from capture.rfid.transports import SerialEndpoint
from capture.simulator import (
    DealtHand,
    DealTiming,
    SimulatedReader,
    TraceRecord,
    play_hand,
    read_trace,
    replay_real_time,
    replay_virtual,
    simulated_deck,
    write_trace,
)
from engine.capture_events import (
    BoardCardRead,
    CaptureEvent,
    CaptureFault,
    CardMucked,
    FaultKind,
    HoleCardsRead,
)
from engine.errors import InvalidInputError

from .rig import FAST, rig

TIMING = DealTiming(card_s=0.4, street_s=4.0, fold_s=3.0, scale=0.1)


def card_events(events: list[CaptureEvent]) -> list[tuple[str, object]]:
    """What a hand looked like, without timestamps (flop order normalised)."""
    out: list[tuple[str, object]] = []
    for event in events:
        if isinstance(event, HoleCardsRead):
            out.append(("hole", (event.seat, frozenset(event.cards))))
        elif isinstance(event, BoardCardRead):
            out.append(("board", (min(event.position, 3), event.card if event.position > 3
                                  else None)))
        elif isinstance(event, CardMucked):
            out.append(("muck", event.card))
    return sorted(out, key=repr)


def fresh_capture(events: list[CaptureEvent], endpoint: str = "/nonexistent") -> RfidCapture:
    config = ReaderConfig("table-a", SerialEndpoint(endpoint), watchdog_s=0.6,
                          backoff_initial_s=0.05, backoff_max_s=0.1)
    return RfidCapture([config], AntennaMap.standard("table-a"), simulated_deck(),
                       events.append, presence=FAST, tick_s=0.05)


async def _record(tmp_path: Path) -> tuple[Path, list[CaptureEvent]]:
    trace: list[TraceRecord] = []
    hand = DealtHand.random(random.Random(11), seats=(1, 3, 6))
    async with rig(tmp_path, trace=trace, seed=5, miss_rate=0.1) as r:
        await play_hand(r.sim, hand, timing=TIMING, clear_at_end=False)
        await r.until(lambda: len(r.of(BoardCardRead)) == 5)
        await r.quiet(0.3)
        r.sim.inject(b"\xffnoise\n")
        await r.until(lambda: r.faults(FaultKind.MALFORMED_LINE))
    path = tmp_path / "hand.jsonl"
    write_trace(trace, path)
    return path, r.events


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[CaptureEvent]]:
    """One live hand over a real pty, recorded once for this module (a flickering reader)."""
    return asyncio.run(_record(tmp_path_factory.mktemp("trace")))


def test_a_trace_is_json_lines(recorded: tuple[Path, list[CaptureEvent]]) -> None:
    path, _ = recorded
    lines = path.read_text().splitlines()
    assert lines[0].startswith('{"t": ') and '"line": "HELLO proto=1 name=table-a' in lines[0]
    assert any('"raw": "ff6e6f6973650a"' in line for line in lines)
    records = read_trace(path)
    assert [r.t for r in records] == sorted(r.t for r in records)


def test_virtual_replay_gives_the_live_events(
        recorded: tuple[Path, list[CaptureEvent]]) -> None:
    path, live = recorded
    events: list[CaptureEvent] = []
    replay_virtual(read_trace(path), fresh_capture(events), "table-a", start=1000.0,
                   tick_s=0.05)
    assert card_events(events) == card_events(live)
    assert [e.kind for e in events if isinstance(e, CaptureFault)] == [
        FaultKind.MALFORMED_LINE]
    assert all(e.t >= 1000.0 for e in events)


def test_virtual_replay_is_deterministic(recorded: tuple[Path, list[CaptureEvent]]) -> None:
    path, _ = recorded
    runs = []
    for _ in range(2):
        events: list[CaptureEvent] = []
        replay_virtual(read_trace(path), fresh_capture(events), "table-a", tick_s=0.05)
        runs.append(events)
    assert runs[0] == runs[1]


async def test_real_time_replay_over_a_pty(recorded: tuple[Path, list[CaptureEvent]],
                                           tmp_path: Path) -> None:
    path, live = recorded
    records = read_trace(path)
    events: list[CaptureEvent] = []
    async with SimulatedReader("table-a", scan_interval=3600) as sim:
        link = await sim.open_pty(tmp_path / "replay")
        sim.silent = False
        capture = fresh_capture(events, link)
        async with capture:
            await replay_real_time(records, sim, speed=2.0)
            await asyncio.sleep(0.6)
    assert card_events(events) == card_events(live)


@pytest.mark.parametrize("text", ['{"t": 1}', '{"line": "HB"}', "[]", '{"t": 1, "raw": "zz"}',
                                  "not json"])
def test_bad_trace_lines_are_refused(text: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"t": 0, "line": "HB seq=1 up=1"}\n' + text + "\n")
    with pytest.raises(InvalidInputError, match=r"bad\.jsonl:2"):
        read_trace(path)


def test_presence_config_validation() -> None:
    with pytest.raises(InvalidInputError, match="min_reads"):
        PresenceConfig(min_reads=0)
