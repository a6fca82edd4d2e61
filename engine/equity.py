"""Exact all-in equity of 2-10 known Hold'em hands on any street, with dead cards and outs.

>>> result = equity(["AhAs", "KdKc"])
>>> result.boards, result.players[0].wins, result.players[0].ties
(1712304, 1388072, 6538)
>>> round(float(result.players[0].equity), 4)
0.8126

Every remaining board is counted exactly, but not one by one. Without a flush, a player's
hand value depends only on the *ranks* on the board, so boards are enumerated as multisets of
ranks, each weighted by the number of ways the remaining cards can deal it (the product over
ranks of ``C(cards left of that rank, times dealt)``). Only boards with three or more cards of
one suit can make a flush, and only when some player can reach five of that suit; those boards
are enumerated again as (the new cards of that suit, a multiset of the other new cards) and the
difference between their true outcome and their rank-only outcome is added. A board has at most
one suit with three or more cards, so no board is corrected twice.

Dead cards (mucked hands and any other card known to be out, rule R20) are simply not dealt.
Burn cards are unknown and so stay in the deck (R19).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

from engine import _tables as t
from engine.cards import Card, ensure_distinct, format_cards, parse_cards
from engine.errors import InvalidBoardError, InvalidHandError, PlayerCountError
from engine.evaluator import describe_strength, evaluate_batch

__all__ = ["EquityResult", "Outs", "PlayerEquity", "equity", "hit_chances"]

MIN_PLAYERS = 2
MAX_PLAYERS = 10
STREETS = {0: "preflop", 3: "flop", 4: "turn", 5: "river"}

CardsLike = str | Iterable[str | Card]
I64 = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class Outs:
    """What the next card does for one player (on the flop and the turn only)."""

    leading: bool
    """Whether the player holds the best hand now (alone or shared)."""
    outs: tuple[Card, ...]
    """The next cards after which the player holds the best hand, alone or shared."""
    lead_lost_on: tuple[Card, ...]
    """For a player leading now: the next cards after which they no longer hold the best hand."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "leading": self.leading,
            "outs": [c.code for c in self.outs],
            "lead_lost_on": [c.code for c in self.lead_lost_on],
        }


def hit_chances(outs: int, unseen: int, board: int) -> tuple[float, float]:
    """The chance that one of ``outs`` comes on the next card, and by the river, with
    ``unseen`` cards left that could come and ``board`` cards on the board (3 or 4).

    Counted exactly over the cards to come (no "rule of 4 and 2"): by the river from the flop
    is one less the chance that neither of the two cards is an out. On the turn both are the
    river card's chance.

    >>> hit_chances(9, 45, 3)    # a flush draw on the flop, heads-up
    (0.2, 0.3636)
    >>> hit_chances(9, 44, 4)
    (0.2045, 0.2045)
    >>> hit_chances(0, 45, 3)
    (0.0, 0.0)
    """
    if not 0 <= outs <= unseen or board not in (3, 4):
        raise ValueError(f"{outs} outs of {unseen} cards on a board of {board}")
    if unseen == 0:
        return 0.0, 0.0
    nxt = outs / unseen
    if board == 4 or unseen < 2:
        return round(nxt, 4), round(nxt, 4)
    miss = (unseen - outs) * (unseen - outs - 1) / (unseen * (unseen - 1))
    return round(nxt, 4), round(1 - miss, 4)


@dataclass(frozen=True, slots=True)
class PlayerEquity:
    """One player's exact result over every remaining board."""

    hand: tuple[Card, ...]
    wins: int
    """Boards on which this player alone holds the best hand."""
    ties: int
    """Boards on which this player shares the best hand (a split pot)."""
    equity: Fraction
    """(wins + split shares) / boards; a k-way split counts 1/k."""
    boards: int
    """The number of boards enumerated (the same for every player)."""
    hand_now: str | None = None
    """The player's current made hand, spoken (``None`` preflop)."""
    outs: Outs | None = None
    """On the flop and the turn; ``None`` preflop and on the river."""

    @property
    def win(self) -> Fraction:
        """Share of boards won outright."""
        return Fraction(self.wins, self.boards)

    @property
    def tie(self) -> Fraction:
        """Share of boards split."""
        return Fraction(self.ties, self.boards)

    @property
    def equity_float(self) -> float:
        return float(self.equity)

    def to_dict(self) -> dict[str, Any]:
        return {
            "hand": format_cards(self.hand),
            "wins": self.wins,
            "ties": self.ties,
            "win": str(self.win),
            "tie": str(self.tie),
            "equity": str(self.equity),
            "equity_float": self.equity_float,
            "boards": self.boards,
            "hand_now": self.hand_now,
            "outs": None if self.outs is None else self.outs.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class EquityResult:
    """Exact equity of every player, in the order the hands were given."""

    players: tuple[PlayerEquity, ...]
    board: tuple[Card, ...]
    dead: tuple[Card, ...]
    boards: int
    """How many boards were counted: C(cards left, cards to come)."""

    @property
    def street(self) -> str:
        return STREETS[len(self.board)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "street": self.street,
            "board": format_cards(self.board),
            "dead": format_cards(self.dead),
            "boards": self.boards,
            "players": [p.to_dict() for p in self.players],
        }


# ---------------------------------------------------------------------------------------------
# Precomputed, cached small tables

_BINOM = np.array([[comb(n, k) for k in range(6)] for n in range(14)], dtype=np.int64)


@cache
def _multisets(size: int) -> tuple[npt.NDArray[np.int8], I64]:
    """All multisets of ``size`` ranks (each rank at most 4 times): counts and keys."""
    counts = t.multiset_counts(size)
    return np.ascontiguousarray(counts.T).T, counts.astype(np.int64) @ t.POW5


@cache
def _combos(n: int, k: int) -> npt.NDArray[np.intp]:
    """Index arrays of every k-subset of range(n), shape (C(n, k), k)."""
    return np.array(list(combinations(range(n), k)), dtype=np.intp).reshape(comb(n, k), k)


def _weighted_multisets(avail: I64, size: int) -> tuple[I64, I64]:
    """Keys and deal counts of the rank multisets of ``size`` cards dealable from ``avail``.

    ``avail[r]`` is how many cards of rank r are left; a multiset taking c_r of rank r can be
    dealt in prod_r C(avail[r], c_r) ways. Multisets that cannot be dealt are dropped.
    """
    counts, keys = _multisets(size)
    if len(keys) < 1000:
        weights = _BINOM[avail[None, :], counts].prod(axis=1)
    else:
        weights = np.ones(len(keys), dtype=np.int64)
        for rank in range(13):  # column by column: numpy reduces short rows slowly
            weights *= _BINOM[avail[rank]][counts[:, rank]]
    keep = weights > 0
    return keys[keep], weights[keep]


# ---------------------------------------------------------------------------------------------
# Outcome counting


def _tally(values: npt.NDArray[np.int16], weights: I64) -> tuple[I64, I64]:
    """Weighted outcome counts for player-major values (P, N): one column per board kind.

    Returns ``wins`` (P,) and ``splits`` (P, P + 1): ``splits[p, k]`` counts boards on which
    player p shares the best hand with k - 1 others. Weights may be negative (corrections).
    """
    n_players = values.shape[0]
    winner = values == values.max(axis=0)
    n_best = winner.sum(axis=0, dtype=np.int8)
    alone = n_best == 1
    # A board won outright has one winner: its number is the sum of player number * winner.
    # bincount sums in float64, exactly: every partial sum stays far below 2**53.
    who = (winner * np.arange(n_players, dtype=np.int8)[:, None]).sum(axis=0, dtype=np.int8)
    wins = np.rint(np.bincount(who[alone], weights=weights[alone], minlength=n_players))
    splits = np.zeros((n_players, n_players + 1), dtype=np.int64)
    shared = np.flatnonzero(~alone)
    if len(shared):
        shared_winner = np.take(winner, shared, axis=1).astype(np.int64)
        shared_n, shared_weights = n_best[shared], weights[shared]
        for k in np.unique(shared_n).tolist():
            splits[:, k] = shared_winner @ np.where(shared_n == k, shared_weights, 0)
    return wins.astype(np.int64), splits


def _hand_key(cards: Iterable[Card]) -> int:
    return sum(5 ** c.rank for c in cards)


def _suit_mask(cards: Iterable[Card], suit: int) -> int:
    return sum(1 << c.rank for c in cards if c.suit == suit)


def board_classes(hands: Sequence[tuple[Card, ...]], board: tuple[Card, ...],
                  available: Sequence[Card]) -> tuple[npt.NDArray[np.int16], I64, int]:
    """Every completion of ``board`` from ``available`` as classes of boards that value each
    hand alike: the hands' order values per class (player-major, higher is better, comparable
    between hands), how many boards each class stands for (negative for corrections) and the
    number of boards. Used by :func:`equity` and by the all-in outcomes of
    :mod:`engine.icm`."""
    to_come = 5 - len(board)
    board_key = _hand_key(board)
    pairs = np.array([t.pair_index(_hand_key(h)) for h in hands], dtype=np.intp)
    table = t.BOARD_PAIR_ORDER[pairs]  # (P, 6175): each player's non-flush values, in order

    avail = np.zeros(13, dtype=np.int64)
    for card in available:
        avail[card.rank] += 1

    # 1. Every board by its rank multiset, valued as if no flush were possible.
    keys, weights = _weighted_multisets(avail, to_come)
    segments = [np.take(table, t.board_index(board_key + keys), axis=1)]
    seg_weights = [weights]
    boards = int(weights.sum())

    # 2. Boards with three or more of one suit on which some player can hold a flush: count
    #    them again with their true values, and once more with negative weights at their
    #    rank-only values (which step 1 counted), so that one tally settles everything.
    for suit in range(4):
        on_board = sum(1 for c in board if c.suit == suit)
        in_hand = max(sum(1 for c in h if c.suit == suit) for h in hands)
        suited = [c for c in available if c.suit == suit]
        first = max(0, 5 - on_board - in_hand)
        if first > min(to_come, len(suited)):
            continue
        others = avail.copy()
        for card in suited:
            others[card.rank] -= 1
        hand_masks = np.array([_suit_mask(board, suit) | _suit_mask(h, suit) for h in hands],
                              dtype=np.int64)
        suited_pow = np.array([5 ** c.rank for c in suited], dtype=np.int64)
        suited_bit = np.array([1 << c.rank for c in suited], dtype=np.int64)
        for k in range(first, min(to_come, len(suited)) + 1):
            picks = _combos(len(suited), k)
            s_keys = np.zeros(len(picks), dtype=np.int64)
            s_masks = np.zeros(len(picks), dtype=np.int64)
            for column in range(k):
                s_keys += suited_pow[picks[:, column]]
                s_masks |= suited_bit[picks[:, column]]
            o_keys, o_weights = _weighted_multisets(others, to_come - k)  # (O,)
            if not len(o_keys):
                continue
            flush = t.FLUSH_ORDER[hand_masks[:, None] | s_masks[None, :]]  # (P, S)
            any_flush = flush.max(axis=0) > 0
            s_keys, flush = s_keys[any_flush], flush[:, any_flush]
            boards_so = t.board_index(board_key + s_keys[:, None] + o_keys[None, :])  # (S, O)
            rank_only = np.take(table, boards_so, axis=1)  # (P, S, O)
            true = np.maximum(rank_only, flush[:, :, None])
            changed = np.flatnonzero((flush[:, :, None] > rank_only).any(axis=0))
            w = np.take(np.broadcast_to(o_weights, boards_so.shape), changed)
            segments += [np.take(true.reshape(len(hands), -1), changed, axis=1),
                         np.take(rank_only.reshape(len(hands), -1), changed, axis=1)]
            seg_weights += [w, -w]
    if len(segments) == 1:
        return segments[0], weights, boards
    return np.concatenate(segments, axis=1), np.concatenate(seg_weights), boards


def _count(hands: Sequence[tuple[Card, ...]], board: tuple[Card, ...],
           available: Sequence[Card]) -> tuple[I64, I64, int]:
    """Exact weighted wins and splits over every completion of ``board`` from ``available``."""
    values, weights, boards = board_classes(hands, board, available)
    wins, splits = _tally(values, weights)
    return wins, splits, boards


def _outs(hands: Sequence[tuple[Card, ...]], board: tuple[Card, ...],
          available: Sequence[Card]) -> tuple[list[Outs], list[int]]:
    """Outs for the next card, and each player's current strength."""
    n_players = len(hands)
    now_rows = np.array([[c.index for c in (*h, *board)] for h in hands], dtype=np.int64)
    now = evaluate_batch(now_rows, check=False)
    leading = now == now.max()
    nxt = np.array([c.index for c in available], dtype=np.int64)
    rows = np.concatenate([np.repeat(now_rows[None, :, :], len(nxt), axis=0),
                           np.broadcast_to(nxt[:, None, None], (len(nxt), n_players, 1))],
                          axis=2)
    after = evaluate_batch(rows.reshape(-1, rows.shape[2]), check=False).reshape(len(nxt), -1)
    best_after = after == after.max(axis=1, keepdims=True)   # (cards, players)
    result = []
    for p in range(n_players):
        outs = tuple(available[i] for i in np.flatnonzero(best_after[:, p]).tolist())
        lost = tuple(available[i] for i in np.flatnonzero(~best_after[:, p]).tolist()) \
            if leading[p] else ()
        result.append(Outs(leading=bool(leading[p]), outs=outs, lead_lost_on=lost))
    return result, now.tolist()


def _parse_hand(number: int, hand: CardsLike) -> tuple[Card, ...]:
    cards = parse_cards(hand, distinct=False)
    if len(cards) != 2:
        shown = hand if isinstance(hand, str) else format_cards(cards, " ")
        raise InvalidHandError(
            f"hand {number} ({shown!r}) has {len(cards)} card{'s' * (len(cards) != 1)};"
            " a Hold'em hand is exactly 2 cards")
    return cards


def equity(hands: Sequence[CardsLike], board: CardsLike = (),
           dead: CardsLike = ()) -> EquityResult:
    """Exact equity of 2-10 known hands over every remaining board.

    ``hands`` are two cards each (``"AhAs"`` or ``[Card('Ah'), Card('As')]``); ``board`` has
    0, 3, 4 or 5 cards; ``dead`` cards are out of the deck (mucked hands, rule R20). Outs are
    computed on the flop and the turn.

    :raises PlayerCountError: for fewer than 2 or more than 10 hands.
    :raises InvalidHandError: for a hand that is not exactly two cards.
    :raises InvalidBoardError: for a board of 1, 2 or more than 5 cards, or too few cards left.
    :raises InvalidCardError: for a token that is not a card (a ``DuplicateCardError`` for a
        card given twice anywhere).
    """
    if isinstance(hands, str):
        hands = hands.split()
    if not MIN_PLAYERS <= len(hands) <= MAX_PLAYERS:
        raise PlayerCountError(
            f"equity needs {MIN_PLAYERS} to {MAX_PLAYERS} hands, got {len(hands)}")
    parsed = [_parse_hand(i + 1, h) for i, h in enumerate(hands)]
    board_cards = parse_cards(board, distinct=False)
    dead_cards = parse_cards(dead, distinct=False)
    if len(board_cards) not in STREETS:
        raise InvalidBoardError(
            f"a board has 0, 3, 4 or 5 cards (preflop, flop, turn, river), got "
            f"{len(board_cards)}: {format_cards(board_cards, ' ')}")
    ensure_distinct(*parsed, board_cards, dead_cards)
    used = {c for group in (*parsed, board_cards, dead_cards) for c in group}
    available = [Card.from_index(i) for i in range(52) if Card.from_index(i) not in used]
    to_come = 5 - len(board_cards)
    if len(available) < to_come:
        raise InvalidBoardError(
            f"only {len(available)} cards left to deal {to_come} board cards: too many dead cards")

    wins, splits, boards = _count(parsed, board_cards, available)
    if boards != comb(len(available), to_come):  # pragma: no cover - an internal invariant
        raise AssertionError(f"counted {boards} boards, expected "
                             f"{comb(len(available), to_come)}")
    outs: list[Outs | None] = [None] * len(parsed)
    now: list[str | None] = [None] * len(parsed)
    if board_cards:
        if to_come in (1, 2):
            outs_list, strengths = _outs(parsed, board_cards, available)
            outs = list(outs_list)
        else:
            rows = np.array([[c.index for c in (*h, *board_cards)] for h in parsed])
            strengths = evaluate_batch(rows, check=False).tolist()
        now = [describe_strength(s) for s in strengths]
    players = []
    for p, hand in enumerate(parsed):
        ties = int(splits[p].sum())
        share = Fraction(int(wins[p])) + sum(
            (Fraction(int(splits[p, k]), k) for k in range(2, len(parsed) + 1)), Fraction(0))
        players.append(PlayerEquity(hand=hand, wins=int(wins[p]), ties=ties,
                                    equity=share / boards, boards=boards,
                                    hand_now=now[p], outs=outs[p]))
    return EquityResult(players=tuple(players), board=board_cards, dead=dead_cards,
                        boards=boards)
