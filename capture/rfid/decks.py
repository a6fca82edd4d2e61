"""Deck registration: which tag UID is which card, stored in the database.

A new deck is scanned card by card in the fixed order :data:`engine.cards.REGISTRATION_ORDER`
(A♠ K♠ … 2♠, A♥ … 2♣) on one antenna, shown on the operator page and in
``feltcast deck register``. A card counts once its tag has been read alone in
``stable_reads`` (>= 3) snapshots in a row; it must then be taken away before the next one.
No UID may be registered twice, within the deck or across the active decks. A verification
pass follows: the same order again (or the whole deck on the antenna at once), and every tag
must be the one registered for that card. Only a verified deck is saved.

:class:`DeckRegistration` is the pure guided scan (snapshots in, prompts out);
:class:`DeckRegistry` stores decks with SQLModel on an engine the caller owns (SQLite or
PostgreSQL). Several decks per venue; one active deck per table; a retired deck is kept for
the record but can never be activated again.

>>> scan = DeckRegistration("Blue 1")
>>> scan.prompt.text
'Put the Ace of spades (As) alone on the antenna (card 1 of 52).'
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.orm import registry
from sqlmodel import Field, Session, SQLModel, select

from capture.errors import DeckRegistrationError
from capture.storage import create_tables, write_session
from engine.cards import REGISTRATION_ORDER, Card

MIN_STABLE_READS = 3


# -- the guided scan ------------------------------------------------------------------------

class Phase(StrEnum):
    SCAN = "scan"
    VERIFY = "verify"
    DONE = "done"


@dataclass(frozen=True, slots=True)
class Prompt:
    """What the operator is asked to do now."""

    phase: Phase
    index: int
    """0-51: position in :data:`REGISTRATION_ORDER` (52 when done)."""
    card: Card | None
    text: str


@dataclass(frozen=True, slots=True)
class ScanUpdate:
    """The outcome of one snapshot: a card accepted or verified, a problem, or nothing yet."""

    prompt: Prompt
    accepted: Card | None = None
    verified: Card | None = None
    problem: str = ""


class DeckRegistration:
    """The guided registration of one deck; feed it every snapshot of the scan antenna.

    :param taken: UID -> deck name for every tag of the active decks (none may be reused).
    """

    def __init__(self, name: str, *, taken: Mapping[str, str] | None = None,
                 stable_reads: int = MIN_STABLE_READS) -> None:
        if not name.strip():
            raise DeckRegistrationError("a deck needs a name")
        if stable_reads < MIN_STABLE_READS:
            raise DeckRegistrationError(
                f"at least {MIN_STABLE_READS} stable reads per card are required")
        self.name = name.strip()
        self.stable_reads = stable_reads
        self._taken = {uid.upper(): deck for uid, deck in (taken or {}).items()}
        self._phase = Phase.SCAN
        self._index = 0
        self._uids: dict[Card, str] = {}
        self._by_uid: dict[str, Card] = {}
        self._candidate = ""
        self._streak = 0
        self._await_empty = False

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def prompt(self) -> Prompt:
        if self._phase is Phase.DONE:
            return Prompt(Phase.DONE, 52, None,
                          f"Deck {self.name!r}: all 52 cards registered and verified.")
        card = REGISTRATION_ORDER[self._index]
        if self._await_empty:
            return Prompt(self._phase, self._index, card, "Take the card off the antenna.")
        if self._phase is Phase.SCAN:
            text = (f"Put the {card.name} ({card}) alone on the antenna "
                    f"(card {self._index + 1} of 52).")
        else:
            text = (f"Verification: put the {card.name} ({card}) on the antenna "
                    f"(card {self._index + 1} of 52), or the whole deck at once.")
        return Prompt(self._phase, self._index, card, text)

    def cards(self) -> dict[Card, str]:
        """Card -> UID registered so far."""
        return dict(self._uids)

    def observe(self, uids: Iterable[str]) -> ScanUpdate:
        """One complete snapshot of the scan antenna."""
        tags = list(dict.fromkeys(uid.upper() for uid in uids))
        if self._phase is Phase.DONE:
            return ScanUpdate(self.prompt)
        if self._phase is Phase.VERIFY and len(tags) == 52 and set(tags) == set(self._by_uid):
            self._phase = Phase.DONE  # the whole deck on the antenna at once
            return ScanUpdate(self.prompt)
        if self._await_empty:
            if not tags:
                self._await_empty = False
            return ScanUpdate(self.prompt)
        if not tags:
            self._streak = 0
            return ScanUpdate(self.prompt)
        if len(tags) > 1:
            self._streak = 0
            return ScanUpdate(self.prompt, problem=f"{len(tags)} tags on the antenna: "
                                                   "put one card at a time")
        uid = tags[0]
        if self._phase is Phase.SCAN:
            problem = self._refuse(uid)
            if problem:
                self._streak = 0
                return ScanUpdate(self.prompt, problem=problem)
        if uid != self._candidate:
            self._candidate, self._streak = uid, 0
        self._streak += 1
        if self._streak < self.stable_reads:
            return ScanUpdate(self.prompt)
        return self._stable(uid)

    def _refuse(self, uid: str) -> str:
        card = REGISTRATION_ORDER[self._index]
        if uid in self._by_uid:
            return (f"this tag is already registered as {self._by_uid[uid]} in this deck; "
                    f"put the {card.name} ({card}) on the antenna")
        if uid in self._taken:
            return (f"this tag belongs to the active deck {self._taken[uid]!r}; "
                    "a card from another deck is on the antenna")
        return ""

    def _stable(self, uid: str) -> ScanUpdate:
        card = REGISTRATION_ORDER[self._index]
        self._candidate, self._streak = "", 0
        if self._phase is Phase.SCAN:
            self._uids[card] = uid
            self._by_uid[uid] = card
            self._advance()
            return ScanUpdate(self.prompt, accepted=card)
        expected = self._uids[card]
        if uid != expected:
            other = self._by_uid.get(uid)
            self._await_empty = True
            what = (f"the tag registered as {other}" if other is not None
                    else "a tag that is not in this deck")
            return ScanUpdate(self.prompt, problem=f"expected the {card.name} ({card}) but "
                                                   f"this is {what}")
        self._advance()
        return ScanUpdate(self.prompt, verified=card)

    def _advance(self) -> None:
        self._await_empty = True
        self._index += 1
        if self._index == 52:
            self._index = 0
            self._await_empty = self._phase is Phase.SCAN
            self._phase = Phase.VERIFY if self._phase is Phase.SCAN else Phase.DONE


# -- storage ------------------------------------------------------------------------------

class DeckStatus(StrEnum):
    READY = "ready"
    ACTIVE = "active"
    RETIRED = "retired"


class _DeckBase(SQLModel, registry=registry()):
    """Deck tables have their own metadata: :meth:`DeckRegistry.create_tables` creates them."""


class DeckRow(_DeckBase, table=True):
    __tablename__ = "rfid_deck"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=64, unique=True)
    status: str = Field(max_length=16, default=DeckStatus.READY.value)
    table_name: str | None = Field(default=None, max_length=64, index=True)
    registered_at: float


class DeckCardRow(_DeckBase, table=True):
    __tablename__ = "rfid_deck_card"
    __table_args__ = (sa.UniqueConstraint("deck_id", "uid", name="uq_rfid_deck_card_uid"),)

    deck_id: int = Field(foreign_key="rfid_deck.id", primary_key=True)
    card: str = Field(max_length=2, primary_key=True)
    uid: str = Field(max_length=32, index=True)


@dataclass(frozen=True, slots=True)
class DeckInfo:
    name: str
    status: DeckStatus
    table: str | None
    registered_at: float


def _info(row: DeckRow) -> DeckInfo:
    return DeckInfo(row.name, DeckStatus(row.status), row.table_name, row.registered_at)


class DeckRegistry:
    """Decks in the database behind ``engine`` (the caller creates and disposes of it)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        create_tables(_DeckBase.metadata, engine)

    def _row(self, session: Session, name: str) -> DeckRow:
        row = session.exec(select(DeckRow).where(DeckRow.name == name)).first()
        if row is None:
            raise DeckRegistrationError(f"there is no deck called {name!r}")
        return row

    def save(self, name: str, cards: Mapping[Card, str], *,
             registered_at: float | None = None) -> DeckInfo:
        """Store a registered deck (status ``ready``).

        :raises DeckRegistrationError: if the name is taken, a card is missing, a UID is
            used twice, or a UID belongs to an active deck.
        """
        uids = {card: uid.upper() for card, uid in cards.items()}
        missing = [card.code for card in REGISTRATION_ORDER if card not in uids]
        if missing:
            raise DeckRegistrationError(f"deck {name!r} lacks {len(missing)} cards "
                                        f"({', '.join(missing[:5])}…)")
        if len(set(uids.values())) != 52:
            raise DeckRegistrationError(f"deck {name!r} uses one tag for two cards")
        with write_session(self.engine) as session:
            taken = self._active_uids(session)
            clash = sorted(set(uids.values()) & set(taken))
            if clash:
                raise DeckRegistrationError(
                    f"tag {clash[0]} already belongs to the active deck {taken[clash[0]]!r}")
            if session.exec(select(DeckRow).where(DeckRow.name == name)).first():
                raise DeckRegistrationError(f"a deck called {name!r} already exists")
            row = DeckRow(name=name, registered_at=time.time() if registered_at is None
                          else registered_at)
            session.add(row)
            session.flush()
            assert row.id is not None
            for card, uid in uids.items():
                session.add(DeckCardRow(deck_id=row.id, card=card.code, uid=uid))
            session.commit()
            return _info(row)

    def decks(self) -> list[DeckInfo]:
        with Session(self.engine) as session:
            rows = session.exec(select(DeckRow).order_by(sa.column("id")))
            return [_info(row) for row in rows]

    def deck(self, name: str) -> DeckInfo:
        with Session(self.engine) as session:
            return _info(self._row(session, name))

    def cards_of(self, name: str) -> dict[str, Card]:
        """UID -> card of a deck."""
        with Session(self.engine) as session:
            row = self._row(session, name)
            rows = session.exec(select(DeckCardRow).where(DeckCardRow.deck_id == row.id))
            return {r.uid: Card(r.card) for r in rows}

    def active_uids(self, *, except_table: str | None = None) -> dict[str, str]:
        """UID -> deck name for every tag of every active deck."""
        with Session(self.engine) as session:
            return self._active_uids(session, except_table=except_table)

    @staticmethod
    def _active_uids(session: Session, *, except_table: str | None = None) -> dict[str, str]:
        query = (select(DeckCardRow.uid, DeckRow.name, DeckRow.table_name)
                 .join(DeckRow, DeckRow.id == DeckCardRow.deck_id)  # type: ignore[arg-type]
                 .where(DeckRow.status == DeckStatus.ACTIVE.value))
        return {uid: name for uid, name, table in session.exec(query)
                if table != except_table or except_table is None}

    def active_deck(self, table: str) -> DeckInfo | None:
        with Session(self.engine) as session:
            row = session.exec(select(DeckRow).where(
                DeckRow.table_name == table, DeckRow.status == DeckStatus.ACTIVE.value)).first()
            return None if row is None else _info(row)

    def active_cards(self, table: str) -> dict[str, Card]:
        """UID -> card of the table's active deck (empty when it has none)."""
        deck = self.active_deck(table)
        return {} if deck is None else self.cards_of(deck.name)

    def activate(self, name: str, table: str) -> DeckInfo:
        """Make ``name`` the table's one active deck; the previous one becomes ``ready``.

        :raises DeckRegistrationError: for a retired deck, a deck active at another table,
            or a tag shared with another table's active deck.
        """
        if not table.strip():
            raise DeckRegistrationError("name the table the deck is for")
        with write_session(self.engine) as session:
            row = self._row(session, name)
            if row.status == DeckStatus.RETIRED.value:
                raise DeckRegistrationError(f"deck {name!r} is retired")
            if row.status == DeckStatus.ACTIVE.value and row.table_name != table:
                raise DeckRegistrationError(
                    f"deck {name!r} is active at table {row.table_name!r}")
            mine = set(session.exec(select(DeckCardRow.uid).where(
                DeckCardRow.deck_id == row.id)))
            others = self._active_uids(session, except_table=table)
            clash = sorted(mine & set(others))
            if clash:
                raise DeckRegistrationError(
                    f"deck {name!r} shares tag {clash[0]} with the active deck "
                    f"{others[clash[0]]!r}")
            for previous in session.exec(select(DeckRow).where(
                    DeckRow.table_name == table, DeckRow.status == DeckStatus.ACTIVE.value)):
                if previous.id != row.id:
                    previous.status, previous.table_name = DeckStatus.READY.value, None
                    session.add(previous)
            row.status, row.table_name = DeckStatus.ACTIVE.value, table
            session.add(row)
            session.commit()
            return _info(row)

    def retire(self, name: str) -> DeckInfo:
        """Take a deck out of service for good (it stays in the database)."""
        with write_session(self.engine) as session:
            row = self._row(session, name)
            row.status, row.table_name = DeckStatus.RETIRED.value, None
            session.add(row)
            session.commit()
            return _info(row)
