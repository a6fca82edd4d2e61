"""The supervised OBS connection, against a real OBS Studio (and real sockets)."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import threading
import time
from typing import Any

import pytest
from aiohttp import web

from engine.errors import ObsRequestError, ObsUnavailableError
from overlay.obs.client import ObsClient, ObsEvent, ObsHealth, ObsState
from overlay.obs.settings import ObsSettings
from tests.obs.conftest import Observer, ObsStudio, free_port


async def wait_until(predicate: object, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


def obs_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("feltcast-obs")]


async def test_connects_and_reports_health(client: ObsClient, observer: Observer) -> None:
    version = observer.call("GetVersion")
    health = client.health
    assert health.state is ObsState.CONNECTED
    assert (health.obs_version, health.websocket_version) == (
        version["obsVersion"], version["obsWebSocketVersion"])
    assert health.as_dict()["state"] == "connected"
    assert client.supports("GetSourceScreenshot")
    assert not client.supports("NoSuchRequest")
    scenes = await client.call("GetSceneList")
    assert scenes["currentProgramSceneName"] == observer.call(
        "GetCurrentProgramScene")["currentProgramSceneName"]


async def test_a_refused_request_keeps_obs_status_and_comment(client: ObsClient) -> None:
    with pytest.raises(ObsRequestError) as caught:
        await client.call("GetInputSettings", {"inputName": "No Such Source"})
    assert caught.value.status == 600  # RequestStatus::ResourceNotFound
    assert "No Such Source" in caught.value.comment
    assert caught.value.request_type == "GetInputSettings"


async def test_events_reach_listeners_on_the_loop(client: ObsClient, observer: Observer) -> None:
    seen: list[ObsEvent] = []
    loop_thread = threading.current_thread()
    threads: set[threading.Thread] = set()

    def listener(event: ObsEvent) -> None:
        threads.add(threading.current_thread())
        seen.append(event)

    unsubscribe = client.add_event_listener(listener)
    observer.call("CreateScene", sceneName="Client Events Scene")
    await wait_until(lambda: any(e.type == "SceneCreated" for e in seen))
    unsubscribe()
    created = next(e for e in seen if e.type == "SceneCreated")
    assert created.data["sceneName"] == "Client Events Scene"
    assert threads == {loop_thread}


async def test_wrong_password_is_reported_in_words(obs: ObsStudio) -> None:
    async with ObsClient(obs.settings(password="not-the-password")) as client:
        with pytest.raises(ObsUnavailableError, match="refused the password"):
            await client.wait_connected(10, give_up_when_down=True)
        assert client.health.state is ObsState.DOWN


async def test_nothing_listening_fails_fast_and_calls_fail_at_once(obs: ObsStudio) -> None:
    async with ObsClient(obs.settings(port=free_port())) as client:
        with pytest.raises(ObsUnavailableError, match="nothing listens"):
            await client.wait_connected(10, give_up_when_down=True)
        started = time.monotonic()
        with pytest.raises(ObsUnavailableError, match="not connected"):
            await client.call("GetVersion")
        assert time.monotonic() - started < 0.5


async def test_a_silent_server_cannot_hang_the_connect(obs: ObsStudio) -> None:
    # A real TCP listener that never answers the websocket upgrade: obs-websocket-py's own
    # connect() would wait forever.
    with socket.create_server(("127.0.0.1", 0)) as silent:
        port = silent.getsockname()[1]
        settings = obs.settings(port=port, connect_timeout=0.5)
        started = time.monotonic()
        async with ObsClient(settings) as client:
            with pytest.raises(ObsUnavailableError, match=r"handshake within 0\.5 s"):
                await client.wait_connected(10, give_up_when_down=True)
        assert time.monotonic() - started < 3.0


async def test_stop_leaves_no_thread_behind(obs: ObsStudio) -> None:
    before = obs_threads()
    async with ObsClient(obs.settings()) as client:
        await client.wait_connected(10)
        assert len(obs_threads()) > len(before)
    assert obs_threads() == before


async def test_reconnects_after_obs_is_killed_and_restarted(
        obs: ObsStudio, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    history: list[ObsHealth] = []
    async with ObsClient(obs.settings()) as client:
        client.add_health_listener(history.append)
        await client.wait_connected(10)

        obs.kill_obs()
        await wait_until(lambda: client.health.state is ObsState.DOWN)
        with pytest.raises(ObsUnavailableError, match="not connected"):
            await client.call("GetVersion")
        await wait_until(lambda: client.health.attempts >= 3)  # it keeps trying, quietly
        down = client.health

        await asyncio.to_thread(obs.restart_obs)
        await client.wait_connected(15)
        assert (await client.call("GetVersion"))["rpcVersion"] == 1

    *lifetime, stopped = history
    assert lifetime[-1].state is ObsState.CONNECTED
    assert (stopped.state, stopped.last_error) == (ObsState.DOWN,
                                                   "Feltcast stopped its OBS connection")
    assert ObsState.DOWN in [h.state for h in lifetime]
    # `since` marks when it went down, not the latest failed attempt.
    assert all(h.since == down.since for h in lifetime if h.state is ObsState.DOWN)
    messages = [r.getMessage() for r in caplog.records if r.name == "overlay.obs.client"]
    assert len([m for m in messages if "connection down" in m]) == 1  # not for the stop
    assert len([m for m in messages if "connection back" in m]) == 1
    # ...and the library's own per-loss warning is not a second line.
    assert not [r for r in caplog.records if r.name.startswith("obswebsocket")]


async def test_a_request_obs_never_answers_times_out_and_the_next_one_works(
        aiohttp_server: Any) -> None:
    # A real websocket server speaking just enough v5 to identify the client and answer
    # GetVersion; it never answers anything else (an OBS stuck on its UI thread).
    async def handler(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_json({"op": 0, "d": {"obsWebSocketVersion": "5.1.0", "rpcVersion": 1}})
        identify = await ws.receive_json()
        assert identify["op"] == 1
        await ws.send_json({"op": 2, "d": {"negotiatedRpcVersion": 1}})
        async for message in ws:
            payload = json.loads(message.data)["d"]
            if payload["requestType"] == "GetVersion":
                await ws.send_json({"op": 7, "d": {
                    "requestType": "GetVersion", "requestId": payload["requestId"],
                    "requestStatus": {"result": True, "code": 100},
                    "responseData": {"obsVersion": "fake", "obsWebSocketVersion": "5.1.0",
                                     "rpcVersion": 1, "availableRequests": ["GetVersion"]}}})
        return ws

    app = web.Application()
    app.router.add_get("/", handler)
    server = await aiohttp_server(app, host="127.0.0.1")
    settings = ObsSettings(port=server.port, request_timeout=0.5)
    async with ObsClient(settings) as client:
        await client.wait_connected(5)
        assert client.health.obs_version == "fake"
        started = time.monotonic()
        with pytest.raises(ObsUnavailableError, match=r"did not answer GetStats within 0\.5 s"):
            await client.call("GetStats")
        assert time.monotonic() - started < 2.0
        assert client.health.state is ObsState.CONNECTED  # one slow answer is not a loss
        assert (await client.call("GetVersion"))["obsVersion"] == "fake"
