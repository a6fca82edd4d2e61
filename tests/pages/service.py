"""``feltcast serve`` as a real subprocess on 127.0.0.1, for end-to-end page tests and benches."""

from __future__ import annotations

import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from overlay.auth import SHARED_ROLES, rotate_tokens

if TYPE_CHECKING:
    from tests.overlay.test_cli_start import Running

ROOT = Path(__file__).resolve().parents[2]

PLAYERS = """
[[players]]
seat = 1
name = "Ashton Griffin"
stack = 500000

[[players]]
seat = 4
name = "Rast"
stack = 420000

[[players]]
seat = 7
name = "Yuki Tanaka"
stack = 310000
"""


def config_text(delay: float) -> str:
    """A three-handed final table with the secure channel enabled."""
    return f"""
[table]
name = "Main Event Final Table"
seats = 9
button = 1

[delay]
seconds = {delay}

[channels.secure]
enabled = true
{PLAYERS}"""


@dataclass
class Service:
    base: str
    operator: str
    secure: str
    log: Path
    pid: int
    """The server process (benchmarks read its CPU time)."""
    ca: Path | None = None
    """With TLS: the show's CA certificate, which clients trust."""

    def ssl_context(self) -> ssl.SSLContext | None:
        return None if self.ca is None else ssl.create_default_context(cafile=str(self.ca))

    def request(self, path: str, body: dict[str, Any] | None = None) -> Any:
        """GET ``path`` (or POST ``body`` as JSON) with the operator token; the JSON answer."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"{self.base}{path}", data=data, headers={
            "Authorization": f"Bearer {self.operator}", "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10, context=self.ssl_context()) as response:
            return json.loads(response.read())

    def command(self, kind: str, **fields: Any) -> Any:
        """One operator command through ``POST /api/commands``; its acknowledgement."""
        return self.request("/api/commands", {"id": str(uuid.uuid4()), "type": kind, **fields})

    def view(self, channel: str) -> dict[str, Any]:
        """``channel``'s view as ``GET /api/state`` gives it."""
        view: dict[str, Any] = self.request(f"/api/state?channel={channel}")["view"]
        return view


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def printed_tokens(lines: list[str]) -> dict[str, str]:
    """The tokens ``feltcast serve`` printed on its first start, by role."""
    found = {}
    for line in lines:
        parts = line.split()
        if len(parts) == 2 and parts[0] in SHARED_ROLES and line.startswith("  "):
            found[parts[0]] = parts[1]
    assert set(found) == set(SHARED_ROLES), lines
    return found


@contextmanager
def running_service(root: Path, delay: float, *, extra_config: str = "",
                    tls: bool = False) -> Iterator[Service]:
    """Start ``feltcast serve`` in ``root``, wait until it answers, stop it afterwards.

    ``extra_config`` is appended to the configuration (e.g. a ``[tournament]`` section);
    ``tls`` serves HTTPS with the show's own CA, made on this first start."""
    root.mkdir(parents=True, exist_ok=True)
    tls_config = "\n[server]\ntls = true\n" if tls else ""
    (root / "feltcast.toml").write_text(config_text(delay) + tls_config + extra_config)
    port = free_port()
    log_path = root / "serve.log"
    log = log_path.open("w")
    tokens = rotate_tokens(root / "data", SHARED_ROLES)  # tokens.json keeps only digests
    process = subprocess.Popen(
        [sys.executable, "-m", "overlay", "serve", "--config", str(root / "feltcast.toml"),
         "--data", str(root / "data"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    base = f"{'https' if tls else 'http'}://127.0.0.1:{port}"
    ca = root / "data" / "tls" / "ca.pem" if tls else None
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                context = (ssl.create_default_context(cafile=str(ca)) if ca is not None
                           else None)
                with urllib.request.urlopen(f"{base}/api/config", timeout=1,
                                            context=context) as response:
                    if response.status == 200:
                        break
            except (OSError, ssl.SSLError):  # not up yet (its CA not made yet)
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"feltcast serve did not start:\n{log_path.read_text()}")
            time.sleep(0.1)
        yield Service(base, tokens.operator, tokens.secure, log_path, process.pid, ca)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def start_demo(data: Path, *, speed: float, delay: float, seed: int, port: int = 0) -> Running:
    """``feltcast demo`` as a subprocess on 127.0.0.1, its printed lines read as they come."""
    from tests.overlay.test_cli_start import Running  # it imports this module: not at the top

    return Running(subprocess.Popen(
        [sys.executable, "-m", "overlay", "demo", "--port", str(port), "--speed", str(speed),
         "--delay", str(delay), "--seed", str(seed), "--data", str(data)],
        cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL))


def stop_demo(demo: Running, signum: int = signal.SIGTERM) -> None:
    """Stop it and close its output pipe (an open pipe is a ResourceWarning later)."""
    demo.stop(signum)
    if demo.process.stdout is not None:
        demo.process.stdout.close()
