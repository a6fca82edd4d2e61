"""``python -m bench.bench_capture``: reader line to capture event, over a real pseudo-terminal.

The capture share of issue 6's "reader line to ``secure`` channel message" budget (p99 30 ms,
equity included). A simulated reader on a pty writes one inventory round (13 ``INV`` lines)
in which a new card lies on the board; the time from just before the write until
:class:`RfidCapture`'s sink receives the ``BoardCardRead`` is one sample. Debouncing is set to
accept the first read (``min_reads=1``, ``settle_s=0``) so that the figure is the cost of the
path (pty, serial transport, line decoding, presence tracking), not the debounce wait, which
is a configured delay (default 2 reads, >= 0.15 s).

Results go to ``bench/results/capture-<UTC time>.json``; exit status 1 if p99 > ``--target``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from capture.rfid.antenna_map import AntennaMap
from capture.rfid.presence import PresenceConfig
from capture.rfid.reader import ReaderConfig, RfidCapture
from capture.rfid.transports import SerialEndpoint
from capture.simulator import BOARD_ANTENNA, SimulatedReader, simulated_deck, simulated_uid
from engine.capture_events import BoardCardRead, CaptureEvent, CardRemoved
from engine.cards import FULL_DECK

RESULTS = Path(__file__).resolve().parent / "results"


async def measure(samples: int) -> list[float]:
    latencies: list[float] = []
    arrived: asyncio.Queue[tuple[CaptureEvent, float]] = asyncio.Queue()

    def sink(event: CaptureEvent) -> None:
        arrived.put_nowait((event, time.perf_counter()))

    async def next_of(kind: type) -> tuple[CaptureEvent, float]:
        while True:
            event, at = await arrived.get()
            if isinstance(event, kind):
                return event, at

    with tempfile.TemporaryDirectory() as tmp:
        async with SimulatedReader("bench", scan_interval=3600) as sim:
            path = await sim.open_pty(Path(tmp) / "reader")
            config = ReaderConfig("bench", SerialEndpoint(path), watchdog_s=3600)
            presence = PresenceConfig(min_reads=1, settle_s=0.0, release_s=0.0001,
                                      release_misses=1)
            capture = RfidCapture([config], AntennaMap.standard("bench"), simulated_deck(),
                                  sink, presence=presence, tick_s=3600)
            async with capture:
                while not capture.coordinators["bench"].firmware:
                    await asyncio.sleep(0.01)
                for i in range(samples):
                    uid = simulated_uid(FULL_DECK[i % 52])
                    sim.place(BOARD_ANTENNA, uid)
                    start = time.perf_counter()
                    sim.scan()
                    _, at = await next_of(BoardCardRead)
                    latencies.append((at - start) * 1000)
                    sim.remove(BOARD_ANTENNA, uid)
                    await asyncio.sleep(0.001)
                    sim.scan()
                    await next_of(CardRemoved)
    return latencies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--target", type=float, default=30.0, help="p99 bound in ms")
    args = parser.parse_args(argv)
    latencies = asyncio.run(measure(args.samples))
    quantiles = statistics.quantiles(latencies, n=100)
    result = {
        "benchmark": "capture: reader line to capture event over a pty",
        "samples": len(latencies),
        "median_ms": statistics.median(latencies),
        "p99_ms": quantiles[98],
        "max_ms": max(latencies),
        "target_p99_ms": args.target,
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"capture-{datetime.now(UTC):%Y-%m-%dT%H%M%S}.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    print(f"written to {out}")
    return 0 if result["p99_ms"] <= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
