"""What a hostile peer on the venue network meets: repeated wrong tokens are throttled (429,
logged once), garbage that is not HTTP is one INFO line per peer instead of an ERROR traceback
per request, and ``GET /api/log`` clamps its page and says so."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from overlay.app import create_app
from overlay.auth import TokenThrottle
from overlay.keys import THROTTLE_KEY, TOKENS_KEY
from tests.overlay.test_service import config_for


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def throttled(aiohttp_client: Any, tmp_path: Path) -> tuple[TestClient, Clock]:
    app = create_app(config_for(tmp_path, secure={"enabled": True}))
    clock = Clock()
    app[THROTTLE_KEY] = TokenThrottle(limit=5, window=60, block=30, clock=clock)
    return await aiohttp_client(app), clock


async def test_repeated_wrong_tokens_are_refused_for_a_while_and_logged_once(
        throttled: tuple[TestClient, Clock], caplog: pytest.LogCaptureFixture) -> None:
    client, clock = throttled
    right = client.server.app[TOKENS_KEY].tokens.operator
    secure = client.server.app[TOKENS_KEY].tokens.secure

    async def state(token: str) -> tuple[int, dict[str, str]]:
        response = await client.get("/api/log?limit=0",
                                    headers={"Authorization": f"Bearer {token}"})
        return response.status, dict(response.headers)

    assert (await state(secure))[0] == 401  # a real token of another role is no guess
    caplog.set_level(logging.WARNING, logger="overlay.auth")
    for attempt in range(4):
        assert (await state(f"guess-{attempt}"))[0] == 401
    guess = await client.get("/ws/secure?token=guess-ws")  # websockets count too
    assert guess.status == 403
    status, headers = await state(right)  # blocked now, whatever it presents
    assert status == 429 and headers["Retry-After"] == "30"
    assert (await state("guess-again"))[0] == 429
    warnings = [r for r in caplog.records if r.name == "overlay.auth"]
    assert len(warnings) == 1 and "5 wrong tokens from 127.0.0.1" in warnings[0].getMessage()
    clock.now += 31
    assert (await state(right))[0] == 200  # the block ends


async def test_garbage_is_one_info_line_per_peer(
        throttled: tuple[TestClient, Clock], caplog: pytest.LogCaptureFixture) -> None:
    client, _ = throttled
    caplog.set_level(logging.DEBUG, logger="aiohttp.server")
    for garbage in (b"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
                    b"\x00\x01\x02 nonsense\r\n\r\n", b"GET / HTTP/1.1\r\nBroken\r\n\r\n"):
        reader, writer = await asyncio.open_connection("127.0.0.1", client.server.port)
        writer.write(garbage)
        await writer.drain()
        assert (await reader.read(200)).startswith(b"HTTP/1.")  # a 400, the service goes on
        writer.close()
        await writer.wait_closed()
    records = [r for r in caplog.records if r.name == "aiohttp.server"]
    assert [r.levelname for r in records] == ["INFO"], [r.getMessage() for r in records]
    assert "from 127.0.0.1 that is not HTTP" in records[0].getMessage()
    assert records[0].exc_info is None
    assert (await client.get("/api/config")).status == 200


async def test_the_log_page_is_clamped_and_says_so(throttled: tuple[TestClient, Clock]) -> None:
    client, _ = throttled
    headers = {"Authorization": f"Bearer {client.server.app[TOKENS_KEY].tokens.operator}"}
    page = await (await client.get("/api/log?limit=50000", headers=headers)).json()
    assert page["limit"] == 10000 and "clamped to 10000" in page["note"]
    assert "note" not in await (await client.get("/api/log?limit=5", headers=headers)).json()
    for bad in ("-1", "x"):
        assert (await client.get(f"/api/log?limit={bad}", headers=headers)).status == 422


async def test_the_channel_list_says_what_a_token_opens_and_why_not(
        throttled: tuple[TestClient, Clock]) -> None:
    client, _ = throttled
    tokens = client.server.app[TOKENS_KEY].tokens

    async def channels(token: str | None) -> dict[str, dict[str, Any]]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = await client.get("/api/channels", headers=headers)
        assert response.status == 200
        return {c["name"]: c for c in (await response.json())["channels"]}

    anonymous = await channels(None)
    assert anonymous["delayed"]["opens"] and anonymous["delayed"]["delay"] == 30
    assert anonymous["venue"]["opens"] and anonymous["venue"]["refused"] is None
    assert not anonymous["secure"]["opens"]
    assert anonymous["secure"]["refused"] == {"code": "unauthorized",
                                              "message": "the secure channel needs a token"}
    assert anonymous["reveal"]["refused"]["code"] == "channel_disabled"
    production = await channels(tokens.secure)
    assert production["secure"]["opens"] and not production["operator"]["opens"]
    assert production["operator"]["refused"]["message"] == (
        "that token does not open the operator channel")
    assert (await channels(tokens.operator))["operator"]["opens"]
    # A wrong token is one guess per request, not one per channel it is tried on: four
    # requests leave the fifth guess (the limit) to the websocket below.
    for _ in range(4):
        wrong = await channels("guess")
        assert wrong["secure"]["refused"]["code"] == "forbidden"
    assert (await client.get("/ws/secure?token=guess-ws")).status == 403
    blocked = await client.get("/api/channels", headers={"Authorization": "Bearer guess"})
    assert blocked.status == 429
