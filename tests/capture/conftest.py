"""Shared helpers for the capture tests: a deck of fake UIDs and a scanning harness."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from capture.rfid.antenna_map import AntennaMap
from capture.rfid.presence import PresenceConfig, PresenceTracker
from engine.capture_events import CaptureEvent
from engine.cards import FULL_DECK, Card

READER = "rd"
ANTENNAS = range(1, 14)


def uid_of(card: Card | str, deck: int = 0) -> str:
    """A made-up ISO 15693 UID for a card of test deck ``deck``."""
    return f"E004{deck:04X}{Card(card).index:08X}" if isinstance(card, str) else (
        f"E004{deck:04X}{card.index:08X}")


DECK: dict[str, Card] = {uid_of(card): card for card in FULL_DECK}


class Table:
    """Drives a PresenceTracker like a reader scanning all 13 antennas every ``period`` s."""

    def __init__(self, *, period: float = 0.1, occupied: Iterable[int] | None = None,
                 cards: Mapping[str, Card] = DECK, config: PresenceConfig | None = None) -> None:
        self.tracker = PresenceTracker(AntennaMap.standard(READER), cards,
                                       config or PresenceConfig(), occupied)
        self.period = period
        self.now = 0.0
        self.antennas: dict[int, list[str]] = {a: [] for a in ANTENNAS}
        self.events: list[CaptureEvent] = []

    def put(self, antenna: int, *cards: str) -> None:
        self.antennas[antenna] += [uid_of(c) if len(c) <= 3 else c for c in cards]

    def take(self, antenna: int, *cards: str) -> None:
        for c in cards:
            self.antennas[antenna].remove(uid_of(c) if len(c) <= 3 else c)

    def scan(self, cycles: int = 1, *, skip: Iterable[int] = ()) -> list[CaptureEvent]:
        """``cycles`` full scans; antennas in ``skip`` miss their tags (a flicker)."""
        new: list[CaptureEvent] = []
        for _ in range(cycles):
            self.now = round(self.now + self.period, 6)
            for antenna in ANTENNAS:
                uids = [] if antenna in skip else self.antennas[antenna]
                new += self.tracker.observe(READER, antenna, uids, self.now)
        self.events += new
        return new
