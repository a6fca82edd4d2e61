"""The hand state machine, rule by rule (R3-R17, R22), with floor-manager error messages."""

from __future__ import annotations

import pytest

from engine.cards import parse_cards
from engine.errors import IllegalActionError, Ruling
from engine.events import (
    ActionKind,
    ActionTaken,
    Event,
    HandMucked,
    HandShown,
    HoleCardsDealt,
    Secrecy,
    Street,
)
from engine.hand import Hand


def deal(hand: Hand, *holes: str | None) -> None:
    for seat, cards in zip(hand.seats, holes, strict=True):
        hand.deal_hole(seat, cards)


def three_handed(stacks: tuple[int, int, int] = (1000, 1000, 1000), **options: object) -> Hand:
    hand = Hand.start(seats=(1, 2, 3), names=("Ann", "Bo", "Cy"), stacks=stacks,
                      blinds=(50, 100, 0), big_blind=100, button=3, **options)  # type: ignore
    deal(hand, "AhAd", "KhKd", "2c7d")
    return hand


def test_blinds_and_first_to_act_r4() -> None:
    hand = three_handed()
    assert hand.bets == (50, 100, 0)
    assert hand.actor_seat == 3  # left of the big blind pre-flop
    hand.call()
    hand.call()
    hand.check()
    hand.deal_board("Qs9s3c")
    assert hand.actor_seat == 1  # first active left of the button on later streets


def test_heads_up_button_posts_small_blind_and_acts_first_preflop_only_r3() -> None:
    hand = Hand.start(seats=(4, 8), stacks=(1000, 1000), blinds=(100, 50), big_blind=100,
                      button=8)
    deal(hand, None, None)
    assert hand.bets == (100, 50) and hand.actor_seat == 8
    hand.call()
    hand.check()
    hand.deal_board("Qs9s3c")
    assert hand.actor_seat == 4


def test_out_of_turn_is_rejected_and_state_unchanged_r9() -> None:
    hand = three_handed()
    before = (hand.stacks, hand.bets, len(hand.events))
    with pytest.raises(IllegalActionError) as caught:
        hand.fold(1)
    assert caught.value.rule == "R9"
    assert "Seat 1 (Ann) cannot fold: it is Cy's turn (seat 3) (R9)" in str(caught.value)
    assert (hand.stacks, hand.bets, len(hand.events)) == before


def test_check_facing_a_bet_names_the_call() -> None:
    hand = three_handed()
    with pytest.raises(IllegalActionError, match=r"Seat 3 \(Cy\) cannot check: there is 100 "
                                                 r"to call \(R6\)\. Legal: call 100, raise to "
                                                 r"200-1,000 or fold\."):
        hand.check()


def test_incomplete_all_in_does_not_reopen_for_players_who_acted_r7() -> None:
    hand = Hand.start(seats=(2, 4, 6), names=("Tong", "Rast", "Obst"),
                      stacks=(60_000, 310_000, 400_000), blinds=(0, 0, 0), big_blind=8_000,
                      button=6)
    deal(hand, None, None, None)
    hand.check()
    hand.check()
    hand.check()
    hand.deal_board("Qs9s3c")
    hand.check()  # Tong
    hand.bet(36_000)  # Rast
    hand.call()  # Obst
    hand.all_in()  # Tong all-in for 60,000: +24,000, not a full raise of 36,000
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 4
    assert legal.max_raise_to is None and legal.call_amount == 24_000
    assert [r.rule for r in legal.restrictions] == ["R7"]
    with pytest.raises(IllegalActionError) as caught:
        hand.raise_to(120_000)
    assert str(caught.value) == (
        "Seat 4 (Rast) cannot raise: the all-in by seat 2 was not a full raise and seat 4 has "
        "already acted (R7). Legal: call 24,000 or fold.")
    assert caught.value.rule == "R7" and caught.value.legal == (
        {"type": "call", "amount": 24_000, "to": 60_000}, {"type": "fold"})


def test_short_all_ins_add_up_to_a_full_raise_and_reopen_r7() -> None:
    hand = Hand.start(seats=(1, 2, 3, 4), stacks=(10_000, 160, 260, 10_000),
                      blinds=(0, 0, 0, 0), big_blind=100, button=4)
    deal(hand, None, None, None, None)
    for _ in range(4):
        hand.check()
    hand.deal_board("Qs9s3c")
    hand.bet(100)  # seat 1
    hand.all_in()  # seat 2 to 160 (+60, short)
    hand.all_in()  # seat 3 to 260 (+100 more; 160 since seat 1 acted: a full raise)
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 4 and legal.min_raise_to == 360
    hand.call()
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 1 and legal.min_raise_to == 360


def test_below_minimum_raise_gets_the_50_percent_ruling_r8() -> None:
    hand = three_handed()
    hand.raise_to(300)  # Cy: raise of 200
    with pytest.raises(IllegalActionError) as caught:
        hand.raise_to(420)  # adds 120 of 200: at least half, completed to 500
    assert caught.value.rule == "R8" and caught.value.ruling == Ruling("raise to 500",
                                                                        "raise_to", 1, 500)
    assert caught.value.ruling.command() == {"type": "raise_to", "seat": 1, "amount": 500}
    assert "the minimum is 500; under the 50 % rule this is ruled completed to 500" in str(
        caught.value)
    with pytest.raises(IllegalActionError) as caught:
        hand.raise_to(380)  # adds 80 of 200: less than half, a call
    assert caught.value.ruling == Ruling("call 250", "call", 1)
    assert caught.value.ruling.command() == {"type": "call", "seat": 1}
    assert hand.actor_seat == 1 and hand.bets == (50, 100, 300)


def test_short_big_blind_live_rule_and_phh_rule_r5() -> None:
    def start(rule: str) -> Hand:
        hand = Hand.start(seats=(1, 2, 3), stacks=(1000, 60, 1000), blinds=(50, 100, 0),
                          big_blind=100, button=3, short_call_rule=rule)
        deal(hand, None, None, None)
        return hand

    live = start("live")
    legal = live.legal_actions()
    assert legal is not None and (legal.call_amount, legal.min_raise_to) == (100, 200)
    phh = start("phh")
    legal = phh.legal_actions()
    assert legal is not None and (legal.call_amount, legal.min_raise_to) == (60, 160)
    live.call()
    live.call()  # the small blind completes to the full 100
    assert live.pots()[0].amount == 180 and live.pots()[1].amount == 80


def test_restricted_player_may_only_call_or_fold_r10() -> None:
    hand = three_handed()
    hand.restrict(3)
    legal = hand.legal_actions()
    assert legal is not None and legal.max_raise_to is None
    with pytest.raises(IllegalActionError, match="R10"):
        hand.raise_to(300)
    hand.call()


def test_absent_player_is_folded_when_the_action_reaches_him_r11() -> None:
    hand = Hand.start(seats=(1, 2, 3), stacks=(1000, 1000, 1000), blinds=(50, 100, 0),
                      big_blind=100, button=3, absent=(3,))
    deal(hand, None, None, None)
    folded = [e for e in hand.events if isinstance(e, ActionTaken)]
    assert folded == [ActionTaken(3, ActionKind.FOLD, 0, 0, False, "R11")]
    assert hand.actor_seat == 1


def test_absent_player_all_in_by_the_blind_keeps_his_hand_r11() -> None:
    hand = Hand.start(seats=(1, 2, 3), stacks=(1000, 80, 1000), blinds=(50, 100, 0),
                      big_blind=100, button=3, absent=(2,))
    deal(hand, "AhAd", "KhKd", "2c7d")
    hand.fold()
    hand.call()
    assert not hand.is_folded(2) and hand.street is Street.PREFLOP
    hand.deal_board("Ks9s3c4d5h")
    assert hand.is_over and hand.stack(2) == 160  # trips win the main pot
    assert hand.stack(1) == 1000 - 80


def test_clock_expiry_checks_or_folds_r12() -> None:
    hand = three_handed()
    pending = hand.pending_decision()
    assert pending is not None and pending.seat == 3
    assert hand.expire_clock() == ActionTaken(3, ActionKind.FOLD, 0, 0, False, "R12")
    hand.call()
    assert hand.expire_clock().action is ActionKind.CHECK


def test_void_restores_stacks_r13() -> None:
    hand = three_handed()
    assert hand.misdeal_window
    hand.raise_to(300)
    assert hand.misdeal_window  # one player has acted
    hand.fold()
    assert not hand.misdeal_window  # two have: a misdeal no longer voids the deal
    hand.undo()
    hand.void("second card exposed by the dealer")
    assert hand.is_over and hand.street is Street.VOID
    assert hand.stacks == (1000, 1000, 1000)
    assert Hand.replay(hand.events).stacks == (1000, 1000, 1000)


def test_identical_cards_are_refused_r13() -> None:
    hand = Hand.start(seats=(1, 2), stacks=(100, 100), blinds=(2, 1), big_blind=2, button=2)
    hand.deal_hole(1, "AhKd")
    with pytest.raises(IllegalActionError, match=r"card Ah appears twice.*R13"):
        hand.deal_hole(2, "AhQs")


def test_all_in_hands_are_turned_face_up_r14() -> None:
    hand = three_handed(stacks=(1000, 400, 1000))
    hand.fold()
    hand.raise_to(1000)
    hand.call()
    shown = [e for e in hand.events if isinstance(e, HandShown)]
    assert [(e.seat, e.auto) for e in shown] == [(1, True), (2, True)]
    assert hand.street is Street.PREFLOP and hand.legal_actions() is None


def test_showdown_order_and_muck_r15_r20() -> None:
    hand = three_handed()
    hand.call()
    hand.call()
    hand.check()
    for board in ("Qs9s3c", "4d"):
        hand.deal_board(board)
        for _ in range(3):
            hand.check()
    hand.deal_board("8h")
    hand.check()  # Ann
    hand.bet(200)  # Bo bets last on the final round: he shows first
    hand.call()
    hand.call()
    decided = [e for e in hand.events if isinstance(e, HandShown | HandMucked)]
    # Then clockwise; a hand that cannot win anything is mucked (and stays secret, R20).
    assert [(type(e).__name__, e.seat) for e in decided] == [
        ("HandShown", 2), ("HandMucked", 3), ("HandShown", 1)]
    mucked = decided[1]
    assert mucked.secrecy is Secrecy.SECRET
    assert mucked.public_view() == HandMucked(3, (None, None), True)
    assert hand.stacks == (1000 - 300 + 900, 700, 700)


def test_showdown_without_a_bet_starts_left_of_the_button_r15() -> None:
    hand = three_handed()
    hand.call()
    hand.call()
    hand.check()
    for board in ("Qs9s3c", "4d", "8h"):
        hand.deal_board(board)
        for _ in range(3):
            hand.check()
    decided = [e for e in hand.events if isinstance(e, HandShown | HandMucked)]
    assert [(type(e).__name__, e.seat) for e in decided] == [
        ("HandShown", 1), ("HandMucked", 2), ("HandMucked", 3)]


def test_side_pots_r16_and_elimination_order_r22() -> None:
    hand = Hand.start(seats=(1, 2, 3, 4), stacks=(300, 500, 1000, 1000), blinds=(0, 0, 0, 0),
                      big_blind=100, button=4)
    deal(hand, "2c2d", "3c3d", "AhAs", "KhKs")
    hand.all_in()  # 300
    hand.all_in()  # 500
    hand.raise_to(1000)
    hand.call()
    assert [(p.amount, p.seats) for p in hand.pots()] == [
        (1200, (1, 2, 3, 4)), (600, (2, 3, 4)), (1000, (3, 4))]
    hand.deal_board("7c8d9hJsQs")
    assert hand.stacks == (0, 0, 2800, 0)
    assert hand.busted == (4, 2, 1)  # bigger start stack finishes higher


def test_odd_chip_first_clockwise_from_button_or_next_big_blind_r17() -> None:
    def split(rule: str) -> tuple[int, ...]:
        hand = Hand.start(seats=(1, 2, 3, 4), stacks=(1000,) * 4, blinds=(1, 2, 0, 0),
                          antes=(1, 0, 0, 0), big_blind=2, button=4, odd_chip_rule=rule)
        deal(hand, "AhKd", "2c7d", "AsKc", "3c8d")
        hand.raise_to(10)  # seat 3
        hand.fold()  # seat 4
        hand.call()  # seat 1
        hand.fold()  # seat 2 (big blind)
        for board in ("QhJd3s", "4c", "9h"):
            hand.deal_board(board)
            hand.check()
            hand.check()
        assert [a.amount for a in hand.awards] == [23]  # 1 + 10 + 10 + 2: odd
        return hand.stacks

    # Default: the first winner clockwise from the button (seat 1) gets the odd chip.
    assert split("button") == (1001, 998, 1001, 1000)
    # House rule: the winner next due to post the big blind (seat 3) gets it.
    assert split("big_blind") == (1000, 998, 1002, 1000)


def test_undo_is_an_event_and_replay_gives_the_undone_state() -> None:
    hand = three_handed()
    hand.raise_to(300)
    hand.call()
    hand.fold()  # Bo folds: the round ends, bets are collected
    before_fold = Hand.replay(hand.events[:-3])
    undone = hand.undo()
    assert undone.description == "seat 2 fold" and undone.count == 2  # + bets collected
    assert hand.actor_seat == 2 and hand.bets == (300, 100, 300)
    hand.undo()
    hand.undo()
    assert hand.bets == (50, 100, 0) and hand.actor_seat == 3
    replayed = Hand.replay(hand.events)
    assert (replayed.stacks, replayed.bets, replayed.actor_seat) == (
        hand.stacks, hand.bets, hand.actor_seat)
    assert before_fold.actor_seat == 1
    with pytest.raises(IllegalActionError, match="nothing to undo"):
        for _ in range(10):
            hand.undo()


def test_unknown_hole_cards_need_the_cards_at_showdown() -> None:
    hand = Hand.start(seats=(1, 2), stacks=(100, 100), blinds=(2, 1), big_blind=2, button=2)
    hand.deal_hole(1, "AhKd")
    hand.deal_hole(2, None)
    hand.call()
    hand.check()
    hand.deal_board("2c3c4c")
    hand.check()
    hand.check()
    hand.deal_board("9d")
    hand.check()
    hand.check()
    hand.deal_board("Js")
    hand.check()
    hand.check()
    assert hand.street is Street.SHOWDOWN and not hand.is_over
    hand.deal_hole(2, "5c6c")  # read late: the straight flush
    assert hand.is_over and hand.stacks == (98, 102)


def test_public_views_replay_to_the_same_public_state() -> None:
    hand = three_handed()
    hand.raise_to(300)
    hand.call()
    hand.fold()
    hand.deal_board("Qs9s3c")
    hand.burn_card("5h")
    public: list[Event] = []
    for event in hand.events:
        if event.secrecy is Secrecy.NEVER:
            continue
        view = event.public_view()
        assert view is not None and view.secrecy is Secrecy.PUBLIC
        public.append(view)
    assert all(not isinstance(e, HoleCardsDealt) or e.cards == (None, None) for e in public)
    mirror = Hand.replay(public)
    assert (mirror.stacks, mirror.board, mirror.actor_seat, mirror.pots()) == (
        hand.stacks, hand.board, hand.actor_seat, hand.pots())
    assert mirror.hole_cards(1) == (None, None)


def test_board_needs_a_closed_round_and_the_right_count() -> None:
    hand = three_handed()
    with pytest.raises(IllegalActionError, match=r"betting round is not over.*seat 3"):
        hand.deal_board("Qs9s3c")
    hand.call()
    hand.call()
    hand.check()
    with pytest.raises(IllegalActionError, match="the flop needs 3"):
        hand.deal_board(parse_cards("Qs9s"))


def test_operator_posts_antes_then_blinds_r4_r5() -> None:
    hand = Hand.start(seats=(1, 2, 3), stacks=(1000, 70, 1000), blinds=(50, 100, 0),
                      antes=(0, 20, 0), big_blind=100, button=3, post_forced_bets=False)
    deal(hand, None, None, None)
    with pytest.raises(IllegalActionError, match="post the antes and blinds first"):
        hand.fold()
    with pytest.raises(IllegalActionError, match="post the antes before the blinds"):
        hand.post_blind(1)
    with pytest.raises(IllegalActionError, match=r"Seat 2 posts 20, not 10"):
        hand.post_ante(2, 10)
    hand.post_ante(2)
    hand.post_blind(1, 50)
    with pytest.raises(IllegalActionError, match=r"posts 50 \(all-in, R5\), not 100"):
        hand.post_blind(2, 100)
    posted = hand.post_blind(2)
    assert posted.all_in and posted.amount == 50 and posted.is_command
    assert hand.actor_seat == 3 and hand.bets == (50, 50, 0)
    hand.undo()  # the last blind again: betting closes until it is posted
    assert hand.actor_seat is None and hand.bets == (50, 0, 0)
    assert not hand.can_fold()
    hand.post_blind(2)
    replayed = Hand.replay(hand.events)
    assert (replayed.actor_seat, replayed.bets) == (3, (50, 50, 0))


def test_big_blind_shorter_than_small_blind_still_opens_left_of_it_r4_r5() -> None:
    hand = Hand.start(seats=(1, 2, 3, 4), stacks=(1000, 30, 1000, 1000), blinds=(50, 100, 0, 0),
                      big_blind=100, button=4)
    deal(hand, None, None, None, None)
    assert hand.bets == (50, 30, 0, 0)
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 3  # left of the big blind, not of the SB
    assert (legal.call_amount, legal.min_raise_to) == (100, 200)  # R5 live default
    hand.fold()
    hand.fold()
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 1 and legal.call_amount == 50
    hand.fold()  # the small blind's 50 beat the all-in 30: 20 goes back to him
    assert hand.is_over and hand.stacks == (970, 60, 1000, 1000)


def test_a_tabled_hand_cannot_be_mucked_r15() -> None:
    hand = Hand.start(seats=(1, 2), stacks=(100, 100), blinds=(1, 2), big_blind=2, button=2,
                      auto_showdown=False)
    hand.deal_hole(1, "AhKd")
    hand.deal_hole(2, "QsQc")
    hand.call()
    hand.check()
    for board in ("2c7d9h", "Js", "3d"):
        hand.deal_board(board)
        hand.check()
        hand.check()
    assert hand.street is Street.SHOWDOWN
    hand.show_hand(2)
    with pytest.raises(IllegalActionError, match=r"tabled.*R15"):
        hand.muck_hand(2)
    assert hand.is_shown(2)
