"""A tournament over several tables: the seat draw, balancing and breaking tables, the final
table (R23: at ten players) and hand-for-hand (R24: from eleven players).

Each table deals and plays its own hands (:class:`engine.table.Table`, one writer each); this
is what the tournament director decides between them, as a frozen value: each verb returns a
new :class:`Festival` and the :class:`Move` s it ordered. Pure (no clock, no I/O): the seat
draws take a seed.

- **Dealing.** :meth:`Festival.deal` starts a hand at a table and gives it a *hand id*,
  festival-wide. In hand-for-hand every table deals one hand a *round*, and a table that has
  finished waits until every table has (R24); all the hands of a round share one id, so that
  players busting in the same round are ranked by their stacks at the start of it (R22),
  whatever table they sat at.
- **Finishing.** :meth:`Festival.finish` takes the table's stacks after the hand (chips stay at
  the table: their sum must not change), takes out the players with none (:class:`Standings`,
  R22/R23), moves the button, and then, while that table is between hands:
  - the *final table* when ten or fewer players remain (all tables idle: at that point
    hand-for-hand has them all between hands): every player drawn to a seat of one table;
  - a table *broken* when the players fit in one table fewer: the table that just finished,
    if it is among the shortest, its players drawn to the open seats of the others;
  - *balancing*: while this table holds two players more than the shortest, the player due
    for its big blind next moves to the shortest table, to the open seat there that posts the
    big blind soonest (he pays it as he would have: no free hand, no blind twice).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from engine.errors import IllegalActionError
from engine.payouts import Standings

__all__ = ["FINAL_TABLE", "HAND_FOR_HAND", "Festival", "FestivalTable", "Move"]

FINAL_TABLE = 10
"""Players at which the final table is formed (R23, 001 §2.9)."""
HAND_FOR_HAND = 11
"""Players at which hand-for-hand starts (R24, 001 §2.13)."""
FINAL_NAME = "Final table"


@dataclass(frozen=True, slots=True)
class Move:
    """A player sent from one seat to another: ``reason`` ``balance``, ``break`` or
    ``final table``."""

    player: str
    from_table: str
    from_seat: int
    to_table: str
    to_seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class FestivalTable:
    """One table: who sits where, the button's seat, and whether a hand is being played."""

    name: str
    seats: tuple[tuple[int, str], ...]
    """``(seat, player)`` of every occupied seat, by seat."""
    button: int
    playing: bool = False
    hand_id: int = 0
    """The hand being played (or the last one)."""
    start_stacks: tuple[tuple[str, int], ...] = ()
    """Each player's stack when that hand started (R22)."""

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(player for _, player in self.seats)

    def seat_of(self, player: str) -> int | None:
        return next((seat for seat, who in self.seats if who == player), None)

    def blind_order(self, seats: Iterable[int] | None = None) -> list[int]:
        """The occupied seats (or ``seats``) clockwise from the seat after the button: the
        next hand's button, small blind, big blind, and so on."""
        taken = sorted(seats if seats is not None else (s for s, _ in self.seats))
        return [s for s in taken if s > self.button] + [s for s in taken if s <= self.button]

    def due_for_big_blind(self) -> str:
        """The player who posts the big blind next hand."""
        order = self.blind_order()
        seat = order[2 % len(order)] if len(order) > 2 else order[-1]
        return dict(self.seats)[seat]

    def _with(self, seats: Iterable[tuple[int, str]]) -> FestivalTable:
        return replace(self, seats=tuple(sorted(seats)))


@dataclass(frozen=True, slots=True)
class Festival:
    """The tables, every player's stack, the standings, and the hand-for-hand rounds."""

    tables: tuple[FestivalTable, ...]
    stacks: tuple[tuple[str, int], ...]
    standings: Standings
    seats_per_table: int = 9
    seed: int = 0
    hands: int = 0
    """Hand ids handed out so far."""
    round_id: int | None = None
    """Hand-for-hand: the id of the round being played (None: not in a round)."""
    dealt: frozenset[str] = field(default_factory=frozenset)
    """Hand-for-hand: the tables that have dealt their hand of this round."""
    draws: int = 0
    """Seat draws made so far (each from its own seeded generator)."""

    # -- the start ----------------------------------------------------------------------

    @classmethod
    def draw(cls, players: Sequence[str], table_names: Sequence[str], *, stack: int,
             seats_per_table: int = 9, seed: int = 0,
             prizes: Sequence[int] = ()) -> Festival:
        """The seat draw: the players spread over the tables as evenly as they go (table
        sizes within one), each to a random seat, each table's button at a random player.

        :raises IllegalActionError: too many players for the tables, fewer than two, two
            players of one name, or a table name twice.
        """
        if not 2 <= seats_per_table <= 10:
            raise IllegalActionError(f"a table seats 2 to 10 players, not {seats_per_table}")
        if len(set(table_names)) != len(table_names) or not table_names:
            raise IllegalActionError("the tables need distinct names")
        if len(players) < 2:
            raise IllegalActionError("a tournament needs at least two players")
        if len(players) > len(table_names) * seats_per_table:
            raise IllegalActionError(f"{len(players)} players do not fit at "
                                     f"{len(table_names)} tables of {seats_per_table}")
        if stack <= 0:
            raise IllegalActionError("the starting stack must be positive")
        standings = Standings.start(players, prizes)
        rng = random.Random(f"{seed}:draw:0")
        order = list(players)
        rng.shuffle(order)
        # Every table named, as long as each gets two players (and as many as it takes).
        count = min(len(table_names), len(order) // 2)
        used = list(table_names[:max(count, -(-len(order) // seats_per_table))])
        groups: list[list[str]] = [[] for _ in used]
        for k, player in enumerate(order):
            groups[k % len(used)].append(player)
        tables = []
        for name, group in zip(used, groups, strict=True):
            seats = rng.sample(range(1, seats_per_table + 1), len(group))
            pairs = sorted(zip(seats, group, strict=True))
            tables.append(FestivalTable(name, tuple(pairs), rng.choice(pairs)[0]))
        return cls(tuple(tables), tuple((p, stack) for p in players), standings,
                   seats_per_table, seed, draws=1)

    # -- looking ------------------------------------------------------------------------

    @property
    def remaining(self) -> int:
        return self.standings.remaining

    @property
    def hand_for_hand(self) -> bool:
        """R24: from eleven players left until the final table."""
        return len(self.tables) > 1 and self.remaining <= HAND_FOR_HAND

    def table(self, name: str) -> FestivalTable:
        for table in self.tables:
            if table.name == name:
                return table
        raise IllegalActionError(f"there is no table {name!r}")

    def can_deal(self, name: str) -> bool:
        """Whether table ``name`` may start its next hand now."""
        try:
            self._check_deal(self.table(name))
        except IllegalActionError:
            return False
        return True

    def _check_deal(self, table: FestivalTable) -> None:
        if table.playing:
            raise IllegalActionError(f"{table.name} is playing a hand")
        if len(table.seats) < 2:
            raise IllegalActionError(f"{table.name} has fewer than two players")
        if self.hand_for_hand and table.name in self.dealt:
            waiting = ", ".join(t.name for t in self.tables if t.name not in self.dealt
                                or t.playing)
            raise IllegalActionError(
                f"hand-for-hand: {table.name} waits until every table has finished this "
                f"round's hand ({waiting})", rule="R24")

    # -- the verbs ----------------------------------------------------------------------

    def deal(self, name: str) -> tuple[Festival, int]:
        """Table ``name`` starts a hand; its id (shared by a hand-for-hand round's hands).

        :raises IllegalActionError: the table is playing, has fewer than two players, or
            waits for the other tables (R24).
        """
        table = self.table(name)
        self._check_deal(table)
        hands, round_id, dealt = self.hands, self.round_id, self.dealt
        if self.hand_for_hand:
            if round_id is None:
                hands += 1
                round_id = hands
            hand_id = round_id
            dealt = dealt | {name}
        else:
            hands += 1
            hand_id = hands
        stacks = dict(self.stacks)
        started = replace(table, playing=True, hand_id=hand_id,
                          start_stacks=tuple((p, stacks[p]) for p in table.players))
        return replace(self, tables=self._replaced(started), hands=hands, round_id=round_id,
                       dealt=dealt), hand_id

    def finish(self, name: str, stacks: Mapping[str, int]) -> tuple[Festival, tuple[Move, ...]]:
        """Table ``name``'s hand is over with ``stacks`` (every player of the table; 0 for
        one who busted); the moves that follow (final table, a break, balancing).

        :raises IllegalActionError: no hand is being played there, a player missing or
            foreign, a negative stack, or chips that appeared or vanished.
        """
        table = self.table(name)
        if not table.playing:
            raise IllegalActionError(f"{name} is not playing a hand")
        start = dict(table.start_stacks)
        if set(stacks) != set(start):
            raise IllegalActionError(f"{name}: the stacks must be those of its players "
                                     f"({', '.join(sorted(start))})")
        if any(chips < 0 for chips in stacks.values()):
            raise IllegalActionError(f"{name}: a stack cannot be negative")
        if sum(stacks.values()) != sum(start.values()):
            raise IllegalActionError(f"{name}: the chips after the hand "
                                     f"({sum(stacks.values()):,}) are not those before it "
                                     f"({sum(start.values()):,})")
        busted = {p: start[p] for p, chips in stacks.items() if chips == 0}
        standings = self.standings.bust(table.hand_id, busted) if busted else self.standings
        kept = table._with((seat, player) for seat, player in table.seats
                           if player not in busted)
        everyone = {**dict(self.stacks), **stacks}
        button = kept.blind_order()[0] if kept.seats else table.button  # the next player's
        done = replace(kept, playing=False, button=button)
        festival = replace(
            self, tables=self._replaced(done), standings=standings,
            stacks=tuple((p, c) for p, c in everyone.items() if p not in busted))
        festival = festival._round_over()
        return festival._rearranged(name)

    # -- between hands ------------------------------------------------------------------

    def _round_over(self) -> Festival:
        """Hand-for-hand: a new round once every table has dealt and finished this one."""
        if self.round_id is None:
            return self
        live = [t for t in self.tables if len(t.seats) >= 2]
        if any(t.playing for t in self.tables) or \
                any(t.name not in self.dealt for t in live):
            return self
        return replace(self, round_id=None, dealt=frozenset())

    def _rearranged(self, name: str) -> tuple[Festival, tuple[Move, ...]]:
        festival: Festival = self
        moves: tuple[Move, ...] = ()
        if len(festival.tables) > 1 and festival.remaining <= FINAL_TABLE:
            if all(not t.playing for t in festival.tables):
                return festival._final_table()
            return festival, moves
        festival, moves = festival._break(name)
        if moves:
            return festival, moves
        return festival._balance(name)

    def _final_table(self) -> tuple[Festival, tuple[Move, ...]]:
        rng = self._rng()
        players = [(t.name, seat, p) for t in self.tables for seat, p in t.seats]
        seats = rng.sample(range(1, max(FINAL_TABLE, len(players)) + 1), len(players))
        moves = tuple(Move(p, table, seat, FINAL_NAME, new, "final table")
                      for (table, seat, p), new in zip(players, seats, strict=True))
        pairs = sorted((m.to_seat, m.player) for m in moves)
        final = FestivalTable(FINAL_NAME, tuple(pairs), rng.choice(pairs)[0])
        return replace(self, tables=(final,), round_id=None, dealt=frozenset(),
                       draws=self.draws + 1), moves

    def _break(self, name: str) -> tuple[Festival, tuple[Move, ...]]:
        """Break table ``name`` when the players fit at one table fewer and it is among the
        shortest: its players drawn to the open seats of the others."""
        table = self.table(name)
        others = [t for t in self.tables if t.name != name]
        if not others or table.playing:
            return self, ()
        fits = self.remaining <= len(others) * self.seats_per_table
        shortest = min(len(t.seats) for t in self.tables)
        if not fits or len(table.seats) > shortest:
            return self, ()
        rng = self._rng()
        open_seats = [(t.name, s) for t in others for s in range(1, self.seats_per_table + 1)
                      if s not in dict(t.seats)]
        rng.shuffle(open_seats)
        # Spread: the shortest tables fill first, one player at a time.
        sizes = {t.name: len(t.seats) for t in others}
        moves: list[Move] = []
        for seat, player in table.seats:
            target = min(sizes, key=lambda n: (sizes[n], n))
            to_seat = next(s for t, s in open_seats if t == target)
            open_seats.remove((target, to_seat))
            sizes[target] += 1
            moves.append(Move(player, name, seat, target, to_seat, "break"))
        tables = []
        for t in others:
            arriving = [(m.to_seat, m.player) for m in moves if m.to_table == t.name]
            tables.append(t._with([*t.seats, *arriving]))
        return replace(self, tables=tuple(tables), dealt=self.dealt - {name},
                       draws=self.draws + 1)._round_over(), tuple(moves)

    def _balance(self, name: str) -> tuple[Festival, tuple[Move, ...]]:
        """Move players from table ``name`` (between hands) while it holds two more than the
        shortest table."""
        festival: Festival = self
        moves: list[Move] = []
        while True:
            table = festival.table(name)
            short = min(festival.tables, key=lambda t: (len(t.seats), t.name))
            if len(table.seats) - len(short.seats) < 2:
                return festival, tuple(moves)
            player = table.due_for_big_blind()
            from_seat = table.seat_of(player)
            assert from_seat is not None
            to_seat = _soonest_big_blind(short, festival.seats_per_table)
            moves.append(Move(player, name, from_seat, short.name, to_seat, "balance"))
            left = table._with([(s, p) for s, p in table.seats if p != player])
            joined = short._with([*short.seats, (to_seat, player)])
            festival = replace(festival, tables=tuple(
                left if t.name == name else joined if t.name == short.name else t
                for t in festival.tables))

    def _replaced(self, table: FestivalTable) -> tuple[FestivalTable, ...]:
        return tuple(table if t.name == table.name else t for t in self.tables)

    def _rng(self) -> random.Random:
        return random.Random(f"{self.seed}:draw:{self.draws}")


def _soonest_big_blind(table: FestivalTable, seats_per_table: int) -> int:
    """The open seat of ``table`` whose player would post the big blind soonest."""
    taken = {s for s, _ in table.seats}
    best: tuple[int, int] | None = None
    for seat in range(1, seats_per_table + 1):
        if seat in taken:
            continue
        order = table.blind_order([*taken, seat])
        wait = (order.index(seat) - 2) % len(order)
        if best is None or wait < best[0]:
            best = (wait, seat)
    if best is None:
        raise IllegalActionError(f"{table.name} has no open seat")
    return best[1]
