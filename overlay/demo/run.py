"""``feltcast demo``'s run: the service on its socket, the addresses printed, the automatic
operator's hands, until Ctrl-C."""

from __future__ import annotations

import asyncio
import random
import tempfile
from collections.abc import Callable
from pathlib import Path

import aiohttp
from aiohttp import web

from capture.simulator import (
    SimulatedReader,
)
from overlay.app import channel_specs, create_app
from overlay.auth import SHARED_ROLES, Tokens, rotate_tokens
from overlay.config import Config
from overlay.demo.operator import AutoOperator, Timing
from overlay.demo.show import (
    ENTRANTS,
    LEVEL_MINUTES,
    LEVELS,
    PRIZE_POOL,
    READER,
    TABLE_NAME,
    TOURNAMENT_NAME,
    DemoOptions,
    demo_config,
    money,
    register_demo_deck,
)
from overlay.startup import address_lines, bound_port, listen_socket, page_addresses
from overlay.tasks import StopSignals, until_stopped


async def run_demo(options: DemoOptions, out: Callable[[str], None] = print) -> int:
    """Run the demo until Ctrl-C or SIGTERM, or until ``options.hands`` hands were played
    (when the tournament ends first without ``--hands``, the pages stay up until stopped).
    Stopped, it closes within :data:`overlay.tasks.STOP_SECONDS` (:class:`StopSignals`)."""
    stop = StopSignals(out)
    stop.install()
    data_dir = options.data or Path(tempfile.mkdtemp(prefix="feltcast-demo-"))
    await asyncio.to_thread(register_demo_deck, data_dir)
    # tokens.json keeps digests only: each demo run (a --data of an earlier run too) issues
    # its own, to print and to drive the table with
    tokens = await asyncio.to_thread(rotate_tokens, data_dir, SHARED_ROLES)
    reader = SimulatedReader(READER, scan_interval=0.1, heartbeat_interval=1.0)
    reader_path = await reader.open_pty(data_dir / "reader.tty")
    config = demo_config(data_dir, reader_path, options)
    sock = listen_socket(options.host, options.port)
    runner = web.AppRunner(create_app(config, tokens=tokens), access_log=None)
    try:
        await runner.setup()
        await web.SockSite(runner, sock).start()
        base = f"http://{options.host}:{bound_port(sock)}"
        async with aiohttp.ClientSession() as session:
            stopped, _ = await until_stopped(
                _play(options, config, tokens, session, base, reader, reader_path, out), stop)
        if stopped:
            out("demo stopped")
        return 0
    finally:
        await runner.cleanup()
        sock.close()
        await reader.close()


async def _play(options: DemoOptions, config: Config, tokens: Tokens,
                session: aiohttp.ClientSession, base: str, reader: SimulatedReader,
                reader_path: str, out: Callable[[str], None]) -> None:
    """The demo's show: the addresses printed, then the automatic operator's hands."""
    data_dir = config.data_dir
    seed = options.seed if options.seed is not None else random.randrange(2**32)
    operator = AutoOperator(session, base, tokens.operator, reader, random.Random(seed),
                            Timing(speed=options.speed), out)
    before = await operator.prepare(data_dir / "portraits")
    small, big, _ = LEVELS[0]
    out(f"Feltcast demo: {TOURNAMENT_NAME}, {TABLE_NAME}, nine players, prize pool "
        f"{money(PRIZE_POOL)}, {LEVEL_MINUTES}-minute levels from {small:,}/{big:,}, "
        f"security delay {options.delay:g} s")
    out(f"  data directory                 {data_dir}")
    out(f"  simulated RFID reader          {reader_path} (serial, native protocol)")
    if before["table"]["hand_number"]:  # --data of an earlier run
        field = before["tournament"]["field"]
        out(f"  continuing after hand {before['table']['hand_number']}: "
            f"{field['remaining']} of {ENTRANTS} players left, "
            f"{before['tournament']['clock']['name']}")
    for line in address_lines(page_addresses(
            base, channel_specs(config).values(), operator_token=tokens.operator,
            secure_token=tokens.secure)):
        out(line)
    out("The delayed pages show the table after the security delay. Ctrl-C stops.")
    await operator.run(options.hands)
    plural = "" if operator.hands == 1 else "s"
    out(f"demo finished: {operator.hands} hand{plural} played (seed {seed})")
    if operator.over and options.hands is None:
        await asyncio.Event().wait()  # the pages stay up until Ctrl-C
