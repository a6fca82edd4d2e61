"""bench/bench_video.py runs end to end on tiny footage and reports every figure (speed
belongs to the benchmark, not to this test)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.system_packages import needs_ffmpeg

ROOT = Path(__file__).resolve().parents[3]


@needs_ffmpeg
@pytest.mark.skipif(not (ROOT.parent / "shared" / "data" / "phh").is_dir(),
                    reason="the shared PHH hands are not beside the checkout")
def test_bench_video_runs_and_reports_every_figure() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.bench_video", "--seconds", "0.5", "--size", "320x180",
         "--pairs", "2", "--no-save"], cwd=ROOT, capture_output=True, text=True, timeout=240,
        check=False)
    assert done.returncode in (0, 1), done.stderr  # 1: a target missed on a busy machine
    report = json.loads(done.stdout)
    runs = report["runs"]
    assert set(runs) == {"feltcast_short", "feltcast_long", "feltcast_via_opencv_short",
                         "feltcast_alpha_short", "feltcast_timeline_short",
                         "ffmpeg_plain_encode_short", "ffmpeg_png_overlay_short",
                         "ffmpeg_drawtext_short"}
    assert runs["feltcast_short"]["frames"] == 15 and runs["feltcast_long"]["frames"] == 60
    assert runs["feltcast_long"]["pictures"] >= runs["feltcast_short"]["pictures"] >= 1
    assert all(run["seconds"] > 0 and run["realtime"] > 0 for run in runs.values())
    assert set(report["ratios"]) == {"feltcast_via_opencv_short", "feltcast_alpha_short",
                                     "feltcast_timeline_short", "ffmpeg_plain_encode_short",
                                     "ffmpeg_png_overlay_short", "ffmpeg_drawtext_short"}
    assert runs["feltcast_timeline_short"]["frames"] == 15
    assert set(report["checks"]) == {
        "realtime>=1 (short)", "realtime>=1 (long)", "realtime>=2 (short, issue 23)",
        "time<=1.15x the plain encode (short, paired, issue 23)",
        "alpha realtime>=1 (short, issue 23)",
        "memory_flat (long rss <= short*1.1+20MB)",
        "memory_flat (long: 2nd half max rss <= 1st half max*1.05+10MB)"}
    assert runs["feltcast_long"]["rss_second_half_max_mb"] > 0
    overhead = report["overhead"]  # two pairs of back-to-back runs, compared by medians
    assert len(overhead["feltcast_seconds"]) == len(overhead["plain_seconds"]) == 2
    assert overhead["ratio_of_medians"] > 0
    # the pairs untraced, as an editor's export runs; the memory runs traced
    assert overhead["feltcast_traced"] is False and runs["feltcast_long"]["tracemalloc_peak_mb"] > 0
