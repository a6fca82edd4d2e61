"""The booth's story lines (engine/stories.py): big pots, chip lead, knock-outs, double-ups."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.events import HandEnded
from engine.hand import Hand
from engine.stories import PlayerStory, hand_stories, merge_stories
from tests.engine.randomhands import play, random_setup


def all_in_preflop(number: int, stacks: tuple[int, int, int], winner_cards: str,
                   loser_cards: str) -> Hand:
    """Cy (button) shoves, Ann (small blind) calls, Bo folds; Ann holds ``winner_cards``."""
    h = Hand.start(seats=(1, 2, 3), stacks=stacks, blinds=(25, 50, 0), big_blind=50, button=3,
                   names=("Ann", "Bo", "Cy"), hand_number=number)
    h.deal_hole(1, winner_cards)
    h.deal_hole(2, "2c7d")
    h.deal_hole(3, loser_cards)
    h.all_in(3)
    h.call(1)
    h.fold(2)
    h.deal_board("2h3h8d")
    h.deal_board("9c")
    h.deal_board("Jd")
    assert h.is_over
    return h


def test_a_short_stack_that_doubles_through_the_big_one() -> None:
    # Ann (1,000) calls Cy's shove with aces and wins: she doubles through Cy.
    hand = all_in_preflop(5, (1000, 5000, 6000), "AhAd", "KsKc")
    stories = hand_stories(hand.effective_events)
    ann, cy, bo = stories["Ann"], stories["Cy"], stories["Bo"]
    assert ann.doubled == ((5, "Cy"),)
    assert ann.biggest_won == (5, 2050)  # both all-ins and Bo's big blind
    assert ann.knocked_out == () and ann.lead_taken == 0
    assert cy.biggest_lost == (5, 1000) and cy.doubled == () and cy.biggest_won is None
    assert bo.biggest_lost == (5, 50)
    assert cy.lead_taken == 0  # Cy led before and after


def test_a_knock_out_and_the_chip_lead_change_hands() -> None:
    # Cy (2,000) shoves into Ann (3,000), who wins: Cy is out, Ann takes the chip lead from Bo.
    hand = all_in_preflop(9, (3000, 4000, 2000), "AhAd", "KsKc")
    ended = next(e for e in hand.effective_events if isinstance(e, HandEnded))
    assert ended.busted == (3,)
    stories = hand_stories(hand.effective_events)
    ann = stories["Ann"]
    assert ann.knocked_out == (("Cy", 9),)
    assert ann.doubled == ()  # a knock-out, told as such
    assert (ann.lead_taken, ann.lead_hand) == (1, 9)
    assert stories["Bo"].lead_taken == 0 and stories["Cy"].biggest_lost == (9, 2000)


def test_merging_keeps_the_biggest_and_counts_the_rest() -> None:
    first = PlayerStory("Ann", biggest_won=(3, 900), biggest_lost=(4, 100), lead_taken=1,
                        lead_hand=3, knocked_out=(("Cy", 3),))
    second = PlayerStory("Ann", biggest_won=(8, 700), biggest_lost=(9, 300), lead_taken=1,
                         lead_hand=8, doubled=((8, "Bo"),))
    total = merge_stories({"Ann": first}, {"Ann": second})["Ann"]
    assert total == PlayerStory("Ann", biggest_won=(3, 900), biggest_lost=(9, 300),
                                lead_taken=2, lead_hand=8, knocked_out=(("Cy", 3),),
                                doubled=((8, "Bo"),))
    assert total.to_dict()["biggest_won"] == {"hand": 3, "chips": 900}
    assert total.to_dict()["doubled"] == [{"hand": 8, "through": "Bo"}]


def test_a_hand_not_over_or_void_tells_no_story() -> None:
    h = Hand.start(seats=(1, 2), stacks=(500, 500), blinds=(25, 50), big_blind=50, button=1,
                   names=("Ann", "Bo"), hand_number=1)
    assert hand_stories(h.effective_events) == {}
    h.void()
    assert hand_stories(h.effective_events) == {}


@settings(max_examples=40)
@given(st.integers(0, 2**32))
def test_story_lines_agree_with_the_stacks_over_random_hands(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(3):
        hand = play(random_setup(rng), rng)
        events = hand.effective_events
        stories = hand_stories(events)
        if not stories:
            continue
        started = events[0]
        ended = next(e for e in events if isinstance(e, HandEnded))
        change = {name: after - before for name, before, after
                  in zip(started.names, started.stacks, ended.stacks, strict=True)}
        # Chips are conserved, so a hand's losses are what its winners gained.
        lost = sum(s.biggest_lost[1] for s in stories.values() if s.biggest_lost)
        assert lost == -sum(c for c in change.values() if c < 0)
        assert sum(s.lead_taken for s in stories.values()) <= 1
        for name, story in stories.items():
            assert (story.biggest_lost is not None) == (change[name] < 0)
            for _, through in story.doubled:
                assert change[through] < 0 and through != name
            if story.knocked_out:
                assert change[name] == max(change.values())
        knocked = [out for s in stories.values() for out, _ in s.knocked_out]
        assert sorted(knocked) == sorted(started.names[started.seats.index(seat)]
                                         for seat in ended.busted)
