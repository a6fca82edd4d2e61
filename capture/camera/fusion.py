"""Fusion of camera and RFID reads of the same zone.

A table may read a zone (a seat or the board) with RFID antennas, with a camera, or with both.
:class:`CardFusion` sits between the two kinds of capture and the service: every capture event
goes through it, from :meth:`CardFusion.rfid` or :meth:`CardFusion.camera`, and it returns the
events the service should act on. Pure and deterministic: no I/O, no clock.

- A zone only one kind of capture covers passes that capture's events through unchanged (a
  camera-only table, or a seat without a camera).
- In a zone both cover, the *fusion policy* decides which cards are reported:

  ``rfid`` (the default)
      RFID's reads are reported as they come; the camera is a check.
  ``camera``
      the camera's reads are reported; RFID is the check.
  ``agree``
      a card is reported only while both read the same card; it is taken back
      (:class:`CardRemoved`) as soon as they no longer do.

- Agreement raises confidence: a read both sources agree on is reported with the combined
  confidence ``1 - (1 - a) * (1 - b)`` (independent errors), at least the higher of the two.
  When the check source agrees after the fact, the reported read is repeated with the higher
  confidence (the service treats a repeated read as the same cards).
- Fallback (on by default): where the source the policy reports from is down
  (:meth:`CardFusion.set_down`: an RFID reader or a camera offline) and the other is not, the
  other reports the zone meanwhile; the reported cards switch over at once, and back when
  the source returns. Policy ``agree`` never falls back.
- Disagreement alerts the operator: a :class:`CaptureFault` of kind
  ``CAMERA_RFID_DISAGREE`` naming the zone (and, for the secret log, both readings; its
  ``detail`` names no card, as alerts are public). One fault per distinct disagreement.

Zones are compared by *slot*: a seat's pair (as a set), the flop (positions 1-3, as a set:
RFID numbers flop cards by arrival, a camera from left to right), the turn (4) and the river
(5). A slot is compared only once both sources have read all of it.

Never a card that neither source saw: every card reported in a zone was read there by one of
the sources; with policy ``rfid`` the RFID cards are the ones reported while RFID reads
(tests/capture/camera/test_fusion.py checks these and the other policies with hypothesis).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypeAlias

from engine.capture_events import (
    BOARD,
    BoardCardRead,
    CaptureEvent,
    CaptureFault,
    CardRemoved,
    FaultKind,
    HoleCardsRead,
    Zone,
    ZoneKind,
)
from engine.cards import Card
from engine.errors import ConfigError


class FusionPolicy(StrEnum):
    """Which source's cards are reported where both read a zone (the wire/config values)."""

    RFID = "rfid"
    CAMERA = "camera"
    AGREE = "agree"

    def __repr__(self) -> str:
        return f"FusionPolicy.{self.name}"

    @classmethod
    def parse(cls, text: str, key: str = "fusion") -> FusionPolicy:
        """:raises ConfigError: naming ``key`` for anything but rfid, camera or agree."""
        try:
            return cls(text)
        except ValueError:
            raise ConfigError(key, f"{text!r} is not a fusion policy (use rfid, camera or "
                                   "agree)") from None


class Source(StrEnum):
    RFID = "rfid"
    CAMERA = "camera"

    def __repr__(self) -> str:
        return f"Source.{self.name}"


Slot: TypeAlias = tuple[str, int]
"""``("seat", n)``, ``("flop", 0)``, ``("turn", 0)`` or ``("river", 0)``."""

_BOARD_SLOTS: Mapping[str, tuple[int, ...]] = {"flop": (1, 2, 3), "turn": (4,), "river": (5,)}


def board_slot(position: int) -> Slot:
    """The board slot of a board position (1-3 flop, 4 turn, 5 river)."""
    if position <= 3:
        return ("flop", 0)
    return ("turn", 0) if position == 4 else ("river", 0)


def combined_confidence(a: float, b: float) -> float:
    """Two independent reads that agree: ``1 - (1 - a)(1 - b)``, clamped to [0, 1].

    >>> combined_confidence(0.9, 0.8)
    0.98
    """
    a, b = min(max(a, 0.0), 1.0), min(max(b, 0.0), 1.0)
    return round(1.0 - (1.0 - a) * (1.0 - b), 6)


@dataclass(slots=True)
class _Reads:
    """What one source (or the fused output) says lies in the fused zones: its last read of
    each seat and board position."""

    seats: dict[int, HoleCardsRead] = field(default_factory=dict)
    board: dict[int, BoardCardRead] = field(default_factory=dict)

    def apply(self, event: CaptureEvent) -> None:
        if isinstance(event, HoleCardsRead):
            self.seats[event.seat] = event
        elif isinstance(event, BoardCardRead):
            self._drop_board(event.card)  # a card lies in one place
            self.board[event.position] = event
        elif isinstance(event, CardRemoved):
            if event.zone.kind is ZoneKind.SEAT:
                held = self.seats.get(event.zone.seat)
                if held is not None and event.card in held.cards:
                    del self.seats[event.zone.seat]
            elif event.zone.kind is ZoneKind.BOARD:
                self._drop_board(event.card)

    def _drop_board(self, card: Card) -> None:
        for position, read in list(self.board.items()):
            if read.card == card:
                del self.board[position]

    def reads(self, slot: Slot) -> list[HoleCardsRead | BoardCardRead] | None:
        """The reads that make up the slot, ``None`` unless it is completely read."""
        kind, seat = slot
        if kind == "seat":
            held = self.seats.get(seat)
            return None if held is None else [held]
        board = [self.board.get(position) for position in _BOARD_SLOTS[kind]]
        present: list[HoleCardsRead | BoardCardRead] = [r for r in board if r is not None]
        return present if len(present) == len(board) else None

    def slot(self, slot: Slot) -> tuple[frozenset[Card], float] | None:
        """The slot's cards and their lowest confidence; ``None`` unless completely read."""
        reads = self.reads(slot)
        if reads is None:
            return None
        cards = frozenset(card for read in reads for card in _cards(read))
        return cards, min(read.confidence for read in reads)


def _cards(read: HoleCardsRead | BoardCardRead) -> tuple[Card, ...]:
    return read.cards if isinstance(read, HoleCardsRead) else (read.card,)


def _zone_of(event: CaptureEvent) -> Zone | None:
    if isinstance(event, HoleCardsRead):
        return Zone.at_seat(event.seat)
    if isinstance(event, BoardCardRead):
        return BOARD
    if isinstance(event, CardRemoved) and event.zone.kind in (ZoneKind.SEAT, ZoneKind.BOARD):
        return event.zone
    return None


def _zone_slots(zone: Zone) -> list[Slot]:
    return [("seat", zone.seat)] if zone.kind is ZoneKind.SEAT else [
        ("flop", 0), ("turn", 0), ("river", 0)]


def _slot_zone(slot: Slot) -> Zone:
    return Zone.at_seat(slot[1]) if slot[0] == "seat" else BOARD


class CardFusion:
    """Camera and RFID events in, the events to act on out (see the module docstring).

    ``rfid_zones``: the zones RFID antennas cover (from the antenna map); ``camera_zones``:
    zone -> the name of the camera that reads it (a zone has at most one camera).
    """

    def __init__(self, *, rfid_zones: Iterable[Zone], camera_zones: Mapping[Zone, str],
                 policy: FusionPolicy = FusionPolicy.RFID, fallback: bool = True) -> None:
        self.policy = policy
        self.fallback = fallback
        """Where the source the policy reports from is down (:meth:`set_down`) and the other
        is not, the other reports meanwhile (policies ``rfid`` and ``camera``)."""
        self.rfid_zones = frozenset(rfid_zones)
        self.camera_zones = dict(camera_zones)
        self.both = frozenset(z for z in self.camera_zones if z in self.rfid_zones
                              and z.kind in (ZoneKind.SEAT, ZoneKind.BOARD))
        """Zones both kinds of capture read: the ones fused."""
        self._reads = {Source.RFID: _Reads(), Source.CAMERA: _Reads()}
        self._out = _Reads()
        self._alerted: dict[Slot, tuple[frozenset[Card], frozenset[Card]]] = {}
        self.disagreements = 0
        """Disagreement faults raised so far (the operator view shows it per camera)."""
        self._down: dict[Source, set[Zone]] = {Source.RFID: set(), Source.CAMERA: set()}

    def fused(self, zone: Zone) -> bool:
        return zone in self.both

    def rfid(self, event: CaptureEvent) -> list[CaptureEvent]:
        """An RFID event; returns the events to act on."""
        return self._feed(Source.RFID, event)

    def camera(self, event: CaptureEvent) -> list[CaptureEvent]:
        """A camera event; returns the events to act on."""
        return self._feed(Source.CAMERA, event)

    def set_down(self, source: Source, zones: Iterable[Zone], down: bool,
                 t: float) -> list[CaptureEvent]:
        """``source`` stopped (``down``) or resumed reading ``zones`` (a reader or a camera
        went offline or came back). Where that changes which source reports a zone (see
        :attr:`fallback`), returns the events that bring the reported cards in line with
        the source that reports now."""
        fused = [zone for zone in zones if zone in self.both]
        before = {zone: self.reporting(zone) for zone in fused}
        for zone in fused:
            if down:
                self._down[source].add(zone)
            else:
                self._down[source].discard(zone)
        out: list[CaptureEvent] = []
        for zone in fused:
            now = self.reporting(zone)
            if now is not None and now is not before[zone]:
                out.extend(self._resync(zone, now, t))
        return out

    def reporting(self, zone: Zone) -> Source | None:
        """The source whose cards are reported in a fused zone now (``None``: policy
        ``agree``, both must read alike)."""
        if self.policy is FusionPolicy.AGREE:
            return None
        chosen, other = ((Source.RFID, Source.CAMERA) if self.policy is FusionPolicy.RFID
                         else (Source.CAMERA, Source.RFID))
        if self.fallback and zone in self._down[chosen] and zone not in self._down[other]:
            return other
        return chosen

    # -- the fusion -----------------------------------------------------------------------

    def _resync(self, zone: Zone, source: Source, t: float) -> list[CaptureEvent]:
        """Make the reported cards of ``zone`` those ``source`` reads (it reports now)."""
        reads = self._reads[source]
        out: list[CaptureEvent] = []

        def emit(event: CaptureEvent) -> None:
            self._out.apply(event)
            out.append(event)

        if zone.kind is ZoneKind.SEAT:
            held, wanted = self._out.seats.get(zone.seat), reads.seats.get(zone.seat)
            if held is not None and (wanted is None or set(held.cards) != set(wanted.cards)):
                for card in held.cards:
                    emit(CardRemoved(zone, card, t, "fusion"))
            if wanted is not None and zone.seat not in self._out.seats:
                emit(dataclasses.replace(wanted, t=t))
        else:
            for position in range(1, 6):
                current, wanted_card = self._out.board.get(position), reads.board.get(position)
                if current is not None and (wanted_card is None
                                            or wanted_card.card != current.card):
                    emit(CardRemoved(BOARD, current.card, t, "fusion"))
            for position, read in sorted(reads.board.items()):
                current = self._out.board.get(position)
                if current is None or current.card != read.card:
                    emit(dataclasses.replace(read, t=t))
        for slot in _zone_slots(zone):
            for confirmation in self._confirmations(slot, source, t):
                emit(confirmation)
        return out

    def _feed(self, source: Source, event: CaptureEvent) -> list[CaptureEvent]:
        zone = _zone_of(event)
        if zone is None or zone not in self.both:
            return [event]  # not a fused zone: unchanged
        self._reads[source].apply(event)
        slots = _zone_slots(zone)  # a board read also leaves any other position
        out: list[CaptureEvent] = []

        def emit(events: Iterable[CaptureEvent]) -> None:
            for emitted in events:
                self._out.apply(emitted)
                out.append(emitted)

        primary = self.reporting(zone)
        if primary is None:
            for slot in slots:
                emit(self._agreed(slot, event.t))
        else:
            if source is primary:
                emit([self._boosted(event)])
            for slot in slots:
                emit(self._confirmations(slot, primary, event.t))
        for slot in slots:
            fault = self._check(slot, event)
            if fault is not None:
                out.append(fault)
        return out

    def _agreement(self, slot: Slot) -> float | None:
        """The combined confidence when both sources read the slot alike, else ``None``."""
        rfid = self._reads[Source.RFID].slot(slot)
        camera = self._reads[Source.CAMERA].slot(slot)
        if rfid is None or camera is None or rfid[0] != camera[0]:
            return None
        return combined_confidence(rfid[1], camera[1])

    def _boosted(self, event: CaptureEvent) -> CaptureEvent:
        """The primary source's event, with the combined confidence if the check agrees."""
        if isinstance(event, HoleCardsRead | BoardCardRead):
            slot = (("seat", event.seat) if isinstance(event, HoleCardsRead)
                    else board_slot(event.position))
            confidence = self._agreement(slot)
            if confidence is not None and confidence > event.confidence:
                return dataclasses.replace(event, confidence=confidence)
        return event

    def _confirmations(self, slot: Slot, primary: Source, t: float) -> list[CaptureEvent]:
        """The check source agrees now: repeat the primary's reads of the slot with the
        combined confidence (only where that raises what was reported)."""
        confidence = self._agreement(slot)
        if confidence is None:
            return []
        return [read for read in self._reads_of(primary, slot, t, confidence)
                if self._raises(read)]

    def _reads_of(self, source: Source, slot: Slot, t: float,
                  confidence: float) -> list[CaptureEvent]:
        """``source``'s reads of the slot, at time ``t``, carrying ``confidence``."""
        reads = self._reads[source].reads(slot) or []
        return [dataclasses.replace(read, t=t, confidence=confidence) for read in reads]

    def _reported(self, read: CaptureEvent) -> bool:
        """The fused output holds exactly this read's cards in this place."""
        if isinstance(read, HoleCardsRead):
            held = self._out.seats.get(read.seat)
            return held is not None and set(held.cards) == set(read.cards)
        if isinstance(read, BoardCardRead):
            current = self._out.board.get(read.position)
            return current is not None and current.card == read.card
        return False

    def _raises(self, read: CaptureEvent) -> bool:
        """The read carries a higher confidence than what the output holds for it."""
        if isinstance(read, HoleCardsRead):
            held = self._out.seats.get(read.seat)
            return held is None or held.confidence < read.confidence
        if isinstance(read, BoardCardRead):
            current = self._out.board.get(read.position)
            return current is None or current.confidence < read.confidence
        return False

    def _agreed(self, slot: Slot, t: float) -> list[CaptureEvent]:
        """Policy ``agree``: report the slot while both read it alike (in RFID's board
        positions), take it back as soon as they do not."""
        confidence = self._agreement(slot)
        if confidence is None:
            return self._retract(slot, t)
        wanted = self._reads_of(Source.RFID, slot, t, confidence)
        if all(self._reported(read) for read in wanted):
            return [read for read in wanted if self._raises(read)]
        return [*self._retract(slot, t), *wanted]

    def _retract(self, slot: Slot, t: float) -> list[CaptureEvent]:
        """:class:`CardRemoved` for what the fused output holds in the slot."""
        kind, seat = slot
        if kind == "seat":
            held = self._out.seats.get(seat)
            return [] if held is None else [CardRemoved(Zone.at_seat(seat), card, t,
                                                        "fusion") for card in held.cards]
        return [CardRemoved(BOARD, read.card, t, "fusion")
                for position in _BOARD_SLOTS[kind]
                if (read := self._out.board.get(position)) is not None]

    def _check(self, slot: Slot, event: CaptureEvent) -> CaptureFault | None:
        """A fault for a new disagreement in the slot (one per distinct disagreement)."""
        rfid = self._reads[Source.RFID].slot(slot)
        camera = self._reads[Source.CAMERA].slot(slot)
        if rfid is None or camera is None or rfid[0] == camera[0]:
            self._alerted.pop(slot, None)
            return None
        signature = (rfid[0], camera[0])
        if self._alerted.get(slot) == signature:
            return None
        self._alerted[slot] = signature
        self.disagreements += 1
        zone = _slot_zone(slot)
        camera_name = self.camera_zones.get(zone, "camera")
        where = f"seat {slot[1]}" if slot[0] == "seat" else f"the {slot[0]}"
        outcome = {FusionPolicy.RFID: "RFID's cards are used (fusion policy rfid)",
                   FusionPolicy.CAMERA: "the camera's cards are used (fusion policy camera)",
                   FusionPolicy.AGREE: "neither is shown until they agree (fusion policy "
                                       "agree)"}[self.policy]
        return CaptureFault(
            FaultKind.CAMERA_RFID_DISAGREE, camera_name,
            f"{where}: camera {camera_name!r} and RFID read different cards; {outcome}; "
            "check the cards and the camera's region", event.t, camera_name, (zone,),
            tuple(sorted(rfid[0])) + tuple(sorted(camera[0])))

    def disagreeing(self) -> list[Slot]:
        """The slots where the two sources currently read different cards."""
        return sorted(self._alerted)
