"""The ``tournament`` object of the view (engine/view_tournament.py): clock, field, players,
eliminations and payouts (R21-R23), ICM, identity, statistics; and the channel's delay."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import Card
from engine.events import Event, PlayerEliminated
from engine.hand import Hand
from engine.identity import PlayerIdentified
from engine.log import TableEvent
from engine.payouts import PayoutTable, Standings
from engine.table import Table, TableRules
from engine.table_events import ClockCalled, ClockStopped, PlayerSeated, SeatEmptied
from engine.tournament import Break, Structure
from engine.tournament_events import (
    ClockAdjusted,
    ClockPaused,
    ClockResumed,
    ClockStarted,
    PlayerDisqualified,
    PrizeAwarded,
)
from engine.view import TableViewReducer
from engine.view_tournament import ELIMINATIONS_SHOWN, TournamentSettings, TournamentView
from tests.engine.viewkit import (
    DELAYED,
    SECURE,
    T0,
    VENUE,
    fold,
    last_view,
    log_of,
    released,
    shape_errors,
)
from tests.hands import random_log

POOL = TournamentSettings(name="Main Event", entrants=4, prize_pool=10_000, currency="EUR",
                          payouts=PayoutTable.from_percentages([50, 30, 20]))
SHORT = Structure.from_rows([(100, 200), (200, 400), (300, 600)], minutes=10,
                            breaks=[Break(1, 5)])


def seated(players: dict[int, tuple[str, int]]) -> Table:
    table = Table(structure=SHORT)
    for seat, (name, stack) in players.items():
        table.seat_player(seat, name, stack)
    table.set_button(min(players))
    return table


def all_in_hand(table: Table, cards: dict[int, str], board: str) -> Hand:
    """Every player all in (or calling all in) pre-flop; the board runs out (R14)."""
    hand = table.start_hand()
    for seat in hand.seats:
        hand.deal_hole(seat, [Card(cards[seat][:2]), Card(cards[seat][2:])])
    while (legal := hand.legal_actions()) is not None:
        if legal.max_raise_to is None:
            hand.call()  # nobody left to raise against: call (the rest stays behind)
        else:
            hand.all_in()
    codes = [board[k:k + 2] for k in range(0, len(board), 2)]
    for part in (codes[:3], codes[3:4], codes[4:5]):
        if not hand.is_over:
            hand.deal_board([Card(c) for c in part])
    assert hand.is_over
    return hand


def tournament_log() -> list[Event]:
    """Four players all in; Ann's aces hold: seats 3 and 7 bust together (3 had more chips:
    3rd, 7 4th, R22), Cy keeps what Ann could not cover. With the prizes the service would
    log (engine.payouts.Standings)."""
    players = {1: ("Ann", 10_000), 3: ("Bo", 3_000), 5: ("Cy", 12_000), 7: ("Di", 2_000)}
    events: list[Event] = [PlayerSeated(s, n, c) for s, (n, c) in players.items()]
    events.append(PlayerIdentified(7, "Diane Dupont", "Di", "FR", "/media/players/di.jpg"))
    table = seated(players)
    hand = all_in_hand(table, {1: "AsAh", 3: "7c2d", 5: "KsKh", 7: "8c3d"}, "AdKdQh4s5c")
    events.extend(hand.events)
    out = table.finish_hand()
    events.extend(out)
    standings = Standings.start([n for n, _ in players.values()],
                                POOL.payouts.prizes(10_000))  # type: ignore[union-attr]
    start = dict(zip(hand.started.names, hand.started.stacks, strict=True))  # type: ignore
    standings = standings.bust(1, {e.name: start[e.name] for e in out})
    for finish in standings.finishes():
        events.append(PrizeAwarded(finish.name, finish.place, finish.prize, 1,
                                   next(s for s, (n, _) in players.items()
                                        if n == finish.name)))
    events.append(SeatEmptied(7))
    return events


def view_of(events: list[Event], spec: Any = SECURE, **options: Any) -> dict[str, Any]:
    options.setdefault("tournament", POOL)
    options.setdefault("structure", SHORT)
    return last_view(spec, log_of(events), **options)


def test_every_field_of_the_tournament_object_is_there() -> None:
    for events in ([], tournament_log()):
        view = view_of(events)
        assert shape_errors(view) == []


def test_eliminations_in_one_hand_are_ranked_by_starting_stacks_r22() -> None:
    t = view_of(tournament_log())["tournament"]
    out = [(e["place"], e["name"], e["display_name"], e["country"], e["prize"], e["hand"])
           for e in t["eliminations"]]
    # 4 players, 3 paid: Bo (3,000 at the start) finishes 3rd and is paid, Di 4th.
    assert out == [(3, "Bo", "Bo", None, 2000, 1),
                   (4, "Diane Dupont", "Di", "FR", 0, 1)]
    assert t["eliminations"][1]["photo"] == "/media/players/di.jpg"  # kept after she left
    places = [(p["place"], p["prize"], p["name"]) for p in t["payouts"]["places"]]
    assert places == [(1, 5000, None), (2, 3000, None), (3, 2000, "Bo")]
    assert t["payouts"]["prize_pool"] == 10_000 and t["payouts"]["currency"] == "EUR"
    assert [p["jump"] for p in t["payouts"]["places"]] == [2000, 1000, 2000]


def test_a_long_tournament_shows_its_newest_eliminations_and_counts_them_all() -> None:
    """A re-entry field of thousands: the view (and a bust-out's patch) keeps its size; a
    disqualification leaves both the list and the count."""
    view = TournamentView(structure=SHORT)
    state = view.initial()
    busts = 3 * ELIMINATIONS_SHOWN
    for k in range(busts):
        view.apply(state, PlayerEliminated(1 + k % 9, f"Entry {k}", busts + 9 - k, k + 1),
                   float(k))
    view.apply(state, PlayerDisqualified(0, f"Entry {busts - 1}", "collusion"), float(busts))

    drawn = view.snapshot(state, now=None, stacks={}, big_blind=None, level_number=1)
    names = [entry["name"] for entry in drawn["eliminations"]]
    assert names == [f"Entry {k}" for k in range(busts - 1 - ELIMINATIONS_SHOWN, busts - 1)]
    assert drawn["eliminated"] == busts - 1
    assert drawn["field"]["entrants"] == busts - 1


def test_players_field_and_icm_follow_the_stacks_after_the_hand() -> None:
    t = view_of(tournament_log())["tournament"]
    players = t["players"]
    assert [(p["seat"], p["rank"]) for p in players] == [(1, 1), (5, 2)]
    total = sum(p["stack"] for p in players)
    assert [p["stack"] for p in players] == [25_000, 2_000]
    assert total == 27_000 == t["field"]["total_chips"]
    assert t["field"]["remaining"] == 2 and t["field"]["entrants"] == 4
    assert t["field"]["chip_leader"] == 1
    assert math.isclose(sum(p["share"] for p in players), 1.0, abs_tol=1e-3)
    assert all(p["prize_so_far"] == 3000 for p in players)  # 2nd place is locked up
    # ICM: the two players left share the prizes of places 1 and 2, more chips more equity.
    icm = t["icm"]
    assert set(icm) == {"1", "5"}
    assert math.isclose(icm["1"] + icm["5"], 8000, abs_tol=0.02)
    assert icm["1"] > icm["5"] > 3000


def test_identity_names_a_player_without_changing_the_table_name() -> None:
    events = tournament_log()
    events.append(PlayerIdentified(1, "Ann Smith", "Ann", "DE", None))
    view = view_of(events)
    ann = next(p for p in view["tournament"]["players"] if p["seat"] == 1)
    assert (ann["name"], ann["display_name"], ann["table_name"], ann["country"]) == (
        "Ann Smith", "Ann", "Ann", "DE")
    assert next(s for s in view["seats"] if s["seat"] == 1)["name"] == "Ann"


def test_the_ticker_names_each_player_by_his_display_name() -> None:
    """Issue 19: one name per player on every graphic, the ticker's crawl too."""
    events = tournament_log()
    events[4:4] = [PlayerIdentified(1, "Ann Smith", "Annie", "DE", None),
                   PlayerIdentified(3, "Boris Becker", "Boris", "DE", None)]
    ticker = view_of(events)["tournament"]["ticker"]
    assert ticker.startswith("Hand 1: Annie wins"), ticker
    assert "Boris is out in 3rd" in ticker and "Bo " not in ticker
    # Without an identity the table's name stays.
    plain = view_of(tournament_log())["tournament"]["ticker"]
    assert plain.startswith("Hand 1: Ann wins") and "Bo is out in 3rd" in plain


def test_the_clock_gives_remaining_at_the_period_start_in_display_time() -> None:
    start = ClockStarted(T0, 0.0)
    events: list[Event] = [PlayerSeated(1, "Ann", 5000), PlayerSeated(2, "Bo", 5000), start]
    # Entries one second apart; then a long gap: 11 minutes later level 1 (10 minutes) is
    # over and the break (5 minutes) runs.
    entries = log_of(events, t0=T0 - 2)
    late = TableEvent.record(4, T0 + 11 * 60, PlayerSeated(3, "Cy", 5000))
    for spec in (SECURE, DELAYED):
        early = last_view(spec, entries, tournament=POOL, structure=SHORT)
        clock = early["tournament"]["clock"]
        assert (clock["level"], clock["running"], clock["is_break"]) == (1, True, False)
        assert clock["remaining"] == 600.0 and clock["as_of"] == T0 + spec.delay
        assert clock["next"] == {"level": 2, "small_blind": 200, "big_blind": 400,
                                 "ante": 0}
        view = last_view(spec, [*entries, late], tournament=POOL, structure=SHORT)
        clock = view["tournament"]["clock"]
        assert clock["is_break"] and clock["level"] == 2  # the level after the break
        assert clock["remaining"] == 300.0
        assert clock["as_of"] == T0 + 600 + spec.delay  # when the break began


def test_pause_adjust_resume() -> None:
    events: list[Event] = [ClockStarted(T0, 0.0), ClockPaused(T0 + 100),
                           ClockAdjusted(-50, T0 + 101)]
    entries = [TableEvent.record(k + 1, T0 + [0, 100, 101][k], e)
               for k, e in enumerate(events)]
    clock = last_view(SECURE, entries, structure=SHORT)["tournament"]["clock"]
    assert (clock["running"], clock["remaining"]) == (False, 450.0)
    entries.append(TableEvent.record(4, T0 + 200, ClockResumed(T0 + 200)))
    entries.append(TableEvent.record(5, T0 + 260, PlayerSeated(1, "Ann", 5000)))
    clock = last_view(SECURE, entries, structure=SHORT)["tournament"]["clock"]
    # The reference point is the resume (the last clock event), not the latest entry: the
    # clock's fields do not change with every event.
    assert (clock["running"], clock["remaining"], clock["as_of"]) == (True, 450.0, T0 + 200)


def test_before_the_clock_starts_it_shows_the_table_level() -> None:
    clock = view_of([PlayerSeated(1, "Ann", 5000)])["tournament"]["clock"]
    assert (clock["level"], clock["started"], clock["running"], clock["as_of"]) == (
        1, False, False, None)
    assert clock["remaining"] == 600.0


def test_action_clock_ends_a_minute_and_ten_seconds_after_the_call_r12() -> None:
    table = seated({1: ("Ann", 5000), 2: ("Bo", 5000)})
    hand = table.start_hand()
    for seat in hand.seats:
        hand.deal_hole(seat, None)
    legal = hand.legal_actions()
    assert legal is not None
    events = [*hand.events, ClockCalled(legal.seat, 70.0)]
    for spec in (SECURE, DELAYED):
        view = last_view(spec, log_of(events), structure=SHORT)
        called_at = T0 + len(events) - 1
        assert view["tournament"]["action_clock"] == {
            "seat": legal.seat, "ends_at": called_at + 70 + spec.delay,
            "countdown_at": called_at + 60 + spec.delay}
    stopped = last_view(SECURE, log_of([*events, ClockStopped()]), structure=SHORT)
    assert stopped["tournament"]["action_clock"] is None
    before = len(hand.events)
    hand.check_or_call()  # the player acts: the clock is off
    view = last_view(SECURE, log_of([*events, *hand.events[before:]]), structure=SHORT)
    assert view["tournament"]["action_clock"] is None


def test_statistics_and_ticker_after_the_hand() -> None:
    view = view_of(tournament_log())
    stats = view["tournament"]["stats"]
    assert stats is not None and set(stats) == {"1", "5"}
    assert stats["1"]["hands"] == 1 and stats["1"]["vpip"] == 1.0
    ticker = view["tournament"]["ticker"]
    assert ticker.startswith("Hand 1: Ann wins") and "Bo is out in 3rd" in ticker
    # The booth's story lines, by seat, for the players still seated: Ann put Bo and Di out.
    stories = view["tournament"]["stories"]
    assert set(stories) == {"1", "5"}
    assert stories["1"]["knocked_out"] == [{"name": "Bo", "hand": 1}, {"name": "Di", "hand": 1}]
    assert stories["1"]["biggest_won"]["hand"] == 1


def test_allin_outcomes_only_where_the_channel_knows_every_hand() -> None:
    players = {1: ("Ann", 10_000), 3: ("Bo", 3_000), 5: ("Cy", 9_000)}
    table = seated(players)
    hand = table.start_hand()
    for seat, cards in zip(hand.seats, ("AsAh", "7c2d", "KsKh"), strict=True):
        hand.deal_hole(seat, [Card(cards[:2]), Card(cards[2:])])
    hand.fold()  # the first to act folds; the other two are all in
    while (legal := hand.legal_actions()) is not None:
        hand.call() if legal.max_raise_to is None else hand.all_in()
    hand.deal_board([Card("Kd"), Card("Qh"), Card("4s")])
    events = [*(PlayerSeated(s, n, c) for s, (n, c) in players.items()), *hand.events]
    pool = TournamentSettings(entrants=3, prize_pool=900,
                              payouts=PayoutTable.from_percentages([70, 30]))
    entries = log_of(events)
    _, _, secure = fold(SECURE, entries, structure=SHORT, tournament=pool)
    _, _, venue = fold(VENUE, entries, structure=SHORT, tournament=pool)
    shown = [v["tournament"]["allin"] for v in secure if v["tournament"]["allin"]]
    assert shown, "the secure channel knows the cards: it shows the all-in's outcomes"
    last = shown[-1]
    assert math.isclose(sum(o["probability"] for o in last["outcomes"]), 1.0, abs_tol=1e-5)
    for view in venue:
        if view["tournament"]["allin"] is not None:  # only once the hands are face up (R14)
            live = [s for s in view["seats"] if s["name"] and not s["folded"]
                    and s["cards"]]
            assert all(None not in s["cards"] for s in live), view["table"]["actions"]
    # Before the showdown turned the hands face up, the venue had no outcome to show.
    first_known = next(k for k, v in enumerate(secure) if v["tournament"]["allin"])
    assert venue[first_known - 1]["tournament"]["allin"] is None


@settings(max_examples=200)
@given(start=st.floats(1.7e9, 1.9e9), taken=st.floats(0.0, 170.0),
       later=st.floats(0.001, 170.0))
def test_the_clock_shows_the_period_it_is_in_right_after_a_boundary(
        start: float, taken: float, later: float) -> None:
    """Once real time carries the clock into the next level, every channel shows that level
    (its start read back at wall times near 2e9 s must not round into the level before: the
    demo's level once stayed at 1, remaining 0.0, for 40 s)."""
    view = TournamentView(structure=SHORT)
    state = view.initial()
    state.clock = state.clock.start(start).adjust(-taken, start + 1.0)
    boundary = start + 1.0 + (SHORT.levels[0].minutes * 60 - 1.0 - taken)
    now = boundary + later
    shown = view._clock(state, now, None)
    assert shown["level"] == state.clock.level_at(now).number == 2
    assert shown["remaining"] is not None and shown["remaining"] > 0


def test_a_split_pot_outcome_is_split_in_the_tables_chip_unit() -> None:
    """A chopped pot with an odd number of chip units gives the odd unit to one player
    (R18), as the engine splits it, never half a unit each."""
    players = {1: ("Ann", 10_000), 3: ("Bo", 3_000), 5: ("Cy", 9_000)}
    table = Table(structure=SHORT, rules=TableRules(chip_unit=100))
    for seat, (name, stack) in players.items():
        table.seat_player(seat, name, stack)
    table.set_button(5)  # Ann posts the small blind (100), Bo the big blind (200)
    hand = table.start_hand()
    for seat, cards in ((1, "7c2d"), (3, "AsKc"), (5, "AhKd")):
        hand.deal_hole(seat, [Card(cards[:2]), Card(cards[2:])])
    hand.all_in()  # Cy
    hand.fold()  # Ann: her small blind stays in the pot
    hand.call()  # Bo, all in: the pot holds 3,000 + 3,000 + 100, 61 units of 100
    events = [*(PlayerSeated(s, n, c) for s, (n, c) in players.items()), *hand.events]
    pool = TournamentSettings(entrants=3, prize_pool=900,
                              payouts=PayoutTable.from_percentages([70, 30]))
    _, _, secure = fold(SECURE, log_of(events), structure=SHORT, tournament=pool)
    allin = secure[-1]["tournament"]["allin"]
    assert allin is not None
    chops = [o for o in allin["outcomes"] if o["split"]]
    assert chops, "ace-king against ace-king chops on most boards"
    for outcome in allin["outcomes"]:
        assert all(stack % 100 == 0 for stack in outcome["stacks"]), outcome


def test_a_three_way_all_in_before_the_flop_shows_its_outcomes_at_once() -> None:
    """Every pre-flop board of a multi-way all-in is counted (R14: the board runs out)."""
    players = {1: ("Ann", 4_000), 3: ("Bo", 3_000), 5: ("Cy", 9_000)}
    table = seated(players)
    hand = table.start_hand()
    for seat, cards in zip(hand.seats, ("AsAh", "7c7d", "KsKh"), strict=True):
        hand.deal_hole(seat, [Card(cards[:2]), Card(cards[2:])])
    while (legal := hand.legal_actions()) is not None:
        hand.call() if legal.max_raise_to is None else hand.all_in()
    assert not hand.board and not hand.is_over
    events = [*(PlayerSeated(s, n, c) for s, (n, c) in players.items()), *hand.events]
    pool = TournamentSettings(entrants=3, prize_pool=900,
                              payouts=PayoutTable.from_percentages([70, 30]))
    _, _, secure = fold(SECURE, log_of(events), structure=SHORT, tournament=pool)
    allin = secure[-1]["tournament"]["allin"]
    assert allin is not None, "three hands all in before the flop: the outcomes are known"
    assert math.isclose(sum(o["probability"] for o in allin["outcomes"]), 1.0, abs_tol=1e-9)
    assert len(allin["outcomes"]) >= 3  # Cy covers both; either short stack may bust


# --- the delay ------------------------------------------------------------------------------


@settings(max_examples=15)
@given(seed=st.integers(0, 10_000), cut=st.floats(0, 1))
def test_the_delayed_channel_never_shows_an_elimination_before_its_delay(
        seed: int, cut: float) -> None:
    entries = random_log(seed, 10)
    first, last = entries[0].time, entries[-1].time + DELAYED.delay
    now = first + cut * (last - first)
    _, _, views = fold(DELAYED, entries, now, structure=SHORT,
                       tournament=TournamentSettings(prize_pool=1000))
    due = [e.payload for e in entries if e.time + DELAYED.delay <= now
           and isinstance(e.payload, PlayerEliminated)]
    shown = views[-1]["tournament"]["eliminations"] if views else []
    assert [(o["name"], o["place"]) for o in shown] == [(e.name, e.place) for e in due]
    # At no released moment did the view know more busts than the log held by then.
    for view in views:
        as_of = view["channel"]["as_of"]
        known = sum(1 for e in entries if e.time <= as_of
                    and isinstance(e.payload, PlayerEliminated))
        assert len(view["tournament"]["eliminations"]) <= known


@settings(max_examples=6)
@given(seed=st.integers(0, 10_000))
def test_the_cached_standing_is_what_a_fresh_drawing_gives(seed: int) -> None:
    entries = random_log(seed, 6)
    pool = TournamentSettings(prize_pool=1000)
    reducer = TableViewReducer(SECURE, structure=SHORT, tournament=pool)
    state = reducer.initial()
    for item in released(SECURE, entries):
        state = reducer.apply(state, item)
        cached = reducer.snapshot(state)["tournament"]
        assert state.tournament is not None
        state.tournament.memo = None  # forget the drawing: draw it again from the state
        assert reducer.snapshot(state)["tournament"] == cached


def test_the_ticker_names_only_this_hands_eliminations() -> None:
    events = tournament_log()  # hand 1 of one table: Bo and Di bust
    table = seated({1: ("Ann", 25_000), 5: ("Cy", 2_000)})  # another table: hand 1 again
    hand = table.start_hand()
    for seat in hand.seats:
        hand.deal_hole(seat, None)
    hand.fold()
    events.extend(hand.events)
    ticker = view_of(events)["tournament"]["ticker"]
    assert ticker.startswith("Hand 1: ") and "is out" not in ticker


def test_after_a_hand_the_seats_follow_corrections_and_disqualifications() -> None:
    """Between hands the table's roster decides what the seats show: a corrected stack at
    once, a disqualified player's seat empty (his chips leave play), while a player who
    busted in the hand stays in the picture of that hand."""
    players = {1: ("Ann", 10_000), 3: ("Bo", 3_000), 5: ("Cy", 12_000), 7: ("Di", 2_000)}
    table = seated(players)
    hand = all_in_hand(table, {1: "AsAh", 3: "7c2d", 5: "KsKh", 7: "8c3d"}, "AdKdQh4s5c")
    events: list[Event] = [PlayerSeated(s, n, c) for s, (n, c) in players.items()]
    events += [*hand.events, *table.finish_hand()]
    before = {s["seat"]: s for s in view_of(events)["seats"]}
    survivors = [seat for seat, stack in table.stacks.items() if stack > 0]
    corrected, dropped = survivors[0], survivors[1]
    events.append(table.correct_stack(corrected, table.stacks[corrected] + 500, "miscount"))
    events.append(table.disqualify(dropped, "abuse"))
    after = {s["seat"]: s for s in view_of(events)["seats"]}
    assert after[corrected]["stack"] == before[corrected]["stack"] + 500
    assert before[dropped]["name"] and after[dropped]["name"] is None
    for seat in (3, 7):  # busted in the hand: still shown with the hand's outcome
        assert after[seat]["name"] == before[seat]["name"] and after[seat]["stack"] == 0


def test_a_hand_of_no_known_level_announces_no_next_level() -> None:
    """A hand history replayed (its blinds are not a level of the structure) shows its own
    blinds and no "next level" taken from an unrelated structure."""
    from engine import phh

    history = phh.loads('variant = "NT"\nantes = [0, 0]\nblinds_or_straddles = [1000, 2000]\n'
                        'min_bet = 2000\nstarting_stacks = [50000, 60000]\n'
                        'actions = ["d dh p1 AsKs", "d dh p2 7c7d", "p2 f"]\n')
    hand = phh.replay(history)
    assert hand.started is not None and not hand.started.level
    view = view_of(list(hand.events))
    assert view["table"]["level"]["big_blind"] == 2000
    assert view["tournament"]["clock"]["next"] is None
