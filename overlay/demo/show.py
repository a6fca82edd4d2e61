"""The demo's show: the table, its players and their identities, the tournament, the
options, the configuration and deck they make, and the portraits drawn for them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from capture.rfid.decks import DeckRegistry
from capture.simulator import (
    BOARD_ANTENNA,
    BURN_ANTENNA,
    MUCK_ANTENNA,
    simulated_deck,
)
from engine.errors import InvalidInputError
from overlay.assets import static_dir
from overlay.config import Config, parse_config
from overlay.store import create_db_engine, database_url

TABLE_NAME = "Feltcast Demo Final Table"
READER = "demo-table"
DECK = "Demo deck (simulated tags)"

TOURNAMENT_NAME = "Feltcast Demo Main Event"
ENTRANTS = 9
"""Nine entrants: the whole field is at the final table, and it is the money."""
PRIZE_POOL = 100_000
CURRENCY = "EUR"
STARTING_STACK = 50_000
LEVEL_MINUTES = 3
#: The demo's structure (R21): small blind, big blind, big-blind ante; three-minute levels,
#: a one-minute break after level 3; the last level lasts for ever.
LEVELS: tuple[tuple[int, int, int], ...] = (
    (1_000, 2_000, 0), (1_500, 3_000, 0), (2_000, 4_000, 4_000), (2_500, 5_000, 5_000),
    (3_000, 6_000, 6_000), (4_000, 8_000, 8_000), (5_000, 10_000, 10_000),
    (6_000, 12_000, 12_000), (8_000, 16_000, 16_000), (10_000, 20_000, 20_000),
    (15_000, 30_000, 30_000), (20_000, 40_000, 40_000),
)
BREAK_AFTER = 3
BREAK_MINUTES = 1

#: seat, name, stack: nine players, 450,000 chips in play (nine entries of 50,000).
PLAYERS: tuple[tuple[int, str, int], ...] = (
    (1, "Lena Moreau", 84_500), (2, "Kenji Watanabe", 61_250), (3, "Marcus Hale", 23_000),
    (4, "Sofia Lindqvist", 47_750), (5, "Diego Ferreira", 39_500), (6, "Aisha Okafor", 72_000),
    (7, "Tomasz Nowak", 18_250), (8, "Hannah Becker", 55_000), (9, "Rafael Ortiz", 48_750),
)

#: seat -> full name, display name (the short one the graphics use), ISO 3166-1 country.
IDENTITIES: dict[int, tuple[str, str, str]] = {
    1: ("Lena Claire Moreau", "Lena Moreau", "FR"),
    2: ("Kenji Watanabe", "Kenji", "JP"),
    3: ("Marcus J. Hale", "Marcus Hale", "US"),
    4: ("Sofia Lindqvist", "Sofia", "SE"),
    5: ("Diego Ferreira da Silva", "Diego Ferreira", "BR"),
    6: ("Aisha Okafor", "Aisha", "NG"),
    7: ("Tomasz Nowak", "Tomek", "PL"),
    8: ("Hannah Becker", "Hannah", "DE"),
    9: ("Rafael Ortiz Vega", "Rafa Ortiz", "MX"),
}


@dataclass(frozen=True, slots=True)
class DemoOptions:
    port: int = 8080
    delay: float = 30.0
    speed: float = 1.0
    hands: int | None = None
    seed: int | None = None
    data: Path | None = None
    host: str = "127.0.0.1"

    def __post_init__(self) -> None:
        if self.speed <= 0:
            raise InvalidInputError("--speed must be a positive factor, e.g. 1 or 20")
        if self.delay < 0:
            raise InvalidInputError("--delay must be 0 or more seconds")
        if self.hands is not None and self.hands < 1:
            raise InvalidInputError("--hands must be at least 1")
        if not 0 <= self.port <= 65535:
            raise InvalidInputError(f"--port {self.port} is not a TCP port (0-65535)")


SAMPLES = static_dir() / "samples"
"""A sample logo and two sponsors (drawn for the demo) that the demo's graphics show."""


def demo_config(data_dir: Path, reader_path: str, options: DemoOptions) -> Config:
    return parse_config({
        "server": {"host": options.host, "port": options.port},
        "table": {"name": TABLE_NAME, "seats": 9, "button": 1, "level": 1,
                  "starting_stack": STARTING_STACK, "ante_mode": "big_blind"},
        "players": [{"seat": s, "name": n, "stack": st} for s, n, st in PLAYERS],
        "tournament": {
            "name": TOURNAMENT_NAME, "entrants": ENTRANTS, "prize_pool": PRIZE_POOL,
            "currency": CURRENCY,  # no [tournament.payouts]: R23's table by field size
            "levels": [{"small_blind": small, "big_blind": big, "ante": ante,
                        "minutes": LEVEL_MINUTES} for small, big, ante in LEVELS],
            "breaks": [{"after_level": BREAK_AFTER, "minutes": BREAK_MINUTES,
                        "name": "Break"}]},
        "delay": {"seconds": options.delay},
        "channels": {"secure": {"enabled": True}},
        "capture": {"readers": [{
            "name": READER, "transport": "serial", "address": reader_path,
            "antennas": {**{str(s): f"seat{s}" for s in range(1, 10)},
                         str(BOARD_ANTENNA): "board", str(MUCK_ANTENNA): "muck",
                         str(BURN_ANTENNA): "burn"}}]},
        "graphics": {"logo": str(SAMPLES / "logo.svg"),  # the show's branding (ours)
                     "sponsors": [str(SAMPLES / "sponsor-a.svg"), str(SAMPLES / "sponsor-b.svg")],
                     "sponsor_period": 12},
        "data_dir": str(data_dir),
    })


def register_demo_deck(data_dir: Path) -> None:
    """The simulator's tags, registered as a deck and active at the demo table."""
    data_dir.mkdir(parents=True, exist_ok=True)
    engine = create_db_engine(database_url("", data_dir))
    try:
        registry = DeckRegistry(engine)
        if registry.active_deck(TABLE_NAME) is not None:
            return
        if DECK not in {info.name for info in registry.decks()}:
            registry.save(DECK, {card: uid for uid, card in simulated_deck(1).items()})
        registry.activate(DECK, TABLE_NAME)
    finally:
        engine.dispose()


def initials(name: str) -> str:
    """The first letters of the first and last word of a name (``Lena Moreau`` -> ``LM``)."""
    words = [w for w in name.split() if w[:1].isalpha()]
    if not words:
        return "?"
    return (words[0][0] + (words[-1][0] if len(words) > 1 else "")).upper()


def portrait_png(name: str, seat: int, size: int = 400) -> bytes:
    """A placeholder portrait drawn here with OpenCV: the player's initials on a coloured disc
    (one hue per seat) on a dark square, as a PNG. No image is ever downloaded."""
    import cv2
    import numpy as np

    image = np.full((size, size, 3), (46, 36, 30), np.uint8)  # BGR: a dark slate
    hue = (seat * 37) % 180
    hsv = np.array([[[hue, 150, 190]]], np.uint8)
    colour = tuple(int(c) for c in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
    centre, radius = (size // 2, size // 2), int(size * 0.44)
    cv2.circle(image, centre, radius, colour, -1, cv2.LINE_AA)
    cv2.circle(image, centre, radius, (240, 240, 240), max(2, size // 100), cv2.LINE_AA)
    text = initials(name)
    font, thickness = cv2.FONT_HERSHEY_DUPLEX, max(2, size // 40)
    (width, height), _ = cv2.getTextSize(text, font, 1.0, thickness)
    scale = size * 0.42 / max(width, height)
    (width, height), _ = cv2.getTextSize(text, font, scale, thickness)
    origin = ((size - width) // 2, (size + height) // 2)
    cv2.putText(image, text, origin, font, scale, (255, 255, 255), thickness, cv2.LINE_AA)
    ok, encoded = cv2.imencode(".png", image)
    if not ok:
        raise RuntimeError("OpenCV could not encode the portrait as PNG")
    return encoded.tobytes()


def ordinal(n: int) -> str:
    """A place in words: ``ordinal(2) == '2nd'``, ``ordinal(11) == '11th'``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def money(amount: int) -> str:
    """A prize in the demo's currency: ``money(20000) == '20,000 EUR'``."""
    return f"{amount:,} {CURRENCY}"


