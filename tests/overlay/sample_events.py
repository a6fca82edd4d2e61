"""Event material for the log tests: real engine events, in hand-shaped sequences."""

from __future__ import annotations

import random

from engine.cards import Card, parse_cards
from engine.events import (
    ActionKind,
    ActionTaken,
    BoardDealt,
    CardBurned,
    Event,
    HandEnded,
    HandStarted,
    HoleCardsDealt,
    Street,
)


def sample_events(n: int, seed: int = 0) -> list[Event]:
    """``n`` events mixing every secrecy class (public, secret hole cards, never: burns)."""
    rng = random.Random(seed)
    deck = [Card.from_index(i) for i in range(52)]
    out: list[Event] = []
    hand = 0
    while len(out) < n:
        hand += 1
        rng.shuffle(deck)
        out.append(HandStarted(hand_number=hand, seats=(1, 2, 3), names=("A", "B", "C"),
                               stacks=(1000, 1000, 1000), button=3, blinds=(5, 10, 0),
                               antes=(0, 0, 0), big_blind=10))
        out.extend(HoleCardsDealt(seat, (deck[2 * i], deck[2 * i + 1]))
                   for i, seat in enumerate((1, 2, 3)))
        out.append(ActionTaken(3, ActionKind.FOLD))
        out.append(CardBurned(deck[6]))
        out.append(BoardDealt(Street.FLOP, tuple(deck[7:10])))
        out.append(HandEnded(stacks=(1000, 1000, 1000)))
    return out[:n]


FLOP = BoardDealt(Street.FLOP, parse_cards("AhKdQc"))
