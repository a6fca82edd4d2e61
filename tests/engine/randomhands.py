"""Seeded random hands for the property and differential tests.

A :class:`Setup` is a table in PHH form (position order, ``p1`` the small blind; heads-up
``p1`` the big blind): 2-10 players, stacks from a fraction of a big blind (short blinds, R5)
to deep, and every ante mode of R4 (none, per player, big-blind ante, button ante).
:func:`play` drives a hand with random legal actions chosen from the engine's own
:meth:`~engine.hand.Hand.legal_actions` and calls ``observer`` before each step, so a test can
mirror the hand in another engine.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from engine import phh
from engine.cards import FULL_DECK, Card
from engine.events import Street
from engine.hand import Hand

ANTE_MODES = ("none", "per_player", "big_blind", "button")


@dataclass(frozen=True, slots=True)
class Setup:
    stacks: tuple[int, ...]
    blinds: tuple[int, ...]
    antes: tuple[int, ...]
    big_blind: int
    live_antes: bool
    ante_mode: str
    deck: tuple[Card, ...]

    def history(self) -> phh.HandHistory:
        return phh.HandHistory(antes=self.antes, blinds_or_straddles=self.blinds,
                               min_bet=self.big_blind, starting_stacks=self.stacks, actions=(),
                               ante_trimming_status=self.live_antes)


def random_setup(rng: random.Random) -> Setup:
    count = rng.choice((2, 2, 3, 4, 5, 6, 6, 7, 8, 9, 10))
    big = rng.choice((2, 10, 100, 200))
    small = big // 2 if rng.random() < 0.8 else rng.randint(1, big - 1)
    mode = rng.choice(ANTE_MODES)
    ante = {"none": 0, "per_player": max(1, big // rng.choice((4, 8, 10))),
            "big_blind": big, "button": big}[mode]
    antes = [0] * count
    if mode == "per_player":
        antes = [ante] * count
    elif mode == "big_blind":  # PHH lists antes like blinds: heads-up too, [SB, BB]
        antes[1] = ante
    elif mode == "button":
        antes[0 if count == 2 else -1] = ante
    stacks: list[int] = []
    for _ in range(count):
        kind = rng.random()
        if kind < 0.15:
            stacks.append(rng.randint(1, 2 * big))  # can be shorter than a blind (R5)
        elif kind < 0.45:
            stacks.append(rng.randint(2 * big, 25 * big))
        else:
            stacks.append(rng.randint(25 * big, 300 * big))
    # The big blind's post must not fall below the small blind's: PokerKit would then open
    # the action left of the small blind, where R4 (and we) open it left of the big blind.
    bb = 0 if count == 2 else 1
    stacks[bb] = max(stacks[bb], antes[1] + small + 1)
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    # Live (trimmed) antes only for antes everybody pays; a big-blind or button ante is dead
    # money in the main pot (as in the WSOP files).
    live = mode == "per_player" and rng.random() < 0.5
    return Setup(tuple(stacks), (small, big) + (0,) * (count - 2), tuple(antes), big,
                 live, mode, tuple(deck))


Observer = Callable[[Hand, str, object], None]


def play(setup: Setup, rng: random.Random, observer: Observer | None = None,
         *, hand: Hand | None = None, fold: float = 0.2, call: float = 0.45) -> Hand:
    """Play one hand to the end with random legal actions. ``observer(hand, step, arg)`` is
    called before each step: ``("deal_hole", (seat, cards))``, ``("deal_board", cards)``,
    ``("fold"|"check_or_call", None)``, ``("raise_to", amount)``, ``("showdown", None)``."""
    hand = hand or phh.start(setup.history())
    deck = list(setup.deck)
    note = observer or (lambda h, s, a: None)
    for seat in hand.seats:
        hole = (deck.pop(), deck.pop())
        note(hand, "deal_hole", (seat, hole))
        hand.deal_hole(seat, hole)
    for _ in range(400):
        if hand.is_over:
            return hand
        legal = hand.legal_actions()
        if legal is not None:
            roll = rng.random()
            if roll < fold and not legal.can_check:
                note(hand, "fold", None)
                hand.fold()
            elif roll < fold + call or legal.min_raise_to is None or legal.max_raise_to is None:
                note(hand, "check_or_call", None)
                hand.check_or_call()
            else:
                low, high = legal.min_raise_to, legal.max_raise_to
                pick = rng.random()
                amount = high if pick < 0.25 or low >= high else (
                    low if pick < 0.6 else rng.randint(low, high))
                note(hand, "raise_to", amount)
                hand.raise_to(amount)
        elif hand.street is Street.SHOWDOWN:
            note(hand, "showdown", None)
            if not hand.is_over:
                hand.resolve_showdown()
        else:
            count = 3 if not hand.board else 1
            cards = tuple(deck.pop() for _ in range(count))
            note(hand, "deal_board", cards)
            hand.deal_board(cards)
    raise AssertionError("the hand did not end")
