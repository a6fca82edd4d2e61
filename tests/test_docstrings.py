"""The examples in the docstrings of every module are true (they are the first thing a reader
tries)."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted(
    ".".join(path.relative_to(ROOT).with_suffix("").parts)
    for package in ("engine", "capture", "overlay")
    for path in (ROOT / package).rglob("*.py")
    if path.name != "__main__.py")


def test_the_modules_are_found() -> None:
    assert {"engine.cards", "capture.rfid.protocol", "overlay.app"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"
