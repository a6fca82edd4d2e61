"""A plain, obviously correct hand evaluator, used only to check the fast one.

It scores every five-card subset with the textbook rules (rule R18) and keeps the best, and
encodes the result the way :mod:`engine._tables` documents: ``category << 20`` plus the deciding
ranks, most significant first, four bits each, zero-padded. It is slow on purpose: no tables,
no tricks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations

from engine.cards import Card

HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(1, 10)
ACE = 12


def encode(category: int, ranks: Sequence[int]) -> int:
    padded = [*ranks, 0, 0, 0, 0, 0][:5]
    value = category
    for rank in padded:
        value = value * 16 + rank
    return value


def straight_top(ranks: Iterable[int]) -> int | None:
    """The top rank of the five distinct ``ranks`` if they form a straight (ace high or low)."""
    distinct = sorted(set(ranks))
    if len(distinct) != 5:
        return None
    if distinct[4] - distinct[0] == 4:
        return distinct[4]
    if distinct == [0, 1, 2, 3, ACE]:  # the wheel: A-2-3-4-5, the Five is the top card
        return 3
    return None


def five_card_value(cards: Sequence[Card]) -> int:
    assert len(cards) == 5
    ranks = [c.rank for c in cards]
    is_flush = len({c.suit for c in cards}) == 1
    top = straight_top(ranks)
    # Ranks grouped by how often they appear, then by rank: e.g. KKK77 -> [K, 7].
    counts = Counter(ranks)
    groups = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    if top is not None and is_flush:
        return encode(STRAIGHT_FLUSH, [top])
    if shape == [4, 1]:
        return encode(QUADS, groups)
    if shape == [3, 2]:
        return encode(FULL_HOUSE, groups)
    if is_flush:
        return encode(FLUSH, groups)
    if top is not None:
        return encode(STRAIGHT, [top])
    if shape == [3, 1, 1]:
        return encode(TRIPS, groups)
    if shape == [2, 2, 1]:
        return encode(TWO_PAIR, groups)
    if shape == [2, 1, 1, 1]:
        return encode(PAIR, groups)
    return encode(HIGH_CARD, groups)


def reference_value(cards: Sequence[Card]) -> int:
    """The best value of any five of the 5-7 ``cards``."""
    assert 5 <= len(cards) <= 7 and len(set(cards)) == len(cards)
    return max(five_card_value(five) for five in combinations(cards, 5))
