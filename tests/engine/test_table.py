"""The table across hands: button and blinds (R1-R3), antes (R4), absent players (R11),
clock (R12), misdeal (R13), eliminations (R22) and levels (R21)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import FULL_DECK
from engine.errors import ConfigError, IllegalActionError
from engine.events import ActionKind, PlayerEliminated, Street
from engine.hand import Hand
from engine.table import AnteMode, Positions, Table, TableRules
from engine.tournament import DEFAULT_STRUCTURE, BlindLevel, Structure


def table_of(stacks: dict[int, int], button: int, **rules: object) -> Table:
    table = Table(TableRules(**rules))  # type: ignore[arg-type]
    for seat, stack in stacks.items():
        table.seat_player(seat, f"P{seat}", stack)
    table.set_button(button)
    return table


def fold_around(hand: Hand) -> None:
    """Everyone folds to the big blind (who wins the blinds)."""
    for seat in hand.seats:
        hand.deal_hole(seat, None)
    while not hand.is_over:
        hand.fold()


def play_out(table: Table) -> Positions:
    hand = table.start_hand()
    positions = table._positions
    assert positions is not None
    fold_around(hand)
    table.finish_hand()
    return positions


def test_first_button_by_high_card_with_suits_r1() -> None:
    table = Table()
    for seat in (2, 5, 9):
        table.seat_player(seat, f"P{seat}", 5000)
    assert table.draw_for_button({2: "Ah", 5: "As", 9: "Kd"}) == 5  # spades beat hearts
    with pytest.raises(IllegalActionError, match=r"seat\(s\) \[9\] have not drawn"):
        table.draw_for_button({2: "Ah", 5: "As"})


def test_button_and_blinds_move_one_seat_each_hand_r1_r4() -> None:
    table = table_of({1: 5000, 3: 5000, 5: 5000, 7: 5000}, button=1)
    seen = [play_out(table) for _ in range(5)]
    assert [(p.button, p.small_blind, p.big_blind) for p in seen] == [
        (1, 3, 5), (3, 5, 7), (5, 7, 1), (7, 1, 3), (1, 3, 5)]
    hand = table.start_hand()
    assert hand.seats == (5, 7, 1, 3) and hand.bets == (25, 50, 0, 0)


def test_dead_button_when_the_big_blind_busts_r2() -> None:
    # Seat 5 will be the big blind and busts: next hand has no small blind (a lone big
    # blind), and the button moves on to seat 3 after that (dead small blind seat).
    table = table_of({1: 5000, 3: 5000, 5: 50, 7: 5000, 9: 5000}, button=1)
    hand = table.start_hand()
    assert (table._positions.small_blind, table._positions.big_blind) == (3, 5)  # type: ignore
    for seat in hand.seats:
        hand.deal_hole(seat, {3: "2c3d", 5: "7h2s", 7: "AhAd", 9: "KcKd", 1: "QcQd"}[seat])
    hand.call()  # seat 7
    hand.fold()  # 9
    hand.fold()  # 1
    hand.fold()  # 3
    hand.deal_board("AsKsTd4c9h")
    assert hand.is_over
    (out,) = table.finish_hand()
    assert (out.seat, out.place) == (5, 5)
    nxt = table.start_hand()
    pos = table._positions
    assert pos == Positions(button=3, small_blind_seat=5, big_blind=7, small_blind_posts=False)
    assert pos.small_blind is None
    assert nxt.seats == (7, 9, 1, 3) and nxt.bets == (50, 0, 0, 0)
    assert nxt.started is not None and nxt.started.button == 3
    # Nobody posts the small blind, yet the hand records the level's (exports, views: one
    # value, not a guess from the blinds posted).
    assert nxt.started.blinds == (50, 0, 0, 0) and nxt.started.small_blind == 25
    assert nxt.started.level_small_blind() == 25
    fold_around(nxt)
    table.finish_hand()
    after = play_out(table)
    # The button goes onto the empty seat 5 (dead button): every player posts each blind once.
    assert (after.button, after.small_blind, after.big_blind) == (5, 7, 9)


def test_player_due_for_big_blind_busts_obligation_passes_left_r2() -> None:
    table = table_of({1: 5000, 3: 5000, 5: 5000, 7: 5000}, button=1)
    play_out(table)  # button 1, SB 3, BB 5
    table._players[7].stack = 0  # seat 7 (next big blind) busted away from this table
    del table._players[7]
    pos = table.next_positions()
    assert (pos.button, pos.small_blind, pos.big_blind) == (3, 5, 1)


def test_heads_up_button_posts_small_blind_and_nobody_posts_bb_twice_r3() -> None:
    table = table_of({2: 5000, 4: 5000, 6: 100}, button=2)
    hand = table.start_hand()  # button 2, SB 4, BB 6
    for seat in hand.seats:
        hand.deal_hole(seat, {2: "QcQd", 4: "7c2s", 6: "JcTd"}[seat])
    hand.raise_to(200)  # seat 2
    hand.fold()  # seat 4
    hand.call()  # seat 6 all-in
    hand.deal_board("AsKs9d4c8h")
    ended = table.finish_hand()
    assert [e.seat for e in ended if isinstance(e, PlayerEliminated)] == [6]
    pos = play_out(table)
    # Seat 6 was the big blind; seat 2 is next for it, so seat 4 gets button + small blind.
    assert (pos.button, pos.small_blind, pos.big_blind) == (4, 4, 2)
    pos = play_out(table)
    assert (pos.button, pos.small_blind, pos.big_blind) == (2, 2, 4)
    hand = table.start_hand()
    assert hand.seats == (2, 4) and hand.bets == (50, 25)  # BB first in position order
    hand.deal_hole(2, None)
    hand.deal_hole(4, None)
    assert hand.actor_seat == 4  # the button acts first pre-flop (R3)


@pytest.mark.parametrize(("mode", "players", "payer"), [
    (AnteMode.PER_PLAYER, 4, None), (AnteMode.BIG_BLIND, 4, 5), (AnteMode.BUTTON, 7, 1),
    (AnteMode.BUTTON, 4, 3)])
def test_ante_modes_r4(mode: AnteMode, players: int, payer: int | None) -> None:
    structure = Structure((BlindLevel(1, 50, 100, 100),))
    table = Table(TableRules(ante_mode=mode), structure)
    for seat in (1, 3, 5, 7, 8, 9, 10)[:players]:
        table.seat_player(seat, f"P{seat}", 10_000)
    table.set_button(1)
    hand = table.start_hand()
    antes = dict(zip(hand.seats, hand.contributions, strict=True))
    blinds = dict(zip(hand.seats, hand.bets, strict=True))
    paid = {seat: antes[seat] - blinds[seat] for seat in hand.seats}
    if payer is None:
        assert set(paid.values()) == {100}
    else:  # with six or fewer players the button ante is paid by the small blind (004 §27)
        assert paid == {seat: (100 if seat == payer else 0) for seat in hand.seats}


def test_absent_player_posts_and_is_folded_r11() -> None:
    table = table_of({1: 5000, 3: 5000, 5: 5000}, button=1)
    table.set_absent(3)
    hand = table.start_hand()  # seat 3 is the small blind
    for seat in hand.seats:
        hand.deal_hole(seat, None)
    hand.call()  # seat 1
    assert hand.is_folded(3) and hand.stack(3) == 4975
    assert hand.actor_seat == 5


def test_clock_expires_as_check_or_fold_r12() -> None:
    table = table_of({1: 5000, 3: 5000, 5: 5000}, button=1)
    hand = table.start_hand()
    for seat in hand.seats:
        hand.deal_hole(seat, None)
    pending = table.pending_decision()
    assert pending is not None and pending.seat == 1
    assert table.expire_clock().action is ActionKind.FOLD
    hand.call()
    assert table.expire_clock().action is ActionKind.CHECK


def test_misdeal_keeps_stacks_button_and_blinds_r13() -> None:
    table = table_of({1: 5000, 3: 5000, 5: 5000}, button=1)
    hand = table.start_hand()
    for seat in hand.seats:
        hand.deal_hole(seat, None)
    hand.raise_to(300)
    hand.void("first hole card exposed by the dealer")
    assert table.finish_hand() == ()
    again = table.start_hand()
    assert again.seats == hand.seats == (3, 5, 1) and again.bets == (25, 50, 0)
    assert table.stacks == {1: 5000, 3: 5000, 5: 5000}


def test_eliminations_in_one_hand_ranked_by_starting_stack_r22() -> None:
    table = table_of({1: 300, 2: 200, 3: 10_000, 4: 5000}, button=4)
    hand = table.start_hand()  # SB 1, BB 2, seat 3 first
    for seat, cards in zip(hand.seats, ("JcQd", "7h2s", "AhAd", "KcKd"), strict=True):
        hand.deal_hole(seat, cards)
    hand.raise_to(1000)  # 3
    hand.fold()  # 4
    hand.call()  # 1 all-in
    hand.call()  # 2 all-in
    hand.deal_board("As9s8d4c5h")
    out = table.finish_hand()
    assert [(e.seat, e.place) for e in out] == [(1, 3), (2, 4)]  # 300 before 200
    assert table.stacks == {3: 10_500, 4: 5000}


def test_levels_change_only_between_hands_r21() -> None:
    table = table_of({1: 5000, 3: 5000}, button=1)
    hand = table.start_hand(elapsed_seconds=0)
    assert hand.big_blind == 50
    table.set_level(3)
    assert table.level.number == 1  # never mid-hand
    fold_around(hand)
    table.finish_hand()
    assert table.start_hand().big_blind == 200
    with pytest.raises(ConfigError):
        DEFAULT_STRUCTURE.level(19)


def test_level_from_the_clock_r21() -> None:
    table = table_of({1: 5000, 3: 5000}, button=1)
    hand = table.start_hand(elapsed_seconds=41 * 60)
    assert (hand.big_blind, hand.started.level if hand.started else 0) == (200, 3)


def test_rules_are_validated() -> None:
    with pytest.raises(ConfigError, match="short_call_rule"):
        TableRules(short_call_rule="cash")
    table = table_of({1: 5000, 3: 5000}, button=1)
    table.start_hand()
    with pytest.raises(IllegalActionError, match="during a hand"):
        table.seat_player(5, "Late", 5000)
    assert table.hand is not None and table.hand.street is Street.PREFLOP


def play_random(hand: Hand, rng: random.Random) -> None:
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    for seat in hand.seats:
        hand.deal_hole(seat, (deck.pop(), deck.pop()))
    while not hand.is_over:
        legal = hand.legal_actions()
        if legal is None:
            hand.deal_board([deck.pop() for _ in range(3 if not hand.board else 1)])
        elif legal.max_raise_to is not None and rng.random() < 0.3:
            hand.raise_to(legal.max_raise_to if rng.random() < 0.5 else legal.min_raise_to
                          or legal.max_raise_to)
        elif not legal.can_check and rng.random() < 0.3:
            hand.fold()
        else:
            hand.check_or_call()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(3, 10))
def test_big_blind_moves_one_player_each_hand_until_one_is_left_r2_r3(seed: int,
                                                                       count: int) -> None:
    rng = random.Random(seed)
    seats = sorted(rng.sample(range(1, 11), count))
    table = Table(TableRules(ante_mode=rng.choice(list(AnteMode))),
                  Structure.from_rows([(50, 100, 100), (100, 200, 200), (200, 400, 400)],
                                      minutes=1))
    for seat in seats:
        table.seat_player(seat, f"P{seat}", rng.randint(300, 3000))
    table.set_button(rng.choice(seats))
    total = sum(table.stacks.values())
    previous: Positions | None = None
    out: list[PlayerEliminated] = []
    for number in range(200):
        if len(table.stacks) < 2:
            break
        active = sorted(table.stacks)
        hand = table.start_hand(elapsed_seconds=number * 20)
        pos = table._positions
        assert pos is not None
        if previous is not None:
            # R2: the big blind goes to the next player still in, never to the same one.
            last_bb = previous.big_blind
            expected = min(active, key=lambda s: (s - last_bb - 1) % 10)
            assert pos.big_blind == expected != last_bb
            if len(active) > 2 and pos.small_blind is not None:
                assert pos.small_blind == previous.big_blind  # R2: the small blind follows
        if len(active) == 2:
            assert pos.small_blind == pos.button != pos.big_blind  # R3
        play_random(hand, rng)
        out += [e for e in table.finish_hand() if isinstance(e, PlayerEliminated)]
        previous = pos
        assert sum(table.stacks.values()) + 0 == total
    places = sorted(e.place for e in out)
    assert places == list(range(count - len(places) + 1, count + 1))
