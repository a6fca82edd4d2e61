"""The tamper-evident log: ``feltcast log verify`` names the first entry that was changed,
removed or moved, a log cut short or rewritten without the data directory's signing key, and a
head an export recorded that the log no longer holds. Rows are edited directly in SQLite and
PostgreSQL, as someone with access to the database would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa

from overlay.cli import main
from overlay.log_signing import LogSigner
from overlay.store import (
    GENESIS,
    MIGRATIONS,
    SIGN_EVERY,
    create_db_engine,
    entry_hash,
    migrate,
    open_store,
)
from tests.overlay.sample_events import sample_events
from tests.overlay.test_store import entries

COUNT = 2 * SIGN_EVERY + 100
"""Entries in the test log: two signed checkpoints and a tail."""


@pytest.fixture
def logged(db_url: str, tmp_path: Path) -> tuple[str, Path]:
    store = open_store(db_url, tmp_path)
    batch = entries(1, sample_events(COUNT))
    for start in range(0, COUNT, 50):
        store.append(batch[start:start + 50])
    store.close()
    return db_url, tmp_path


def verify(logged: tuple[str, Path], capsys: pytest.CaptureFixture[str], *extra: str,
           ) -> tuple[int, str]:
    url, data = logged
    status = main(["log", "verify", "--url", url, "--data-dir", str(data), *extra])
    return status, capsys.readouterr().out


def execute(url: str, sql: str, **params: object) -> None:
    engine = create_db_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text(sql), params)
    engine.dispose()


def test_an_intact_log_verifies(logged: tuple[str, Path],
                                capsys: pytest.CaptureFixture[str]) -> None:
    status, out = verify(logged, capsys)
    assert status == 0, out
    assert f"intact: {COUNT} entries" in out and "2 signed checkpoints verified" in out
    assert str(logged[1] / "log-signing.key") in out


@pytest.mark.parametrize(("tamper", "says"), [
    ("UPDATE table_event SET payload = replace(payload, '1000', '9000') WHERE seq = 57",
     "entry 57 was changed"),
    ("UPDATE table_event SET time = time + 1 WHERE seq = 8", "entry 8 was changed"),
    ("DELETE FROM table_event WHERE seq = 100", "entry 100 is missing"),
    ("UPDATE table_event SET seq = -seq WHERE seq IN (120, 121); "
     "UPDATE table_event SET seq = 241 + seq WHERE seq IN (-120, -121)",
     "entry 120 was changed"),  # two entries swapped
    (f"DELETE FROM table_event WHERE seq > {SIGN_EVERY * 2 - 10}",
     f"entries after {SIGN_EVERY * 2 - 10} were removed: a signed checkpoint covers entry "
     f"{SIGN_EVERY * 2 + 38}"),  # signed at the end of the batch that crossed 512
])
def test_each_kind_of_tampering_is_named(logged: tuple[str, Path], tamper: str, says: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    for statement in tamper.split("; "):
        execute(logged[0], statement)
    status, out = verify(logged, capsys)
    assert status == 1 and "NOT INTACT" in out and says in out, out


def rechain(url: str) -> None:
    """What a forger with database access does: recompute every hash after an edit."""
    engine = create_db_engine(url)
    with engine.begin() as conn:
        previous = GENESIS
        rows = conn.execute(sa.text("SELECT seq, time, secrecy, source, kind, payload FROM "
                                    "table_event ORDER BY seq")).all()
        for seq, time, secrecy, source, kind, payload in rows:
            previous = entry_hash(previous, seq, time, secrecy, source, kind, payload)
            conn.execute(sa.text("UPDATE table_event SET hash = :h WHERE seq = :s"),
                         {"h": previous, "s": seq})
    engine.dispose()


def test_a_rewritten_chain_fails_its_signed_checkpoints(
        logged: tuple[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    url, data = logged
    execute(url, "UPDATE table_event SET source = 'forged' WHERE seq = 10")
    rechain(url)
    status, out = verify(logged, capsys)
    assert status == 1 and "checkpoint at entry 300 does not match" in out, out  # batch end
    # Signed again with the forger's own key: the data directory's key does not know it.
    forger = LogSigner.for_data_dir(data / "forger")
    engine = create_db_engine(url)
    with engine.begin() as conn:
        for seq, head in conn.execute(sa.text("SELECT seq, hash FROM table_event WHERE seq IN "
                                              "(SELECT seq FROM log_signature)")).all():
            conn.execute(sa.text("UPDATE log_signature SET hash = :h, key = :k, "
                                 "signature = :s WHERE seq = :q"),
                         {"h": head, "k": forger.public, "s": forger.sign(head), "q": seq})
    engine.dispose()
    status, out = verify(logged, capsys)
    assert status == 1 and "signed by another key" in out, out
    status, out = verify(logged, capsys, "--public-key", forger.public)  # if one trusted it
    assert status == 0


def test_an_exported_head_is_checked(logged: tuple[str, Path],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    store = open_store(logged[0], logged[1])
    head = f"{store.last_seq}:{store.head}"
    store.close()
    assert verify(logged, capsys, "--head", head)[0] == 0
    execute(logged[0], f"DELETE FROM table_event WHERE seq > {COUNT - 5}")
    status, out = verify(logged, capsys, "--head", head)
    assert status == 1 and f"does not hold the head {COUNT}:" in out


def test_a_log_from_before_the_chain_joins_it_on_upgrade(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    url = f"sqlite:///{tmp_path / 'feltcast.db'}"
    old = create_db_engine(url)
    migrate(old, MIGRATIONS[:2])  # a log of schema version 2, written by the last release
    with old.begin() as conn:
        for event in entries(1, sample_events(30)):
            conn.execute(sa.text("INSERT INTO table_event (seq, time, secrecy, source, kind, "
                                 "payload) VALUES (:a, :b, :c, :d, :e, :f)"), {
                "a": event.seq, "b": event.time, "c": str(event.secrecy), "d": event.source,
                "e": event.kind, "f": json.dumps(event.payload.to_dict())})
    old.dispose()
    store = open_store(url, tmp_path)  # migrates to 3: the entries get their hashes
    assert store.head != GENESIS
    store.append(entries(31, sample_events(5)))
    store.close()
    status, out = verify((url, tmp_path), capsys)
    assert status == 0 and "intact: 35 entries" in out
