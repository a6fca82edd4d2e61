"""``feltcast demo --festival``: a simulated three-table festival played down to its final
table and a winner, on a PostgreSQL and a Redis the demo starts for itself.

Everything runs in this process, each part on its own port of 127.0.0.1, as a festival runs
them on several machines: the tournament director's service (:mod:`overlay.festival`),
three tables' services (each its own log in its own schema, publishing its public channels
to Redis) and one web worker (:mod:`overlay.fanout.worker`: the festival's front page and
every table's pages, with the festival's places and prizes the director publishes). A
:class:`FestivalDealer` at each table deals and plays through the table's HTTP API, as an
operator's console does, and asks for each next hand, waiting when the director says so
(R24: hand-for-hand).
"""

from __future__ import annotations

import asyncio
import random
import tempfile
import uuid
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from engine.cards import FULL_DECK
from engine.festival import FINAL_NAME
from overlay.app import create_app
from overlay.auth import SHARED_ROLES, rotate_tokens
from overlay.config import parse_config
from overlay.demo.servers import PostgresServer, RedisServer
from overlay.demo.show import DemoOptions
from overlay.fanout.worker import WorkerSettings, create_worker_app
from overlay.festival.app import create_festival_app
from overlay.festival.director import Director
from overlay.festival.settings import FestivalSettings
from overlay.keys import DIRECTOR_KEY, TABLE_KEY
from overlay.startup import bound_port, listen_socket
from overlay.tasks import StopSignals, until_stopped

__all__ = ["FESTIVAL_PLAYERS", "FESTIVAL_TABLES", "FestivalDealer", "run_festival"]

FESTIVAL_TABLES = ("table-1", "table-2", "table-3")
FIRST = ("Ana", "Ben", "Chloe", "Dario", "Elif", "Femi", "Greta", "Hugo", "Ines")
LAST = ("Souza", "Ito", "Novak")
FESTIVAL_PLAYERS = tuple(f"{first} {last}" for last in LAST for first in FIRST)
"""27 players: three tables of nine."""
FESTIVAL_STACK = 20_000
DEMO_SHOVE, DEMO_CALL = 0.07, 0.45
"""The demo's dealers: a shove now and then, called a bit less than half the time (a
festival that lasts long enough to watch: about an hour at ``--speed 1``)."""
STEP_SECONDS = 0.8
"""A dealer's pace at ``--speed 1``: one command (a card dealt, an action) this often."""

Post = Callable[[str, dict[str, Any]], Awaitable[tuple[int, dict[str, Any]]]]


class FestivalDealer:
    """One table's automatic dealer, one command a :meth:`step`: asks for the next hand (a
    refusal with R24 is a step spent waiting), deals the hole cards and the board, and plays:
    a shove now and then, called or folded to. It reads the hand from the table's service
    (``app``; :meth:`current_hand`) and sends every command through ``post`` (its HTTP
    API)."""

    def __init__(self, app: web.Application | None, post: Post, key: str, rng: random.Random,
                 *, plays_final: bool, shove: float = 0.2, call: float = 0.6) -> None:
        self.app, self.post, self.key, self.rng = app, post, key, rng
        self.plays_final = plays_final
        self.shove, self.call = shove, call
        """How often it goes all in when it may, and calls a bet (else folds)."""
        self.deck: list[str] = []
        self.waits = 0
        """Refusals with R24: the table waited for the others (hand-for-hand)."""
        self.hands = 0
        self.broken = False
        self.done = False

    async def command(self, kind: str, **fields: Any) -> tuple[int, dict[str, Any]]:
        return await self.post("/api/commands", {"id": str(uuid.uuid4()), "type": kind,
                                                 **fields})

    def current_hand(self) -> Any:
        """The table's hand as its service holds it now (None before the first). A dealer of
        a service in another process reads it over HTTP instead (the kill tests)."""
        assert self.app is not None
        return self.app[TABLE_KEY].table.hand

    async def step(self) -> None:
        """One command of this table's."""
        hand = self.current_hand()
        if hand is None or hand.is_over:
            await self.next_hand()
            return
        waiting = [seat for seat in hand.seats if hand.hole_cards(seat) is None]
        if waiting:
            status, answer = await self.command(
                "deal_cards", seat=waiting[0], cards=[self.deck.pop(), self.deck.pop()])
        elif (legal := hand.legal_actions()) is not None:
            roll = self.rng.random()
            if legal.max_raise_to is not None and roll < self.shove:
                kind = "all_in"
            elif legal.call_amount:
                kind = "call" if roll < self.call else "fold"
            else:
                kind = "check"
            status, answer = await self.command(kind, seat=legal.seat)
        else:
            count = 3 if not hand.board else 1
            status, answer = await self.command(
                "deal_board", cards=[self.deck.pop() for _ in range(count)])
        if status != 200:
            raise RuntimeError(f"{self.key}: {answer}")

    async def next_hand(self) -> None:
        status, answer = await self.command("next_hand")
        error = answer.get("error", {}) if status != 200 else {}
        if status == 409 and error.get("rule") == "R24":
            self.waits += 1  # hand-for-hand: the others first
            return
        if status == 409 and "fewer than two players" in error.get("message", ""):
            self.done = True  # the winner alone: the festival is over
            return
        if status != 200:
            raise RuntimeError(f"{self.key}: {answer}")
        hand = self.current_hand()
        if hand is None or hand.is_over:  # no hand: this table was broken
            self.broken = True
            self.done = not self.plays_final  # that one plays the final table once formed
            return
        self.hands += 1
        self.deck = [card.code for card in FULL_DECK]
        self.rng.shuffle(self.deck)


async def play_festival(dealers: list[FestivalDealer], pause: float = 0.0,
                        max_turns: int = 100_000,
                        after_turn: Callable[[], None] | None = None) -> None:
    """The tables in turn, a command each, until the festival is over (``pause`` between
    turns; ``after_turn`` called after each)."""
    for _ in range(max_turns):
        live = [dealer for dealer in dealers if not dealer.done]
        if not live:
            return
        for dealer in live:
            await dealer.step()
        if after_turn is not None:
            after_turn()
        if pause:
            await asyncio.sleep(pause)
    raise RuntimeError("the festival did not end")


class Progress:
    """The festival's milestones, each said once: hand-for-hand, the final table."""

    def __init__(self, director: Director, out: Callable[[str], None]) -> None:
        self.director, self.out = director, out
        self.said: set[str] = set()

    def __call__(self) -> None:
        festival = self.director.festival
        if festival is None:
            return
        if festival.hand_for_hand and "h4h" not in self.said:
            self.said.add("h4h")
            self.out(f"hand-for-hand: {festival.remaining} players left at "
                     f"{len(festival.tables)} tables (R24)")
        if len(festival.tables) == 1 and festival.tables[0].name == FINAL_NAME \
                and "final" not in self.said:
            self.said.add("final")
            self.out(f"the final table: {festival.remaining} players at "
                     f"{self.director.settings.final_table} (R23)")


def _post(session: aiohttp.ClientSession, base: str, token: str) -> Post:
    async def post(path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        async with session.post(f"{base}{path}", json=body,
                                headers={"Authorization": f"Bearer {token}"}) as response:
            return response.status, await response.json()
    return post


async def _serve(stack: AsyncExitStack, app: web.Application, host: str, port: int) -> str:
    sock = listen_socket(host, port)
    stack.callback(sock.close)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    stack.push_async_callback(runner.cleanup)
    await web.SockSite(runner, sock).start()
    return f"http://{host}:{bound_port(sock)}"


async def run_festival(options: DemoOptions, out: Callable[[str], None] = print) -> int:
    """Run the festival demo until it is over and Ctrl-C (or SIGTERM)."""
    stop = StopSignals(out)
    stop.install()
    root = options.data or Path(tempfile.mkdtemp(prefix="feltcast-festival-"))
    root.mkdir(parents=True, exist_ok=True)
    seed = options.seed if options.seed is not None else random.randrange(2**32)
    async with AsyncExitStack() as stack:
        out("starting PostgreSQL and Redis on 127.0.0.1 ...")
        postgres = PostgresServer()
        stack.callback(postgres.stop)
        await asyncio.to_thread(postgres.start)
        redis = RedisServer()
        stack.callback(redis.stop)
        await asyncio.to_thread(redis.start)
        database = await asyncio.to_thread(postgres.create_database)
        out(f"  PostgreSQL on 127.0.0.1:{postgres.port}, Redis on 127.0.0.1:{redis.port} "
            "(this demo's own, stopped with it)")
        token = uuid.uuid4().hex
        settings = FestivalSettings(
            name="Feltcast Demo Festival", tables=FESTIVAL_TABLES, players=FESTIVAL_PLAYERS,
            stack=FESTIVAL_STACK, database_url=database, token=token, seed=seed % 2**31,
            prizes=(60_000, 36_000, 24_000, 16_000, 12_000, 9_000, 7_000, 6_000, 5_000),
            fanout_url=redis.url, delay=options.delay)  # its places on the worker's pages
        director_app = create_festival_app(settings, root / "director")
        director = await _serve(stack, director_app, options.host, 0)
        worker = await _serve(stack, create_worker_app(WorkerSettings(redis.url)),
                              options.host, options.port)
        session = aiohttp.ClientSession()
        stack.push_async_callback(session.close)
        rng = random.Random(seed)
        dealers, lines = [], []
        for key in FESTIVAL_TABLES:
            data = root / key
            tokens = await asyncio.to_thread(rotate_tokens, data, SHARED_ROLES)
            config = parse_config({
                "table": {"name": key.replace("-", " ").title(), "seats": 10},
                "delay": {"seconds": options.delay},
                "database": {"url": database, "schema": key.replace("-", "_")},
                "festival": {"url": director, "table": key, "token": token},
                "fanout": {"url": redis.url, "table": key},
                "data_dir": str(data)})
            app = create_app(config, tokens=tokens)
            base = await _serve(stack, app, options.host, 0)
            dealers.append(FestivalDealer(app, _post(session, base, tokens.operator), key,
                                          random.Random(rng.random()),
                                          plays_final=key == settings.final_table,
                                          shove=DEMO_SHOVE, call=DEMO_CALL))
            lines.append(f"  {key}: operator {base}/operator?token={tokens.operator}  "
                         f"overlay {worker}/t/{key}/overlay")
        out(f"Feltcast demo festival (seed {seed}): {len(FESTIVAL_PLAYERS)} players at "
            f"{len(FESTIVAL_TABLES)} tables, hand-for-hand from 11, the final table at 10")
        out(f"  the festival (every table, the field): {worker}/")
        for line in lines:
            out(line)
        out(f"  the director: {director}/ (its data: {director}/api/festival)")
        out(f"  the director's orders: {director}/?token={token}")
        pause = STEP_SECONDS / options.speed
        progress = Progress(director_app[DIRECTOR_KEY], out)
        stopped, _ = await until_stopped(
            play_festival(dealers, pause, after_turn=progress), stop)
        if not stopped:
            final = await (await session.get(f"{director}/api/festival")).json()
            winner = final["tables"][0]["seats"][0][1] if final["tables"] else "?"
            out(f"the festival is over: {winner} won; the pages stay up until Ctrl-C")
            stopped, _ = await until_stopped(asyncio.Event().wait(), stop)
        out("demo stopped")
    return 0
