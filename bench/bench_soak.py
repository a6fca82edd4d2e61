"""``python -m bench.bench_soak``: a show day, accelerated, with crashes.

A real ``feltcast serve`` (its own process, a SQLite data directory, a simulated RFID reader on
a pseudo-terminal, OBS control configured at an address where OBS comes and goes, a delayed
channel of ``--delay`` seconds) plays a nine-handed tournament table: the operator's commands
go over HTTP as fast as it answers, with hands of realistic length (``--hands``; twelve hours
of a final table are about 360 hands). Meanwhile:

* every ``--kill-every`` seconds on average (at random moments, often with a command in
  flight), the service is killed with SIGKILL and started again on the same data directory;
  the command in flight is sent again with its id until it is answered (as the operator's
  tablet does);
* the reader goes away and comes back (``--reader-faults`` times);
* a viewer follows the delayed channel over a websocket the whole time, resuming with its
  revision after each restart;
* the last quarter of the hands (``--calm-hands``) is played without kills, by one process,
  whose memory is the one measured: its growth once the channels' resume histories (4,096
  messages each) are full, and over the second half of that stretch.

At the end the log is read back and the soak reports: acknowledged commands and whether each
is in the log once (**lost**, **applied twice**), the log's sequence (gaps, duplicates), entries
the delayed viewer got before their time (**early**) or twice, the chips (conserved in every
hand), the service's memory (RSS) over time and its growth after the warm-up, and every start's
duration (from the process start until it answers). Results go to
``bench/results/soak-<UTC time>.json``; the exit status is 1 if anything was lost, applied
twice, early, or the memory grew by more than 10 % after the warm-up.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import platform
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from bench import save_result
from capture.simulator import SimulatedReader
from engine.cards import FULL_DECK
from overlay.auth import SHARED_ROLES, rotate_tokens
from overlay.hub import apply_merge_patch
from overlay.store import open_store
from tests.pages.service import free_port

ROOT = Path(__file__).resolve().parents[1]
READER = "soak-table"
MEMORY_GROWTH_LIMIT = 0.10


def config_text(link: Path, port: int, delay: float, obs_port: int) -> str:
    seats = "\n".join(f'"{s}" = "seat{s}"' for s in range(1, 10))
    players = "\n".join(f'[[players]]\nseat = {s}\nname = "Player {s}"\nstack = 20000\n'
                        for s in range(1, 10))
    return f"""\
[table]
name = "Soak Final"
seats = 9
button = 1

[delay]
seconds = {delay}

[server]
port = {port}

[obs]
enabled = true
port = {obs_port}
password = "soak"
timeout = 1.0

{players}
[[capture.readers]]
name = "{READER}"
transport = "serial"
address = "{link}"

[capture.readers.antennas]
{seats}
"11" = "board"
"""


@dataclass
class Soak:
    root: Path
    port: int
    delay: float
    rng: random.Random
    token: str = ""
    process: subprocess.Popen[bytes] | None = None
    starts: list[float] = field(default_factory=list)
    memory: list[tuple[int, int, int]] = field(default_factory=list)
    """(commands so far, RSS in KiB, the operator channel's revision)."""
    acked: dict[str, int] = field(default_factory=dict)
    """Command id -> the log sequence number of its answer."""
    kills: int = 0
    retries: int = 0
    commands: int = 0
    _ws: aiohttp.ClientWebSocketResponse | None = None
    _view: dict[str, Any] = field(default_factory=dict)
    _revision: int = -1
    _wanted: int = 0
    """The operator channel's revision after the last answered command."""
    _starting: bool = False

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self, session: aiohttp.ClientSession) -> None:
        self._starting = True
        try:
            await self._start(session)
        finally:
            self._starting = False

    async def _start(self, session: aiohttp.ClientSession) -> None:
        begun = time.monotonic()
        with (self.root / "serve.log").open("ab") as log:  # the child keeps its own copy
            self.process = subprocess.Popen(
                [sys.executable, "-m", "overlay", "serve", "--config",
                 str(self.root / "feltcast.toml"), "--data", str(self.root / "data")],
                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log,
                env={**os.environ, "PYTHONUNBUFFERED": "1"})
        deadline = begun + 120
        while True:
            try:
                async with session.get(f"{self.base}/api/config") as response:
                    if response.status == 200:
                        break
            except aiohttp.ClientError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("feltcast serve did not start: see "
                                   f"{self.root / 'serve.log'}")
            await asyncio.sleep(0.05)
        self.starts.append(time.monotonic() - begun)

    def kill(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=60)
        self.kills += 1

    def rss(self) -> int | None:
        """The service's resident memory in KiB; None when it is gone (the crash task may
        kill it between the view and this read)."""
        assert self.process is not None
        try:
            status = Path(f"/proc/{self.process.pid}/status").read_text()
        except (FileNotFoundError, ProcessLookupError):
            return None
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return None

    async def command(self, session: aiohttp.ClientSession, kind: str,
                      **fields: Any) -> tuple[int, dict[str, Any]]:
        """Send one command until it is answered (a retry keeps its id)."""
        body = {"id": str(uuid.uuid4()), "type": kind, **fields}
        self.commands += 1
        while True:
            try:
                async with session.post(f"{self.base}/api/commands", json=body, headers={
                        "Authorization": f"Bearer {self.token}"}) as response:
                    answer: dict[str, Any] = await response.json()
                    if response.status == 200:
                        self.acked[body["id"]] = answer["seq"]
                        self._wanted = answer.get("revision", self._wanted)
                    return response.status, answer
            except (TimeoutError, aiohttp.ClientError):
                self.retries += 1  # the service is down (killed): wait, then the same id again
                await self.ensure_running(session)

    async def ensure_running(self, session: aiohttp.ClientSession) -> None:
        assert self.process is not None
        if self.process.poll() is not None:
            self._ws, self._wanted = None, 0  # a new connection: a snapshot
            await self.start(session)
        else:
            await asyncio.sleep(0.05)

    async def operator_view(self, session: aiohttp.ClientSession) -> dict[str, Any]:
        """The console's view, as the console has it: the operator channel's websocket,
        patched, at least as new as the last command's answer."""
        while True:
            try:
                if self._ws is None or self._ws.closed:
                    self._ws = await session.ws_connect(
                        f"{self.base.replace('http', 'ws')}/ws/operator?token={self.token}")
                    await self._ws.send_json({"type": "hello", "page": "soak",
                                              "version": "soak", "resume": None})
                    self._view, self._revision = {}, -1
                while self._revision < self._wanted:
                    message = await self._ws.receive(timeout=30)
                    if message.type is not aiohttp.WSMsgType.TEXT:
                        raise aiohttp.ClientError("the operator channel closed")
                    data = json.loads(message.data)
                    if data["type"] == "snapshot":
                        self._view, self._revision = data["view"], data["revision"]
                    elif data["type"] == "patch":
                        self._view = apply_merge_patch(self._view, data["patch"])
                        self._revision = data["revision"]
                return self._view
            except (TimeoutError, aiohttp.ClientError, ConnectionError):
                self._ws = None
                await self.ensure_running(session)

    calm_from: int = -1
    """The command count from which no more kills come (the memory is measured there)."""

    async def killer(self, every: float, stop: asyncio.Event) -> None:
        """SIGKILL the service at random moments (``every`` seconds apart on average): often
        while a command is in flight, which the operator's side then sends again."""
        while not stop.is_set():
            await asyncio.sleep(self.rng.uniform(0.2, 2 * every))
            if self.process is not None and self.process.poll() is None and \
                    not stop.is_set() and not self._starting:
                self.kill()

    async def play(self, session: aiohttp.ClientSession, hands: int, min_kills: int = 0,
                   ) -> None:
        """The operator's side: ``hands`` hands (more until ``min_kills`` kills happened),
        each played to its end, restarting the service when it is gone."""
        played = 0
        while True:
            view = await self.operator_view(session)
            rss = self.rss() if self.commands % 25 == 0 else None
            if rss is not None:
                self.memory.append((self.commands, rss, self._revision))
            operator = view["operator"]
            table = view["table"]
            if operator.get("between_hands") and played >= hands and self.kills >= min_kills:
                return  # the last hand started is over: its chips can be checked
            if operator.get("between_hands"):
                busted = [s["seat"] for s in view["seats"] if s.get("name")
                          and not s.get("stack")]
                live = [s for s in view["seats"] if s.get("name") and s.get("stack")]
                for seat in busted:
                    await self.command(session, "empty_seat", seat=seat)
                if len(live) < 4:  # the next table's players sit down
                    for seat in range(1, 10):
                        if not any(s["seat"] == seat and s.get("name") and s.get("stack")
                                   for s in view["seats"]):
                            await self.command(session, "set_seat", seat=seat,
                                               name=f"Player {seat}",  # a re-entry
                                               stack=20000)
                status, _ = await self.command(session, "next_hand")
                played += status == 200  # refused (a view behind the table): look again
                continue
            needed = operator.get("cards_needed")  # (a merge patch drops null keys)
            if needed:
                used = set(table.get("board") or ()) | {
                    c for s in view["seats"] for c in s.get("cards") or () if c}
                free = [str(c) for c in FULL_DECK if str(c) not in used]
                self.rng.shuffle(free)
                need = needed[0]
                cards = free[:need["count"]]
                if need["target"] == "seat":
                    await self.command(session, "deal_cards", seat=need["seat"], cards=cards)
                else:
                    await self.command(session, "deal_board", cards=cards)
                continue
            legal = operator.get("legal")
            if legal is None:  # a showdown: show every live hand, else void it
                live = [s["seat"] for s in view["seats"] if s.get("name")
                        and not s.get("folded") and s.get("cards")]
                status = 409
                for seat in live:
                    status, _ = await self.command(session, "show_hand", seat=seat)
                if status != 200:
                    await self.command(session, "misdeal")
                continue
            roll = self.rng.random()
            seat = legal["seat"]
            wager = legal.get("raise") or legal.get("bet")
            verb = "raise_to" if legal.get("raise") else "bet"
            if roll < 0.15 and legal.get("fold") and not legal.get("check"):
                await self.command(session, "fold", seat=seat)
            elif roll < 0.8 or wager is None:
                await self.command(session, "check" if legal.get("check") else "call",
                                   seat=seat)
            elif roll < 0.93 or legal.get("all_in") is None:
                await self.command(session, verb, seat=seat, amount=wager["min"])
            else:
                await self.command(session, "all_in", seat=seat)


@dataclass
class Viewer:
    """A page on the delayed channel for the whole soak (resuming after each restart)."""

    base: str
    delay: float
    revision: int | None = None
    log_id: str | None = None
    events: list[int] = field(default_factory=list)
    early: list[tuple[int, float]] = field(default_factory=list)
    duplicates: int = 0
    gaps: int = 0
    snapshots: int = 0
    errors: list[str] = field(default_factory=list)

    async def follow(self, session: aiohttp.ClientSession, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                async with session.ws_connect(f"{self.base.replace('http', 'ws')}/ws/delayed",
                                              heartbeat=5) as ws:
                    await ws.send_json({"type": "hello", "page": "soak", "version": "soak",
                                        "resume": self.revision, "log_id": self.log_id})
                    async for message in ws:
                        if stop.is_set():
                            return
                        if message.type is aiohttp.WSMsgType.TEXT:
                            self.take(json.loads(message.data))
            except (TimeoutError, aiohttp.ClientError, ConnectionError):
                pass
            except Exception as error:  # counted, never the end of the viewer
                self.errors.append(f"{type(error).__name__}: {error}")
            await asyncio.sleep(0.1)

    def take(self, data: dict[str, Any]) -> None:
        now = time.time()
        if data["type"] == "snapshot":
            self.snapshots += 1
            self.revision, self.log_id = data["revision"], data["log_id"]
            return
        if data["type"] != "patch":
            return
        if self.revision is not None:
            if data["revision"] <= self.revision:
                self.duplicates += 1
                return
            if data["revision"] != self.revision + 1:
                self.gaps += 1
        self.revision = data["revision"]
        for event in data["events"]:
            self.events.append(event["seq"])
            if event["time"] + self.delay > now + 0.05:  # the clocks are one machine's
                self.early.append((event["seq"], event["time"] + self.delay - now))


async def reader_faults(sim: SimulatedReader, count: int, stop: asyncio.Event,
                        rng: random.Random) -> int:
    done = 0
    while done < count and not stop.is_set():
        await asyncio.sleep(rng.uniform(1.0, 4.0))
        await sim.unplug()  # the reader's cable is pulled
        await asyncio.sleep(rng.uniform(0.5, 2.0))
        await sim.replug()  # and plugged in again
        done += 1
    return done


async def run(args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="feltcast-soak-") as tmp:
        root = Path(tmp)
        link = root / "reader.tty"
        sim = SimulatedReader(READER, scan_interval=0.1, heartbeat_interval=0.5)
        await sim.open_pty(link)
        soak = Soak(root, free_port(), args.delay, rng)
        (root / "feltcast.toml").write_text(config_text(link, soak.port, args.delay,
                                                        free_port()))
        soak.token = rotate_tokens(root / "data", SHARED_ROLES).operator
        viewer = Viewer(soak.base, args.delay)
        stop = asyncio.Event()
        timeout = aiohttp.ClientTimeout(total=30)
        started = time.monotonic()
        async with aiohttp.ClientSession(timeout=timeout) as session:
            await soak.start(session)
            follower = asyncio.create_task(viewer.follow(session, stop))
            faults = asyncio.create_task(reader_faults(sim, args.reader_faults, stop,
                                                       rng))
            calm = asyncio.Event()
            killing = asyncio.create_task(soak.killer(args.kill_every, calm))
            try:
                calm_hands = args.calm_hands if args.calm_hands is not None else args.hands // 4
                await soak.play(session, args.hands - calm_hands, args.min_kills)
                calm.set()
                await killing
                await soak.ensure_running(session)
                soak.calm_from = soak.commands
                await soak.play(session, calm_hands)
                await soak.ensure_running(session)
                # Everything logged becomes due on the delayed channel: wait for it.
                await asyncio.sleep(args.delay + 1.0)
                released = await released_revision(soak, session)
                deadline = time.monotonic() + 60
                while (viewer.revision or 0) < released and time.monotonic() < deadline:
                    await asyncio.sleep(0.2)
            finally:
                stop.set()
                calm.set()
                await asyncio.gather(killing, return_exceptions=True)
                faults_done = await faults
                follower.cancel()
                await asyncio.gather(follower, return_exceptions=True)
                assert soak.process is not None
                soak.process.terminate()
                soak.process.wait(timeout=60)
                await sim.close()
        elapsed = time.monotonic() - started
        figures = report(soak, viewer, faults_done, elapsed, root / "data", args)
        figures["delayed_missed"] = released - (viewer.revision or 0)
        return figures


async def released_revision(soak: Soak, session: aiohttp.ClientSession) -> int:
    """How many items the delayed channel has released."""
    async with session.get(f"{soak.base}/api/state?channel=delayed") as response:
        return int((await response.json())["revision"])


def report(soak: Soak, viewer: Viewer, faults: int, elapsed: float, data: Path,
           args: argparse.Namespace) -> dict[str, Any]:
    store = open_store("", data)
    try:
        entries = list(store.iter_all())
        seqs = [e.seq for e in entries]
        lost = [cid for cid in soak.acked if store.answer(cid) is None]
    finally:
        store.close()
    gaps = sum(1 for a, b in itertools.pairwise(seqs) if b != a + 1)
    chips = chips_conserved(entries)
    calm = [m for m in soak.memory if m[0] >= soak.calm_from]  # one process, no kills
    # Warm once the channels' resume histories are full (4,096 items past the calm start).
    warm = [m for m in calm if calm and m[2] >= calm[0][2] + 4096 + 256] or calm[-2:]
    growth = (warm[-1][1] - warm[0][1]) / warm[0][1] if warm and warm[0][1] else 0.0
    figures = {
        "hands": args.hands, "commands": soak.commands, "acknowledged": len(soak.acked),
        "retries_after_kill": soak.retries, "kills": soak.kills, "reader_faults": faults,
        "entries": len(entries), "log_gaps": gaps, "log_duplicates": len(seqs) - len(set(seqs)),
        "lost": len(lost), "applied_twice": applied_twice(entries),
        "delayed_events": len(viewer.events), "delayed_early": len(viewer.early),
        "delayed_duplicates": viewer.duplicates
        + len(viewer.events) - len(set(viewer.events)),
        "delayed_revision_gaps": viewer.gaps, "delayed_snapshots": viewer.snapshots,
        "hands_checked_for_chips": chips[0], "chips_broken": chips[1],
        "start_s": {"count": len(soak.starts), "median": round(statistics.median(soak.starts), 2),
                    "max": round(max(soak.starts), 2)},
        "rss_kib": [m[:2] for m in soak.memory[-40:]],
        "rss_growth_after_warmup": round(growth, 3), "rss_warm_samples": len(warm),
        "rss_calm_kib": [warm[0][1], warm[-1][1]] if warm else None,
        "rss_growth_second_half": round(
            (calm[-1][1] - calm[len(calm) // 2][1]) / calm[len(calm) // 2][1], 3)
        if len(calm) > 1 else 0.0,
        "viewer_errors": viewer.errors[:5],
        "elapsed_s": round(elapsed, 1), "seed": args.seed, "delay_s": args.delay,
        "python": platform.python_version(), "machine": platform.machine(),
    }
    return figures


def applied_twice(entries: list[Any]) -> int:
    """Hands started twice with one number (what a ``next_hand`` applied again would
    leave; the answers' own check is ``lost``: each acknowledged id answered once)."""
    numbers = [e.payload.hand_number for e in entries if e.kind == "hand_started"]
    return len(numbers) - len(set(numbers))


def chips_conserved(entries: list[Any]) -> tuple[int, int]:
    """Every hand's stacks at its start add up to its end's (the log's own hand_ended)."""
    checked = broken = 0
    start: int | None = None
    for entry in entries:
        payload = entry.payload
        if entry.kind == "hand_started":
            start = sum(payload.stacks)
        elif entry.kind == "hand_ended" and start is not None:
            checked += 1
            broken += sum(payload.stacks) != start
            start = None
    return checked, broken


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_soak",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=360,
                        help="hands to play (a final table plays about 30 an hour: 360)")
    parser.add_argument("--kill-every", type=float, default=20.0, metavar="SECONDS",
                        help="seconds between two SIGKILLs, on average (default 20)")
    parser.add_argument("--calm-hands", type=int, default=None,
                        help="hands played at the end without kills (default: a quarter)")
    parser.add_argument("--min-kills", type=int, default=0,
                        help="play on until at least this many kills (default 0)")
    parser.add_argument("--reader-faults", type=int, default=10,
                        help="times the reader goes away and comes back (default 10)")
    parser.add_argument("--delay", type=float, default=5.0,
                        help="the delayed channel's delay in seconds (default 5)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-save", action="store_true", help="do not write bench/results")
    args = parser.parse_args(argv)
    figures = asyncio.run(run(args))
    return verdict(figures, save=not args.no_save)


def verdict(figures: dict[str, Any], *, save: bool) -> int:
    print(json.dumps({k: v for k, v in figures.items() if k != "rss_kib"}, indent=2))
    if save:
        print(f"saved to {save_result('soak', json.dumps(figures, indent=2))}")
    bad = (figures["lost"] or figures["applied_twice"] or figures["log_gaps"]
           or figures["log_duplicates"] or figures["delayed_early"]
           or figures["delayed_duplicates"] or figures["chips_broken"]
           or figures["delayed_missed"] or figures["delayed_revision_gaps"]
           or figures["rss_growth_after_warmup"] > MEMORY_GROWTH_LIMIT)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
