from __future__ import annotations

import copy
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cards import (
    FULL_DECK,
    REGISTRATION_ORDER,
    Card,
    ensure_distinct,
    format_cards,
    parse_cards,
)
from engine.errors import DuplicateCardError, InvalidCardError


def test_codes_round_trip_for_the_whole_deck() -> None:
    assert len(FULL_DECK) == 52
    assert len({c.code for c in FULL_DECK}) == 52
    for card in FULL_DECK:
        assert Card(card.code) is card
        assert eval(repr(card)) is card
        assert pickle.loads(pickle.dumps(card)) is card
        assert copy.deepcopy(card) is card


def test_index_layout() -> None:
    assert Card("2c").index == 0
    assert Card("As").index == 51
    assert (Card("Ah").rank, Card("Ah").suit) == (12, 2)
    # R1 draw order: spades > hearts > diamonds > clubs at equal rank.
    assert Card("As") > Card("Ah") > Card("Ad") > Card("Ac") > Card("Ks")


@pytest.mark.parametrize("text", ["10h", "Th", "th", "TH", "10H", "T♥", " Th "])
def test_accepted_spellings_of_a_ten(text: str) -> None:
    assert Card(text) is Card("Th")


@pytest.mark.parametrize("token, fragment", [
    ("Ax", "'x' is not a suit"),
    ("1h", "'1' is not a rank"),
    ("", "empty"),
    ("Ahh", "bad card 'Ahh'"),
])
def test_invalid_cards_name_the_token(token: str, fragment: str) -> None:
    with pytest.raises(InvalidCardError) as info:
        Card(token)
    assert fragment in str(info.value)
    assert isinstance(info.value, ValueError)


def test_parse_cards_formats() -> None:
    expected = (Card("Ah"), Card("Kd"), Card("Tc"))
    assert parse_cards("AhKd10c") == expected
    assert parse_cards("Ah Kd, Tc") == expected
    assert parse_cards(["Ah", "Kd", Card("Tc")]) == expected
    assert parse_cards("") == ()
    assert format_cards(expected) == "AhKdTc"


def test_parse_cards_reports_the_bad_token() -> None:
    with pytest.raises(InvalidCardError, match="'Zz'"):
        parse_cards("AhZzKd")
    with pytest.raises(DuplicateCardError, match="Ah appears twice"):
        parse_cards("Ah Kd ah")
    assert parse_cards("Ah Ah", distinct=False) == (Card("Ah"), Card("Ah"))


def test_ensure_distinct_across_groups() -> None:
    ensure_distinct(parse_cards("AhAs"), parse_cards("KdKc"))
    with pytest.raises(DuplicateCardError, match="Kd"):
        ensure_distinct(parse_cards("AhKd"), parse_cards("KdKc"))


def test_cards_are_immutable() -> None:
    with pytest.raises(AttributeError):
        Card("Ah").rank = 3  # type: ignore[misc]


def test_registration_order_is_a_permutation() -> None:
    assert sorted(REGISTRATION_ORDER) == list(FULL_DECK)
    assert REGISTRATION_ORDER[0] is Card("As")
    assert REGISTRATION_ORDER[-1] is Card("2c")


@given(st.permutations(range(52)), st.integers(0, 52),
       st.sampled_from(["", " ", ",", ", "]))
def test_parse_of_formatted_cards_is_identity(perm: list[int], n: int, sep: str) -> None:
    cards = tuple(Card.from_index(i) for i in perm[:n])
    assert parse_cards(format_cards(cards, sep)) == cards
