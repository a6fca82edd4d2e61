"""What a test does when a system package it talks to is missing."""

from __future__ import annotations

import os
import shutil
from typing import NoReturn

import pytest

ENABLE = "`make test` (or `make system-deps`) installs the Debian packages and enables it"
"""What every skip for a missing system package says would enable the test."""


def missing_system_package(reason: str) -> NoReturn:
    """Skip locally with ``reason`` (why: which package is missing) and what would enable the
    test (:data:`ENABLE`), but fail under CI, where ``make test`` has installed it, so a broken
    setup never passes as skipped tests."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (under CI this is a setup error, not a skip)")
    pytest.skip(f"skipped: {reason}; {ENABLE}")


def unless_installed(installed: bool, reason: str) -> pytest.MarkDecorator:
    """A ``skipif`` marker for a missing system package that never skips under CI (there the
    test runs and fails, see :func:`missing_system_package`)."""
    return pytest.mark.skipif(not installed and os.environ.get("CI") != "true",
                              reason=f"skipped: {reason}; {ENABLE}")


needs_ffmpeg = unless_installed(
    shutil.which("ffmpeg") is not None and shutil.which("ffprobe") is not None,
    "ffmpeg/ffprobe not installed (make test installs Debian's ffmpeg)")
"""For tests that run Debian's ffmpeg (video export, chapters, the video benchmark)."""
