"""Exactly once across restarts and crashes (docs/commands.md, "Retries"): a command sent again
with its id gets the first answer and is never applied twice, whether the service restarted in
between, was killed with SIGKILL, or not; a command whose entries never committed is applied
once when it comes again.

The property test drives the real service (app, HTTP, SQLite file) with random sequences of
new commands, retries of earlier ids and restarts on the same data directory; each command is
an ``adjust_clock`` by a distinct number of seconds, so the log says how often each one was
applied."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from overlay.app import create_app
from overlay.auth import SHARED_ROLES, rotate_tokens
from overlay.config import parse_config
from overlay.store import open_store
from tests.pages.service import config_text, free_port

ROOT = Path(__file__).resolve().parents[2]


def config(data: Path) -> Any:
    return parse_config({"table": {"name": "Exactly Once", "seats": 9},
                         "players": [{"seat": 1, "name": "A", "stack": 5000},
                                     {"seat": 2, "name": "B", "stack": 5000}],
                         "data_dir": str(data)})


class Service:
    """The app on a real test server; ``restart`` stops it and starts a new one on the same
    data directory (a clean stop: the crash case is the SIGKILL test below)."""

    def __init__(self, data: Path) -> None:
        self.data = data
        self.client: TestClient | None = None
        self.tokens = rotate_tokens(data, SHARED_ROLES)  # printed once, as on a first start

    async def start(self) -> None:
        self.client = TestClient(TestServer(create_app(config(self.data), tokens=self.tokens)))
        await self.client.start_server()

    async def stop(self) -> None:
        assert self.client is not None
        await self.client.close()

    async def command(self, command_id: str, seconds: int) -> tuple[int, dict[str, Any]]:
        assert self.client is not None
        token = self.tokens.operator
        body = {"id": command_id, "type": "adjust_clock", "seconds": seconds}
        response = await self.client.post("/api/commands", json=body,
                                          headers={"Authorization": f"Bearer {token}"})
        answer = await response.json()
        answer.pop("revision", None)  # the operator channel's revision now, not stored
        return response.status, answer


def applied(data: Path) -> list[float]:
    """The seconds of every clock adjustment in the log, in order."""
    store = open_store("", data)
    try:
        return [e.payload.to_dict()["seconds"] for e in store.iter_all()
                if e.kind == "clock_adjusted"]
    finally:
        store.close()


STEPS = st.lists(st.one_of(st.just(("new",)), st.tuples(st.just("retry"), st.integers(0, 50)),
                           st.just(("restart",))), min_size=1, max_size=25)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(steps=STEPS)
async def test_every_command_is_applied_once_whatever_the_retries_and_restarts(
        tmp_path_factory: Any, steps: list[tuple[Any, ...]]) -> None:
    data = tmp_path_factory.mktemp("once") / "data"
    service = Service(data)
    await service.start()
    sent: list[tuple[str, int, dict[str, Any]]] = []
    try:
        status, answer = await service.command(str(uuid.uuid4()), 0)  # refused: not applied
        assert status == 422
        token = service.tokens.operator
        start = await service.client.post(  # type: ignore[union-attr]
            "/api/commands", json={"id": "start-clock-0001", "type": "start_clock"},
            headers={"Authorization": f"Bearer {token}"})
        assert start.status == 200
        for step in steps:
            if step[0] == "new":
                seconds = len(sent) + 1
                command_id = str(uuid.uuid4())
                status, answer = await service.command(command_id, seconds)
                assert status == 200, answer
                sent.append((command_id, seconds, answer))
            elif step[0] == "retry" and sent:
                command_id, seconds, first = sent[step[1] % len(sent)]
                status, answer = await service.command(command_id, seconds)
                assert (status, answer) == (200, first)  # the first answer, as it was
            elif step[0] == "restart":
                await service.stop()
                await service.start()
    finally:
        await service.stop()
    assert applied(data) == [float(seconds) for _, seconds, _ in sent]  # each once, in order


def test_a_retry_after_sigkill_gets_the_first_answer(tmp_path: Path) -> None:
    import urllib.error
    import urllib.request

    (tmp_path / "feltcast.toml").write_text(config_text(30.0))
    port = free_port()
    token = rotate_tokens(tmp_path / "data", ("operator",)).operator

    def start() -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            [sys.executable, "-m", "overlay", "serve", "--config", "feltcast.toml", "--data",
             "data", "--port", str(port)], cwd=tmp_path, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL)
        assert process.stdout is not None
        for line in process.stdout:  # the address list ends with the tokens
            if line.startswith((b"  obs  ", b"Tokens: ")):
                break
        return process

    def send(command_id: str, kind: str, **fields: Any) -> tuple[int, dict[str, Any]]:
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/commands", headers={
                "Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            data=json.dumps({"id": command_id, "type": kind, **fields}).encode())
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                answer = json.loads(response.read())
                status = response.status
        except urllib.error.HTTPError as error:
            status, answer = error.code, json.loads(error.read())
        answer.pop("revision", None)
        return status, answer

    process = start()
    try:
        assert send("start-0000001", "start_clock")[0] == 200
        first = send("adjust-0000001", "adjust_clock", seconds=42)
        hand = send("hand-00000001", "next_hand")
        assert first[0] == 200 and hand[0] == 200
        os.kill(process.pid, signal.SIGKILL)  # no goodbye: the answers were committed
        process.wait(timeout=30)
        process.stdout.close()  # type: ignore[union-attr]
        process = start()
        assert send("adjust-0000001", "adjust_clock", seconds=42) == first
        assert send("hand-00000001", "next_hand") == hand  # not "the hand is still running"
        assert send("adjust-0000002", "adjust_clock", seconds=7)[0] == 200  # new ids still go
    finally:
        process.kill()
        process.wait(timeout=30)
        if process.stdout is not None:
            process.stdout.close()
    assert applied(tmp_path / "data") == [42.0, 7.0]
    store = open_store("", tmp_path / "data")
    try:
        assert sum(1 for e in store.iter_all() if e.kind == "hand_started") == 1
    finally:
        store.close()
