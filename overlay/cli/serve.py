"""``feltcast serve``: the service a production runs all day."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, help="the TOML configuration (feltcast.toml)")
    parser.add_argument("--data", type=Path, help="data directory: database, tokens, exports "
                                                   "(default: data/ beside the configuration)")
    parser.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port to listen on (default 8080)")
    parser.add_argument("--delay", type=float, help="security delay D in seconds")
    parser.add_argument("--print-config", action="store_true",
                        help="print the effective configuration and exit")


def page_urls(base: str, operator_token: str | None) -> list[tuple[str, str]]:
    """What to open where; the operator URL carries the token only when it is to be shown."""
    operator = f"{base}/operator" + (f"?token={operator_token}" if operator_token else "")
    return [
        ("OBS overlay (delayed)", f"{base}/overlay?channel=delayed"),
        ("venue screens (live, public)", f"{base}/overlay?channel=venue"),
        ("commentary", f"{base}/commentary"),
        ("operator console", operator),
    ]


def run(args: argparse.Namespace) -> int:
    from aiohttp import web

    from overlay.app import create_app
    from overlay.auth import load_or_create_tokens
    from overlay.config import load_config, with_overrides

    config = with_overrides(load_config(args.config), host=args.host, port=args.port,
                            data_dir=args.data, delay=args.delay)
    if args.print_config:
        print(config)
        return 0
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: "
                                                   "%(message)s")
    tokens = load_or_create_tokens(config.data_dir)
    host, port = config.server.host, config.server.port
    base = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}"
    print(f"Feltcast serving {config.table.name!r} on {base} "
          f"(security delay {config.delay:g} s, data in {config.data_dir})")
    for label, url in page_urls(base, tokens.operator if tokens.created else None):
        print(f"  {label:30} {url}")
    if tokens.created:
        print("Tokens (shown once; kept in the data directory):")
        print(f"  operator  {tokens.operator}")
        print(f"  secure    {tokens.secure}")
    sys.stdout.flush()
    app = create_app(config, tokens=tokens)
    web.run_app(app, host=host, port=port, print=None, access_log=None)
    return 0
