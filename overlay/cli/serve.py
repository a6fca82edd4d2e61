"""``feltcast serve``: the service a production runs all day.

It binds its port first (a busy port is one line and exit status 2, before anything else
starts; ``--port 0`` takes a free one and prints the real one), checks the data directory,
opens the database and replays the log, and then prints every page's address with the channel
it reads: the list to copy into OBS's browser sources. Tokens are printed on the first start
only (``<data>/tokens.json`` keeps digests of the operator's and the secure one). SIGTERM
(systemd's stop) and Ctrl-C stop it cleanly.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from overlay.auth import Tokens
    from overlay.config import Config


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, help="the TOML configuration (feltcast.toml; "
                                                    "`feltcast init` writes one)")
    parser.add_argument("--data", type=Path, help="data directory: database, tokens, exports "
                                                   "(default: data/ beside the configuration)")
    parser.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port to listen on (default 8080; 0: a free "
                                                 "one)")
    parser.add_argument("--delay", type=float, help="security delay D in seconds")
    parser.add_argument("--standby", action="store_true",
                        help="when another service writes this table's log (PostgreSQL), "
                             "wait and take over once it stops, instead of refusing to start")
    parser.add_argument("--print-config", action="store_true",
                        help="print the effective configuration as TOML (which --config "
                             "reads back) and exit")


def run(args: argparse.Namespace) -> int:
    from overlay.config import config_to_toml, load_config, with_overrides

    config = with_overrides(load_config(args.config), host=args.host, port=args.port,
                            data_dir=args.data, delay=args.delay, standby=args.standby)
    if args.print_config:
        print(config_to_toml(config), end="")
        return 0
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: "
                                                   "%(message)s")
    out = functools.partial(print, flush=True)
    try:
        return asyncio.run(serve(config, out))
    except KeyboardInterrupt:
        return 0


async def serve(config: Config, out: Callable[[str], None]) -> int:
    """Run the service for ``config`` until SIGTERM or Ctrl-C (:class:`StopSignals`: closed
    within :data:`overlay.tasks.STOP_SECONDS`, a second signal ends it at once)."""
    from overlay.tasks import StopSignals, until_stopped

    stop = StopSignals(out)  # systemd stops a service with SIGTERM: as clean as Ctrl-C
    stop.install()
    stopped, status = await until_stopped(_serve(config, out), stop)
    if stopped:
        out("Feltcast stopped")
    return status or 0


async def _serve(config: Config, out: Callable[[str], None]) -> int:
    from aiohttp import web

    from overlay.app import create_app
    from overlay.auth import load_or_create_tokens
    from overlay.keys import STOPPING_KEY
    from overlay.startup import (
        bound_port,
        check_data_dir,
        display_host,
        listen_socket,
        settle_heap,
    )
    from overlay.tls import server_files, tls_lines

    host = config.server.host
    sock = listen_socket(host, config.server.port)
    try:
        await asyncio.to_thread(check_data_dir, config.data_dir)
        tokens = await asyncio.to_thread(load_or_create_tokens, config.data_dir)
        context, tls = None, []
        if config.server.tls:
            files, made = await asyncio.to_thread(
                server_files, config.server.tls_cert, config.server.tls_key, config.data_dir)
            context, tls = files.context(), tls_lines(files, made)
        runner = web.AppRunner(create_app(config, tokens=tokens), access_log=None)
        try:
            await runner.setup()  # the database opened, the log replayed
            await web.SockSite(runner, sock, ssl_context=context).start()
            settle_heap()
            scheme = "https" if context is not None else "http"
            base = f"{scheme}://{display_host(host)}:{bound_port(sock)}"
            for line in [*start_lines(config, tokens, base), *tls]:
                out(line)
            stopping = runner.app[STOPPING_KEY]
            await stopping.wait()  # until stopped (serve cancels this) or the lease is lost
            out(f"Feltcast stops: {stopping.reason}")
            return 3
        finally:
            await runner.cleanup()
    finally:
        sock.close()


def start_lines(config: Config, tokens: Tokens, base: str) -> list[str]:
    """What the terminal shows once the service answers: where, the pages, the tokens."""
    from overlay import __version__
    from overlay.app import channel_specs
    from overlay.startup import address_lines, page_addresses

    shown = tokens.created
    lines = [f"Feltcast {__version__} serving {config.table.name!r} on {base} "
             f"(security delay {config.delay:g} s, data in {config.data_dir})",
             "Pages (in OBS: a Browser source each, 1920x1080; the channel is in the URL):"]
    lines += address_lines(page_addresses(
        base, channel_specs(config).values(), operator_token=tokens.operator if shown else "",
        secure_token=tokens.secure if shown else "", obs_token=tokens.obs if shown else "",
        obs_channel=config.obs.channel))
    if config.server.host in ("0.0.0.0", "::"):
        lines.append("  (listening on every interface: other machines use this machine's "
                     "address instead of 127.0.0.1)")
    tokens_file = config.data_dir / "tokens.json"
    if shown:
        lines += [f"Tokens (shown on this first start only; {tokens_file} keeps digests of "
                  f"the first two, which cannot be turned back into tokens):",
                  f"  operator  {tokens.operator}", f"  secure    {tokens.secure}",
                  f"  obs       {tokens.obs}"]
    else:
        lines.append(f"Tokens: shown on the first start only (lost one? feltcast tokens "
                     f"rotate operator|secure|obs --data-dir {config.data_dir})")
    return lines
