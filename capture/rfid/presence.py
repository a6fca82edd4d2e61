"""Presence tracking: antenna snapshots in, debounced capture events out.

Pure and deterministic: no I/O, no clock. Every call takes ``now`` (seconds on a monotonic
clock), so tests drive it tick by tick.

Debouncing. RFID reads flicker: a tag lying still is missed now and then, and a card slid
past an antenna is read once. So a tag *arrives* on an antenna only after ``min_reads`` reads
spanning at least ``settle_s`` seconds, and *leaves* only once that antenna's snapshots have
gone without it for ``release_s`` seconds. Silence is not absence: an antenna that reports
nothing removes nothing. A tag is in one place at a time: it cannot arrive somewhere while it
is still present elsewhere (a card moved from a seat to the muck leaves the seat first).

Events, by zone (see :mod:`engine.capture_events`):

- seat: :class:`HoleCardsRead` once both hole cards are present (exactly two, R13);
  :class:`CardRemoved` when one leaves;
- board: :class:`BoardCardRead` in order of arrival, at the lowest free position 1-5;
- muck: :class:`CardMucked`, a dead card for equity (R20);
- burn/stub: only :class:`BurnSeen`, the number of tags there; burn tags are never even
  looked up in the deck (R19), and no fault names them.

Faults (each reported once while the condition lasts, as a :class:`CaptureFault`): unknown
UID (never a card), the same card from two tags (R13, only the first tag counts), one tag on
two antennas at once (crosstalk; the tag stays where it was, or waits), a third card at a
seat (R13), a card at an empty seat (R13), a sixth board card (R13), tags on an unmapped
antenna.

Frozen readers: while a reader is down its antennas keep their last state (nothing leaves);
:meth:`PresenceTracker.thaw` gives every tag a fresh ``release_s`` to be confirmed.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass

from engine.capture_events import (
    BOARD,
    BoardCardRead,
    BurnSeen,
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
from engine.errors import ConfigError

from .antenna_map import AntennaKey, AntennaMap

log = logging.getLogger(__name__)

CROSSTALK_SWITCHES = 4
"""Jumps between antennas within ``release_s`` that make overlapping reads crosstalk."""


@dataclass(frozen=True, slots=True)
class PresenceConfig:
    """Debounce timing. The defaults suit readers scanning 5-10 times per second."""

    min_reads: int = 2
    """Reads needed before a tag counts as present."""
    settle_s: float = 0.15
    """Seconds between the first read and arrival, at least."""
    release_s: float = 0.8
    """Seconds without a read before a tag counts as gone."""
    release_misses: int = 3
    """Snapshots in a row without the tag before it counts as gone (with ``release_s``, so
    that neither a stalled host nor a fast reader turns a flicker into a removal)."""

    def __post_init__(self) -> None:
        if self.min_reads < 1:
            raise ConfigError("presence.min_reads", "must be at least 1")
        if self.release_misses < 1:
            raise ConfigError("presence.release_misses", "must be at least 1")
        if self.settle_s < 0 or self.release_s <= 0:
            raise ConfigError("presence", "settle_s must be >= 0 and release_s > 0")


class _Sighting:
    __slots__ = ("first", "last", "misses", "reads")

    def __init__(self, now: float) -> None:
        self.first = now
        self.last = now
        self.reads = 1
        self.misses = 0


class PresenceTracker:
    """Turns ``(reader, antenna, uids, now)`` snapshots into capture events for one table."""

    def __init__(self, antenna_map: AntennaMap, cards: Mapping[str, Card],
                 config: PresenceConfig | None = None,
                 occupied_seats: Iterable[int] | None = None) -> None:
        self.antenna_map = antenna_map
        self.config = config or PresenceConfig()
        self._zones = antenna_map.as_dict()
        self._cards: dict[str, Card] = {uid.upper(): card for uid, card in cards.items()}
        self._occupied = None if occupied_seats is None else frozenset(occupied_seats)
        self._sightings: dict[str, dict[AntennaKey, _Sighting]] = {}
        self._placed: dict[str, tuple[AntennaKey, float]] = {}
        self._frozen: set[str] = set()
        self._shown: dict[Zone, dict[Card, int]] = {}
        self._burn_count = 0
        self._faults: set[Hashable] = set()
        self._unmapped: set[AntennaKey] = set()
        self._reported: dict[AntennaKey, float] = {}
        self._on: dict[AntennaKey, set[str]] = {}
        self._last_key: dict[str, AntennaKey] = {}
        self._switches: dict[str, list[float]] = {}
        """When each tag's reads jumped from one antenna to another (crosstalk alternates)."""
        """The tags each antenna has a sighting of."""
        """When each antenna last sent a snapshot: only a snapshot proves a tag is gone."""

    # -- inputs ---------------------------------------------------------------------------

    def set_cards(self, cards: Mapping[str, Card]) -> None:
        """Replace the UID -> card table (a deck was activated)."""
        self._cards = {uid.upper(): card for uid, card in cards.items()}

    def set_occupied_seats(self, seats: Iterable[int] | None) -> None:
        """Tell which seats have a player (None: unknown, no empty-seat check)."""
        self._occupied = None if seats is None else frozenset(seats)

    def observe(self, reader: str, antenna: int, uids: Iterable[str],
                now: float) -> list[CaptureEvent]:
        """One complete snapshot of one antenna (an empty one included)."""
        key = (reader, antenna)
        tags = [uid.upper() for uid in uids]
        if key not in self._zones:
            if tags and key not in self._unmapped:
                self._unmapped.add(key)
                log.warning("tags on unmapped antenna %s of reader %s", antenna, reader)
                return [self._fault(FaultKind.UNMAPPED_ANTENNA, reader, now,
                                    f"tags on antenna {antenna} of reader {reader}, "
                                    "which the antenna map does not list")]
            return []
        self._reported[key] = now
        present = set(tags)
        for uid in self._on.get(key, set()) - present:
            sighting = self._sightings.get(uid, {}).get(key)
            if sighting is not None:
                sighting.misses += 1
        for uid in tags:
            previous = self._last_key.get(uid)
            if previous is not None and previous != key:
                window = now - self.config.release_s
                self._switches[uid] = [t for t in self._switches.get(uid, []) if t >= window]
                self._switches[uid].append(now)
            self._last_key[uid] = key
            seen = self._sightings.setdefault(uid, {})
            sighting = seen.get(key)
            if sighting is None or now - sighting.last > self.config.release_s:
                seen[key] = _Sighting(now)
            else:
                sighting.last = now
                sighting.reads += 1
                sighting.misses = 0
        self._on[key] = self._on.get(key, set()) | present
        return self._settle(now)

    def tick(self, now: float) -> list[CaptureEvent]:
        """Let time pass (tags leave when unread for ``release_s``)."""
        return self._settle(now)

    def freeze(self, reader: str) -> None:
        """The reader is down: keep its zones as they are."""
        self._frozen.add(reader)

    def thaw(self, reader: str, now: float) -> None:
        """The reader is back: its tags must be confirmed within ``release_s`` from ``now``."""
        self._frozen.discard(reader)
        for seen in self._sightings.values():
            for (name, _), sighting in seen.items():
                if name == reader:
                    sighting.last = max(sighting.last, now)
                    sighting.misses = 0

    # -- views ----------------------------------------------------------------------------

    def cards_in(self, zone: Zone) -> frozenset[Card]:
        """The cards the events so far put in ``zone`` (never the burn zone: R19)."""
        if zone.kind is ZoneKind.BURN:
            return frozenset()
        return frozenset(self._shown.get(zone, {}))

    @property
    def burn_count(self) -> int:
        return self._burn_count

    def frozen_readers(self) -> frozenset[str]:
        return frozenset(self._frozen)

    # -- the work -------------------------------------------------------------------------

    def _fault(self, kind: FaultKind, reader: str, now: float, detail: str, *,
               zones: tuple[Zone, ...] = (), cards: tuple[Card, ...] = (), uid: str = "",
               misdeal: bool = False) -> CaptureFault:
        return CaptureFault(kind, reader, detail, now, reader, zones, cards, uid, 1, misdeal)

    def _settle(self, now: float) -> list[CaptureEvent]:
        release = self.config.release_s
        # Expire sightings (never for a frozen reader).
        for uid in list(self._sightings):
            seen = self._sightings[uid]
            for key in [k for k, s in seen.items() if k[0] not in self._frozen
                        and s.misses >= self.config.release_misses
                        and self._reported.get(k, now) - s.last > release]:
                del seen[key]
                self._on[key].discard(uid)
                placed = self._placed.get(uid)
                if placed is not None and placed[0] == key:
                    del self._placed[uid]
            if not seen:
                del self._sightings[uid]
                self._last_key.pop(uid, None)
                self._switches.pop(uid, None)
        faults: dict[Hashable, CaptureFault] = {}
        # Crosstalk, then arrivals.
        for uid, seen in self._sightings.items():
            ready = [(k, s) for k, s in seen.items() if s.reads >= self.config.min_reads]
            # Crosstalk: read on two antennas in overlapping periods, the reads jumping back
            # and forth (a card moved there and back once is not crosstalk).
            recent = [t for t in self._switches.get(uid, []) if t >= now - self.config.release_s]
            crossed = sorted({k for k, s in ready for k2, s2 in ready
                              if k != k2 and s.last >= s2.first and s2.last >= s.first}
                             ) if len(recent) >= CROSSTALK_SWITCHES else []
            if crossed:
                zones = tuple(self._zones[k] for k in crossed)
                secret = any(z.kind is ZoneKind.BURN for z in zones)
                card = None if secret else self._cards.get(uid)
                faults[("crosstalk", uid, tuple(crossed))] = self._fault(
                    FaultKind.CROSSTALK, crossed[0][0], now,
                    "one tag is read on " + " and ".join(
                        f"{r} antenna {a} ({self._zones[(r, a)]})" for r, a in crossed)
                    + "; move the antennas apart or the card away",
                    zones=zones, cards=(card,) if card else (), uid="" if secret else uid)
            if uid in self._placed:
                continue
            arrivals = [k for k, s in ready if now - s.first >= self.config.settle_s]
            if len(arrivals) == 1 and not crossed:
                self._placed[uid] = (arrivals[0], now)
        events: list[CaptureEvent] = []
        self._update_zones(now, events, faults)
        fresh = [f for key, f in faults.items() if key not in self._faults]
        for fault in fresh:
            log.warning("capture fault %s on %s: %s", fault.kind, fault.reader, fault.detail)
        self._faults = set(faults)
        return events + list(fresh)

    def _update_zones(self, now: float, events: list[CaptureEvent],
                      faults: dict[Hashable, CaptureFault]) -> None:
        by_zone: dict[Zone, list[tuple[float, str, Card | None, str]]] = {}
        burn: dict[str, int] = {}
        owner: dict[Card, str] = {}
        # A tag read on a burn antenna is a burn card from that read on (R19): it is never named
        # again, not even by a zone it has not been released from yet (debouncing lags).
        burnt = {uid for uid, seen in self._sightings.items()
                 if any(self._zones[k].kind is ZoneKind.BURN for k in seen)}
        for uid, (key, since) in sorted(self._placed.items(), key=lambda item: item[1][1]):
            zone = self._zones[key]
            if zone.kind is ZoneKind.BURN:
                burn[key[0]] = burn.get(key[0], 0) + 1  # R19: counted, never looked up
                continue
            if uid in burnt:
                continue
            card = self._cards.get(uid)
            if card is None:
                faults[("unknown", uid)] = self._fault(
                    FaultKind.UNKNOWN_UID, key[0], now,
                    f"a tag that belongs to no active deck is on {zone} (UID {uid}); "
                    "it is ignored", zones=(zone,), uid=uid)
            elif card in owner:
                first = self._placed[owner[card]][0]
                faults[("duplicate", card, uid)] = self._fault(
                    FaultKind.DUPLICATE_CARD, key[0], now,
                    f"two tags both say {card}: on {self._zones[first]} and on {zone}; "
                    "suspected misdeal (R13)", zones=(self._zones[first], zone),
                    cards=(card,), uid=uid, misdeal=True)
                card = None
            else:
                owner[card] = uid
            by_zone.setdefault(zone, []).append((since, uid, card, key[0]))
        # Removals first (a card moving from a seat to the muck leaves the seat first).
        for zone, shown in sorted(self._shown.items()):
            present = {card for _, _, card, _ in by_zone.get(zone, []) if card is not None}
            for card in sorted(set(shown) - present, reverse=True):
                del shown[card]
                events.append(CardRemoved(zone, card, now, self._reader_of(zone)))
        for zone, tags in sorted(by_zone.items()):
            self._arrivals(zone, tags, now, events, faults)
        count = sum(burn.values())
        if count != self._burn_count:
            self._burn_count = count
            events.append(BurnSeen(count, now, ",".join(sorted(burn)) or
                                   self._reader_of(Zone(ZoneKind.BURN))))

    def _reader_of(self, zone: Zone) -> str:
        for (reader, _), mapped in self._zones.items():
            if mapped == zone:
                return reader
        return ""

    def _arrivals(self, zone: Zone, tags: list[tuple[float, str, Card | None, str]],
                  now: float, events: list[CaptureEvent],
                  faults: dict[Hashable, CaptureFault]) -> None:
        shown = self._shown.setdefault(zone, {})
        cards = [card for _, _, card, _ in tags if card is not None]
        reader = tags[0][3]
        if zone.kind is ZoneKind.SEAT:
            if len(tags) > 2:
                faults[("too_many", zone)] = self._fault(
                    FaultKind.TOO_MANY_CARDS, reader, now,
                    f"{len(tags)} cards at {zone}; suspected misdeal (R13)",
                    zones=(zone,), cards=tuple(cards), misdeal=True)
                return
            if self._occupied is not None and zone.seat not in self._occupied:
                faults[("empty_seat", zone)] = self._fault(
                    FaultKind.CARD_AT_EMPTY_SEAT, reader, now,
                    f"a card at {zone}, where nobody sits; suspected misdeal (R13)",
                    zones=(zone,), cards=tuple(cards), misdeal=True)
                return
            if len(cards) == 2 and set(cards) != set(shown):
                pair = (max(cards), min(cards))
                shown.clear()
                shown.update({pair[0]: 0, pair[1]: 0})
                events.append(HoleCardsRead(zone.seat, pair, now, reader))
            return
        for card in cards:
            if card in shown:
                continue
            if zone == BOARD:
                free = sorted(set(range(1, 6)) - set(shown.values()))
                if not free:
                    faults[("too_many", zone)] = self._fault(
                        FaultKind.TOO_MANY_CARDS, reader, now,
                        "more than five cards on the board; suspected misdeal (R13)",
                        zones=(zone,), cards=tuple(cards), misdeal=True)
                    continue
                shown[card] = free[0]
                events.append(BoardCardRead(card, free[0], now, reader))
            else:
                shown[card] = 0
                events.append(CardMucked(card, now, reader))  # R20: a dead card
