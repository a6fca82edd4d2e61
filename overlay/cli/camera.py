"""``feltcast camera``: card recognition with OpenCV (``capture/camera/``).

Actions: ``calibrate`` (learn a deck's templates), ``recognize`` (the cards in still images),
``eval`` (the synthetic precision/recall evaluation).
"""

from __future__ import annotations

import argparse

from overlay.cli import add_group

#: action -> (module, one-line help). Keep sorted by name.
ACTIONS: dict[str, tuple[str, str]] = {
    "calibrate": ("overlay.cli.camera_calibrate",
                  "learn a camera deck from one image per card, or from the camera"),
    "eval": ("overlay.cli.camera_eval",
             "precision and recall of the recogniser on synthetic table scenes"),
    "recognize": ("overlay.cli.camera_recognize",
                  "the cards in still images: codes, corners and scores"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_group(parser, ACTIONS)


def run(args: argparse.Namespace) -> int:  # pragma: no cover - argparse dispatches actions
    raise AssertionError("argparse dispatches to the action's run")
