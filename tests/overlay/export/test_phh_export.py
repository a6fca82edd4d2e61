"""PHH export of logged hands: every file loads in PokerKit (a reader nobody here wrote) and
replays there to the finishing stacks the engine logged; Feltcast's extras are user fields."""

from __future__ import annotations

import random
import tomllib
from pathlib import Path

import pokerkit
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine import phh
from engine.errors import HandHistoryError
from engine.hand import Hand
from overlay import phh_files
from overlay.export.hands import HandRecord, read_hands
from overlay.export.phh import phh_text, skip_reason
from tests.engine.randomhands import play, random_setup
from tests.engine.test_pokerkit_diff import agree
from tests.hands import random_log
from tests.overlay.export.conftest import chip_divmod, needs_data, record_of, televised
from tests.overlay.export.session import PLAYERS, TABLE_NAME


def pokerkit_stacks(text: str) -> list[int]:
    """Load ``text`` with PokerKit and play it to the end; the finishing stacks."""
    fields = tomllib.loads(text)
    history = pokerkit.HandHistory.loads(text, divmod=chip_divmod(fields.get("_chip_unit", 1)))
    *_, last = history
    return list(last.stacks)


def test_every_played_hand_of_the_service_log_replays_in_pokerkit(
        session_hands: list[HandRecord]) -> None:
    exported = [r for r in session_hands if skip_reason(r) is None]
    assert [r.number for r in exported] == [1, 3, 4, 5]
    for record in exported:
        text = phh_text(record)
        assert pokerkit_stacks(text) == list(record.finishing_stacks), record.number
        assert tomllib.loads(text)["finishing_stacks"] == list(record.finishing_stacks)


def test_feltcast_fields_are_user_fields(session_hands: list[HandRecord]) -> None:
    record = session_hands[3]  # hand 4: level 2 with a big-blind ante, two players bust
    fields = tomllib.loads(phh_text(record, event="Main Event Day 3"))
    history = pokerkit.HandHistory.loads(phh_text(record, event="Main Event Day 3"))
    assert history.table == TABLE_NAME and history.level == 2
    assert history.event == "Main Event Day 3"
    assert (history.year, history.month, history.day) == (2026, 11, 30)
    assert str(history.time) == fields["_start_time"][11:19]
    user = history.user_defined_fields
    assert user["_start_time"].endswith("Z") and user["_end_time"].endswith("Z")
    assert user["_start_unix"] == record.started_at and user["_end_unix"] == record.ended_at
    assert user["_end_unix"] - user["_start_unix"] == pytest.approx(user["_duration"])
    assert (user["_table"], user["_level"]) == (TABLE_NAME, 2)
    assert (user["_small_blind"], user["_big_blind"], user["_ante"]) == (200, 400, 400)
    assert user["_button"] == record.button == 5
    assert sorted(user["_eliminated"]) == [[3, 4], [5, 5]]  # the bigger stack places better
    assert user["_log_seq"] == [record.first_seq, record.last_seq]
    assert all(key.startswith("_") for key in user)


def test_names_and_unread_cards_survive(session_hands: list[HandRecord]) -> None:
    text = phh_text(session_hands[2])  # hand 3: seat 5's cards were read only when shown
    history = pokerkit.HandHistory.loads(text)
    assert set(history.players or ()) == {p["name"] for p in PLAYERS}
    position = (history.seats or []).index(5) + 1
    assert f"d dh p{position} KcKs" in history.actions  # dealt as finally known
    assert f"p{position} sm KcKs" in history.actions
    # Cards never read stay unknown: PHH's ????.
    hand = Hand.start(seats=(2, 4, 9), names=("Ann", "Bo", "Cy"), stacks=(500, 800, 300),
                      blinds=(10, 20, 0), big_blind=20, button=9)
    hand.deal_hole(2, "AhKh")
    hand.deal_hole(4, None)
    hand.deal_hole(9, "2c7d")
    hand.fold()  # Cy
    hand.raise_to(60)  # Ann
    hand.fold()  # Bo, his cards unread
    text = phh_text(record_of(hand))
    assert '"d dh p2 ????"' in text
    assert pokerkit_stacks(text) == [520, 780, 300]


def test_void_and_running_hands_have_no_phh(session_hands: list[HandRecord]) -> None:
    void = session_hands[1]
    assert skip_reason(void) == "void hand (misdeal, R13): nothing was played"
    with pytest.raises(HandHistoryError, match="hand 2: void hand"):
        phh_text(void)
    log = random_log(2, 1)
    running = next(read_hands(log[:12]))
    assert skip_reason(running) == "still running at the end of the log"


# R11: an absent player is folded even where he could check; PokerKit (cash-game mode) warns.
@pytest.mark.filterwarnings("ignore:There is no reason for this player to fold:UserWarning")
@settings(max_examples=25)
@given(seed=st.integers(0, 100_000))
def test_random_logged_hands_replay_in_pokerkit(seed: int) -> None:
    for record in read_hands(random_log(seed, 6)):
        if skip_reason(record) is not None:
            continue
        try:
            text = phh_text(record)
        except HandHistoryError as error:  # R5/R8 live rulings PHH's conventions lack
            assert "no faithful PHH spelling" in str(error)
            continue
        assert pokerkit_stacks(text) == list(record.finishing_stacks)


@needs_data
@pytest.mark.parametrize("path", list(televised()), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_televised_hands_through_the_log_and_back(path: Path) -> None:
    original = phh_files.load(path)
    hand = phh.replay(original)
    record = record_of(hand)
    text = phh_text(record)
    again = phh.loads(text)

    def plays(actions: tuple[str, ...]) -> list[str]:  # deals and bets, in order
        return [a.split("#")[0].strip() for a in actions if " sm" not in a]

    assert plays(again.actions) == plays(original.actions)
    assert phh.replay(again).stacks == hand.stacks
    assert pokerkit_stacks(text) == list(hand.stacks)
    if original.finishing_stacks is not None:
        assert list(hand.stacks) == list(original.finishing_stacks)
    assert again.players == original.players or not original.players


@settings(max_examples=40)
@given(seed=st.integers(0, 1_000_000))
@example(seed=744748)  # a pot split between p3 and p4 in two pots: PokerKit merges them
def test_random_hands_of_every_ante_mode_replay_in_pokerkit(seed: int) -> None:
    # tests/engine/randomhands.py: 2-10 players, stacks shorter than a blind to deep, every
    # ante mode of R4 (live antes too), played with random legal actions. The same stacks
    # but for the odd chips of split pots (R16/R17: we split each pot on its own, PokerKit
    # merges pots with the same contenders; tests/engine/test_pokerkit_diff.py).
    rng = random.Random(seed)
    setup = random_setup(rng)
    hand = play(setup, rng)
    text = phh_text(record_of(hand))
    agree(hand, pokerkit_stacks(text), f"seed {seed}: {text}")
    assert tomllib.loads(text)["antes"] == list(setup.antes)
