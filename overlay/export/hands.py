"""The table log read back hand by hand: :class:`HandRecord`, :func:`read_hands`.

Every exporter (hand histories, video, clip lists) starts here. :func:`read_hands` streams a
table's log entries (e.g. :meth:`overlay.store.EventStore.iter_all`) and yields one
:class:`HandRecord` per hand, holding only the hand being read (never the whole log):

* a hand is its ``hand_started`` entry, every entry up to its last hand event, and the
  eliminations it caused (R22); capture records, device reports, clock calls and level
  changes logged *during* the hand are among its entries (full information, in order),
  except what no output may ever carry: burn cards (R19, secrecy ``never``);
* the engine hand is :meth:`engine.hand.Hand.replay` of the hand's events, so undone actions
  are gone (:attr:`~engine.hand.Hand.effective_events`) exactly as on the live table, burn cards
  are never part of it (R19), and a misdeal leaves a void hand (R13: :attr:`HandRecord.is_void`,
  skipped by the hand-history writers);
* ``started_at`` / ``ended_at`` are the wall-clock times of the hand's first and last entry (the
  log envelope's ``time``): what a video export syncs on;
* the tournament context (issue 10): the players' identities (display name, country) as known
  by the hand's last entry (:attr:`HandRecord.identities`), the places and prizes logged right
  after the hand for the players it busted (``prize_awarded``, R22, R23:
  :attr:`HandRecord.busts`, :attr:`HandRecord.winner`), and what the configuration says of the
  tournament (:class:`TournamentInfo`: name, currency, prize pool, entrants);
* the operator's tags (``hand_tagged``: :attr:`HandRecord.tags`), logged while the hand ran
  or after it, before the next one started.

>>> sorted(parse_hand_range("12-14, 20"))
[12, 13, 14, 20]
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from engine.errors import FeltcastError, InvalidInputError
from engine.events import (
    ActionTaken,
    ActionUndone,
    AntePosted,
    BetReturned,
    BetsCollected,
    BlindPosted,
    BoardDealt,
    CardBurned,
    Event,
    HandEnded,
    HandMucked,
    HandShown,
    HandStarted,
    HandVoided,
    HoleCardsDealt,
    PlayerEliminated,
    PlayerRestricted,
    PotAwarded,
    Secrecy,
    Street,
    StreetStarted,
)
from engine.hand import Hand
from engine.identity import Identity, PlayerIdentified
from engine.log import TableEvent
from engine.production_events import HandTagged
from engine.table_events import ButtonSet, LevelStarted, PlayerSeated, SeatEmptied
from engine.table_replay import ReplayMismatchError
from engine.tournament_events import PlayerDisqualified, PrizeAwarded

if TYPE_CHECKING:
    from overlay.config import Config

__all__ = [
    "DEFAULT_TABLE",
    "Bust",
    "HandRecord",
    "TournamentInfo",
    "iso_utc",
    "parse_hand_range",
    "read_hands",
    "unix_seconds",
]

DEFAULT_TABLE = "Final Table"
"""The table name when none is given (the configuration's default ``[table] name``)."""

#: The events of a running hand (everything :class:`engine.hand.Hand` applies or records).
HAND_EVENTS: tuple[type[Event], ...] = (
    ActionTaken, ActionUndone, AntePosted, BetReturned, BetsCollected, BlindPosted,
    BoardDealt, CardBurned, HandEnded, HandMucked, HandShown, HandVoided, HoleCardsDealt,
    PlayerRestricted, PotAwarded, StreetStarted,
)

#: Table events that only happen between hands: one of them closes the hand before it.
BETWEEN_HANDS: tuple[type[Event], ...] = (ButtonSet, PlayerSeated, SeatEmptied)

MAX_RANGE = 100_000
"""The most hands one ``--hands`` range may name (a typo like ``1-1000000000`` is refused)."""


def iso_utc(seconds: float) -> str:
    """Unix seconds as ISO 8601 UTC with milliseconds: ``2026-11-30T14:03:22.125Z``."""
    moment = datetime.fromtimestamp(seconds, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class TournamentInfo:
    """What the configuration's ``[tournament]`` says (the log does not hold it): the
    tournament's name (empty: none given), the prize pool's currency (ISO 4217, empty: none),
    the prize pool in whole currency units (0: none) and the number of entrants (0: unknown).

    >>> TournamentInfo("Main Event", "EUR", 100_000).money(1200)
    '€1,200.00'
    """

    name: str = ""
    currency: str = ""
    prize_pool: int = 0
    entrants: int = 0

    @classmethod
    def from_config(cls, config: Config) -> TournamentInfo:
        section = config.tournament
        return cls(name=section.name, currency=section.currency,
                   prize_pool=section.prize_pool,
                   entrants=section.entrants or len(config.players))

    def money(self, amount: int) -> str:
        """A prize as PokerStars writes money: ``$1,200.00``, ``€1,200.00``, ``£1,200.00``,
        another currency after the amount (``1,200.00 CHF``), none without a currency."""
        number = f"{amount:,.2f}"
        symbol = _SYMBOLS.get(self.currency)
        if symbol is not None:
            return f"{symbol}{number}"
        return f"{number} {self.currency}" if self.currency else number


_SYMBOLS = {"USD": "$", "EUR": "\u20ac", "GBP": "\u00a3"}


@dataclass(frozen=True, slots=True)
class Bust:
    """A player the hand busted (R22) with his finishing place and prize (R23) as logged right
    after the hand; ``prize`` is None when the log holds no ``prize_awarded`` for him (a log
    written before prizes were logged), 0 when he finished outside the money."""

    seat: int
    name: str
    place: int
    prize: int | None = None


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One hand of the log: its entries, the engine hand replayed to its end, and the facts
    every hand-history format writes (per position, clockwise from the seat left of the
    button, like :class:`engine.events.HandStarted`)."""

    number: int
    """The table's hand number (:attr:`HandStarted.hand_number`)."""
    table: str
    started_at: float
    """Wall-clock Unix seconds of the hand's first log entry (its ``hand_started``)."""
    ended_at: float
    """Wall-clock Unix seconds of the hand's last log entry."""
    entries: tuple[TableEvent, ...]
    hand: Hand
    seats: tuple[int, ...]
    names: tuple[str, ...]
    starting_stacks: tuple[int, ...]
    blinds: tuple[int, ...]
    """Blind obligations per position (R2-R4)."""
    antes: tuple[int, ...]
    """Ante obligations per position (R4)."""
    small_blind: int
    """The level's small blind (posted or not: a dead small blind posts nothing, R2)."""
    big_blind: int
    ante: int
    """The level's ante (0: none); who pays it follows the table's ante mode (R4)."""
    button: int | None
    """The button's seat; it may be an empty seat (dead button, R2)."""
    level: int
    """The blind level (R21); 0 when the hand was not started by a tournament table."""
    absent: tuple[int, ...] = ()
    """Seats marked absent (R11): dealt in, folded when the action reaches them."""
    identities: tuple[Identity | None, ...] = ()
    """Per position: the player's identity (``player_identified``) as known by the hand's
    last entry; None: none given (empty: not read from a log)."""
    prizes: tuple[PrizeAwarded, ...] = ()
    """The ``prize_awarded`` entries logged right after the hand for the places it decided
    (its busts, and the winner when it left one player)."""
    tournament: TournamentInfo = field(default_factory=TournamentInfo)
    tags: tuple[str, ...] = ()
    """The operator's notes for the editors (``tag_hand``), oldest first; an empty note is
    a tag without words."""

    @property
    def started(self) -> HandStarted:
        started = self.hand.started
        assert started is not None
        return started

    @property
    def is_void(self) -> bool:
        """R13: a misdeal voided the hand (stacks as before it, nothing to export)."""
        return self.hand.street is Street.VOID

    @property
    def is_complete(self) -> bool:
        """True when the hand was played to its end (not void, not still running)."""
        return self.hand.is_over and not self.is_void

    @property
    def void_reason(self) -> str:
        """Why the hand was voided (``""`` unless :attr:`is_void`)."""
        voids = [e for e in self.hand.effective_events if isinstance(e, HandVoided)]
        return f"{voids[-1].reason}, {voids[-1].rule}" if voids else ""

    @property
    def finishing_stacks(self) -> tuple[int, ...]:
        """Chips per position after the hand (its starting stacks when void)."""
        return self.hand.stacks

    @property
    def eliminations(self) -> tuple[PlayerEliminated, ...]:
        """Players this hand busted, as logged (R22)."""
        return tuple(e.payload for e in self.entries if isinstance(e.payload, PlayerEliminated))

    @property
    def busts(self) -> tuple[Bust, ...]:
        """The players this hand busted, worst place first (R22), with the places and prizes
        logged for them (a later disqualification above them is not counted here)."""
        awards = {p.name: p for p in self.prizes}
        out = []
        for event in self.eliminations:
            award = awards.get(event.name)
            out.append(Bust(event.seat, event.name, award.place if award else event.place,
                            award.prize if award else None))
        return tuple(sorted(out, key=lambda b: -b.place))

    @property
    def winner(self) -> PrizeAwarded | None:
        """The tournament's winner and his prize, when this hand left one player."""
        return next((p for p in self.prizes if p.place == 1), None)

    def identity(self, seat: int) -> Identity | None:
        """The identity of the player in ``seat`` at this hand, if one was given (None also
        for a seat not dealt in)."""
        if not self.identities or seat not in self.seats:
            return None
        return self.identities[self.seats.index(seat)]

    @property
    def display_names(self) -> tuple[str, ...]:
        """Per position: the display name, else the player's name (as the graphics show)."""
        return tuple(i.display_name if i is not None else name
                     for i, name in zip(self._identities(), self.names, strict=True))

    @property
    def countries(self) -> tuple[str | None, ...]:
        """Per position: the player's ISO 3166-1 country code, None when not known."""
        return tuple(i.country if i is not None else None for i in self._identities())

    def _identities(self) -> tuple[Identity | None, ...]:
        return self.identities or (None,) * len(self.seats)

    @property
    def first_seq(self) -> int:
        return self.entries[0].seq

    @property
    def last_seq(self) -> int:
        return self.entries[-1].seq

    @property
    def duration(self) -> float:
        return self.ended_at - self.started_at

    def name_of(self, seat: int) -> str:
        return self.names[self.seats.index(seat)]

    def describe(self) -> str:
        """``hand 12 (seats 1, 4, 7; 14:03:22-14:05:10 UTC)``: for progress lines and notes."""
        start = datetime.fromtimestamp(self.started_at, UTC).strftime("%H:%M:%S")
        end = datetime.fromtimestamp(self.ended_at, UTC).strftime("%H:%M:%S")
        return f"hand {self.number} ({len(self.seats)} players, {start}-{end} UTC)"


class _Reader:
    """The state of :func:`read_hands` between two hands."""

    def __init__(self, numbers: Collection[int] | None, table: str,
                 tournament: TournamentInfo) -> None:
        self.numbers = numbers
        self.table = table
        self.tournament = tournament
        self.levels: dict[int, LevelStarted] = {}
        self.entries: list[TableEvent] = []  # the current hand's, up to its last hand event
        self.events: list[Event] = []
        self.pending: list[TableEvent] = []  # entries after its last hand event so far
        self.started: HandStarted | None = None
        self.identified: dict[int, PlayerIdentified] = {}
        """Each seat's identity now (dropped when the player leaves, as the service does)."""
        self.at_start: dict[int, PlayerIdentified] = {}  # the identities at the hand's start
        self.after_busts = False  # the last entry taken was an elimination or a prize
        self.tags: list[str] = []  # the current hand's
        self.held: HandRecord | None = None
        """A hand closed between hands, given out when the next starts: tags may follow."""

    def feed(self, entry: TableEvent) -> HandRecord | None:
        """Take one entry; returns the hand it closed, if any (and if selected)."""
        payload = entry.payload
        done: HandRecord | None = None
        after_busts, self.after_busts = self.after_busts, False
        if isinstance(payload, HandStarted):
            done = self.close()
            self.started, self.tags = payload, []
            self.entries, self.events = [entry], [payload]
            self.at_start = dict(self.identified)
        elif isinstance(payload, HAND_EVENTS) and self.started is not None:
            assert isinstance(payload, Event)
            self.events.append(payload)
            if entry.secrecy is not Secrecy.NEVER:  # R19: burn cards leave in no export
                self.entries.extend(self.pending)
                self.pending = []
                self.entries.append(entry)
        elif (isinstance(payload, PlayerEliminated) and self.started is not None
              and payload.hand_number == self.started.hand_number):
            self.entries.extend(self.pending)
            self.pending = []
            self.entries.append(entry)
            self.after_busts = True
        elif (isinstance(payload, PrizeAwarded) and self.started is not None and after_busts
              and payload.hand_number in (self.started.hand_number, 0)):
            self.entries.append(entry)  # R23: the places the hand decided (0: the winner)
            self.after_busts = True
        elif isinstance(payload, BETWEEN_HANDS):
            self.held = self.close() or self.held
        elif self.started is not None and entry.secrecy is not Secrecy.NEVER:
            self.pending.append(entry)
        if isinstance(payload, HandTagged):
            held = self.held
            if self.started is not None and payload.hand_number == self.started.hand_number:
                self.tags.append(payload.note)
            elif held is not None and payload.hand_number == held.number:
                self.held = replace(held, tags=(*held.tags, payload.note))
        if isinstance(payload, LevelStarted):
            self.levels[payload.number] = payload
        elif isinstance(payload, PlayerIdentified):
            self.identified[payload.seat] = payload
        elif isinstance(payload, SeatEmptied | PlayerEliminated | PlayerDisqualified):
            self.identified.pop(payload.seat, None)  # he takes his identity with him
        return done

    def close(self) -> HandRecord | None:
        """The current hand as a record, else the one held (None when none, or not
        selected)."""
        held, self.held = self.held, None
        if self.started is None:
            return held
        started, entries, events = self.started, self.entries, self.events
        self.started, self.entries, self.events, self.pending = None, [], [], []
        if started is None or (self.numbers is not None
                               and started.hand_number not in self.numbers):
            return None
        try:
            hand = Hand.replay(events)
        except (FeltcastError, LookupError, ValueError) as error:  # a log not of this engine
            raise ReplayMismatchError(
                f"hand {started.hand_number} (log entries {entries[0].seq}-{entries[-1].seq}) "
                f"does not replay: {error!r}") from None
        level = self.levels.get(started.level)
        small = (level.small_blind if level is not None and not started.small_blind
                 else started.level_small_blind())
        ante = level.ante if level is not None else max(started.antes, default=0)
        known = dict(self.at_start)
        known.update((e.payload.seat, e.payload) for e in entries
                     if isinstance(e.payload, PlayerIdentified))  # set during the hand
        identities = tuple(Identity.of(known[seat]) if seat in known else None
                           for seat in started.seats)
        prizes = tuple(e.payload for e in entries if isinstance(e.payload, PrizeAwarded))
        return HandRecord(
            number=started.hand_number, table=self.table, started_at=entries[0].time,
            ended_at=entries[-1].time, entries=tuple(entries), hand=hand, seats=started.seats,
            names=started.names, starting_stacks=started.stacks, blinds=started.blinds,
            antes=started.antes, small_blind=small, big_blind=started.big_blind, ante=ante,
            button=started.button, level=started.level, absent=started.absent,
            identities=identities, prizes=prizes, tournament=self.tournament,
            tags=tuple(self.tags))


def read_hands(entries: Iterable[TableEvent], *, numbers: Collection[int] | None = None,
               table: str = DEFAULT_TABLE,
               tournament: TournamentInfo | None = None) -> Iterator[HandRecord]:
    """The hands of a table log, in log order, one :class:`HandRecord` each.

    ``numbers`` selects hands by number (only those are replayed); void hands (R13) and a hand
    still running at the end of the log are yielded too (see :attr:`HandRecord.is_void`,
    :attr:`HandRecord.is_complete`). Streams: memory holds one hand, never the log.
    ``tournament`` is the configuration's ``[tournament]`` (:meth:`TournamentInfo.from_config`),
    given to every record.

    :raises ReplayMismatchError: a hand whose events the engine does not accept.
    """
    reader = _Reader(numbers, table, tournament or TournamentInfo())
    for entry in entries:
        done = reader.feed(entry)
        if done is not None:
            yield done
    last = reader.close()
    if last is not None:
        yield last


_RANGE_ITEM = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


def parse_hand_range(text: str) -> frozenset[int]:
    """Hand numbers from ``"12-40,45"`` (ranges inclusive, commas between items).

    :raises InvalidInputError: text that is not such a list (the message shows the form).
    """
    numbers: set[int] = set()
    if not text.strip():
        raise InvalidInputError("no hands given: write hand numbers like 12-40,45")
    for item in text.split(","):
        match = _RANGE_ITEM.match(item)
        if match is None:
            raise InvalidInputError(f"{item.strip()!r} is not a hand number or a range: "
                                    f"write hand numbers like 12-40,45")
        first = int(match.group(1))
        last = int(match.group(2)) if match.group(2) is not None else first
        if first < 1:
            raise InvalidInputError("hands are numbered from 1")
        if last < first:
            raise InvalidInputError(f"the range {first}-{last} runs backwards: "
                                    f"write {last}-{first}")
        if last - first + 1 + len(numbers) > MAX_RANGE:
            raise InvalidInputError(f"{text!r} names more than {MAX_RANGE:,} hands")
        numbers.update(range(first, last + 1))
    return frozenset(numbers)


def unix_seconds(seconds: float) -> float:
    """Unix seconds rounded to milliseconds (what the exports write next to ISO times)."""
    if not math.isfinite(seconds):
        raise InvalidInputError(f"not a time: {seconds!r}")
    return round(seconds, 3)
