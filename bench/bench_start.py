"""``python -m bench.bench_start``: how long a start takes against the length of the log.

For each log length (``--sizes``, default 1,000, 20,000 and 100,000 entries) it writes a
tournament log of that length (a nine-handed table played through the engine: hole cards,
actions, undos, boards, showdowns, misdeals, busts and re-seats, as the service logs them) into
a fresh SQLite data directory (a field of twelve: a busted player re-enters, so that the
standings stay a final table's), then measures, in the same run:

* **replay**: a start that replays the whole log (what every start did before checkpoints,
  and what a start still does when no checkpoint is valid: ``checkpoint_every = 0``);
* **checkpoint**: a start after a crash, from the newest checkpoint plus a tail of
  ``--tail`` entries logged after it (median of ``--repeat`` starts, each on a fresh copy);
* **fresh**: a start on an empty log (the yardstick: the target is a checkpoint start of at
  most 2 s and 1.5x a fresh start, at every length).

A start is timed from ``create_app`` until the service answers ``/api/config``, in this
process (no interpreter start-up). The checkpoint's size is reported too, and how long taking
one holds the event loop (the pickling; compressing and writing run in a thread). Results go to
``bench/results/start-<UTC time>.json``; the exit status is 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from bench import save_result
from engine.cards import FULL_DECK
from engine.events import Event
from engine.log import TableEvent
from engine.table_events import ButtonSet, LevelStarted, PlayerSeated
from overlay.app import create_app
from overlay.auth import SHARED_ROLES, rotate_tokens
from overlay.config import Config, parse_config
from overlay.keys import CHECKPOINTS_KEY, TABLE_KEY
from overlay.store import open_store
from overlay.table_service import build_table
from tests.log.hands import drive_hand

T0 = 1_764_500_000.0
TARGET_SECONDS = 2.0
TARGET_RATIO = 1.5


def bench_config(data: Path, every: int) -> Config:
    return parse_config({"table": {"name": "Start Bench", "seats": 9, "button": 1},
                         "delay": {"seconds": 900}, "channels": {"secure": {"enabled": True}},
                         "database": {"checkpoint_every": every}, "data_dir": str(data)})


class LogWriter:
    """A table played through the engine, its events written as the service logs them."""

    def __init__(self, config: Config, seed: int) -> None:
        self.table = build_table(config)
        self.rng = random.Random(seed)
        self.now = T0
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
                                             ends_at=T0 + 10 * 365 * 86400)]
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



async def timed_start(data: Path, every: int, now: float) -> tuple[float, Any]:
    """Seconds from ``create_app`` until the service answers; the app (still running)."""
    tokens = rotate_tokens(data, SHARED_ROLES)
    started = time.perf_counter()
    app = create_app(bench_config(data, every), clock=lambda: now, tokens=tokens)
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    response = await client.get("/api/config")
    assert response.status == 200
    return time.perf_counter() - started, client


async def measure(size: int, tail: int, repeat: int, root: Path) -> dict[str, Any]:
    data = root / f"log-{size}"
    writer = LogWriter(bench_config(data, 1000), seed=size)
    writer.write(data, size)
    replay, client = await timed_start(data, 0, writer.now)  # no checkpoint: the whole log
    await client.close()
    every = 1000  # the default; the tail below is written while no service runs
    _, client = await timed_start(data, every, writer.now)  # full replay, then a clean stop:
    await client.close()  # the checkpoint at the end of the log
    writer.write(data, tail)  # logged after the newest checkpoint, then the crash
    from overlay.store import create_db_engine, database_url

    engine = create_db_engine(database_url("", data))
    with engine.connect() as conn:
        kept = conn.exec_driver_sql("SELECT seq, length(state) FROM state_checkpoint "
                                    "ORDER BY seq DESC LIMIT 1").one()
        total = conn.exec_driver_sql("SELECT max(seq) FROM table_event").scalar_one()
    engine.dispose()
    times = []
    for k in range(repeat):
        copy = root / f"copy-{size}-{k}"
        shutil.copytree(data, copy)
        seconds, client = await timed_start(copy, every, writer.now)
        times.append(seconds)
        service = client.server.app[TABLE_KEY]
        begun = time.perf_counter()  # what a checkpoint costs the event loop (the pickling)
        captured = service._capture(client.server.app[CHECKPOINTS_KEY], service.log.published)
        capture_ms = (time.perf_counter() - begun) * 1000
        await client.close()
        shutil.rmtree(copy)
    shutil.rmtree(data)
    return {"entries": total, "checkpoint_at": kept[0], "checkpoint_bytes": kept[1],
            "tail": total - kept[0], "replay_s": round(replay, 3),
            "checkpoint_s": round(statistics.median(times), 3),
            "checkpoint_runs_s": [round(t, 3) for t in times],
            "capture_ms": round(capture_ms, 1), "captured_bytes": len(captured.pickled)}


async def fresh_start(root: Path, repeat: int) -> float:
    times = []
    for k in range(repeat):
        seconds, client = await timed_start(root / f"fresh-{k}", 1000, T0)
        times.append(seconds)
        await client.close()
    return statistics.median(times)


async def run(sizes: list[int], tail: int, repeat: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="feltcast-bench-start-") as tmp:
        root = Path(tmp)
        fresh = await fresh_start(root, repeat)
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
    print(f"fresh start {figures['fresh_s']:.2f} s (median of {figures['repeat']})")
    text = json.dumps(figures, indent=2)
    if not args.no_save:
        print(f"saved to {save_result('start', text)}")
    missed = [row for row in figures["rows"] if row["checkpoint_s"] > TARGET_SECONDS
              or row["checkpoint_s"] > TARGET_RATIO * figures["fresh_s"]]
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
