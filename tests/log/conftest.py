"""Fixtures of the log tests: a database URL parametrised over SQLite and PostgreSQL (the
server is the suite's ``pg_server``, tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pg import PostgresServer


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database of each kind."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'feltcast.db'}"
    server: PostgresServer = request.getfixturevalue("pg_server")
    return server.create_database()
