"""Smoke tests of the page benchmarks: they run end to end on a tiny load and report every
figure (timing targets are the benchmarks' business, never a unit test's)."""

from __future__ import annotations

from pathlib import Path

from bench import bench_operator_overlay, bench_pages
from tests.pages.conftest import CHROMIUM
from tests.system_packages import unless_installed

pytestmark = unless_installed(CHROMIUM.exists(), "Debian's chromium is not installed: "
                                                 "`make system-deps` installs it")


def test_bench_pages_reports_every_figure() -> None:
    result = bench_pages.run(patches=10, interval_ms=5)
    for key in ("page_ms", "render_ms", "end_to_end_ms"):
        figures = result[key]
        assert figures["n"] == 10
        assert 0 <= figures["p50"] <= figures["p95"] <= figures["p99"] <= figures["max"]


def test_bench_operator_overlay_reports_every_figure(tmp_path: Path) -> None:
    result = bench_operator_overlay.run(actions=4, root=tmp_path / "serve")
    assert result["latency_ms"]["n"] == 4
    assert result["call_ms"]["n"] == 2 and result["undo_ms"]["n"] == 2
    assert 0 < result["latency_ms"]["p50"] <= result["latency_ms"]["max"]
