"""Suite-wide settings.

Hypothesis: no per-example deadline and no "too slow" health check (performance is measured in
bench/, never in tests, and a loaded 2-core CI machine must not turn a slow example into a
failure). Under CI (``CI=true``) the examples are derandomized, so a CI run is reproducible;
local runs explore new examples.

Playwright's ``expect`` waits up to 20 s for a page to reach what it asserts (its own default
is 5 s): it returns as soon as the page gets there, and a page on a loaded machine gets there
later, never differently.

``pg_server``: one real PostgreSQL server for the whole run (tests/pg.py), started only when a
test asks for it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from playwright.sync_api import expect

from tests.pg import PostgresServer

_SLOW = [HealthCheck.too_slow]  # generation speed is load, not a defect
settings.register_profile("feltcast", deadline=None, suppress_health_check=_SLOW)
settings.register_profile("feltcast-ci", deadline=None, suppress_health_check=_SLOW,
                          derandomize=True)
settings.load_profile("feltcast-ci" if os.environ.get("CI") == "true" else "feltcast")
expect.set_options(timeout=20_000)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    with PostgresServer() as server:
        yield server


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database of each kind (the log's tests run on both)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'feltcast.db'}"
    server: PostgresServer = request.getfixturevalue("pg_server")
    return server.create_database()
