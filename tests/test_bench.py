"""The benchmark runs end to end (timings are not checked here: they belong to bench/)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_bench_runs_and_peers_agree(tmp_path: Path) -> None:
    # The two smallest scenarios, so that the peers' plain loops finish quickly.
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--scenarios", "S7,S8", "--repeat", "2",
         "--peer-repeat", "1", "--table-runs", "1", "--peers", "phevaluator,eval7,pokerkit",
         "--out", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(next(tmp_path.glob("equity-*.json")).read_text())
    s7, s8 = report["scenarios"]
    assert (s7["scenario"], s7["boards"], s8["boards"]) == ("S7", 40, 1)
    for row in (s7, s8):
        assert set(row["peers"]) == {"phevaluator", "eval7", "pokerkit"}
        assert all(peer["agrees"] for peer in row["peers"].values())
    assert s8["ties"] == [1, 1, 0, 0, 0, 0, 0, 0, 0]  # the two tens split the river
    assert report["tables"]["seconds"] > 0
