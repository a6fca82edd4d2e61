"""The whole service with a simulated RFID table on a real pseudo-terminal.

:func:`service_rig` starts a simulated reader on a pty (behind a symlink, so that unplug and
replug keep the path), registers and activates its deck in the service's database, and runs
the real app (``overlay.app.create_app``) on 127.0.0.1 with that reader configured as a serial
reader. Tests then place cards on antennas and read the channels over HTTP and websockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import ClientSession
from aiohttp.test_utils import TestServer

from capture.rfid.decks import DeckRegistry
from capture.simulator import SimulatedReader, UidLineReader, simulated_deck, simulated_uid
from engine.cards import Card
from overlay.app import create_app
from overlay.auth import SHARED_ROLES, rotate_tokens
from overlay.config import parse_config
from overlay.devices.capture_bridge import CaptureBridge
from overlay.keys import CAPTURE_KEY, TABLE_KEY, TOKENS_KEY
from overlay.store import create_db_engine, database_url

READER = "table"
TABLE = "Test Final"
PLAYERS = [{"seat": 1, "name": "Ashton", "stack": 5000},
           {"seat": 4, "name": "Tong", "stack": 5000},
           {"seat": 7, "name": "Rast", "stack": 5000}]


def uid(card: str) -> str:
    return simulated_uid(Card(card))


def register_deck(data_dir: Path, table: str = TABLE) -> None:
    """The simulator's deck, registered and active for ``table`` (as `feltcast deck` does)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    engine = create_db_engine(database_url("", data_dir))
    try:
        registry = DeckRegistry(engine)
        registry.save("Simulator 1", {card: u for u, card in simulated_deck(1).items()})
        registry.activate("Simulator 1", table)
    finally:
        engine.dispose()


@dataclass
class ServiceRig:
    sim: SimulatedReader
    server: TestServer
    session: ClientSession

    @property
    def app(self) -> Any:
        return self.server.app

    @property
    def bridge(self) -> CaptureBridge:
        return self.app[CAPTURE_KEY]

    def headers(self, role: str = "operator") -> dict[str, str]:
        token = getattr(self.app[TOKENS_KEY].tokens, role)
        return {"Authorization": f"Bearer {token}"}

    def url(self, path: str) -> str:
        return str(self.server.make_url(path))

    async def command(self, kind: str, **fields: Any) -> tuple[int, Any]:
        body = {"id": str(uuid.uuid4()), "type": kind, **fields}
        async with self.session.post(self.url("/api/commands"), json=body,
                                     headers=self.headers()) as response:
            return response.status, await response.json()

    async def ok(self, kind: str, **fields: Any) -> Any:
        status, reply = await self.command(kind, **fields)
        assert status == 200, reply
        return reply

    async def state(self, channel: str) -> dict[str, Any]:
        headers = self.headers("secure" if channel == "secure" else "operator")
        async with self.session.get(self.url(f"/api/state?channel={channel}"),
                                    headers=headers) as response:
            assert response.status == 200, await response.text()
            view: dict[str, Any] = (await response.json())["view"]
            return view

    @property
    def hand(self) -> Any:
        return self.app[TABLE_KEY].hand

    def place(self, antenna: int, *cards: str) -> None:
        self.sim.place(antenna, *(uid(card) for card in cards))

    def remove(self, antenna: int, *cards: str) -> None:
        self.sim.remove(antenna, *(uid(card) for card in cards))

    async def until(self, predicate: Callable[[], object], timeout: float = 30.0,
                    what: str | Callable[[], str] = "condition") -> None:
        """Wait for ``predicate``; ``what`` names it (called at the timeout, to say what
        was seen)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            if loop.time() > deadline:
                raise AssertionError(f"timed out waiting for {what() if callable(what) else what}")
            await asyncio.sleep(0.02)

    async def until_view(self, channel: str, predicate: Callable[[dict[str, Any]], object],
                         timeout: float = 30.0, what: str = "view") -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            view = await self.state(channel)
            if predicate(view):
                return view
            if loop.time() > deadline:
                raise AssertionError(f"timed out waiting for {what}; last view: {view}")
            await asyncio.sleep(0.05)

    def alerts(self, view: dict[str, Any], kind: str) -> list[dict[str, Any]]:
        return [alert for alert in view["alerts"] if alert.get("kind") == kind]


@contextlib.asynccontextmanager
async def service_rig(tmp_path: Path, *, players: list[dict[str, Any]] | None = None,
                      channels: dict[str, Any] | None = None,
                      deck: bool = True, protocol: str = "native",
                      scan_interval: float = 0.05,
                      tournament: dict[str, Any] | None = None) -> AsyncIterator[ServiceRig]:
    """``protocol`` "uid-lines": the table's reader is a home-built board printing one tag
    read per line (:class:`capture.simulator.UidLineReader`), configured as such;
    ``tournament`` a ``[tournament]`` section (levels, breaks)."""
    data = tmp_path / "data"
    if deck:
        register_deck(data)
    sim = (UidLineReader(READER, scan_interval=scan_interval) if protocol == "uid-lines" else
           SimulatedReader(READER, scan_interval=scan_interval, heartbeat_interval=0.25))
    link = tmp_path / "reader.tty"
    await sim.open_pty(link)
    config = parse_config({
        "table": {"name": TABLE, "seats": 9, "button": 1},
        "players": players if players is not None else PLAYERS,
        "delay": {"seconds": 30},
        "channels": channels if channels is not None else {"secure": {"enabled": True}},
        "capture": {"readers": [{"name": READER, "transport": "serial", "address": str(link),
                                 "protocol": protocol,
                                 "antennas": {str(s): f"seat{s}" for s in range(1, 10)}
                                 | {"11": "board", "12": "muck", "13": "burn"}}]},
        "data_dir": str(data),
    } | ({"tournament": tournament} if tournament is not None else {}))
    tokens = rotate_tokens(data, SHARED_ROLES)  # each start its own: a restart works too
    server = TestServer(create_app(config, tokens=tokens), host="127.0.0.1")
    await server.start_server()
    try:
        async with ClientSession() as session:
            rig = ServiceRig(sim, server, session)
            await rig.until(lambda: any(s["status"] == "ok"
                                        for s in rig.bridge.operator_capture()),
                            what="the reader online")
            yield rig
    finally:
        await server.close()
        await sim.close()
