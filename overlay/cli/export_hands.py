"""``feltcast export hands``: the log's hands as PHH, PokerStars text or Open Hand History.

``feltcast export hands --format phh|pokerstars|ohh [--hands 12-40,45] --out DIR`` reads the
table log (``--data-dir`` / ``--url`` / ``--config``, read only, streamed) and writes:

* ``phh``: one ``.phh`` file per hand (PHH keeps one hand per file):
  ``<table>-hand-0012.phh``;
* ``pokerstars``: one ``.txt`` file for the session, hands separated by two empty lines (as
  PokerStars writes its own files; trackers import the file or the folder):
  ``<table>-hands-12-40.txt``;
* ``ohh``: one ``.ohh`` file for the session, one JSON object per hand separated by an empty
  line (the OHH storage format): ``<table>-hands-12-40.ohh``.

With ``--config``, the configuration's ``[tournament]`` (name, currency, prize pool,
entrants) goes into the files with the places and prizes the log holds (issue 10).

The log is read up to its head at the start (entries the service appends meanwhile are left
for the next export), and every file carries that head (issue 18,
:mod:`overlay.export.log_head`): PHH in ``_feltcast_log_head``, OHH in each hand's ``flags``,
PokerStars text in ``<file>.feltcast.json`` beside it; stdout prints it too.
``feltcast log verify --export FILE`` checks the log against it later.

Void hands (misdeal, R13) and a hand still running are skipped with a note on stderr, where
progress goes too; stdout gets a summary line and the head. Exit status 0 when hands were
written, 2 on bad input (no log, no hand in the range, a folder that cannot be written).
"""

from __future__ import annotations

import argparse
import re
import sys
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from overlay.store import EventStore

FORMATS = ("phh", "pokerstars", "ohh")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", required=True, choices=FORMATS,
                        help="phh (one file per hand), pokerstars or ohh (one file per "
                             "session)")
    parser.add_argument("--hands", default="", metavar="RANGE",
                        help="hand numbers, e.g. 12-40,45 (default: every hand)")
    parser.add_argument("--out", required=True, type=Path, metavar="DIR",
                        help="the folder to write to (created if missing)")
    parser.add_argument("--config", type=Path, default=None,
                        help="feltcast.toml: its data directory, database, table name and "
                             "[tournament] (name, currency, prize pool)")
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="the data directory holding feltcast.db (default: data)")
    parser.add_argument("--url", default="", help="a sqlite:/// or postgresql:// URL "
                                                  "instead of the data directory")
    parser.add_argument("--table", default=None, metavar="NAME",
                        help="the table's name in the files (default: the configuration's, "
                             "else 'Final Table')")
    parser.add_argument("--event", default="", metavar="NAME",
                        help="the event's name (PHH 'event' field)")


def run(args: argparse.Namespace) -> int:
    return run_export(args, sys.stdout, sys.stderr)


def slug(text: str) -> str:
    """An ASCII file-name stem: ``Zoë's Final`` -> ``zoes-final`` (OHH wants ASCII names)."""
    text = text.replace("'", "").replace("\u2019", "")
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-") or "table"


class _Output:
    """The folder being written, checked before the first hand is read."""

    def __init__(self, folder: Path) -> None:
        from engine.errors import ConfigError

        try:
            folder.mkdir(parents=True, exist_ok=True)
            probe = folder / ".feltcast-write-test"
            probe.write_text("", encoding="utf-8")
            probe.unlink()
        except OSError as error:
            raise ConfigError("--out", f"cannot write to {folder}: "
                                       f"{error.strerror or error}") from None
        self.folder = folder

    def write(self, name: str, text: str) -> Path:
        from engine.errors import ConfigError

        path = self.folder / name
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as error:
            raise ConfigError("--out", f"cannot write {path}: {error.strerror or error}") \
                from None
        return path


def run_export(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from engine.errors import HandHistoryError, InvalidInputError, NoPhhSpellingError
    from overlay.config import load_config
    from overlay.export import ohh, phh, pokerstars
    from overlay.export.hands import DEFAULT_TABLE, TournamentInfo, parse_hand_range, read_hands
    from overlay.export.log_head import SIDECAR_SUFFIX, current_head, entries_to, sidecar_text
    from overlay.store import open_existing_store

    numbers = parse_hand_range(args.hands) if args.hands else None
    config = load_config(args.config) if args.config is not None else None
    data_dir = args.data_dir or (config.data_dir if config else Path("data"))
    url_text = args.url or (config.database_url if config else "")
    table = args.table or (config.table.name if config else DEFAULT_TABLE)
    info = TournamentInfo.from_config(config) if config else TournamentInfo()
    store = open_existing_store(url_text, data_dir)
    output = _Output(args.out)
    try:
        head = current_head(store)  # the export reads the log up to here, and carries it
        started = _hand_numbers(store, head.seq)
        total = sum(1 for n in started if numbers is None or n in numbers)
        if total == 0:
            if numbers is None:
                raise InvalidInputError("the log holds no hands yet: nothing to export")
            raise InvalidInputError(f"no hand numbered {args.hands} in the log (it holds "
                                    f"hands {_span(started)})")
        tournament = pokerstars.tournament_id(store.log_id)
        stem = slug(table)
        written: list[int] = []
        texts: list[str] = []
        skipped: list[str] = []
        unspellable: list[int] = []
        tty = err.isatty()
        for done, record in enumerate(read_hands(entries_to(store, head), numbers=numbers,
                                                 table=table, tournament=info), 1):
            reason = phh.skip_reason(record)
            try:
                if reason is not None:
                    raise HandHistoryError(reason)
                if args.format == "phh":
                    name = f"{stem}-hand-{record.number:04d}{phh.EXTENSION}"
                    if record.number in written:  # the log started a new table numbering
                        name = f"{stem}-hand-{record.number:04d}-{record.first_seq}.phh"
                    output.write(name, phh.phh_text(record, event=args.event,
                                                    log_head=head))
                elif args.format == "pokerstars":
                    texts.append(pokerstars.pokerstars_text(record, tournament=tournament))
                else:
                    texts.append(ohh.ohh_text(record, tournament=tournament, log_head=head))
            except HandHistoryError as error:
                if isinstance(error, NoPhhSpellingError):
                    unspellable.append(record.number)
                note = str(error).removeprefix(f"hand {record.number}: ")
                skipped.append(f"hand {record.number} skipped: {note}")
                print(f"\n{skipped[-1]}" if tty else skipped[-1], file=err)
            else:
                written.append(record.number)
            line = f"[{done}/{total}] hand {record.number}"
            print(f"\r{line}" if tty else line, end="" if tty else "\n", file=err, flush=True)
        if tty:
            print(file=err)
        if not written:
            raise InvalidInputError(f"no hand could be exported ({'; '.join(skipped)})")
        files = len(written)
        if args.format != "phh":
            module = pokerstars if args.format == "pokerstars" else ohh
            name = f"{stem}-hands-{written[0]}-{written[-1]}{module.EXTENSION}"
            path = output.write(name, module.SEPARATOR.join(texts) + "\n")
            files = 1
            if module is pokerstars:  # the text has no place for the head: a sidecar
                output.write(name + SIDECAR_SUFFIX, sidecar_text(head, path))
        notes = f"; {len(skipped)} skipped (see above)" if skipped else ""
        if unspellable:
            one = len(unspellable) == 1
            notes += (f"; {'hand' if one else 'hands'} {', '.join(map(str, unspellable))} "
                      f"{'has' if one else 'have'} no PHH spelling (a live ruling of R5; the "
                      f"pokerstars and ohh formats keep {'it' if one else 'them'})")
        where = (f" and its log head in {name}{SIDECAR_SUFFIX}"
                 if args.format == "pokerstars" else "")
        print(f"exported {len(written)} hand(s) as {args.format} to {args.out} "
              f"({files} file(s){where}){notes}", file=out)
        print(f"log chain head {head} (feltcast log verify --head checks the log against it "
              f"later; every file carries it: --export FILE)", file=out)
        return 0
    finally:
        store.close()


def _hand_numbers(store: EventStore, until: int) -> list[int]:
    """The number of every hand the log started up to entry ``until`` (for the progress line
    and the error of a range the log does not hold), read without replaying."""
    import sqlalchemy as sa

    query = sa.text("SELECT payload FROM table_event WHERE kind = 'hand_started' AND "
                    "seq <= :until")
    with store.engine.connect() as conn:
        return [_hand_number(payload) for (payload,) in conn.execute(query, {"until": until})]


def _hand_number(payload: str) -> int:
    import json

    number = json.loads(payload).get("hand_number", 0)
    return number if isinstance(number, int) else 0


def _span(numbers: list[int]) -> str:
    found = sorted(set(numbers))
    return f"{found[0]}-{found[-1]}" if found else "none"
