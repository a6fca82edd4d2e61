"""How the capture registries (RFID decks, camera decks) write to the database they share
with the service's event log.

A registry write reads first (is the name taken? does a tag clash with an active deck?) and
then writes. On SQLite a transaction that starts as a reader cannot wait for the write lock
once another connection (the log, committing several times a second during play) has
committed after its first read: its snapshot is stale and SQLite answers "database is locked"
at once, whatever the busy timeout. :func:`write_session` therefore asks for the write lock
when the transaction begins (``BEGIN IMMEDIATE``): it waits its turn up to the busy timeout,
and what it read cannot change before it writes. Engines made by
:func:`overlay.store.create_db_engine` honour the request; on PostgreSQL it changes nothing
(its row locks and unique constraints already serialise the writers).
"""

from __future__ import annotations

from sqlalchemy.engine import Engine
from sqlmodel import Session

__all__ = ["WRITE_LOCK", "write_session"]

WRITE_LOCK = "feltcast_write_lock"
"""The execution option that asks for SQLite's write lock when a transaction begins."""


def write_session(engine: Engine) -> Session:
    """A session for one read-then-write transaction on ``engine``."""
    return Session(engine.execution_options(**{WRITE_LOCK: True}))
