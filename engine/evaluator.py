"""Hold'em hand evaluation: the best five of five, six or seven cards (rule R18).

>>> from engine.cards import parse_cards
>>> hv = evaluate(parse_cards("KsKdKh7c7d2s3h"))
>>> hv.category.name, hv.describe()
('FULL_HOUSE', 'Full House, Kings full of Sevens')
>>> evaluate(parse_cards("As2d3c4h5s9d")).describe()
'Straight, Five high'
>>> evaluate(parse_cards("AhAs KdKc 2c")) > evaluate(parse_cards("AhAs QdQc Kc"))
True

:attr:`HandValue.strength` is a total order: higher wins, equal strengths split the pot (suits
never break ties). Its layout is documented in :mod:`engine._tables`.

:func:`evaluate_batch` scores many hands at once from an array of card indices with no Python
call per hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np
import numpy.typing as npt

from engine import _tables as t
from engine.cards import RANK_NAMES, RANK_PLURALS, Card, ensure_distinct, parse_cards
from engine.errors import InvalidHandError

__all__ = ["Category", "HandValue", "evaluate", "evaluate_batch", "evaluate_strength"]


class Category(IntEnum):
    """The nine hand categories, weakest first (rule R18)."""

    HIGH_CARD = t.HIGH_CARD
    PAIR = t.PAIR
    TWO_PAIR = t.TWO_PAIR
    THREE_OF_A_KIND = t.THREE_OF_A_KIND
    STRAIGHT = t.STRAIGHT
    FLUSH = t.FLUSH
    FULL_HOUSE = t.FULL_HOUSE
    FOUR_OF_A_KIND = t.FOUR_OF_A_KIND
    STRAIGHT_FLUSH = t.STRAIGHT_FLUSH

    @property
    def label(self) -> str:
        """``'Two Pair'``, ``'Straight Flush'`` …"""
        return _LABELS[self]


_LABELS = {
    Category.HIGH_CARD: "High Card",
    Category.PAIR: "Pair",
    Category.TWO_PAIR: "Two Pair",
    Category.THREE_OF_A_KIND: "Three of a Kind",
    Category.STRAIGHT: "Straight",
    Category.FLUSH: "Flush",
    Category.FULL_HOUSE: "Full House",
    Category.FOUR_OF_A_KIND: "Four of a Kind",
    Category.STRAIGHT_FLUSH: "Straight Flush",
}

# How many cards of each deciding rank make the five (in the order of the packed ranks).
_SHAPES: dict[Category, tuple[int, ...]] = {
    Category.HIGH_CARD: (1, 1, 1, 1, 1),
    Category.PAIR: (2, 1, 1, 1),
    Category.TWO_PAIR: (2, 2, 1),
    Category.THREE_OF_A_KIND: (3, 1, 1),
    Category.FULL_HOUSE: (3, 2),
    Category.FOUR_OF_A_KIND: (4, 1),
    Category.FLUSH: (1, 1, 1, 1, 1),
}


def _ranks_of(strength: int) -> tuple[int, ...]:
    """The five packed rank nibbles of a strength, most significant first."""
    return tuple((strength >> (16 - 4 * i)) & 15 for i in range(5))


def _straight_ranks(top: int) -> tuple[int, ...]:
    # A wheel (top card the Five, rank 3) ends with the ace playing low.
    return tuple(top - i if top - i >= 0 else 12 for i in range(5))


@dataclass(frozen=True, slots=True, order=True)
class HandValue:
    """The value of a poker hand: ordered and compared by :attr:`strength` alone.

    Two values are equal exactly when the hands split the pot, whatever the cards.
    """

    strength: int
    """Total order of hand strength: higher is better, equal means a split pot."""
    best_five: tuple[Card, ...] = field(compare=False)
    """The five cards that make the hand, in order of importance (``KKK77``, wheel ``5432A``)."""

    def __post_init__(self) -> None:
        if len(self.best_five) != 5 or not Category.HIGH_CARD <= self.strength >> 20 <= 9:
            raise InvalidHandError(f"not a hand value: {self.strength!r}, {self.best_five!r}")

    @property
    def category(self) -> Category:
        return Category(self.strength >> t.CATEGORY_SHIFT)

    def describe(self) -> str:
        """What a commentator says: ``'Full House, Kings full of Sevens'``, ``'Royal Flush'``."""
        return describe_strength(self.strength)


def describe_strength(strength: int) -> str:
    """The spoken description of a strength (see :meth:`HandValue.describe`)."""
    category = Category(strength >> t.CATEGORY_SHIFT)
    r = _ranks_of(strength)
    if category is Category.STRAIGHT_FLUSH and r[0] == 12:
        return "Royal Flush"
    detail = {
        Category.HIGH_CARD: lambda: RANK_NAMES[r[0]],
        Category.PAIR: lambda: RANK_PLURALS[r[0]],
        Category.TWO_PAIR: lambda: f"{RANK_PLURALS[r[0]]} and {RANK_PLURALS[r[1]]}",
        Category.THREE_OF_A_KIND: lambda: RANK_PLURALS[r[0]],
        Category.STRAIGHT: lambda: f"{RANK_NAMES[r[0]]} high",
        Category.FLUSH: lambda: f"{RANK_NAMES[r[0]]} high",
        Category.FULL_HOUSE: lambda: f"{RANK_PLURALS[r[0]]} full of {RANK_PLURALS[r[1]]}",
        Category.FOUR_OF_A_KIND: lambda: RANK_PLURALS[r[0]],
        Category.STRAIGHT_FLUSH: lambda: f"{RANK_NAMES[r[0]]} high",
    }[category]()
    return f"{category.label}, {detail}"


_SCALAR: list[list[int]] = []


def _multiset_value(key: int) -> int:
    if not _SCALAR:  # plain lists: indexing them from Python is faster than numpy scalars
        _SCALAR.extend([t.LOW_OFFSET.tolist(), t.HIGH_INDEX.tolist(), t.DENSE_VALUES.tolist(),
                        t.FLUSH_VALUES.tolist()])
    low_offset, high_index, values, _ = _SCALAR
    high, low = divmod(key, t.LOW_BASE)
    return values[low_offset[low] + high_index[high]]


CardsLike = str | Iterable[Card | str]


def _checked(cards: CardsLike) -> tuple[Card, ...]:
    if isinstance(cards, str):
        hand = parse_cards(cards, distinct=False)
    else:
        hand = tuple(card if isinstance(card, Card) else _card(card) for card in cards)
    if not 5 <= len(hand) <= 7:
        raise InvalidHandError(f"a hand has 5, 6 or 7 cards, got {len(hand)}")
    if len(set(hand)) != len(hand):
        ensure_distinct(hand)
    return hand


def _card(item: object) -> Card:
    if isinstance(item, str):
        return Card(item)
    raise InvalidHandError(f"not a card: {item!r}")


def evaluate_strength(cards: CardsLike) -> int:
    """Just the strength of the best five of ``cards`` (5-7 distinct cards)."""
    hand = _checked(cards)
    key = 0
    masks = [0, 0, 0, 0]
    for card in hand:
        key += 5 ** card.rank
        masks[card.suit] |= 1 << card.rank
    strength = _multiset_value(key)
    flush_values = _SCALAR[3]
    for mask in masks:
        strength = max(strength, flush_values[mask])
    return strength


def evaluate(cards: CardsLike) -> HandValue:
    """Evaluate the best five of 5, 6 or 7 distinct cards (rule R18).

    ``cards`` are :class:`Card` objects, card codes, or one string (``"AhKh QhJhTh 2c"``).

    :raises InvalidHandError: for a wrong number of cards or something that is not a card.
    :raises InvalidCardError: for a bad card code (``DuplicateCardError`` for a repeated card).
    """
    hand = _checked(cards)
    strength = evaluate_strength(hand)
    return HandValue(strength, _best_five(hand, strength))


def _best_five(hand: Sequence[Card], strength: int) -> tuple[Card, ...]:
    category = Category(strength >> t.CATEGORY_SHIFT)
    ranks = _ranks_of(strength)
    shape: tuple[int, ...]
    pool = sorted(hand, reverse=True)  # highest suit first among equal ranks: deterministic
    if category in (Category.FLUSH, Category.STRAIGHT_FLUSH):
        suit = max(range(4), key=lambda s: sum(1 for c in hand if c.suit == s))
        pool = [c for c in pool if c.suit == suit]
    if category in (Category.STRAIGHT, Category.STRAIGHT_FLUSH):
        ranks, shape = _straight_ranks(ranks[0]), _SHAPES[Category.HIGH_CARD]
    else:
        shape = _SHAPES[category]
    chosen: list[Card] = []
    for rank, n in zip(ranks, shape, strict=False):
        chosen.extend([c for c in pool if c.rank == rank][:n])
    return tuple(chosen)


IndexArray = npt.NDArray[np.integer]


def evaluate_batch(cards: npt.ArrayLike, *, check: bool = True) -> npt.NDArray[np.int32]:
    """Strengths of many hands at once: ``cards`` has shape (n, 5|6|7) of card indices 0-51.

    Pure numpy over the tables: no Python call per hand. With ``check`` (the default) rows are
    verified to hold distinct, valid card indices.

    :raises InvalidHandError: for a wrong shape, an index out of range or a repeated card.
    """
    idx = np.asarray(cards)
    if idx.ndim != 2 or idx.shape[1] not in (5, 6, 7):
        raise InvalidHandError(f"expected an array of shape (n, 5|6|7), got {idx.shape}")
    if idx.shape[0] and not np.issubdtype(idx.dtype, np.integer):
        raise InvalidHandError(f"card indices must be integers, got {idx.dtype}")
    idx = idx.astype(np.intp, copy=False)
    if check and idx.size:
        if idx.min() < 0 or idx.max() > 51:
            raise InvalidHandError("card index out of range 0-51")
        ordered = np.sort(idx, axis=1)
        if (np.diff(ordered, axis=1) == 0).any():
            raise InvalidHandError("a hand repeats a card")
    # Column by column: numpy reduces short rows slowly.
    key = t.CARD_KEY[idx[:, 0]]
    bits = t.CARD_BIT[idx[:, 0]]
    for column in range(1, idx.shape[1]):
        key = key + t.CARD_KEY[idx[:, column]]
        bits = bits | t.CARD_BIT[idx[:, column]]
    strength = t.multiset_value(key)
    for suit in range(4):
        strength = np.maximum(strength, t.FLUSH_VALUES[(bits >> (16 * suit)) & 0x1FFF])
    result: npt.NDArray[np.int32] = strength.astype(np.int32, copy=False)
    return result
