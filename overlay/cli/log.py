"""``feltcast log``: look into the table log without the service running.

``feltcast log info`` prints the log's id, schema version and size by secrecy class.
``feltcast log show --channel venue --at TIME`` prints, as JSON lines, exactly what a channel
had released at a moment (default: now): the audit question "what did the venue screens, or
the stream, show at 21:14?". ``--view`` prints instead the view the channel's pages had at that
moment (``docs/view-model.md``), drawn by the service's own reducer
(:func:`overlay.channel_views.view_reducers`); ``--config`` gives the table's configuration
(its channels, table name, seats, blind structure, tournament) as the service had it.
The log is read from ``<data-dir>/feltcast.db`` or ``--url``; nothing is written.

``feltcast log backup --to DIR`` copies the whole data directory while the service runs: the
SQLite log through SQLite's online backup API (a consistent snapshot, never a half-written
page; the service goes on writing meanwhile), checked with ``PRAGMA integrity_check`` and read
back, and every other file (tokens, photos) as it is. ``DIR`` is a data directory another
machine can start from (``docs/show-day.md``).

``feltcast log verify [--head SEQ:HASH | --export FILE]`` checks the hash chain and the signed
checkpoints (:mod:`overlay.log_verify`) and that the log holds the head an export printed or
the one an exported file carries (:mod:`overlay.export.log_head`): exit status 0 when it does
and the log is intact, 1 when not, 2 for a file that carries no head.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from overlay.store import EventStore


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="log_command", metavar="ACTION", required=True)
    for name, text in (("info", "the log's id, schema version and size"),
                       ("show", "what a channel had released at a moment, as JSON lines"),
                       ("backup", "copy the data directory while the service runs"),
                       ("verify", "check the log's hash chain, its signed checkpoints and the "
                                  "head an export recorded")):
        action = sub.add_parser(name, help=text, description=text)
        action.add_argument("--data-dir", type=Path, default=None,
                            help="the data directory holding feltcast.db (default: the "
                                 "configuration's, else data)")
        action.add_argument("--url", default="", help="a sqlite:/// or postgresql:// URL "
                                                      "instead of the data directory")
        action.add_argument("--config", type=Path, default=None,
                            help="the TOML configuration the service ran with (channels, "
                                 "table, tournament); default: the built-in settings")
        if name == "verify":
            action.add_argument("--public-key", default="",
                                help="the signing key to trust (hex; default: the data "
                                     "directory's log-signing.key)")
            exported = action.add_mutually_exclusive_group()
            exported.add_argument("--head", default="", metavar="SEQ:HASH",
                                  help="a chain head an export printed, which the log must "
                                       "hold")
            exported.add_argument("--export", type=Path, default=None, metavar="FILE",
                                  help="an exported file (PHH, OHH, PokerStars text and its "
                                       ".feltcast.json, a video, a PNG frame, a clip list): "
                                       "the log must hold the chain head it carries")
        if name == "backup":
            action.add_argument("--to", type=Path, default=None,
                                help="the new directory (default: <data-dir>/../"
                                     "<data-dir name>-backup-<UTC time>)")
        if name == "show":
            action.add_argument("--channel", default="venue",
                                help="venue, delayed, secure, reveal, operator or a configured "
                                     "channel (default: venue)")
            action.add_argument("--delay", type=float, default=None,
                                help="the delayed channel's delay in seconds (default 900)")
            action.add_argument("--at", type=float, default=None,
                                help="the moment, in Unix seconds (default: now)")
            action.add_argument("--after", type=int, default=0,
                                help="only items of log entries after this sequence number")
            action.add_argument("--view", action="store_true",
                                help="print instead the view the channel's pages had then")


def run(args: argparse.Namespace) -> int:
    return run_log(args, sys.stdout)


def run_log(args: argparse.Namespace, out: TextIO) -> int:
    from engine.events import Secrecy
    from overlay.config import load_config
    from overlay.store import open_existing_store, schema_version

    config = load_config(args.config)
    if args.log_command == "backup":
        from overlay.backup import backup_data_dir

        return backup_data_dir(args.data_dir or config.data_dir, args.to,
                               url=args.url or config.database_url,
                               out=lambda text: print(text, file=out, flush=True))
    store = open_existing_store(args.url or config.database_url,
                                args.data_dir or config.data_dir)
    engine = store.engine
    if args.log_command == "verify":
        try:
            return _verify(args, store, args.data_dir or config.data_dir, out)
        finally:
            store.close()
    try:
        entries = list(store.iter_all())
        if args.log_command == "info":
            counts = {str(s): sum(1 for e in entries if e.secrecy is s) for s in Secrecy}
            span = (f", {_when(entries[0].time)} to {_when(entries[-1].time)}"
                    if entries else "")
            print(f"log {store.log_id}, schema version {schema_version(engine)}, "
                  f"{len(entries)} events ({', '.join(f'{n} {k}' for k, n in counts.items())})"
                  f"{span}", file=out)
            return 0
        # The service's channels and views only for the commands that read them.
        from engine.channels import due_items
        from engine.errors import ConfigError
        from overlay.app import channel_specs
        from overlay.channel_views import view_reducers
        from overlay.config import with_overrides

        channels = channel_specs(with_overrides(config, delay=args.delay))
        if args.channel not in channels:
            raise ConfigError("--channel", f"no channel {args.channel!r} "
                                           f"({', '.join(channels)})")
        spec = channels[args.channel]
        now = time.time() if args.at is None else args.at
        items = due_items(spec, entries, now)
        if args.view:
            reducer = view_reducers(config, [spec])[spec.name]
            state = reducer.initial()
            for item in items:
                state = reducer.apply(state, item)
            print(json.dumps(reducer.snapshot(state)), file=out)
            return 0
        for item in items:
            if item.event.seq > args.after:
                print(json.dumps(item.to_dict(), separators=(",", ":")), file=out)
        return 0
    finally:
        store.close()


def _verify(args: argparse.Namespace, store: EventStore, data_dir: Path, out: TextIO) -> int:
    from engine.errors import ConfigError
    from overlay.export.log_head import read_export_head
    from overlay.log_signing import KEY_FILE, LogSigner
    from overlay.log_verify import verify_log

    key, source = args.public_key.strip().lower(), "--public-key"
    local = LogSigner.existing(data_dir) if not key else None
    if local is not None:
        key, source = local.public, f"{data_dir / KEY_FILE}"
    expect = None
    if args.head:
        seq, _, head = args.head.partition(":")
        if not seq.isdigit() or len(head) != 64:
            raise ConfigError("--head", f"expected SEQ:HASH as an export printed it, got "
                                        f"{args.head!r}")
        expect = (int(seq), head.lower())
    found = None
    if args.export is not None:
        found = read_export_head(args.export)
        carried = found.head
        print(f"{args.export} carries the Feltcast log head {carried.seq}:{carried.hash} "
              f"({f'log {carried.log_id}, ' if carried.log_id else ''}in {found.where})",
              file=out)
        if carried.log_id and carried.log_id != store.log_id:
            print(f"note: it was exported from log {carried.log_id}, this is log "
                  f"{store.log_id} (a copy of the entries keeps the chain and its heads)",
                  file=out)
        expect = (carried.seq, carried.hash)
    verdict = verify_log(store.engine, trusted_key=key, key_source=source, expect=expect)
    if verdict.problem:
        print(f"log {store.log_id}: NOT INTACT: {verdict.problem}", file=out)
    elif verdict.head_problem and found is None:
        assert expect is not None
        print(f"log {store.log_id}: NOT INTACT: the log does not hold the head "
              f"{expect[0]}:{expect[1][:16]}… an export recorded: {verdict.head_problem}",
              file=out)
    else:
        signed = (f"{verdict.checkpoints} signed checkpoint"
                  f"{'' if verdict.checkpoints == 1 else 's'} verified with key "
                  f"{verdict.key[:16]}… ({verdict.key_source})"
                  if verdict.checkpoints else "no signed checkpoint yet")
        print(f"log {store.log_id}: intact: {verdict.entries} entries, chain head "
              f"{verdict.entries}:{verdict.head}; {signed}", file=out)
    if found is not None:
        if verdict.head_problem:
            print(f"the log no longer holds the head this export recorded: "
                  f"{verdict.head_problem}", file=out)
        else:
            seq = found.head.seq
            later = ("; the problem above is not in them" if verdict.problem else
                     f"; {_entries(verdict.entries - seq)} logged after them"
                     if verdict.entries > seq else "")
            print(f"the log holds this export's head {seq}: entries 1-{seq} are as the "
                  f"export read them{later}", file=out)
        if found.changed:
            print(f"but {found.changed}", file=out)
            return 1
    return 0 if verdict.ok else 1


def _entries(count: int) -> str:
    return f"{count} entr{'y was' if count == 1 else 'ies were'}"


def _when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(seconds))
