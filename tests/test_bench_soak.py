"""The show-day soak (``bench.bench_soak``), short: a real ``feltcast serve`` killed with
SIGKILL at random moments while the operator's commands flow and a delayed viewer follows,
the reader unplugged and plugged in again, OBS unreachable. Nothing acknowledged is lost or
applied twice, the log has no gap, the delayed viewer gets every item once and none early,
and the chips add up in every hand. (The full run's figures are the README's.)"""

from __future__ import annotations

import argparse
import asyncio

from bench.bench_soak import run


def test_a_short_show_day_with_crashes_loses_nothing() -> None:
    args = argparse.Namespace(hands=8, kill_every=2.0, min_kills=3, reader_faults=2,
                              delay=1.0, seed=7, calm_hands=2)
    figures = asyncio.run(run(args))
    assert figures["kills"] >= 3 and figures["start_s"]["count"] == figures["kills"] + 1
    assert figures["acknowledged"] > 100
    assert (figures["lost"], figures["applied_twice"]) == (0, 0)
    assert (figures["log_gaps"], figures["log_duplicates"]) == (0, 0)
    assert figures["delayed_events"] > 0
    assert (figures["delayed_early"], figures["delayed_duplicates"],
            figures["delayed_revision_gaps"], figures["delayed_missed"]) == (0, 0, 0, 0)
    assert figures["hands_checked_for_chips"] >= 8 and figures["chips_broken"] == 0
    assert figures["reader_faults"] >= 1
