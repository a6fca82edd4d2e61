"""``feltcast phh``: verify PHH hand histories against the engine, or show one hand.

``feltcast phh verify PATH...`` replays every ``.phh`` file (folders are searched) and
compares each finishing stack: one line per mismatch, then ``N passed, M failed``; the exit
status is 1 when any hand failed. ``feltcast phh show FILE`` prints the hand street by street
with the pots and the exact equity of the known hands still in it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="phh_command", metavar="ACTION", required=True)
    verify = sub.add_parser("verify", help="replay hands and compare finishing stacks",
                            description="Replay each PHH hand through the engine and compare "
                                        "every finishing stack.")
    verify.add_argument("paths", nargs="+", metavar="PATH", help="a .phh file or a folder")
    verify.add_argument("-q", "--quiet", action="store_true",
                        help="print only mismatches and the summary line")
    show = sub.add_parser("show", help="print a hand street by street with equities",
                          description="Print a PHH hand street by street: actions, pots and "
                                      "each known hand's equity.")
    show.add_argument("file", metavar="FILE")
    show.add_argument("--no-equity", action="store_true", help="skip the equity figures")


def run(args: argparse.Namespace) -> int:
    if args.phh_command == "verify":
        return run_verify([Path(p) for p in args.paths], sys.stdout)
    return run_show(Path(args.file), sys.stdout, equity=not args.no_equity)


def run_verify(paths: list[Path], out: TextIO) -> int:
    from engine import phh
    from engine.errors import FeltcastError
    from overlay import phh_files

    passed = failed = unchecked = 0
    for path in paths:
        if not path.exists():
            print(f"{path}: no such file or folder", file=out)
            failed += 1
    for path in phh_files.iter_files(p for p in paths if p.exists()):
        try:
            result = phh.verify(phh_files.load(path))
        except FeltcastError as error:
            print(f"{path}: {error}", file=out)
            failed += 1
            continue
        if result.passed:
            passed += 1
            if not result.checked:
                unchecked += 1
                print(f"{path}: {result.message}", file=out)
        else:
            failed += 1
            print(f"{path}: {result.message}", file=out)
    if unchecked:
        print(f"{unchecked} hand(s) without finishing_stacks were replayed to the end only",
              file=out)
    print(f"{passed} passed, {failed} failed", file=out)
    return 1 if failed or not passed else 0


def run_show(path: Path, out: TextIO, *, equity: bool = True) -> int:
    from engine import phh
    from engine.show import render
    from overlay import phh_files

    history = phh_files.load(path)
    hand = phh.replay(history)
    title = history.extra.get("event") or path.name
    print(render(hand, title=str(title), equity=equity), file=out)
    return 0
