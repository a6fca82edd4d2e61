"""Capture events: what the table's hardware saw, as values the engine consumes.

Capture (``capture/``) turns RFID reads and camera frames into these events; the engine turns
them into hand state. They are pure, frozen values with a JSON round trip
(:meth:`to_dict` / :func:`event_from_dict`) so that they can be logged, recorded and replayed.

Every event carries ``t``, the capture time in seconds on the monotonic clock of the capturing
process (never the wall clock), and ``source``, the name of the reader or camera.

Secrecy (R19): a card read on the burn/stub antenna never appears in any event. The only trace
of the burn zone is :class:`BurnSeen`, an anonymous count of tags lying there.

>>> event = HoleCardsRead(3, (Card("Ah"), Card("Kd")), t=12.5, source="table-a")
>>> event_from_dict(event.to_dict()) == event
True
>>> event.to_dict()["cards"]
['Ah', 'Kd']
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, TypeAlias

from engine.cards import Card
from engine.errors import InvalidInputError


class ZoneKind(StrEnum):
    """Where on the table an antenna lies. The values are the wire values."""

    SEAT = "seat"
    BOARD = "board"
    MUCK = "muck"
    BURN = "burn"

    def __repr__(self) -> str:
        return f"ZoneKind.{self.name}"


_ZONE = re.compile(r"\s*(seat)\s*(\d{1,2})\s*|\s*(board|muck|burn)\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True, order=True)
class Zone:
    """One area of the table: a seat (1-10), the board, the muck or the burn/stub pile.

    >>> Zone.parse("seat 3"), str(Zone.parse("Board"))
    (Zone.parse('seat3'), 'board')
    """

    kind: ZoneKind
    seat: int = 0
    """The seat number for a seat zone, 0 for the others."""

    def __post_init__(self) -> None:
        if self.kind is ZoneKind.SEAT:
            if not isinstance(self.seat, int) or not 1 <= self.seat <= 10:
                raise InvalidInputError(f"seat {self.seat!r} is not a seat number 1-10")
        elif self.seat != 0:
            raise InvalidInputError(f"the {self.kind} zone has no seat number")

    @classmethod
    def parse(cls, text: str) -> Zone:
        """``'seat3'``, ``'seat 3'``, ``'board'``, ``'muck'`` or ``'burn'``.

        :raises InvalidInputError: for anything else.
        """
        match = _ZONE.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise InvalidInputError(
                f"{text!r} is not a table zone (use seat1..seat10, board, muck or burn)")
        if match.group(1):
            return cls(ZoneKind.SEAT, int(match.group(2)))
        return cls(ZoneKind(match.group(3).lower()))

    @classmethod
    def at_seat(cls, seat: int) -> Zone:
        return cls(ZoneKind.SEAT, seat)

    def __str__(self) -> str:
        return f"seat{self.seat}" if self.kind is ZoneKind.SEAT else str(self.kind)

    def __repr__(self) -> str:
        return f"Zone.parse({str(self)!r})"


BOARD: Zone = Zone(ZoneKind.BOARD)
MUCK: Zone = Zone(ZoneKind.MUCK)
BURN: Zone = Zone(ZoneKind.BURN)


class FaultKind(StrEnum):
    """Everything capture can report to the operator. The values are the wire values."""

    READER_OFFLINE = "reader_offline"
    """A reader was unplugged or its connection failed; its zones are frozen."""
    READER_SILENT = "reader_silent"
    """A connected reader sent nothing for longer than the watchdog allows."""
    PROTOCOL_MISMATCH = "protocol_mismatch"
    """A reader speaks a protocol version Feltcast does not understand."""
    WRONG_READER = "wrong_reader"
    """A reader introduced itself with another name than configured (swapped cables?)."""
    MALFORMED_LINE = "malformed_line"
    """A line that is not valid protocol (counted and skipped)."""
    LINES_LOST = "lines_lost"
    """A gap in a reader's sequence numbers."""
    UNKNOWN_UID = "unknown_uid"
    """A tag that belongs to no active deck: an alert, never a card."""
    DUPLICATE_CARD = "duplicate_card"
    """The same card from two different tags: suspected misdeal (R13)."""
    CROSSTALK = "crosstalk"
    """One tag read on two antennas at once."""
    TOO_MANY_CARDS = "too_many_cards"
    """A third card at a seat, or a sixth board card: suspected misdeal (R13)."""
    CARD_AT_EMPTY_SEAT = "card_at_empty_seat"
    """A card at a seat nobody sits at: suspected misdeal (R13)."""
    UNMAPPED_ANTENNA = "unmapped_antenna"
    """Tags on an antenna the antenna map does not know."""
    CAMERA_RFID_DISAGREE = "camera_rfid_disagree"
    """A camera and the RFID read different cards in the same zone (``capture/camera/
    fusion.py``); the fusion policy decides which, if either, is used."""

    def __repr__(self) -> str:
        return f"FaultKind.{self.name}"


def _cards_to_json(cards: tuple[Card, ...]) -> list[str]:
    return [card.code for card in cards]


def _cards_from_json(value: Any) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise InvalidInputError(f"expected a list of cards, got {value!r}")
    return tuple(Card(code) for code in value)


def _check_confidence(value: float) -> None:
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not 0.0 <= value <= 1.0):
        raise InvalidInputError(f"a confidence is a number from 0 to 1, got {value!r}")


@dataclass(frozen=True, slots=True)
class _Event:
    """Common fields; not an event itself."""

    TYPE: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class HoleCardsRead(_Event):
    """Both hole cards of a seat are present (R13: exactly two)."""

    TYPE: ClassVar[str] = "hole_cards_read"
    seat: int
    cards: tuple[Card, Card]
    t: float
    source: str = ""
    confidence: float = 1.0
    """How sure capture is, 0-1: 1.0 for RFID; a camera's recognition score."""

    def __post_init__(self) -> None:
        Zone.at_seat(self.seat)
        if len(self.cards) != 2 or self.cards[0] is self.cards[1]:
            raise InvalidInputError(f"hole cards must be two distinct cards, got {self.cards!r}")
        _check_confidence(self.confidence)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.TYPE, "seat": self.seat, "cards": _cards_to_json(self.cards),
                "t": self.t, "source": self.source, "confidence": self.confidence}


@dataclass(frozen=True, slots=True)
class BoardCardRead(_Event):
    """A card arrived on the board; ``position`` 1-3 flop, 4 turn, 5 river."""

    TYPE: ClassVar[str] = "board_card_read"
    card: Card
    position: int
    t: float
    source: str = ""
    confidence: float = 1.0
    """How sure capture is, 0-1: 1.0 for RFID; a camera's recognition score."""

    def __post_init__(self) -> None:
        if not isinstance(self.position, int) or not 1 <= self.position <= 5:
            raise InvalidInputError(f"board position {self.position!r} is not 1-5")
        _check_confidence(self.confidence)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.TYPE, "card": self.card.code, "position": self.position,
                "t": self.t, "source": self.source, "confidence": self.confidence}


@dataclass(frozen=True, slots=True)
class CardMucked(_Event):
    """A card reached the muck: a dead card for equity (R20), secret until shown."""

    TYPE: ClassVar[str] = "card_mucked"
    card: Card
    t: float
    source: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.TYPE, "card": self.card.code, "t": self.t, "source": self.source}


@dataclass(frozen=True, slots=True)
class CardRemoved(_Event):
    """A card left a seat, the board or the muck (never the burn zone, R19)."""

    TYPE: ClassVar[str] = "card_removed"
    zone: Zone
    card: Card
    t: float
    source: str = ""

    def __post_init__(self) -> None:
        if self.zone.kind is ZoneKind.BURN:
            raise InvalidInputError("cards on the burn pile are never reported (R19)")

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.TYPE, "zone": str(self.zone), "card": self.card.code,
                "t": self.t, "source": self.source}


@dataclass(frozen=True, slots=True)
class BurnSeen(_Event):
    """The number of tags now on the burn/stub pile changed. No card, ever (R19)."""

    TYPE: ClassVar[str] = "burn_seen"
    count: int
    t: float
    source: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.TYPE, "count": self.count, "t": self.t, "source": self.source}


@dataclass(frozen=True, slots=True)
class ReaderOnline(_Event):
    """A reader connected and introduced itself."""

    TYPE: ClassVar[str] = "reader_online"
    reader: str
    firmware: str
    protocol: int
    antennas: int
    t: float
    source: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.TYPE, "reader": self.reader, "firmware": self.firmware,
                "protocol": self.protocol, "antennas": self.antennas, "t": self.t,
                "source": self.source}


@dataclass(frozen=True, slots=True)
class ReaderOffline(_Event):
    """A reader is gone (unplugged, connection lost or silent); its zones are frozen."""

    TYPE: ClassVar[str] = "reader_offline"
    reader: str
    reason: str
    t: float
    source: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.TYPE, "reader": self.reader, "reason": self.reason, "t": self.t,
                "source": self.source}


@dataclass(frozen=True, slots=True)
class CaptureFault(_Event):
    """Something the operator must see; capture carries on.

    ``cards`` and ``uid`` are never taken from the burn zone (R19); ``count`` is how many
    times this fault happened so far on this reader (for counted faults such as malformed lines).
    """

    TYPE: ClassVar[str] = "capture_fault"
    kind: FaultKind
    reader: str
    detail: str
    t: float
    source: str = ""
    zones: tuple[Zone, ...] = ()
    cards: tuple[Card, ...] = ()
    uid: str = ""
    count: int = 1
    misdeal: bool = field(default=False)
    """True when the fault suggests a misdeal the operator should confirm (R13)."""

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.TYPE, "kind": str(self.kind), "reader": self.reader,
                "detail": self.detail, "t": self.t, "source": self.source,
                "zones": [str(zone) for zone in self.zones],
                "cards": _cards_to_json(self.cards), "uid": self.uid, "count": self.count,
                "misdeal": self.misdeal}


CaptureEvent: TypeAlias = (HoleCardsRead | BoardCardRead | CardMucked | CardRemoved | BurnSeen
                           | ReaderOnline | ReaderOffline | CaptureFault)
"""Everything capture can tell the engine."""

EVENT_TYPES: Mapping[str, type[_Event]] = {
    cls.TYPE: cls for cls in (HoleCardsRead, BoardCardRead, CardMucked, CardRemoved, BurnSeen,
                              ReaderOnline, ReaderOffline, CaptureFault)
}


def _get(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    try:
        value = data[key]
    except KeyError:
        raise InvalidInputError(f"capture event {data.get('type')!r} lacks {key!r}") from None
    if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
        raise InvalidInputError(f"capture event field {key!r} has a bad value: {value!r}")
    return value


def _confidence(data: Mapping[str, Any]) -> float:
    """The optional ``confidence`` (1.0 when missing: logs written before it existed)."""
    if "confidence" not in data:
        return 1.0
    return float(_get(data, "confidence", (int, float)))


def event_from_dict(data: Mapping[str, Any]) -> CaptureEvent:
    """Rebuild an event from :meth:`to_dict` output (e.g. a recorded JSON line).

    :raises InvalidInputError: for an unknown type or a missing or bad field.
    """
    if not isinstance(data, Mapping):
        raise InvalidInputError(f"a capture event must be a JSON object, got {data!r}")
    kind = data.get("type")
    t = float(_get(data, "t", (int, float)))
    source = str(data.get("source", ""))
    if kind == HoleCardsRead.TYPE:
        cards = _cards_from_json(data.get("cards"))
        if len(cards) != 2:
            raise InvalidInputError(f"hole cards must be two cards, got {cards!r}")
        return HoleCardsRead(_get(data, "seat", int), (cards[0], cards[1]), t, source,
                             _confidence(data))
    if kind == BoardCardRead.TYPE:
        return BoardCardRead(Card(_get(data, "card", str)), _get(data, "position", int), t,
                             source, _confidence(data))
    if kind == CardMucked.TYPE:
        return CardMucked(Card(_get(data, "card", str)), t, source)
    if kind == CardRemoved.TYPE:
        return CardRemoved(Zone.parse(_get(data, "zone", str)), Card(_get(data, "card", str)),
                           t, source)
    if kind == BurnSeen.TYPE:
        return BurnSeen(_get(data, "count", int), t, source)
    if kind == ReaderOnline.TYPE:
        return ReaderOnline(_get(data, "reader", str), _get(data, "firmware", str),
                            _get(data, "protocol", int), _get(data, "antennas", int), t, source)
    if kind == ReaderOffline.TYPE:
        return ReaderOffline(_get(data, "reader", str), _get(data, "reason", str), t, source)
    if kind == CaptureFault.TYPE:
        try:
            fault = FaultKind(_get(data, "kind", str))
        except ValueError:
            raise InvalidInputError(f"unknown capture fault kind {data.get('kind')!r}") from None
        zones = tuple(Zone.parse(z) for z in _get(data, "zones", list))
        return CaptureFault(fault, _get(data, "reader", str), _get(data, "detail", str), t,
                            source, zones, _cards_from_json(data.get("cards", [])),
                            str(data.get("uid", "")), _get(data, "count", int),
                            _get(data, "misdeal", bool))
    raise InvalidInputError(f"unknown capture event type {kind!r}")
