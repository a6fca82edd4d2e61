"""The end-to-end capture benchmark runs and times what it says (timings are bench/'s job)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bench_capture_service_runs(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.bench_capture_service", "--hands", "2",
         "--target", "1e9", "--out", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(next(tmp_path.glob("capture-service-*.json")).read_text())
    kinds = report["by_kind"]
    # Nine-handed: eight pairs without equity, then the last pair with it, and three streets.
    assert [kinds[k]["samples"] for k in ("hole", "hole_equity", "flop", "turn", "river")] \
        == [16, 2, 2, 2, 2]
    assert report["with_equity"]["samples"] == 8
    assert 0 < report["with_equity"]["median_ms"] < 10_000
