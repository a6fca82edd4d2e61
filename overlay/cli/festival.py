"""``feltcast festival serve --config festival.toml``: the tournament director's service of a
festival (:mod:`overlay.festival`; ``docs/festival.md``).

It binds its port first (a busy port is one line and exit status 2), opens the festival's log
in its PostgreSQL (schema ``festival``) and holds its lease (a second one refuses to start,
or with ``--standby`` waits and takes over), makes the seat draw on its first start, and then
answers the tables. SIGTERM and Ctrl-C stop it cleanly.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import functools
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from overlay.festival.settings import FestivalSettings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    serve = actions.add_parser("serve", help="run the tournament director's service",
                               description="run the tournament director's service of a "
                                           "festival")
    serve.add_argument("--config", type=Path, required=True,
                       help="festival.toml: the tables, the players, the database, the token")
    serve.add_argument("--data", type=Path, default=Path("festival-data"),
                       help="data directory: the log's signing key (default festival-data)")
    serve.add_argument("--host", help="address to listen on (default from the file, "
                                      "127.0.0.1)")
    serve.add_argument("--port", type=int, help="port to listen on (default 8070; 0: a "
                                                "free one)")
    serve.add_argument("--standby", action="store_true",
                       help="when another director's service runs, wait and take over when "
                            "it stops")


def run(args: argparse.Namespace) -> int:
    from overlay.festival.settings import load_festival

    settings = load_festival(args.config)
    settings = dataclasses.replace(
        settings, host=args.host or settings.host,
        port=settings.port if args.port is None else args.port,
        standby=settings.standby or args.standby)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: "
                                                   "%(message)s")
    out = functools.partial(print, flush=True)
    try:
        return asyncio.run(_main(settings, args.data, out))
    except KeyboardInterrupt:
        return 0


async def _main(settings: FestivalSettings, data: Path, out: Callable[[str], None]) -> int:
    from overlay.tasks import StopSignals, until_stopped

    stop = StopSignals(out)
    stop.install()
    stopped, status = await until_stopped(_serve(settings, data, out), stop)
    if stopped:
        out("Feltcast festival director stopped")
    return status or 0


async def _serve(settings: FestivalSettings, data: Path, out: Callable[[str], None]) -> int:
    from aiohttp import web

    from overlay.festival.app import create_festival_app
    from overlay.startup import bound_port, check_data_dir, display_host, listen_socket, settle_heap

    sock = listen_socket(settings.host, settings.port)
    try:
        await asyncio.to_thread(check_data_dir, data)
        runner = web.AppRunner(create_festival_app(settings, data), access_log=None)
        try:
            await runner.setup()  # the festival's log opened, its lease held
            await web.SockSite(runner, sock).start()
            settle_heap()
            base = f"http://{display_host(settings.host)}:{bound_port(sock)}"
            out(f"Feltcast festival director of {settings.name!r} on {base} "
                f"({len(settings.tables)} tables, {len(settings.players)} players)")
            out(f"  the tables' [festival] url = \"{base}\"; the festival: {base}/api/festival")
            await asyncio.Event().wait()
            return 0
        finally:
            await runner.cleanup()
    finally:
        sock.close()
