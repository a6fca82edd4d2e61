"""Invariants over random hands (hypothesis): chips are conserved, no stack goes negative, the
action moves clockwise from the right seat (R3, R4), a short all-in never reopens the betting
for a player who has acted unless the raises since add up to a full raise (R7), undo and
replay give back the same state."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import phh
from engine.events import (
    ActionKind,
    ActionTaken,
    Event,
    HandMucked,
    HandShown,
    Secrecy,
    Street,
    StreetStarted,
)
from engine.hand import Hand
from tests.engine.randomhands import Setup, play, random_setup

SEEDS = st.integers(0, 2**32 - 1)
RULES = st.sampled_from(["live", "phh"])


def start(setup: Setup, rule: str) -> Hand:
    history = setup.history()
    hand = phh.start(history)
    if rule == "phh":
        return hand
    started = hand.started
    assert started is not None
    return Hand.start(seats=started.seats, stacks=started.stacks, blinds=started.blinds,
                      antes=started.antes, big_blind=started.big_blind,
                      dead_antes=started.dead_antes, short_call_rule="live")


class Invariants:
    def __init__(self, hand: Hand, rule: str) -> None:
        self.total = sum(hand.start_stacks)
        self.rule = rule
        self.checked = 0
        self.full_raise = 0
        self.acted_at: dict[int, int] = {}

    def level(self, hand: Hand) -> int:
        started = hand.started
        assert started is not None
        level = max(hand.bets)
        if self.rule == "live" and hand.street is Street.PREFLOP:
            level = max(level, max(started.blinds))
        return level

    def conserve(self, hand: Hand) -> None:
        assert all(s >= 0 for s in hand.stacks)
        assert sum(hand.stacks) + hand.total_pot == self.total
        assert sum(p.amount for p in hand.pots()) == hand.total_pot

    def __call__(self, hand: Hand, step: str, arg: object) -> None:
        self.conserve(hand)
        if step not in ("fold", "check_or_call", "raise_to"):
            return
        legal = hand.legal_actions()
        assert legal is not None
        started = hand.started
        assert started is not None
        # R3/R4: since the street began or the last action, every seat passed over is out
        # of the hand or all-in.
        seats = hand.seats
        count = len(seats)
        street_events = []
        for event in reversed(hand.effective_events):
            if isinstance(event, StreetStarted):
                break
            street_events.append(event)
        actions = [e for e in street_events if isinstance(e, ActionTaken)]
        if actions:
            start = (seats.index(actions[0].seat) + 1) % count
        elif hand.street is Street.PREFLOP:
            top = max(started.blinds)
            big = max(i for i in range(count) if started.blinds[i] == top)
            if count == 2:
                big = 0
            start = (big + 1) % count
        else:
            start = 0
        position = start
        while seats[position] != legal.seat:
            seat = seats[position]
            assert hand.is_folded(seat) or hand.is_mucked(seat) or hand.stack(seat) == 0, (
                f"seat {seat} was passed over")
            position = (position + 1) % count
        if count == 2 and not actions:
            expected = seats[1] if hand.street is Street.PREFLOP else seats[0]
            if hand.stack(expected) > 0:
                assert legal.seat == expected  # R3
        # R7: increases since this player's last action below a full raise never reopen.
        if not actions:
            self.full_raise = started.big_blind
            self.acted_at = {}
        mine = [e for e in actions if e.seat == legal.seat]
        level = self.level(hand)
        if mine:
            since = level - max(e.to for e in mine)
            last_full = self.largest_full_raise(actions, started.big_blind, hand)
            if since < last_full and max(e.to for e in mine) > 0:
                assert legal.max_raise_to is None, "a short all-in reopened the betting"
                self.checked += 1

    def largest_full_raise(self, actions: list[ActionTaken], big_blind: int, hand: Hand) -> int:
        started = hand.started
        assert started is not None
        full = big_blind
        level = max(started.blinds) if (hand.street is Street.PREFLOP
                                        and self.rule == "live") else 0
        if hand.street is Street.PREFLOP and self.rule == "phh":
            level = max(min(b, s) for b, s in zip(started.blinds, started.stacks, strict=True))
        for event in reversed(actions):
            if event.action in (ActionKind.BET, ActionKind.RAISE):
                increase = event.to - level
                if increase >= full:
                    full = increase
                level = max(level, event.to)
        return full


@settings(max_examples=150, deadline=None)
@given(SEEDS, RULES)
def test_random_hands_keep_every_invariant(seed: int, rule: str) -> None:
    rng = random.Random(seed)
    setup = random_setup(rng)
    hand = start(setup, rule)
    checks = Invariants(hand, rule)
    play(setup, rng, checks, hand=hand)
    checks.conserve(hand)
    assert hand.is_over
    assert sum(hand.stacks) == checks.total


@settings(max_examples=60, deadline=None)
@given(SEEDS, RULES, st.integers(1, 30))
def test_undo_then_replay_restores_every_earlier_state(seed: int, rule: str, back: int) -> None:
    rng = random.Random(seed)
    setup = random_setup(rng)
    hand = start(setup, rule)
    snapshots: list[tuple[object, ...]] = []

    def snap(h: Hand) -> tuple[object, ...]:
        return (h.stacks, h.bets, h.actor_seat, tuple(h.board), h.street, h.pots())

    def record(h: Hand, step: str, arg: object) -> None:
        if step != "showdown":
            snapshots.append(snap(h))

    play(setup, rng, record, hand=hand)
    # An explicit showdown is one command per hand shown or mucked: take those back first.
    def last_command(h: Hand) -> object:
        return next(e for e in reversed(h.effective_events) if e.is_command)

    while isinstance(last_command(hand), HandShown | HandMucked):
        hand.undo()
    commands = len(snapshots)
    for k in range(min(back, commands)):
        hand.undo()
        assert snap(hand) == snapshots[commands - 1 - k]
        assert snap(Hand.replay(hand.events)) == snapshots[commands - 1 - k]


def test_the_r7_check_is_exercised() -> None:
    """The random driver does reach spots where a short all-in faces players who acted."""
    checked = 0
    for seed in range(200):
        rng = random.Random(seed)
        setup = random_setup(rng)
        hand = start(setup, "live")
        checks = Invariants(hand, "live")
        play(setup, rng, checks, hand=hand)
        checked += checks.checked
    assert checked > 0


@settings(max_examples=60, deadline=None)
@given(SEEDS)
def test_phh_export_replays_to_the_same_stacks(seed: int) -> None:
    rng = random.Random(seed)
    setup = random_setup(rng)
    hand = play(setup, rng)
    text = phh.export(hand)
    again = phh.replay(phh.loads(text))
    assert again.stacks == hand.stacks
    assert [a.amount for a in again.awards] == [a.amount for a in hand.awards]


@settings(max_examples=60, deadline=None)
@given(SEEDS, RULES)
def test_public_views_replay_to_the_public_state_at_every_step(seed: int, rule: str) -> None:
    rng = random.Random(seed)
    setup = random_setup(rng)
    hand = start(setup, rule)
    play(setup, rng, hand=hand)
    public: list[Event] = []
    for k, event in enumerate(hand.events):
        view = event.public_view()
        if event.secrecy is Secrecy.NEVER:
            assert view is None
            continue
        assert view is not None and view.secrecy is Secrecy.PUBLIC
        public.append(view)
        full = Hand.replay(hand.events[:k + 1])
        seen = Hand.replay(public)
        assert (seen.stacks, seen.bets, seen.board, seen.actor_seat, seen.pots(), seen.street) \
            == (full.stacks, full.bets, full.board, full.actor_seat, full.pots(), full.street)
        for seat in full.seats:  # hole cards are known publicly only once shown
            if not full.is_shown(seat):
                assert seen.hole_cards(seat) in (None, (None, None))
