"""``feltcast import``: data recorded elsewhere, brought into a Feltcast log.

Actions: ``hands`` (PHH and PokerStars hand histories, into a log every export reads).
"""

from __future__ import annotations

import argparse

from overlay.cli import add_group

#: action -> (module, one-line help). Keep sorted by name.
ACTIONS: dict[str, tuple[str, str]] = {
    "hands": ("overlay.cli.import_hands", "PHH and PokerStars hand histories, into a log the "
                                          "exports read"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_group(parser, ACTIONS)


def run(args: argparse.Namespace) -> int:  # pragma: no cover - argparse dispatches actions
    raise AssertionError("argparse dispatches to the action's run")
