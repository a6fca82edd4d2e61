"""``feltcast demo``: a simulated final table, live in the browser (``make demo``)."""

from __future__ import annotations

import argparse
import asyncio
import functools
import logging
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = ("It plays the final table of a simulated tournament (the clock, prizes, "
                     "players with flags and portraits) with simulated RFID readers, and "
                     "prints the address of every page. See docs/demo.md.")
    parser.add_argument("--port", type=int, default=8080,
                        help="port on 127.0.0.1 (default 8080; 0 picks a free one)")
    parser.add_argument("--delay", type=float, default=30.0,
                        help="security delay of the delayed channel in seconds (default 30)")
    parser.add_argument("--speed", type=float, default=1.0,
                        help="play faster (e.g. 5) or slower (0.5) than real time")
    parser.add_argument("--hands", type=int, help="stop after this many hands")
    parser.add_argument("--seed", type=int, help="seed for the cards and decisions")
    parser.add_argument("--data", type=Path,
                        help="data directory (default: a new temporary directory)")
    parser.add_argument("--festival", action="store_true",
                        help="a three-table festival down to its final table instead, on a "
                             "PostgreSQL and a Redis it starts itself (docs/festival.md)")


def run(args: argparse.Namespace) -> int:
    from overlay.demo.run import run_demo
    from overlay.demo.show import DemoOptions

    options = DemoOptions(port=args.port, delay=args.delay, speed=args.speed,
                          hands=args.hands, seed=args.seed, data=args.data)
    logging.basicConfig(level=logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    out = functools.partial(print, flush=True)
    if args.festival:
        from overlay.demo.festival import run_festival

        runner = run_festival(options, out)
    else:
        runner = run_demo(options, out)
    try:
        return asyncio.run(runner)
    except (KeyboardInterrupt, asyncio.CancelledError):
        out("demo stopped")
        return 0
