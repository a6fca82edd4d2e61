"""Smoke tests of the page benchmarks: they run end to end on a tiny load and report every
figure (timing targets are the benchmarks' business, never a unit test's)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bench import bench_operator_overlay, bench_operator_taps, bench_pages
from tests.pages.conftest import CHROMIUM
from tests.system_packages import unless_installed

pytestmark = unless_installed(CHROMIUM.exists(), "Debian's chromium is not installed: "
                                                 "`make system-deps` installs it")


def test_bench_pages_reports_every_figure() -> None:
    result = bench_pages.run(patches=10, interval_ms=5, width=1280, height=720)
    assert result["size"] == "1280x720"
    for key in ("page_ms", "render_ms", "end_to_end_ms", "painted_ms"):
        figures = result[key]
        assert figures["n"] == 10
        assert 0 <= figures["p50"] <= figures["p95"] <= figures["p99"] <= figures["max"]


def test_bench_pages_times_the_composed_program_unthrottled() -> None:
    result = bench_pages.run(patches=10, interval_ms=5, width=1280, height=720,
                             page_name="program", unthrottled=True)
    assert (result["page"], result["frame_rate"]) == ("program", "unlimited")
    assert result["render_ms"] is None  # its frames render inside its message handling
    for key in ("page_ms", "end_to_end_ms", "painted_ms"):
        figures = result[key]
        assert figures["n"] == 10
        assert 0 <= figures["p50"] <= figures["p95"] <= figures["p99"] <= figures["max"]


def test_bench_operator_overlay_reports_every_figure(tmp_path: Path) -> None:
    result = bench_operator_overlay.run(actions=4, root=tmp_path / "serve")
    assert result["latency_ms"]["n"] == 4
    assert result["call_ms"]["n"] == 2 and result["undo_ms"]["n"] == 2
    assert 0 < result["latency_ms"]["p50"] <= result["latency_ms"]["max"]


def test_bench_operator_taps_counts_every_action_of_both_consoles(tmp_path: Path) -> None:
    result = bench_operator_taps.run(actions=4, root=tmp_path)
    new = result["new"]
    assert set(new["taps"]) == set(bench_operator_taps.ACTIONS)
    assert new["taps"]["raise_2.5x"] <= 2 and new["taps"]["r8_ruling"] == 1
    assert not any(new["scrolled"].values())  # one screen per hand
    assert new["latency_ms"]["n"] == 4
    old = result["old"]
    if old is None:  # only when this checkout's history lacks the console before issue 20
        known = subprocess.run(["git", "-C", str(bench_operator_taps.ROOT), "cat-file", "-e",
                                f"{bench_operator_taps.OLD_REVISION}^{{commit}}"],
                               capture_output=True, check=False).returncode == 0
        assert not known, "the old console is in the history, yet the bench did not run it"
        return
    assert set(old["taps"]) == set(bench_operator_taps.ACTIONS)
    assert old["taps"]["raise_2.5x"] > new["taps"]["raise_2.5x"]
    assert old["taps"]["bet_half_pot"] > new["taps"]["bet_half_pot"]
    assert any(old["scrolled"].values())
    assert result["p95_ratio_new_to_old"] > 0
