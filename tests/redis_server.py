"""A real, throwaway Redis server for tests: Debian's ``redis-server`` on 127.0.0.1 and a free
port, no persistence, in a temporary directory; killed (SIGKILL, as a crash) and started
again on the same port by :meth:`RedisServer.restart`, stopped and deleted afterwards."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from tests.pg import ThrowawayServer, free_port
from tests.system_packages import missing_system_package

START_SECONDS = 30.0


def redis_installed() -> bool:
    return shutil.which("redis-server") is not None


class RedisServer(ThrowawayServer):
    """``with RedisServer() as redis: redis.url`` -> a ``redis://`` URL."""

    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            missing_system_package("redis-server is not installed (Debian package "
                                   "redis-server)")
        self.binary = str(binary)
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="feltcast-redis-", dir="/tmp"))
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        log = open(self.root / "server.log", "ab")  # noqa: SIM115 (the server's, kept open)
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--dir", str(self.root),
             "--protected-mode", "yes"], stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:  # the port answers PING: the server is up
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited: {(self.root / 'server.log').read_text()}")
            with contextlib.suppress(OSError), socket.create_connection(
                    ("127.0.0.1", self.port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not answer within 30 s")

    def kill(self) -> None:
        """SIGKILL, as a crash: every connection is cut, everything stored is gone."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=30)
            self.process = None

    def restart(self) -> None:
        self.kill()
        self.start()

    def stop(self) -> None:
        self.kill()
        shutil.rmtree(self.root, ignore_errors=True)

