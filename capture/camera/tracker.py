"""Card tracking: per-frame detections in, the same capture events as RFID out.

One :class:`CardTracker` per camera. Every frame, each region of the camera is searched
(:meth:`.recognizer.Recognizer.detect` on that rectangle only) and the cards read there are
debounced:

- a card is *confirmed* in a region once it was read there in ``confirm_frames`` (K) frames in
  a row; a frame where its outline is still there but unreadable (a hand over the index) does
  not break the run, nor does it count towards it;
- a confirmed card is *removed* once ``drop_frames`` (M) frames in a row show neither it nor an
  unreadable card where it lay;
- pure and deterministic: no clock, no I/O; ``t`` is the frame's capture time (monotonic
  seconds) and is copied into the events.

Events, by zone (see :mod:`engine.capture_events`), each with ``source`` = the camera's name
and ``confidence`` = the card's mean score over the frames that confirmed it:

- seat: :class:`HoleCardsRead` once exactly two cards are confirmed there (R13), the higher
  card first; :class:`CardRemoved` when a reported card goes; a third card is a
  :class:`CaptureFault` (``too_many_cards``, suspected misdeal, R13) and nothing is reported;
- board: :class:`BoardCardRead` with the position by left-to-right order in the image (1-3
  flop, 4 turn, 5 river); cards confirmed while others are still being confirmed wait for
  them (up to K frames), so a flop laid down at once gets its positions from one picture; a
  sixth card is a fault;
- muck: :class:`CardMucked` (a dead card for equity, R20), :class:`CardRemoved`.

A card read in two zones at once is a :class:`CaptureFault` (``duplicate_card``, R13) and is
reported in neither until one of them lets it go.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

from engine.capture_events import (
    BOARD,
    BoardCardRead,
    CaptureEvent,
    CaptureFault,
    CardMucked,
    CardRemoved,
    FaultKind,
    HoleCardsRead,
    Zone,
    ZoneKind,
)
from engine.cards import Card

from .geometry import Image, quad_iou
from .recognizer import Detection, Recognizer, detection_quad
from .source import CameraConfig, Region


@dataclass(slots=True)
class _Candidate:
    """A card read in a region: how many frames in a row, where, how surely."""

    streak: int = 0
    missing: int = 0
    scores: list[float] = field(default_factory=list)
    x: float = 0.0
    detection: Detection | None = None
    confirmed: bool = False
    waited: int = 0

    @property
    def confidence(self) -> float:
        recent = self.scores[-8:]
        return round(sum(recent) / len(recent), 3) if recent else 0.0


@dataclass(slots=True)
class _RegionState:
    region: Region
    cards: dict[Card, _Candidate] = field(default_factory=dict)
    reported: dict[Card, int] = field(default_factory=dict)
    """Cards the events have announced: card -> board position (0 elsewhere)."""


class CardTracker:
    """Debounces one camera's detections into capture events (see the module docs)."""

    def __init__(self, config: CameraConfig, recognizer: Recognizer) -> None:
        self.config = config
        self.recognizer = recognizer
        regions = config.regions or (Region(BOARD, (0, 0, 1 << 20, 1 << 20)),)
        self._states = [_RegionState(region) for region in regions]
        self._faults: dict[Hashable, CaptureFault] = {}
        self.frames = 0

    def cards_in(self, region: Region) -> frozenset[Card]:
        """The cards reported in ``region`` now."""
        for state in self._states:
            if state.region == region:
                return frozenset(state.reported)
        return frozenset()

    def update(self, frame: Image, t: float) -> list[CaptureEvent]:
        """Look at one frame taken at ``t``; the events it causes, removals first."""
        self.frames += 1
        removals: list[CaptureEvent] = []
        arrivals: list[CaptureEvent] = []
        faults: dict[Hashable, CaptureFault] = {}
        height, width = frame.shape[:2]
        for state in self._states:
            x, y, w, h = state.region.rect
            roi = (x, y, min(w, width - x), min(h, height - y))
            self._observe(state, self.recognizer.detect(frame, roi))
        owners: dict[Card, list[_RegionState]] = {}
        for state in self._states:
            for card, candidate in state.cards.items():
                if candidate.confirmed:
                    owners.setdefault(card, []).append(state)
        duplicated = {card for card, states in owners.items() if len(states) > 1}
        for card in sorted(duplicated):
            zones = tuple(state.region.zone for state in owners[card])
            faults[("duplicate", card)] = self._fault(
                FaultKind.DUPLICATE_CARD, t,
                f"{card} is seen in {' and '.join(str(z) for z in zones)} at once; "
                "suspected misdeal (R13)", zones=zones, cards=(card,), misdeal=True)
        for state in self._states:
            removals.extend(self._removals(state, t, duplicated))
        for state in self._states:
            arrivals.extend(self._arrivals(state, t, duplicated, faults))
        fresh = [fault for key, fault in faults.items() if key not in self._faults]
        self._faults = faults
        return removals + arrivals + fresh

    # -- per region ----------------------------------------------------------------------

    def _observe(self, state: _RegionState, detections: list[Detection]) -> None:
        read: dict[Card, Detection] = {}
        for detection in detections:
            if detection.code is not None:
                card = Card(detection.code)
                if card not in read or detection.score > read[card].score:
                    read[card] = detection
        unreadable = [detection_quad(d) for d in detections if d.code is None]
        for card, detection in read.items():
            candidate = state.cards.setdefault(card, _Candidate())
            candidate.streak += 1
            candidate.missing = 0
            candidate.confirmed = candidate.confirmed or (
                candidate.streak >= self.config.confirm_frames)
            candidate.scores.append(detection.score)
            del candidate.scores[:-16]
            candidate.x = detection.centre[0]
            candidate.detection = detection
        for card in list(state.cards):
            if card in read:
                continue
            candidate = state.cards[card]
            covered = False
            if candidate.detection is not None and unreadable:
                where = detection_quad(candidate.detection)  # once, not per unreadable quad
                covered = any(quad_iou(quad, where) >= 0.5 for quad in unreadable)
            if covered:
                continue  # still lying there, its index hidden: neither seen nor gone
            if not candidate.confirmed:
                del state.cards[card]  # a run broken before K frames starts again
                continue
            candidate.missing += 1
            if candidate.missing >= self.config.drop_frames:
                del state.cards[card]

    def _removals(self, state: _RegionState, t: float,
                  duplicated: set[Card]) -> list[CaptureEvent]:
        events: list[CaptureEvent] = []
        for card in sorted(state.reported, reverse=True):
            if card not in state.cards or card in duplicated:
                del state.reported[card]
                events.append(CardRemoved(state.region.zone, card, t, self.config.name))
        return events

    def _arrivals(self, state: _RegionState, t: float, duplicated: set[Card],
                  faults: dict[Hashable, CaptureFault]) -> list[CaptureEvent]:
        k = self.config.confirm_frames
        present = {card: c for card, c in state.cards.items()
                   if c.confirmed and card not in duplicated}
        zone = state.region.zone
        name = self.config.name
        if zone.kind is ZoneKind.SEAT:
            if len(present) > 2:
                faults[("too_many", zone)] = self._fault(
                    FaultKind.TOO_MANY_CARDS, t, f"{len(present)} cards at {zone}; suspected "
                    "misdeal (R13)", zones=(zone,), cards=tuple(sorted(present, reverse=True)),
                    misdeal=True)
                return []
            if len(present) == 2 and set(present) != set(state.reported):
                high, low = max(present), min(present)
                state.reported.clear()
                state.reported.update({high: 0, low: 0})
                confidence = min(present[high].confidence, present[low].confidence)
                return [HoleCardsRead(zone.seat, (high, low), t, name, confidence)]
            return []
        new = {card: c for card, c in present.items() if card not in state.reported}
        if not new:
            return []
        if zone == BOARD:
            pending = [c for card, c in state.cards.items()
                       if not c.confirmed and card not in duplicated]
            if pending and max(c.waited for c in new.values()) < k:
                for candidate in new.values():
                    candidate.waited += 1
                return []  # a flop is being laid down: take its positions from one picture
            return self._board(state, new, present, t, faults)
        events: list[CaptureEvent] = []
        for card in sorted(new, reverse=True):
            state.reported[card] = 0
            events.append(CardMucked(card, t, name))  # R20: a dead card
        return events

    def _board(self, state: _RegionState, new: dict[Card, _Candidate],
               present: dict[Card, _Candidate], t: float,
               faults: dict[Hashable, CaptureFault]) -> list[CaptureEvent]:
        order = sorted(present, key=lambda card: present[card].x)
        events: list[CaptureEvent] = []
        for card in sorted(new, key=lambda card: new[card].x):
            used = set(state.reported.values())
            free = [p for p in range(1, 6) if p not in used]
            if not free:
                faults[("too_many", BOARD)] = self._fault(
                    FaultKind.TOO_MANY_CARDS, t, "more than five cards on the board; "
                    "suspected misdeal (R13)", zones=(BOARD,), cards=(card,), misdeal=True)
                continue
            position = order.index(card) + 1
            if position in used or position > 5:
                position = free[0]
            state.reported[card] = position
            events.append(BoardCardRead(card, position, t, self.config.name,
                                        new[card].confidence))
        return events

    def _fault(self, kind: FaultKind, t: float, detail: str, *, zones: tuple[Zone, ...],
               cards: tuple[Card, ...], misdeal: bool) -> CaptureFault:
        return CaptureFault(kind, self.config.name, detail, t, self.config.name, zones=zones,
                            cards=cards, misdeal=misdeal)
