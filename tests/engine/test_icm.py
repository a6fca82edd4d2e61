"""ICM (Malmuth-Harville) against a brute-force reference, its properties, and all-in
outcomes against a plain board-by-board count."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import FULL_DECK, Card, parse_cards
from engine.equity import equity
from engine.errors import InvalidInputError, PlayerCountError
from engine.evaluator import evaluate, evaluate_batch
from engine.hand import Hand
from engine.icm import _showdowns, allin_for_hand, allin_outcomes, icm
from engine.pots import Pot


def brute_force_icm(stacks: Sequence[int], prizes: Sequence[float]) -> list[float]:
    """Every finishing order, its Malmuth-Harville probability written out plainly."""
    equity_ = [0.0] * len(stacks)
    for order in itertools.permutations([i for i, s in enumerate(stacks) if s > 0]):
        probability, left = 1.0, float(sum(stacks))
        for i in order:
            probability *= stacks[i] / left
            left -= stacks[i]
        for place, i in enumerate(order):
            if place < len(prizes):
                equity_[i] += probability * prizes[place]
    return equity_


stacks_st = st.lists(st.integers(1, 100_000), min_size=1, max_size=7)
prizes_st = st.lists(st.integers(0, 10_000), min_size=1, max_size=8).map(
    lambda p: sorted(p, reverse=True))


@given(stacks_st, prizes_st)
def test_icm_equals_brute_force(stacks: list[int], prizes: list[int]) -> None:
    got = icm(stacks, prizes)
    want = brute_force_icm(stacks, prizes)
    assert got == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("prizes", [(5000, 3000, 2000), (3400, 2200, 1700, 1300, 900, 500)])
def test_icm_ten_players_equals_brute_force(prizes: tuple[int, ...]) -> None:
    stacks = [12_000, 9_500, 8_000, 7_300, 5_000, 4_400, 2_100, 1_200, 600, 300]
    # Every order of the paid places written out (10 x 9 x ... of them): the probability of
    # the first k finishers in order is the Malmuth-Harville product; the rest do not pay.
    want = [0.0] * 10
    for order in itertools.permutations(range(10), len(prizes)):
        p, left = 1.0, float(sum(stacks))
        for i in order:
            p *= stacks[i] / left
            left -= stacks[i]
        for place, i in enumerate(order):
            want[i] += p * prizes[place]
    assert icm(stacks, prizes) == pytest.approx(want, abs=1e-9)


@given(st.lists(st.integers(1, 10**6), min_size=2, max_size=10), prizes_st)
def test_icm_properties(stacks: list[int], prizes: list[int]) -> None:
    got = icm(stacks, prizes)
    assert math.isclose(sum(got), sum(prizes[:len(stacks)]), abs_tol=1e-6)
    order = sorted(range(len(stacks)), key=lambda i: stacks[i])
    for lo, hi in itertools.pairwise(order):  # more chips, never less equity
        assert got[hi] >= got[lo] - 1e-9
        if stacks[hi] == stacks[lo]:
            assert got[hi] == pytest.approx(got[lo], abs=1e-9)
    assert all(min(prizes[:len(stacks)] + [0] * len(stacks)) - 1e-9 <= g <= prizes[0] + 1e-9
               for g in got)


def test_players_without_chips_share_the_last_places() -> None:
    got = icm([5000, 0, 5000, 0], [50, 30, 15, 5])
    assert got == pytest.approx((40.0, 10.0, 40.0, 10.0))


def test_icm_refuses_what_it_cannot_do() -> None:
    with pytest.raises(PlayerCountError, match="1 to 10 players, got 11"):
        icm([100] * 11, [1])
    with pytest.raises(InvalidInputError, match="negative"):
        icm([100, -1], [1])
    with pytest.raises(InvalidInputError, match="at least one player with chips"):
        icm([0, 0], [1])


# --- all-in outcomes ---------------------------------------------------------------------


def board_by_board(hands: dict[int, str], board: str, pots: list[Pot],
                   stacks: dict[int, int]) -> dict[tuple[int, ...], int]:
    """Plain reference: deal every board, evaluate every hand, pay every pot."""
    used = {Card(hands[s][k:k + 2]) for s in hands for k in (0, 2)}
    known = [Card(board[k:k + 2]) for k in range(0, len(board), 2)]
    deck = [c for c in FULL_DECK if c not in used and c not in known]
    tally: dict[tuple[int, ...], int] = {}
    for extra in itertools.combinations(deck, 5 - len(known)):
        value = {s: evaluate([Card(h[:2]), Card(h[2:]), *known, *extra]).strength
                 for s, h in hands.items()}
        final = dict(stacks)
        for pot in pots:
            best = max(value[s] for s in pot.seats)
            won = [s for s in pot.seats if value[s] == best]
            for k, s in enumerate(won):
                final[s] += pot.amount // len(won) + (pot.amount % len(won) if k == 0 else 0)
        key = tuple(final[s] for s in sorted(stacks))
        tally[key] = tally.get(key, 0) + 1
    return tally


def test_three_way_all_in_on_the_turn_equals_a_board_by_board_count() -> None:
    hands = {1: "AhAs", 2: "KdKc", 3: "7h6h"}
    pots = [Pot(6000, (1, 2, 3)), Pot(4000, (2, 3))]
    stacks = {1: 0, 2: 0, 3: 1000, 4: 3000}
    report = allin_outcomes(seats=(1, 2, 3, 4), stacks=(0, 0, 1000, 3000),
                            start_stacks=(2000, 4000, 5000, 3000), pots=pots, hands=hands,
                            prizes=[50, 30, 20], board="8h9cKs2d")
    want = board_by_board(hands, "8h9cKs2d", pots, stacks)
    assert report.boards == sum(want.values()) == 42
    got = {o.stacks: o.probability for o in report.outcomes}
    assert got == pytest.approx({k: v / 42 for k, v in want.items()}, abs=1e-12)
    straight = next(o for o in report.outcomes if o.stacks == (0, 0, 11000, 3000))
    assert straight.busted == (2, 1) and straight.winners == (3,) and straight.doubled == (3,)
    assert straight.equity[:2] == (0, 20)  # R22: seat 2 (bigger start stack) takes 3rd
    for o in report.outcomes:  # each outcome's equities are the ICM of its stacks
        assert sum(o.equity) == pytest.approx(100)
        alive = [i for i, s in enumerate(o.stacks) if s]
        assert [o.equity[i] for i in alive] == pytest.approx(
            brute_force_icm([o.stacks[i] for i in alive], [50, 30, 20]), abs=1e-9)
    assert sum(report.expected_equity) == pytest.approx(100)


def test_heads_up_all_in_preflop_outcomes_are_the_exact_equity() -> None:
    report = allin_outcomes(seats=(3, 5, 8), stacks=(0, 2000, 4000),
                            start_stacks=(3000, 5000, 4000), pots=[Pot(6000, (3, 5))],
                            hands={3: "AhKh", 5: "QsQd"}, prizes=[60, 40])
    exact = equity(["AhKh", "QsQd"])
    by_winner = {o.winners: o for o in report.outcomes}
    a, q = exact.players
    assert by_winner[(3,)].probability == a.wins / exact.boards
    assert by_winner[(5,)].probability == q.wins / exact.boards
    assert by_winner[(3, 5)].split and by_winner[(3, 5)].stacks == (3000, 5000, 4000)
    assert report.chip_equity[:2] == pytest.approx((float(a.equity), float(q.equity)))
    # AK wins: the 3,000 stack doubles; QQ wins: AK busts in third place (nothing paid).
    assert by_winner[(3,)].doubled == (3,) and by_winner[(5,)].busted == (3,)
    assert by_winner[(5,)].equity[0] == 0
    assert sum(report.expected_equity) == pytest.approx(100)


def test_outcomes_that_no_board_makes_are_left_out() -> None:
    report = allin_outcomes(seats=(1, 2), stacks=(0, 0), start_stacks=(500, 500),
                            pots=[Pot(1000, (1, 2))], hands={1: "AhAd", 2: "7c2s"},
                            prizes=[70, 30], board="AsAc7d2h")  # quads: no tie is possible
    assert [o.winners for o in report.outcomes] == [(1,)]
    assert report.outcomes[0].probability == 1 and report.boards == 44
    assert report.expected_equity == (70.0, 30.0) and report.chip_equity == (1.0, 0.0)


def test_busts_in_one_outcome_are_ranked_by_start_stacks_r22() -> None:
    # River all-in: the flush beats both; both bust, the larger start stack finishes higher.
    report = allin_outcomes(seats=(1, 2, 3, 4), stacks=(0, 0, 1000, 500),
                            start_stacks=(1000, 2000, 3000, 500),
                            pots=[Pot(3000, (1, 2, 3)), Pot(2000, (2, 3))],
                            hands={1: "AsKd", 2: "QcQd", 3: "9h8h"}, prizes=[50, 30, 15, 5],
                            board="2h5hKhQsJc")
    (only,) = report.outcomes
    assert only.probability == 1 and only.busted == (2, 1)
    assert only.equity[:2] == (5.0, 15.0)


def test_allin_for_a_running_hand() -> None:
    hand = Hand.start(seats=(1, 2, 3), stacks=(1000, 3000, 2000), blinds=(25, 50, 0),
                      big_blind=50, button=3)
    for seat, cards in ((1, "AhAd"), (2, "KsKc"), (3, "2c7d")):
        hand.deal_hole(seat, cards)
    assert allin_for_hand(hand, [50, 30, 20]) is None  # betting is still open
    hand.fold(3)
    hand.all_in(1)
    hand.call(2)
    report = allin_for_hand(hand, [50, 30, 20])
    assert report is not None
    assert report.seats == (1, 2, 3)
    assert sum(o.probability for o in report.outcomes) == pytest.approx(1)
    assert report.chip_equity[2] == 0
    assert report.equity_before == pytest.approx(icm([1000, 3000, 2000], [50, 30, 20]))


def test_allin_needs_the_cards_of_everyone_in_the_pot() -> None:
    with pytest.raises(InvalidInputError, match="seat 2 is in the pot but its two hole"):
        allin_outcomes(seats=(1, 2), stacks=(0, 0), start_stacks=(10, 10),
                       pots=[Pot(20, (1, 2))], hands={1: "AhAd"}, prizes=[1])


@settings(max_examples=40)
@given(st.data())
def test_random_turn_all_ins_equal_the_board_by_board_count(data: st.DataObject) -> None:
    players = data.draw(st.integers(2, 4))
    deck = data.draw(st.permutations(FULL_DECK))
    hands = {seat: deck[2 * k].code + deck[2 * k + 1].code
             for k, seat in enumerate(range(1, players + 1))}
    board = "".join(c.code for c in deck[2 * players:2 * players + 4])
    put_in = [data.draw(st.integers(1, 40)) * 100 for _ in range(players)]
    # Everyone all in for what he put in, except the one who put in most (he covers).
    levels = sorted(set(put_in))
    pots, below = [], 0
    for level in levels:
        seats = tuple(s for s in hands if put_in[s - 1] >= level)
        pots.append(Pot(sum(min(c, level) - min(c, below) for c in put_in), seats))
        below = level
    behind = [0 if c < max(put_in) else 500 for c in put_in] + [2000]
    seats = (*hands, 9)
    start = [c + b for c, b in zip(put_in, behind, strict=False)] + [2000]
    report = allin_outcomes(seats=seats, stacks=behind, start_stacks=start, pots=pots,
                            hands=hands, prizes=[50, 30, 20, 10, 5], board=board)
    want = board_by_board(hands, board, pots, dict(zip(seats, behind, strict=True)))
    got: dict[tuple[int, ...], float] = {}
    for o in report.outcomes:
        got[o.stacks] = got.get(o.stacks, 0) + o.probability
    assert got == pytest.approx({k: v / report.boards for k, v in want.items()}, abs=1e-12)
    assert sum(report.expected_equity) == pytest.approx(sum([50, 30, 20, 10, 5][:len(seats)]))
    assert sum(report.expected_stacks) == pytest.approx(sum(start))


def _showdowns_by_board(cards: list[tuple[Card, ...]], board: tuple[Card, ...],
                        dead: tuple[Card, ...]) -> tuple[npt.NDArray[np.int64], list[int], int]:
    """:func:`engine.icm._showdowns` the plain way: every board dealt and evaluated."""
    m = len(cards)
    used = {c for group in (*cards, board, dead) for c in group}
    avail = np.array([i for i in range(52) if Card.from_index(i) not in used], dtype=np.int8)
    k = 5 - len(board)
    combos = avail[np.array(list(itertools.combinations(range(len(avail)), k)),
                            dtype=np.intp).reshape(math.comb(len(avail), k), k)]
    fixed = np.array([c.index for c in board], dtype=np.int8)
    tally: dict[int, int] = {}
    weights = np.array([m**k for k in range(m)], dtype=np.int64)
    for start in range(0, len(combos), 1 << 18):
        chunk = combos[start:start + (1 << 18)]
        rows = len(chunk)
        strengths = np.empty((rows, m), dtype=np.int64)
        for k, hand in enumerate(cards):
            own = np.array([c.index for c in hand] + list(fixed), dtype=np.int8)
            full = np.concatenate([np.broadcast_to(own, (rows, len(own))), chunk], axis=1)
            strengths[:, k] = evaluate_batch(full, check=False)
        better = (strengths[:, None, :] > strengths[:, :, None]).sum(axis=2)
        codes, counts = np.unique(better @ weights, return_counts=True)  # one int a pattern
        for code, count in zip(codes.tolist(), counts.tolist(), strict=True):
            tally[code] = tally.get(code, 0) + count
    pats = np.array([[code // m**k % m for k in range(m)] for code in tally], dtype=np.int64)
    return pats.reshape(len(tally), m), list(tally.values()), len(combos)


def _patterns(result: tuple[Any, list[int], int]) -> tuple[dict[tuple[int, ...], int], int]:
    pats, counts, boards = result
    return {tuple(p): c for p, c in zip(pats.tolist(), counts, strict=True) if c}, boards


@settings(max_examples=40)
@given(st.data())
def test_board_classes_count_like_every_board_evaluated(data: st.DataObject) -> None:
    """The fast count (rank multisets, then flush corrections) against every board dealt."""
    deck = data.draw(st.permutations(FULL_DECK))
    players = data.draw(st.integers(3, 6))
    on_board = data.draw(st.sampled_from([3, 4, 5]))
    cards = [tuple(deck[2 * k:2 * k + 2]) for k in range(players)]
    board = tuple(deck[2 * players:2 * players + on_board])
    dead = tuple(deck[2 * players + on_board:2 * players + on_board + data.draw(
        st.integers(0, 3))])
    assert _patterns(_showdowns(cards, board, dead)) == _patterns(
        _showdowns_by_board(cards, board, dead))


def test_a_three_way_all_in_before_the_flop_counts_every_board() -> None:
    cards = [parse_cards("AhKh"), parse_cards("QsQc"), parse_cards("9d8d")]
    fast = _patterns(_showdowns(cards, (), ()))
    assert fast == _patterns(_showdowns_by_board(cards, (), ()))
    assert fast[1] == math.comb(46, 5) == sum(fast[0].values())
