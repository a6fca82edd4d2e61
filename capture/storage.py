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

Creating a registry's tables is such a transaction too (the schema is read, then the tables
are made): :func:`create_tables` takes the write lock first, so a registry opened while the
log is being written waits instead of failing ("database is locked" on ``CREATE TABLE``, a
camera's deck lookup during play).
"""

from __future__ import annotations

from sqlalchemy import MetaData
from sqlalchemy.engine import Engine
from sqlmodel import Session

__all__ = ["WRITE_LOCK", "create_tables", "write_session"]

WRITE_LOCK = "feltcast_write_lock"
"""The execution option that asks for SQLite's write lock when a transaction begins."""


def write_session(engine: Engine) -> Session:
    """A session for one read-then-write transaction on ``engine``."""
    return Session(engine.execution_options(**{WRITE_LOCK: True}))


def create_tables(metadata: MetaData, engine: Engine) -> None:
    """``metadata``'s missing tables, made in one transaction that holds the write lock."""
    with engine.execution_options(**{WRITE_LOCK: True}).begin() as connection:
        metadata.create_all(connection)

