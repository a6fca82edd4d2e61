"""The peers, each in the plain enumeration loop: deal every board, evaluate every hand.

Each function returns per-player ``(wins, ties)`` over every board so that the benchmark can
check that all of them agree with Feltcast before comparing speed. The peers are imported on
first use; a missing one is reported and skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations

from engine.cards import FULL_DECK, parse_cards

from .scenarios import Scenario

Tally = tuple[tuple[int, ...], tuple[int, ...]]


def _deal(scenario: Scenario) -> tuple[list[tuple[int, ...]], tuple[int, ...], list[int], int]:
    hands = [tuple(c.index for c in parse_cards(h)) for h in scenario.hands]
    board = tuple(c.index for c in parse_cards(scenario.board))
    used = {*board, *(c.index for c in parse_cards(scenario.dead)), *(i for h in hands for i in h)}
    deck = [c.index for c in FULL_DECK if c.index not in used]
    return hands, board, deck, 5 - len(board)


def phevaluator_loop(scenario: Scenario) -> Tally:
    from phevaluator import evaluate_cards

    # phevaluator numbers cards 2c=0 ... As=51 like Feltcast; a lower rank is stronger.
    hands, board, deck, to_come = _deal(scenario)
    n = len(hands)
    wins, ties = [0] * n, [0] * n
    for extra in combinations(deck, to_come):
        full = board + extra
        values = [evaluate_cards(*hand, *full) for hand in hands]
        best = min(values)
        if values.count(best) == 1:
            wins[values.index(best)] += 1
        else:
            for p in range(n):
                if values[p] == best:
                    ties[p] += 1
    return tuple(wins), tuple(ties)


def eval7_loop(scenario: Scenario) -> Tally:
    import eval7

    codes = [c.code for c in FULL_DECK]
    hands_i, board_i, deck_i, to_come = _deal(scenario)
    hands = [[eval7.Card(codes[i]) for i in h] for h in hands_i]
    board = [eval7.Card(codes[i]) for i in board_i]
    deck = [eval7.Card(codes[i]) for i in deck_i]
    evaluate = eval7.evaluate
    n = len(hands)
    wins, ties = [0] * n, [0] * n
    for extra in combinations(deck, to_come):
        full = board + list(extra)
        values = [evaluate(hand + full) for hand in hands]  # a higher value is stronger
        best = max(values)
        if values.count(best) == 1:
            wins[values.index(best)] += 1
        else:
            for p in range(n):
                if values[p] == best:
                    ties[p] += 1
    return tuple(wins), tuple(ties)


def pokerkit_loop(scenario: Scenario) -> Tally:
    from pokerkit import Card as PkCard
    from pokerkit import StandardHighHand

    codes = [c.code for c in FULL_DECK]
    cards = [next(iter(PkCard.parse(code))) for code in codes]
    hands_i, board_i, deck_i, to_come = _deal(scenario)
    hands = [tuple(cards[i] for i in h) for h in hands_i]
    board = tuple(cards[i] for i in board_i)
    deck = [cards[i] for i in deck_i]
    n = len(hands)
    wins, ties = [0] * n, [0] * n
    for extra in combinations(deck, to_come):
        full = board + extra
        values = [StandardHighHand.from_game(h, full) for h in hands]
        best = max(values)
        winners = [p for p in range(n) if values[p] == best]
        if len(winners) == 1:
            wins[winners[0]] += 1
        else:
            for p in winners:
                ties[p] += 1
    return tuple(wins), tuple(ties)


PEERS: dict[str, Callable[[Scenario], Tally]] = {
    "phevaluator": phevaluator_loop,
    "eval7": eval7_loop,
    "pokerkit": pokerkit_loop,
}


def applies(peer: str, scenario: Scenario) -> bool:
    """PokerKit's pure-Python evaluator runs on the post-flop cases only (issue 2)."""
    return peer != "pokerkit" or scenario.postflop


def available(names: Sequence[str]) -> dict[str, str | None]:
    """Each peer's version, or None when it is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    found: dict[str, str | None] = {}
    for name in names:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = None
    return found
