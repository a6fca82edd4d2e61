"""The ICM benchmark runs end to end and agrees with its peer (timings belong to bench/)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_bench_icm_runs_and_the_peer_agrees(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.bench_icm", "--scenarios", "A,C", "--repeat", "2",
         "--out", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(next(tmp_path.glob("icm-*.json")).read_text())
    a, c = report["scenarios"]
    assert (a["scenario"], a["players"], a["paid"], c["paid"]) == ("A", 10, 3, 10)
    assert a["boards"] == 820 and a["outcomes"] == c["outcomes"] > 3  # C(41, 2) turn+river
    assert a["peer"]["agrees"] and a["peer"]["max_abs_diff"] <= 1e-9
    assert c["peer"] is None  # 10! finishing orders: the plain recursion is left out
    assert all(row["icm_ms"] > 0 and row["allin_ms"] > 0 for row in (a, c))
    assert "agrees" in done.stdout
