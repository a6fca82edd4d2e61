"""A real, throwaway PostgreSQL server for tests: ``initdb`` + ``pg_ctl`` in a temporary
directory, listening on 127.0.0.1 on a free port, stopped and deleted afterwards.

``initdb`` refuses to run as root, so when the tests run as root the server runs as the
``postgres`` system user (``runuser``) in a directory handed over to it.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Self

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
            raise RuntimeError("PostgreSQL is not installed (initdb/pg_ctl not found): "
                               "run `make system-deps` (Debian package postgresql)")
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
        subprocess.run(command, check=True, capture_output=True, timeout=120, cwd=self.root)

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


@contextlib.contextmanager
def postgres_server() -> Iterator[PostgresServer]:
    with PostgresServer() as server:
        yield server
