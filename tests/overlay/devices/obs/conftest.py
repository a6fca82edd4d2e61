"""A real OBS Studio for the OBS tests, on a private X server.

One OBS per test session (it starts in about two seconds): Xvfb picks a free display
(``-displayfd``), OBS runs with a fresh HOME whose ``global.ini`` is pre-seeded (first-run
wizard off; obs-websocket on a random free port with a password; no alerts) and whose
profile holds a small (320x180) output and the replay buffer, so that the replay test
encodes little. Ready means: the log says ``Server started successfully on port N`` and a
websocket client receives a v5 Hello. Both processes are stopped by PID at the end.

Facts found on this machine (Debian OBS 29.0.2, obs-websocket 5.1.0):
- OBS 29 reads the websocket settings from ``global.ini`` ``[OBSWebSocket]``; it ignores
  ``plugin_config/obs-websocket/config.json``.
- The server listens on all interfaces: always set a password.
- When the port is taken, OBS keeps running and only logs ``Listen failed``: we retry on
  another port.
- ``--multi`` keeps OBS from asking about an instance already running (another test
  session); ``--disable-missing-files-check`` keeps a restart from opening a dialog.
  There is no ``--disable-shutdown-check`` in OBS 29 (it came with OBS 30's safe mode),
  and a SIGKILLed OBS 29 restarts without a dialog.
- The default transition fades for 300 ms: tests that screenshot set the Cut transition.
- The Debian build has no Browser source (``browser_source``), so setup uses stand-ins.
- At start, the rtmp-services plugin fetches its service list from obsproject.com (built
  in, no switch); the proxy variables point libcurl at a dead local port instead.
- Starting the replay buffer (or a recording) with an empty program scene opens a modal
  "no sources" question: tests show a scene with sources first.
"""

from __future__ import annotations

import json
import os
import queue
import re
import secrets
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import websocket
from obswebsocket import obsws
from obswebsocket import requests as obs_requests

from overlay.devices.obs.client import ObsClient
from overlay.devices.obs.settings import ObsSettings
from tests.system_packages import missing_system_package

STARTED = re.compile(r"Server started successfully on port (\d+)")
LISTEN_FAILED = "Listen failed"
START_TIMEOUT = 30.0
DEAD_PROXY = "http://127.0.0.1:9"
"""The discard port: nothing listens, so every proxied request fails at once, locally."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def stop_process(process: subprocess.Popen[bytes] | None, grace: float = 5.0) -> None:
    """Stop one process by its PID: SIGTERM, then SIGKILL after ``grace`` seconds."""
    if process is None or process.poll() is not None:
        return
    os.kill(process.pid, signal.SIGTERM)
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(grace)


@dataclass
class ObsStudio:
    """A running OBS (and its Xvfb) that tests can kill and restart."""

    root: Path
    password: str = field(default_factory=lambda: secrets.token_urlsafe(16))
    port: int = 0
    display: str = ""
    xvfb: subprocess.Popen[bytes] | None = None
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def config_dir(self) -> Path:
        return self.home / ".config" / "obs-studio"

    @property
    def replay_dir(self) -> Path:
        return self.root / "replays"

    def settings(self, **changes: Any) -> ObsSettings:
        """Feltcast settings for this OBS, with short timeouts and backoff."""
        values: dict[str, Any] = {"host": "127.0.0.1", "port": self.port,
                                  "password": self.password, "connect_timeout": 3.0,
                                  "request_timeout": 3.0, "reconnect_initial": 0.1,
                                  "reconnect_max": 0.5}
        return ObsSettings(**(values | changes))

    # --- processes --------------------------------------------------------------------

    def start_xvfb(self) -> None:
        read_end, write_end = os.pipe()
        self.xvfb = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write_end), "-screen", "0", "1920x1080x24",
             "-nolisten", "tcp"],
            pass_fds=(write_end,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            number = pipe.readline().strip().decode()
        if not number.isdigit():
            stop_process(self.xvfb)
            raise RuntimeError("Xvfb did not report a display number")
        self.display = f":{number}"

    def seed_config(self) -> None:
        """global.ini and the profile OBS finds on its first start."""
        profile = self.config_dir / "basic" / "profiles" / "Untitled"
        profile.mkdir(parents=True, exist_ok=True)
        self.replay_dir.mkdir(parents=True, exist_ok=True)
        (self.config_dir / "global.ini").write_text(
            "[General]\nFirstRun=true\n\n"
            "[OBSWebSocket]\nFirstLoad=false\nServerEnabled=true\n"
            f"ServerPort={self.port}\nAuthRequired=true\nServerPassword={self.password}\n"
            "AlertsEnabled=false\n")
        (profile / "basic.ini").write_text(
            "[General]\nName=Untitled\n\n"
            "[Video]\nBaseCX=1920\nBaseCY=1080\nOutputCX=320\nOutputCY=180\n"
            "FPSType=1\nFPSInt=10\n\n"
            "[Output]\nMode=Simple\n\n"
            f"[SimpleOutput]\nFilePath={self.replay_dir}\nRecFormat=mkv\nRecQuality=Stream\n"
            "VBitrate=300\nRecRB=true\nRecRBTime=5\nRecRBSize=64\nStreamEncoder=x264\n"
            "Preset=ultrafast\n")

    def start_obs(self) -> None:
        """Start OBS and wait until obs-websocket says Hello; retries when the port is taken."""
        for _ in range(3):
            if not self.port:
                self.port = free_port()
            self.seed_config()
            if self._spawn_and_wait():
                return
            self.port = 0  # the port was taken: pick another one
        raise RuntimeError("OBS could not open its websocket port three times")

    def kill_obs(self) -> None:
        """SIGKILL OBS by PID, as a crash would."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def restart_obs(self) -> None:
        """Start OBS again with the same HOME, port and password."""
        if not self._spawn_and_wait():
            raise RuntimeError(f"OBS could not listen on port {self.port} again")

    def stop(self) -> None:
        stop_process(self.process)
        stop_process(self.xvfb)

    def _spawn_and_wait(self) -> bool:
        self.starts += 1
        log_path = self.root / f"obs-{self.starts}.log"
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("XDG_", "QT_", "WAYLAND"))
               and not key.lower().endswith("_proxy")}
        runtime = self.root / "runtime"
        runtime.mkdir(mode=0o700, exist_ok=True)
        env |= {"HOME": str(self.home), "XDG_CONFIG_HOME": str(self.home / ".config"),
                "XDG_RUNTIME_DIR": str(runtime), "DISPLAY": self.display,
                "QT_QPA_PLATFORM": "xcb", "LIBGL_ALWAYS_SOFTWARE": "1",
                # OBS's rtmp-services plugin fetches a service list from obsproject.com at
                # start (compiled in, no switch): a dead local proxy keeps it on 127.0.0.1.
                "http_proxy": DEAD_PROXY, "https_proxy": DEAD_PROXY, "all_proxy": DEAD_PROXY,
                "no_proxy": ""}
        with log_path.open("wb") as log:
            self.process = subprocess.Popen(
                ["obs", "--multi", "--disable-missing-files-check"], cwd=self.home, env=env,
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            text = log_path.read_text(errors="replace")
            match = STARTED.search(text)
            if match and int(match.group(1)) == self.port:
                self._wait_for_hello(deadline)
                return True
            if LISTEN_FAILED in text:
                stop_process(self.process)
                return False
            if self.process.poll() is not None:
                raise RuntimeError(f"OBS exited with {self.process.returncode}:\n{text[-2000:]}")
            time.sleep(0.05)
        stop_process(self.process)
        raise RuntimeError(f"OBS did not start its websocket server in {START_TIMEOUT:g} s")

    def _wait_for_hello(self, deadline: float) -> None:
        while True:
            try:
                ws = websocket.create_connection(f"ws://127.0.0.1:{self.port}", timeout=2.0)
                try:
                    hello = json.loads(ws.recv())
                finally:
                    ws.close()
                if hello.get("op") == 0 and hello["d"].get("rpcVersion") == 1:
                    return
            except (OSError, websocket.WebSocketException, ValueError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("OBS's websocket server sent no v5 Hello")
            time.sleep(0.1)


@pytest.fixture(scope="session")
def obs_studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ObsStudio]:
    missing = [tool for tool in ("obs", "Xvfb") if shutil.which(tool) is None]
    if missing:
        missing_system_package(f"{', '.join(missing)} not installed: `make system-deps` "
                               "installs them")
    studio = ObsStudio(tmp_path_factory.mktemp("obs"))
    try:
        studio.start_xvfb()
        studio.start_obs()
        yield studio
    finally:
        studio.stop()


@pytest.fixture
def obs(obs_studio: ObsStudio) -> ObsStudio:
    """The session's OBS, started again if a test left it stopped."""
    if obs_studio.process is None or obs_studio.process.poll() is not None:
        obs_studio.restart_obs()
    return obs_studio


class Observer:
    """A second, independent obs-websocket connection (plain obs-websocket-py) that records
    OBS's own events and makes setup calls for the tests."""

    def __init__(self, studio: ObsStudio) -> None:
        self._events: queue.Queue[tuple[str, dict[str, Any]]] = queue.Queue()
        self._ws = obsws("127.0.0.1", studio.port, studio.password, legacy=False, timeout=5)
        self._ws.register(lambda event: self._events.put((event.name, dict(event.datain))))
        self._ws.connect()

    def call(self, request_type: str, **data: Any) -> dict[str, Any]:
        request = self._ws.call(getattr(obs_requests, request_type)(**data))
        assert request.status, f"{request_type} failed: {request}"
        return dict(request.datain)

    def drain(self) -> None:
        while not self._events.empty():
            self._events.get_nowait()

    def expect(self, event_type: str, timeout: float = 5.0, **match: Any) -> dict[str, Any]:
        """The next event of ``event_type`` whose data has ``match``; fails after timeout."""
        deadline = time.monotonic() + timeout
        seen = []
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                name, data = self._events.get(timeout=remaining)
            except queue.Empty:
                break
            if name == event_type and all(data.get(k) == v for k, v in match.items()):
                return data
            seen.append(name)
        raise AssertionError(f"no {event_type} {match} within {timeout} s; saw {seen}")

    def close(self) -> None:
        self._ws.disconnect()


@pytest.fixture
def observer(obs: ObsStudio) -> Iterator[Observer]:
    watcher = Observer(obs)
    try:
        yield watcher
    finally:
        watcher.close()


@pytest.fixture
async def client(obs: ObsStudio) -> AsyncIterator[ObsClient]:
    """Feltcast's supervised client, connected to the session's OBS."""
    async with ObsClient(obs.settings()) as connected:
        await connected.wait_connected(10)
        yield connected


class Profile:
    """Sets OBS's Output/DelayEnable and Output/DelaySec as the Advanced settings page would."""

    def __init__(self, observer: Observer) -> None:
        self.observer = observer

    def set_delay(self, enabled: bool, seconds: int) -> None:
        for name, value in (("DelayEnable", "true" if enabled else "false"),
                            ("DelaySec", str(seconds))):
            self.observer.call("SetProfileParameter", parameterCategory="Output",
                               parameterName=name, parameterValue=value)


@pytest.fixture
def profile(observer: Observer) -> Iterator[Profile]:
    profile = Profile(observer)
    try:
        yield profile
    finally:
        profile.set_delay(False, 20)  # OBS's defaults
