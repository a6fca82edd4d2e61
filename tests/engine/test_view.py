"""The page view model (engine/view.py, docs/view-model.md) on hands played through the real
engine (engine.table.Table), released by real channels (engine.channels.ChannelView).

Expected values come from the engine itself (its pots, legal actions, awards, evaluator and
equity), never from numbers typed into the test, except where the rules fix them (positions,
chip arithmetic of a scripted hand, the wording of the view model).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from engine import phh
from engine.equity import equity
from engine.errors import InvalidInputError
from engine.evaluator import evaluate
from engine.events import ActionUndone, BetsCollected, HandShown, PotAwarded, Secrecy
from engine.hand import Hand
from engine.log import TableEvent
from engine.view import TableViewReducer, reducer_for, with_devices
from overlay import phh_files
from tests.engine.viewkit import (
    DELAYED,
    OPERATOR,
    REVEAL,
    SECURE,
    SPECS,
    T0,
    VENUE,
    fold,
    last_view,
    log_of,
    released,
    seat_of,
    shape_errors,
    table_of,
)

PHH_DIR = Path(__file__).resolve().parents[3] / "shared" / "data" / "phh" / "wsop-2023-43-day5"
PLAYERS = ((1, "Ashton", 734_000), (4, "Rast", 500_000), (7, "Cy", 300_000))


def flop_hand() -> Hand:
    """Level 12 (4,000/8,000), button seat 7: Cy raises, Ashton calls, Rast folds, a flop
    and a bet by Ashton; Cy is to act."""
    table = table_of(PLAYERS, button=7, level=12)
    hand = table.start_hand()
    hand.deal_hole(1, "AhKd")
    hand.deal_hole(4, "QsQc")
    hand.deal_hole(7, "7s4s")
    hand.raise_to(17_000)
    hand.call()
    hand.fold()
    hand.deal_board("Qh9s8c")
    hand.bet(24_000)
    return hand


def without_time(view: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(view)
    out["channel"]["as_of"] = None
    return out


# --- shape -----------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", [*SPECS, OPERATOR], ids=lambda s: s.name)
def test_an_empty_log_gives_every_field_with_nothing_known(spec: Any) -> None:
    operator = spec is OPERATOR
    reducer = TableViewReducer(spec, table_name="Final Table", seats=9, operator=operator)
    view = reducer.snapshot(reducer.initial())
    assert shape_errors(view, operator=operator) == []
    assert view["channel"] == {"name": spec.name, "delay": spec.delay, "as_of": None,
                               "live": spec.delay == 0}
    table = view["table"]
    assert (table["name"], table["hand_number"], table["street"]) == ("Final Table", None, None)
    assert (table["board"], table["pots"], table["actions"]) == ([], [], [])
    assert (table["to_call"], table["min_raise_to"]) == (0, None)
    assert [s["seat"] for s in view["seats"]] == list(range(1, 10))
    assert all(s["name"] is None and s["cards"] == [] for s in view["seats"])


@pytest.mark.parametrize("spec", [*SPECS, OPERATOR], ids=lambda s: s.name)
def test_every_view_of_a_hand_has_every_documented_field(spec: Any) -> None:
    entries = log_of(flop_hand().events)
    _, _, views = fold(spec, entries, operator=spec is OPERATOR)
    assert views
    for view in views:
        assert shape_errors(view, operator=spec is OPERATOR) == []


# --- one hand, step by step --------------------------------------------------------------------


def test_positions_amounts_and_actions_come_from_the_engine() -> None:
    hand = flop_hand()
    view = last_view(VENUE, log_of(hand.events))
    table = view["table"]
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 7
    assert (table["to_call"], table["min_raise_to"]) == (legal.call_amount, legal.min_raise_to)
    assert (table["hand_number"], table["street"], table["board"]) == (1, "flop",
                                                                       ["Qh", "9s", "8c"])
    assert table["level"] == {"number": 12, "small_blind": 4000, "big_blind": 8000, "ante": 0,
                              "ante_mode": "none", "ends_at": None}
    # R4: small blind left of the button, big blind left of the small blind.
    positions = {s["seat"]: s["position"] for s in view["seats"] if s["position"]}
    assert positions == {7: "BTN", 1: "SB", 4: "BB"}
    # Pots hold the chips in the middle; this street's bets are in seats[].bet (R16).
    in_middle = sum(p.amount for p in hand.pots()) - sum(hand.bets)
    assert [p["amount"] for p in table["pots"]] == [in_middle]
    assert table["pots"][0]["eligible"] == [1, 7] and table["pots"][0]["label"] == "Main pot"
    assert [a["text"] for a in table["actions"]] == [
        "Cy raises to 17,000", "Ashton calls 13,000", "Rast folds", "Ashton bets 24,000"]
    assert [a["street"] for a in table["actions"]] == ["preflop"] * 3 + ["flop"]
    assert table["actions"][0] | {"text": ""} == {"seat": 7, "name": "Cy", "street": "preflop",
                                                 "verb": "raise", "amount": 17_000, "text": ""}
    ashton, rast, cy = seat_of(view, 1), seat_of(view, 4), seat_of(view, 7)
    assert (ashton["stack"], ashton["bet"]) == (hand.stack(1), 24_000)
    assert ashton["stack_bb"] == round(hand.stack(1) / 8000, 1) == 86.6
    assert ashton["last_action"] == "Bet 24,000"
    assert cy["last_action"] is None  # nothing yet on this street
    assert (cy["to_act"], ashton["to_act"]) == (True, False)
    assert rast["folded"] and not cy["folded"]
    assert seat_of(view, 2)["name"] is None and seat_of(view, 2)["stack"] is None


def test_heads_up_the_button_is_the_small_blind() -> None:
    table = table_of(((3, "Ann", 5000), (8, "Bo", 5000)), button=3)
    hand = table.start_hand()
    view = last_view(VENUE, log_of(hand.events))
    positions = {s["seat"]: s["position"] for s in view["seats"] if s["position"]}
    assert positions == {3: "BTN/SB", 8: "BB"}  # R3


def test_the_dead_button_sits_on_the_empty_seat_of_a_busted_small_blind() -> None:
    table = table_of(((2, "Ann", 5000), (5, "Bo", 60), (8, "Cy", 5000), (10, "Dee", 5000)),
                     button=2)
    hand = table.start_hand()  # button Ann, SB Bo, BB Cy
    for seat, cards in ((5, "7c2d"), (8, "KhKd"), (2, "QcQs"), (10, "JhJd")):
        hand.deal_hole(seat, cards)
    hand.call()  # Dee
    hand.call()  # Ann
    hand.all_in()  # Bo, a short all-in raise (R7)
    while hand.legal_actions() is not None:
        hand.call()
    for board in ("As9c4h", "3h", "Th"):
        hand.deal_board(board)
        while hand.legal_actions() is not None:
            hand.check()
    busted = table.finish_hand()
    assert [e.seat for e in busted] == [5]
    nxt = table.start_hand()
    view = last_view(VENUE, log_of([*hand.events, *busted, *nxt.events]))
    positions = {s["seat"]: s["position"] for s in view["seats"] if s["position"]}
    # R2: the big blind moves on one player; small blind and button follow, the button
    # onto Bo's now empty seat.
    assert positions == {5: "BTN", 8: "SB", 10: "BB"}
    assert seat_of(view, 5)["name"] is None


def test_side_pots_winners_and_won_match_the_engine() -> None:
    table = table_of(((2, "Ann", 1000), (5, "Bo", 3000), (8, "Cy", 6000)), button=8)
    hand = table.start_hand()
    hand.deal_hole(2, "AhAd")
    hand.deal_hole(5, "KhKd")
    hand.deal_hole(8, "QcQs")
    hand.all_in()
    hand.all_in()
    hand.all_in()
    collected = [e for e in hand.events if isinstance(e, BetsCollected)]
    hand.deal_board("2c7d9h")
    entries_mid = log_of(hand.events)
    mid = last_view(SECURE, entries_mid)
    assert [(p["amount"], p["eligible"]) for p in mid["table"]["pots"]] == [
        (pot.amount, list(pot.seats)) for pot in collected[-1].pots]
    assert [p["label"] for p in mid["table"]["pots"]] == ["Main pot", "Side pot 1"]
    assert all(s["all_in"] for s in mid["seats"] if s["name"] in ("Ann", "Bo"))
    hand.deal_board("3s")
    hand.deal_board("4c")
    assert hand.is_over
    view = last_view(VENUE, log_of(hand.events))
    awards = [e for e in hand.events if isinstance(e, PotAwarded)]
    assert [(p["amount"], p["winners"]) for p in view["table"]["pots"]] == [
        (a.amount, list(a.seats)) for a in awards]
    assert [p["eligible"] for p in view["table"]["pots"]] == [list(p.seats)
                                                              for p in collected[-1].pots]
    won: dict[int, int] = {}
    for award in awards:
        for seat, share in zip(award.seats, award.shares, strict=True):
            won[seat] = won.get(seat, 0) + share
    for seat in (2, 5, 8):
        entry = seat_of(view, seat)
        assert entry["won"] == won.get(seat, 0)
        assert entry["winner"] is (seat in won)
        assert entry["stack"] == hand.stack(seat)
    assert view["table"]["street"] == "over"
    # R14: the hands were tabled, so even the venue knows them and their names.
    for seat in (2, 5, 8):
        shown = hand.hole_cards(seat)
        assert shown is not None
        assert seat_of(view, seat)["cards"] == [c.code for c in shown if c is not None]
    winner = seat_of(view, awards[0].seats[0])
    assert winner["hand"] == awards[0].hand


def showdown_with_a_muck() -> Hand:
    """Ashton (seat 1) shows first at the showdown (R15) and wins; Rast's losing hand is
    mucked unseen (R20); Cy folded pre-flop."""
    table = table_of(PLAYERS, button=7, level=12)
    hand = table.start_hand()
    hand.deal_hole(1, "AhAd")
    hand.deal_hole(4, "KsKc")
    hand.deal_hole(7, "7s2d")
    hand.fold()
    hand.call()
    hand.check()
    for board in ("Qh9s8c", "3d", "2c"):
        hand.deal_board(board)
        hand.check()
        hand.check()
    assert hand.is_over
    return hand


def test_a_mucked_hand_stays_hidden_on_venue_and_is_shown_on_delayed() -> None:
    hand = showdown_with_a_muck()
    assert hand.is_mucked(4) and hand.is_shown(1)
    entries = log_of(hand.events)
    venue, delayed = last_view(VENUE, entries), last_view(DELAYED, entries)
    assert seat_of(venue, 4)["cards"] == [None, None]  # R20
    assert seat_of(delayed, 4)["cards"] == ["Ks", "Kc"]
    assert seat_of(venue, 1)["cards"] == ["Ah", "Ad"]  # tabled: public
    assert seat_of(venue, 7)["cards"] == [None, None]
    award = next(e for e in hand.events if isinstance(e, PotAwarded))
    for view in (venue, delayed):
        ashton = seat_of(view, 1)
        value = evaluate("AhAd" + "Qh9s8c3d2c")
        assert ashton["hand"] == award.hand == value.describe()
        assert ashton["best_five"] == [c.code for c in value.best_five]
        assert ashton["winner"] and ashton["won"] == award.amount
        assert seat_of(view, 4)["folded"]  # a mucked hand is out of the hand
        assert seat_of(view, 4)["hand"] is None
        assert ashton["equity"] is None  # one live hand: nothing to compare


# --- equity ----------------------------------------------------------------------------------


def test_equity_outs_and_hand_use_the_known_cards_and_folded_cards_as_dead() -> None:
    hand = flop_hand()
    view = last_view(DELAYED, log_of(hand.events))
    # R20: Rast's folded queens are dead cards.
    result = equity(["AhKd", "7s4s"], "Qh9s8c", dead="QsQc")
    for seat, player in ((1, result.players[0]), (7, result.players[1])):
        entry = seat_of(view, seat)
        assert entry["equity"] == {"win": round(float(player.win), 4),
                                   "tie": round(float(player.tie), 4),
                                   "equity": round(float(player.equity), 4)}
        assert player.outs is not None
        if player.outs.leading:
            assert entry["outs"] is None
        else:
            codes = [c.code for c in player.outs.outs]
            # 43 unseen cards: 52, less the flop, the two live hands and the dead queens.
            assert entry["outs"] == {"cards": codes, "count": len(codes),
                                     "next_card": round(len(codes) / 43, 4),
                                     "by_river": round(1 - (43 - len(codes))
                                                       * (42 - len(codes)) / (43 * 42), 4)}
            assert "Qs" not in codes and "Qc" not in codes
        hole = hand.hole_cards(seat)
        assert hole is not None
        value = evaluate([c for c in hole if c is not None] + hand.board)
        assert entry["hand"] == value.describe() == player.hand_now
        assert entry["best_five"] == [c.code for c in value.best_five]
    assert seat_of(view, 4)["equity"] is None and seat_of(view, 4)["hand"] is None
    assert sum(seat_of(view, s)["equity"]["equity"] for s in (1, 7)) == pytest.approx(1, 1e-3)


def test_no_equity_while_a_live_hand_is_unknown_even_on_a_full_channel() -> None:
    table = table_of(PLAYERS, button=7, level=12)
    hand = table.start_hand()
    hand.deal_hole(1, "AhKd")
    hand.deal_hole(4, None)  # not read
    hand.deal_hole(7, "7s4s")
    view = last_view(SECURE, log_of(hand.events))
    assert all(s["equity"] is None for s in view["seats"])
    assert seat_of(view, 4)["cards"] == [None, None]
    assert seat_of(view, 1)["cards"] == ["Ah", "Kd"]


def test_an_action_that_changes_no_card_does_not_recompute_equity() -> None:
    hand = flop_hand()
    entries = log_of(hand.events)
    reducer = TableViewReducer(SECURE)
    state = reducer.initial()
    items = released(SECURE, entries)
    for item in items[:-1]:
        state = reducer.apply(state, item)
        reducer.snapshot(state)
    before = reducer.equity_computations
    assert before >= 2  # pre-flop and flop
    state = reducer.apply(state, items[-1])  # Ashton's bet: no card changes
    first = reducer.snapshot(state)
    assert reducer.snapshot(state) == first
    assert reducer.equity_computations == before


# --- undo, void, eliminations ---------------------------------------------------------------


def test_an_undo_gives_back_the_view_before_the_undone_action() -> None:
    hand = flop_hand()
    before = last_view(SECURE, log_of(hand.events))
    hand.raise_to(60_000)
    hand.fold()  # Ashton folds: Cy wins the pot, the hand is over
    assert hand.is_over
    over = last_view(SECURE, log_of(hand.events))
    assert over["table"]["street"] == "over" and seat_of(over, 7)["winner"]
    hand.undo()  # the fold and the award
    hand.undo()  # the raise
    assert sum(isinstance(e, ActionUndone) for e in hand.events) == 2
    after = last_view(SECURE, log_of(hand.events))
    assert without_time(after) == without_time(before)
    operator = last_view(OPERATOR, log_of(hand.events), operator=True)
    assert operator["operator"]["undo"] == {"available": True, "label": "Ashton bets 24,000"}


def test_a_void_hand_restores_every_stack_and_shows_no_pot() -> None:
    hand = flop_hand()
    hand.void()
    view = last_view(SECURE, log_of(hand.events))
    assert view["table"]["street"] == "over" and view["table"]["pots"] == []
    for seat, _, stack in PLAYERS:
        entry = seat_of(view, seat)
        assert entry["stack"] == stack  # R13
        assert entry["equity"] is None and entry["hand"] is None and entry["bet"] == 0


def test_a_busted_player_stays_until_the_next_hand_then_his_seat_is_empty() -> None:
    table = table_of(((2, "Ann", 300), (5, "Bo", 5000), (8, "Cy", 5000)), button=8)
    hand = table.start_hand()  # SB Ann, BB Bo
    for seat, cards in ((2, "7c2d"), (5, "AhAd"), (8, "KhKd")):
        hand.deal_hole(seat, cards)
    hand.fold()  # Cy
    hand.all_in()  # Ann
    hand.call()  # Bo
    hand.deal_board("QsJs9c")
    hand.deal_board("4h")
    hand.deal_board("3h")
    assert hand.is_over and hand.stack(2) == 0
    eliminated = table.finish_hand()
    assert [e.seat for e in eliminated] == [2]
    first = log_of([*hand.events, *eliminated])
    view = last_view(VENUE, first)
    assert (seat_of(view, 2)["name"], seat_of(view, 2)["stack"]) == ("Ann", 0)
    nxt = table.start_hand()
    view = last_view(VENUE, log_of([*hand.events, *eliminated, *nxt.events]))
    assert seat_of(view, 2)["name"] is None and seat_of(view, 2)["cards"] == []
    assert view["table"]["hand_number"] == 2
    assert {s["seat"] for s in view["seats"] if s["name"]} == {5, 8}
    assert (seat_of(view, 5)["position"], seat_of(view, 8)["position"]) in (
        ("BTN/SB", "BB"), ("BB", "BTN/SB"))


def test_absent_players_are_sitting_out_and_folded_for_r11() -> None:
    table = table_of(PLAYERS, button=7, level=12)
    table.set_absent(1)
    hand = table.start_hand()
    for seat, cards in ((1, "AhKd"), (4, "QsQc"), (7, "7s4s")):
        hand.deal_hole(seat, cards)
    hand.call()  # Cy; the action reaches Ashton, absent: folded (R11)
    view = last_view(VENUE, log_of(hand.events))
    ashton = seat_of(view, 1)
    assert ashton["sitting_out"] and ashton["folded"]
    assert view["table"]["actions"][-1]["text"] == "Ashton folds (absent, R11)"


# --- operator --------------------------------------------------------------------------------


def test_operator_legal_actions_mirror_the_engine() -> None:
    hand = flop_hand()
    view = last_view(OPERATOR, log_of(hand.events), operator=True)
    assert shape_errors(view, operator=True) == []
    legal = hand.legal_actions()
    assert legal is not None
    op = view["operator"]
    assert op["between_hands"] is False
    assert op["legal"] == {
        "seat": 7, "name": "Cy", "fold": True, "check": False, "call": legal.call_amount,
        "bet": None, "raise": {"min": legal.min_raise_to, "max": legal.max_raise_to},
        "all_in": legal.max_raise_to,
        "ruling": "A raise to less than 48,000 that adds at least 12,000 is completed to "
                  "48,000; less than that is a call (R8).",
        "presets": op["legal"]["presets"]}
    # The bet sizes: from the legal range and the pot, "raise to" totals (a pot-sized raise is
    # the call plus the pot after the call).
    after_call = hand.total_pot + legal.call_amount
    assert legal.min_raise_to is not None and legal.max_raise_to is not None
    sizes = [(p["key"], p["amount"]) for p in op["legal"]["presets"]]
    expected = [("min", legal.min_raise_to)] + [
        (key, round(legal.call_to + after_call * fraction)) for key, fraction in (
            ("half_pot", 1 / 2), ("two_thirds_pot", 2 / 3), ("three_quarters_pot", 3 / 4),
            ("pot", 1))] + [("all_in", legal.max_raise_to)]
    assert sizes == [(k, a) for k, a in expected
                     if legal.min_raise_to < a < legal.max_raise_to or k in ("min", "all_in")]
    assert [p["label"] for p in op["legal"]["presets"]][:2] == ["Min", "½ pot"]
    # The R8 ruling text agrees with the engine's own ruling on both sides of the line.
    assert "completed to 48,000" in _refusal(hand, 36_000)
    assert "a call of 24,000" in _refusal(hand, 35_999)
    assert op["undo"] == {"available": True, "label": "Ashton bets 24,000"}
    assert op["clock"] == {"seat": 7, "phase": "idle", "remaining": None}
    assert op["cards_needed"] == []
    assert (op["capture"], op["obs"], op["channels"], op["pages"]) == ([], None, [], [])
    # The other channels never carry the operator object.
    assert "operator" not in last_view(DELAYED, log_of(hand.events))


def _refusal(hand: Hand, amount: int) -> str:
    with pytest.raises(InvalidInputError) as error:
        hand.raise_to(amount)
    return str(error.value)


def test_operator_bet_limits_and_r10_restriction() -> None:
    hand = flop_hand()
    hand.call()  # Cy calls the flop bet; turn next
    entries = log_of(hand.events)
    waiting = last_view(OPERATOR, entries, operator=True)["operator"]
    assert waiting["legal"] is None and waiting["cards_needed"] == [{"target": "board",
                                                                     "count": 1}]
    hand.deal_board("2c")
    legal = hand.legal_actions()
    assert legal is not None and legal.is_bet
    op = last_view(OPERATOR, log_of(hand.events), operator=True)["operator"]
    assert op["legal"]["check"] is True and op["legal"]["call"] is None
    assert op["legal"]["bet"] == {"min": legal.min_raise_to, "max": legal.max_raise_to}
    assert op["legal"]["raise"] is None
    assert op["legal"]["ruling"].startswith("A bet of less than 8,000 that is at least 4,000")
    hand.restrict(legal.seat)  # R10: an exposed card, call or fold only
    hand.check()
    hand.bet(50_000)
    op = last_view(OPERATOR, log_of(hand.events), operator=True)["operator"]
    restricted = hand.legal_actions()
    assert restricted is not None and restricted.restrictions
    assert op["legal"]["raise"] is None and op["legal"]["bet"] is None
    assert op["legal"]["call"] == restricted.call_amount and op["legal"]["ruling"] is None
    assert op["undo"]["label"].endswith("bets 50,000")


def test_operator_sees_the_cards_still_needed_and_between_hands() -> None:
    table = table_of(PLAYERS, button=7, level=12)
    hand = table.start_hand()
    hand.deal_hole(1, "AhKd")
    hand.deal_hole(4, ["Qs", None])  # one card read
    op = last_view(OPERATOR, log_of(hand.events), operator=True)["operator"]
    assert op["legal"] is None  # seat 7 has no cards yet: nobody can act
    assert op["cards_needed"] == [{"target": "seat", "seat": 4, "count": 1},
                                  {"target": "seat", "seat": 7, "count": 2}]
    assert op["undo"]["label"] == "Hole cards of seat 4 (Rast)"
    hand.deal_hole(7, "7s4s")
    hand.fold()
    hand.fold()
    op = last_view(OPERATOR, log_of(hand.events), operator=True)["operator"]
    assert op["between_hands"] is True and op["legal"] is None


def test_with_devices_fills_the_service_fields() -> None:
    view = last_view(OPERATOR, log_of(flop_hand().events), operator=True)
    devices = {"alerts": [{"level": "warning", "source": "reader:table",
                           "message": "Reader 'table' is silent"}],
               "capture": [{"source": "reader:table", "status": "silent",
                            "detail": "no frame for 12 s"}],
               "obs": {"connected": True, "stream_delay": 30.0, "ok": True,
                       "message": "Stream delay 30 s"},
               "channels": [{"name": "delayed", "delay": 30.0, "clients": 3}],
               "pages": [{"page": "overlay", "channel": "delayed", "version": "3f2a",
                          "current": True}]}
    full = with_devices(view, devices)
    assert full["alerts"] == devices["alerts"]
    for key in ("capture", "obs", "channels", "pages"):
        assert full["operator"][key] == devices[key]
    assert view["operator"]["obs"] is None  # the reducer's view is not changed
    assert shape_errors(full, operator=True) == []
    with pytest.raises(InvalidInputError, match="hole_cards"):
        with_devices(view, {"hole_cards": []})


def test_a_called_clock_counts_down_at_the_channels_time() -> None:
    hand = flop_hand()

    class ClockCalled:  # a table-level event the engine may add (R12)
        kind = "clock_called"
        secrecy = Secrecy.PUBLIC

        def __init__(self, seat: int) -> None:
            self.seat = seat

        def to_dict(self) -> dict[str, Any]:
            return {"kind": self.kind, "seat": self.seat}

        def public_view(self) -> ClockCalled:
            return self

    entries = log_of(hand.events)
    called = TableEvent.record(len(entries) + 1, entries[-1].time + 1, ClockCalled(7))
    later = TableEvent.record(len(entries) + 2, called.time + 64.0, ClockCalled(7))
    reducer, state, _ = fold(OPERATOR, [*entries, called], operator=True)
    assert reducer.snapshot(state)["operator"]["clock"] == {"seat": 7, "phase": "minute",
                                                            "remaining": 60.0}
    # A later event moves the channel's time: 64 s after the call the countdown runs.
    state.as_of = later.time
    assert reducer.snapshot(state)["operator"]["clock"] == {"seat": 7, "phase": "countdown",
                                                            "remaining": 6.0}


# --- stability -------------------------------------------------------------------------------


def test_the_same_events_give_the_same_view_and_snapshots_are_fresh() -> None:
    entries = log_of(showdown_with_a_muck().events)
    for spec in SPECS:
        _, _, first = fold(spec, entries)
        _, _, second = fold(spec, entries)
        assert first == second
        assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    reducer, state, _ = fold(DELAYED, entries)
    view = reducer.snapshot(state)
    view["seats"][0]["name"] = "changed"
    view["table"]["board"].append("2s")
    assert reducer.snapshot(state)["seats"][0]["name"] != "changed"
    assert len(reducer.snapshot(state)["table"]["board"]) == 5


def test_as_of_is_the_time_of_the_last_released_item_and_delay_holds_items_back() -> None:
    entries = log_of(flop_hand().events, step=2.0)
    reducer, state, views = fold(DELAYED, entries, now=entries[4].time + DELAYED.delay)
    assert len(views) == 5
    view = reducer.snapshot(state)
    assert view["channel"] == {"name": "delayed", "delay": 30.0, "as_of": entries[4].time,
                               "live": False}
    assert view["channel"]["as_of"] == T0 + 8.0
    _, _, live = fold(VENUE, entries)
    assert live[-1]["channel"]["live"] is True and len(live) == len(entries)


def test_unknown_kinds_are_ignored_and_a_seated_player_appears() -> None:
    class TableNote:
        secrecy = Secrecy.PUBLIC

        def __init__(self, kind: str, **fields: Any) -> None:
            self.kind = kind
            self.__dict__.update(fields)

        def to_dict(self) -> dict[str, Any]:
            return dict(self.__dict__)

        def public_view(self) -> TableNote:
            return self

    entries = [TableEvent.record(1, T0, TableNote("weather_report", text="sunny")),
               TableEvent.record(2, T0 + 1, TableNote("player_seated", seat=3, name="Dee",
                                                      stack=9000)),
               TableEvent.record(3, T0 + 2, TableNote("level_started", number=4,
                                                      small_blind=200, big_blind=400, ante=0,
                                                      ends_at=T0 + 1200))]
    reducer, _, views = fold(VENUE, entries)
    assert views[0]["seats"] == reducer.snapshot(reducer.initial())["seats"]
    view = views[-1]
    assert (seat_of(view, 3)["name"], seat_of(view, 3)["stack"]) == ("Dee", 9000)
    assert seat_of(view, 3)["stack_bb"] == 22.5
    assert view["table"]["level"]["ends_at"] == T0 + 1200
    assert shape_errors(view) == []


# --- PHH: the WSOP 2023 final-table hands ----------------------------------------------------


PHH_FILES = sorted(PHH_DIR.glob("*.phh")) if PHH_DIR.is_dir() else []


@pytest.mark.skipif(not PHH_FILES, reason=f"the shared PHH files are not at {PHH_DIR}")
@pytest.mark.parametrize("path", PHH_FILES, ids=lambda p: p.name)
def test_wsop_hands_end_with_the_recorded_stacks_and_the_engines_winners(path: Path) -> None:
    history = phh_files.load(path)
    hand = phh.replay(history)
    entries = log_of(hand.events)
    views = {spec.name: last_view(spec, entries) for spec in (VENUE, DELAYED, REVEAL)}
    awards = hand.awards
    for name, view in views.items():
        assert shape_errors(view) == [], name
        assert view["table"]["street"] == "over"
        stacks = [seat_of(view, seat)["stack"] for seat in hand.seats]
        assert history.finishing_stacks is None or stacks == list(history.finishing_stacks)
        assert [(p["amount"], p["winners"]) for p in view["table"]["pots"]] == [
            (a.amount, list(a.seats)) for a in awards]
        assert view["table"]["level"]["ante_mode"] == ("big_blind" if any(history.antes)
                                                       else "none")
    shown = {e.seat for e in hand.events if isinstance(e, HandShown)}
    for seat in hand.seats:
        cards = hand.hole_cards(seat)
        assert cards is not None
        codes = [c.code if c else None for c in cards]
        assert seat_of(views["delayed"], seat)["cards"] == codes
        assert seat_of(views["reveal"], seat)["cards"] == codes  # revealed after the hand
        venue = seat_of(views["venue"], seat)
        assert venue["cards"] == (codes if seat in shown else [None, None])
        if seat not in shown:
            assert venue["hand"] is None and venue["best_five"] is None
            assert venue["equity"] is None and venue["outs"] is None


def test_the_view_benchmark_runs_end_to_end(tmp_path: Path) -> None:
    """bench/bench_view.py on a tiny load (its timings belong to the benchmark, not here)."""
    from bench import bench_view

    assert bench_view.main(["--hands", "2", "--out", str(tmp_path)]) == 0
    report = json.loads(next(tmp_path.glob("view-*.json")).read_text())
    secure = report["channels"]["secure"]
    # Every log entry but the burn cards (R19: on no channel) is timed on both channels.
    assert 0 < secure["all"]["items"] == report["channels"]["venue"]["all"]["items"]
    assert secure["all"]["items"] < report["entries"]
    assert secure["recompute"]["items"] >= 2 and secure["cached"]["items"] >= 1


def test_reducer_for_gives_the_operator_object_to_the_operator_channel_only() -> None:
    entries = log_of(flop_hand().events)
    for spec in (*SPECS, OPERATOR):
        reducer = reducer_for(spec, table_name="Main Event Final Table")
        state = reducer.initial()
        for item in released(spec, entries):
            state = reducer.apply(state, item)
        view = reducer.snapshot(state)
        assert ("operator" in view) is (spec is OPERATOR)
        assert view["table"]["name"] == "Main Event Final Table"


def test_reveal_never_shows_the_cards_of_an_undone_deal() -> None:
    table = table_of(PLAYERS, button=7, level=12)
    hand = table.start_hand()
    hand.deal_hole(1, "AhKd")
    hand.deal_hole(4, "2h9s")  # a misread...
    hand.undo()  # ...taken back and dealt again
    hand.deal_hole(4, "QsQc")
    hand.deal_hole(7, "7s4s")
    hand.fold()
    hand.fold()
    assert hand.is_over
    reducer, _, views = fold(REVEAL, log_of(hand.events))
    assert all("2h" not in seat_of(view, 4)["cards"] for view in views)
    final = views[-1]
    assert [seat_of(final, s)["cards"] for s in (1, 4, 7)] == [["Ah", "Kd"], ["Qs", "Qc"],
                                                               ["7s", "4s"]]
    assert reducer.channel is REVEAL
