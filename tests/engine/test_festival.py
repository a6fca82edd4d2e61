"""A tournament over several tables (engine/festival.py): the draw, balancing, breaking,
hand-for-hand (R24), busts of one round ranked across tables (R22), the final table (R23)."""

from __future__ import annotations

import random
from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import IllegalActionError
from engine.festival import FINAL_NAME, FINAL_TABLE, HAND_FOR_HAND, Festival, Move

STACK = 10_000


def players(n: int) -> list[str]:
    return [f"p{k:02d}" for k in range(1, n + 1)]


def check(festival: Festival, total: int) -> None:
    """What must hold between any two verbs."""
    seated = [p for t in festival.tables for p in t.players]
    assert sorted(seated) == sorted(festival.standings.alive)  # each player once, alive
    assert sum(c for _, c in festival.stacks) == total  # chips conserved
    assert {p for p, _ in festival.stacks} == set(seated)
    for table in festival.tables:
        seats = [s for s, _ in table.seats]
        assert len(set(seats)) == len(seats)
        limit = FINAL_TABLE if table.name == FINAL_NAME else festival.seats_per_table
        assert all(1 <= s <= limit for s in seats)
    if len(festival.tables) > 1:  # the final table once every table is between hands
        # (in a hand-for-hand round: once every table has played the round's hand, R24)
        assert festival.remaining > FINAL_TABLE or festival.round_id is not None \
            or any(t.playing for t in festival.tables)


class Rounds:
    """Hand-for-hand rounds as played (R24): who was dealt into each round's hands. Each
    player plays one hand a round: never two, and none missed while seated, for players
    the rules move and players the director moves alike."""

    def __init__(self) -> None:
        self.players: dict[int, set[str]] = {}
        self.tables: dict[int, list[str]] = {}

    def dealt(self, before: Festival, after: Festival, name: str, hand_id: int) -> None:
        if not before.hand_for_hand:
            return
        dealt = set(after.table(name).players)
        played = self.players.setdefault(hand_id, set())
        assert not dealt & played, f"dealt twice in round {hand_id}: {dealt & played}"
        played |= dealt
        self.tables.setdefault(hand_id, []).append(name)
        assert self.tables[hand_id].count(name) == 1, f"{name} dealt twice in a round"

    def finished(self, before: Festival, after: Festival) -> None:
        """After a finished hand: when it ended its round, every player still in (and every
        one who busted in it) was dealt into one of its hands. Only a player left alone at
        his table, who cannot be dealt a hand, sits the round out."""
        round_id = before.round_id
        if round_id is None or after.round_id == round_id:
            return
        played = self.players.get(round_id, set())
        busted = {b.name for b in after.standings.busts if b.hand_number == round_id}
        assert busted <= played
        alone = {p for t in before.tables if len(t.seats) < 2 and t.name not in before.dealt
                 for p in t.players}
        missed = set(after.standings.alive) - played - alone
        assert not missed, f"missed round {round_id}'s hand while seated: {sorted(missed)}"


def play_out(festival: Festival, rng: random.Random, *, log: list[tuple[str, object]]
             ) -> Festival:
    """Deal and finish hands at random (random chips moving, random busts) to the winner."""
    total = sum(c for _, c in festival.stacks)
    rounds = Rounds()
    for _ in range(5_000):
        if festival.remaining == 1:
            return festival
        dealable = [t.name for t in festival.tables if festival.can_deal(t.name)]
        playing = [t.name for t in festival.tables if t.playing]
        if dealable and (not playing or rng.random() < 0.5):
            name = rng.choice(dealable)
            in_round = festival.hand_for_hand
            # R24: from eleven players, while there is more than one table.
            assert in_round == (festival.remaining <= HAND_FOR_HAND and len(festival.tables) > 1)
            before = festival
            festival, hand_id = festival.deal(name)
            rounds.dealt(before, festival, name, hand_id)
            log.append(("deal", (name, hand_id, in_round)))
        else:
            assert playing, "no table can deal and none is playing: the festival is stuck"
            name = rng.choice(playing)
            table = festival.table(name)
            stacks = dict(table.start_stacks)
            loser, winner = rng.sample(sorted(stacks), 2)
            amount = stacks[loser] if rng.random() < 0.35 else rng.randint(0, stacks[loser])
            stacks[loser] -= amount
            stacks[winner] += amount
            before = festival
            festival, moves = festival.finish(name, stacks)
            log.append(("finish", (name, moves)))
            rounds.finished(before, festival)
            if festival.round_id is not None:  # R24: nobody moves in a round
                assert moves == ()
            ended = before.round_id is not None and festival.round_id is None
            for move in moves:
                if move.reason == "balance" and not ended:  # from the table that finished
                    assert move.from_table == name and move.to_table != name
                    assert len(before.table(move.to_table).seats) < \
                        len(before.table(name).seats)
            if len(festival.tables) > 1 and festival.round_id is None \
                    and festival.remaining > FINAL_TABLE:  # (at ten: the final table next)
                sizes = [len(t.seats) for t in festival.tables]
                if name in {t.name for t in festival.tables}:
                    assert len(festival.table(name).seats) - min(sizes) <= 1
                if ended:  # the round's end: every table looked at
                    assert max(sizes) - min(sizes) <= 1
        check(festival, total)
    raise AssertionError("the tournament did not end")


@settings(max_examples=40, deadline=None)
@given(st.integers(12, 45), st.integers(2, 5), st.integers(6, 9), st.integers(0, 10**6))
def test_any_festival_plays_down_to_one_winner(n: int, tables: int, seats: int,
                                               seed: int) -> None:
    """Whatever the hands do: chips conserved, every player seated once until he busts,
    tables balanced within one after each hand, hand-for-hand rounds from eleven players
    (no table deals twice in a round), a final table at ten, one winner, every place
    decided."""
    tables = min(tables, max(1, n // 2))
    if n > tables * seats:
        tables = -(-n // seats)
    names = [f"T{k}" for k in range(1, tables + 1)]
    festival = Festival.draw(players(n), names, stack=STACK, seats_per_table=seats, seed=seed)
    sizes = [len(t.seats) for t in festival.tables]
    assert max(sizes) - min(sizes) <= 1 and sum(sizes) == n
    log: list[tuple[str, object]] = []
    festival = play_out(festival, random.Random(seed), log=log)
    assert festival.remaining == 1 and len(festival.tables) == 1
    finishes = festival.standings.finishes()
    assert sorted(f.name for f in finishes) == players(n)
    # Hand-for-hand: within one round id, each table dealt once.
    rounds: dict[int, list[str]] = {}
    for kind, what in log:
        if kind == "deal":
            name, hand_id, in_round = what  # type: ignore[misc]
            if in_round:
                rounds.setdefault(hand_id, []).append(name)
    assert all(len(tabs) == len(set(tabs)) for tabs in rounds.values())

    if n > FINAL_TABLE and tables > 1:
        assert any(m.reason == "final table" for kind, what in log if kind == "finish"
                   for m in what[1])  # type: ignore[index]


def three_tables() -> Festival:
    return Festival.draw(players(27), ["A", "B", "C"], stack=STACK, seed=7)


def lost_to(start: Iterable[tuple[str, int]], losers: list[str],
            winner: str | None = None) -> dict[str, int]:
    """The stacks after a hand begun at ``start`` in which ``losers`` went all in and lost
    everything to ``winner`` (the first other player when None)."""
    stacks = dict(start)
    winner = winner or next(p for p in stacks if p not in losers)
    for loser in losers:
        stacks[winner] += stacks[loser]
        stacks[loser] = 0
    return stacks


def bust(festival: Festival, name: str, losers: list[str]) -> tuple[Festival, tuple[Move, ...]]:
    """Deal at ``name`` and finish with ``losers`` all-in and lost to the table's first
    other player."""
    festival, _ = festival.deal(name)
    return festival.finish(name, lost_to(festival.table(name).start_stacks, losers))


def test_the_draw_spreads_players_evenly_with_a_random_seat_each() -> None:
    festival = three_tables()
    assert [len(t.seats) for t in festival.tables] == [9, 9, 9]
    again = three_tables()
    assert again == festival  # the same seed, the same draw
    other = Festival.draw(players(27), ["A", "B", "C"], stack=STACK, seed=8)
    assert other.tables != festival.tables
    with pytest.raises(IllegalActionError, match="28 players do not fit at 3 tables of 9"):
        Festival.draw(players(28), ["A", "B", "C"], stack=STACK)


def test_a_short_table_gets_the_player_due_for_the_big_blind() -> None:
    festival = three_tables()
    festival, moves = bust(festival, "A", list(festival.table("A").players[:2]))  # A: 7
    assert moves == ()  # A is the short one: nobody moves from it
    short = festival.table("A")
    open_seats = [s for s in range(1, 10) if s not in dict(short.seats)]

    def wait(seat: int) -> int:  # hands until a player in ``seat`` posts A's big blind
        order = short.blind_order([*dict(short.seats), seat])
        return (order.index(seat) - 2) % len(order)

    order = festival.table("B").blind_order()  # after this hand the button moves on one
    festival, moves = bust(festival, "B", [])  # B finishes a hand: 9 against 7
    (move,) = moves
    assert move.reason == "balance" and move.from_table == "B" and move.to_table == "A"
    # The mover was due for B's next big blind: the third seat after the new button.
    assert move.from_seat == order[3]
    assert move.player not in festival.table("B").players
    # At A he takes the open seat where the big blind falls soonest (no free hand).
    assert len(open_seats) == 2 and move.to_seat in open_seats
    assert wait(move.to_seat) == min(wait(s) for s in open_seats)
    if wait(move.to_seat) == 0:
        assert festival.table("A").due_for_big_blind() == move.player


def test_a_table_breaks_when_the_players_fit_at_one_fewer() -> None:
    festival = three_tables()
    # Eighteen players fit at two tables of nine: bust nine, at A, B and C in turn.
    for name in ("A", "B", "C"):
        festival, moves = bust(festival, name, list(festival.table(name).players[:3]))
    broken = [m for m in moves if m.reason == "break"]
    assert festival.remaining == 18 and len(festival.tables) == 2
    assert len(broken) == 6 and {m.from_table for m in broken} == {"C"}
    assert sorted(len(t.seats) for t in festival.tables) == [9, 9]


def test_hand_for_hand_from_eleven_and_the_round_ranks_busts_across_tables() -> None:
    festival = Festival.draw(players(12), ["A", "B"], stack=STACK, seed=3)
    festival, _ = bust(festival, "A", [festival.table("A").players[0]])
    assert festival.remaining == HAND_FOR_HAND and festival.hand_for_hand
    # Round: both tables deal; A finishes first and must wait for B (R24).
    festival, round_a = festival.deal("A")
    festival, round_b = festival.deal("B")
    assert round_a == round_b
    a, b = festival.table("A"), festival.table("B")
    small = next(p for p, chips in a.start_stacks if chips == STACK)
    big = b.players[0]
    assert dict(b.start_stacks)[big] == STACK
    # One player of A and one of B bust in this round, both with 10,000 at its start.
    stacks_a = dict(a.start_stacks)
    winner_a = next(p for p in stacks_a if p != small)
    stacks_a[winner_a] += stacks_a[small]
    stacks_a[small] = 0
    festival, _ = festival.finish("A", stacks_a)
    with pytest.raises(IllegalActionError, match="hand-for-hand: A waits") as refused:
        festival.deal("A")
    assert refused.value.rule == "R24"
    stacks_b = dict(festival.table("B").start_stacks)
    stacks_b[b.players[1]] += stacks_b[big]
    stacks_b[big] = 0
    festival, moves = festival.finish("B", stacks_b)
    assert festival.remaining == 9
    assert {m.reason for m in moves} == {"final table"} and len(moves) == 9
    assert [t.name for t in festival.tables] == [FINAL_NAME]
    places = {f.name: f.place for f in festival.standings.finishes()}
    # Busted in the same round with the same starting stack: they share 10th and 11th.
    assert places[small] == places[big] == 10


def test_busts_in_one_round_rank_by_their_stacks_at_its_start() -> None:
    festival = Festival.draw(players(12), ["A", "B"], stack=STACK, seed=5)
    # Before hand-for-hand: chips move so that A's first player is short.
    festival, _ = festival.deal("A")
    a = festival.table("A")
    stacks = dict(a.start_stacks)
    short, rich = a.players[0], a.players[1]
    stacks[rich] += stacks[short] - 2_000
    stacks[short] = 2_000
    festival, _ = festival.finish("A", stacks)
    festival, _ = bust(festival, "B", [festival.table("B").players[0]])  # 11 left
    assert festival.hand_for_hand
    festival, _ = festival.deal("A")
    festival, _ = festival.deal("B")
    b_player = festival.table("B").players[0]  # 10,000 or more at the round's start
    stacks_a = dict(festival.table("A").start_stacks)
    stacks_a[rich] += stacks_a[short]
    stacks_a[short] = 0
    festival, _ = festival.finish("A", stacks_a)
    stacks_b = dict(festival.table("B").start_stacks)
    other = next(p for p in stacks_b if p != b_player)
    stacks_b[other] += stacks_b[b_player]
    stacks_b[b_player] = 0
    festival, _ = festival.finish("B", stacks_b)
    places = {f.name: f.place for f in festival.standings.finishes()}
    assert places[b_player] == 10 and places[short] == 11  # the bigger stack finishes higher


def test_bad_results_are_refused_and_change_nothing() -> None:
    festival = three_tables()
    with pytest.raises(IllegalActionError, match="A is not playing a hand"):
        festival.finish("A", {})
    festival, _ = festival.deal("A")
    stacks = dict(festival.table("A").start_stacks)
    with pytest.raises(IllegalActionError, match="A is playing a hand"):
        festival.deal("A")
    first = next(iter(stacks))
    with pytest.raises(IllegalActionError, match="are not those before it"):
        festival.finish("A", {**stacks, first: stacks[first] + 1})
    with pytest.raises(IllegalActionError, match="the stacks must be those of its players"):
        festival.finish("A", {**stacks, "stranger": 0})
    with pytest.raises(IllegalActionError, match="there is no table 'Z'"):
        festival.deal("Z")
    assert festival.table("A").playing


def test_in_a_hand_for_hand_round_balancing_waits_for_the_round_to_end() -> None:
    """R24: a player the rules move mid-round would play the round's hand twice (or miss
    it); the tables are balanced once every table has finished the round's hand."""
    festival = Festival.draw(players(16), ["A", "B"], stack=STACK, seed=3)  # 8, 8
    for _ in range(2):
        festival, _ = bust(festival, "B", [festival.table("B").players[0]])  # 8, 6
    festival = festival.set_hand_for_hand(True)[0]
    festival, round_a = festival.deal("A")
    festival, moves = festival.finish("A", dict(festival.table("A").start_stacks))
    assert moves == ()  # A holds two more than B, but B has not dealt the round's hand
    assert len(festival.table("A").seats) == 8 and len(festival.table("B").seats) == 6
    festival, round_b = festival.deal("B")
    assert round_b == round_a
    dealt_b = set(festival.table("B").players)
    assert not dealt_b & set(festival.table("A").players)  # nobody dealt in twice
    festival, moves = festival.finish("B", dict(festival.table("B").start_stacks))
    (move,) = moves  # the round is over: now A's player due for the big blind moves
    assert move.reason == "balance" and (move.from_table, move.to_table) == ("A", "B")
    assert festival.round_id is None
    assert sorted(len(t.seats) for t in festival.tables) == [7, 7]
    check(festival, 16 * STACK)


def test_in_a_hand_for_hand_round_a_table_is_broken_once_the_round_is_over() -> None:
    festival = Festival.draw(players(17), ["A", "B", "C"], stack=STACK, seed=7)
    short = min(festival.tables, key=lambda t: (len(t.seats), t.name)).name  # 5 of 17
    others = [t.name for t in festival.tables if t.name != short]
    festival = festival.set_hand_for_hand(True)[0]
    festival, _ = festival.deal(short)
    festival, moves = festival.finish(short, dict(festival.table(short).start_stacks))
    assert moves == () and short not in festival.broken  # the others have not dealt yet
    with pytest.raises(IllegalActionError, match=f"hand-for-hand: {short} waits"):
        festival.deal(short)
    made: list[Move] = []
    for name in others:
        festival, _ = festival.deal(name)
        festival, moves = festival.finish(name, dict(festival.table(name).start_stacks))
        made.extend(moves)
    assert [m.from_table for m in made if m.reason == "break"] == [short] * 5
    assert festival.broken == (short,) and festival.round_id is None
    check(festival, 17 * STACK)


def test_the_final_table_waits_for_every_table_to_play_the_round() -> None:
    """Ten players left after A's hand of the round: B still plays its hand of the round
    (R24), and its busts rank with A's by their stacks at the round's start (R22); then
    the final table forms (R23)."""
    festival = Festival.draw(players(12), ["A", "B"], stack=STACK, seed=3)
    festival, _ = bust(festival, "A", [festival.table("A").players[0]])  # 11: R24
    festival, moves = bust(festival, "A", [festival.table("A").players[-1]])  # 10
    assert moves == () and len(festival.tables) == 2 and festival.remaining == FINAL_TABLE
    assert festival.can_deal("B") and not festival.can_deal("A")
    assert festival.standings.busts[-1].start_stack == STACK
    festival, moves = bust(festival, "B", [festival.table("B").players[0]])  # 9
    assert {m.reason for m in moves} == {"final table"} and len(moves) == 9
    out_a, out_b = festival.standings.busts[-2:]
    assert out_a.hand_number == out_b.hand_number  # one round, one hand id (R22)
    assert out_b.start_stack == STACK
    places = {f.name: f.place for f in festival.standings.finishes()}
    assert places[out_a.name] == places[out_b.name] == 10  # 10,000 each: they share it


def test_a_table_left_alone_with_one_player_in_a_round_waits_for_it() -> None:
    """A hand begun before the round leaves one player at C: he cannot be dealt a hand, so
    C waits for the round like the others (R24), and is broken once it is over."""
    festival = Festival.draw(players(17), ["A", "B", "C"], stack=STACK, seed=7)
    short = min(festival.tables, key=lambda t: (len(t.seats), t.name)).name
    others = [t.name for t in festival.tables if t.name != short]
    festival, _ = festival.deal(short)  # before hand-for-hand
    festival = festival.set_hand_for_hand(True)[0]
    festival, _ = festival.deal(others[0])  # the round starts
    losers = list(festival.table(short).players[1:])
    stacks = dict(festival.table(short).start_stacks)
    stacks[festival.table(short).players[0]] += sum(stacks[p] for p in losers)
    stacks.update({p: 0 for p in losers})
    festival, moves = festival.finish(short, stacks)
    assert moves == () and len(festival.table(short).seats) == 1
    with pytest.raises(IllegalActionError, match=f"hand-for-hand: {short} waits") as refused:
        festival.deal(short)
    assert refused.value.rule == "R24"
    festival, _ = festival.finish(others[0], dict(festival.table(others[0]).start_stacks))
    festival, _ = festival.deal(others[1])
    festival, moves = festival.finish(others[1], dict(festival.table(others[1]).start_stacks))
    assert [m.reason for m in moves] == ["break"] and festival.broken == (short,)
    check(festival, 17 * STACK)
