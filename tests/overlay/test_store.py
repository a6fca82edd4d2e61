"""The persisted log against real SQLite and real PostgreSQL: append, read, order, migrations."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlmodel import SQLModel

from engine.errors import ConfigError
from engine.events import CardBurned, Secrecy
from engine.log import TableEvent
from overlay.store import (
    MIGRATIONS,
    SCHEMA_VERSION,
    EventStore,
    Migration,
    StoreError,
    create_db_engine,
    database_url,
    migrate,
    open_store,
    schema_version,
)
from tests.overlay.sample_events import FLOP, sample_events
from tests.pg import PostgresServer


def entries(start: int, events: list, time: float = 1000.0) -> list[TableEvent]:
    return [TableEvent.record(start + i, time + i, e) for i, e in enumerate(events)]


def test_append_then_read_back_every_field(db_url: str) -> None:
    store = open_store(db_url)
    batch = entries(1, sample_events(40))
    store.append(batch[:15])
    store.append(batch[15:])
    assert store.last_seq == 40
    assert store.read() == batch
    assert store.read(after=30) == batch[30:]
    assert store.read(after=10, limit=5) == batch[10:15]
    assert list(store.iter_all(after=3, chunk=7)) == batch[3:]
    # Selected kinds up to a horizon (what GET /api/hands asks for).
    kinds = {"hand_started", "card_burned"}
    assert store.read(until=25, kinds=kinds) == [e for e in batch[:25] if e.kind in kinds]
    assert store.read(after=5, limit=2, kinds=kinds) == [
        e for e in batch[5:] if e.kind in kinds][:2]
    assert store.read(kinds=()) == []
    # The never-class burn card is persisted (the log is the truth) with its class.
    burns = [e for e in store.read() if isinstance(e.payload, CardBurned)]
    assert burns and all(e.secrecy is Secrecy.NEVER for e in burns)
    store.close()


def test_reopen_sees_the_same_log(db_url: str) -> None:
    store = open_store(db_url)
    store.append(entries(1, sample_events(12)))
    log_id = store.log_id
    store.close()
    again = open_store(db_url)
    assert again.last_seq == 12 and again.log_id == log_id
    assert again.read() == entries(1, sample_events(12))
    again.append(entries(13, [FLOP]))
    assert again.read(after=12)[0].payload == FLOP
    again.close()


def test_append_refuses_gaps_duplicates_and_rolls_back_a_failed_batch(db_url: str) -> None:
    store = open_store(db_url)
    store.append(entries(1, [FLOP, FLOP]))
    with pytest.raises(StoreError, match="out of order"):
        store.append(entries(4, [FLOP]))
    with pytest.raises(StoreError, match="out of order"):
        store.append(entries(2, [FLOP]))
    # A second writer that appended behind our back: the batch fails as a whole.
    other = open_store(db_url)
    other.append(entries(3, [FLOP]))
    with pytest.raises(StoreError, match="another writer"):
        store.append(entries(3, [FLOP, FLOP]))
    assert store.last_seq == 3
    assert [e.seq for e in other.read()] == [1, 2, 3]
    store.close()
    other.close()


def test_each_database_gets_its_own_log_id(db_url: str, tmp_path: Path) -> None:
    first = open_store(db_url)
    second = open_store(f"sqlite:///{tmp_path / 'other.db'}")
    assert len(first.log_id) == 32 and first.log_id != second.log_id
    first.close()
    second.close()


def test_migrations_are_applied_once_and_recorded(db_url: str) -> None:
    engine = create_db_engine(db_url)
    assert schema_version(engine) == 0
    assert migrate(engine) == list(range(1, SCHEMA_VERSION + 1))
    assert migrate(engine) == []
    assert schema_version(engine) == SCHEMA_VERSION
    engine.dispose()


def test_a_new_migration_upgrades_an_existing_log_and_keeps_its_events(db_url: str) -> None:
    store = open_store(db_url)
    store.append(entries(1, sample_events(5)))
    store.close()

    def add_note_column(conn: sa.Connection) -> None:
        conn.exec_driver_sql("ALTER TABLE table_event ADD COLUMN note TEXT")

    upgraded = (*MIGRATIONS, Migration(SCHEMA_VERSION + 1, "operator notes", add_note_column))
    engine = create_db_engine(db_url)
    store = EventStore(engine, migrations=upgraded)
    assert schema_version(engine) == SCHEMA_VERSION + 1
    assert "note" in {c["name"] for c in sa.inspect(engine).get_columns("table_event")}
    assert store.read() == entries(1, sample_events(5))
    store.close()
    # The older code refuses the newer database instead of misreading it.
    with pytest.raises(StoreError, match="newer than this Feltcast knows"):
        open_store(db_url)


def test_a_failing_migration_changes_nothing(db_url: str) -> None:
    def broken(conn: sa.Connection) -> None:
        conn.exec_driver_sql("CREATE TABLE half_done (x INTEGER)")
        conn.exec_driver_sql("THIS IS NOT SQL")

    engine = create_db_engine(db_url)
    migrate(engine)
    with pytest.raises(sa.exc.SQLAlchemyError):
        migrate(engine, (*MIGRATIONS, Migration(SCHEMA_VERSION + 1, "broken", broken)))
    assert schema_version(engine) == SCHEMA_VERSION
    assert not sa.inspect(engine).has_table("half_done")  # DDL rolled back on both
    engine.dispose()


def test_migrations_must_be_numbered_without_gaps(tmp_path: Path) -> None:
    engine = create_db_engine(f"sqlite:///{tmp_path / 'x.db'}")
    with pytest.raises(StoreError, match="without gaps"):
        migrate(engine, (MIGRATIONS[0], Migration(3, "skips 2", lambda conn: None)))
    engine.dispose()


def test_migrated_schema_matches_the_models(db_url: str) -> None:
    engine = create_db_engine(db_url)
    migrate(engine)
    inspector = sa.inspect(engine)
    for table in SQLModel.metadata.sorted_tables:
        if table.name not in {"table_event", "schema_version", "log_meta", "command_answer",
                              "log_signature", "device_token"}:
            continue
        columns = {c["name"]: c for c in inspector.get_columns(table.name)}
        assert set(columns) == {c.name for c in table.columns}, table.name
        for column in table.columns:
            assert columns[column.name]["nullable"] == column.nullable, column.name
        assert ([c for c in inspector.get_pk_constraint(table.name)["constrained_columns"]]
                == [c.name for c in table.primary_key.columns])
    engine.dispose()


def test_sqlite_default_is_a_wal_file_in_the_data_directory(tmp_path: Path) -> None:
    store = open_store("", tmp_path / "data")
    store.append(entries(1, [FLOP]))
    path = tmp_path / "data" / "feltcast.db"
    assert path.is_file()
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 5000
    assert store.commits_fast
    # An independent reader (plain sqlite3) sees the committed row before the store closes.
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT seq, kind FROM table_event").fetchall() == [(1, "board_dealt")]
    store.close()


def test_sqlite_full_synchronous_on_request(tmp_path: Path) -> None:
    store = open_store("", tmp_path, synchronous="FULL")
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2
    assert not store.commits_fast
    store.append(entries(1, [FLOP]))
    assert store.read()[0].payload == FLOP
    store.close()
    with pytest.raises(ConfigError, match=r"database\.synchronous"):
        create_db_engine(f"sqlite:///{tmp_path / 'x.db'}", synchronous="OFF")


def test_database_url_choice(tmp_path: Path) -> None:
    assert database_url("", tmp_path) == f"sqlite:///{tmp_path.resolve() / 'feltcast.db'}"
    assert database_url("postgresql://u@h/db") == "postgresql://u@h/db"
    with pytest.raises(ConfigError, match=r"database\.url"):
        database_url("mysql://x")


def test_a_postgresql_restart_fails_one_append_then_the_store_reconnects(
        pg_server: PostgresServer) -> None:
    url = pg_server.create_database()
    store = open_store(url)
    store.append(entries(1, [FLOP]))
    pg_server.restart()
    with pytest.raises(StoreError, match="did not take events 2-2"):
        store.append(entries(2, [FLOP]))
    store.append(entries(2, [FLOP, FLOP]))  # the next append reconnects
    assert [e.seq for e in store.read()] == [1, 2, 3]
    store.close()


def test_appending_the_same_batch_twice_is_harmless(db_url: str) -> None:
    store = open_store(db_url)
    other = open_store(db_url)  # stands for a writer that does not know its batch went through
    batch = entries(1, sample_events(4))
    store.append(batch)
    other.append(batch)
    assert other.last_seq == 4 and other.read() == batch
    store.append(entries(5, [FLOP]))
    with pytest.raises(StoreError, match="another writer"):  # seq 5 is someone else's event
        other.append(entries(5, sample_events(1)))
    assert other.last_seq == 5 and other.read(after=4) == entries(5, [FLOP])
    store.close()
    other.close()


def test_a_command_answer_is_stored_with_its_entries_in_one_transaction(db_url: str) -> None:
    from overlay.store import Acknowledgement

    store = open_store(db_url)
    first = entries(1, sample_events(3))
    store.append(first, acknowledgement=Acknowledgement("cmd-0001", {"ok": True, "seq": 3}))
    store.append([], acknowledgement=Acknowledgement("cmd-0002", {"ok": True, "seq": 3}),
                 now=2000.0)  # a command that logged nothing is answered once all the same
    store.close()
    store = open_store(db_url)  # a restart: the answers are still there
    assert store.answer("cmd-0001") == {"ok": True, "seq": 3}
    assert store.answer("cmd-0002") == {"ok": True, "seq": 3}
    assert store.answer("cmd-never") is None
    # The same id with other entries: the transaction is refused whole, no entry is logged.
    with pytest.raises(StoreError, match="cmd-0001 was answered already"):
        store.append(entries(4, sample_events(2)),
                     acknowledgement=Acknowledgement("cmd-0001", {"ok": True, "seq": 5}))
    assert store.read() == first and store.last_seq == 3
    # Appending the very same batch and answer again (a commit whose outcome was unknown).
    second = entries(4, sample_events(2))
    ack = Acknowledgement("cmd-0003", {"ok": True, "seq": 5})
    store.append(second, acknowledgement=ack)
    store._last_seq = 3  # as if the first attempt's outcome had been lost
    store.append(second, acknowledgement=ack)
    assert store.read() == first + second and store.answer("cmd-0003") == {"ok": True, "seq": 5}
    store.close()
