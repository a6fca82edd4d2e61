"""The evaluator against a plain reference evaluator, known counts and spoken descriptions (R18)."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import FULL_DECK, Card, parse_cards
from engine.errors import DuplicateCardError, InvalidCardError, InvalidHandError
from engine.evaluator import Category, HandValue, evaluate, evaluate_batch, evaluate_strength
from tests.reference_eval import reference_value

hands = st.integers(min_value=5, max_value=7).flatmap(
    lambda n: st.lists(st.sampled_from(FULL_DECK), min_size=n, max_size=n, unique=True))


def random_hands(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """``n`` random hands of ``size`` distinct cards, as card indices."""
    return np.argsort(rng.random((n, 52)), axis=1)[:, :size]


@pytest.mark.parametrize("size, n", [(5, 30_000), (6, 30_000), (7, 45_000)])
def test_batch_matches_reference_on_random_hands(size: int, n: int) -> None:
    # 105,000 random hands in all, compared with the reference one by one.
    rng = np.random.default_rng(20261130 + size)
    idx = random_hands(rng, n, size)
    fast = evaluate_batch(idx)
    for row, strength in zip(idx.tolist(), fast.tolist(), strict=True):
        cards = [FULL_DECK[i] for i in row]
        assert strength == reference_value(cards), cards


def test_scalar_matches_batch() -> None:
    rng = np.random.default_rng(7)
    for size in (5, 6, 7):
        idx = random_hands(rng, 3_000, size)
        fast = evaluate_batch(idx).tolist()
        scalar = [evaluate_strength([FULL_DECK[i] for i in row]) for row in idx.tolist()]
        assert scalar == fast


@settings(max_examples=300, deadline=None)
@given(hands)
def test_evaluate_matches_reference(cards: list[Card]) -> None:
    hv = evaluate(cards)
    assert hv.strength == reference_value(cards)
    assert len(hv.best_five) == 5
    assert set(hv.best_five) <= set(cards)
    # The five cards shown make exactly the hand announced.
    assert evaluate(hv.best_five) == hv
    assert hv.category == Category(reference_value(cards) >> 20)


def test_all_five_card_hands_fall_into_the_known_categories() -> None:
    idx = np.array(list(combinations(range(52), 5)), dtype=np.int8)
    strengths = evaluate_batch(idx, check=False)
    assert len(strengths) == 2_598_960
    categories = np.bincount(strengths >> 20, minlength=10)[1:]
    assert dict(zip(Category, categories.tolist(), strict=True)) == {
        Category.HIGH_CARD: 1_302_540,
        Category.PAIR: 1_098_240,
        Category.TWO_PAIR: 123_552,
        Category.THREE_OF_A_KIND: 54_912,
        Category.STRAIGHT: 10_200,
        Category.FLUSH: 5_108,
        Category.FULL_HOUSE: 3_744,
        Category.FOUR_OF_A_KIND: 624,
        Category.STRAIGHT_FLUSH: 40,
    }
    # The well-known 7,462 distinct five-card hand values.
    assert len(np.unique(strengths)) == 7_462


@pytest.mark.parametrize("cards, text", [
    ("KsKdKh7c7d2s3h", "Full House, Kings full of Sevens"),
    ("As2d3c4h5s9d", "Straight, Five high"),
    ("AhAsTdTc9s", "Two Pair, Aces and Tens"),
    ("AhKhQhJhTh2c3c", "Royal Flush"),
    ("9s8s7s6s5s", "Straight Flush, Nine high"),
    ("As2s3s4s5s", "Straight Flush, Five high"),
    ("QcQdQhQs2c", "Four of a Kind, Queens"),
    ("Ah9h7h4h2h3c", "Flush, Ace high"),
    ("7c7d7h2s9c", "Three of a Kind, Sevens"),
    ("JcJd2s5h9c", "Pair, Jacks"),
    ("Ac9d7h4s2c", "High Card, Ace"),
    ("TcJdQhKsAc", "Straight, Ace high"),
    # Two trips: the higher is the three, the lower fills (R18: best five of seven).
    ("9h9d9c8s8h8d2c", "Full House, Nines full of Eights"),
    # Three pairs: the third pair's card can be the kicker.
    ("AhAdKcKsQhQd2c", "Two Pair, Aces and Kings"),
])
def test_descriptions(cards: str, text: str) -> None:
    assert evaluate(parse_cards(cards)).describe() == text


def test_best_five_in_spoken_order() -> None:
    assert evaluate(parse_cards("KsKdKh7c7d2s3h")).best_five == parse_cards("KsKhKd7d7c")
    # The wheel shows the ace last, playing low.
    assert evaluate(parse_cards("As2d3c4h5s9d")).best_five == parse_cards("5s4h3c2dAs")


def test_flush_picks_cards_of_its_suit() -> None:
    # A flush uses the flush suit even when a higher card of another suit is on the table.
    hv = evaluate(parse_cards("AsKh9h7h4h2hQd"))
    assert hv.category is Category.FLUSH
    assert hv.best_five == parse_cards("Kh9h7h4h2h")


def test_order_equality_and_repr_round_trip() -> None:
    aces = evaluate(parse_cards("AhAs 2c 7d 9h Jc Kd"))
    kings = evaluate(parse_cards("KhKs 2c 7d 9h Jc Qd"))
    assert kings < aces and aces > kings
    # Suits never break ties (R18): the same ranks in other suits split the pot.
    same = evaluate(parse_cards("AdAc 2h 7s 9c Jd Kh"))
    assert same == aces and hash(same) == hash(aces) and same.best_five != aces.best_five
    for hv in (aces, kings, evaluate(parse_cards("As2d3c4h5s"))):
        copy = eval(repr(hv), {"HandValue": HandValue, "Card": Card})
        assert copy == hv and copy.best_five == hv.best_five


def test_six_and_seven_cards_use_the_best_five() -> None:
    # The sixth and seventh cards never count (R18): kicker beyond five is ignored.
    a = evaluate(parse_cards("AhAs KdQcJh 3c 2d"))
    b = evaluate(parse_cards("AdAc KhQsJc 4d 3h"))
    assert a == b


@pytest.mark.parametrize("cards", ["AhKh", "AhKhQhJh", "AhKhQhJhTh9h8h7h"])
def test_wrong_number_of_cards(cards: str) -> None:
    with pytest.raises(InvalidHandError, match="5, 6 or 7 cards"):
        evaluate(parse_cards(cards))


def test_repeated_card_is_refused() -> None:
    cards = [*parse_cards("AhKhQhJh"), Card("Ah")]
    with pytest.raises(DuplicateCardError, match="Ah appears twice"):
        evaluate(cards)
    with pytest.raises(DuplicateCardError, match="Kh appears twice"):
        evaluate_strength("AhKhQhJhKh")


def test_codes_and_strings_are_accepted() -> None:
    expected = evaluate(parse_cards("AhKhQhJhTh2c"))
    assert evaluate("Ah Kh Qh Jh 10h 2c") == expected
    assert evaluate(["Ah", "Kh", Card("Qh"), "Jh", "Th", "2c"]).best_five == expected.best_five
    with pytest.raises(InvalidCardError, match="'Ax'"):
        evaluate("AxKhQhJhTh")
    with pytest.raises(InvalidHandError, match="not a card: 7"):
        evaluate(["Ah", "Kh", "Qh", "Jh", 7])  # type: ignore[list-item]


def test_batch_refuses_bad_arrays() -> None:
    with pytest.raises(InvalidHandError, match="shape"):
        evaluate_batch(np.zeros((3, 4), dtype=np.int64))
    with pytest.raises(InvalidHandError, match="range"):
        evaluate_batch(np.array([[0, 1, 2, 3, 52]]))
    with pytest.raises(InvalidHandError, match="repeats"):
        evaluate_batch(np.array([[0, 1, 2, 3, 3]]))
    assert evaluate_batch(np.zeros((0, 7), dtype=np.int64)).shape == (0,)


@pytest.mark.slow
def test_all_seven_card_hands_fall_into_the_published_categories() -> None:
    # All 133,784,560 seven-card hands, evaluated in batches: five cards below ``low`` (in
    # colex order, so those below ``low`` are a prefix) plus ``low`` and ``high``.
    five = np.array(list(combinations(range(50), 5)), dtype=np.int8)
    five = five[np.lexsort(five.T)]  # colex: by last card, then the one before, ...
    counts = np.zeros(10, dtype=np.int64)
    rows = np.empty((len(five), 7), dtype=np.int8)
    rows[:, :5] = five
    for low in range(5, 51):
        n = len(five) if low == 50 else int(np.searchsorted(five[:, 4], low))
        for high in range(low + 1, 52):
            rows[:n, 5] = low
            rows[:n, 6] = high
            strengths = evaluate_batch(rows[:n], check=False)
            counts += np.bincount(strengths >> 20, minlength=10)
    assert counts.sum() == 133_784_560
    assert dict(zip(Category, counts[1:].tolist(), strict=True)) == {
        Category.STRAIGHT_FLUSH: 41_584,
        Category.FOUR_OF_A_KIND: 224_848,
        Category.FULL_HOUSE: 3_473_184,
        Category.FLUSH: 4_047_644,
        Category.STRAIGHT: 6_180_020,
        Category.THREE_OF_A_KIND: 6_461_620,
        Category.TWO_PAIR: 31_433_400,
        Category.PAIR: 58_627_800,
        Category.HIGH_CARD: 23_294_460,
    }
