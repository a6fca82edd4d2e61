"""State checkpoints (``overlay/checkpoints.py``): a start from the newest checkpoint plus the
log's tail stands exactly where a full replay stands (every channel's view, revision, resume
history and pending delayed items; the table, its hand and the tournament), on random
tournaments played through the service's commands with restarts in between; a checkpoint
that is damaged, forged, from another configuration or no longer on the log is set aside
with a warning and the log replayed; a page resuming after a restart gets only what it
missed."""

from __future__ import annotations

import asyncio
import contextlib
import random
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from aiohttp import WSMsgType
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import FULL_DECK
from engine.errors import IllegalActionError
from engine.events import Street
from overlay.app import create_app
from overlay.auth import SHARED_ROLES, Tokens, rotate_tokens
from overlay.config import Config, parse_config
from overlay.hub import START_HISTORY
from overlay.keys import CHECKPOINTS_KEY, HUBS_KEY, TABLE_KEY
from overlay.store import create_db_engine, database_url
from tests.overlay.test_tournament_service import LEVELS, FakeClock


def config(data: Path, *, every: int = 40, delay: float = 30.0) -> Config:
    return parse_config({
        "table": {"name": "Checkpoint Final", "seats": 9, "button": 1},
        "players": [{"seat": s, "name": f"P{s}", "stack": st}
                    for s, st in ((1, 1500), (3, 800), (5, 2500), (8, 1000))],
        "delay": {"seconds": delay},
        "channels": {"secure": {"enabled": True}},
        "tournament": {"name": "Main", "entrants": 4, "prize_pool": 1000, "currency": "EUR",
                       "payouts": {"percentages": [70, 30]}, "levels": LEVELS},
        "database": {"checkpoint_every": every},
        "data_dir": str(data),
    })


class Table:
    """The service on a real test server, driven by random legal commands."""

    def __init__(self, data: Path, clock: FakeClock, tokens: Tokens, *, every: int = 40,
                 ) -> None:
        self.data, self.clock, self.tokens, self.every = data, clock, tokens, every
        self.client: TestClient | None = None
        self.busts = 0
        self.started_from = 0

    async def start(self) -> None:
        app = create_app(config(self.data, every=self.every), clock=self.clock,
                         tokens=self.tokens)
        self.client = TestClient(TestServer(app, host="127.0.0.1"))
        await self.client.start_server()

    async def stop(self) -> None:
        assert self.client is not None
        await self.client.close()
        self.client = None

    @property
    def app(self) -> Any:
        assert self.client is not None
        return self.client.server.app

    async def do(self, kind: str, **fields: Any) -> dict[str, Any]:
        body = {"id": str(uuid.uuid4()), "type": kind, **fields}
        result: dict[str, Any] = await self.app[TABLE_KEY].execute(body)
        return result

    async def play(self, rng: random.Random, steps: int) -> None:
        """``steps`` commands of tournament play (hands, undos, misdeals, clock, re-seats)."""
        service = self.app[TABLE_KEY]
        for _ in range(steps):
            await asyncio.sleep(0)  # as between two requests: the loop runs its callbacks
            self.clock.now += rng.choice((0.0, 1.0, 7.0))
            hand = service.hand
            if hand is None or hand.is_over:
                await self._between_hands(rng)
                continue
            missing = [s for s in hand.seats if hand.hole_cards(s) is None]
            if missing:
                free = [c for c in FULL_DECK if not self._dealt(hand, c)]
                rng.shuffle(free)
                await self.do("deal_cards", seat=missing[0], cards=[str(free[0]), str(free[1])])
                continue
            legal = hand.legal_actions()
            roll = rng.random()
            if legal is not None:
                if roll < 0.04:
                    await self._try("undo")
                elif roll < 0.06:
                    await self._try("misdeal")
                elif roll < 0.2 and not legal.can_check:
                    await self.do("fold", seat=legal.seat)
                elif roll < 0.75 or legal.min_raise_to is None or legal.max_raise_to is None:
                    await self.do("check" if legal.can_check else "call", seat=legal.seat)
                elif roll < 0.9:
                    await self.do("all_in", seat=legal.seat)
                else:
                    await self.do("raise_to", seat=legal.seat, amount=legal.min_raise_to)
            elif hand.street is Street.SHOWDOWN:
                for seat in hand.live_seats:
                    if hand.is_over or hand.street is not Street.SHOWDOWN:
                        break
                    await self._try("show_hand", seat=seat)
                if not hand.is_over:
                    await self._try("misdeal")
            else:
                need = 3 if not hand.board else 1
                free = [c for c in FULL_DECK if not self._dealt(hand, c)]
                rng.shuffle(free)
                await self.do("deal_board", cards=[str(c) for c in free[:need]])

    @staticmethod
    def _dealt(hand: Any, card: Any) -> bool:
        if card in hand.board:
            return True
        return any(card in (hand.hole_cards(s) or ()) for s in hand.seats)

    async def _try(self, kind: str, **fields: Any) -> None:
        with contextlib.suppress(IllegalActionError):
            await self.do(kind, **fields)

    async def _between_hands(self, rng: random.Random) -> None:
        service = self.app[TABLE_KEY]
        roll = rng.random()
        if roll < 0.05:
            await self._try("adjust_clock", seconds=rng.choice((-30, 45, 120)))
        elif roll < 0.08:
            await self._try("start_clock")
        elif roll < 0.1:
            await self._try("set_player", seat=rng.choice(list(service.table.stacks)),
                          country=rng.choice(("DE", "FR", None)))
        stacks = service.table.stacks
        if len(stacks) < 2 or rng.random() < 0.05:  # fresh players sit down (a re-entry)
            for seat in (2, 6):
                if seat not in stacks:
                    self.busts += 1
                    await self.do("set_seat", seat=seat, name=f"New {self.busts}",
                                  stack=rng.choice((600, 1200)))
        await self.do("next_hand")

    def picture(self) -> dict[str, Any]:
        """Everything a start decides, as comparable values."""
        service = self.app[TABLE_KEY]
        hubs = {name: {"snapshot": hub.snapshot_message().data, "revision": hub.revision,
                       "history": [m.text for m in hub._history],
                       "view": (hub.view.last_seq, hub.view.released, list(hub.view._pending),
                                list(hub.view._held), hub.view._last_release)}
                for name, hub in self.app[HUBS_KEY].items()}
        hand = service.hand
        return {"hubs": hubs, "stacks": dict(service.table.stacks),
                "button": service.table.button,
                "hand": list(hand.events) if hand is not None else None,
                "desk": {key: vars(value) if hasattr(value, "__dict__") else value
                         for key, value in service.tournament.state().items()},
                "open_access": dict(service.open_access), "clock_call": service._clock_call,
                "level_started_at": service._level_started_at}


def drop_checkpoints(data: Path) -> None:
    engine = create_db_engine(database_url("", data))
    with engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM state_checkpoint"))
    engine.dispose()


async def compare_with_full_replay(table: Table, tmp: Path) -> list[str]:
    """Start ``table``'s log twice, from its checkpoints and replayed whole (a copy whose
    checkpoints are gone): both must stand at the same place. Returns why checkpoints were
    set aside."""
    replica = tmp / f"replica-{uuid.uuid4().hex[:6]}"
    shutil.copytree(table.data, replica)
    drop_checkpoints(replica)
    await table.start()
    skipped = list(table.app[CHECKPOINTS_KEY].skipped)
    table.started_from = table.app[CHECKPOINTS_KEY].started_from
    from_checkpoint = table.picture()
    await table.stop()
    full = Table(replica, table.clock, table.tokens, every=table.every)
    await full.start()
    replayed = full.picture()
    await full.stop()
    assert from_checkpoint == replayed
    return skipped


@settings(max_examples=6, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), rounds=st.lists(st.integers(5, 90), min_size=1,
                                                        max_size=3))
async def test_a_checkpoint_and_the_tail_stand_where_a_full_replay_stands(
        tmp_path_factory: Any, seed: int, rounds: list[int]) -> None:
    tmp = tmp_path_factory.mktemp("ckpt")
    data = tmp / "data"
    clock = FakeClock()
    table = Table(data, clock, rotate_tokens(data, SHARED_ROLES), every=40)
    rng = random.Random(seed)
    for steps in rounds:  # play, then restart (a clean stop writes a checkpoint too)
        await table.start()
        await table.play(rng, steps)
        await table.stop()
        assert await compare_with_full_replay(table, tmp) == []


async def test_a_start_replays_only_the_tail_after_a_crash(tmp_path: Path) -> None:
    data = tmp_path / "data"
    clock = FakeClock()
    table = Table(data, clock, rotate_tokens(data, SHARED_ROLES), every=40)
    await table.start()
    await table.play(random.Random(5), 300)
    log = table.app[TABLE_KEY].log
    last = log.published
    # A crash: no clean stop, so no checkpoint at the end (the store closes under it).
    table.app[CHECKPOINTS_KEY].every = 0
    await table.stop()
    engine = create_db_engine(database_url("", data))
    with engine.connect() as conn:
        newest = conn.execute(sa.text("SELECT max(seq) FROM state_checkpoint")).scalar()
        count = conn.execute(sa.text("SELECT count(*) FROM state_checkpoint")).scalar()
    engine.dispose()
    assert newest is not None and last - 40 <= newest < last and count == 3  # three kept
    assert await compare_with_full_replay(table, tmp_path) == []
    assert table.started_from == newest  # the tail only: not the whole log


@pytest.mark.parametrize(("tamper", "says"), [
    ("UPDATE state_checkpoint SET state = substr(state, 1, length(state) - 1)", "damaged"),
    ("UPDATE state_checkpoint SET format = 'v0 other'", "another Feltcast"),
    ("UPDATE table_event SET hash = 'x' WHERE seq = (SELECT max(seq) FROM state_checkpoint)",
     "does not match the log"),
])
async def test_a_bad_checkpoint_is_set_aside_and_the_log_replayed(
        tmp_path: Path, tamper: str, says: str, caplog: pytest.LogCaptureFixture) -> None:
    data = tmp_path / "data"
    clock = FakeClock()
    table = Table(data, clock, rotate_tokens(data, SHARED_ROLES), every=1000)
    await table.start()
    await table.play(random.Random(9), 80)
    await table.stop()  # the clean stop's checkpoint (and the next one's, below)
    assert await compare_with_full_replay(table, tmp_path) == []
    engine = create_db_engine(database_url("", data))
    with engine.begin() as conn:
        conn.execute(sa.text(tamper))
    engine.dispose()
    skipped = await compare_with_full_replay(table, tmp_path)
    assert skipped and says in skipped[0], skipped  # the newest, then perhaps an older one
    assert says in caplog.text


async def test_a_changed_configuration_sets_checkpoints_aside(tmp_path: Path) -> None:
    data = tmp_path / "data"
    clock = FakeClock()
    tokens = rotate_tokens(data, SHARED_ROLES)
    table = Table(data, clock, tokens)
    await table.start()
    await table.play(random.Random(3), 60)
    await table.stop()
    app = create_app(config(data, delay=60.0), clock=clock, tokens=tokens)
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    try:
        skipped = app[CHECKPOINTS_KEY].skipped
        assert skipped and "another Feltcast or for another table" in skipped[0]
    finally:
        await client.close()


async def test_a_page_resumes_across_a_restart_with_only_what_it_missed(
        tmp_path: Path) -> None:
    """The stream's page (delayed) resumes with only the missed patches; a live page gets a
    snapshot (live channels draw no resume history at a start)."""
    data = tmp_path / "data"
    clock = FakeClock()
    table = Table(data, clock, rotate_tokens(data, SHARED_ROLES))
    await table.start()
    await table.play(random.Random(11), 80)
    seen: dict[str, tuple[str, int]] = {}
    for name in ("delayed", "venue"):
        assert table.client is not None
        ws = await table.client.ws_connect(f"/ws/{name}")
        await ws.send_json({"type": "hello", "page": "overlay", "version": "x",
                            "resume": None})
        first = (await ws.receive(timeout=10)).json()
        assert first["type"] == "snapshot"
        seen[name] = (first["log_id"], first["revision"])
        await ws.close()
    await table.play(random.Random(12), 12)  # the pages miss these, then the restart
    await table.stop()
    await table.start()
    hub = table.app[HUBS_KEY]["delayed"]
    log_id, revision = seen["delayed"]
    assert revision < hub.revision <= revision + START_HISTORY  # (the clock moved)
    assert table.client is not None
    ws = await table.client.ws_connect("/ws/delayed")
    await ws.send_json({"type": "hello", "page": "overlay", "version": "x",
                        "resume": revision, "log_id": log_id})
    got = []
    while len(got) < hub.revision - revision:
        message = await ws.receive(timeout=10)
        assert message.type is WSMsgType.TEXT
        got.append(message.json())
    assert [m["type"] for m in got] == ["patch"] * len(got)  # no snapshot: only the missed
    assert [m["revision"] for m in got] == list(range(revision + 1, hub.revision + 1))
    await ws.close()
    log_id, revision = seen["venue"]
    ws = await table.client.ws_connect("/ws/venue")
    await ws.send_json({"type": "hello", "page": "overlay", "version": "x",
                        "resume": revision, "log_id": log_id})
    first = (await ws.receive(timeout=10)).json()
    assert (first["type"], first.get("reason")) == ("snapshot", "cannot_resume")
    await ws.close()
    await table.stop()
