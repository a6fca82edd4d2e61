"""Differential test against PokerKit, an independent NLHE implementation (a test dependency).

5,000 seeded random hands (2-10 players, short stacks and short blinds, every ante mode of
R4, random legal actions) run through both engines side by side. At every decision both must
agree on whose turn it is, the amount to call and the minimum and maximum raise; at every
street and before the showdown the pots (amount and contenders, R16) must agree; at the end
every player's payoff must agree.

Deliberate house-rule differences, configured away or tolerated here:

* R5: the engine runs with ``short_call_rule="phh"`` (PokerKit's convention: the call is the
  largest amount actually posted); the live default would differ whenever a blind is short.
* R7: our rule counts the raises since *each player's* last action; PokerKit sums consecutive
  short all-ins and treats a short all-in over limpers as reopening. Where PokerKit lets a
  player re-raise and we do not, the test accepts it (we are stricter, never looser) and
  counts it; the random driver only ever picks actions legal in our engine.
* When every other player is all-in and the last player with chips has matched the bet,
  PokerKit still gives him a turn in which he can only check; we close the round.
* When the big blind posts less than the small blind (a big blind shorter than the small
  blind), PokerKit opens the action left of the small blind; R4 opens it left of the big
  blind. The random stacks avoid that spot (it is covered by our own tests).
* Trimmed ("live") antes are used with per-player antes only; big-blind and button antes are
  dead money in the main pot, as in the WSOP files.
* Odd chips: we split each pot on its own (R16, R17); PokerKit merges pots whose
  contenders coincide after the losing hands are killed, so with two or more split pots an
  odd chip can land on a different winner (never more than one chip per split pot).
* Folding when a check is possible is legal in ours but an error in PokerKit's tournament
  mode; the driver never does it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest

from engine import phh
from engine.cards import Card
from engine.events import Street
from engine.hand import Hand
from tests.engine.randomhands import Setup, play, random_setup

pokerkit = pytest.importorskip("pokerkit", reason="pokerkit is a test dependency")

# Our deck is not PokerKit's shuffled deck; it warns about that, harmlessly.
pytestmark = pytest.mark.filterwarnings("ignore:A card being dealt:UserWarning")

HANDS = 5000
AUTOMATIONS = tuple(
    a for a in pokerkit.Automation
    if a not in (pokerkit.Automation.HOLE_DEALING, pokerkit.Automation.BOARD_DEALING,
                 pokerkit.Automation.RUNOUT_COUNT_SELECTION,
                 pokerkit.Automation.HOLE_CARDS_SHOWING_OR_MUCKING))


_KEYS: dict[tuple[int, ...], tuple[Any, Any]] = {}


@pytest.fixture(autouse=True)
def memoized_pokerkit_lookups(monkeypatch: pytest.MonkeyPatch) -> None:
    """PokerKit re-derives a hand's lookup key on every comparison, which makes its showdowns
    the bulk of this test's time; memoizing that pure function (per hand, keyed by the card
    objects, which the cache keeps alive) keeps the runtime modest without changing results."""
    original = pokerkit.lookups.Lookup._get_key

    def get_key(self: Any, cards: Any) -> Any:
        if not isinstance(cards, tuple):
            return original(self, cards)
        key = (id(type(self)), *map(id, cards))
        try:
            return _KEYS[key][1]
        except KeyError:
            value = original(self, cards)
            _KEYS[key] = (cards, value)
            return value

    monkeypatch.setattr(pokerkit.lookups.Lookup, "_get_key", get_key)


def pk_game(setup: Setup) -> Any:
    return pokerkit.NoLimitTexasHoldem(AUTOMATIONS, setup.live_antes, setup.antes,
                                       setup.blinds, setup.big_blind)


def codes(cards: tuple[Card, ...]) -> str:
    return "".join(c.code for c in cards)


def pk_pots(state: Any, seats: tuple[int, ...]) -> list[tuple[int, tuple[int, ...]]]:
    return [(p.amount, tuple(seats[i] for i in p.player_indices)) for p in state.pots]


def our_pots(hand: Hand) -> list[tuple[int, tuple[int, ...]]]:
    return [(p.amount, p.seats) for p in hand.pots() if p.amount]


class Mirror:
    """Applies each step to PokerKit after checking that both engines see the same spot."""

    def __init__(self, setup: Setup, seed: int) -> None:
        self.game = pk_game(setup)
        self.state = self.game(setup.stacks, len(setup.stacks))
        self.seed = seed
        self.stricter = 0
        self.closing_checks = 0

    def __call__(self, hand: Hand, step: str, arg: object) -> None:
        state, where = self.state, f"seed {self.seed}, {step} {arg}"
        if step in ("fold", "check_or_call", "raise_to"):
            self.check_decision(hand, where)
        else:
            self.skip_empty_option(where)
        if step == "deal_hole":
            assert isinstance(arg, tuple)
            state.deal_hole(codes(arg[1]), hand.seats.index(arg[0]))
        elif step == "deal_board":
            self.show_all()
            assert our_pots(hand) == pk_pots(state, hand.seats), where
            state.deal_board(codes(arg))  # type: ignore[arg-type]
        elif step == "fold":
            state.fold()
        elif step == "check_or_call":
            state.check_or_call()
        elif step == "raise_to":
            state.complete_bet_or_raise_to(arg)
        elif step == "showdown" and state.status:  # (an all-in run-out is already settled)
            assert our_pots(hand) == pk_pots(state, hand.seats), where
            self.show_all()

    def skip_empty_option(self, where: str) -> None:
        """PokerKit still asks a player who has matched the bet to check when nobody left
        can answer a raise; our round is already over (nothing could change)."""
        state = self.state
        while state.actor_index is not None:
            assert state.checking_or_calling_amount == 0, where
            assert state.min_completion_betting_or_raising_to_amount is None, where
            state.check_or_call()
            self.closing_checks += 1

    def show_all(self) -> None:
        while self.state.can_show_or_muck_hole_cards():
            self.state.show_or_muck_hole_cards(True)

    def check_decision(self, hand: Hand, where: str) -> None:
        state = self.state
        legal = hand.legal_actions()
        assert legal is not None
        assert hand.seats.index(legal.seat) == state.actor_index, where
        assert legal.call_amount == state.checking_or_calling_amount, where
        pk_min = state.min_completion_betting_or_raising_to_amount
        if legal.min_raise_to is None:
            if pk_min is not None:
                self.stricter += 1  # R7 difference documented above: we are stricter
                assert any(r.rule == "R7" for r in legal.restrictions), where
        else:
            assert pk_min is not None, f"we allow a raise PokerKit refuses: {where}"
            assert legal.min_raise_to == pk_min, where
            assert legal.max_raise_to == state.max_completion_betting_or_raising_to_amount, where


@dataclass
class Tally:
    stricter: int = 0
    """Decisions where PokerKit allowed a raise that R7 refuses."""
    closing_checks: int = 0
    """PokerKit's files with a closing no-op check (all others all-in) the engine read."""


def run_one(seed: int, tally: Tally | None = None) -> None:
    tally = tally or Tally()
    _KEYS.clear()
    rng = random.Random(seed)
    setup = random_setup(rng)
    mirror = Mirror(setup, seed)
    hand = play(setup, rng, mirror, fold=0.4, call=0.35)
    state = mirror.state
    assert hand.is_over and hand.street is Street.COMPLETE
    assert not state.status, f"seed {seed}: PokerKit's hand is not over"
    tally.stricter += mirror.stricter
    agree(hand, state.stacks, f"seed {seed}")
    # PHH as PokerKit writes it replays here as it is: every hand with a closing no-op check
    # (the spot where the engines differ), and every tenth other (PokerKit's dump is slow).
    if mirror.closing_checks or seed % 10 == 0:
        text = pokerkit.HandHistory.from_game_state(  # (not a required field: PokerKit
            mirror.game, state, ante_trimming_status=setup.live_antes).dumps()  # omits it)
        agree(phh.replay(phh.loads(text)), state.stacks, f"seed {seed}, PokerKit's PHH {text}")
        tally.closing_checks += mirror.closing_checks > 0


def agree(hand: Hand, stacks: Any, where: str) -> None:
    """Our finishing stacks are PokerKit's, but for the odd chips of split pots:
    R16/R17: we split each pot on its own (odd chip to the first winner clockwise);
    PokerKit merges pots whose contenders coincide once the losers' hands are killed,
    so odd chips may land differently; never by more than one chip per split pot."""
    if hand.stacks != tuple(stacks):
        splits = sum(1 for a in hand.awards if len(a.seats) > 1)
        diffs = [abs(x - y) for x, y in zip(hand.stacks, stacks, strict=True)]
        assert splits >= 2 and max(diffs) <= splits, f"{where}: {hand.stacks} vs {stacks}"
        assert sum(hand.stacks) == sum(stacks)


def test_first_three_hundred_hands_agree() -> None:
    """A quick slice of the full run below (which is marked slow)."""
    tally = Tally()
    for seed in range(300):
        run_one(seed, tally)
    assert tally.closing_checks > 0  # the slice does read PokerKit's closing checks


@pytest.mark.slow
def test_five_thousand_random_hands_agree_with_pokerkit() -> None:
    tally = Tally()
    for seed in range(HANDS):
        run_one(seed, tally)
    # The R7 difference is real but rare; if it were everywhere the drivers would be broken.
    assert tally.stricter < HANDS // 10
