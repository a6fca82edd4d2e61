"""What a test does when a system package it talks to is missing."""

from __future__ import annotations

import os
import shutil
from typing import NoReturn

import pytest


def missing_system_package(reason: str) -> NoReturn:
    """Skip locally with ``reason`` (which names what installs the package), but fail under CI,
    where ``make test`` has installed it, so a broken setup never passes as skipped tests."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (under CI this is a setup error, not a skip)")
    pytest.skip(reason)


def unless_installed(installed: bool, reason: str) -> pytest.MarkDecorator:
    """A ``skipif`` marker for a missing system package that never skips under CI (there the
    test runs and fails, see :func:`missing_system_package`)."""
    return pytest.mark.skipif(not installed and os.environ.get("CI") != "true", reason=reason)


needs_ffmpeg = unless_installed(
    shutil.which("ffmpeg") is not None and shutil.which("ffprobe") is not None,
    "ffmpeg/ffprobe not installed (make test installs Debian's ffmpeg)")
"""For tests that run Debian's ffmpeg (video export, chapters, the video benchmark)."""
