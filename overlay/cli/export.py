"""``feltcast export``: what editors of a filmed final table take away from the event log.

Actions: ``hands`` (hand histories: PHH, PokerStars, Open Hand History), ``timeline`` (the
editors' timeline: OTIO, FCP 7 XML, FCPXML, MLT) and ``video`` (the overlay graphics burned
into footage, or an animated replay of a hand history).
"""

from __future__ import annotations

import argparse

from overlay.cli import add_group

#: action -> (module, one-line help). Keep sorted by name.
ACTIONS: dict[str, tuple[str, str]] = {
    "hands": ("overlay.cli.export_hands", "hand histories: PHH, PokerStars text, Open Hand "
                                          "History"),
    "timeline": ("overlay.cli.export_timeline", "the editors' timeline: footage, the "
                                                "graphics on their own track, a marker per "
                                                "hand (OTIO, FCP XML, FCPXML, MLT)"),
    "video": ("overlay.cli.export_video", "the overlay graphics burned into footage, or a "
                                          "hand history animated"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_group(parser, ACTIONS)


def run(args: argparse.Namespace) -> int:  # pragma: no cover - argparse dispatches actions
    raise AssertionError("argparse dispatches to the action's run")
