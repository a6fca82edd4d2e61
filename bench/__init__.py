"""Benchmarks: ``python -m bench`` (or ``make bench``) runs them and writes bench/results/."""

from datetime import UTC, datetime
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def save_result(name: str, text: str) -> Path:
    """Write a benchmark's JSON ``text`` to ``bench/results/<name>-<UTC time>.json``."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}-{datetime.now(UTC):%Y%m%dT%H%M%SZ}.json"
    path.write_text(text + "\n")
    return path
