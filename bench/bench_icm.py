"""``python -m bench.bench_icm``: ICM for ten players with every all-in outcome, timed.

A ten-handed final table; four players are all in on the flop (a main pot and two side pots;
two of them hold the same ace-king, so some outcomes split), and the same all-in before the
flop.
For each payout scenario it times, as the median of ``--repeat`` runs after a warm-up:

* **icm**: Feltcast's prize equity (:func:`engine.icm.icm_batch`) of every outcome of the
  all-in plus the stacks before it, the part issue 10 targets (<= 5 ms);
* **allin**: all of :func:`engine.icm.allin_outcomes` (the exact count over every remaining
  board, the pots paid per outcome, R22 places for the busted, and the ICM above);

and, once (``--peer-repeat``), the peer a user would otherwise pick: the plain recursive
Malmuth-Harville formula without memoisation (a search of PyPI found no maintained ICM
package), over the same outcomes. It checks that every equity agrees to 1e-9 and prints the
times and ratios. Results go to ``bench/results/icm-<UTC time>.json``; the exit status is 1 if
any result disagrees.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from engine.icm import allin_outcomes, icm_batch
from engine.pots import Pot

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
TARGET_MS = 5.0

SEATS = tuple(range(1, 11))
START = (3000, 8000, 12000, 5000, 7000, 9000, 4000, 6000, 10000, 11000)
# Seats 1-4 all in on the flop: 3,000 x 4 in the main pot, 2,000 x 3 and 3,000 x 2 in the
# side pots; seat 3 covers everyone.
STACKS = (0, 0, 4000, 0, *START[4:])
POTS = (Pot(12000, (1, 2, 3, 4)), Pot(6000, (2, 3, 4)), Pot(6000, (2, 3)))
HANDS = {1: "AsKd", 2: "AhKc", 3: "JhTh", 4: "9c9d"}
BOARD = "Ts9h2s"


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    what: str
    prizes: tuple[int, ...]
    peer: bool = True
    board: str = BOARD


SCENARIOS = (
    Scenario("A", "3 places paid (the seeds' table up to 10 entrants)", (5000, 3000, 2000)),
    Scenario("B", "6 places paid (the seeds' table for 31-44 entrants)",
             (3400, 2200, 1700, 1300, 900, 500)),
    Scenario("C", "all 10 places paid (a custom table)",
             (2800, 1800, 1300, 1000, 800, 700, 600, 500, 300, 200), peer=False),
    Scenario("D", "6 places paid, the same all-in before the flop",
             (3400, 2200, 1700, 1300, 900, 500), board=""),
)


def plain_icm(stacks: Sequence[float], prizes: Sequence[float]) -> list[float]:
    """The textbook recursion: every finishing order of the paid places, no memoisation."""
    equity = [0.0] * len(stacks)

    def place(left: tuple[int, ...], k: int, probability: float) -> None:
        if k >= len(prizes) or not left:
            return
        total = sum(stacks[i] for i in left)
        for i in left:
            if stacks[i] <= 0:
                continue
            p = probability * stacks[i] / total
            equity[i] += p * prizes[k]
            place(tuple(j for j in left if j != i), k + 1, p)

    place(tuple(range(len(stacks))), 0, 1.0)
    return equity


def timed(call: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def run(scenario: Scenario, repeat: int, peer_repeat: int) -> dict[str, Any]:
    def allin() -> Any:
        return allin_outcomes(seats=SEATS, stacks=STACKS, start_stacks=START, pots=POTS,
                              hands=HANDS, prizes=scenario.prizes, board=scenario.board)

    allin()  # warm-up (tables, layer indexes)
    allin_s, report = timed(allin, repeat)
    rows = np.array([*(o.stacks for o in report.outcomes), START], dtype=np.float64)
    icm_s, ours = timed(lambda: icm_batch(rows, scenario.prizes), repeat)
    row: dict[str, Any] = {
        "scenario": scenario.name, "what": scenario.what, "players": len(SEATS),
        "board": scenario.board or "pre-flop",
        "paid": len(scenario.prizes), "outcomes": len(report.outcomes),
        "boards": report.boards, "icm_ms": icm_s * 1000, "allin_ms": allin_s * 1000,
        "target_ms": TARGET_MS, "met": icm_s * 1000 <= TARGET_MS, "peer": None,
    }
    if scenario.peer:
        peer_s, theirs = timed(lambda: [plain_icm(r.tolist(), scenario.prizes) for r in rows],
                               peer_repeat)
        worst = float(np.abs(np.array(theirs) - ours).max())
        row["peer"] = {"name": "plain recursion (no memo)", "ms": peer_s * 1000,
                       "ratio": peer_s / icm_s, "max_abs_diff": worst, "agrees": worst <= 1e-9}
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_icm",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", default=",".join(s.name for s in SCENARIOS),
                        help="comma-separated scenario names (default: all)")
    parser.add_argument("--repeat", type=int, default=50, help="Feltcast runs (median)")
    parser.add_argument("--peer-repeat", type=int, default=1, help="peer runs (median)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results directory")
    args = parser.parse_args(argv)
    wanted = {name.strip() for name in args.scenarios.split(",")}
    unknown = wanted - {s.name for s in SCENARIOS}
    if unknown:
        parser.error(f"unknown scenario(s): {', '.join(sorted(unknown))}")

    load_before = os.getloadavg()[0]
    rows = [run(s, max(1, args.repeat), max(1, args.peer_repeat))
            for s in SCENARIOS if s.name in wanted]
    print(f"ICM, {len(SEATS)} players, a four-way all-in (flop {BOARD}) "
          f"(load {load_before:.1f} on {os.cpu_count()} cpus)")
    for row in rows:
        line = (f"{row['scenario']}: {row['what']}: {row['outcomes']} outcomes over "
                f"{row['boards']:,} boards; ICM "
                f"{row['icm_ms']:.2f} ms (target <= {TARGET_MS:.0f} ms: "
                f"{'met' if row['met'] else 'MISSED'}); whole all-in with the exact board count "
                f"{row['allin_ms']:.2f} ms")
        peer = row["peer"]
        if peer is not None:
            line += (f"; {peer['name']} {peer['ms']:.1f} ms, {peer['ratio']:.0f}x slower, "
                     f"{'agrees' if peer['agrees'] else 'DISAGREES'} "
                     f"(max diff {peer['max_abs_diff']:.1e})")
        print(line)
    when = datetime.now(UTC).isoformat(timespec="seconds")
    report = {"when": when,
              "machine": {"python": platform.python_version(), "platform": platform.platform(),
                          "cpus": os.cpu_count(), "load_before": load_before,
                          "load_after": os.getloadavg()[0]},
              "numpy": np.__version__, "scenarios": rows}
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"icm-{when.replace(':', '')[:17]}.json"
    path.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    agree = all(r["peer"] is None or r["peer"]["agrees"] for r in rows)
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
