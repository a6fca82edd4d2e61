"""Exact equity: known values, invariants, and plain enumeration with the reference evaluator."""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import combinations
from math import comb
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import FULL_DECK, Card, parse_cards
from engine.equity import EquityResult, equity
from engine.errors import (
    DuplicateCardError,
    InvalidBoardError,
    InvalidCardError,
    InvalidHandError,
    PlayerCountError,
)
from engine.evaluator import evaluate_batch
from tests.reference_eval import reference_value


def plain_enumeration(hands: list[tuple[Card, ...]], board: tuple[Card, ...],
                      dead: tuple[Card, ...]) -> tuple[list[int], list[int], list[Fraction], int]:
    """Deal every board one by one and score it with the reference evaluator."""
    used = {*board, *dead, *(c for h in hands for c in h)}
    deck = [c for c in FULL_DECK if c not in used]
    wins, ties, shares = [0] * len(hands), [0] * len(hands), [Fraction(0)] * len(hands)
    boards = 0
    for extra in combinations(deck, 5 - len(board)):
        full = (*board, *extra)
        values = [reference_value((*h, *full)) for h in hands]
        best = max(values)
        winners = [p for p, v in enumerate(values) if v == best]
        for p in winners:
            if len(winners) == 1:
                wins[p] += 1
            else:
                ties[p] += 1
            shares[p] += Fraction(1, len(winners))
        boards += 1
    return wins, ties, [s / boards for s in shares], boards


def batch_enumeration(hands: list[tuple[Card, ...]],
                      dead: tuple[Card, ...]) -> tuple[list[int], list[int], int]:
    """Preflop: every board scored with the batch evaluator (itself checked against the
    reference in test_evaluator)."""
    used = {*dead, *(c for h in hands for c in h)}
    deck = np.array([c.index for c in FULL_DECK if c not in used], dtype=np.int64)
    boards = deck[np.array(list(combinations(range(len(deck)), 5)))]
    values = np.stack([
        evaluate_batch(np.concatenate(
            [np.broadcast_to([c.index for c in h], (len(boards), 2)), boards], axis=1))
        for h in hands])
    winner = values == values.max(axis=0)
    alone = winner.sum(axis=0) == 1
    wins = (winner & alone).sum(axis=1).tolist()
    ties = (winner & ~alone).sum(axis=1).tolist()
    return wins, ties, len(boards)


def check_invariants(result: EquityResult) -> None:
    assert sum(p.equity for p in result.players) == 1
    for p in result.players:
        assert p.boards == result.boards
        assert 0 <= p.wins + p.ties <= result.boards
        assert p.win + p.tie >= p.equity >= p.win
        assert p.equity_float == float(p.equity)
    # A board is won outright by at most one player.
    assert sum(p.wins for p in result.players) <= result.boards


def test_aces_against_kings_preflop_known_counts() -> None:
    result = equity(["AhAs", "KdKc"])
    aces, kings = result.players
    assert result.boards == 1_712_304 == comb(48, 5)
    assert (aces.wins, aces.ties) == (1_388_072, 6_538)
    assert kings.ties == 6_538
    assert aces.wins + kings.wins + aces.ties == result.boards
    assert aces.equity == Fraction(1_388_072 * 2 + 6_538, 2 * 1_712_304)
    check_invariants(result)


def test_ten_way_preflop_sums_to_one() -> None:
    hands = ["AhAd", "KsKc", "QdJd", "Tc9c", "8s8h", "7d6d", "AcQs", "5h4h", "2c2d", "JsTs"]
    result = equity(hands)
    assert result.boards == comb(32, 5)
    check_invariants(result)


@pytest.mark.parametrize("hands, dead", [
    (["AhKh", "QhJh"], "2h3h4h5h6h7h8h9cTc"),        # hearts-rich: many flush boards
    (["7s6s", "AhAd", "KsQs"], "2c3c4c5c6c7c8c9d2d3d4d5d"),
    (["AcKc", "JhJd"], "AhKdJs7c2c9c8d8s7d6h5h4s3s2s"),
])
def test_preflop_matches_every_board_dealt(hands: list[str], dead: str) -> None:
    parsed = [parse_cards(h) for h in hands]
    result = equity(hands, dead=dead)
    wins, ties, boards = batch_enumeration(parsed, parse_cards(dead))
    assert result.boards == boards
    assert [p.wins for p in result.players] == wins
    assert [p.ties for p in result.players] == ties
    check_invariants(result)


def test_suited_hands_are_symmetric() -> None:
    result = equity(["AhKh", "AsKs"])
    a, b = result.players
    assert (a.wins, a.ties, a.equity) == (b.wins, b.ties, b.equity) == (a.wins, a.ties,
                                                                          Fraction(1, 2))


# --- random cases against plain enumeration ------------------------------------------------

@st.composite
def deals(draw: st.DrawFn, board_sizes: tuple[int, ...]) -> tuple[
        list[tuple[Card, ...]], tuple[Card, ...], tuple[Card, ...]]:
    # Drawing from a few suits and ranks makes flushes, straights and splits common.
    suits = draw(st.sets(st.sampled_from(range(4)), min_size=2, max_size=4))
    pool = [c for c in FULL_DECK if c.suit in suits]
    n_players = draw(st.integers(2, 4))
    board_size = draw(st.sampled_from(board_sizes))
    n_dead = draw(st.integers(0, 3))
    cards = draw(st.lists(st.sampled_from(pool), unique=True,
                          min_size=2 * n_players + board_size + n_dead,
                          max_size=2 * n_players + board_size + n_dead))
    hands = [tuple(cards[2 * i:2 * i + 2]) for i in range(n_players)]
    rest = cards[2 * n_players:]
    return hands, tuple(rest[:board_size]), tuple(rest[board_size:])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deals((4, 5)))
def test_turn_and_river_match_plain_enumeration(deal: tuple[
        list[tuple[Card, ...]], tuple[Card, ...], tuple[Card, ...]]) -> None:
    hands, board, dead = deal
    result = equity(hands, board, dead)
    wins, ties, shares, boards = plain_enumeration(hands, board, dead)
    assert result.boards == boards
    assert [p.wins for p in result.players] == wins
    assert [p.ties for p in result.players] == ties
    assert [p.equity for p in result.players] == shares
    check_invariants(result)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deals((3,)))
def test_flop_matches_plain_enumeration(deal: tuple[
        list[tuple[Card, ...]], tuple[Card, ...], tuple[Card, ...]]) -> None:
    hands, board, dead = deal
    result = equity(hands, board, dead)
    wins, ties, shares, boards = plain_enumeration(hands, board, dead)
    assert ([p.wins for p in result.players], [p.ties for p in result.players]) == (wins, ties)
    assert [p.equity for p in result.players] == shares
    assert result.boards == boards


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deals((0,)), st.integers(8, 11), st.randoms(use_true_random=False))
def test_preflop_with_few_live_cards_matches_plain_enumeration(
        deal: tuple[list[tuple[Card, ...]], tuple[Card, ...], tuple[Card, ...]],
        live: int, random: Any) -> None:
    # Most of the deck dead (R20): the rank-multiset weights and the flush corrections see
    # uneven, sparse availability, and every board can be dealt by the reference.
    hands, _, _ = deal
    held = {c for h in hands for c in h}
    rest = [c for c in FULL_DECK if c not in held]
    random.shuffle(rest)
    dead = tuple(rest[live:])
    result = equity(hands, (), dead)
    wins, ties, shares, boards = plain_enumeration(hands, (), dead)
    assert result.boards == boards == comb(live, 5)
    assert ([p.wins for p in result.players], [p.ties for p in result.players]) == (wins, ties)
    assert [p.equity for p in result.players] == shares


SUIT_PERMUTATIONS = [(1, 0, 3, 2), (3, 2, 1, 0), (2, 3, 0, 1), (0, 2, 1, 3)]


@settings(max_examples=40, deadline=None)
@given(deals((0, 3, 4, 5)), st.sampled_from(SUIT_PERMUTATIONS), st.randoms())
def test_relabelled_suits_and_reordered_players_give_the_same_result(
        deal: tuple[list[tuple[Card, ...]], tuple[Card, ...], tuple[Card, ...]],
        perm: tuple[int, ...], random: object) -> None:
    hands, board, dead = deal

    def relabel(cards: tuple[Card, ...]) -> tuple[Card, ...]:
        return tuple(Card.from_index(c.rank * 4 + perm[c.suit]) for c in cards)

    base = equity(hands, board, dead)
    order = list(range(len(hands)))
    random.shuffle(order)  # type: ignore[attr-defined]
    other = equity([relabel(hands[i]) for i in order], relabel(board), relabel(dead))
    assert other.boards == base.boards
    for new, old in zip(other.players, (base.players[i] for i in order), strict=True):
        assert (new.wins, new.ties, new.equity) == (old.wins, old.ties, old.equity)
    check_invariants(base)


# --- outs --------------------------------------------------------------------------------

def test_outs_on_the_flop_by_hand() -> None:
    # JcTc has the straight; QhQd has a set; AsKs draws to the nut flush.
    result = equity(["AsKs", "QhQd", "JcTc"], board="Qs9s8c")
    aks, queens, straight = (p.outs for p in result.players)
    assert aks is not None and queens is not None and straight is not None
    # Spades make the flush, except the 8s which gives the queens a full house.
    assert set(aks.outs) == set(parse_cards("2s3s4s5s6s7sTsJs"))
    # Queens full or quads.
    assert set(queens.outs) == set(parse_cards("9h9d9c8h8d8sQc"))
    assert not aks.leading and not queens.leading and straight.leading
    assert set(straight.lead_lost_on) == set(aks.outs) | set(queens.outs)
    assert aks.lead_lost_on == () == queens.lead_lost_on
    assert len(straight.outs) == 52 - 6 - 3 - 15
    assert [p.hand_now for p in result.players] == [
        "High Card, Ace", "Three of a Kind, Queens", "Straight, Queen high"]


@settings(max_examples=60, deadline=None)
@given(deals((3, 4)))
def test_outs_match_the_reference(deal: tuple[
        list[tuple[Card, ...]], tuple[Card, ...], tuple[Card, ...]]) -> None:
    hands, board, dead = deal
    result = equity(hands, board, dead)
    used = {*board, *dead, *(c for h in hands for c in h)}
    now = [reference_value((*h, *board)) for h in hands]
    for p, player in enumerate(result.players):
        assert player.outs is not None
        expected = []
        for card in (c for c in FULL_DECK if c not in used):
            values = [reference_value((*h, *board, card)) for h in hands]
            if values[p] == max(values):
                expected.append(card)
        assert list(player.outs.outs) == expected
        assert player.outs.leading == (now[p] == max(now))
        if player.outs.leading:
            assert set(player.outs.lead_lost_on) == set(FULL_DECK) - used - set(expected)
        else:
            assert player.outs.lead_lost_on == ()


def test_no_outs_preflop_or_on_the_river() -> None:
    assert all(p.outs is None and p.hand_now is None for p in equity(["AhAs", "KdKc"]).players)
    river = equity(["AhAs", "KdKc"], board="2c7d9hJsQd")
    assert all(p.outs is None for p in river.players)
    assert [p.hand_now for p in river.players] == ["Pair, Aces", "Pair, Kings"]
    assert river.boards == 1 and river.players[0].equity == 1


def test_river_split_when_the_board_plays() -> None:
    result = equity(["Tc9c", "Td2d", "AsAd", "KcKs"], board="AhKdQcJh3s")
    assert [(p.wins, p.ties) for p in result.players] == [(0, 1), (0, 1), (0, 0), (0, 0)]
    assert [p.equity for p in result.players] == [Fraction(1, 2), Fraction(1, 2), 0, 0]


def test_dead_cards_are_not_dealt() -> None:
    # With the two other kings dead (mucked, R20) KK cannot make a set.
    live = equity(["KdKc", "AhAs"], board="2c7d9h")
    dead = equity(["KdKc", "AhAs"], board="2c7d9h", dead="KhKs")
    assert dead.boards == comb(43, 2)
    assert dead.players[0].outs is not None
    assert not set(dead.players[0].outs.outs) & set(parse_cards("KhKs"))
    assert dead.players[0].equity < live.players[0].equity


def test_to_dict_is_json() -> None:
    result = equity(["AsKs", "QhQd", "JcTc"], board="Qs9s8c", dead="2d")
    data = json.loads(json.dumps(result.to_dict()))
    assert data["street"] == "flop" and data["boards"] == comb(42, 2) == result.boards
    assert data["board"] == "Qs9s8c" and data["dead"] == "2d"
    assert sum(Fraction(p["equity"]) for p in data["players"]) == 1
    first = data["players"][0]
    assert first["hand"] == "AsKs" and first["boards"] == data["boards"]
    assert Fraction(first["win"]) == Fraction(first["wins"], data["boards"])
    assert first["outs"]["outs"][0] == "2s"


# --- bad input -----------------------------------------------------------------------------

@pytest.mark.parametrize("hands, board, dead, error, message", [
    (["AhAs"], "", "", PlayerCountError, "2 to 10 hands, got 1"),
    (["AhAs", "KdKc", "QdQc", "JdJc", "TdTc", "9d9c", "8d8c", "7d7c", "6d6c", "5d5c", "4d4c"],
     "", "", PlayerCountError, "got 11"),
    (["AhAs", "KdKcQd"], "", "", InvalidHandError, "hand 2 .* has 3 cards"),
    (["AhAs", "Kd"], "", "", InvalidHandError, "has 1 card;"),
    (["AhAs", "KdKc"], "2c", "", InvalidBoardError, "got 1"),
    (["AhAs", "KdKc"], "2c3c", "", InvalidBoardError, "got 2"),
    (["AhAs", "KdKc"], "2c3c4c5c6c7c", "", InvalidBoardError, "got 6"),
    (["AhAs", "KdKc"], "Ah2c3c", "", DuplicateCardError, "Ah appears twice"),
    (["AhAs", "AhKc"], "", "", DuplicateCardError, "Ah appears twice"),
    (["AhAs", "KdKc"], "", "Kd", DuplicateCardError, "Kd appears twice"),
    (["AhAx", "KdKc"], "", "", InvalidCardError, "'x' is not a suit"),
    (["AhAs", "KdKc"], "", " ".join([c.code for c in FULL_DECK if c.rank < 11][:44]),
     InvalidBoardError, "only 4 cards left"),
])
def test_bad_input(hands: list[str], board: str, dead: str, error: type[Exception],
                   message: str) -> None:
    with pytest.raises(error, match=message):
        equity(hands, board, dead)
