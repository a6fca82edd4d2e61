"""PHH import, verify and export, on hands nobody here wrote (``../shared/data/phh``)."""

from __future__ import annotations

import random
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from engine import phh
from engine.errors import HandHistoryError, NoPhhSpellingError
from engine.events import ActionTaken
from engine.hand import Hand
from overlay import phh_files
from tests.hands import full_calls_over_a_short_big_blind

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "phh"
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason="the shared PHH corpus is not here")

HEADS_UP = """
variant = "NT"
antes = [0, 0]
blinds_or_straddles = [50, 100]
min_bet = 100
starting_stacks = [1000, 1000]
actions = ["d dh p1 AhAs", "d dh p2 KdKc", "p2 cbr 300", "p1 cbr 1000", "p2 cc",
           "d db 2c3d4h", "d db 9s", "d db Jd"]
finishing_stacks = [2000, 0]
"""


@needs_data
def test_every_shared_hand_replays_to_its_finishing_stacks() -> None:
    files = list(phh_files.iter_files([DATA]))
    results = [phh.verify(phh_files.load(path)) for path in files]
    failures = [r for r in results if not r.passed]
    assert len(files) == 1736
    assert failures == []
    # Only the famous Dwan-Ivey hand lacks finishing_stacks; it still replays to the end.
    assert [Path(r.source).name for r in results if not r.checked] == ["dwan-ivey-2009.phh"]


@needs_data
def test_dwan_ivey_million_dollar_pot_goes_to_dwan() -> None:
    hand = phh.replay(phh_files.load(DATA / "famous" / "dwan-ivey-2009.phh"))
    assert hand.stacks == (572_100, 1_997_500, 1_109_500)
    (award,) = hand.awards
    assert award.seats == (3,) and award.amount == 1_109_500
    assert award.hand == "Straight, Seven high"
    assert hand.hole_cards(2) == (None, None)  # Antonius' ???? stayed unknown


@needs_data
def test_cli_verify_reports_and_exits_zero() -> None:
    folder = DATA / "wsop-2023-43-day5"
    done = subprocess.run([sys.executable, "-m", "overlay", "phh", "verify", str(folder)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == "11 passed, 0 failed"


def test_cli_verify_fails_on_a_wrong_finishing_stack(tmp_path: Path) -> None:
    bad = tmp_path / "bad.phh"
    bad.write_text(HEADS_UP.replace("finishing_stacks = [2000, 0]",
                                    "finishing_stacks = [1900, 100]"))
    good = tmp_path / "good.phh"
    good.write_text(HEADS_UP)
    done = subprocess.run([sys.executable, "-m", "overlay", "phh", "verify", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 1
    lines = done.stdout.strip().splitlines()
    assert lines[-1] == "1 passed, 1 failed"
    assert "bad.phh: p1 +100 (2,000 instead of 1,900); p2 -100 (0 instead of 100)" in lines[0]


def test_heads_up_follows_pokerkit_positions() -> None:
    # p1 is the big blind, p2 the button on the small blind who acts first pre-flop (R3).
    hand = phh.start(phh.loads(HEADS_UP))
    assert hand.bets == (100, 50)
    hand.deal_hole(1, "AhAs")
    hand.deal_hole(2, "KdKc")
    assert hand.actor_seat == 2
    result = phh.replay(phh.loads(HEADS_UP))
    assert result.stacks == (2000, 0)


def test_refused_action_names_the_action_and_the_rule() -> None:
    text = HEADS_UP.replace('"p2 cbr 300"', '"p1 cbr 300"')
    with pytest.raises(HandHistoryError, match=r"action 3 'p1 cbr 300'.*\(R9\)"):
        phh.replay(phh.loads(text, source="x.phh"))


def test_not_nlhe_is_refused() -> None:
    with pytest.raises(HandHistoryError, match="variant 'FT' is not NT"):
        phh.loads(HEADS_UP.replace('"NT"', '"FT"'))


@needs_data
@pytest.mark.parametrize("name", ["wsop-2023-43-day5/1.phh", "pluribus/30/0.phh",
                                  "famous/dwan-ivey-2009.phh"])
def test_export_replays_the_same(name: str) -> None:
    hand = phh.replay(phh_files.load(DATA / name))
    text = phh.export(hand)
    again = phh.replay(phh.loads(text))
    assert again.stacks == hand.stacks
    assert [type(e) for e in again.effective_events] == [
        type(e) for e in hand.effective_events]


def test_export_of_a_live_hand_replays_the_same() -> None:
    hand = Hand.start(seats=(2, 5, 7), names=("Ann", "Bo", "Cy"), stacks=(500, 800, 300),
                      blinds=(10, 20, 0), antes=(0, 20, 0), big_blind=20, button=7)
    for seat, cards in ((2, "AhKh"), (5, "QdQs"), (7, "2c7d")):
        hand.deal_hole(seat, cards)
    hand.raise_to(300)  # Cy all-in
    hand.call()  # Ann
    hand.fold()  # Bo
    hand.deal_board("KsQh3c")
    hand.deal_board("4d")
    hand.deal_board("9s")
    assert hand.is_over
    text = phh.export(hand)
    assert "seats = [2, 5, 7]" in text and 'players = ["Ann", "Bo", "Cy"]' in text
    assert phh.replay(phh.loads(text)).stacks == hand.stacks


def test_cli_show_prints_streets_pots_and_equity(tmp_path: Path) -> None:
    path = tmp_path / "hu.phh"
    path.write_text(HEADS_UP)
    done = subprocess.run([sys.executable, "-m", "overlay", "phh", "show", str(path)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "*** FLOP *** [2c3d4h]" in out
    from engine.equity import equity

    aces = float(equity(["AhAs", "KdKc"]).players[0].equity)
    assert f"equity: p1 AhAs {aces:.1%}, p2 KdKc {1 - aces:.1%}" in out  # preflop
    assert "equity: p1 AhAs 100.0%, p2 KdKc 0.0%" in out  # on the river
    assert "pots: main pot 2,000 (seats 1, 2)" in out
    assert "p1 (seat 1) wins 2,000 from the main pot with Pair, Aces" in out


def test_export_refuses_a_live_rule_call_that_phh_cannot_spell_r5() -> None:
    # Live rule: three players call the full big blind over a big blind all-in for 60;
    # in PHH the call would be 60, so the side pot of the extra 40s has no spelling.
    hand = full_calls_over_a_short_big_blind()
    assert hand.stacks == (1260, 0, 900, 900)
    with pytest.raises(HandHistoryError, match=r"no faithful PHH spelling: p1 -80"):
        phh.export(hand)


# --- PokerKit's closing check: read as the no-op it is, written where PokerKit expects it --

# Three players, blinds 100/200: the button calls all-in for 180, the small blind folds. The
# engine closes the round (only the big blind has chips, and he has the highest bet);
# PokerKit gives the big blind a turn in which he can only check, and writes it (p2 cc).
CLOSING_CHECK = """
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [100, 200, 0]
min_bet = 200
starting_stacks = [10000, 10000, 180]
actions = ["d dh p1 7h2d", "d dh p2 KdKc", "d dh p3 AsAd", "p3 cc", "p1 f", "p2 cc",
           "p2 sm KdKc", "p3 sm AsAd", "d db 2c3d4h", "d db 5s", "d db 9c"]
finishing_stacks = [9900, 9820, 460]
"""


def pokerkit_stacks(text: str) -> list[int]:
    import pokerkit

    *_, last = pokerkit.HandHistory.loads(text)
    return list(last.stacks)


def test_pokerkits_closing_check_is_read_as_the_no_op_it_is() -> None:
    assert pokerkit_stacks(CLOSING_CHECK) == [9900, 9820, 460]  # PokerKit's own reading
    check = phh.verify(phh.loads(CLOSING_CHECK))
    assert check.passed and check.checked, check.message
    # Only there: a check nobody could make is still refused, naming the action.
    early = CLOSING_CHECK.replace('"p3 cc", "p1 f", "p2 cc"', '"p3 cc", "p2 cc"')
    with pytest.raises(HandHistoryError, match=r"action 5 'p2 cc'.*seat 1"):
        phh.replay(phh.loads(early))


def live_hand(stacks: tuple[int, ...], blinds: tuple[int, ...], *, antes: tuple[int, ...] = (),
              cards: tuple[str, ...]) -> Hand:
    seats = tuple(range(1, len(stacks) + 1))
    hand = Hand.start(seats=seats, stacks=stacks, blinds=blinds, big_blind=max(blinds),
                      antes=antes or (0,) * len(stacks), button=seats[-1],
                      names=tuple(f"P{s}" for s in seats))
    for seat, hole in zip(seats, cards, strict=True):
        hand.deal_hole(seat, hole)
    return hand


def run_out(hand: Hand, *boards: str) -> None:
    for board in boards:
        if hand.is_over:
            break
        hand.deal_board(board)
    assert hand.is_over


def test_export_writes_the_closing_check_pokerkit_expects() -> None:
    hand = live_hand((10000, 10000, 180), (100, 200, 0), cards=("7h2d", "KdKc", "AsAd"))
    hand.call()  # the button, all-in for 180
    hand.fold()  # the small blind; the round is over for the engine
    run_out(hand, "2c3d4h", "5s", "9c")
    text = phh.export(hand)
    assert '"p3 cc",\n  "p1 f",\n  "p2 cc",\n  "p2 sm KdKc"' in text
    assert pokerkit_stacks(text) == list(hand.stacks) == [9900, 9820, 460]


def test_export_leaves_out_a_live_call_phh_spells_as_nothing_r5() -> None:
    # Heads-up, the big blind is all-in for 120 of 400; the button's small blind (200)
    # calls the full big blind under the live rule and gets 280 back. In PHH's convention
    # the small blind has already matched the 120: PokerKit expects no action at all.
    hand = live_hand((520, 5000), (400, 200), antes=(400, 0), cards=("7c3d", "Kd5s"))
    hand.call()
    run_out(hand, "Ad2h9d", "6c", "Ah")
    text = phh.export(hand)
    assert not re.search(r'"p\d+ (?:f|cc|cbr \d+)"', text)  # no action at all
    assert pokerkit_stacks(text) == list(hand.stacks)


def test_export_names_a_fold_phh_has_no_turn_for_r5() -> None:
    # Everybody folds to a big blind all-in on his ante: under the live rule each faced
    # the full big blind; in PHH's convention there was nothing to call.
    hand = live_hand((17000, 85000, 217000, 131000), (20000, 0, 0, 0),
                     antes=(20000, 0, 0, 0), cards=("9h7d", "Tc5s", "Ks9c", "Ac7s"))
    for _ in range(3):
        hand.fold()
    assert hand.is_over
    with pytest.raises(NoPhhSpellingError, match=r"p2 folds facing the live call of the full "
                                                 r"big blind \(R5\)"):
        phh.export(hand)


def test_random_live_hands_export_to_files_pokerkit_replays() -> None:
    """500 random live-rule hands (short stacks and blinds, every ante mode): every file
    written replays in PokerKit as it is, to the same stacks (odd chips of split pots aside,
    tests/engine/test_pokerkit_diff.py); the others are live R5 rulings, named as such."""
    import pokerkit

    from tests.engine.randomhands import random_setup
    from tests.engine.test_pokerkit_diff import agree
    from tests.hands import drive_hand

    written = unspellable = closing = 0
    for seed in range(500):
        rng = random.Random(seed)
        setup = random_setup(rng)
        seats = tuple(range(1, len(setup.stacks) + 1))
        hand = Hand.start(seats=seats, stacks=setup.stacks, blinds=setup.blinds,
                          antes=setup.antes, big_blind=setup.big_blind, button=seats[-1])
        drive_hand(hand, rng, list(setup.deck))
        if not hand.awards:
            continue  # a misdeal (R13)
        try:
            text = phh.export(hand)
        except NoPhhSpellingError as error:
            assert "(R5" in str(error), f"seed {seed}: {error}"
            unspellable += 1
            continue
        with warnings.catch_warnings():  # R11: an absent player folds where he could check
            warnings.simplefilter("ignore")
            *_, last = pokerkit.HandHistory.loads(text)
        agree(hand, last.stacks, f"seed {seed}: {text}")
        written += 1
        actions = sum(1 for e in hand.effective_events if isinstance(e, ActionTaken))
        closing += len(re.findall(r'"p\d+ (?:f|cc|cbr \d+)"', text)) > actions
    assert written > 430 and 0 < unspellable < written // 50, (written, unspellable)
    assert closing > 0  # the sweep does write PokerKit's closing checks


def test_unknown_cards_at_the_showdown_are_a_muck() -> None:
    # PokerKit writes "sm ????" for a player whose cards nobody saw at the showdown (its
    # PokerStars parser does so for a losing hand that was not shown).
    text = HEADS_UP.replace('"d db Jd"]', '"d db Jd", "p1 sm AhAs", "p2 sm ????"]')
    assert pokerkit_stacks(text) == [2000, 0]
    hand = phh.replay(phh.loads(text))
    assert hand.stacks == (2000, 0) and hand.is_mucked(2)
    with pytest.raises(HandHistoryError, match=r"action 1 'p1 sm \?\?\?\?'"):
        phh.replay(phh.loads(HEADS_UP.replace('actions = ["d dh p1 AhAs"',
                                              'actions = ["p1 sm ????", "d dh p1 AhAs"')))
