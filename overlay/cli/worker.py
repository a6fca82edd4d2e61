"""``feltcast worker``: a festival's web worker, every table's public pages and channels
relayed from Redis (:mod:`overlay.fanout.worker`; ``docs/festival.md``).

Start as many as the audience needs, on any machine that reaches the festival's Redis; each
binds its port first (a busy port is one line and exit status 2), then prints its address.
It waits for Redis when Redis is not up yet (pages say so meanwhile). SIGTERM and Ctrl-C stop
it cleanly.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from overlay.fanout.worker import WorkerSettings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--redis", required=True,
                        help="the festival's Redis server (redis://127.0.0.1:6379/0)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8090,
                        help="port to listen on (default 8090; 0: a free one)")
    parser.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                        help="another origin whose pages may read the channels (repeatable)")


def run(args: argparse.Namespace) -> int:
    from overlay.fanout import parse_redis_url
    from overlay.fanout.worker import WorkerSettings

    settings = WorkerSettings(redis=parse_redis_url(args.redis, "--redis"),
                              allowed_origins=tuple(args.allow_origin))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: "
                                                   "%(message)s")
    out = functools.partial(print, flush=True)
    try:
        return asyncio.run(_main(settings, args.host, args.port, out))
    except KeyboardInterrupt:
        return 0


async def _main(settings: WorkerSettings, host: str, port: int, out: Callable[[str], None]) -> int:
    from overlay.tasks import StopSignals, until_stopped

    stop = StopSignals(out)
    stop.install()
    stopped, status = await until_stopped(_serve(settings, host, port, out), stop)
    if stopped:
        out("Feltcast worker stopped")
    return status or 0


async def _serve(settings: WorkerSettings, host: str, port: int, out: Callable[[str], None]) -> int:
    from aiohttp import web

    from overlay.fanout.worker import WORKER_PAGES, create_worker_app
    from overlay.startup import bound_port, display_host, listen_socket, settle_heap

    sock = listen_socket(host, port)
    try:
        runner = web.AppRunner(create_worker_app(settings), access_log=None)
        try:
            await runner.setup()
            await web.SockSite(runner, sock).start()
            settle_heap()
            base = f"http://{display_host(host)}:{bound_port(sock)}"
            out(f"Feltcast worker on {base}, relaying from {settings.redis.split('@')[-1]}")
            out(f"  tables: {base}/api/tables; a table's pages: {base}/t/<table>/<page> "
                f"({', '.join(WORKER_PAGES)})")
            await asyncio.Event().wait()
            return 0
        finally:
            await runner.cleanup()
    finally:
        sock.close()
