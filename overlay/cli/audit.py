"""``feltcast audit --from T1 --to T2``: who could see hole cards live in that window.

The question asked after every cheating allegation. From the log's access audit
(``access_recorded`` events: every connection to a channel that shows hole cards earlier than
the security delay, opened and closed, and every snapshot read of one) and from the sender of
every command (``command_answer``): the role of the token, the address, the user agent, and
when. A connection still open at a crash counts until the service's next start closed it.
Times are ISO 8601 (``2026-12-05T21:14``, UTC unless an offset is given) or Unix seconds.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--from", dest="start", default="", metavar="T1",
                        help="the window's start (default: the log's beginning)")
    parser.add_argument("--to", dest="end", default="", metavar="T2",
                        help="the window's end (default: now)")
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="the data directory (default: the configuration's, else data)")
    parser.add_argument("--url", default="", help="a sqlite:/// or postgresql:// URL instead")
    parser.add_argument("--config", type=Path, default=None, help="the TOML configuration")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")


@dataclass(frozen=True, slots=True)
class Access:
    """One connection, snapshot read or command that could see hole cards live."""

    what: str
    """``connection``, ``snapshot`` or ``command``."""
    channel: str
    role: str
    peer: str
    user_agent: str
    start: float
    end: float


def parse_time(text: str, option: str) -> float:
    from engine.errors import ConfigError

    try:
        return float(text)
    except ValueError:
        pass
    try:
        moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(option, f"expected a time like 2026-12-05T21:14 or Unix seconds, "
                                  f"got {text!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return moment.timestamp()


def run(args: argparse.Namespace) -> int:
    import sqlalchemy as sa

    from engine.errors import ConfigError
    from engine.table_events import AccessRecorded
    from overlay.config import load_config
    from overlay.store import open_existing_store

    config = load_config(args.config)
    start = parse_time(args.start, "--from") if args.start else float("-inf")
    end = parse_time(args.end, "--to") if args.end else time.time()
    if end < start:
        raise ConfigError("--to", "the window ends before it starts")
    store = open_existing_store(args.url or config.database_url,
                                args.data_dir or config.data_dir)
    try:
        found: list[Access] = []
        opened: dict[str, tuple[AccessRecorded, float]] = {}
        last_time = 0.0
        for entry in store.iter_all():
            last_time = entry.time
            event = entry.payload
            if not isinstance(event, AccessRecorded):
                continue
            if event.action == "open":
                opened[event.connection] = (event, entry.time)
            elif event.action == "close" and event.connection in opened:
                began, at = opened.pop(event.connection)
                found.append(Access("connection", began.channel, began.role, began.peer,
                                    began.user_agent, at, entry.time))
            elif event.action == "read":
                found.append(Access("snapshot", event.channel, event.role, event.peer,
                                    event.user_agent, entry.time, entry.time))
        for began, at in opened.values():  # still open: the service runs
            found.append(Access("connection", began.channel, began.role, began.peer,
                                began.user_agent, at, max(last_time, time.time())))
        with store.engine.connect() as conn:
            for moment, role, peer, agent in conn.execute(sa.text(
                    "SELECT time, role, peer, agent FROM command_answer ORDER BY time")):
                found.append(Access("command", "operator", role, peer, agent, moment, moment))
    finally:
        store.close()
    window = sorted((a for a in found if a.start <= end and a.end >= start),
                    key=lambda a: (a.start, a.end))
    if args.json:
        for access in window:
            print(json.dumps(asdict(access)))
        return 0
    shown = (f"from {_when(start)} " if start != float("-inf") else "") + f"to {_when(end)}"
    peers = sorted({a.peer for a in window})
    print(f"{len(window)} accesses with live hole cards {shown}, from "
          f"{len(peers)} address{'' if len(peers) == 1 else 'es'}: {', '.join(peers) or '-'}")
    for access in window:
        span = (_when(access.start) if access.start == access.end
                else f"{_when(access.start)} - {_when(access.end)}")
        print(f"  {span:<45} {access.what:<10} {access.channel:<10} {access.role:<9} "
              f"{access.peer:<16} {access.user_agent[:60]}")
    sys.stdout.flush()
    return 0


def _when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(seconds))
