"""Session stats (VPIP, PFR, three-bet, AF, WTSD) and the ticker line."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.events import PlayerEliminated
from engine.hand import Hand
from engine.stats import PlayerStats, hand_stats, session_stats, ticker_line
from tests.engine.randomhands import play, random_setup


def new_hand(number: int) -> Hand:
    return Hand.start(seats=(1, 2, 3), stacks=(5000, 5000, 5000), blinds=(25, 50, 0),
                      big_blind=50, button=3, names=("Ann", "Bo", "Cy"), hand_number=number)


def three_bet_pot() -> Hand:
    """Cy opens, Ann (small blind) three-bets, Bo folds, Cy calls; Ann bets the flop, Cy
    calls; Cy bets the turn, Ann calls; both check the river; Ann's set of queens wins."""
    h = new_hand(41)
    for seat, cards in ((1, "QhQd"), (2, "2c7d"), (3, "9s9c")):
        h.deal_hole(seat, cards)
    h.raise_to(150, 3)
    h.raise_to(450, 1)
    h.fold(2)
    h.call(3)
    h.deal_board("Qs9h4c")
    h.bet(500, 1)
    h.call(3)
    h.deal_board("2h")
    h.check(1)
    h.bet(1000, 3)
    h.call(1)
    h.deal_board("Kd")
    h.check(1)
    h.check(3)
    assert h.is_over
    return h


def walk() -> Hand:
    """Everyone folds to the big blind."""
    h = new_hand(42)
    for seat in (1, 2, 3):
        h.deal_hole(seat, None)
    h.fold(3)
    h.fold(1)
    return h


def test_three_bet_pot_counts() -> None:
    stats = hand_stats(three_bet_pot().events)
    assert stats["Ann"] == PlayerStats("Ann", hands=1, vpip_hands=1, pfr_hands=1,
                                       three_bet_chances=1, three_bets=1, aggressive=1,
                                       calls=1, saw_flop=1, showdowns=1)
    assert stats["Cy"] == PlayerStats("Cy", hands=1, vpip_hands=1, pfr_hands=1, aggressive=1,
                                      calls=1, saw_flop=1, showdowns=1)
    assert stats["Bo"] == PlayerStats("Bo", hands=1)  # folded to a three-bet: no chance


def test_a_walk_is_not_voluntary_and_session_sums() -> None:
    assert all(s.vpip_hands == 0 and s.hands == 1 for s in hand_stats(walk().events).values())
    session = session_stats([three_bet_pot().events, walk().events])
    ann, bo = session["Ann"], session["Bo"]
    assert (ann.hands, ann.vpip, ann.pfr, ann.three_bet, ann.af, ann.wtsd) == (
        2, 0.5, 0.5, 1.0, 1.0, 1.0)
    assert (bo.vpip, bo.three_bet, bo.af, bo.wtsd) == (0.0, None, None, None)
    assert ann.to_dict() == {"hands": 2, "vpip": 0.5, "pfr": 0.5, "three_bet": 1.0,
                             "af": 1.0, "wtsd": 1.0}


def test_undone_actions_and_void_hands_do_not_count() -> None:
    h = new_hand(7)
    for seat in (1, 2, 3):
        h.deal_hole(seat, None)
    h.raise_to(200, 3)
    h.undo()  # the operator took the raise back: Cy folds instead
    h.fold(3)
    assert hand_stats(h.events)["Cy"].pfr_hands == 0
    h.void()
    assert hand_stats(h.events) == {}
    assert ticker_line(h.events) == "Hand 7: misdeal, the hand is void"


def test_ticker_lines() -> None:
    assert ticker_line(three_bet_pot().events) == (
        "Hand 41: Ann wins 3,950 with three of a kind, queens")
    out = PlayerEliminated(seat=3, name="Cy", place=7, hand_number=42)
    assert ticker_line(walk().events, [out]) == "Hand 42: Bo wins 50; Cy is out in 7th"


def test_split_pot_ticker() -> None:
    h = Hand.start(seats=(1, 2), stacks=(1000, 1000), blinds=(50, 25), big_blind=50,
                   button=2, names=("Ann", "Bo"), hand_number=3)
    h.deal_hole(1, "Ah2c")
    h.deal_hole(2, "Ad3c")
    h.call()
    h.check()
    h.deal_board("KsQsJd")
    h.check()
    h.check()
    h.deal_board("Th")
    h.check()
    h.check()
    h.deal_board("4c")
    h.check()
    h.check()
    assert h.is_over
    assert ticker_line(h.events) == "Hand 3: Ann and Bo split 100 with a straight, ace high"


@settings(max_examples=40)
@given(st.integers(0, 2**32))
def test_stats_properties_over_random_hands(seed: int) -> None:
    rng = random.Random(seed)
    hands = [play(random_setup(rng), rng).events for _ in range(3)]
    total = session_stats(hands)
    for name, s in total.items():
        assert s.pfr_hands <= s.vpip_hands <= s.hands
        assert s.three_bets <= s.three_bet_chances
        assert s.showdowns <= s.saw_flop <= s.hands
        assert all(0 <= r <= 1 for r in (s.vpip, s.pfr, s.three_bet, s.wtsd) if r is not None)
        parts = [hand_stats(h)[name] for h in hands if name in hand_stats(h)]
        assert sum(p.hands for p in parts) == s.hands == len(parts)
    for events in hands:
        line = ticker_line(events)
        assert line.startswith("Hand ") and (" wins " in line or " split " in line)
