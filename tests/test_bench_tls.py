"""bench/bench_tls.py runs end to end on a tiny load and reports every figure, plain and TLS
side by side (the figures themselves are the benchmark's business, never a unit test's)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_bench_tls_reports_both_sides_and_the_ratios() -> None:
    done = subprocess.run([sys.executable, "-m", "bench.bench_tls", "--no-save",
                           "--connections", "20", "--clients", "5", "--seconds", "2"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    for side in ("plain", "tls"):
        assert report[f"handshakes_{side}"]["connections"] == 20
        assert report[f"handshakes_{side}"]["per_s"] > 0
        fan = report[f"fanout_{side}"]
        assert fan["connected"] == 5 and fan["gaps"] == 0 and fan["early"] == 0
    assert report["handshake_rate_ratio"] > 0 and report["fanout_cpu_ratio"] > 0
