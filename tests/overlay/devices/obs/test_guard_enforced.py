"""The delay guard, enforced, against the real OBS: OBS's browser sources hold a token of their
own role (``obs``); while OBS's Stream Delay covers D they get the live ``secure`` channel,
and when the Stream Delay is switched off (over obs-websocket, during a hand) their sockets
close within the recheck time and reconnect to the public view: the hole cards leave the
overlay. Switched on again, the full view comes back."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType
from aiohttp.test_utils import TestClient

from overlay.app import create_app
from overlay.config import parse_config
from overlay.keys import OBS_KEY, TOKENS_KEY
from tests.overlay.devices.obs.conftest import ObsStudio, Profile

DELAY = 60
"""The table's security delay D (OBS's Stream Delay must be at least this long)."""


def show_config(obs: ObsStudio, data: Path) -> Any:
    return parse_config({
        "table": {"name": "Guarded Final", "seats": 9, "button": 1},
        "players": [{"seat": 1, "name": "Ann", "stack": 5000},
                    {"seat": 4, "name": "Bo", "stack": 5000}],
        "delay": {"seconds": DELAY},
        "channels": {"secure": {"enabled": True}},
        "obs": {"enabled": True, "host": "127.0.0.1", "port": obs.port,
                "password": obs.password, "channel": "secure", "timeout": 3.0,
                "recheck_seconds": 0.5},
        "data_dir": str(data),
    })


async def until(what: str, condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def command(client: TestClient, kind: str, **fields: Any) -> None:
    token = client.server.app[TOKENS_KEY].tokens.operator
    response = await client.post("/api/commands", json={"id": str(uuid.uuid4()), "type": kind,
                                                        **fields},
                                 headers={"Authorization": f"Bearer {token}"})
    assert response.status == 200, await response.text()


def hole_cards(view: dict[str, Any]) -> list[str]:
    return [card for seat in view["seats"] for card in seat["cards"] if card]


async def obs_overlay(client: TestClient) -> tuple[Any, dict[str, Any]]:
    """OBS's browser source as the page connects: the obs token, then hello; its snapshot."""
    ws = await client.ws_connect(f"/ws/secure?token={client.server.app[TOKENS_KEY].tokens.obs}")
    await ws.send_json({"type": "hello", "page": "overlay", "version": "x", "resume": 3})
    message = json.loads((await ws.receive(timeout=10)).data)
    assert message["type"] == "snapshot"  # never a resume: the view may have changed
    return ws, message["view"]


async def test_hole_cards_leave_obs_when_its_stream_delay_is_switched_off(
        aiohttp_client: Any, obs: ObsStudio, profile: Profile, tmp_path: Path) -> None:
    profile.set_delay(True, DELAY + 30)
    client: TestClient = await aiohttp_client(create_app(show_config(obs, tmp_path / "data")))
    app = client.server.app
    await until("the delay guard to pass", lambda: OBS_KEY in app and app[OBS_KEY].secure_allowed)
    await command(client, "next_hand")
    await command(client, "deal_cards", seat=1, cards=["Ah", "Kd"])
    await command(client, "deal_cards", seat=4, cards=["7c", "7s"])
    ws, view = await obs_overlay(client)
    assert view["channel"]["name"] == "secure" and sorted(hole_cards(view)) == [
        "7c", "7s", "Ah", "Kd"]

    profile.set_delay(False, DELAY + 30)  # mid-hand, over obs-websocket
    started = time.monotonic()
    while (message := await ws.receive(timeout=15)).type is WSMsgType.TEXT:
        pass  # patches until the guard's verdict closes the socket
    assert message.type is WSMsgType.CLOSE and ws.close_code == 4001
    assert time.monotonic() - started < 15  # the recheck is 0.5 s; generous on a busy machine
    assert not app[OBS_KEY].secure_allowed
    ws, view = await obs_overlay(client)  # the page reconnects
    assert view["channel"]["name"] == "venue" and hole_cards(view) == []  # fail closed
    alerts: list[dict[str, Any]] = []
    deadline = time.monotonic() + 30
    while not any(a["level"] == "error" and "stream delay is off" in a["message"]
                  for a in alerts):  # the operator is told (devices are reported each second)
        assert time.monotonic() < deadline, alerts
        await asyncio.sleep(0.1)
        operator = await client.get("/api/state?channel=operator", headers={
            "Authorization": f"Bearer {app[TOKENS_KEY].tokens.operator}"})
        alerts = (await operator.json())["view"]["alerts"]
    http = await client.get(f"/api/state?channel=secure&token={app[TOKENS_KEY].tokens.obs}")
    assert http.status == 401  # a header token only on the API (query tokens are for pages)

    profile.set_delay(True, DELAY + 30)  # the producer fixes OBS
    while (message := await ws.receive(timeout=15)).type is WSMsgType.TEXT:
        pass
    assert ws.close_code == 4001
    ws, view = await obs_overlay(client)
    assert view["channel"]["name"] == "secure" and len(hole_cards(view)) == 4
    await ws.close()


async def test_the_obs_token_opens_nothing_else(aiohttp_client: Any, obs: ObsStudio,
                                                profile: Profile, tmp_path: Path) -> None:
    profile.set_delay(True, DELAY + 30)
    client: TestClient = await aiohttp_client(create_app(show_config(obs, tmp_path / "data")))
    token = client.server.app[TOKENS_KEY].tokens.obs
    headers = {"Authorization": f"Bearer {token}"}
    assert (await client.get("/api/state?channel=operator", headers=headers)).status == 403
    refused = await client.post("/api/commands", headers=headers,
                                json={"id": str(uuid.uuid4()), "type": "next_hand"})
    assert refused.status == 401
    assert (await client.get(f"/ws/operator?token={token}")).status == 403
