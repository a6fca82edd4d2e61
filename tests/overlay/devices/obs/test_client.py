"""The supervised OBS connection, against a real OBS Studio (and real sockets)."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import socket
import threading
import time
from typing import Any

import pytest
from aiohttp import web

from overlay.devices.obs.client import ObsClient, ObsEvent, ObsHealth, ObsState
from overlay.devices.obs.errors import ObsRequestError, ObsUnavailableError
from overlay.devices.obs.settings import ObsSettings
from tests.overlay.devices.obs.conftest import Observer, ObsStudio, free_port


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
        assert time.monotonic() - started < 5.0  # no wait for a connection (10 s above)


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
        assert time.monotonic() - started < 8.0  # not the 10 s wait: generous on a busy machine


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
    messages = [r.getMessage() for r in caplog.records if r.name == "overlay.devices.obs.client"]
    assert len([m for m in messages if "connection down" in m]) == 1  # not for the stop
    assert len([m for m in messages if "connection back" in m]) == 1
    # ...and the library's own per-loss warning is not a second line.
    assert not [r for r in caplog.records if r.name.startswith("obswebsocket")]


def unanswering_obs(close_on_request: bool, close_at_once: bool = False,
                    connections: list[float] | None = None) -> web.Application:
    """A real websocket server speaking just enough v5 to identify the client and answer
    GetVersion; any other request it ignores (an OBS stuck on its UI thread) or answers by
    closing the connection (an OBS dying mid-request)."""
    async def handler(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_json({"op": 0, "d": {"obsWebSocketVersion": "5.1.0", "rpcVersion": 1}})
        identify = await ws.receive_json()
        assert identify["op"] == 1
        await ws.send_json({"op": 2, "d": {"negotiatedRpcVersion": 1}})
        if connections is not None:
            connections.append(time.monotonic())
        async for message in ws:
            payload = json.loads(message.data)["d"]
            if payload["requestType"] == "GetVersion":
                await ws.send_json({"op": 7, "d": {
                    "requestType": "GetVersion", "requestId": payload["requestId"],
                    "requestStatus": {"result": True, "code": 100},
                    "responseData": {"obsVersion": "fake", "obsWebSocketVersion": "5.1.0",
                                     "rpcVersion": 1, "availableRequests": ["GetVersion"]}}})
                if close_at_once:  # identified, answered, gone: a flapping OBS
                    await ws.close()
            elif close_on_request:
                await asyncio.sleep(0.2)
                await ws.close()
        return ws

    app = web.Application()
    app.router.add_get("/", handler)
    return app


async def test_a_request_obs_never_answers_times_out_and_the_next_one_works(
        aiohttp_server: Any) -> None:
    server = await aiohttp_server(unanswering_obs(close_on_request=False), host="127.0.0.1")
    settings = ObsSettings(port=server.port, request_timeout=0.5)
    async with ObsClient(settings) as client:
        await client.wait_connected(5)
        assert client.health.obs_version == "fake"
        started = time.monotonic()
        with pytest.raises(ObsUnavailableError, match=r"did not answer GetStats within 0\.5 s"):
            await client.call("GetStats")
        assert time.monotonic() - started < 8.0  # bounded (obs-websocket-py alone: never)
        assert client.health.state is ObsState.CONNECTED  # one slow answer is not a loss
        assert (await client.call("GetVersion"))["obsVersion"] == "fake"


async def test_a_request_in_flight_when_obs_goes_away_fails_at_once(
        aiohttp_server: Any) -> None:
    server = await aiohttp_server(unanswering_obs(close_on_request=True), host="127.0.0.1")
    settings = ObsSettings(port=server.port, request_timeout=10.0, reconnect_initial=5.0,
                           reconnect_max=5.0)
    async with ObsClient(settings) as client:
        await client.wait_connected(5)
        started = time.monotonic()
        with pytest.raises(ObsUnavailableError, match="connection lost during GetStats"):
            await client.call("GetStats")
        assert time.monotonic() - started < 8.0  # not the 10 s request timeout
        await wait_until(lambda: client.health.state is ObsState.DOWN)
        assert "closed" in client.health.last_error


async def test_a_flapping_obs_is_retried_with_backoff_not_in_a_loop(
        aiohttp_server: Any) -> None:
    connections: list[float] = []
    server = await aiohttp_server(unanswering_obs(False, close_at_once=True,
                                                  connections=connections), host="127.0.0.1")
    settings = ObsSettings(port=server.port, reconnect_initial=0.1, reconnect_max=0.4)
    async with ObsClient(settings):
        await wait_until(lambda: len(connections) >= 7, timeout=60)
    # Waits of 0.1, 0.2, 0.4, 0.4, ... s between sessions, never less (a busy machine only
    # makes them longer): not a loop.
    gaps = [b - a for a, b in itertools.pairwise(connections[:7])]
    assert all(later >= 0.3 for later in gaps[2:]), gaps
    assert connections[6] - connections[0] >= 0.1 + 0.2 + 4 * 0.3
