"""Throwaway servers on loopback: a PostgreSQL (``initdb`` + ``pg_ctl``) and a Redis
(``redis-server``) in temporary directories, on free ports, deleted when stopped. What
``feltcast demo --festival`` starts for itself, and what the tests start too.

``initdb`` refuses to run as root, so as root the PostgreSQL server runs as the ``postgres``
system user (``runuser``) in a directory handed over to it. A missing program is a
:class:`overlay.startup.StartupError` that says how to install it.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from typing import Self

from overlay.startup import StartupError

__all__ = ["PostgresServer", "RedisServer", "ThrowawayServer", "find_binary", "free_port",
           "redis_installed"]

BIN_DIRS = [*sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True),
            Path("/usr/local/bin"), Path("/usr/bin")]


def find_binary(name: str) -> Path | None:
    for directory in BIN_DIRS:
        candidate = directory / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which(name)
    return Path(found) if found else None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class ThrowawayServer:
    """A server the tests start and delete: ``with`` starts it (deleting what a failed start
    left) and stops it."""

    def start(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class PostgresServer(ThrowawayServer):
    """``with PostgresServer() as pg: pg.create_database()`` -> a ``postgresql://`` URL."""

    def __init__(self) -> None:
        initdb, pg_ctl = find_binary("initdb"), find_binary("pg_ctl")
        if initdb is None or pg_ctl is None:
            raise StartupError("PostgreSQL is not installed (initdb and pg_ctl not found): "
                               "on Debian, `apt install postgresql` (or `make system-deps`)")
        self.initdb, self.pg_ctl = initdb, pg_ctl
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="feltcast-pg-", dir="/tmp"))
        self.data = self.root / "data"
        self.user: str | None = None
        if os.geteuid() == 0:
            self.user = "postgres"
            entry = pwd.getpwnam(self.user)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)

    def _run(self, *argv: str | Path) -> None:
        command = [str(a) for a in argv]
        if self.user is not None:
            command = ["runuser", "-u", self.user, "--", *command]
        done = subprocess.run(command, capture_output=True, timeout=120, cwd=self.root)
        if done.returncode != 0:
            said = (done.stderr or done.stdout).decode(errors="replace").strip().splitlines()
            reason = said[-1] if said else f"exit status {done.returncode}"
            raise StartupError(f"PostgreSQL did not start ({Path(command[0]).name}): {reason}")

    def start(self) -> None:
        self._run(self.initdb, "-D", self.data, "-U", "postgres", "--auth=trust",
                  "--no-sync", "-E", "UTF8", "--locale=C")
        self._pg_ctl("start")

    def _pg_ctl(self, action: str, *extra: str) -> None:
        options = (f"-h 127.0.0.1 -p {self.port} -k {self.root} -c fsync=off "
                   "-c full_page_writes=off -c max_connections=50")
        self._run(self.pg_ctl, "-D", self.data, "-l", self.root / "server.log", "-w",
                  "-t", "60", "-o", options, *extra, action)

    def restart(self) -> None:
        """Stop the server abruptly (every connection is cut) and start it again."""
        self._pg_ctl("restart", "-m", "immediate")

    def down(self) -> None:
        """Stop the server abruptly (every connection is cut), keeping its data."""
        self._pg_ctl("stop", "-m", "immediate")

    def up(self) -> None:
        """Start again a server that :meth:`down` stopped."""
        self._pg_ctl("start")

    def stop(self) -> None:
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            self._run(self.pg_ctl, "-D", self.data, "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg2://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        """A new, empty database; returns its URL."""
        import sqlalchemy as sa

        name = f"t_{uuid.uuid4().hex[:12]}"
        engine = sa.create_engine(self.url(), isolation_level="AUTOCOMMIT")
        try:
            with engine.connect() as conn:
                conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
        finally:
            engine.dispose()
        return self.url(name)


START_SECONDS = 30.0


def redis_installed() -> bool:
    return shutil.which("redis-server") is not None


class RedisServer(ThrowawayServer):
    """``with RedisServer() as redis: redis.url`` -> a ``redis://`` URL."""

    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise StartupError("Redis is not installed (redis-server not found): on Debian, "
                               "`apt install redis-server` (or `make system-deps`)")
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
                raise StartupError(f"redis-server exited: {(self.root / 'server.log').read_text()}")
            with contextlib.suppress(OSError), socket.create_connection(
                    ("127.0.0.1", self.port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    return
            time.sleep(0.05)
        raise StartupError("redis-server did not answer within 30 s")

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

