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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.errors import InvalidInputError, PlayerCountError

__all__ = ["MAX_PLAYERS", "AllIn", "AllInOutcome", "allin_outcomes", "icm", "icm_batch"]

MAX_PLAYERS = 10
F64 = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class _Layer:
    members: F64  # (sets of this size, n): 1 where the player is in the set
    src: npt.NDArray[np.intp]  # per (set, player outside it): the set's row
    player: npt.NDArray[np.intp]  # ... and the player
    to_player: F64  # (pairs, n) one-hot of the player
    to_next: F64  # (pairs, sets of the next size) one-hot of the set + player


@cache
def _layers(n: int) -> tuple[_Layer, ...]:
    by_size: list[list[int]] = [[] for _ in range(n + 1)]
    for mask in range(1 << n):
        by_size[mask.bit_count()].append(mask)
    layers = []
    for size in range(n):
        masks = by_size[size]
        nxt = {m: i for i, m in enumerate(by_size[size + 1])}
        pairs = [(i, j) for i, m in enumerate(masks) for j in range(n) if not m >> j & 1]
        src = np.array([i for i, _ in pairs], dtype=np.intp)
        player = np.array([j for _, j in pairs], dtype=np.intp)
        to_player = np.zeros((len(pairs), n))
        to_player[np.arange(len(pairs)), player] = 1.0
        to_next = np.zeros((len(pairs), len(nxt)))
        to_next[np.arange(len(pairs)),
                [nxt[masks[i] | 1 << j] for i, j in pairs]] = 1.0
        members = np.array([[m >> j & 1 for j in range(n)] for m in masks], dtype=np.float64)
        layers.append(_Layer(members.reshape(len(masks), n), src, player, to_player, to_next))
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
    total = s.sum(axis=1, keepdims=True)
    f = np.ones((rows, 1))
    for size, layer in enumerate(_layers(n)[:len(paid)]):
        rest = total - s @ layer.members.T  # chips outside each set
        with np.errstate(divide="ignore", invalid="ignore"):
            w = np.where(rest > 0, f / np.where(rest > 0, rest, 1.0), 0.0)
        step = w[:, layer.src] * s[:, layer.player]  # P(set, then this player next)
        if paid[size]:
            equity += paid[size] * (step @ layer.to_player)
        if size + 1 < len(paid):
            f = step @ layer.to_next
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
                   start_stacks: Sequence[int], pots: Sequence[Any],
                   hands: Mapping[int, Any], prizes: Sequence[float],
                   board: Any = (), dead: Any = ()) -> AllIn:
    """Every outcome of an all-in showdown with its exact probability and prize equities.

    ``seats`` are every player still in the tournament (at this table), ``stacks`` their
    chips behind, ``start_stacks`` at the start of the hand (R22 ranks busts by them);
    ``pots`` (:class:`engine.pots.Pot`: amount and the seats that can win it) hold the rest;
    ``hands`` are the known hole cards of every seat in a pot; ``prizes`` are the prizes of
    places 1 .. len(seats). Probabilities count every remaining board (a board of 0, 3 or 4
    cards; ``dead`` cards are out of the deck).

    :raises InvalidInputError: for a pot seat without known cards, and as
        :func:`engine.equity.equity` for bad cards.
    """
    raise NotImplementedError  # filled in with the enumeration below (next commit)
