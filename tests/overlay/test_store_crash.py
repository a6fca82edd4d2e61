"""Crash safety: a real writer process killed with SIGKILL in the middle of hands, restarted,
killed again; every acknowledged event is in the log, in order, exactly once."""

from __future__ import annotations

import itertools
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from engine.channels import BUILTIN_CHANNELS, due_items
from overlay.hub import ChannelHub, EventListReducer, TableLog
from overlay.store import open_store
from tests.overlay.crash_writer import event_stream

ROOT = Path(__file__).resolve().parents[2]


def run_and_kill(url: str, seed: int, acks_before_kill: int, rng: random.Random) -> int:
    """Start the writer, let it acknowledge some batches, SIGKILL it; returns the last
    acknowledged sequence number."""
    proc = subprocess.Popen([sys.executable, "-m", "tests.overlay.crash_writer", url, str(seed)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None and proc.stderr is not None
    acked = 0
    try:
        first = proc.stdout.readline()
        assert first.startswith("start "), first + proc.stderr.read()
        for _ in range(acks_before_kill):
            line = proc.stdout.readline()
            assert line.startswith("ack "), line + proc.stderr.read()
            acked = int(line.split()[1])
        time.sleep(rng.random() * 0.005)  # land anywhere in the next append
        os.kill(proc.pid, signal.SIGKILL)
        # Acks already written before the kill count as acknowledged too.
        for line in proc.stdout:
            if line.startswith("ack "):
                acked = int(line.split()[1])
    finally:
        proc.kill()
        proc.wait(10)
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    return acked


async def test_sigkill_mid_stream_loses_no_acknowledged_event(db_url: str) -> None:
    seed = 4242
    rng = random.Random(seed)
    acked = 0
    for _round in range(3):
        before = acked
        acked = run_and_kill(db_url, seed, rng.randint(15, 120), rng)
        assert acked > before
        store = open_store(db_url)
        persisted = store.read()
        # Nothing acknowledged is lost; at most the unacknowledged in-flight batch is extra.
        assert store.last_seq >= acked
        assert [e.seq for e in persisted] == list(range(1, store.last_seq + 1))
        expected = list(itertools.islice(event_stream(seed), store.last_seq))
        assert [e.payload for e in persisted] == expected
        store.close()
        acked = max(acked, len(persisted))
    # The service restarts from the log: the replayed channel equals the log's filter.
    table_log = TableLog(open_store(db_url), [ChannelHub(BUILTIN_CHANNELS["venue"],
                                                         EventListReducer())])
    replayed = await table_log.start()
    hub = table_log.hub("venue")
    entries = table_log.store.read()
    assert replayed == len(entries) >= acked
    assert hub.snapshot_message().data["view"]["items"] == [
        item.to_dict() for item in due_items(BUILTIN_CHANNELS["venue"], entries, float("inf"))]
    await table_log.close()
