"""Lookup tables behind the evaluator and equity, built once with numpy at first import.

The strength of a hand is one integer (rule R18 decides the order)::

    strength = category << 20 | n1 << 16 | n2 << 12 | n3 << 8 | n4 << 4 | n5

where ``category`` is 1 (high card) … 9 (straight flush) and ``n1 …`` are the ranks (0 deuce …
12 ace) that decide ties *within* the category, most significant first, zero-padded:

=================  ===========================================
high card, flush   the five ranks, highest first
pair               pair rank, then the three kickers
two pair           high pair, low pair, kicker
three of a kind    trips rank, then the two kickers
straight (flush)   the top rank only (a wheel's top is the Five)
full house         trips rank, pair rank
four of a kind     quads rank, kicker
=================  ===========================================

Without a flush, the value of a hand depends only on the multiset of its ranks. A multiset of
ranks is keyed by ``sum(5 ** rank)`` (each count is at most 4, so the base-5 digits never
carry). A minimal perfect hash (:func:`dense_index`, two small arrays indexed by the two
halves of the key) numbers every multiset of up to seven ranks, and :data:`DENSE_VALUES` holds
the non-flush strength of each. :data:`FLUSH_VALUES` maps a 13-bit mask of the ranks held in one
suit to the flush or straight-flush strength (0 with fewer than five). For equity,
:data:`BOARD_PAIR_VALUES` holds the non-flush strength of every five-card board rank multiset
with every pair of hole-card ranks.

Tables: about 4 MB in all, built with numpy in about a quarter of a second.
"""

from __future__ import annotations

from functools import cache
from typing import Final

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
Int32Array = npt.NDArray[np.int32]

HIGH_CARD, PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT, FLUSH, FULL_HOUSE, FOUR_OF_A_KIND, \
    STRAIGHT_FLUSH = range(1, 10)

CATEGORY_SHIFT: Final = 20

POW5: Final[IntArray] = (5 ** np.arange(13, dtype=np.int64)).astype(np.int64)
"""``POW5[rank]``: the key contribution of one card of that rank."""

_RANKS = np.arange(13, dtype=np.int64)


@cache
def _all_counts(most: int) -> npt.NDArray[np.int8]:
    """Every vector of 13 rank counts, each 0-4, adding up to at most ``most`` (M, 13)."""
    counts = np.zeros((1, 0), dtype=np.int8)
    totals = np.zeros(1, dtype=np.int64)
    for _ in range(13):
        parts, part_totals = [], []
        for c in range(5):
            keep = totals + c <= most
            parts.append(np.concatenate(
                [counts[keep], np.full((int(keep.sum()), 1), c, dtype=np.int8)], axis=1))
            part_totals.append(totals[keep] + c)
        counts, totals = np.concatenate(parts), np.concatenate(part_totals)
    return counts


def multiset_counts(size: int) -> npt.NDArray[np.int8]:
    """Every multiset of ``size`` ranks with no rank more than four times, as counts (M, 13)."""
    counts = _all_counts(max(size, 7))
    selected: npt.NDArray[np.int8] = counts[counts.sum(axis=1, dtype=np.int64) == size]
    return selected


def _pack(category: int, ranks: IntArray) -> IntArray:
    value = np.full(ranks.shape[0], category << CATEGORY_SHIFT, dtype=np.int64)
    for i in range(ranks.shape[1]):
        value |= np.maximum(ranks[:, i], 0) << (16 - 4 * i)
    return value


def straight_top(present: npt.NDArray[np.bool_]) -> IntArray:
    """The top rank of the best straight in each row of rank-presence flags, -1 if none."""
    top = np.full(present.shape[0], -1, dtype=np.int64)
    run = present[:, 12].astype(np.int64)  # the ace also plays low, below the deuce
    for rank in range(13):
        run = np.where(present[:, rank], run + 1, 0)
        top = np.where(run >= 5, rank, top)
    return top


def rank_values(counts: npt.NDArray[np.int8]) -> IntArray:
    """Best non-flush strength of each row of rank counts (5 to 7 cards), rule R18.

    One sort orders each row's ranks by (count, rank), highest first: ``KKK77`` gives
    ``K, 7``; the deciding ranks of every category are then read off the front, except the
    kicker of quads and of two pair, which is the highest other rank whatever its count.
    """
    c = counts.astype(np.int64)
    order = -np.sort(-(c * 16 + _RANKS), axis=1)
    g, n = order & 15, order >> 4          # ranks and their counts, most significant first
    g = np.where(n > 0, g, -1)
    present = c > 0

    def best_other(*exclude: IntArray) -> IntArray:
        mask = present.copy()
        for rank in exclude:
            mask &= rank[:, None] != _RANKS
        best: IntArray = np.where(mask, _RANKS, -1).max(axis=1)
        return best

    st_top = straight_top(present)
    quads = _pack(FOUR_OF_A_KIND, np.stack([g[:, 0], best_other(g[:, 0])], axis=1))
    full = _pack(FULL_HOUSE, g[:, :2])
    straight = _pack(STRAIGHT, st_top[:, None])
    trips = _pack(THREE_OF_A_KIND, g[:, :3])
    two_pair = _pack(TWO_PAIR, np.stack([g[:, 0], g[:, 1], best_other(g[:, 0], g[:, 1])],
                                        axis=1))
    pair = _pack(PAIR, g[:, :4])
    high = _pack(HIGH_CARD, g[:, :5])
    result: IntArray = np.select(
        [n[:, 0] == 4, (n[:, 0] == 3) & (n[:, 1] >= 2), st_top >= 0, n[:, 0] == 3,
         n[:, 1] == 2, n[:, 0] == 2],
        [quads, full, straight, trips, two_pair, pair],
        default=high,
    )
    return result


LOW_BASE: Final = 5 ** 7
"""Keys split into the ranks deuce to eight (``key % LOW_BASE``) and nine to ace (``//``)."""


def _build_dense() -> tuple[Int32Array, Int32Array, Int32Array]:
    """A minimal perfect hash of every rank multiset of at most seven cards.

    ``index = LOW_OFFSET[key % 5**7] + HIGH_INDEX[key // 5**7]``. High halves are numbered by
    card count first, so those with at most ``n`` cards are a prefix of length ``fits[n]``; each
    low half owns a run of ``fits[7 - its cards]`` slots. Every index is distinct and there are
    no gaps (about 76,000 slots, 300 kB).
    """
    all_counts = np.concatenate([multiset_counts(n) for n in range(8)]).astype(np.int64)
    low_counts, high_counts = all_counts[:, :7], all_counts[:, 7:]
    high_keys, first = np.unique(high_counts @ POW5[:6], return_index=True)
    high_total = high_counts[first].sum(axis=1)
    order = np.lexsort((high_keys, high_total))
    high_index = np.full(5 ** 6, -1, dtype=np.int32)
    high_index[high_keys[order]] = np.arange(len(order), dtype=np.int32)
    fits = np.array([(high_total <= n).sum() for n in range(8)], dtype=np.int64)
    low_keys, first = np.unique(low_counts @ POW5[:7], return_index=True)
    runs = fits[7 - low_counts[first].sum(axis=1)]
    low_offset = np.full(LOW_BASE, -1, dtype=np.int32)
    low_offset[low_keys] = (np.cumsum(runs) - runs).astype(np.int32)
    size = int(runs.sum())
    counts = all_counts[all_counts.sum(axis=1) >= 5]
    index = low_offset[counts[:, :7] @ POW5[:7]] + high_index[counts[:, 7:] @ POW5[:6]]
    if len(np.unique(index)) != len(index) or index.min() < 0:  # pragma: no cover
        raise AssertionError("rank multiset hash is not perfect")
    values = np.zeros(size, dtype=np.int32)
    values[index] = rank_values(counts.astype(np.int8))
    return low_offset, high_index, values


def _build_flush() -> Int32Array:
    masks = np.arange(1 << 13, dtype=np.int64)
    bits = ((masks[:, None] >> _RANKS) & 1).astype(np.int8)
    five = bits.sum(axis=1) >= 5
    values = np.zeros(1 << 13, dtype=np.int64)
    sub = rank_values(bits[five])  # distinct ranks: a straight or a high-card hand
    category = sub >> CATEGORY_SHIFT
    low = sub & ((1 << CATEGORY_SHIFT) - 1)
    flush_category = np.where(category == STRAIGHT, STRAIGHT_FLUSH, FLUSH)
    values[five] = (flush_category << CATEGORY_SHIFT) | low
    return values.astype(np.int32)


LOW_OFFSET, HIGH_INDEX, DENSE_VALUES = _build_dense()
FLUSH_VALUES: Final[Int32Array] = _build_flush()

CARD_KEY: Final[IntArray] = POW5[np.arange(52) >> 2]
"""``CARD_KEY[card index]``: the card's contribution to a rank multiset key."""
CARD_BIT: Final[IntArray] = np.int64(1) << ((np.arange(52, dtype=np.int64) & 3) * 16
                                            + (np.arange(52, dtype=np.int64) >> 2))
"""``CARD_BIT[card index]``: one bit per card, 16 bits per suit (ranks 0-12 in each)."""


def dense_index(keys: IntArray) -> IntArray:
    """Slot of each rank multiset key (0 to 7 cards) in :data:`DENSE_VALUES`."""
    # Float division is exact here (keys < 5**13 < 2**53, and a quotient is never within
    # 1e-5 of the next integer) and much faster than integer division.
    high = np.floor(keys * (1.0 / LOW_BASE)).astype(np.int64)
    low = keys - high * LOW_BASE
    index: IntArray = LOW_OFFSET[low] + HIGH_INDEX[high]
    return index


def multiset_value(keys: IntArray) -> Int32Array:
    """Non-flush strength for multiset keys (5-7 ranks). Keys must be valid multisets."""
    values: Int32Array = DENSE_VALUES[dense_index(keys)]
    return values


def _build_board_pairs() -> tuple[Int32Array, IntArray, Int32Array]:
    board_counts = multiset_counts(5).astype(np.int64)
    lo, hi = np.triu_indices(13)
    pair_counts = np.zeros((len(lo), 13), dtype=np.int64)
    pair_counts[np.arange(len(lo)), lo] += 1
    pair_counts[np.arange(len(lo)), hi] += 1
    # A board and a pair cannot hold five cards of one rank: those cells are never read.
    valid = ((pair_counts[:, None, :] + board_counts[None, :, :]) <= 4).all(axis=2)
    keys = (pair_counts @ POW5)[:, None] + (board_counts @ POW5)[None, :]
    values = np.zeros(keys.shape, dtype=np.int32)
    values[valid] = multiset_value(keys[valid])
    board_slot = np.full(len(DENSE_VALUES), -1, dtype=np.int32)
    board_slot[dense_index(board_counts @ POW5)] = np.arange(len(board_counts), dtype=np.int32)
    return board_slot, pair_counts @ POW5, values


BOARD_SLOT, PAIR_KEYS, BOARD_PAIR_VALUES = _build_board_pairs()
"""The board number of each five-card rank multiset (by dense slot), the 91 hole rank pairs
(keys, in ``np.triu_indices(13)`` order) and the non-flush strength of every pair with every board:
``BOARD_PAIR_VALUES[pair, board]`` (91 x 6,175, 2.2 MB; pair-major so that a player's values
over many boards are contiguous)."""


def _order_ranks() -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int16]]:
    # Equity only compares values, so it works on their order: 0 (no hand) and 1 ... 7,462
    # (the distinct hand values, weakest first) fit in 16 bits and halve the memory traffic.
    distinct = np.unique(np.concatenate([[0], DENSE_VALUES, FLUSH_VALUES]))
    board_pair = np.searchsorted(distinct, BOARD_PAIR_VALUES).astype(np.int16)
    flush = np.searchsorted(distinct, FLUSH_VALUES).astype(np.int16)
    return board_pair, flush


BOARD_PAIR_ORDER, FLUSH_ORDER = _order_ranks()
""":data:`BOARD_PAIR_VALUES` and :data:`FLUSH_VALUES` as order ranks (int16, same order)."""


def board_index(keys: IntArray) -> Int32Array:
    """Column of :data:`BOARD_PAIR_VALUES` for five-card rank multiset keys."""
    index: Int32Array = BOARD_SLOT[dense_index(keys)]
    return index


def pair_index(key: int) -> int:
    """Row of :data:`BOARD_PAIR_VALUES` for the rank key of two hole cards."""
    return int(np.flatnonzero(key == PAIR_KEYS)[0])


