"""Named device tokens: created from the CLI or the console's API and shown once, stored only
as a hash, listed, and revoked while the service runs, which closes that device's sockets at
once; the device's accesses carry its name in the audit."""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import sqlalchemy as sa
from aiohttp import WSMsgType
from aiohttp.test_utils import TestServer

from overlay.app import create_app
from overlay.cli import main
from overlay.keys import STORE_KEY, TOKENS_KEY
from tests.overlay.test_service import config_for


async def start(tmp_path: Path) -> tuple[TestServer, str]:
    """The service with a secure channel, on a real test server; its base URL."""
    server = TestServer(create_app(config_for(tmp_path, secure={"enabled": True})),
                        host="127.0.0.1")
    await server.start_server()
    return server, f"http://127.0.0.1:{server.port}"


async def test_a_device_token_opens_its_role_and_is_revoked_at_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server, base = await start(tmp_path)
    operator = {"Authorization": f"Bearer {server.app[TOKENS_KEY].tokens.operator}"}
    try:
        async with aiohttp.ClientSession() as session:
            async with session.post(f"{base}/api/devices", headers=operator,
                                    json={"name": "tablet 1", "role": "operator"}) as r:
                assert r.status == 200
                tablet = (await r.json())["token"]
            # From the CLI, beside the running service, as the producer would.
            assert main(["tokens", "create", "obs-truck", "--role", "secure", "--data-dir",
                         str(tmp_path / "data")]) == 0
            truck = capsys.readouterr().out.split(": ", 1)[1].split()[0]
            engine = server.app[STORE_KEY].engine
            with engine.connect() as conn:
                stored = conn.execute(sa.text("SELECT token_hash FROM device_token")).scalars()
                assert tablet not in list(stored)  # only the hash is kept
            async with session.post(f"{base}/api/commands", json={
                    "id": str(uuid.uuid4()), "type": "next_hand"},
                    headers={"Authorization": f"Bearer {tablet}"}) as r:
                assert r.status == 200  # the tablet is an operator
            deadline = time.monotonic() + 30
            while True:  # the CLI's device is read within a second
                try:
                    ws = await session.ws_connect(f"{base}/ws/secure?token={truck}")
                    break
                except aiohttp.WSServerHandshakeError as refused:
                    assert refused.status == 403 and time.monotonic() < deadline
                    await asyncio.sleep(0.2)
            await ws.send_json({"type": "hello", "page": "overlay", "version": "x",
                                "resume": None})
            assert (await ws.receive(timeout=10)).type is WSMsgType.TEXT
            async with session.post(f"{base}/api/commands", json={
                    "id": str(uuid.uuid4()), "type": "start_clock"},
                    headers={"Authorization": f"Bearer {truck}"}) as r:
                assert r.status == 401  # secure is not operator
            assert main(["tokens", "revoke", "obs-truck", "--data-dir",
                         str(tmp_path / "data")]) == 0
            started = time.monotonic()
            while (await ws.receive(timeout=15)).type is WSMsgType.TEXT:
                pass
            assert ws.close_code == 4003 and time.monotonic() - started < 15
            with pytest.raises(aiohttp.WSServerHandshakeError):
                await session.ws_connect(f"{base}/ws/secure?token={truck}")
            async with session.delete(f"{base}/api/devices/tablet 1", headers=operator) as r:
                assert r.status == 200
            for _ in range(30):  # a page left open retries: refused, never throttled
                async with session.get(f"{base}/api/log?limit=0",
                                       headers={"Authorization": f"Bearer {tablet}"}) as r:
                    assert r.status == 403  # refused at once after the console revoked it
                    assert (await r.json())["error"]["code"] == "token_revoked"
            async with session.get(f"{base}/api/devices", headers=operator) as r:
                assert r.status == 200  # the console on the same address is not locked out
            async with session.get(f"{base}/api/devices", headers=operator) as r:
                listed: Any = (await r.json())["devices"]
            assert [(d["name"], d["role"], d["revoked"] is not None) for d in listed] == [
                ("tablet 1", "operator", True), ("obs-truck", "secure", True)]
            async with session.post(f"{base}/api/devices", headers=operator,
                                    json={"name": "tablet 1", "role": "operator"}) as r:
                assert r.status == 422  # a name is never reused
    finally:
        await server.close()
    assert main(["audit", "--data-dir", str(tmp_path / "data"), "--json"]) == 0
    audit = capsys.readouterr().out
    assert '"role": "secure (obs-truck)"' in audit and '"role": "operator (tablet 1)"' in audit


async def _hello(ws: aiohttp.ClientWebSocketResponse) -> None:
    await ws.send_json({"type": "hello", "page": "overlay", "version": "x", "resume": None})
    assert (await ws.receive(timeout=10)).type is WSMsgType.TEXT


async def test_a_commentary_booth_reads_hole_cards_live_and_commands_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server, base = await start(tmp_path)
    operator = {"Authorization": f"Bearer {server.app[TOKENS_KEY].tokens.operator}"}
    try:
        async with aiohttp.ClientSession() as session:
            async with session.get(f"{base}/api/devices", headers=operator) as r:
                assert "commentary" in (await r.json())["roles"]
            async with session.post(f"{base}/api/devices", headers=operator,
                                    json={"name": "booth", "role": "commentary"}) as r:
                assert r.status == 200
                booth = (await r.json())["token"]
            ws = await session.ws_connect(f"{base}/ws/secure?token={booth}")
            await _hello(ws)
            await ws.close()
            for method, path in (("POST", "/api/commands"), ("GET", "/api/devices")):
                async with session.request(method, base + path, json={
                        "id": str(uuid.uuid4()), "type": "start_clock"},
                        headers={"Authorization": f"Bearer {booth}"}) as r:
                    assert r.status in (401, 403), path
            with pytest.raises(aiohttp.WSServerHandshakeError):
                await session.ws_connect(f"{base}/ws/operator?token={booth}")
    finally:
        await server.close()
    assert main(["audit", "--data-dir", str(tmp_path / "data"), "--json"]) == 0
    assert '"role": "commentary (booth)"' in capsys.readouterr().out


async def test_rotating_a_shared_token_closes_its_sockets_and_refuses_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server, base = await start(tmp_path)
    old = server.app[TOKENS_KEY].tokens
    try:
        async with aiohttp.ClientSession() as session:
            secure = await session.ws_connect(f"{base}/ws/secure?token={old.secure}")
            kept = await session.ws_connect(f"{base}/ws/secure?token={old.operator}")
            await _hello(secure)
            await _hello(kept)
            # From another terminal while the service runs, as after a leaked token.
            assert main(["tokens", "rotate", "secure", "--data-dir",
                         str(tmp_path / "data")]) == 0
            new = capsys.readouterr().out.split("secure", 1)[1].split()[0]
            while (await secure.receive(timeout=15)).type is WSMsgType.TEXT:
                pass
            assert secure.close_code == 4003
            with pytest.raises(aiohttp.WSServerHandshakeError):
                await session.ws_connect(f"{base}/ws/secure?token={old.secure}")
            fresh = await session.ws_connect(f"{base}/ws/secure?token={new}")
            await _hello(fresh)
            await fresh.close()
            assert not kept.closed  # the operator's token was not rotated
            await kept.close()
    finally:
        await server.close()
