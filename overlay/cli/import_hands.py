"""``feltcast import hands FILE... --data DIR``: hand histories recorded elsewhere (PHH,
PokerStars text) into a log of their own, for every export (see :mod:`overlay.importing`
and docs/export.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = ("Each hand is replayed by the engine before it is written; a hand it "
                     "refuses is left out with the reason. Importing the same hands again "
                     "adds nothing. Then: feltcast export hands|video --data-dir DIR.")
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE",
                        help=".phh, .phhs or PokerStars .txt files, or folders holding them")
    parser.add_argument("--data", type=Path, default=Path("data"), metavar="DIR",
                        help="the data directory of the imported log (default data/; created "
                             "if missing; never a show's own)")


def run(args: argparse.Namespace) -> int:
    return run_import(args, sys.stdout, sys.stderr)


def run_import(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from engine.errors import ConfigError, InvalidInputError
    from overlay.importing import Imported, import_hands, iter_sources
    from overlay.store import SQLITE_FILE, open_store

    missing = [str(p) for p in args.files if not p.exists()]
    if missing:
        raise InvalidInputError(f"no such file or folder: {', '.join(missing)}")
    if not any(True for _ in iter_sources(args.files)):
        raise InvalidInputError("no hand-history files there (.phh, .phhs or PokerStars "
                                ".txt)")
    try:
        args.data.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError("--data", f"cannot create {args.data}: {error.strerror or error}") \
            from None
    store = open_store(data_dir=args.data)
    imported: list[int] = []
    skipped = duplicates = 0
    tty = err.isatty()
    try:
        for done, result in enumerate(import_hands(store, args.files), 1):
            if isinstance(result, Imported):
                imported.append(result.number)
                line = f"[{done}] {result.source}: hand {result.number}"
                print(f"\r{line}" if tty else line, end="" if tty else "\n", file=err,
                      flush=True)
                continue
            if result.duplicate_of is not None:
                duplicates += 1
            else:
                skipped += 1
            print(f"{chr(10) if tty else ''}{result.source} skipped: {result.reason}",
                  file=err, flush=True)
    finally:
        store.close()
    if tty:
        print(file=err)
    if not imported and not duplicates:
        raise InvalidInputError(f"no hand could be imported ({skipped} left out, see above)")
    notes = "".join((f"; {skipped} left out (see above)" if skipped else "",
                     f"; {duplicates} already there" if duplicates else ""))
    numbers = f" as hands {_numbers(imported)}" if imported else ""
    print(f"imported {len(imported)} hand(s) into {args.data / SQLITE_FILE}{numbers}{notes}",
          file=out)
    if imported:
        print(f"export them: feltcast export hands --format phh|pokerstars|ohh --data-dir "
              f"{args.data} --out DIR", file=out)
    return 0


def _numbers(numbers: list[int]) -> str:
    """``1-12, 15`` for the numbers given (runs collapsed)."""
    runs: list[str] = []
    ordered = sorted(numbers)
    start = prev = ordered[0]
    for number in [*ordered[1:], None]:
        if number is not None and number == prev + 1:
            prev = number
            continue
        runs.append(str(start) if start == prev else f"{start}-{prev}")
        if number is not None:
            start = prev = number
    return ", ".join(runs)
