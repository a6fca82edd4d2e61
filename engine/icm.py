"""ICM for commentators: prize equity by the Malmuth-Harville model, and what an all-in puts
at stake.

**The model.** A player wins with probability stack / total chips; given the winner, second
place goes the same way among the others, and so on. A player's prize equity is the sum over
places of P(finishing there) x that place's prize.

**Exactly, fast.** The probability that a given *set* S of players takes the first |S|
places (in some order) is the same whatever the order inside S was, so it is computed once per
set: f(S + {j}) += f(S) x s_j / (T - s(S)). Player j takes place |S| + 1 after S with
f(S) x s_j / (T - s(S)). Only sets smaller than the number of paid places matter. The sets are
processed a layer (one size) at a time in numpy, for many stack vectors at once (every outcome
of an all-in in one pass): exact up to float rounding (1e-12) for up to ten players.

Players with no chips take the last places: :func:`icm` splits those places' prizes equally
among them (their order is unknown); in an all-in outcome the players busting in it are
ranked by R22 (stacks at the start of the hand).

>>> [round(x, 2) for x in icm([5000, 3000, 2000], [50, 30, 20])]
[38.39, 32.75, 28.86]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from math import comb
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from engine.cards import Card, ensure_distinct, parse_cards
from engine.equity import board_classes, equity
from engine.errors import InvalidBoardError, InvalidInputError, PlayerCountError
from engine.pots import Pot, split_pot

if TYPE_CHECKING:
    from engine.hand import Hand

__all__ = ["MAX_PLAYERS", "AllIn", "AllInOutcome", "allin_for_hand", "allin_outcomes", "icm",
           "icm_batch"]

CardsLike = str | Iterable[str | Card]

MAX_PLAYERS = 10
F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class _Layer:
    """The step from the sets of one size to the next: every (set, player outside it) pair,
    ordered by the set it makes (each made by ``size + 1`` pairs in a row)."""

    src: npt.NDArray[np.intp]  # the pair's set (its row in this layer)
    player: npt.NDArray[np.intp]  # the player added
    by_player: npt.NDArray[np.intp]  # the pairs reordered by player (C(n-1, size) each)


@cache
def _layers(n: int) -> tuple[_Layer, ...]:
    by_size: list[list[int]] = [[] for _ in range(n + 1)]
    for mask in range(1 << n):
        by_size[mask.bit_count()].append(mask)
    layers = []
    for size in range(n):
        row = {m: i for i, m in enumerate(by_size[size])}
        pairs = [(row[made & ~(1 << j)], j) for made in by_size[size + 1]
                 for j in range(n) if made >> j & 1]
        src = np.array([i for i, _ in pairs], dtype=np.intp)
        player = np.array([j for _, j in pairs], dtype=np.intp)
        layers.append(_Layer(src, player, np.argsort(player, kind="stable")))
    return tuple(layers)


def icm_batch(stacks: npt.ArrayLike, prizes: Sequence[float]) -> F64:
    """Malmuth-Harville prize equity of every row of ``stacks`` (shape (rows, n), n <= 10,
    chips >= 0, each row with chips), paying ``prizes[k]`` for place k + 1 (places beyond the
    list pay 0). Players with no chips get 0 here (see :func:`icm` for their places)."""
    s = np.asarray(stacks, dtype=np.float64)
    rows, n = s.shape
    paid = [float(p) for p in prizes[:n]]
    while paid and paid[-1] == 0:
        paid.pop()
    equity = np.zeros((rows, n))
    if not paid or n == 0:
        return equity
    rest = s.sum(axis=1, keepdims=True)  # chips outside each set (the empty set first)
    f = np.ones((rows, 1))  # P(the set took the first places)
    for size, layer in enumerate(_layers(n)[:len(paid)]):
        safe = np.where(rest > 0, rest, 1.0)
        w = np.where(rest > 0, f / safe, 0.0)
        step = w[:, layer.src] * s[:, layer.player]  # P(the set, then this player)
        if paid[size]:
            equity += paid[size] * step[:, layer.by_player].reshape(rows, n, -1).sum(axis=2)
        if size + 1 < len(paid):
            f = step.reshape(rows, -1, size + 1).sum(axis=2)
            rest = (rest[:, layer.src] - s[:, layer.player])[:, ::size + 1]
    return equity


def icm(stacks: Sequence[int], prizes: Sequence[float]) -> tuple[float, ...]:
    """Each player's prize equity (Malmuth-Harville), in the order of ``stacks``.

    ``prizes[k]`` is the prize for place k + 1 among these players (pass the prizes of the
    places still to be decided); the equities sum to the prizes of the first
    ``len(stacks)`` places. Players with no chips share the last places' prizes equally.

    :raises PlayerCountError: for more than ten players (the exact model is exponential).
    :raises InvalidInputError: for a negative stack or prize, or no chips at all.
    """
    _check(stacks, prizes)
    n = len(stacks)
    alive = [i for i, c in enumerate(stacks) if c > 0]
    out = [0.0] * n
    if alive:
        row = icm_batch([[stacks[i] for i in alive]], prizes)[0]
        for k, i in enumerate(alive):
            out[i] = float(row[k])
    zero = [i for i, c in enumerate(stacks) if c == 0]
    if zero:
        tail = sum(float(p) for p in prizes[len(alive):n]) / len(zero)
        for i in zero:
            out[i] = tail
    return tuple(out)


def _check(stacks: Sequence[int], prizes: Sequence[float]) -> None:
    if not 1 <= len(stacks) <= MAX_PLAYERS:
        raise PlayerCountError(f"ICM takes 1 to {MAX_PLAYERS} players, got {len(stacks)}")
    if any(c < 0 for c in stacks):
        raise InvalidInputError(f"a stack cannot be negative: {list(stacks)}")
    if not any(c > 0 for c in stacks):
        raise InvalidInputError("ICM needs at least one player with chips")
    if any(p < 0 for p in prizes):
        raise InvalidInputError(f"a prize cannot be negative: {list(prizes)}")


@dataclass(frozen=True, slots=True)
class AllInOutcome:
    """One way an all-in can end."""

    probability: float
    stacks: tuple[int, ...]
    """Every player's stack after the hand (order of :attr:`AllIn.seats`)."""
    winners: tuple[int, ...]
    """Seats that win chips in the showdown (any pot)."""
    busted: tuple[int, ...]
    """Seats out of the tournament, best finish first (R22)."""
    doubled: tuple[int, ...]
    """Seats that end the hand with more chips than they started it with."""
    split: bool
    """Some pot is split."""
    equity: tuple[float, ...]
    """Every player's prize equity afterwards (a busted player: his place's prize)."""

    def to_dict(self) -> dict[str, Any]:
        return {"probability": self.probability, "stacks": list(self.stacks),
                "winners": list(self.winners), "busted": list(self.busted),
                "doubled": list(self.doubled), "split": self.split,
                "equity": list(self.equity)}


@dataclass(frozen=True, slots=True)
class AllIn:
    """An all-in for the commentators: every outcome, and per player the chip equity (the
    share of the pot he can expect, as :func:`engine.equity.equity` counts it) next to the
    prize equity before and (expected) after."""

    seats: tuple[int, ...]
    chip_equity: tuple[float, ...]
    """Expected share of the chips in the middle (0 for players not in the showdown)."""
    expected_stacks: tuple[float, ...]
    equity_before: tuple[float, ...]
    """Prize equity with the stacks as they were at the start of the hand."""
    expected_equity: tuple[float, ...]
    """Prize equity expected over the outcomes (sum of probability x equity)."""
    outcomes: tuple[AllInOutcome, ...]
    boards: int
    """Boards counted (every remaining board, exactly)."""

    def to_dict(self) -> dict[str, Any]:
        return {"seats": list(self.seats), "chip_equity": list(self.chip_equity),
                "expected_stacks": list(self.expected_stacks),
                "equity_before": list(self.equity_before),
                "expected_equity": list(self.expected_equity), "boards": self.boards,
                "outcomes": [o.to_dict() for o in self.outcomes]}


def allin_outcomes(*, seats: Sequence[int], stacks: Sequence[int],
                   start_stacks: Sequence[int], pots: Sequence[Pot],
                   hands: Mapping[int, CardsLike], prizes: Sequence[float],
                   board: CardsLike = (), dead: CardsLike = (), chip_unit: int = 1) -> AllIn:
    """Every outcome of an all-in showdown with its exact probability and prize equities.

    ``seats`` are every player still in the tournament (at this table), ``stacks`` their
    chips behind, ``start_stacks`` at the start of the hand (R22 ranks busts by them);
    ``pots`` (:class:`engine.pots.Pot`: amount and the seats that can win it, main pot first)
    hold the rest; ``hands`` are the known hole cards of every seat in a pot; ``prizes`` are
    the prizes of places 1 .. len(seats). Probabilities count every remaining board (a board
    of 0, 3 or 4 cards; ``dead`` cards are out of the deck, R20). A split pot's odd chip goes
    to the first of its winners in the pot's seat order (R17).

    :raises InvalidInputError: for mismatched lengths, a pot seat that is not a player or
        has no known cards, and as :func:`engine.equity.equity` for bad cards.
    """
    n = len(seats)
    if not (len(stacks) == len(start_stacks) == n):
        raise InvalidInputError("seats, stacks and start_stacks must have one entry per player")
    _check([*stacks] if any(stacks) else [*start_stacks], prizes)
    index = {seat: i for i, seat in enumerate(seats)}
    contenders = [s for s in seats if any(s in pot.seats for pot in pots)]
    for pot in pots:
        for seat in pot.seats:
            if seat not in index:
                raise InvalidInputError(f"seat {seat} has chips in a pot but is not a player")
    cards: list[tuple[Card, ...]] = []
    for seat in contenders:
        held = hands.get(seat)
        parsed = parse_cards(held, distinct=False) if held is not None else ()
        if len(parsed) != 2:
            raise InvalidInputError(f"seat {seat} is in the pot but its two hole cards are "
                                    "not known")
        cards.append(parsed)
    board_cards = parse_cards(board, distinct=False)
    dead_cards = parse_cards(dead, distinct=False)
    ensure_distinct(*cards, board_cards, dead_cards)
    patterns, counts, boards = _showdowns(cards, board_cards, dead_cards)
    total_pot = sum(pot.amount for pot in pots)

    merged: dict[tuple[tuple[int, ...], bool], list[Any]] = {}
    for pattern, count in zip(patterns, counts, strict=True):
        if not count:
            continue  # heads-up: a tie that no board makes
        rank = {seat: int(pattern[k]) for k, seat in enumerate(contenders)}
        final = list(stacks)
        winners: set[int] = set()
        split = False
        for pot in pots:
            if len(pot.seats) == 1:  # uncontested: his own chips back
                final[index[pot.seats[0]]] += pot.amount
                continue
            best = min(rank[seat] for seat in pot.seats)
            won = [seat for seat in pot.seats if rank[seat] == best]
            split |= len(won) > 1
            winners.update(won)
            for seat, share in zip(won, split_pot(pot.amount, len(won), chip_unit=chip_unit),
                                   strict=True):
                final[index[seat]] += share
        entry = merged.setdefault((tuple(final), split), [0, set()])
        entry[0] += int(count)
        entry[1] |= winners

    # One pass for every outcome and the stacks before the hand (the last row).
    rows = np.array([*(key[0] for key in merged), start_stacks], dtype=np.float64)
    survivors = icm_batch(rows, prizes)
    before = (tuple(float(x) for x in survivors[-1]) if all(c > 0 for c in start_stacks)
              else icm(start_stacks, prizes))
    outcomes = []
    for row, ((after, split), (count, winners)) in enumerate(merged.items()):
        busted = _r22([i for i in range(n) if after[i] == 0], start_stacks)
        equity = [float(x) for x in survivors[row]]
        place = n - sum(len(group) for group in busted) + 1
        out_seats: list[int] = []
        for group in busted:  # R22: larger start stack first; equal stacks share the places
            tail = sum(float(p) for p in prizes[place - 1:place - 1 + len(group)])
            for i in group:
                equity[i] = tail / len(group)
                out_seats.append(seats[i])
            place += len(group)
        outcomes.append(AllInOutcome(
            probability=count / boards, stacks=after,
            winners=tuple(s for s in seats if s in winners), busted=tuple(out_seats),
            doubled=tuple(seats[i] for i in range(n) if after[i] > start_stacks[i]),
            split=split, equity=tuple(equity)))
    outcomes.sort(key=lambda o: -o.probability)
    expected_stacks = tuple(sum(o.probability * o.stacks[i] for o in outcomes)
                            for i in range(n))
    chip_equity = tuple((expected_stacks[i] - stacks[i]) / total_pot
                        if total_pot and seats[i] in contenders else 0.0 for i in range(n))
    return AllIn(seats=tuple(seats), chip_equity=chip_equity, expected_stacks=expected_stacks,
                 equity_before=before,
                 expected_equity=tuple(sum(o.probability * o.equity[i] for o in outcomes)
                                       for i in range(n)),
                 outcomes=tuple(outcomes), boards=boards)


def allin_for_hand(hand: Hand, prizes: Sequence[float]) -> AllIn | None:
    """:func:`allin_outcomes` for a running hand at the moment it becomes an all-in
    showdown: two or more players left, at most one of them with chips behind, nobody to
    act, and every live player's hole cards known; None otherwise. Known cards of folded or
    mucked players are dead (R20)."""
    if hand.is_over or hand.actor_seat is not None:
        return None
    live = hand.live_seats
    if len(live) < 2 or sum(1 for s in live if hand.stack(s) > 0) > 1:
        return None
    hands: dict[int, tuple[Card, ...]] = {}
    dead: list[Card] = []
    for seat in hand.seats:
        held = hand.hole_cards(seat)
        known = tuple(c for c in held or () if c is not None)
        if seat in live:
            if len(known) != 2:
                return None
            hands[seat] = known
        else:
            dead.extend(known)
    return allin_outcomes(seats=hand.seats, stacks=hand.stacks, start_stacks=hand.start_stacks,
                          pots=hand.pots(), hands=hands, prizes=prizes, board=hand.board,
                          dead=dead, chip_unit=hand.started.chip_unit if hand.started else 1)


def _r22(out: list[int], start_stacks: Sequence[int]) -> list[list[int]]:
    """Players busting in one hand, grouped by equal start stacks, larger first (R22)."""
    groups: dict[int, list[int]] = {}
    for i in out:
        groups.setdefault(start_stacks[i], []).append(i)
    return [groups[stack] for stack in sorted(groups, reverse=True)]


def _showdowns(cards: list[tuple[Card, ...]], board: tuple[Card, ...],
               dead: tuple[Card, ...]) -> tuple[npt.NDArray[np.int64], list[int], int]:
    """The showdown patterns over every remaining board: for each, every contender's number
    of contenders with a strictly better hand (0: best), and how many boards give it."""
    m = len(cards)
    if m < 2:
        return np.zeros((1, m), dtype=np.int64), [1], 1
    if len(board) not in (0, 3, 4, 5):
        raise InvalidBoardError(f"a board has 0, 3, 4 or 5 cards, got {len(board)}")
    if m == 2:  # heads-up: the exact counts of engine.equity are the joint outcome
        result = equity([c for c in cards], board, dead)
        a, b = result.players
        pats = np.array([[0, 1], [1, 0], [0, 0]], dtype=np.int64)
        return pats, [a.wins, b.wins, a.ties], result.boards
    used = {c for group in (*cards, board, dead) for c in group}
    available = [c for c in (Card.from_index(i) for i in range(52)) if c not in used]
    values, weights, _ = board_classes(cards, board, available)
    better = (values[None, :, :] > values[:, None, :]).sum(axis=1)  # (contender, class)
    codes = (better * np.array([m**k for k in range(m)], dtype=np.int64)[:, None]).sum(axis=0)
    kinds, which = np.unique(codes, return_inverse=True)
    counts = np.rint(np.bincount(which, weights=weights, minlength=len(kinds))).astype(np.int64)
    pats = np.array([[code // m**k % m for k in range(m)] for code in kinds.tolist()],
                    dtype=np.int64).reshape(len(kinds), m)
    boards = comb(len(available), 5 - len(board))
    return pats, counts.tolist(), boards


