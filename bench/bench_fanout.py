"""``python -m bench.bench_fanout``: websocket fan-out of the ``delayed`` channel (issue 5).

The issue's target: "200 websocket clients on ``delayed`` with an event every 100 ms: the
server stays under half a core." This runs the real ``feltcast serve`` (a subprocess on
127.0.0.1, SQLite in a temporary directory, a short security delay ``--delay`` so that the
``delayed`` channel releases during the run) and, in a **separate process** (so that their CPU
is not the server's), ``--clients`` websocket clients on ``/ws/delayed``: each says hello as
an OBS overlay does (offering permessage-deflate like a browser, unless ``--no-compress``),
reads every message, counts them and checks that revisions follow one another (a gap or a
``behind`` resync is a failure).

An automatic operator in this process drives the table through the HTTP API with the operator
token, exactly as the console does: one command every ``--interval`` seconds (next hand,
manual hole cards and board, check, bet, call, raise, fold, and a stack top-up between hands),
each chosen from ``operator.legal`` and ``operator.cards_needed`` of the operator channel,
read from ``/ws/operator``. A command may log more than one event (``next_hand`` posts the
blinds), so the channel's patches outnumber the commands.

After a warm-up (the delay plus a second, so that the channel is releasing steadily) the
server's CPU time (``/proc/<pid>/stat`` utime + stime of all its threads, children excluded)
is measured over ``--seconds``. Reported: the CPU share of one core (target < 0.5), messages
delivered per second to all clients, revision gaps and resyncs (must be 0), and the release
lateness of the delayed channel (arrival at a client minus event time + delay; it includes
the clients' own scheduling). Results go to ``bench/results/fanout-<UTC time>.json``; the
exit status is 1 if a target is missed. Every wait is bounded: the run stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import ssl
import statistics
import sys
import tempfile
import time
import uuid
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from bench import save_result
from engine.cards import FULL_DECK
from overlay.hub import apply_merge_patch
from tests.pages.service import Service, running_service

ROOT = Path(__file__).resolve().parent.parent
TARGET_CPU_SHARE = 0.5
STACKS = {1: 500_000, 4: 420_000, 7: 310_000}
"""The players of ``tests.pages.service.config_text``; the operator tops a stack back up."""
TOP_UP_BELOW = 100_000
CONNECT_TIMEOUT = 60.0


# --- measuring the server (started by tests.pages.service.running_service) ----------------


def cpu_seconds(pid: int) -> tuple[float, float]:
    """User and system CPU seconds of process ``pid`` (all threads, no children)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2:].split()  # the name may hold spaces; skip it
    ticks = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / ticks, int(fields[12]) / ticks  # fields 14 and 15 of proc(5)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))]


def summary_ms(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    ms = [v * 1000 for v in values]
    return {"p50": statistics.median(ms), "p95": percentile(ms, 0.95),
            "p99": percentile(ms, 0.99), "max": max(ms), "min": min(ms), "n": len(ms)}


# --- the clients (run in their own process: ``--client-process URL``) -------------------------


@dataclass
class ClientTally:
    messages: int = 0
    patches: int = 0
    snapshots: int = 0
    gaps: int = 0
    resyncs: int = 0
    errors: int = 0
    closed_early: int = 0
    early: int = 0
    bytes: int = 0
    revision: int | None = None
    deflate: bool = False


@dataclass
class Fleet:
    delay: float
    tallies: list[ClientTally] = field(default_factory=list)
    measuring: bool = False
    lateness: list[float] = field(default_factory=list)
    marks: list[dict[str, Any]] = field(default_factory=list)
    stopping: bool = False

    def totals(self) -> dict[str, Any]:
        keys = ("messages", "patches", "snapshots", "gaps", "resyncs", "errors",
                "closed_early", "early", "bytes")
        out: dict[str, Any] = {key: sum(getattr(t, key) for t in self.tallies) for key in keys}
        out["time"] = time.time()
        return out


async def one_client(session: aiohttp.ClientSession, url: str, version: str, fleet: Fleet,
                     tally: ClientTally, ready: asyncio.Event, compress: bool) -> None:
    async with session.ws_connect(url, compress=15 if compress else 0,
                                  max_msg_size=0) as ws:
        tally.deflate = bool(ws.compress)
        await ws.send_json({"type": "hello", "page": "overlay", "version": version,
                            "resume": None, "log_id": None})
        async for message in ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            arrived = time.time()
            data = json.loads(message.data)
            tally.messages += 1
            tally.bytes += len(message.data)
            kind = data.get("type")
            if kind == "snapshot":
                tally.snapshots += 1
                if tally.revision is not None:
                    tally.resyncs += 1  # only the first snapshot is expected
                tally.revision = data["revision"]
                ready.set()
            elif kind == "patch":
                tally.patches += 1
                if tally.revision is None or data["revision"] != tally.revision + 1:
                    tally.gaps += 1
                tally.revision = data["revision"]
                if data.get("events"):
                    late = arrived - data["events"][0]["time"] - fleet.delay
                    tally.early += late < 0  # before its due time: the delay was broken
                    if fleet.measuring:
                        fleet.lateness.append(late)
            else:
                tally.errors += 1
    if not fleet.stopping:
        tally.closed_early += 1


async def run_fleet(url: str, clients: int, delay: float, compress: bool,
                    ca: str = "") -> dict[str, Any]:
    """Connect the clients, say ``ready``, then obey ``mark`` / ``stop`` lines on stdin
    (``ca``: with TLS, the CA certificate the clients trust)."""
    fleet = Fleet(delay)
    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)
    connector = aiohttp.TCPConnector(limit=0, ssl=trusting(ca))
    async with aiohttp.ClientSession(connector=connector) as session:
        base = url.replace("ws", "http", 1).rsplit("/ws/", 1)[0]
        async with session.get(f"{base}/api/config") as response:
            version = (await response.json())["version"]
        readies = [asyncio.Event() for _ in range(clients)]
        fleet.tallies = [ClientTally() for _ in range(clients)]
        tasks = []
        for tally, ready in zip(fleet.tallies, readies, strict=True):
            tasks.append(asyncio.create_task(
                one_client(session, url, version, fleet, tally, ready, compress)))
            await asyncio.sleep(0)
        failed = 0
        try:
            await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)),
                                   CONNECT_TIMEOUT)
        except TimeoutError:
            failed = sum(1 for r in readies if not r.is_set())
        print(json.dumps({"ready": clients - failed}), flush=True)
        while True:
            line = await asyncio.wait_for(stdin.readline(), 600)
            if line.strip() == b"mark":
                fleet.marks.append(fleet.totals())
                fleet.measuring = len(fleet.marks) == 1
                print(json.dumps({"marked": len(fleet.marks)}), flush=True)
            else:
                break
        fleet.stopping = True
        await session.close()
        results = await asyncio.gather(*tasks, return_exceptions=True)
    totals = fleet.totals()
    totals["exceptions"] = [repr(r) for r in results if isinstance(r, BaseException)][:5]
    totals["deflate"] = sum(1 for t in fleet.tallies if t.deflate)
    return {"clients": clients, "connected": clients - failed, "marks": fleet.marks,
            "totals": totals, "lateness_ms": summary_ms(fleet.lateness)}


def trusting(ca: str) -> ssl.SSLContext | bool:
    """A client context that trusts the show's CA (TLS), else aiohttp's default."""
    return ssl.create_default_context(cafile=ca) if ca else True


# --- the automatic operator ------------------------------------------------------------------


class AutoOperator:
    """One legal command every ``interval`` seconds, from the operator channel's view."""

    def __init__(self, session: aiohttp.ClientSession, server: Service, seed: int) -> None:
        self.session = session
        self.server = server
        self.headers = {"Authorization": f"Bearer {server.operator}"}
        self.rng = random.Random(seed)
        self.view: dict[str, Any] = {}
        self.revision = -1
        self.changed = asyncio.Event()
        self.commands = 0
        self.refused: list[str] = []
        self.late_ticks = 0
        self.kinds: dict[str, int] = {}
        self.round_trips: list[float] = []
        """Seconds from sending a command to the operator channel showing its result."""

    async def follow(self) -> None:
        """Keep ``view`` current from ``/ws/operator`` (snapshot, then merge patches)."""
        url = self.server.base.replace("http", "ws", 1) + "/ws/operator"
        async with self.session.ws_connect(url, headers=self.headers, max_msg_size=0) as ws:
            await ws.send_json({"type": "hello", "page": "operator", "version": "bench",
                                "resume": None, "log_id": None})
            async for message in ws:
                if message.type != aiohttp.WSMsgType.TEXT:
                    break
                data = json.loads(message.data)
                if data["type"] == "snapshot":
                    self.view = data["view"]
                elif data["type"] == "patch":
                    self.view = apply_merge_patch(self.view, data["patch"])
                else:
                    continue
                self.revision = data["revision"]
                self.changed.set()

    async def caught_up(self, revision: int, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while self.revision < revision:
            self.changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError(f"the operator channel did not reach revision {revision}")
            with suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)

    def decide(self) -> tuple[str, dict[str, Any]] | None:
        # (A merge patch deletes a key set to null: absent keys read as null.)
        view = self.view
        operator, table, seats = view["operator"], view["table"], view["seats"]
        used = {c for s in seats for c in (s.get("cards") or []) if c}
        used |= set(table.get("board") or [])
        deck = [card.code for card in FULL_DECK if card.code not in used]
        self.rng.shuffle(deck)
        if operator.get("between_hands"):
            for seat in seats:
                if seat.get("name") and seat["seat"] in STACKS \
                        and (seat.get("stack") or 0) < TOP_UP_BELOW:
                    return "set_seat", {"seat": seat["seat"], "name": seat["name"],
                                        "stack": STACKS[seat["seat"]]}
            return "next_hand", {}
        for need in operator.get("cards_needed") or []:
            cards = deck[:need["count"]]
            if need["target"] == "seat":
                return "deal_cards", {"seat": need["seat"], "cards": cards}
            return "deal_board", {"cards": cards}
        legal = operator.get("legal")
        if legal is None:
            return None
        seat, roll = legal["seat"], self.rng.random()
        if legal.get("check"):
            if legal.get("bet") is not None and roll < 0.3:
                return "bet", {"seat": seat, "amount": legal["bet"]["min"]}
            return "check", {"seat": seat}
        if legal.get("call") is not None:
            if roll < 0.08:
                return "fold", {"seat": seat}
            if legal.get("raise") is not None and roll < 0.15:
                return "raise_to", {"seat": seat, "amount": legal["raise"]["min"]}
            return "call", {"seat": seat}
        if legal.get("all_in") is not None:
            return "all_in", {"seat": seat}
        return "fold", {"seat": seat}

    async def step(self) -> None:
        choice = self.decide()
        if choice is None:
            return
        kind, fields = choice
        body = {"id": str(uuid.uuid4()), "type": kind, **fields}
        sent = time.monotonic()
        async with self.session.post(f"{self.server.base}/api/commands", json=body,
                                     headers=self.headers) as response:
            reply = await response.json()
        self.commands += 1
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        if response.status != 200:
            self.refused.append(f"{kind}: {reply.get('error', {}).get('message')}")
            return
        await self.caught_up(reply["revision"])
        self.round_trips.append(time.monotonic() - sent)

    async def run(self, interval: float, stop: asyncio.Event) -> None:
        """A command at every tick until ``stop``; a tick that comes late is counted and the
        pace resumes from it (no burst to catch up)."""
        await self.caught_up(0, timeout=CONNECT_TIMEOUT)
        next_tick = time.monotonic()
        while not stop.is_set():
            await self.step()
            next_tick += interval
            now = time.monotonic()
            if now > next_tick:
                self.late_ticks += 1
                next_tick = now
            else:
                with suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), next_tick - now)


# --- the run ---------------------------------------------------------------------------------


async def _line(stream: asyncio.StreamReader, timeout: float) -> dict[str, Any]:
    line = await asyncio.wait_for(stream.readline(), timeout)
    if not line:
        raise RuntimeError("the client process ended early")
    reply: dict[str, Any] = json.loads(line)
    return reply


async def drive(server: Service, clients: int, seconds: float, delay: float, interval: float,
                compress: bool, seed: int) -> dict[str, Any]:
    url = server.base.replace("http", "ws", 1) + "/ws/delayed"
    ca = str(server.ca) if server.ca is not None else ""
    fleet = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.bench_fanout", "--client-process", url,
        "--clients", str(clients), "--delay", str(delay),
        *([] if compress else ["--no-compress"]), *(["--ca", ca] if ca else []),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, cwd=ROOT)
    assert fleet.stdin is not None and fleet.stdout is not None
    try:
        ready = (await _line(fleet.stdout, CONNECT_TIMEOUT + 10))["ready"]
        async with aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(ssl=trusting(ca))) as session:
            operator = AutoOperator(session, server, seed)
            follower = asyncio.create_task(operator.follow())
            stop = asyncio.Event()
            driver = asyncio.create_task(operator.run(interval, stop))
            warmup = delay + 1.0
            await asyncio.sleep(warmup)
            if driver.done():
                driver.result()  # raises what stopped it
            fleet.stdin.write(b"mark\n")
            await fleet.stdin.drain()
            cpu0, t0, commands0 = cpu_seconds(server.pid), time.monotonic(), operator.commands
            fleet_cpu0, trips0 = cpu_seconds(fleet.pid), len(operator.round_trips)
            await _line(fleet.stdout, 10)
            await asyncio.sleep(seconds)
            fleet.stdin.write(b"mark\n")
            await fleet.stdin.drain()
            cpu1, t1, commands1 = cpu_seconds(server.pid), time.monotonic(), operator.commands
            fleet_cpu1, trips1 = cpu_seconds(fleet.pid), len(operator.round_trips)
            rss = rss_mb(server.pid)
            await _line(fleet.stdout, 10)
            stop.set()
            await asyncio.wait_for(driver, 10)
            await asyncio.sleep(delay + 0.5)  # the delayed channel releases the rest
            follower.cancel()
        fleet.stdin.write(b"stop\n")
        await fleet.stdin.drain()
        report = await _line(fleet.stdout, 30)
        await asyncio.wait_for(fleet.wait(), 30)
    finally:
        if fleet.returncode is None:
            fleet.kill()
            await fleet.wait()
    window = t1 - t0
    user = cpu1[0] - cpu0[0]
    system = cpu1[1] - cpu0[1]
    start, end = report["marks"]
    delivered = end["messages"] - start["messages"]
    totals = report["totals"]
    return {
        "tls": server.ca is not None,
        "clients": clients, "connected": ready, "seconds": window, "delay": delay,
        "interval": interval, "compress": compress,
        "cpu_share": (user + system) / window, "cpu_user_s": user, "cpu_system_s": system,
        "server_rss_mb": rss,
        "clients_cpu_share": (sum(fleet_cpu1) - sum(fleet_cpu0)) / window,
        "command_round_trip_ms": summary_ms(operator.round_trips[trips0:trips1]),
        "commands": commands1 - commands0, "commands_per_s": (commands1 - commands0) / window,
        "command_kinds": operator.kinds, "refused": operator.refused[:10],
        "late_ticks": operator.late_ticks,
        "messages_per_s": delivered / (end["time"] - start["time"]),
        "released_per_s": (end["patches"] - start["patches"]) / max(1, clients)
        / (end["time"] - start["time"]),
        "bytes_per_s": (end["bytes"] - start["bytes"]) / (end["time"] - start["time"]),
        "messages_total": totals["messages"], "gaps": totals["gaps"],
        "resyncs": totals["resyncs"], "errors": totals["errors"], "early": totals["early"],
        "closed_early": totals["closed_early"], "client_exceptions": totals["exceptions"],
        "deflate_negotiated": totals["deflate"],
        "lateness_ms": report["lateness_ms"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_fanout",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30.0, help="measured window")
    parser.add_argument("--delay", type=float, default=2.0, help="the delayed channel's D (s)")
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between events")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-compress", action="store_true",
                        help="clients do not offer permessage-deflate (browsers do)")
    parser.add_argument("--no-save", action="store_true")
    parser.add_argument("--tls", action="store_true",
                        help="serve HTTPS/WSS with the show's own CA (bench_tls compares)")
    parser.add_argument("--client-process", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--ca", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.client_process:
        report = asyncio.run(run_fleet(args.client_process, args.clients, args.delay,
                                       not args.no_compress, args.ca))
        print(json.dumps(report), flush=True)
        return 0
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="feltcast-fanout-") as tmp, \
            running_service(Path(tmp), args.delay, tls=args.tls) as server:
        result = asyncio.run(drive(server, args.clients, args.seconds, args.delay,
                                   args.interval, not args.no_compress, args.seed))
    checks = {"cpu_share<0.5": result["cpu_share"] < TARGET_CPU_SHARE,
              "no_gaps": result["gaps"] == 0 and result["resyncs"] == 0,
              "never_early": result["early"] == 0,
              "all_connected": result["connected"] == args.clients
              and result["closed_early"] == 0}
    result.update(checks=checks, target_cpu_share=TARGET_CPU_SHARE,
                  machine={"python": platform.python_version(), "machine": platform.machine(),
                           "cpus": os.cpu_count(), "loadavg_before": load_before,
                           "loadavg_after": os.getloadavg()})
    text = json.dumps(result, indent=2)
    if not args.no_save:
        save_result("fanout", text)
    print(text)
    late = result["lateness_ms"] or {}
    trip = result["command_round_trip_ms"] or {}
    print(f"{result['clients']} clients on delayed; {result['commands_per_s']:.1f} operator "
          f"commands/s (round trip p50 {trip.get('p50', 0):.0f} ms), "
          f"{result['released_per_s']:.1f} log events/s released\n"
          f"server CPU {result['cpu_share']:.2f} of a core (target < {TARGET_CPU_SHARE}); "
          f"{result['messages_per_s']:.0f} messages/s delivered, gaps {result['gaps']}, "
          f"resyncs {result['resyncs']}; release lateness p50 {late.get('p50', 0):.0f} ms, "
          f"p99 {late.get('p99', 0):.0f} ms (the clients' process used "
          f"{result['clients_cpu_share']:.2f} of a core; load average "
          f"{load_before[0]:.2f}): {'ok' if all(checks.values()) else 'MISSED'}",
          file=sys.stderr)
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
