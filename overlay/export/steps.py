"""A finished hand as the plain steps every text hand-history format writes.

:func:`hand_steps` walks a hand's *effective* events (undone actions are gone, burn cards
were never there, R19) and keeps the amounts each format needs: a bet or raise with its street
total (``to``), the chips it added and the increment over the highest bet before it (R6); hole
cards once a seat, as finally known (a seat read late is dealt its cards); blinds and antes as
posted (R4, R5, short and all-in included); boards split by street even when one event dealt
a whole run-out (R14); shows (once a seat), mucks (R15, R20), uncalled bets returned and pots
awarded (R16, R17). :func:`describe_hand` names a shown hand in the words hand histories use.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from engine.cards import RANK_NAMES, RANK_PLURALS, Card
from engine.evaluator import Category, evaluate
from engine.events import (
    ActionKind,
    ActionTaken,
    AntePosted,
    BetReturned,
    BetsCollected,
    BlindPosted,
    BoardDealt,
    HandMucked,
    HandShown,
    HoleCardsDealt,
    PotAwarded,
    Street,
)
from engine.hand import Hand

__all__ = ["Step", "StepKind", "describe_hand", "hand_steps", "pot_name"]


class StepKind(enum.StrEnum):
    ANTE = "ante"
    SMALL_BLIND = "small_blind"
    BIG_BLIND = "big_blind"
    DEALT = "dealt"
    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BET = "bet"
    RAISE = "raise"
    RETURNED = "returned"
    BOARD = "board"
    SHOW = "show"
    MUCK = "muck"
    COLLECT = "collect"


_ACTIONS = {ActionKind.FOLD: StepKind.FOLD, ActionKind.CHECK: StepKind.CHECK,
            ActionKind.CALL: StepKind.CALL, ActionKind.BET: StepKind.BET,
            ActionKind.RAISE: StepKind.RAISE}
_BOARD_STREETS = {3: Street.FLOP, 4: Street.TURN, 5: Street.RIVER}


@dataclass(frozen=True, slots=True)
class Step:
    """One line of a hand history. ``amount`` is the chips moved (posted, added, returned or
    won); ``to`` a bet's street total; ``increment`` a raise's size over the bet it raised;
    ``cards`` the cards dealt, shown, mucked or (``BOARD``) the new board cards; ``pot`` the
    pot a ``COLLECT`` is from (0 main) and ``pots`` how many pots the hand had."""

    kind: StepKind
    street: Street
    seat: int | None = None
    amount: int = 0
    to: int = 0
    increment: int = 0
    all_in: bool = False
    cards: tuple[Card | None, ...] = ()
    rule: str = ""
    pot: int = 0
    pots: int = 1


def hand_steps(hand: Hand) -> list[Step]:
    """The steps of ``hand`` in the order they happened (see the module docstring)."""
    steps: list[Step] = []
    street = Street.PREFLOP
    bets: dict[int, int] = {}
    board: list[Card] = []
    pots = max((a.pot for a in hand.awards), default=0) + 1
    dealt: set[int] = set()
    shown: set[int] = set()
    for event in hand.effective_events:
        if isinstance(event, AntePosted):
            steps.append(Step(StepKind.ANTE, street, event.seat, event.amount,
                              all_in=event.all_in))
        elif isinstance(event, BlindPosted):
            kind = StepKind.BIG_BLIND if event.blind == "big" else StepKind.SMALL_BLIND
            bets[event.seat] = bets.get(event.seat, 0) + event.amount
            steps.append(Step(kind, street, event.seat, event.amount, bets[event.seat],
                              all_in=event.all_in))
        elif isinstance(event, HoleCardsDealt):  # once a seat, as finally known
            if event.seat not in dealt:
                dealt.add(event.seat)
                steps.append(Step(StepKind.DEALT, street, event.seat,
                                  cards=hand.hole_cards(event.seat) or event.cards))
        elif isinstance(event, ActionTaken):
            top = max(bets.values(), default=0)
            bets[event.seat] = event.to
            steps.append(Step(_ACTIONS[event.action], street, event.seat, event.added,
                              event.to, max(event.to - top, 0), event.all_in,
                              rule=event.rule))
        elif isinstance(event, BetReturned):
            bets[event.seat] = bets.get(event.seat, 0) - event.amount
            steps.append(Step(StepKind.RETURNED, street, event.seat, event.amount))
        elif isinstance(event, BetsCollected):
            bets = {}
        elif isinstance(event, BoardDealt):
            for card in event.cards:  # one event may deal several streets (a run-out)
                board.append(card)
                if len(board) >= 3:
                    new = tuple(board[:3]) if len(board) == 3 else (card,)
                    street = _BOARD_STREETS[len(board)]
                    steps.append(Step(StepKind.BOARD, street, cards=new))
            bets = {}
        elif isinstance(event, HandShown):  # a tabled hand is shown once (R14, R15)
            if event.seat not in shown:
                shown.add(event.seat)
                steps.append(Step(StepKind.SHOW, street, event.seat, cards=event.cards))
        elif isinstance(event, HandMucked):
            steps.append(Step(StepKind.MUCK, street, event.seat, cards=event.cards))
        elif isinstance(event, PotAwarded):
            for seat, share in zip(event.seats, event.shares, strict=True):
                steps.append(Step(StepKind.COLLECT, street, seat, share, pot=event.pot,
                                  pots=pots))
    return steps


def pot_name(pot: int, pots: int) -> str:
    """``pot`` alone, else ``main pot``, ``side pot`` or ``side pot-2`` (PokerStars words)."""
    if pots == 1:
        return "pot"
    if pot == 0:
        return "main pot"
    return "side pot" if pots == 2 else f"side pot-{pot}"


def describe_hand(hole: Sequence[Card], board: Sequence[Card]) -> str:
    """A hand in the words of hand histories: ``a pair of Kings``, ``two pair, Aces and
    Kings``, ``a straight, Three to Seven``, ``a Royal Flush`` (R18); ``""`` if fewer than
    five cards are known."""
    cards = [*hole, *board]
    if len(cards) < 5:
        return ""
    value = evaluate(cards[:7])
    five = value.best_five
    r = [c.rank for c in five]
    category = value.category
    if category is Category.HIGH_CARD:
        return f"high card {RANK_NAMES[r[0]]}"
    if category is Category.PAIR:
        return f"a pair of {RANK_PLURALS[r[0]]}"
    if category is Category.TWO_PAIR:
        return f"two pair, {RANK_PLURALS[r[0]]} and {RANK_PLURALS[r[2]]}"
    if category is Category.THREE_OF_A_KIND:
        return f"three of a kind, {RANK_PLURALS[r[0]]}"
    if category is Category.STRAIGHT:
        return f"a straight, {RANK_NAMES[r[4]]} to {RANK_NAMES[r[0]]}"
    if category is Category.FLUSH:
        return f"a flush, {RANK_NAMES[r[0]]} high"
    if category is Category.FULL_HOUSE:
        return f"a full house, {RANK_PLURALS[r[0]]} full of {RANK_PLURALS[r[3]]}"
    if category is Category.FOUR_OF_A_KIND:
        return f"four of a kind, {RANK_PLURALS[r[0]]}"
    if r[0] == 12 and r[1] == 11:
        return "a Royal Flush"
    return f"a straight flush, {RANK_NAMES[r[4]]} to {RANK_NAMES[r[0]]}"
