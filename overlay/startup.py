"""Starting the service: the listening socket, the data directory, the database, and what the
first lines on the terminal say.

``feltcast serve`` and ``feltcast demo`` start the same way: the socket is bound first (a busy
port fails before anything else starts, and port 0 becomes the real port), then the data
directory is checked, then the app starts (the database opened, the log replayed), and only then
are the addresses printed, when every one of them answers. Whatever stops a start is a
:class:`StartupError`: one line naming what and how to fix it, exit status 2.
"""

from __future__ import annotations

import errno
import gc
import os
import socket
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.channels import ChannelFilter, ChannelSpec
from engine.errors import FeltcastError

if TYPE_CHECKING:
    from overlay.store import EventStore


class StartupError(FeltcastError, RuntimeError):
    """The service cannot start here as configured (a busy port, a data directory that
    cannot be written, a database that cannot be opened); the message says what to change."""

    code = "cannot_start"


_REASONS = {errno.EADDRINUSE: "the port is already in use",
            errno.EACCES: "permission denied (ports below 1024 need root)",
            errno.EADDRNOTAVAIL: "this machine has no such address"}


def settle_heap() -> None:
    """Once the app is up: what startup made (modules, the app, a replayed log) lives as long
    as the process, so it leaves the garbage collector's view (``gc.freeze``). CPython's full
    collections walk every object they track, and stop every socket while they do: on a
    worker with thousands of viewers a full pass over the startup objects as well took
    hundreds of milliseconds (``bench.bench_festival``). Cycles made later are collected as
    before."""
    gc.collect()
    gc.freeze()


def listen_socket(host: str, port: int, *, option: str = "--port") -> socket.socket:
    """A socket bound and listening on ``host:port`` (``port`` 0: a free one).

    :raises StartupError: naming the address and the option to change.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(socket.SOMAXCONN)  # a worker's whole audience reconnects at once
    except OSError as error:
        sock.close()
        reason = _REASONS.get(error.errno or 0, error.strerror or str(error))
        where = f"[{host}]:{port}" if family == socket.AF_INET6 else f"{host}:{port}"
        raise StartupError(f"cannot listen on {where}: {reason}; choose another with "
                           f"{option}") from None
    sock.setblocking(False)
    return sock


def bound_port(sock: socket.socket) -> int:
    """The port the socket really listens on (the one the system chose for port 0)."""
    port: int = sock.getsockname()[1]
    return port


def check_data_dir(path: Path) -> Path:
    """Create the data directory if needed and prove it can be written.

    :raises StartupError: when it cannot be created or written.
    """
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".write-test-"):
            pass
    except OSError as error:
        reason = error.strerror or str(error)
        if isinstance(error, FileExistsError) or (path.exists() and not path.is_dir()):
            reason = "it is a file, not a directory"
        raise StartupError(f"the data directory {path} cannot be written ({reason}); "
                           f"choose another with --data or data_dir in the "
                           f"configuration") from None
    if not os.access(path, os.W_OK | os.X_OK):  # e.g. root-owned, seen by another user
        raise StartupError(f"the data directory {path} cannot be written (permission "
                           f"denied); choose another with --data")
    return path


def display_host(host: str) -> str:
    """The address to print for ``host``: a wildcard address is reached on loopback here."""
    if host in ("0.0.0.0", "", "::"):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


@dataclass(frozen=True, slots=True)
class PageAddress:
    """One line of the start-up list: what to open where, reading which channel."""

    label: str
    url: str
    reads: str
    """Which channel the page reads and how late, in a producer's words."""


def _reads(spec: ChannelSpec) -> str:
    late = "live" if spec.is_live else f"{spec.delay:g} s late"
    what = {ChannelFilter.FULL: "hole cards", ChannelFilter.PUBLIC: "public only",
            ChannelFilter.REVEAL_AFTER_HAND: "hole cards after the hand"}[spec.filter]
    token = ", token" if spec.requires_token else ""
    return f"{spec.name}: {late}, {what}{token}"


def page_addresses(base: str, channels: Iterable[ChannelSpec], *, operator_token: str,
                   secure_token: str, obs_token: str = "",
                   obs_channel: str = "delayed") -> list[PageAddress]:
    """Every page the service serves, with the channel it reads and, where a page needs one,
    its token (``""``: the token is not to be shown; the URL then says where it is kept)."""
    specs = {spec.name: spec for spec in channels if spec.enabled}

    def with_token(url: str, token: str) -> str:
        joiner = "&" if "?" in url else "?"
        return f"{url}{joiner}token={token or '<token from tokens.json>'}"

    def channel_url(page: str, channel: str, extra: str = "", token: str = "") -> str:
        url = f"{base}/{page}?channel={channel}{extra}"
        spec = specs[channel]
        if spec.requires_token:
            url = with_token(url, token or secure_token)
        return url

    stream = obs_channel if obs_channel in specs else "delayed"
    lines = [PageAddress("OBS overlay (the stream)",
                         channel_url("overlay", stream, token=obs_token or secure_token),
                         _reads(specs[stream]) + (" (while OBS's stream delay covers D)"
                                                  if specs[stream].requires_token else ""))]
    lines.append(PageAddress("program (all graphics)",
                             channel_url("program", stream, token=obs_token or secure_token),
                             _reads(specs[stream])))
    if "venue" in specs:
        lines.append(PageAddress("venue screens", channel_url("overlay", "venue", "&layout=venue"),
                                 _reads(specs["venue"])))
    for name in ("secure", "reveal"):
        if name in specs and name != stream:
            label = "production room" if name == "secure" else "live stream (cards after hand)"
            lines.append(PageAddress(label, channel_url("overlay", name), _reads(specs[name])))
    delayed = specs.get("delayed")
    if delayed is not None:
        for label, page, extra in (
                ("commentary", "commentary", ""),
                ("chip counts (leaderboard)", "leaderboard", ""),
                ("lower third (?seat=N)", "lowerthird", "&seat=1"),
                ("elimination graphic", "elimination", ""),
                ("payouts", "payouts", ""),
                ("level clock", "clock", ""),
                ("ticker (crawl)", "ticker", ""),
                ("all-in versus", "versus", "")):
            lines.append(PageAddress(label, channel_url(page, "delayed", extra),
                                     _reads(delayed)))
    lines.append(PageAddress("operator console", with_token(f"{base}/operator", operator_token),
                             "operator: live, everything, operator token"))
    return lines


def address_lines(addresses: Iterable[PageAddress]) -> list[str]:
    """The list as printed: label, URL, channel; aligned."""
    rows = list(addresses)
    width = max((len(a.url) for a in rows), default=0)
    return [f"  {a.label:<31}{a.url:<{width}}  {a.reads}" for a in rows]


def open_service_store(url: str, data_dir: Path) -> EventStore:
    """The table log the service writes (:func:`overlay.store.open_store`).

    :raises StartupError: for a database that cannot be opened (not a database, no server
        at that address, a wrong password, a log of a newer Feltcast), naming it, and for a
        log of imported hand histories (:func:`overlay.importing.check_servable`).
    """
    import sqlalchemy as sa

    from engine.errors import InvalidInputError
    from overlay.importing import check_servable
    from overlay.store import StoreError, database_url, open_store

    target = database_url(url, data_dir)
    shown = sa.engine.make_url(target).render_as_string(hide_password=True)
    try:
        store = open_store(url, data_dir)
    except (sa.exc.SQLAlchemyError, StoreError, OSError) as error:
        orig = getattr(error, "orig", None)
        reason = str(orig if orig is not None else error).strip().splitlines()[0]
        raise StartupError(f"cannot open the database {shown}: {reason}") from None
    try:
        check_servable(store)
    except InvalidInputError as error:
        store.close()
        raise StartupError(f"cannot serve {shown}: {error}") from None
    return store
