"""The field: players remaining, chips, average, shares, big blinds, chip leader, ranks."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import IllegalActionError
from engine.field import Field


def test_field_figures() -> None:
    f = Field.of({1: 12_000, 3: 0, 4: 6_000, 7: 2_000, 9: 6_000}, big_blind=400, entrants=30)
    assert (f.remaining, f.total_chips, f.average) == (4, 26_000, 6_500)
    assert f.average_in_big_blinds == 16.2 and f.chip_leader == 1
    assert [(p.seat, p.rank) for p in f.players()] == [(1, 1), (4, 2), (9, 2), (7, 4)]
    four = f.player(4)
    assert four.in_big_blinds == 15.0 and four.share == pytest.approx(6 / 26)
    assert f.to_dict() == {"entrants": 30, "remaining": 4, "total_chips": 26_000,
                           "average": 6_500, "average_bb": 16.2, "chip_leader": 1}
    with pytest.raises(IllegalActionError, match="nobody with chips sits in seat 3"):
        f.player(3)


def test_empty_field_and_no_big_blind() -> None:
    f = Field.of({})
    assert (f.remaining, f.average, f.chip_leader, f.average_in_big_blinds) == (0, 0, None,
                                                                               None)
    assert Field.of({2: 100}).player(2).in_big_blinds is None
    with pytest.raises(IllegalActionError, match="negative"):
        Field.of({1: -5})


@given(st.dictionaries(st.integers(1, 10), st.integers(1, 10**7), min_size=1),
       st.integers(1, 10**5))
def test_field_properties(stacks: dict[int, int], big_blind: int) -> None:
    f = Field.of(stacks, big_blind=big_blind)
    players = f.players()
    assert sum(p.share for p in players) == pytest.approx(1)
    assert f.average * f.remaining <= f.total_chips < (f.average + 1) * f.remaining
    assert players[0].rank == 1 and f.player(f.chip_leader or 0).stack == max(stacks.values())
    for a, b in itertools.pairwise(players):
        assert a.stack >= b.stack and (a.rank == b.rank) == (a.stack == b.stack)
        assert b.rank == 1 + sum(1 for c in stacks.values() if c > b.stack)
