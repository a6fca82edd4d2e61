"""Persistence of the append-only table log (SQLModel: SQLite or PostgreSQL).

* SQLite by default: one file, ``<data_dir>/feltcast.db``, in WAL mode; PostgreSQL when the
  configured URL is ``postgresql://…`` (a commit is durable when the server acknowledges it).
* :meth:`EventStore.append` writes a whole batch in one transaction and returns only once it is
  committed: an event acknowledged to its sender survives a ``kill -9`` of the service.
* SQLite durability: ``synchronous=NORMAL`` by default. In WAL mode a committed transaction is
  in the WAL file when ``append`` returns, so killing the process loses nothing acknowledged;
  only an operating-system crash or a power cut may roll back the last commits (the database
  stays consistent). ``synchronous=FULL`` also survives power loss, at one fsync per commit
  (3.5 ms median on the development VM, too slow for the 5 ms p99 target).
* The schema carries a version number (table ``schema_version``) from the first table on;
  :func:`migrate` applies the pending steps of :data:`MIGRATIONS` in order, each in its own
  transaction, and refuses a database written by a newer Feltcast.
* Every log has a random ``log_id`` (table ``log_meta``): a client resuming a channel after a
  restart can tell that it is still the same log.
* Exactly once: a command's id and its answer (table ``command_answer``, schema version 2) are
  written in the same transaction as the entries the command produced. A command sent again
  with its id, after a crash or a restart, gets the first answer from there and is never
  applied twice; a command whose transaction never committed left no trace and is applied
  once when it comes again. Every id is kept as long as the log (:meth:`EventStore.answer`).
* Tamper-evident (schema version 3): every entry carries ``hash``, SHA-256 over the previous
  entry's hash and its own columns (:func:`entry_hash`), so a changed, removed or reordered
  entry breaks the chain from there on; every :data:`SIGN_EVERY` entries the head is signed
  (table ``log_signature``) with the data directory's Ed25519 key (``log-signing.key``), so a
  log cut short or rewritten without that key shows too. ``feltcast log verify`` checks both
  (:mod:`overlay.log_verify`).
* State checkpoints (schema version 6, table ``state_checkpoint``): the service's state at a
  log position, so that a start replays only the entries after it (:mod:`overlay.checkpoints`).
  They are derived data: deleting them loses nothing but start-up time.
* One writer per table (PostgreSQL): the service that writes a log holds its *lease*, a
  session advisory lock on its own append connection (:meth:`EventStore.take_lease`), so a
  second service on the same log refuses to start or, with ``--standby``, waits and takes
  over once the first has stopped or died (PostgreSQL drops a dead session's locks). The
  lease fences the writes: after a lost connection the next append takes it again on the
  new connection, and if another service took it meanwhile, or wrote to the log, the append
  is refused (:class:`LeaseLostError`) and the service stops: two services never write
  one log. Several tables share one PostgreSQL database, each in a schema of its own
  (``[database] schema``, :func:`with_schema`).

The store is synchronous (SQLAlchemy sessions); the service calls it from one worker thread.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import uuid
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Field, SQLModel

from capture.storage import WRITE_LOCK
from engine.errors import ConfigError, FeltcastError
from engine.log import PayloadDecoder, TableEvent, decode_payload
from overlay.log_signing import LogSigner

__all__ = [
    "MIGRATIONS",
    "SCHEMA_PATTERN",
    "SCHEMA_VERSION",
    "Acknowledgement",
    "CommandAnswer",
    "EventStore",
    "LeaseHeldError",
    "LeaseLostError",
    "LogRow",
    "Migration",
    "Sender",
    "StoreError",
    "StoreUnreachableError",
    "StoredCheckpoint",
    "create_db_engine",
    "database_url",
    "migrate",
    "open_store",
    "schema_of",
    "schema_version",
    "with_schema",
]

SQLITE_FILE = "feltcast.db"


class StoreError(FeltcastError):
    """The event log cannot be read or written as asked (the message says why)."""

    code = "store_error"


class LeaseLostError(StoreError):
    """Another service holds this log's lease now, or wrote to it: this one must stop."""

    code = "lease_lost"


class StoreUnreachableError(StoreError):
    """The database cannot be reached now (restarted, cut off): ask again later."""

    code = "store_unreachable"


def _unreachable(error: sa.exc.DBAPIError) -> StoreUnreachableError:
    """The driver's error, said in one line."""
    return StoreUnreachableError(f"{type(error.orig).__name__}: "
                                 f"{str(error.orig).strip().splitlines()[0]}"
                                 if error.orig is not None else str(error))


class LeaseHeldError(StoreError):
    """Another service writes this log (it holds the lease)."""

    code = "lease_held"


SCHEMA_PATTERN = re.compile(r"[a-z_][a-z0-9_]{0,62}")
"""A PostgreSQL schema for one table's log (``table_1``)."""


def with_schema(url: str, schema: str) -> str:
    """``url`` whose connections use ``schema`` (PostgreSQL's ``search_path``, through the
    connection's options, so that every tool given the URL reads that table's log).

    >>> with_schema("postgresql://db/festival", "table_1")
    'postgresql://db/festival?options=-csearch_path%3Dtable_1'
    """
    if not SCHEMA_PATTERN.fullmatch(schema):
        raise ConfigError("database.schema", f"{schema!r} is not a schema name (lower-case "
                          "letters, digits and underscores, e.g. 'table_1')")
    if not url.startswith(("postgresql://", "postgresql+psycopg2://")):
        raise ConfigError("database.schema", "a schema needs a postgresql:// url")
    separator = "&" if "?" in url else "?"
    return f"{url}{separator}options=-csearch_path%3D{schema}"


def schema_of(url: str) -> str:
    """The schema :func:`with_schema` put into ``url`` ('' for none).

    >>> schema_of(with_schema("postgresql://db/festival", "table_1"))
    'table_1'
    """
    found = re.search(r"[?&]options=-csearch_path%3D([a-z0-9_]+)", url)
    return found.group(1) if found else ""


class LogRow(SQLModel, table=True):
    """One persisted :class:`TableEvent` (schema version 1)."""

    __tablename__ = "table_event"

    seq: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    time: float
    secrecy: str = Field(max_length=8)
    source: str = Field(max_length=64)
    kind: str = Field(max_length=64, index=True)
    payload: str  # the payload's to_dict(), as JSON text
    hash: str = Field(default="", max_length=64, sa_column_kwargs={"server_default": ""})
    """SHA-256 of the previous entry's hash and this entry's columns (:func:`entry_hash`)."""


class LogSignature(SQLModel, table=True):
    """A signed checkpoint of the hash chain (schema version 3)."""

    __tablename__ = "log_signature"

    seq: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    hash: str = Field(max_length=64)
    key: str = Field(max_length=64)
    """The signing public key (Ed25519, hex)."""
    signature: str = Field(max_length=128)


class DeviceToken(SQLModel, table=True):
    """A named device's token (schema version 5): only its SHA-256 is kept."""

    __tablename__ = "device_token"

    name: str = Field(primary_key=True, max_length=64)
    role: str = Field(max_length=16)
    token_hash: str = Field(max_length=64, index=True)
    created: float
    revoked: float | None = None


class CommandAnswer(SQLModel, table=True):
    """The answer to one acknowledged command (schema version 2), by the command's id."""

    __tablename__ = "command_answer"

    id: str = Field(primary_key=True, max_length=64)
    seq: int
    """The log's last sequence number once the command was applied (its last entry's)."""
    time: float
    answer: str  # the acknowledgement as JSON text
    role: str = Field(default="", max_length=80, sa_column_kwargs={"server_default": ""})
    """The access audit (schema version 4): the role of the token that sent it, ..."""
    peer: str = Field(default="", max_length=64, sa_column_kwargs={"server_default": ""})
    """... the address it came from ..."""
    agent: str = Field(default="", max_length=200, sa_column_kwargs={"server_default": ""})
    """... and the sender's user agent."""


class SchemaVersion(SQLModel, table=True):
    """One row per applied migration."""

    __tablename__ = "schema_version"

    version: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    description: str


class LogMeta(SQLModel, table=True):
    """Key/value facts about the log, e.g. its ``log_id``."""

    __tablename__ = "log_meta"

    key: str = Field(primary_key=True, max_length=64)
    value: str


# --- migrations ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Migration:
    """One schema step: ``apply(connection)`` runs inside the migration's transaction.

    Each step spells out its own DDL (it must keep meaning the same thing when the models
    above change later); a test checks that the migrated schema matches the models.
    """

    version: int
    description: str
    apply: Callable[[Connection], None]


def _v1_event_log(conn: Connection) -> None:
    metadata = sa.MetaData()
    sa.Table(
        "table_event", metadata,
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("time", sa.Float, nullable=False),
        sa.Column("secrecy", sa.String(8), nullable=False),
        sa.Column("source", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(64), nullable=False, index=True),
        sa.Column("payload", sa.Text, nullable=False),
    )
    sa.Table(
        "log_meta", metadata,
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    metadata.create_all(conn)
    conn.execute(sa.text("INSERT INTO log_meta (key, value) VALUES ('log_id', :id)"),
                 {"id": uuid.uuid4().hex})


def _v2_command_answers(conn: Connection) -> None:
    metadata = sa.MetaData()
    sa.Table(
        "command_answer", metadata,
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("time", sa.Float, nullable=False),
        sa.Column("answer", sa.Text, nullable=False),
    )
    metadata.create_all(conn)


GENESIS = "0" * 64
"""The hash before the first entry."""
SIGN_EVERY = 256
"""A signed checkpoint of the chain every this many entries."""


def entry_hash(previous: str, seq: int, time: float, secrecy: str, source: str, kind: str,
               payload: str) -> str:
    """The chained hash of one entry: SHA-256 over the previous entry's hash and the entry's
    columns exactly as stored (the payload's JSON text), one per line."""
    digest = hashlib.sha256(f"{previous}\n{seq}\n{time!r}\n{secrecy}\n{source}\n{kind}\n"
                            .encode())
    digest.update(payload.encode())
    return digest.hexdigest()


def _v3_hash_chain(conn: Connection) -> None:
    conn.exec_driver_sql("ALTER TABLE table_event ADD COLUMN hash VARCHAR(64) NOT NULL "
                         "DEFAULT ''")
    metadata = sa.MetaData()
    sa.Table(
        "log_signature", metadata,
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("signature", sa.String(128), nullable=False),
    )
    metadata.create_all(conn)
    previous = GENESIS  # the entries already logged join the chain as they are
    rows = conn.exec_driver_sql("SELECT seq, time, secrecy, source, kind, payload FROM "
                                "table_event ORDER BY seq").all()
    updates = []
    for seq, time, secrecy, source, kind, payload in rows:
        previous = entry_hash(previous, seq, time, secrecy, source, kind, payload)
        updates.append({"h": previous, "s": seq})
    if updates:
        conn.execute(sa.text("UPDATE table_event SET hash = :h WHERE seq = :s"), updates)


def _v4_command_audit(conn: Connection) -> None:
    for column, size in (("role", 80), ("peer", 64), ("agent", 200)):
        conn.exec_driver_sql(f"ALTER TABLE command_answer ADD COLUMN {column} "
                             f"VARCHAR({size}) NOT NULL DEFAULT ''")


def _v5_device_tokens(conn: Connection) -> None:
    metadata = sa.MetaData()
    sa.Table(
        "device_token", metadata,
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, index=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("revoked", sa.Float, nullable=True),
    )
    metadata.create_all(conn)


def _v6_state_checkpoints(conn: Connection) -> None:
    metadata = sa.MetaData()
    sa.Table(
        "state_checkpoint", metadata,
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("entry_hash", sa.String(64), nullable=False),
        sa.Column("format", sa.String(128), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("mac", sa.String(64), nullable=False),
        sa.Column("state", sa.LargeBinary, nullable=False),
    )
    metadata.create_all(conn)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "event log (table_event) and log facts (log_meta)", _v1_event_log),
    Migration(2, "command answers (command_answer): exactly once across restarts",
              _v2_command_answers),
    Migration(3, "hash chain (table_event.hash) and signed checkpoints (log_signature)",
              _v3_hash_chain),
    Migration(4, "who sent each command (command_answer.role, peer, agent)", _v4_command_audit),
    Migration(5, "named device tokens, hashed (device_token)", _v5_device_tokens),
    Migration(6, "the service's state at log positions (state_checkpoint): a start replays "
                 "only the tail", _v6_state_checkpoints),
)
"""Every schema step, in order; append new ones, never edit an applied one."""

SCHEMA_VERSION = MIGRATIONS[-1].version
"""The schema version this code writes."""

_VERSION_TABLE = sa.Table(
    "schema_version", sa.MetaData(),
    sa.Column("version", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("description", sa.Text, nullable=False),
)


def schema_version(engine: Engine) -> int:
    """The database's schema version (0 for an empty database)."""
    with engine.connect() as conn:
        if not sa.inspect(conn).has_table("schema_version"):
            return 0
        version = conn.execute(sa.select(sa.func.max(_VERSION_TABLE.c.version))).scalar()
    return int(version or 0)


def migrate(engine: Engine, migrations: Sequence[Migration] = MIGRATIONS) -> list[int]:
    """Bring the schema up to the last of ``migrations``; returns the versions applied."""
    versions = [m.version for m in migrations]
    if versions != list(range(1, len(versions) + 1)):
        raise StoreError(f"migrations must be numbered 1, 2, 3, … without gaps: {versions}")
    with engine.begin() as conn:
        _VERSION_TABLE.create(conn, checkfirst=True)
    current = schema_version(engine)
    if current > len(migrations):
        raise StoreError(f"this database has schema version {current}, newer than this "
                         f"Feltcast knows ({len(migrations)}): upgrade Feltcast")
    applied = []
    for migration in migrations[current:]:
        with engine.begin() as conn:
            migration.apply(conn)
            conn.execute(_VERSION_TABLE.insert().values(version=migration.version,
                                                        description=migration.description))
        applied.append(migration.version)
    return applied


# --- engine factory -------------------------------------------------------------------------

def database_url(url: str = "", data_dir: Path | None = None) -> str:
    """The URL to use: ``url`` when given, else the SQLite file in ``data_dir``."""
    if url:
        if not url.startswith(("sqlite:///", "postgresql://", "postgresql+psycopg2://")):
            raise ConfigError("database.url", "expected a sqlite:/// or postgresql:// URL")
        return url
    directory = Path("data") if data_dir is None else data_dir
    return f"sqlite:///{(directory / SQLITE_FILE).resolve()}"


def _sqlite_pragmas(synchronous: str) -> Callable[[Any, Any], None]:
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's BEGIN drive transactions (pysqlite's own would defer them).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            mode = cursor.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() not in {"wal", "memory"}:
                raise StoreError(f"SQLite refused WAL mode (got {mode!r})")
            cursor.execute(f"PRAGMA synchronous={synchronous}")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=5000")
        finally:
            cursor.close()
    return on_connect


def create_db_engine(url: str, *, synchronous: str = "NORMAL") -> Engine:
    """A SQLAlchemy engine for ``url``; SQLite gets WAL mode and its pragmas on every connection.

    ``synchronous`` (SQLite only): ``FULL`` syncs the WAL on each commit (survives power loss);
    ``NORMAL`` survives a killed process but may lose the last commits on power loss.
    """
    if synchronous not in {"FULL", "NORMAL", "EXTRA"}:
        raise ConfigError("database.synchronous", "one of FULL, NORMAL, EXTRA")
    if url.startswith("sqlite"):
        path = url.removeprefix("sqlite:///")
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(url, connect_args={"check_same_thread": False})
        sa.event.listen(engine, "connect", _sqlite_pragmas(synchronous))

        @sa.event.listens_for(engine, "begin")
        def _begin(conn: Connection) -> None:
            # A read-then-write transaction takes the write lock up front (capture.storage).
            immediate = conn.get_execution_options().get(WRITE_LOCK, False)
            conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

        return engine
    if url.startswith("postgresql"):
        if url.startswith("postgresql://"):  # SQLAlchemy 2.1 would pick psycopg 3
            url = "postgresql+psycopg2://" + url.removeprefix("postgresql://")
        engine = sa.create_engine(url, pool_pre_ping=True)
        schema = schema_of(url)
        if schema:  # a table's own schema in a festival's database, made on first use
            with engine.connect() as conn, contextlib.suppress(sa.exc.IntegrityError,
                                                                sa.exc.ProgrammingError):
                conn.exec_driver_sql(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
                conn.commit()
        return engine
    raise ConfigError("database.url", "expected a sqlite:/// or postgresql:// URL")


# --- the store ------------------------------------------------------------------------------

_EVENTS = LogRow.__table__  # type: ignore[attr-defined]
_ANSWERS = CommandAnswer.__table__  # type: ignore[attr-defined]
_CHECKPOINTS = sa.table("state_checkpoint", sa.column("seq"), sa.column("entry_hash"),
                        sa.column("format"), sa.column("created"), sa.column("mac"),
                        sa.column("state"))


@dataclass(frozen=True, slots=True)
class StoredCheckpoint:
    """A row of ``state_checkpoint`` (:mod:`overlay.checkpoints` makes and reads them)."""

    seq: int
    entry_hash: str
    format: str
    created: float
    mac: str
    state: bytes = b""


@dataclass(frozen=True, slots=True)
class Acknowledgement:
    """A command's id and its answer, stored with the command's entries."""

    command_id: str
    answer: Mapping[str, Any]
    sender: Sender | None = None
    """Who sent the command (the access audit)."""


@dataclass(frozen=True, slots=True)
class Sender:
    """Who sent a command: the role of its token, the peer address, the user agent."""

    role: str
    peer: str
    agent: str = ""


class EventStore:
    """The persisted log: append batches, read from a sequence number."""

    def __init__(self, engine: Engine, *, decode: PayloadDecoder = decode_payload,
                 migrations: Sequence[Migration] = MIGRATIONS,
                 signer: LogSigner | None = None) -> None:
        self.engine = engine
        self.decode = decode
        self.signer = signer
        """Signs the chain head every :data:`SIGN_EVERY` entries (``None``: the log is only
        chained, e.g. when read by a tool)."""
        migrate(engine, migrations)
        with engine.connect() as conn:
            self.log_id: str = conn.execute(
                sa.text("SELECT value FROM log_meta WHERE key = 'log_id'")).scalar_one()
        self._last_seq = self._read_last_seq()
        self._head = self._read_head()
        mark = "?" if engine.dialect.paramstyle == "qmark" else "%s"
        self._insert = ("INSERT INTO table_event (seq, time, secrecy, source, kind, payload, "
                        f"hash) VALUES ({', '.join([mark] * 7)})")
        self._insert_signature = (f"INSERT INTO log_signature (seq, hash, key, signature) "
                                  f"VALUES ({', '.join([mark] * 4)})")
        self._insert_answer = (f"INSERT INTO command_answer (id, seq, time, answer, role, peer, "
                               f"agent) VALUES ({', '.join([mark] * 7)})")
        self._writer: Connection | None = None
        self.leased = False
        """This service holds the log's lease (:meth:`take_lease`): its appends are
        fenced by it."""
        self.commits_fast = False
        """True when a commit costs well under a millisecond (SQLite WAL, synchronous=NORMAL:
        no fsync per commit), so a caller may commit on its event loop thread."""
        if engine.dialect.name == "sqlite":
            with engine.connect() as conn:  # 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA
                self.commits_fast = conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1

    @contextlib.contextmanager
    def _connection(self, *, write: bool = False) -> Iterator[Connection]:
        """A pooled connection (in a transaction with ``write``) for one read or write.

        :raises StoreUnreachableError: the database cannot be reached (restarted, cut off).
        """
        try:
            with self.engine.begin() if write else self.engine.connect() as conn:
                yield conn
        except sa.exc.DBAPIError as error:
            raise _unreachable(error) from error

    def _read_last_seq(self) -> int:
        with self._connection() as conn:
            return int(conn.execute(sa.select(sa.func.max(_EVENTS.c.seq))).scalar() or 0)

    def _read_head(self) -> str:
        """The hash of the last entry (:data:`GENESIS` for an empty log)."""
        with self._connection() as conn:
            head = conn.execute(sa.select(_EVENTS.c.hash).order_by(_EVENTS.c.seq.desc())
                                .limit(1)).scalar()
        return str(head) if head else GENESIS

    @property
    def head(self) -> str:
        """The chain's head: the last entry's hash (exports carry it)."""
        return self._head

    @property
    def last_seq(self) -> int:
        """The sequence number of the last appended event (0 when the log is empty)."""
        return self._last_seq

    def refresh(self) -> int:
        """Re-read :attr:`last_seq` from the database (after an append whose outcome is
        unknown, e.g. a connection lost during the commit); returns it."""
        self._last_seq = self._read_last_seq()
        self._head = self._read_head()
        return self._last_seq

    def append(self, batch: Sequence[TableEvent], *,
               acknowledgement: Acknowledgement | None = None, now: float = 0.0) -> None:
        """Persist ``batch`` (consecutive sequence numbers following :attr:`last_seq`) and,
        when given, the ``acknowledgement`` of the command that produced it (also for an empty
        batch: a command that changed nothing is still answered once); ``now`` is its time.

        One transaction: all of the batch and its acknowledgement are on disk when this
        returns, or none of it. When the connection breaks (e.g. PostgreSQL restarted) a
        :class:`StoreError` says so and the next append reconnects; appending the very same
        batch again is harmless.
        """
        if not batch and acknowledgement is None:
            return
        expected = range(self._last_seq + 1, self._last_seq + 1 + len(batch))
        if [e.seq for e in batch] != list(expected):
            raise StoreError(f"log append out of order: after event {self._last_seq} came "
                             f"{[e.seq for e in batch][:5]}…")
        rows = []
        head = self._head
        for e in batch:
            columns = (e.seq, e.time, str(e.secrecy), e.source, e.kind,
                       json.dumps(e.payload.to_dict(), separators=(",", ":")))
            head = entry_hash(head, *columns)
            rows.append((*columns, head))
        signed = (self.signer is not None and bool(batch)
                  and batch[-1].seq // SIGN_EVERY > (batch[0].seq - 1) // SIGN_EVERY)
        conn = self._writer_connection()
        try:
            with conn.begin():
                if rows:
                    conn.exec_driver_sql(self._insert, rows)
                if signed:
                    assert self.signer is not None
                    conn.exec_driver_sql(self._insert_signature, [(
                        batch[-1].seq, head, self.signer.public, self.signer.sign(head))])
                if acknowledgement is not None:
                    sender = acknowledgement.sender or Sender("", "")
                    conn.exec_driver_sql(self._insert_answer, [(
                        acknowledgement.command_id, batch[-1].seq if batch else self._last_seq,
                        batch[-1].time if batch else now,
                        json.dumps(dict(acknowledgement.answer), separators=(",", ":")),
                        sender.role[:80], sender.peer[:64], sender.agent[:200])])
        except sa.exc.IntegrityError as error:
            self._last_seq = self._read_last_seq()
            self._head = self._read_head()
            if self.read(batch[0].seq - 1 if batch else self._last_seq, len(batch)) == list(
                    batch) and (acknowledgement is None
                                or self.answer(acknowledgement.command_id) is not None):
                if batch:
                    self._last_seq = max(self._last_seq, batch[-1].seq)
                return  # a retry of a batch whose commit went through: nothing to do
            if acknowledgement is not None and self.answer(acknowledgement.command_id):
                raise StoreError(f"command {acknowledgement.command_id} was answered "
                                 f"already; its events were not logged again") from error
            raise StoreError(f"another writer appended to this log (now at event "
                             f"{self._last_seq}); only one service may write a table's "
                             f"log") from error
        except sa.exc.DBAPIError as error:
            self._drop_writer()
            what = (f"events {batch[0].seq}-{batch[-1].seq}" if batch
                    else f"the answer to command {acknowledgement.command_id}"  # type: ignore[union-attr]
                    )
            raise StoreError(f"the database did not take {what}: {error.orig}") from error
        if batch:
            self._last_seq = batch[-1].seq
            self._head = head

    def answer(self, command_id: str) -> dict[str, Any] | None:
        """The stored answer to the command with this id (``None``: never acknowledged)."""
        with self._connection() as conn:
            text = conn.execute(sa.select(_ANSWERS.c.answer).where(
                _ANSWERS.c.id == command_id)).scalar()
        if text is None:
            return None
        answer: dict[str, Any] = json.loads(text)
        return answer

    def _writer_connection(self) -> Connection:
        """One long-lived connection for appends (no pool checkout per event); a new one
        takes the lease again when this service held it (:meth:`take_lease`)."""
        if self._writer is None or self._writer.closed or self._writer.invalidated:
            self._writer = self.engine.connect()
            if not (self.leased and self.has_leases):
                return self._writer
            if not self._lock(self._writer):
                self._drop_writer()
                raise LeaseLostError("another service took over writing this table's log "
                                     "while the database was away: this one stops")
            if self._read_last_seq() != self._last_seq:
                self._drop_writer()
                raise LeaseLostError(f"another service wrote to this table's log (it is at "
                                     f"event {self._read_last_seq()}, this service at "
                                     f"{self._last_seq}): this one stops")
        return self._writer

    @property
    def has_leases(self) -> bool:
        """Whether the database has leases (PostgreSQL's advisory locks; SQLite's log is
        one file on one machine)."""
        return self.engine.dialect.name == "postgresql"

    def take_lease(self) -> bool:
        """Take this log's lease on the append connection; False when another service
        holds it (try again later, or refuse to start)."""
        if not self.has_leases:
            self.leased = True
            return True
        try:
            conn = self._writer_connection()
            locked = self._lock(conn)
        except sa.exc.DBAPIError as error:  # the database away (restarted, cut off)
            self._drop_writer()
            raise _unreachable(error) from error
        if not locked:
            self._drop_writer()
            return False
        self.leased = True
        self.refresh()  # what the previous writer logged, up to its last commit
        return True

    @staticmethod
    def _lock(conn: Connection) -> bool:
        with conn.begin():
            return bool(conn.exec_driver_sql(
                "SELECT pg_try_advisory_lock(hashtextextended("
                "'feltcast-log:' || current_database() || ':' || current_schema(), 0))"
            ).scalar())

    def _drop_writer(self) -> None:
        if self._writer is not None:
            with contextlib.suppress(sa.exc.SQLAlchemyError):
                self._writer.close()
            self._writer = None

    def read(self, after: int = 0, limit: int | None = None, *,
             until: int | None = None, kinds: Collection[str] | None = None,
             ) -> list[TableEvent]:
        """The events with ``seq > after``, in order (at most ``limit``); only those up to
        ``until`` and of the ``kinds`` named, when given (the kind column is indexed)."""
        query = sa.select(_EVENTS).where(_EVENTS.c.seq > after).order_by(_EVENTS.c.seq)
        if until is not None:
            query = query.where(_EVENTS.c.seq <= until)
        if kinds is not None:
            query = query.where(_EVENTS.c.kind.in_(list(kinds)))
        if limit is not None:
            query = query.limit(limit)
        with self._connection() as conn:
            rows = conn.execute(query).all()
        return [self._event(row) for row in rows]

    def iter_all(self, after: int = 0, chunk: int = 5000) -> Iterator[TableEvent]:
        """Every event after ``after``, read in chunks (for replays of long logs)."""
        while batch := self.read(after, chunk):
            yield from batch
            after = batch[-1].seq

    def hash_at(self, seq: int) -> str | None:
        """The chain hash of entry ``seq`` (``None``: no such entry)."""
        with self._connection() as conn:
            value = conn.execute(sa.select(_EVENTS.c.hash).where(_EVENTS.c.seq == seq)).scalar()
        return None if value is None else str(value)

    def save_checkpoint(self, checkpoint: StoredCheckpoint, *, keep: int = 3) -> None:
        """Store a state checkpoint (replacing one at the same position) and drop all but the
        newest ``keep``."""
        with self._connection(write=True) as conn:
            conn.execute(sa.delete(_CHECKPOINTS).where(_CHECKPOINTS.c.seq == checkpoint.seq))
            conn.execute(sa.insert(_CHECKPOINTS).values(
                seq=checkpoint.seq, entry_hash=checkpoint.entry_hash, format=checkpoint.format,
                created=checkpoint.created, mac=checkpoint.mac, state=checkpoint.state))
            kept = conn.execute(sa.select(_CHECKPOINTS.c.seq).order_by(
                _CHECKPOINTS.c.seq.desc()).limit(keep)).scalars().all()
            conn.execute(sa.delete(_CHECKPOINTS).where(_CHECKPOINTS.c.seq.not_in(kept)))

    def checkpoints(self) -> list[StoredCheckpoint]:
        """The stored state checkpoints, newest first, without their state."""
        with self._connection() as conn:
            rows = conn.execute(sa.select(
                _CHECKPOINTS.c.seq, _CHECKPOINTS.c.entry_hash, _CHECKPOINTS.c.format,
                _CHECKPOINTS.c.created, _CHECKPOINTS.c.mac).order_by(
                _CHECKPOINTS.c.seq.desc())).all()
        return [StoredCheckpoint(*row) for row in rows]

    def checkpoint_state(self, seq: int) -> bytes | None:
        """The state of the checkpoint at ``seq`` (``None``: there is none)."""
        with self._connection() as conn:
            value = conn.execute(sa.select(_CHECKPOINTS.c.state).where(
                _CHECKPOINTS.c.seq == seq)).scalar()
        return None if value is None else bytes(value)

    def _event(self, row: Any) -> TableEvent:
        data = {"seq": row.seq, "time": row.time, "secrecy": row.secrecy,
                "source": row.source, "event": json.loads(row.payload)}
        return TableEvent.from_dict(data, self.decode)

    def close(self) -> None:
        self._drop_writer()
        self.engine.dispose()


def open_existing_store(url: str, data_dir: Path) -> EventStore:
    """The table log at ``url`` (else ``data_dir``'s SQLite file) for reading, refused with a
    message naming the option when there is none (nothing is created)."""
    if not url and not (data_dir / SQLITE_FILE).is_file():
        raise ConfigError("--data-dir", f"no log at {data_dir / SQLITE_FILE}")
    engine = create_db_engine(database_url(url, data_dir))
    if schema_version(engine) == 0:
        engine.dispose()
        raise ConfigError("--url", "this database holds no Feltcast log")
    return EventStore(engine)


def open_store(url: str = "", data_dir: Path | None = None, *,
               decode: PayloadDecoder = decode_payload,
               synchronous: str = "NORMAL") -> EventStore:
    """Open (creating and migrating as needed) the log at ``url`` or in ``data_dir``; with a
    data directory its key signs the chain (:mod:`overlay.log_signing`)."""
    signer = LogSigner.for_data_dir(data_dir) if data_dir is not None else None
    return EventStore(create_db_engine(database_url(url, data_dir), synchronous=synchronous),
                      decode=decode, signer=signer)
