"""Payouts (R23): the seeds' table by field size, custom tables, rounding, pay jumps, places
with several busts in one hand (R22) and disqualification (001 §3.7)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import ConfigError, IllegalActionError
from engine.payouts import Finish, PayoutTable, Standings, default_payouts

# 001 §3.7, copied by hand from the German original (not from the module under test).
SEEDS = {10: (50, 30, 20), 11: (42, 28, 19, 11), 20: (42, 28, 19, 11),
         21: (40, 25, 17, 11, 7), 30: (40, 25, 17, 11, 7), 31: (34, 22, 17, 13, 9, 5),
         44: (34, 22, 17, 13, 9, 5)}


@pytest.mark.parametrize(("entrants", "percent"), sorted(SEEDS.items()))
def test_default_table_by_field_size_r23(entrants: int, percent: tuple[int, ...]) -> None:
    table = default_payouts(entrants)
    assert table.places == len(percent)
    assert table.prizes(100_000) == tuple(p * 1000 for p in percent)


def test_small_fields_never_pay_everyone() -> None:
    assert default_payouts(3).prizes(900) == (630, 270)  # 3rd place's 20 % goes to 1st
    assert default_payouts(2).prizes(900) == (900,)
    with pytest.raises(ConfigError, match="at least 2 entrants"):
        default_payouts(1)


def test_rounding_floors_each_place_and_gives_the_rest_to_first() -> None:
    table = PayoutTable.from_percentages([50, 30, 20], unit=5)
    assert table.prizes(1_235) == (620, 370, 245)
    assert PayoutTable.from_percentages(["33.4", "33.3", "33.3"]).prizes(100) == (34, 33, 33)
    with pytest.raises(ConfigError, match="not a multiple of the unit 5"):
        table.prizes(1_234)


@given(pool=st.integers(0, 10**9), entrants=st.integers(2, 60),
       unit=st.sampled_from([1, 5, 10, 25, 100]))
def test_prizes_are_whole_units_summing_to_the_pool(pool: int, entrants: int,
                                                    unit: int) -> None:
    pool -= pool % unit
    table = PayoutTable.from_config({"default": True, "unit": unit}, entrants=entrants)
    prizes = table.prizes(pool)
    assert sum(prizes) == pool
    assert all(p % unit == 0 and p >= 0 for p in prizes)
    assert list(prizes[1:]) == sorted(prizes[1:], reverse=True)
    assert prizes[0] >= max(prizes)
    for place, prize in enumerate(prizes, 1):  # each place: its share, rounded down a unit
        exact = Fraction(pool) * table.percentages[place - 1] / 100
        assert (exact - unit < prize <= exact) if place > 1 else prize >= exact


def test_custom_tables_from_config() -> None:
    assert PayoutTable.from_config({"percentages": [60, "25.5", 14.5]}).prizes(1000) == (
        600, 255, 145)
    fixed = PayoutTable.from_config({"amounts": [5000, 3000, 1000]})
    assert fixed.prizes() == (5000, 3000, 1000) and fixed.prizes(9000) == (5000, 3000, 1000)
    schedule = {"by_field_size": [{"up_to": 10, "percentages": [70, 30]},
                                  {"percentages": [50, 30, 20]}]}
    assert PayoutTable.from_config(schedule, entrants=10).prizes(100) == (70, 30)
    assert PayoutTable.from_config(schedule, entrants=11).prizes(100) == (50, 30, 20)


@pytest.mark.parametrize(("config", "message"), [
    ({"percentages": [50, 30]}, "add up to 80, not 100"),
    ({"percentages": [30, 50, 20]}, "place 2 pays more than place 1"),
    ({"percentages": [100, 0]}, "place 2: the percentage must be more than 0"),
    ({"percentages": ["half", 50]}, "'half' is not a number"),
    ({"percentages": []}, "non-empty list"),
    ({"amounts": [100, 50.5]}, "50.5 is not a whole amount"),
    ({"percentages": [100], "amounts": [5]}, "not both"),
    ({"percent": [100]}, "unknown key"),
    ({"by_field_size": [{"up_to": 10, "percentages": [100]}]}, "no entry covers a field of 12"),
    ({}, "set tournament.entrants"),
    ({"default": False}, "true is the only value"),
])
def test_bad_configs_say_what_is_wrong(config: dict[str, object], message: str) -> None:
    entrants = 12 if "by_field_size" in config else None
    with pytest.raises(ConfigError, match=message):
        PayoutTable.from_config(config, entrants=entrants)


def test_fixed_amounts_must_match_the_pool() -> None:
    with pytest.raises(ConfigError, match="add up to 9,000, but the prize pool is 10,000"):
        PayoutTable.from_config({"amounts": [5000, 3000, 1000]}).prizes(10_000)


def test_prize_for_and_pay_jumps() -> None:
    table = default_payouts(25)  # 40 25 17 11 7
    assert [table.prize_for(p, 10_000) for p in (1, 5, 6, 40)] == [4000, 700, 0, 0]
    assert table.pay_jumps(10_000) == ((6, 700), (5, 400), (4, 600), (3, 800), (2, 1500))


def test_several_busts_in_one_hand_ranked_by_starting_stacks_r22() -> None:
    players = [f"P{k}" for k in range(1, 8)]
    s = Standings.start(players, default_payouts(25).prizes(10_000))
    s = s.bust(12, {"P7": 900})
    s = s.bust(15, {"P1": 2000, "P2": 4500, "P3": 3000})  # three out in one hand
    finishes = {f.name: (f.place, f.prize) for f in s.finishes()}
    assert finishes == {"P2": (4, 1100), "P3": (5, 700), "P1": (6, 0), "P7": (7, 0)}
    assert s.remaining == 3 and s.finish_of("P4") is None


def test_equal_starting_stacks_share_places_and_prizes() -> None:
    s = Standings.start(["A", "B", "C", "D"], (500, 300, 150, 51))
    s = s.bust(3, {"C": 1000, "D": 1000})
    assert s.finishes() == (Finish("C", 3, 101, 3, 2), Finish("D", 3, 100, 3, 2))
    assert [name for _, _, name in s.places()] == [None, None, "C", "D"]


def test_heads_up_end_decides_the_winner() -> None:
    s = Standings.start(["A", "B"], (700, 300)).bust(9, {"B": 4000})
    assert s.finishes() == (Finish("A", 1, 700), Finish("B", 2, 300, 9))
    assert s.places() == ((1, 700, "A"), (2, 300, "B"))


def test_disqualification_passes_prizes_down_001_3_7() -> None:
    prizes = (5000, 3000, 2000)
    s = Standings.start(["A", "B", "C", "D", "E"], prizes)
    s = s.bust(1, {"E": 100}).bust(2, {"D": 100})  # D 4th, E 5th: out of the money
    s = s.disqualify("B")  # with three left, B forfeits; D moves up into the money
    assert {f.name: (f.place, f.prize) for f in s.finishes()} == {"D": (3, 2000),
                                                                  "E": (4, 0)}
    s = s.bust(3, {"C": 100})
    assert [(f.name, f.place, f.prize) for f in s.finishes()] == [
        ("A", 1, 5000), ("C", 2, 3000), ("D", 3, 2000), ("E", 4, 0)]
    assert s.finish_of("B") is None


def test_disqualifying_a_paid_finisher_moves_everyone_below_up() -> None:
    s = Standings.start(["A", "B", "C", "D"], (50, 30, 20))
    s = s.bust(1, {"D": 10}).bust(2, {"C": 10}).disqualify("C")
    assert [(f.name, f.place, f.prize) for f in s.finishes()] == [("D", 3, 20)]


def test_standings_refuse_what_cannot_be() -> None:
    s = Standings.start(["A", "B"], (1,))
    with pytest.raises(IllegalActionError, match="Z is not in the tournament"):
        s.bust(1, {"Z": 5})
    with pytest.raises(IllegalActionError, match="already disqualified"):
        s.disqualify("A").disqualify("A")
    with pytest.raises(IllegalActionError, match="same name"):
        Standings.start(["A", "A"], (1,))


@given(st.lists(st.integers(1, 5), min_size=2, max_size=10), st.data())
def test_places_are_a_permutation_and_prizes_are_paid_once(groups: list[int],
                                                           data: st.DataObject) -> None:
    n = sum(groups) + 1
    names = [f"P{k}" for k in range(n)]
    prizes = tuple(sorted(data.draw(st.lists(st.integers(0, 1000), min_size=1, max_size=n)),
                          reverse=True))
    s = Standings.start(names, prizes)
    order = list(names)
    for hand, size in enumerate(groups, 1):
        out, order = order[:size], order[size:]
        s = s.bust(hand, {name: data.draw(st.integers(1, 3)) for name in out})
    finishes = s.finishes()
    assert len(finishes) == n
    assert sum(f.prize for f in finishes) == sum(prizes)
    shared = Counter(f.place for f in finishes)  # tied players share their top place
    place = 1
    while place <= n:
        assert shared[place] >= 1
        place += shared[place]
    assert place == n + 1


@given(st.data())
def test_disqualified_players_leave_the_ranking_and_nobody_else_loses_a_place(
        data: st.DataObject) -> None:
    n = data.draw(st.integers(3, 10))
    names = [f"P{k}" for k in range(n)]
    prizes = (500, 300, 200, 100)
    s = Standings.start(names, prizes)
    order = data.draw(st.permutations(names))
    dq = set(data.draw(st.lists(st.sampled_from(order[:-1]), max_size=3, unique=True)))
    for hand, name in enumerate(order[:-1], 1):  # one bust a hand, or a disqualification
        if name in dq:  # places already decided only move up
            places = {f.name: f.place for f in s.finishes()}
            s = s.disqualify(name)
            after = {f.name: f.place for f in s.finishes()}
            assert all(after[p] in (places[p], places[p] - 1) for p in after if p in places)
        else:
            s = s.bust(hand, {name: 100})
    finishes = s.finishes()
    assert {f.name for f in finishes} == set(names) - dq
    assert sorted(f.place for f in finishes) == list(range(1, n - len(dq) + 1))
    assert sum(f.prize for f in finishes) == sum(prizes[:n - len(dq)])
    assert all(s.finish_of(name) is None for name in dq)
