"""The access audit: every connection to a channel with live hole cards, every snapshot read
of one and every command is recorded with the token's role, the peer address and the user
agent, reaches only the operator channel, and ``feltcast audit`` lists who could see hole cards
live in a time window."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from engine.log import TableEvent
from engine.table_events import AccessRecorded
from overlay.app import create_app
from overlay.cli import main
from overlay.keys import STORE_KEY, TOKENS_KEY
from overlay.store import open_store
from tests.overlay.test_service import config_for

AGENT = "Mozilla/5.0 (iPad; tablet at the table)"


async def test_who_could_see_hole_cards_is_recorded_and_listed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server = TestServer(create_app(config_for(tmp_path, secure={"enabled": True})),
                        host="127.0.0.1")
    await server.start_server()
    started = time.time()
    tokens = server.app[TOKENS_KEY].tokens
    base = f"http://127.0.0.1:{server.port}"
    try:
        connector = aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))
        async with aiohttp.ClientSession(connector=connector,
                                         headers={"User-Agent": AGENT}) as session:
            secure = await session.ws_connect(f"{base}/ws/secure?token={tokens.secure}")
            venue = await session.ws_connect(f"{base}/ws/venue")  # public: not audited
            for ws in (secure, venue):
                await ws.send_json({"type": "hello", "page": "overlay", "version": "x",
                                    "resume": None})
                assert (await ws.receive_json(timeout=10))["type"] == "snapshot"
            async with session.get(f"{base}/api/state?channel=secure", headers={
                    "Authorization": f"Bearer {tokens.secure}"}) as response:
                assert response.status == 200
            async with session.post(f"{base}/api/commands", json={
                    "id": str(uuid.uuid4()), "type": "next_hand"}, headers={
                    "Authorization": f"Bearer {tokens.operator}"}) as response:
                assert response.status == 200
            kinds: list[str] = []
            while "hand_started" not in kinds:  # the venue never sees the audit
                message = await venue.receive_json(timeout=10)
                kinds += [e["kind"] for e in message.get("events", [])]
            assert "access_recorded" not in kinds
            await secure.close()
            await venue.close()
        store = server.app[STORE_KEY]
        deadline = time.monotonic() + 30
        while not any(e.kind == "access_recorded" and e.payload.action == "close"
                      for e in store.read()):
            assert time.monotonic() < deadline, "the close was not recorded: " + " ".join(
                f"{e.kind}:{getattr(e.payload, 'action', '')}" for e in store.read()
                if e.kind != "devices_reported")
            await asyncio.sleep(0.05)
    finally:
        await server.close()
    ended = time.time()
    assert main(["audit", "--data-dir", str(tmp_path / "data"), "--from", str(started - 1),
                 "--to", str(ended + 1), "--json"]) == 0
    found = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    by_what = {(a["what"], a["channel"]): a for a in found}
    assert set(by_what) == {("connection", "secure"), ("snapshot", "secure"),
                            ("command", "operator")}
    for access in found:
        assert access["peer"] == "127.0.0.2" and access["user_agent"] == AGENT
    assert by_what[("connection", "secure")]["role"] == "secure"
    assert by_what[("command", "operator")]["role"] == "operator"
    connection = by_what[("connection", "secure")]
    assert started - 1 <= connection["start"] <= connection["end"] <= ended + 1
    # A window before it all lists nothing; the text form says so.
    assert main(["audit", "--data-dir", str(tmp_path / "data"), "--to",
                 str(started - 100)]) == 0
    assert capsys.readouterr().out.startswith("0 accesses with live hole cards")


async def test_a_connection_open_at_a_crash_is_closed_by_the_next_start(
        tmp_path: Path, aiohttp_client: Any) -> None:
    config = config_for(tmp_path)
    store = open_store("", config.data_dir)
    store.append([TableEvent.record(1, time.time(), AccessRecorded(
        "open", "c0ffee", "secure", "secure", "127.0.0.9", "OBS"), source="audit")])
    store.close()
    client = await aiohttp_client(create_app(config))
    entries = client.server.app[STORE_KEY].read()
    closes = [e.payload for e in entries if e.kind == "access_recorded"
              and e.payload.action == "close"]
    assert [(c.connection, c.peer) for c in closes] == [("c0ffee", "127.0.0.9")]
