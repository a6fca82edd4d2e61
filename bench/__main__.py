"""``python -m bench``: Feltcast's exact equity against the peers, side by side in one run.

For each scenario S1-S9 of issue 2 it times ``engine.equity.equity`` (median of ``--repeat``
calls after one warm-up call) and each peer in the plain enumeration loop (median of
``--peer-repeat`` runs), checks that every peer's win and split counts equal Feltcast's, and
prints medians and ratios. It also measures, in a fresh interpreter, how long the lookup
tables take to build and how much memory they add. Results go to
``bench/results/equity-<UTC time>.json``; the exit status is 1 if any result disagrees.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .peers import PEERS, Tally, applies, available
from .scenarios import (
    MAX_MS,
    MAX_TABLE_MB,
    MAX_TABLE_SECONDS,
    MIN_RATIO_VS_PHEVALUATOR,
    SCENARIOS,
    Scenario,
)

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"

_TABLE_PROBE = """
import json, os, time
import numpy
def rss():
    with open('/proc/self/statm') as f:
        return int(f.read().split()[1]) * os.sysconf('SC_PAGE_SIZE')
before = rss()
start = time.perf_counter()
import engine.equity
from engine import _tables as t
seconds = time.perf_counter() - start
arrays = [v for v in vars(t).values() if isinstance(v, numpy.ndarray)]
print(json.dumps({"seconds": seconds, "rss_added_mb": (rss() - before) / 2**20,
                  "table_mb": sum(a.nbytes for a in arrays) / 2**20}))
"""


def measure_tables(runs: int = 3) -> dict[str, float]:
    """Import time and memory of the tables in fresh interpreters (median of ``runs``)."""
    samples = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", _TABLE_PROBE], cwd=ROOT, check=True,
                              capture_output=True, text=True)
        samples.append(json.loads(done.stdout))
    return {key: statistics.median(s[key] for s in samples) for key in samples[0]}


def timed(call: Callable[[], Any], repeat: int) -> tuple[list[float], Any]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return times, result


def feltcast_tally(scenario: Scenario) -> tuple[Tally, Any]:
    from engine.equity import equity

    result = equity(list(scenario.hands), scenario.board, scenario.dead)
    tally = (tuple(p.wins for p in result.players), tuple(p.ties for p in result.players))
    return tally, result


def run_scenario(scenario: Scenario, peers: list[str], repeat: int,
                 peer_repeat: int) -> dict[str, Any]:
    from engine.equity import equity

    def call() -> Any:
        return equity(list(scenario.hands), scenario.board, scenario.dead)

    first, _ = timed(call, 1)
    times, _ = timed(call, repeat)
    tally, result = feltcast_tally(scenario)
    row: dict[str, Any] = {
        "scenario": scenario.name,
        "label": scenario.label,
        "boards": result.boards,
        "equity": [str(p.equity) for p in result.players],
        "wins": list(tally[0]),
        "ties": list(tally[1]),
        "feltcast": {"median_ms": 1e3 * statistics.median(times), "min_ms": 1e3 * min(times),
                     "first_call_ms": 1e3 * first[0], "runs": repeat},
        "peers": {},
    }
    for name in peers:
        if not applies(name, scenario):
            continue
        run_peer: Callable[[Scenario], Tally] = PEERS[name]
        peer_times, peer_tally = timed(lambda: run_peer(scenario), peer_repeat)  # noqa: B023
        median = 1e3 * statistics.median(peer_times)
        row["peers"][name] = {
            "median_ms": median,
            "min_ms": 1e3 * min(peer_times),
            "runs": peer_repeat,
            "ratio": median / row["feltcast"]["median_ms"],
            "agrees": peer_tally == tally,
        }
    return row


def print_row(row: dict[str, Any], peers: list[str]) -> None:
    cells = [f"{row['scenario']:<4}", f"{row['boards']:>10,}",
             f"{row['feltcast']['median_ms']:>9.2f}"]
    for name in peers:
        peer = row["peers"].get(name)
        if peer is None:
            cells.append(f"{'-':>11} {'':>7}")
        else:
            mark = "" if peer["agrees"] else " MISMATCH"
            cells.append(f"{peer['median_ms']:>11.1f} {peer['ratio']:>6.0f}x{mark}")
    print("  ".join(cells), flush=True)


def check_targets(rows: list[dict[str, Any]], tables: dict[str, float]) -> list[str]:
    lines = []
    for row in rows:
        name, ms = row["scenario"], row["feltcast"]["median_ms"]
        ok = ms <= MAX_MS[name]
        lines.append(f"{'ok  ' if ok else 'MISS'} {name} median {ms:.2f} ms <= {MAX_MS[name]:g} ms")
        need = MIN_RATIO_VS_PHEVALUATOR.get(name)
        peer = row["peers"].get("phevaluator")
        if need is not None and peer is not None:
            ok = peer["ratio"] >= need
            lines.append(f"{'ok  ' if ok else 'MISS'} {name} {peer['ratio']:.0f}x the "
                         f"phevaluator loop >= {need:g}x")
        for peer_name, peer in row["peers"].items():
            if not peer["agrees"]:
                lines.append(f"MISS {name} {peer_name} disagrees with Feltcast")
    ok = tables["seconds"] < MAX_TABLE_SECONDS
    lines.append(f"{'ok  ' if ok else 'MISS'} tables built in {tables['seconds']:.2f} s "
                 f"< {MAX_TABLE_SECONDS:g} s")
    ok = tables["rss_added_mb"] <= MAX_TABLE_MB
    lines.append(f"{'ok  ' if ok else 'MISS'} tables add {tables['rss_added_mb']:.1f} MB "
                 f"(arrays {tables['table_mb']:.1f} MB) <= {MAX_TABLE_MB:g} MB")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=25, help="Feltcast calls per scenario")
    parser.add_argument("--peer-repeat", type=int, default=3, help="peer runs per scenario")
    parser.add_argument("--peers", default=",".join(PEERS),
                        help="comma-separated peers to run (empty for none)")
    parser.add_argument("--scenarios", default=",".join(s.name for s in SCENARIOS))
    parser.add_argument("--table-runs", type=int, default=3,
                        help="fresh interpreters timing the table build")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for the JSON file")
    args = parser.parse_args(argv)

    wanted = [p for p in args.peers.split(",") if p]
    versions = available(["feltcast", "numpy", *wanted])
    peers = [p for p in wanted if versions.get(p)]
    for missing in sorted(set(wanted) - set(peers)):
        print(f"peer {missing} is not installed: skipped (pip install -e '.[bench]')")
    chosen = [s for s in SCENARIOS if s.name in args.scenarios.split(",")]
    load_before = os.getloadavg()

    tables = measure_tables(args.table_runs)
    print(f"tables: {tables['seconds']:.2f} s to build, {tables['rss_added_mb']:.1f} MB added")
    print(f"{'':4}  {'boards':>10}  {'feltcast':>9}  "
          + "  ".join(f"{p:>11} {'ratio':>7}" for p in peers))
    print(f"{'':4}  {'':>10}  {'ms':>9}  " + "  ".join(f"{'ms':>11} {'':>7}" for _ in peers))
    rows = []
    for scenario in chosen:
        row = run_scenario(scenario, peers, args.repeat, args.peer_repeat)
        rows.append(row)
        print_row(row, peers)
    load_after = os.getloadavg()
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} "
          f"on {os.cpu_count()} CPUs")
    target_lines = check_targets(rows, tables)
    print("\n".join(target_lines))

    when = datetime.now(UTC).isoformat(timespec="seconds")
    report = {
        "when": when,
        "machine": {"python": platform.python_version(), "platform": platform.platform(),
                    "cpus": os.cpu_count(), "load_before": load_before,
                    "load_after": load_after},
        "versions": versions,
        "tables": tables,
        "scenarios": rows,
        "targets": target_lines,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"equity-{when.replace(':', '')[:17]}.json"
    path.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    others = sorted(f"python -m bench.{p.stem}" for p in Path(__file__).parent.glob("bench_*.py"))
    if others:
        print("other benchmarks: " + ", ".join(others))
    agree = all(p["agrees"] for row in rows for p in row["peers"].values())
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
