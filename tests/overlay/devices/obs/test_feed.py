"""Automation moments derived from real engine hands (engine.hand.Hand), in JSON form."""

from __future__ import annotations

from typing import Any

from engine.hand import Hand
from overlay.devices.obs.feed import AutomationFeed


def all_in_hand(hand_number: int = 7) -> Hand:
    """Three players; the two short stacks get it in pre-flop, the big stack calls (R14:
    every hand is tabled face up and the board is run out)."""
    hand = Hand.start(seats=(1, 2, 3), stacks=(1000, 1000, 5000), blinds=(10, 20, 0),
                      big_blind=20, names=("Ann", "Bob", "Cy"), hand_number=hand_number)
    for seat, cards in ((1, "AhAs"), (2, "KdKc"), (3, "7c2d")):
        hand.deal_hole(seat, cards)
    while hand.actor_seat is not None:
        if hand.actor_seat == 3:
            hand.call()
        else:
            hand.all_in()
    for cards in ("Qs9s8c", "4h", "3c"):
        hand.deal_board(cards)
    assert hand.is_over
    return hand


def checked_down_hand() -> Hand:
    """Heads-up, checked down to a showdown on the river: no all-in."""
    hand = Hand.start(seats=(4, 5), stacks=(3000, 3000), blinds=(10, 20), big_blind=20,
                      button=5, names=("Dee", "Eve"), hand_number=8)
    hand.deal_hole(4, "AhKh")
    hand.deal_hole(5, "QdQc")
    hand.call()
    hand.check()
    for cards in ("2c7d9s", "Jh", "3s"):
        hand.deal_board(cards)
        while hand.actor_seat is not None:
            hand.check()
    while not hand.is_over:
        seat = next(s for s in (4, 5) if not hand.is_shown(s))
        hand.show_hand(seat)
    return hand


def moments(hand: Hand) -> list[tuple[str, dict[str, Any]]]:
    feed = AutomationFeed()
    return [moment for event in hand.events for moment in feed.moments(event.to_dict())]


def test_an_all_in_makes_one_all_in_showdown_before_the_board_is_run_out() -> None:
    found = moments(all_in_hand())
    kinds = [kind for kind, _ in found]
    assert kinds.count("all_in_showdown") == 1
    assert kinds.index("all_in_showdown") < kinds.index("board_dealt")
    payload = dict(found)["all_in_showdown"]
    assert payload == {"hand_number": 7, "street": "preflop"}
    # Every engine event is a moment too, in order, with its own data.
    assert [kind for kind in kinds if kind not in ("all_in_showdown", "player_eliminated")] == [
        event.kind for event in all_in_hand().events]


def test_busted_players_are_eliminated_best_finish_first() -> None:
    hand = all_in_hand()
    eliminated = [payload for kind, payload in moments(hand) if kind == "player_eliminated"]
    names = {1: "Ann", 2: "Bob", 3: "Cy"}
    assert eliminated == [{"hand_number": 7, "seat": seat, "name": names[seat], "order": i}
                          for i, seat in enumerate(hand.busted)]
    assert eliminated  # AhAs beats KdKc here: Bob is out


def test_a_checked_down_showdown_is_no_all_in() -> None:
    kinds = [kind for kind, _ in moments(checked_down_hand())]
    assert "hand_shown" in kinds
    assert "all_in_showdown" not in kinds and "player_eliminated" not in kinds


def test_the_feed_starts_afresh_with_every_hand() -> None:
    feed = AutomationFeed()
    kinds = [kind for hand in (all_in_hand(1), all_in_hand(2)) for event in hand.events
             for kind, _ in feed.moments(event.to_dict())]
    assert kinds.count("all_in_showdown") == 2
    assert feed.moments({}) == ()
    assert [k for k, _ in feed.moments({"kind": "level_started", "level": 9})] == [
        "level_started"]
