"""``python -m bench.bench_replay``: replay every shared PHH hand through the engine, timed.

Reads every ``.phh`` file under ``../shared/data/phh`` (or the given paths), then replays
each hand through :mod:`engine.phh` and compares the finishing stacks, with no equity. It
prints the time to read (TOML parsing) and to replay, as the median of ``--repeat`` runs,
and hands per second. Target (issue 3): everything under 5 s on the development machine.
The exit status is 1 if any hand fails to replay to its recorded stacks.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

from engine import phh
from overlay import phh_files

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "phh"
TARGET_SECONDS = 5.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_replay",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=[DEFAULT_DATA])
    parser.add_argument("--repeat", type=int, default=3, help="runs (median reported)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)

    files = list(phh_files.iter_files(args.paths))
    if not files:
        print("no .phh files found", file=sys.stderr)
        return 2
    reads: list[float] = []
    replays: list[float] = []
    failures: list[str] = []
    for _ in range(max(1, args.repeat)):
        start = time.perf_counter()
        histories = [phh_files.load(path) for path in files]
        middle = time.perf_counter()
        results = [phh.verify(history) for history in histories]
        end = time.perf_counter()
        reads.append(middle - start)
        replays.append(end - middle)
        failures = [f"{r.source}: {r.message}" for r in results if not r.passed]
    read, replay = statistics.median(reads), statistics.median(replays)
    total = read + replay
    figures = {
        "hands": len(files), "failed": len(failures), "read_s": round(read, 3),
        "replay_s": round(replay, 3), "total_s": round(total, 3),
        "hands_per_s": round(len(files) / replay, 1), "target_s": TARGET_SECONDS,
        "repeat": args.repeat, "python": platform.python_version(),
        "machine": platform.machine(),
    }
    print(f"{len(files)} hands: read {read:.2f} s, replay {replay:.2f} s "
          f"({figures['hands_per_s']:,} hands/s), total {total:.2f} s "
          f"(target < {TARGET_SECONDS:.0f} s: {'met' if total < TARGET_SECONDS else 'MISSED'})")
    for line in failures:
        print(line)
    print(f"{len(files) - len(failures)} passed, {len(failures)} failed")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
