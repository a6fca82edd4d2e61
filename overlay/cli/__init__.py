"""The ``feltcast`` command line.

Each subcommand lives in its own module of this package with two functions:
``add_arguments(parser)`` and ``run(args) -> int`` (the exit status). Modules import their
heavy dependencies inside ``run`` so that ``feltcast --help`` stays fast.

A command with actions of its own (``feltcast camera calibrate``, ``feltcast export video``)
is a *group*: its module calls :func:`add_group` with ``{action: (module, help)}``, and each
action module again has ``add_arguments`` and ``run``.

Exit statuses: 0 success, 1 a check failed (e.g. ``phh verify`` mismatches), 2 bad input or
a service that cannot start here (a busy port, a data directory that cannot be written, a
database that cannot be opened, a table's log another service writes: one line each), 3 a
service that stopped by itself (another service took its table's log over: a supervisor
starts it again, as a standby), 130 Ctrl-C, 141 the reader of the output went away
(``feltcast log show | head``: no traceback).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from engine.errors import FeltcastError
from overlay import __version__

#: name -> (module, one-line help). Keep sorted by name.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "audit": ("overlay.cli.audit", "who could see hole cards live in a time window"),
    "camera": ("overlay.cli.camera", "calibrate decks, recognise cards in images, evaluate"),
    "deck": ("overlay.cli.deck", "register, list, activate and retire RFID decks"),
    "demo": ("overlay.cli.demo", "a simulated final table: the whole product, live in a browser"),
    "equity": ("overlay.cli.equity", "exact all-in equity of known hands on any street"),
    "export": ("overlay.cli.export", "hand histories and video with the graphics burned in"),
    "festival": ("overlay.cli.festival", "a festival's tournament director's service: seat "
                                         "draw, balancing, hand-for-hand, final table"),
    "import": ("overlay.cli.imports", "hand histories recorded elsewhere, for the exports"),
    "init": ("overlay.cli.init", "write a commented feltcast.toml for a new show"),
    "log": ("overlay.cli.log", "the table log: its size, and what a channel showed when"),
    "obs": ("overlay.cli.obs", "set up and check OBS Studio over obs-websocket"),
    "phh": ("overlay.cli.phh", "verify PHH hand histories against the engine, or show one"),
    "players": ("overlay.cli.players", "import player names, countries and photos from CSV"),
    "serve": ("overlay.cli.serve", "run the service: pages, channels, API, devices"),
    "tokens": ("overlay.cli.tokens", "a token per device: create, list, revoke"),
    "tls": ("overlay.cli.tls", "the show's own certificate authority and server certificate"),
    "worker": ("overlay.cli.worker", "a festival's web worker: every table's public pages, "
                                     "relayed from Redis"),
}


def add_group(parser: argparse.ArgumentParser, commands: dict[str, tuple[str, str]]) -> None:
    """Give ``parser`` one sub-parser per action in ``commands`` (name -> (module, help))."""
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, (module_name, help_text) in commands.items():
        module = importlib.import_module(module_name)
        sub = actions.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(sub)
        sub.set_defaults(_run=module.run)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand; only ``command``'s module is imported (all of them
    when it is None). Every subcommand is listed in ``feltcast --help`` from
    :data:`SUBCOMMANDS` alone, so a command starts without importing the others (the video
    export's OpenCV, the evaluator's tables)."""
    parser = argparse.ArgumentParser(
        prog="feltcast",
        description="Feltcast: broadcast overlays for live poker final tables.",
    )
    parser.add_argument("--version", action="version", version=f"feltcast {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        if command is None or name == command:
            module = importlib.import_module(module_name)
            module.add_arguments(sub)
            sub.set_defaults(_run=module.run)
    return parser


def chosen_command(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names (its first word that is no option), if it is one."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in SUBCOMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(chosen_command(words) or "")
    args = parser.parse_args(words)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    from overlay.startup import StartupError

    try:
        status: int = args._run(args)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
    except FeltcastError as error:
        if isinstance(error, ValueError | StartupError):
            print(f"feltcast {args.command}: error: {error}", file=sys.stderr)
            return 2
        print(f"feltcast {args.command}: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, as a shell tool does on SIGPIPE.
        # stdout is pointed at /dev/null so that the interpreter's flush at exit is silent.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 141
    return status


if __name__ == "__main__":
    sys.exit(main())
