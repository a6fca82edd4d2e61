"""``python -m bench.bench_capture_service``: reader line to ``secure`` channel message.

Issue 6's end-to-end budget: p99 <= 30 ms from the reader's line to the message on the
``secure`` channel that carries the new cards *with equity*. Everything is real: the service
(``overlay.app.create_app``, SQLite log in a temporary directory, channel hubs) on
127.0.0.1, a simulated reader on a real pseudo-terminal read through the serial transport, the
capture bridge (the engine command, the channels, then the capture record), and a
websocket client on ``/ws/secure`` with the secure token, in a process of its own.

Each hand is nine-handed. Samples, timed from just before the reader writes the inventory
round (13 ``INV`` lines) until the client process has decoded the message:

- ``hole_equity``: the last hole-card pair of the deal (its message carries every seat's
  pre-flop equity, nine ways);
- ``flop``, ``turn``, ``river``: a board read (the message carries the new equity);
- ``hole``: the other pairs (cards only: equity waits for every live hand).

Debouncing is set to accept the first read (``min_reads=1``, ``settle_s=0``): the figure is
the cost of the path, not the configured debounce wait (default: 2 reads, >= 0.15 s).
The betting between streets is sent in-process (untimed). Results go to
``bench/results/capture-service-<UTC time>.json``; exit status 1 if p99 > ``--target``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from capture.rfid.antenna_map import AntennaMap
from capture.rfid.decks import DeckRegistry
from capture.rfid.presence import PresenceConfig
from capture.rfid.reader import ReaderConfig
from capture.rfid.transports import SerialEndpoint
from capture.simulator import BOARD_ANTENNA, SimulatedReader, simulated_deck, simulated_uid
from engine.cards import FULL_DECK, Card
from overlay.app import create_app
from overlay.config import parse_config
from overlay.devices.capture_bridge import CaptureBridge
from overlay.keys import LOG_KEY, STORE_KEY, TABLE_KEY, TOKENS_KEY

RESULTS = Path(__file__).resolve().parent / "results"
READER = "bench"
TABLE = "Bench Final"
SEATS = tuple(range(1, 10))


class Secure:
    """The secure channel as a separate process sees it (the client must not share the
    server's event loop: a page is another process). ``--client URL`` runs that process: it
    prints one JSON line per message, stamped with ``time.perf_counter()`` (the system-wide
    monotonic clock on Linux, comparable across processes), and the view it has so far."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.view: dict[str, Any] = {}

    @classmethod
    async def start(cls, url: str) -> Secure:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bench.bench_capture_service", "--client", url,
            stdout=asyncio.subprocess.PIPE, cwd=Path(__file__).resolve().parent.parent)
        return cls(process)

    async def until(self, predicate: Any, timeout: float = 10.0) -> float:
        """Read messages until the view satisfies ``predicate``; returns the arrival time."""
        assert self.process.stdout is not None
        async with asyncio.timeout(timeout):
            while True:
                line = await self.process.stdout.readline()
                if not line:
                    raise RuntimeError("the secure client ended")
                record = json.loads(line)
                self.view = record["view"]
                if predicate(self.view):
                    return float(record["at"])

    async def close(self) -> None:
        if self.process.returncode is None:
            self.process.terminate()
        await self.process.wait()


async def client(url: str) -> None:
    """The secure channel's client process (see :class:`Secure`)."""
    view: dict[str, Any] = {}
    async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
        await ws.send_json({"type": "hello", "page": "bench", "version": "bench"})
        async for message in ws:
            at = time.perf_counter()
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            data = json.loads(message.data)
            if data.get("type") == "snapshot":
                view = data["view"]
            elif data.get("type") == "patch":
                _merge(view, data["patch"])
            summary = {"table": {"board": (view.get("table") or {}).get("board")},
                       "seats": [{k: s.get(k) for k in ("seat", "cards", "equity", "folded")}
                                 for s in view.get("seats", [])]}
            sys.stdout.write(json.dumps({"at": at, "view": summary}) + "\n")
            sys.stdout.flush()


def _merge(target: dict[str, Any], patch: dict[str, Any]) -> None:
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        elif isinstance(value, dict) and isinstance(target.get(key), dict):
            _merge(target[key], value)
        else:
            target[key] = value


def _seat(view: dict[str, Any], number: int) -> dict[str, Any]:
    return next(s for s in view.get("seats", []) if s["seat"] == number)


async def measure(hands: int, seed: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {"hole": [], "hole_equity": [], "flop": [], "turn": [],
                                       "river": []}
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        config = parse_config({
            "table": {"name": TABLE, "seats": 9, "button": 1},
            "players": [{"seat": s, "name": f"Player {s}", "stack": 10**7} for s in SEATS],
            "delay": {"seconds": 30}, "channels": {"secure": {"enabled": True}},
            "data_dir": str(data)})
        runner = web.AppRunner(create_app(config), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        app = runner.app
        port = runner.addresses[0][1]
        registry = DeckRegistry(app[STORE_KEY].engine)
        registry.save("bench", {card: uid for uid, card in simulated_deck(1).items()})
        registry.activate("bench", TABLE)
        sim = SimulatedReader(READER, scan_interval=3600, heartbeat_interval=3600)
        path = await sim.open_pty(Path(tmp) / "reader")
        bridge = CaptureBridge(
            app[TABLE_KEY], app[LOG_KEY],
            readers=[ReaderConfig(READER, SerialEndpoint(path), watchdog_s=3600)],
            antenna_map=AntennaMap.standard(READER, 9), registry=registry, table_name=TABLE,
            presence=PresenceConfig(min_reads=1, settle_s=0.0, release_s=0.0001,
                                    release_misses=1))
        await bridge.start()
        service = app[TABLE_KEY]
        try:
            while not bridge.capture.coordinators[READER].firmware:
                await asyncio.sleep(0.01)
            token = app[TOKENS_KEY].tokens.secure
            secure = await Secure.start(f"http://127.0.0.1:{port}/ws/secure?token={token}")
            try:
                await secure.until(lambda v: bool(v.get("seats")))
                for _ in range(hands):
                    await _hand(service, sim, secure, rng, samples)
            finally:
                await secure.close()
        finally:
            await bridge.stop()
            await runner.cleanup()
            await sim.close()
    return samples


async def _command(service: Any, kind: str, **fields: Any) -> None:
    await service.execute({"id": uuid.uuid4().hex, "type": kind, **fields})


async def _hand(service: Any, sim: SimulatedReader, secure: Secure, rng: random.Random,
                samples: dict[str, list[float]]) -> None:
    await _command(service, "next_hand")
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    seats = list(service.hand.seats)
    for i, seat in enumerate(seats):
        pair = (deck[2 * i], deck[2 * i + 1])
        sim.place(seat, *(simulated_uid(card) for card in pair))
        last = i == len(seats) - 1
        codes = {card.code for card in pair}

        def dealt(view: dict[str, Any], seat: int = seat, codes: set[str] = codes,
                  last: bool = last) -> bool:
            entry = _seat(view, seat)
            return set(entry.get("cards") or ()) == codes and (
                not last or entry.get("equity") is not None)

        start = time.perf_counter()
        sim.scan()
        at = await secure.until(dealt)
        samples["hole_equity" if last else "hole"].append((at - start) * 1000)
    board: list[Card] = deck[2 * len(seats):2 * len(seats) + 5]
    for name, cards in (("flop", board[:3]), ("turn", board[3:4]), ("river", board[4:5])):
        legal = service.hand.legal_actions()
        while legal is not None:
            await _command(service, "call" if legal.can_call else "check", seat=legal.seat)
            legal = service.hand.legal_actions()
        size = len(service.hand.board) + len(cards)
        for card in cards:
            sim.place(BOARD_ANTENNA, simulated_uid(card))

        def on_board(view: dict[str, Any], size: int = size) -> bool:
            table = view.get("table", {})
            seats_known = [s for s in view.get("seats", []) if s.get("cards")]
            return len(table.get("board") or ()) == size and all(
                s.get("equity") is not None for s in seats_known if not s.get("folded"))

        start = time.perf_counter()
        sim.scan()
        at = await secure.until(on_board)
        samples[name].append((at - start) * 1000)
    legal = service.hand.legal_actions()
    while legal is not None:
        await _command(service, "check", seat=legal.seat)
        legal = service.hand.legal_actions()
    sim.clear()
    sim.scan()
    await asyncio.sleep(0.05)


def _stats(values: list[float]) -> dict[str, float]:
    if len(values) < 2:
        return {"samples": len(values), "median_ms": values[0] if values else 0.0}
    quantiles = statistics.quantiles(values, n=100, method="inclusive")
    return {"samples": len(values), "median_ms": round(statistics.median(values), 3),
            "p99_ms": round(quantiles[98], 3), "max_ms": round(max(values), 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=60)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--target", type=float, default=30.0, help="p99 bound in ms")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--client", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.client:
        asyncio.run(client(args.client))
        return 0
    samples = asyncio.run(measure(args.hands, args.seed))
    with_equity = samples["hole_equity"] + samples["flop"] + samples["turn"] + samples["river"]
    result = {
        "benchmark": "reader line to secure channel message, equity included "
                     "(pty, serial transport, capture bridge, engine, log, websocket)",
        "hands": args.hands,
        "players": len(SEATS),
        "with_equity": _stats(with_equity),
        "by_kind": {kind: _stats(values) for kind, values in samples.items()},
        "target_p99_ms": args.target,
        "load_average": os.getloadavg(),
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / f"capture-service-{datetime.now(UTC):%Y-%m-%dT%H%M%S}.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    print(f"written to {out}")
    return 0 if result["with_equity"].get("p99_ms", 0.0) <= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
