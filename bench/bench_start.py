"""``python -m bench.bench_start``: how long a start takes against the length of the log.

For each log length (``--sizes``, default 1,000, 20,000 and 100,000 entries) it writes a
tournament log of that length (a nine-handed table played through the engine: hole cards,
actions, undos, boards, showdowns, misdeals, busts and re-seats, as the service logs them) into
a fresh SQLite data directory (a field of twelve: a busted player re-enters, so that the
standings stay a final table's, and there are thousands of bust-outs), then measures, in the
same run, starts of a real ``feltcast serve`` (its own process, the machine's clock), each
timed from the process start until the service answers ``/api/config``, as an operator waits
for it:

* **replay**: a start that replays the whole log (what every start did before checkpoints,
  and what a start still does when no checkpoint is valid); its clean stop takes a checkpoint
  at the end of the log;
* **checkpoint**: a start after a crash (SIGKILL), from that checkpoint plus a tail of
  ``--tail`` entries logged after it, up to the present (median of ``--repeat`` starts, each
  on a fresh copy; the service's own log line must say it started from the checkpoint);
* **fresh**: a start on an empty data directory (the yardstick: the target is a checkpoint
  start of at most 2 s and 1.5x a fresh start, at every length).

The checkpoint's size is reported too, and how long taking one holds the event loop (the
pickling, measured in this process; compressing and writing run in a thread). Results go to
``bench/results/start-<UTC time>.json``; the exit status is 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import re
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp.test_utils import TestClient, TestServer

from bench import save_result
from engine.cards import FULL_DECK
from engine.events import Event
from engine.log import TableEvent
from engine.table_events import ButtonSet, LevelStarted, PlayerSeated
from overlay.app import create_app
from overlay.auth import SHARED_ROLES, rotate_tokens
from overlay.config import Config, config_to_toml, parse_config
from overlay.keys import CHECKPOINTS_KEY, TABLE_KEY
from overlay.store import create_db_engine, database_url, open_store
from overlay.table_service import build_table
from tests.hands import drive_hand

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 2.0
TARGET_RATIO = 1.5
SECONDS_PER_ENTRY = 0.85
"""About the log time an entry of :class:`LogWriter` takes (0, 0.5 or 2 s)."""
START_TIMEOUT = 3600.0
"""A start that takes longer is a failure (a full replay of 1,000,000 entries takes minutes)."""


def bench_config(data: Path, every: int) -> Config:
    return parse_config({"table": {"name": "Start Bench", "seats": 9, "button": 1},
                         "delay": {"seconds": 900}, "channels": {"secure": {"enabled": True}},
                         "database": {"checkpoint_every": every}, "data_dir": str(data)})


class LogWriter:
    """A table played through the engine, its events written as the service logs them."""

    def __init__(self, config: Config, seed: int, *, start: float) -> None:
        self.table = build_table(config)
        self.rng = random.Random(seed)
        self.now = self.start = start
        self.seq = 0
        self.joined = 0
        self._batches = self.batches()  # one table, continued by every write

    def _entries(self, events: list[Event]) -> list[TableEvent]:
        out = []
        for event in events:
            self.seq += 1
            self.now += self.rng.choice((0.0, 0.5, 2.0))
            out.append(TableEvent.record(self.seq, self.now, event, source="engine"))
        return out

    def _seat(self, seat: int) -> PlayerSeated:
        self.joined += 1  # a busted player re-enters under his name: a field of 12
        name = f"Player {(self.joined - 1) % 12 + 1}"
        while name in self.table.names.values():
            self.joined += 1
            name = f"Player {(self.joined - 1) % 12 + 1}"
        event = PlayerSeated(seat, name, self.rng.choice((2000, 5000, 9000)))
        self.table.seat_player(event.seat, event.name, event.stack)
        return event

    def batches(self) -> Iterator[list[TableEvent]]:
        """Endless: the seating, then one hand (and its re-seats) per batch."""
        table = self.table
        first: list[Event] = [self._seat(seat) for seat in range(1, 10)]
        table.set_button(1)
        level = table.structure.level(1)
        first += [ButtonSet(1), LevelStarted(level.number, level.small_blind, level.big_blind,
                                             level.ante, str(table.rules.ante_mode),
                                             ends_at=self.start + 10 * 365 * 86400)]
        yield self._entries(first)
        while True:
            hand = table.start_hand()
            deck = list(FULL_DECK)
            self.rng.shuffle(deck)
            drive_hand(hand, self.rng, deck)
            events: list[Event] = [*hand.events, *table.finish_hand()]
            events += [self._seat(seat) for seat in range(1, 10) if seat not in table.stacks]
            yield self._entries(events)

    def write(self, data: Path, count: int) -> int:
        """Append about ``count`` entries (whole hands) to the log in ``data``."""
        store = open_store("", data)
        self.seq = store.last_seq  # after what the service itself logged (device reports)
        written = 0
        batch: list[TableEvent] = []
        try:
            for entries in self._batches:
                batch += entries
                written += len(entries)
                if len(batch) >= 2000 or written >= count:
                    store.append(batch)
                    batch = []
                if written >= count:
                    break
        finally:
            store.close()
        return written



@dataclass(frozen=True)
class Start:
    seconds: float
    """From the process start until the service answers ``/api/config``."""
    from_checkpoint: int | None
    """The checkpoint's entry the service started from (None: it replayed the whole log)."""
    replayed: int
    """Entries the start replayed."""


async def process_start(root: Path, data: Path, every: int, *, crash: bool) -> Start:
    """Start ``feltcast serve`` on ``data`` (its own process, the machine's clock) and time it
    until it answers; then stop it: cleanly (SIGTERM: a checkpoint at the log's end) or, with
    ``crash``, with SIGKILL."""
    config = root / f"feltcast-{every}.toml"
    if not config.exists():
        config.write_text(config_to_toml(bench_config(data, every)))
    begun = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "overlay", "serve", "--config", str(config), "--data", str(data),
        "--port", "0", cwd=ROOT, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert process.stdout is not None and process.stderr is not None
    errors = asyncio.create_task(process.stderr.read())  # drained: a full pipe blocks the child
    output: asyncio.Task[bytes] | None = None
    try:
        async with asyncio.timeout(START_TIMEOUT):
            while (line := (await process.stdout.readline()).decode()) and " serving " not in line:
                pass
            found = re.search(r" on https?://[^ ]+:(\d+) ", line)
            if found is None:
                raise RuntimeError(f"feltcast serve did not start: {line!r}")
            async with aiohttp.ClientSession() as session, session.get(
                    f"http://127.0.0.1:{found[1]}/api/config") as response:
                assert response.status == 200, response.status
        seconds = time.perf_counter() - begun
        output = asyncio.create_task(process.stdout.read())
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGKILL if crash else signal.SIGTERM)
        await process.wait()
        if output is not None:
            await output
    log = (await errors).decode()
    started = re.search(r"started from the checkpoint at entry (\d+): (\d+) events", log)
    if started is not None:
        return Start(seconds, int(started[1]), int(started[2]))
    replayed = re.search(r"log replayed: (\d+) events", log)
    if replayed is None:
        raise RuntimeError(f"feltcast serve did not say how it started:\n{log}")
    return Start(seconds, None, int(replayed[1]))


async def capture_hold(data: Path) -> tuple[float, int]:
    """How long taking a checkpoint holds the event loop (the pickling, in milliseconds) in
    a service started on ``data`` (in this process), and the bytes pickled."""
    app = create_app(bench_config(data, 1000), tokens=rotate_tokens(data, SHARED_ROLES))
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    try:
        service = app[TABLE_KEY]
        begun = time.perf_counter()
        captured = service._capture(app[CHECKPOINTS_KEY], service.log.published)
        return (time.perf_counter() - begun) * 1000, len(captured.pickled)
    finally:
        await client.close()


async def measure(size: int, tail: int, repeat: int, root: Path) -> dict[str, Any]:
    data = root / f"log-{size}"
    # The show ran until about an hour ago (the delay has released all of it) ...
    writer = LogWriter(bench_config(data, 1000), seed=size,
                       start=time.time() - SECONDS_PER_ENTRY * size - 3600)
    writer.write(data, size)
    # ... a start replays it all (no checkpoint yet); its clean stop takes the checkpoint ...
    replay = await process_start(root, data, 1000, crash=False)
    # ... then the table played on, up to now, and the service was killed: the crash.
    writer.now = max(writer.now, time.time() - SECONDS_PER_ENTRY * tail - 120)
    writer.write(data, tail)
    engine = create_db_engine(database_url("", data))
    with engine.connect() as conn:
        kept = conn.exec_driver_sql("SELECT seq, length(state) FROM state_checkpoint "
                                    "ORDER BY seq DESC LIMIT 1").one()
        total = conn.exec_driver_sql("SELECT max(seq) FROM table_event").scalar_one()
    engine.dispose()
    starts = []
    for k in range(repeat):
        copy = root / f"copy-{size}-{k}"
        shutil.copytree(data, copy)
        starts.append(await process_start(root, copy, 1000, crash=True))
        shutil.rmtree(copy)
    if any(start.from_checkpoint != kept[0] for start in starts):
        raise RuntimeError(f"a start did not use the checkpoint at entry {kept[0]}: {starts}")
    capture_ms, captured = await capture_hold(data)
    shutil.rmtree(data)
    times = [start.seconds for start in starts]
    return {"entries": total, "checkpoint_at": kept[0], "checkpoint_bytes": kept[1],
            "tail": starts[0].replayed, "replay_s": round(replay.seconds, 3),
            "replayed": replay.replayed, "checkpoint_s": round(statistics.median(times), 3),
            "checkpoint_runs_s": [round(t, 3) for t in times],
            "capture_ms": round(capture_ms, 1), "captured_bytes": captured}


async def fresh_start(root: Path, repeat: int) -> float:
    times = [(await process_start(root, root / f"fresh-{k}", 1000, crash=False)).seconds
             for k in range(repeat)]
    return statistics.median(times)


async def run(sizes: list[int], tail: int, repeat: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="feltcast-bench-start-") as tmp:
        root = Path(tmp)
        fresh = await fresh_start(root, repeat)
        print(f"a fresh start: {fresh:.2f} s (median of {repeat})", flush=True)
        rows = []
        for size in sizes:
            row = await measure(size, tail, repeat, root)
            row["ratio_to_fresh"] = round(row["checkpoint_s"] / fresh, 2)
            rows.append(row)
            print(f"{row['entries']:>9,} entries: replay {row['replay_s']:7.2f} s, from the "
                  f"checkpoint at {row['checkpoint_at']:,} (+{row['tail']} entries, "
                  f"{row['checkpoint_bytes'] / 1e6:.1f} MB) {row['checkpoint_s']:.2f} s = "
                  f"{row['ratio_to_fresh']:.2f}x a fresh start; a capture holds the loop "
                  f"{row['capture_ms']:.0f} ms", flush=True)
    return {"fresh_s": round(fresh, 3), "rows": rows, "tail": tail, "repeat": repeat,
            "target_s": TARGET_SECONDS, "target_ratio": TARGET_RATIO,
            "python": platform.python_version(), "machine": platform.machine()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_start",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,20000,100000",
                        help="log lengths, comma-separated (default 1000,20000,100000)")
    parser.add_argument("--tail", type=int, default=500,
                        help="entries logged after the newest checkpoint (default 500)")
    parser.add_argument("--repeat", type=int, default=3, help="starts per length (median)")
    parser.add_argument("--no-save", action="store_true", help="do not write bench/results")
    args = parser.parse_args(argv)
    sizes = [int(part.replace("_", "")) for part in args.sizes.split(",") if part]
    figures = asyncio.run(run(sizes, args.tail, max(1, args.repeat)))
    text = json.dumps(figures, indent=2)
    if not args.no_save:
        print(f"saved to {save_result('start', text)}")
    missed = [row for row in figures["rows"] if row["checkpoint_s"] > TARGET_SECONDS
              or row["checkpoint_s"] > TARGET_RATIO * figures["fresh_s"]]
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
