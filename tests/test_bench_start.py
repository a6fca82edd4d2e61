"""``bench.bench_start`` end to end on a tiny log (the figures themselves are the README's,
from a full run): real ``feltcast serve`` processes; a start after the crash replays only the
tail after the checkpoint (the service's own word), and the bench reports it."""

from __future__ import annotations

import asyncio

from bench.bench_start import run


def test_the_start_bench_measures_a_replay_and_a_checkpoint_start() -> None:
    figures = asyncio.run(run([400], tail=60, repeat=1))
    (row,) = figures["rows"]
    assert row["entries"] >= 460 and row["checkpoint_at"] >= 400
    assert 60 <= row["tail"] <= 200  # whole hands written after the stop's checkpoint
    assert row["replayed"] >= 400 and row["entries"] == row["checkpoint_at"] + row["tail"]
    assert row["checkpoint_bytes"] > 0
    assert row["replay_s"] > 0 and row["checkpoint_s"] > 0 and figures["fresh_s"] > 0
    assert abs(row["ratio_to_fresh"] - row["checkpoint_s"] / figures["fresh_s"]) < 0.1
