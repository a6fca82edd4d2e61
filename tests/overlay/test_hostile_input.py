"""Hostile input from the venue network gets a 4xx, never a 5xx, and leaves nothing behind:
every route of the real app (HTTP on 127.0.0.1) and the websocket's messages, fuzzed with
hypothesis, plus the cases a black-box probe found (a command whose ``type`` is a list, a body
nested 5,000 deep, a player name with a lone surrogate)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from aiohttp import WSMsgType
from aiohttp.test_utils import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from overlay.app import create_app
from overlay.keys import STORE_KEY, TOKENS_KEY
from overlay.web_json import MAX_JSON_BYTES, MAX_JSON_DEPTH
from tests.overlay.test_service import config_for

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12)
COMMAND_LIKE = st.fixed_dictionaries(
    {"id": st.text(min_size=8, max_size=40) | JSON,
     "type": st.sampled_from(["fold", "set_seat", "raise_to", "deck_activate", "set_player",
                              "adjust_clock"]) | JSON},
    optional={"seat": JSON | st.integers(-3, 12), "amount": JSON, "name": st.text() | JSON,
              "cards": st.lists(st.text(max_size=3)) | JSON, "seconds": JSON,
              "stack": JSON, "level": JSON, "reason": st.text()})
FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])
ROUTES_FUZZ = settings(FUZZ, max_examples=20)
"""Each example sends a request to every route (about sixty): 1,200 hostile requests."""


@pytest.fixture
async def client(aiohttp_client: Any, tmp_path: Path) -> TestClient:
    return await aiohttp_client(create_app(config_for(tmp_path, secure={"enabled": True})))


def operator(client: TestClient) -> dict[str, str]:
    return {"Authorization": f"Bearer {client.server.app[TOKENS_KEY].tokens.operator}"}


def routes(client: TestClient) -> list[tuple[str, str]]:
    """Every route of the app as (method, path with its variables filled in by a word)."""
    found = []
    for route in client.server.app.router.routes():
        info = route.resource.get_info() if route.resource is not None else {}
        path = info.get("path") or info.get("formatter") or info.get("prefix", "")
        found.append((route.method, re.sub(r"\{[^}]+\}", "x", path)))
    return sorted(set(found))


def test_the_fuzzed_routes_are_every_route(client: TestClient) -> None:
    paths = {path for _, path in routes(client)}
    assert {"/api/commands", "/api/state", "/api/log", "/api/hands", "/api/players",
            "/api/players/import", "/api/players/x/photo", "/ws/x", "/media/players/x",
            "/overlay", "/static"} <= paths


@ROUTES_FUZZ
@given(data=st.data())
async def test_no_route_answers_a_5xx(client: TestClient, data: st.DataObject) -> None:
    for method, path in routes(client):
        if path == "/ws/x":
            path = "/ws/" + data.draw(st.text(max_size=12).filter(lambda s: "/" not in s))
        query = data.draw(st.dictionaries(st.sampled_from(
            ["channel", "limit", "after", "token", "seat", "since", "page", "x"]),
            st.text(max_size=20), max_size=3))
        headers = operator(client) if data.draw(st.booleans()) else {}
        body = data.draw(st.binary(max_size=300) | JSON.map(lambda v: json.dumps(v).encode()))
        kwargs: dict[str, Any] = {"params": query, "headers": headers}
        if method == "POST":
            kwargs["data"] = body
        response = await client.request(method, path.replace(" ", "%20"), **kwargs)
        assert response.status < 500, (method, path, query, await response.text())
        response.close()


@FUZZ
@given(command=COMMAND_LIKE)
async def test_a_malformed_command_is_a_4xx_and_changes_nothing(
        client: TestClient, command: dict[str, Any]) -> None:
    store = client.server.app[STORE_KEY]
    before = store.last_seq
    response = await client.post("/api/commands", json=command, headers=operator(client))
    assert response.status < 500, await response.text()
    if response.status >= 400:
        assert store.last_seq == before  # nothing logged
        assert "error" in await response.json()
    names = [e.payload.to_dict().get("name") for e in store.read()]
    assert not any(isinstance(n, str) and re.search(r"[\x00-\x1f\ud800-\udfff]", n)
                   for n in names)


async def test_what_the_probe_found_is_refused_with_a_message(client: TestClient) -> None:
    store = client.server.app[STORE_KEY]
    before = store.last_seq

    async def post(data: bytes | str) -> tuple[int, str]:
        response = await client.post("/api/commands", data=data, headers={
            **operator(client), "Content-Type": "application/json"})
        return response.status, (await response.json())["error"]["message"]

    status, message = await post(json.dumps({"id": "0123456789", "type": ["fold"]}))
    assert status == 422 and "unknown command type" in message  # was a 500 (unhashable)
    status, message = await post("[" * 5000 + "]" * 5000)
    assert status == 422 and "nested too deeply" in message  # was a 500 (RecursionError)
    deep = {"id": "0123456789", "type": "fold", "seat": 1}
    for _ in range(MAX_JSON_DEPTH):
        deep = {"x": deep}
    status, message = await post(json.dumps(deep))
    assert status == 422 and "nested too deeply" in message
    status, message = await post('{"id": "0123456789", "type": "set_seat", "seat": 2, '
                                 '"name": "\\ud800bad", "stack": 100}')
    assert status == 422 and "broken character" in message  # was stored
    status, message = await post(json.dumps({"id": "0123456789", "type": "set_seat",
                                             "seat": 2, "name": "Bell\x07", "stack": 100}))
    assert status == 422 and "control character" in message
    status, message = await post(b"\xff\xfe not utf-8")
    assert status == 422 and "not UTF-8" in message
    status, message = await post(b'{"id": "' + b"x" * MAX_JSON_BYTES + b'"}')
    assert status == 413 and "larger than" in message
    assert store.last_seq == before


async def test_a_hostile_websocket_message_is_answered_and_the_socket_stays(
        client: TestClient) -> None:
    ws = await client.ws_connect("/ws/venue")
    for text in ("[" * 20000 + "]" * 20000, '{"type": "hello", "page": "\\udfff"}',
                 '{"type": ["hello"]}', "not json", json.dumps({"type": "hello",
                                                              "resume": {"x": [[[[1]]]]}})):
        await ws.send_str(text)
    errors = 0
    while errors < 4:
        message = await ws.receive(timeout=10)
        assert message.type is WSMsgType.TEXT, message
        data = json.loads(message.data)
        if data["type"] == "error":
            errors += 1
            assert data["error"]["code"] == "invalid_input"
    await ws.send_json({"type": "hello", "page": "overlay", "version": "x", "resume": None})
    while (data := json.loads((await ws.receive(timeout=10)).data))["type"] != "snapshot":
        pass
    assert data["view"]["table"]["name"] == "Test Final"  # the socket still works
    await ws.close()

