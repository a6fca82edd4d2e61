"""An online backup of a data directory (``feltcast log backup``), taken while the service runs.

The log (``feltcast.db``) is copied through SQLite's backup API in one step: a consistent
snapshot as of one committed transaction, taken under a read lock that WAL mode lets the
service's writer ignore, so the table goes on while it is copied. The copy is checked
(``PRAGMA integrity_check``) and read back as a Feltcast log before the backup is reported
done. Every other file of the directory (``tokens.json``, player photos) is copied as it is;
SQLite's ``-wal`` and ``-shm`` files and links (the demo's reader pseudo-terminal) are not.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

from engine.errors import ConfigError
from overlay.store import SQLITE_FILE, open_existing_store

_SKIP_SUFFIXES = ("-wal", "-shm", "-journal")


def default_target(data_dir: Path, now: float) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now))
    resolved = data_dir.resolve()
    return resolved.parent / f"{resolved.name}-backup-{stamp}"


def backup_data_dir(data_dir: Path, target: Path | None, *, url: str = "",
                    out: Callable[[str], object] = print) -> int:
    """Copy ``data_dir`` to ``target`` (a new directory); the exit status.

    :raises ConfigError: for a PostgreSQL log (``pg_dump`` backs that up), a directory without
        a log, or a target that exists already.
    """
    if url and not url.startswith("sqlite"):
        raise ConfigError("--url", "this log is in PostgreSQL: back it up with pg_dump (or "
                                   "pg_basebackup); docs/show-day.md")
    source = data_dir / SQLITE_FILE
    if not source.is_file():
        raise ConfigError("--data-dir", f"no log at {source}")
    target = target if target is not None else default_target(data_dir, time.time())
    if target.exists():
        raise ConfigError("--to", f"{target} exists already: a backup goes to a new directory")
    if target.resolve().is_relative_to(data_dir.resolve()):
        raise ConfigError("--to", "a backup inside the data directory would be copied into "
                                  "itself")
    target.mkdir(parents=True)
    size = source.stat().st_size
    out(f"backing up {source} ({size / 1e6:.1f} MB) to {target} ...")
    started = time.monotonic()
    _copy_log(source, target / SQLITE_FILE)
    copied = _copy_other_files(data_dir, target)
    store = open_existing_store("", target)
    try:
        entries = sum(1 for _ in store.iter_all())  # every entry decodes
        last = store.last_seq
    finally:
        store.close()
    out(f"backup done in {time.monotonic() - started:.1f} s: {entries} log entries (last "
        f"sequence number {last}), integrity ok, {copied} other file"
        f"{'' if copied == 1 else 's'}; start from it with --data {target}")
    return 0


def _copy_log(source: Path, destination: Path) -> None:
    with closing(sqlite3.connect(f"file:{source}?mode=ro", uri=True)) as src, \
            closing(sqlite3.connect(destination)) as dst:
        src.execute("PRAGMA busy_timeout = 10000")
        src.backup(dst)  # pages=-1: the whole file in one step, one consistent snapshot
        result = dst.execute("PRAGMA integrity_check").fetchone()[0]
    if result != "ok":
        raise ConfigError("--to", f"the copy failed SQLite's integrity check: {result}")


def _copy_other_files(data_dir: Path, target: Path) -> int:
    copied = 0
    for root, dirs, files in os.walk(data_dir):
        here = Path(root)
        dirs[:] = [d for d in dirs if not (here / d).is_symlink()]
        for name in files:
            path = here / name
            if path.is_symlink() or (here == data_dir and name.startswith(SQLITE_FILE)
                                     and (name == SQLITE_FILE or name.endswith(_SKIP_SUFFIXES))):
                continue
            destination = target / path.relative_to(data_dir)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, destination)
            copied += 1
    return copied
