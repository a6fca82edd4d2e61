"""Deck registration: the guided scan (>= 3 stable reads, no tag twice, verification) and the
deck registry on a real SQLite file and a real PostgreSQL server (several decks, one active per
table, retirement), also while the service's log commits on the same SQLite file."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine

from capture.errors import DeckRegistrationError
from capture.rfid.decks import (
    DeckRegistration,
    DeckRegistry,
    DeckStatus,
    Phase,
    ScanUpdate,
)
from engine.cards import REGISTRATION_ORDER, Card
from overlay.store import EventStore, create_db_engine, database_url
from tests.hands import random_log

from .conftest import uid_of

POOL = [uid_of(card, 1) for card in REGISTRATION_ORDER[:4]] + ["E004FFFF00000001"]


def deck_uids(deck: int) -> dict[Card, str]:
    return {card: uid_of(card, deck) for card in REGISTRATION_ORDER}


def scan_card(scan: DeckRegistration, uid: str, reads: int = 3) -> list[ScanUpdate]:
    updates = [scan.observe([uid]) for _ in range(reads)]
    updates.append(scan.observe([]))
    return updates


def register(scan: DeckRegistration, uids: dict[Card, str]) -> None:
    for card in REGISTRATION_ORDER:
        assert scan.prompt.card == card
        scan_card(scan, uids[card])


def test_a_full_registration_and_verification() -> None:
    scan = DeckRegistration("Blue 1")
    uids = deck_uids(1)
    accepted = []
    for card in REGISTRATION_ORDER:
        assert scan.prompt.card is card and scan.prompt.phase is Phase.SCAN
        updates = scan_card(scan, uids[card])
        accepted += [u.accepted for u in updates if u.accepted]
    assert accepted == list(REGISTRATION_ORDER)
    assert scan.phase is Phase.VERIFY and scan.prompt.card == Card("As")
    verified = []
    for card in REGISTRATION_ORDER:
        verified += [u.verified for u in scan_card(scan, uids[card]) if u.verified]
    assert verified == list(REGISTRATION_ORDER)
    assert scan.phase is Phase.DONE
    assert scan.cards() == uids


def test_a_card_needs_three_stable_reads_in_a_row() -> None:
    scan = DeckRegistration("Blue 1")
    a, b = uid_of("As", 1), uid_of("Ks", 1)
    assert [u.accepted for u in (scan.observe([a]), scan.observe([a]))] == [None, None]
    scan.observe([b])  # a flicker to another tag restarts the count
    assert scan.observe([a]).accepted is None
    assert scan.observe([a]).accepted is None
    assert scan.observe([a]).accepted == Card("As")
    assert scan.observe([b]).accepted is None  # the card must be taken off first
    assert "Take the card off" in scan.prompt.text
    with pytest.raises(DeckRegistrationError, match="at least 3"):
        DeckRegistration("x", stable_reads=2)


def test_a_tag_cannot_be_registered_twice_within_a_deck() -> None:
    scan = DeckRegistration("Blue 1")
    scan_card(scan, uid_of("As", 1))
    updates = scan_card(scan, uid_of("As", 1), reads=5)
    assert {u.problem for u in updates if u.problem} == {
        "this tag is already registered as As in this deck; "
        "put the King of spades (Ks) on the antenna"}
    assert scan.cards() == {Card("As"): uid_of("As", 1)}


def test_a_tag_of_an_active_deck_is_refused() -> None:
    scan = DeckRegistration("Blue 2", taken={uid_of("As", 1): "Blue 1"})
    updates = scan_card(scan, uid_of("As", 1))
    assert any("active deck 'Blue 1'" in u.problem for u in updates)
    assert scan.cards() == {}


def test_one_card_at_a_time() -> None:
    scan = DeckRegistration("Blue 1")
    update = scan.observe([uid_of("As", 1), uid_of("Ks", 1)])
    assert update.problem == "2 tags on the antenna: put one card at a time"


def test_verification_catches_a_swapped_card_and_accepts_the_whole_deck_at_once() -> None:
    scan = DeckRegistration("Blue 1")
    uids = deck_uids(1)
    register(scan, uids)
    updates = scan_card(scan, uids[Card("Ks")])  # expected the ace of spades
    assert any(u.problem == "expected the Ace of spades (As) but this is the tag registered "
               "as Ks" for u in updates)
    assert any("not in this deck" in u.problem for u in scan_card(scan, uid_of("As", 9)))
    assert scan.prompt.card == Card("As")
    scan.observe(list(uids.values())[:51])
    assert scan.phase is Phase.VERIFY
    scan.observe(list(uids.values()))
    assert scan.phase is Phase.DONE


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """An empty database of each kind, on the service's engine (overlay.store)."""
    if request.param == "sqlite":
        url = database_url(data_dir=tmp_path)
    else:
        url = request.getfixturevalue("pg_server").create_database()
    engine = create_db_engine(url)
    yield engine
    engine.dispose()


def test_decks_persist_in_a_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "decks.db"
    engine = sa.create_engine(f"sqlite:///{path}")
    try:
        DeckRegistry(engine).save("Blue 1", deck_uids(1), registered_at=1000.0)
    finally:
        engine.dispose()
    again = sa.create_engine(f"sqlite:///{path}")
    try:
        reopened = DeckRegistry(again)
        info = reopened.deck("Blue 1")
        assert (info.status, info.table, info.registered_at) == (DeckStatus.READY, None, 1000.0)
        assert reopened.cards_of("Blue 1") == {uid: card for card, uid in deck_uids(1).items()}
    finally:
        again.dispose()
    assert path.stat().st_size > 0


def test_one_active_deck_per_table(db: Engine) -> None:
    registry = DeckRegistry(db)
    registry.save("Blue 1", deck_uids(1))
    registry.save("Red 1", deck_uids(2))
    registry.save("Green 1", deck_uids(3))
    registry.activate("Blue 1", "final")
    assert registry.active_deck("final").name == "Blue 1"  # type: ignore[union-attr]
    registry.activate("Red 1", "final")  # a deck change: Blue goes back on the shelf
    assert registry.deck("Blue 1").status is DeckStatus.READY
    assert registry.active_deck("final").name == "Red 1"  # type: ignore[union-attr]
    registry.activate("Green 1", "outer")
    assert registry.active_cards("outer")[uid_of("2c", 3)] == Card("2c")
    assert set(registry.active_uids().values()) == {"Red 1", "Green 1"}
    with pytest.raises(DeckRegistrationError, match="active at table 'final'"):
        registry.activate("Red 1", "outer")
    assert [d.name for d in registry.decks()] == ["Blue 1", "Red 1", "Green 1"]


def test_no_tag_twice_across_active_decks(db: Engine) -> None:
    registry = DeckRegistry(db)
    registry.save("Blue 1", deck_uids(1))
    registry.activate("Blue 1", "final")
    clashing = deck_uids(2) | {Card("7h"): uid_of("7h", 1)}
    with pytest.raises(DeckRegistrationError, match="active deck 'Blue 1'"):
        registry.save("Red 1", clashing)
    # Saved while Blue 1 was not active, a clash is still refused on activation.
    registry.retire("Blue 1")
    registry.save("Red 1", clashing)
    registry.save("Blue 2", deck_uids(1))
    registry.activate("Red 1", "final")
    with pytest.raises(DeckRegistrationError, match="shares tag"):
        registry.activate("Blue 2", "outer")


def test_retired_decks_stay_retired(db: Engine) -> None:
    registry = DeckRegistry(db)
    registry.save("Blue 1", deck_uids(1))
    registry.activate("Blue 1", "final")
    registry.retire("Blue 1")
    assert registry.active_deck("final") is None
    assert registry.active_cards("final") == {}
    with pytest.raises(DeckRegistrationError, match="retired"):
        registry.activate("Blue 1", "final")
    assert registry.deck("Blue 1").status is DeckStatus.RETIRED


@pytest.mark.parametrize(("cards", "problem"), [
    ({}, "lacks 52 cards"),
    ({card: "E0040000000000AA" for card in REGISTRATION_ORDER}, "one tag for two cards"),
])
def test_incomplete_or_inconsistent_decks_are_refused(
        db: Engine, cards: dict[Card, str], problem: str) -> None:
    with pytest.raises(DeckRegistrationError, match=problem):
        DeckRegistry(db).save("Bad", cards)


def test_names_are_unique_and_must_exist(db: Engine) -> None:
    registry = DeckRegistry(db)
    registry.save("Blue 1", deck_uids(1))
    with pytest.raises(DeckRegistrationError, match="already exists"):
        registry.save("Blue 1", deck_uids(2))
    with pytest.raises(DeckRegistrationError, match="no deck called 'Nope'"):
        registry.activate("Nope", "final")


@contextlib.contextmanager
def log_committing(url: str, seed: int) -> Iterator[threading.Thread]:
    """The service's log committing on ``url`` in a thread, one commit per event as fast as
    the disk allows, from before the body runs until it is done (the thread, to ask whether
    it still commits: it stops only when told to)."""
    log_engine = create_db_engine(url)
    store = EventStore(log_engine)
    entries = random_log(seed, 400)
    done = threading.Event()

    def play() -> None:
        for entry in entries:
            if done.is_set():
                return
            store.append([entry])

    player = threading.Thread(target=play)
    player.start()
    try:
        while store.last_seq == 0:  # committing before the body's first write
            time.sleep(0.001)
        yield player
    finally:
        done.set()
        player.join()
        log_engine.dispose()


def test_deck_writes_wait_their_turn_while_the_log_commits(tmp_path: Path) -> None:
    """The service's log commits on the same SQLite file during play; a deck saved, activated
    or retired meanwhile (the operator page, or ``feltcast deck`` beside the service) waits
    for the write lock instead of failing with "database is locked" (each of these writes
    reads first: a transaction that began as a reader cannot wait once the log committed)."""
    url = database_url(data_dir=tmp_path)
    deck_engine = create_db_engine(url)
    registry = DeckRegistry(deck_engine)
    try:
        with log_committing(url, 5) as player:
            for n in range(1, 16):
                registry.save(f"Deck {n}", deck_uids(n))
                registry.activate(f"Deck {n}", "final")
                if n > 1:
                    registry.retire(f"Deck {n - 1}")
            playing_throughout = player.is_alive()
    finally:
        deck_engine.dispose()
    assert playing_throughout  # the log was committing from before the first deck write on
    assert registry.active_deck("final").name == "Deck 15"  # type: ignore[union-attr]
    assert [d.status for d in registry.decks()] == [DeckStatus.RETIRED] * 14 + [
        DeckStatus.ACTIVE]


def test_registries_opened_while_the_log_commits_wait_their_turn(tmp_path: Path) -> None:
    """Opening a registry makes its tables (the schema read, then CREATE TABLE): during play
    that too must wait for the write lock, not fail with "database is locked" (a camera
    looking up its deck while the log commits; seen in make test as the camera service's
    'offline: database is locked')."""
    from capture.camera.deck import CameraDeckRegistry

    url = database_url(data_dir=tmp_path)
    opened = 0
    with log_committing(url, 6) as player:
        for _ in range(12):  # a new engine each time, the tables made again under the load
            other = create_db_engine(url)
            try:
                with other.begin() as connection:  # drop them, so that each opening makes them
                    connection.exec_driver_sql("DROP TABLE IF EXISTS camera_deck")
                    connection.exec_driver_sql("DROP TABLE IF EXISTS rfid_deck_card")
                    connection.exec_driver_sql("DROP TABLE IF EXISTS rfid_deck")
                CameraDeckRegistry(other)
                DeckRegistry(other)
                opened += 1
            finally:
                other.dispose()
        playing_throughout = player.is_alive()
    assert playing_throughout and opened == 12


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.just(()), st.sampled_from(POOL).map(lambda u: (u,)),
                          st.lists(st.sampled_from(POOL), min_size=2, max_size=3,
                                   unique=True).map(tuple)), max_size=120))
def test_registration_invariants_under_any_snapshots(snapshots: list[tuple[str, ...]]) -> None:
    # Whatever reaches the antenna: a card is accepted only after >= 3 snapshots in a row
    # showing its tag alone, cards are accepted in REGISTRATION_ORDER, no tag twice.
    scan = DeckRegistration("Fuzz")
    streak: dict[str, int] = {}
    accepted: list[tuple[Card, str]] = []
    for snapshot in snapshots:
        update = scan.observe(snapshot)
        streak = {snapshot[0]: streak.get(snapshot[0], 0) + 1} if len(snapshot) == 1 else {}
        if update.accepted is not None:
            assert len(snapshot) == 1 and streak[snapshot[0]] >= 3
            accepted.append((update.accepted, snapshot[0]))
    assert [card for card, _ in accepted] == list(REGISTRATION_ORDER[:len(accepted)])
    assert len({uid for _, uid in accepted}) == len(accepted)
    assert scan.cards() == dict(accepted)
