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
  - the *final table* when ten or fewer players remain (all tables idle and, in
    hand-for-hand, every table done with the round's hand): every player drawn to a seat of
    one table;
  - a table *broken* when the players fit in one table fewer: the table that just finished,
    if it is among the shortest, its players drawn to the open seats of the others
    (001 §2.10);
  - *balancing*: while this table holds two players more than the shortest, the player due
    for its big blind next moves to the shortest table, to the open seat there that posts the
    big blind soonest (he pays it as he would have: no free hand, no blind twice; 001 §2.11).

  In a hand-for-hand round the rules move nobody until every table has finished the round's
  hand (R24, 001 §2.13: the tables deal each hand together, so the floor balances and breaks
  between those hands); a player moved sooner would play the round's hand twice or miss it.
  The hand that ends the round rearranges every table: breaks first, then balancing.

The director's hands (:meth:`Festival.move`, :meth:`Festival.break_table`,
:meth:`Festival.set_hand_for_hand`, each with its ``verify_`` and ``can_``; an order still
waiting taken back with :meth:`Festival.withdraw`): a player moved or a table broken by
order. Players move between hands, as on the floor: an order for a
table that is playing waits as an :class:`Order` and is carried out as soon as that table
has finished its hand (and, in hand-for-hand, once the player would play no round's hand
twice and miss none, R24), before the rules' own moves; an order the festival can no longer
carry out by then (the player busted, the table filled up, the final table formed) lapses,
with the reason. Hand-for-hand switched on by hand follows R24 as the automatic one does
(rounds, R22 for the round's busts); switched off with more than eleven players left, the
rule book's start at eleven still applies; switched off at eleven or fewer, it stays off.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from engine.errors import IllegalActionError
from engine.payouts import Standings

__all__ = ["FINAL_TABLE", "HAND_FOR_HAND", "Festival", "FestivalTable", "Lapse", "Move",
           "Order"]

FINAL_TABLE = 10
"""Players at which the final table is formed (R23, 001 §2.9)."""
HAND_FOR_HAND = 11
"""Players at which hand-for-hand starts (R24, 001 §2.13)."""
FINAL_NAME = "Final table"


@dataclass(frozen=True, slots=True)
class Move:
    """A player sent from one seat to another: ``reason`` ``balance``, ``break``, ``final
    table`` (the rules'), ``director`` (a move ordered by hand) or ``director's break``."""

    player: str
    from_table: str
    from_seat: int
    to_table: str
    to_seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class Order:
    """A move (``player`` to ``to_table``, at ``to_seat``; 0: the open seat that posts the
    big blind soonest, chosen when he moves) or a break (``break_table``) the director
    ordered, waiting for its table to be between hands."""

    player: str = ""
    to_table: str = ""
    to_seat: int = 0
    break_table: str = ""

    def describe(self) -> str:
        if self.break_table:
            return f"break {self.break_table}"
        seat = f" seat {self.to_seat}" if self.to_seat else ""
        return f"move {self.player} to {self.to_table}{seat}"


@dataclass(frozen=True, slots=True)
class Lapse:
    """An order the festival could no longer carry out when its table was between hands."""

    order: Order
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
    orders: tuple[Order, ...] = ()
    """The director's orders waiting for their tables to be between hands, oldest first."""
    lapsed: tuple[Lapse, ...] = ()
    """The director's orders that could not be carried out, oldest first."""
    broken: tuple[str, ...] = ()
    """The tables broken so far (by the rules or by order), in order."""
    ordered_hand_for_hand: bool | None = None
    """Hand-for-hand as the director switched it (None: as the rules say, R24)."""
    ordered_at: int = 0
    """The players left when the director switched hand-for-hand."""

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
        """R24: from eleven players left until the final table; or as the director switched
        it: on until he switches it off (or one table is left); off, until eleven players
        are left when he switched it off with more (the rule book's start still applies)."""
        if len(self.tables) < 2:
            return False
        ordered = self.ordered_hand_for_hand
        if ordered or (ordered is not None and (self.ordered_at <= HAND_FOR_HAND
                                                or self.remaining > HAND_FOR_HAND)):
            return bool(ordered)
        return self.remaining <= HAND_FOR_HAND

    def table(self, name: str) -> FestivalTable:
        for table in self.tables:
            if table.name == name:
                return table
        if name in self.broken:
            raise IllegalActionError(f"{name} was broken: its seats are closed")
        raise IllegalActionError(f"there is no table {name!r}")

    def table_of(self, player: str) -> FestivalTable:
        """The table where ``player`` sits.

        :raises IllegalActionError: a name that is not a player's, or a player who busted.
        """
        for table in self.tables:
            if player in table.players:
                return table
        if any(bust.name == player for bust in self.standings.busts):
            raise IllegalActionError(f"{player} is out of the festival: he busted")
        raise IllegalActionError(f"there is no player {player!r} in the festival")

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
        if self.hand_for_hand and self.round_id is not None:
            waiting = ", ".join(t.name for t in self.tables if t.playing or (
                t.name not in self.dealt and len(t.seats) >= 2))
            # A table left with one player in the round waits too: the rules fill or
            # break it once the round is over.
            if waiting and (table.name in self.dealt or len(table.seats) < 2):
                raise IllegalActionError(
                    f"hand-for-hand: {table.name} waits until every table has finished "
                    f"this round's hand ({waiting})", rule="R24")
        if len(table.seats) < 2:
            raise IllegalActionError(f"{table.name} has fewer than two players")

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
        ended = festival._round_over()
        if self.round_id is not None and ended.round_id is None:
            # The round's last hand: every table between hands, the rules' moves now (R24).
            return ended._rearranged([t.name for t in ended.tables])
        return ended._rearranged([name])

    # -- the director's hands -----------------------------------------------------------

    def verify_move(self, player: str, to_table: str, to_seat: int = 0) -> None:
        """Whether the director may order ``player`` to ``to_table`` (at ``to_seat``; 0:
        the open seat that posts the big blind soonest), counting the orders waiting.

        :raises IllegalActionError: one table left or the final table due (R23), an
            unknown or busted player, an unknown or broken table, his own table, a full
            table, a seat taken or promised, an order already waiting for him or for a
            table to be broken, or tables that would differ by two players or more.
        """
        self._verify_two_tables("moves a player")
        table = self.table_of(player)
        target = self.table(to_table)
        if target.name == table.name:
            raise IllegalActionError(f"{player} already sits at {to_table}")
        for order in self.orders:
            if order.player == player:
                raise IllegalActionError(f"{player} is already to move: {order.describe()} "
                                         f"after {table.name}'s hand")
            if order.break_table in (table.name, to_table):
                raise IllegalActionError(f"{order.break_table} is to be broken after its "
                                         "hand: its players are dealt from there")
        if not 0 <= to_seat <= self.seats_per_table:
            raise IllegalActionError(f"{to_table} has seats 1 to {self.seats_per_table}, "
                                     f"not {to_seat}")
        if to_seat:
            sitting = dict(target.seats).get(to_seat)
            if sitting is not None:
                raise IllegalActionError(f"seat {to_seat} at {to_table} is taken "
                                         f"({sitting})")
            promised = next((o.player for o in self.orders if o.to_table == to_table
                             and o.to_seat == to_seat), None)
            if promised is not None:
                raise IllegalActionError(f"seat {to_seat} at {to_table} is promised to "
                                         f"{promised}")
        sizes = self._sizes_after_orders()
        sizes[table.name] -= 1
        sizes[to_table] += 1
        if sizes[to_table] > self.seats_per_table:
            raise IllegalActionError(f"{to_table} is full: its {self.seats_per_table} seats "
                                     "are taken or promised")
        shortest = min(sizes, key=lambda name: (sizes[name], name))
        if sizes[to_table] - sizes[shortest] >= 2:
            raise IllegalActionError(
                f"after this move {to_table} would hold {sizes[to_table]} players and "
                f"{shortest} {sizes[shortest]}: the tables are kept within one player of "
                "each other (balancing would move a player straight back)")

    def can_move(self, player: str, to_table: str, to_seat: int = 0) -> bool:
        try:
            self.verify_move(player, to_table, to_seat)
        except IllegalActionError:
            return False
        return True

    def move(self, player: str, to_table: str, to_seat: int = 0,
             ) -> tuple[Festival, tuple[Move, ...]]:
        """The director moves ``player`` to ``to_table``: at once when his table is between
        hands (the move made), otherwise once it is (an :class:`Order`, no move yet).

        :raises IllegalActionError: see :meth:`verify_move`.
        """
        self.verify_move(player, to_table, to_seat)
        ordered = replace(self, orders=(*self.orders, Order(player, to_table, to_seat)))
        return ordered._carry_out()

    def verify_break_table(self, name: str) -> None:
        """Whether the director may break table ``name``: its players dealt to the open
        seats of the others, as the rules break a table.

        :raises IllegalActionError: an unknown or broken table, two tables or fewer left
            or the final table due (R23), players who would not fit, or orders waiting
            that concern the table.
        """
        self._verify_two_tables("breaks a table")
        table = self.table(name)
        if len(self.tables) == 2:
            raise IllegalActionError(
                f"two tables are left: {name} is not broken into one, the final table forms "
                f"at {FINAL_TABLE} players (R23)", rule="R23")
        for order in self.orders:
            if order.break_table == name:
                raise IllegalActionError(f"{name} is already to be broken after its hand")
            if order.player in table.players or order.to_table == name:
                raise IllegalActionError(f"an order waits at {name} ({order.describe()}): "
                                         "break it once that is done")
        sizes = self._sizes_after_orders()
        seats = (len(self.tables) - 1) * self.seats_per_table
        if sum(sizes.values()) > seats:
            raise IllegalActionError(
                f"{sum(sizes.values())} players do not fit at the {len(self.tables) - 1} "
                f"other tables ({seats} seats): {name} cannot be broken")

    def can_break_table(self, name: str) -> bool:
        try:
            self.verify_break_table(name)
        except IllegalActionError:
            return False
        return True

    def break_table(self, name: str) -> tuple[Festival, tuple[Move, ...]]:
        """The director breaks table ``name``: at once when it is between hands (its moves,
        reason ``director's break``), otherwise once it is (an :class:`Order`).

        :raises IllegalActionError: see :meth:`verify_break_table`.
        """
        self.verify_break_table(name)
        return replace(self, orders=(*self.orders, Order(break_table=name)))._carry_out()

    def verify_hand_for_hand(self, on: bool) -> None:
        """Whether the director may switch hand-for-hand ``on`` (or off).

        :raises IllegalActionError: one table left (nothing to wait for), hand-for-hand
            already as asked, or switched off in a round with the final table due (R23).
        """
        if len(self.tables) < 2:
            raise IllegalActionError("one table is left: hand-for-hand is between tables "
                                     "(R24)", rule="R24")
        if on == self.hand_for_hand:
            raise IllegalActionError(f"hand-for-hand is {'on' if on else 'off'} already",
                                     rule="R24")
        if not on and self.round_id is not None and self.remaining <= FINAL_TABLE:
            raise IllegalActionError(
                f"{self.remaining} players are left: the final table forms when every table "
                "has finished this round's hand (R23, R24)", rule="R23")

    def can_set_hand_for_hand(self, on: bool) -> bool:
        try:
            self.verify_hand_for_hand(on)
        except IllegalActionError:
            return False
        return True

    def set_hand_for_hand(self, on: bool) -> tuple[Festival, tuple[Move, ...]]:
        """The director switches hand-for-hand ``on`` (a round starts with the next hand
        dealt: R24 as from eleven players) or off (the round ends: a table that waits may
        deal; the tables that finished in it are balanced, or broken, once they finish
        their next hand). Off with more than eleven players left, R24's start at eleven
        still applies. Not off in a round once ten players are left: the final table forms
        when the round is over (R23). The moves: the director's orders that waited for the
        round to end and are carried out now.

        :raises IllegalActionError: see :meth:`verify_hand_for_hand`.
        """
        self.verify_hand_for_hand(on)
        festival = replace(self, ordered_hand_for_hand=on, ordered_at=self.remaining)
        if not on:
            festival = replace(festival, round_id=None, dealt=frozenset())
        return festival._carry_out()

    def verify_withdraw(self, player: str = "", break_table: str = "") -> None:
        """Whether the director may withdraw his order to move ``player`` (or to break
        ``break_table``).

        :raises IllegalActionError: no such order waits (carried out, lapsed or never
            given), or neither or both named.
        """
        self._order_waiting(player, break_table)

    def _order_waiting(self, player: str, break_table: str) -> Order:
        if bool(player) == bool(break_table):
            raise IllegalActionError("name the player whose move, or the table whose break, "
                                     "is withdrawn")
        for order in self.orders:
            if (player and order.player == player) or \
                    (break_table and order.break_table == break_table):
                return order
        what = f"to move {player}" if player else f"to break {break_table}"
        done = next((lapse.reason for lapse in reversed(self.lapsed)
                     if (player and lapse.order.player == player)
                     or (break_table and lapse.order.break_table == break_table)), None)
        if done is not None:
            raise IllegalActionError(f"no order {what} waits: it lapsed ({done})")
        raise IllegalActionError(f"no order {what} waits: it was carried out, or never "
                                 "given")

    def can_withdraw(self, player: str = "", break_table: str = "") -> bool:
        try:
            self.verify_withdraw(player, break_table)
        except IllegalActionError:
            return False
        return True

    def withdraw(self, player: str = "", break_table: str = "") -> Festival:
        """The director withdraws his order waiting to move ``player`` (or to break
        ``break_table``): it is not carried out; a seat it promised is open again. Nobody
        moves now (the orders after it still wait for their own tables).

        :raises IllegalActionError: see :meth:`verify_withdraw`.
        """
        order = self._order_waiting(player, break_table)
        return replace(self, orders=tuple(o for o in self.orders if o != order))

    def _verify_two_tables(self, what: str) -> None:
        if len(self.tables) < 2:
            raise IllegalActionError(f"one table is left: nobody {what}")
        if self.remaining <= FINAL_TABLE:
            raise IllegalActionError(
                f"{self.remaining} players are left: the final table forms when every table "
                "has finished its hand (R23)", rule="R23")

    def _sizes_after_orders(self) -> dict[str, int]:
        sizes = {t.name: len(t.seats) for t in self.tables}
        for order in self.orders:
            if order.player:
                sizes[self.table_of(order.player).name] -= 1
                sizes[order.to_table] += 1
        return sizes

    def _promised(self, name: str) -> set[int]:
        return {o.to_seat for o in self.orders if o.to_table == name and o.to_seat}

    def _ready(self, order: Order) -> bool:
        """Whether ``order``'s tables are between hands: the player's (or the one to
        break) not playing; in a hand-for-hand round, the player would play no round's
        hand twice and miss none (both tables dealt it, or neither: R24); a break, once the
        round is over."""
        if order.break_table:  # in a round: once it is over (R24)
            return not self.table(order.break_table).playing and self.round_id is None
        table = self.table_of(order.player)
        if table.playing:
            return False
        if self.round_id is not None:
            return (table.name in self.dealt) == (order.to_table in self.dealt)
        return True

    def _carry_out(self) -> tuple[Festival, tuple[Move, ...]]:
        """The waiting orders whose tables are between hands, oldest first: carried out,
        or lapsed when the festival no longer allows them."""
        festival: Festival = self
        moves: list[Move] = []
        for order in self.orders:
            waiting = tuple(o for o in festival.orders if o != order)
            try:
                if not festival._ready(order):
                    continue
                rest = replace(festival, orders=waiting)
                if order.break_table:
                    rest.verify_break_table(order.break_table)
                    festival, made = rest._deal_out(order.break_table, "director's break")
                    moves.extend(made)
                    continue
                rest.verify_move(order.player, order.to_table, order.to_seat)
                target = rest.table(order.to_table)
                seat = order.to_seat or _soonest_big_blind(
                    target, rest.seats_per_table, rest._promised(target.name))
                festival, move = rest._seat_elsewhere(order.player, target.name, seat,
                                                      "director")
                moves.append(move)
            except IllegalActionError as refused:
                festival = replace(festival, orders=waiting,
                                   lapsed=(*festival.lapsed, Lapse(order, str(refused))))
        return festival, tuple(moves)

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

    def _rearranged(self, names: Sequence[str]) -> tuple[Festival, tuple[Move, ...]]:
        """The moves after tables ``names`` finished their hands (between hands): the final
        table, the director's orders, a break, balancing.

        In a hand-for-hand round the rules move nobody until every table has finished the
        round's hand (R24, 001 §2.13: the tables deal each hand together): a player moved
        before then would sit down at a table that has not dealt the round's hand yet and
        play it twice, or leave one that has not dealt it and miss it; players busting in
        the round would not all have played it when the final table forms (R22, R23). Once
        the round is over, every table is looked at (``names``: all of them)."""
        festival: Festival = self
        if len(festival.tables) > 1 and festival.remaining <= FINAL_TABLE:
            if festival.round_id is None and all(not t.playing for t in festival.tables):
                return festival._final_table()
            return festival, ()
        festival, ordered = festival._carry_out()  # they wait for the round themselves
        if festival.round_id is not None:
            return festival, ordered
        moves = list(ordered)
        broke = True
        while broke:  # a break (001 §2.10), the shortest table first
            broke = False
            for name in sorted((n for n in names if n not in festival.broken),
                               key=lambda n: (len(festival.table(n).seats), n)):
                festival, made = festival._break(name)
                if made:
                    moves.extend(made)
                    broke = True
                    break
        for name in names:  # balancing (001 §2.11)
            if name not in festival.broken:
                festival, made = festival._balance(name)
                moves.extend(made)
        return festival, tuple(moves)

    def _final_table(self) -> tuple[Festival, tuple[Move, ...]]:
        rng = self._rng()
        players = [(t.name, seat, p) for t in self.tables for seat, p in t.seats]
        seats = rng.sample(range(1, max(FINAL_TABLE, len(players)) + 1), len(players))
        moves = tuple(Move(p, table, seat, FINAL_NAME, new, "final table")
                      for (table, seat, p), new in zip(players, seats, strict=True))
        pairs = sorted((m.to_seat, m.player) for m in moves)
        final = FestivalTable(FINAL_NAME, tuple(pairs), rng.choice(pairs)[0])
        lapsed = tuple(Lapse(order, "the final table formed (R23)") for order in self.orders)
        return replace(self, tables=(final,), round_id=None, dealt=frozenset(),
                       draws=self.draws + 1, orders=(), lapsed=self.lapsed + lapsed), moves

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
        return self._deal_out(name, "break")

    def _deal_out(self, name: str, reason: str) -> tuple[Festival, tuple[Move, ...]]:
        """Table ``name`` broken: its players drawn to the open seats of the others, the
        shortest tables filling first, one player at a time."""
        table = self.table(name)
        others = [t for t in self.tables if t.name != name]
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
            moves.append(Move(player, name, seat, target, to_seat, reason))
        tables = []
        for t in others:
            arriving = [(m.to_seat, m.player) for m in moves if m.to_table == t.name]
            tables.append(t._with([*t.seats, *arriving]))
        # The orders waiting for this table (a move to it, its own break) lapse with it.
        ended = [o for o in self.orders if name in (o.to_table, o.break_table)]
        lapsed = tuple(Lapse(o, f"{name} was broken: its seats are closed") for o in ended)
        return replace(self, tables=tuple(tables), dealt=self.dealt - {name},
                       broken=(*self.broken, name), draws=self.draws + 1,
                       orders=tuple(o for o in self.orders if o not in ended),
                       lapsed=self.lapsed + lapsed)._round_over(), tuple(moves)

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
            to_seat = _soonest_big_blind(short, festival.seats_per_table,
                                         festival._promised(short.name))
            festival, move = festival._seat_elsewhere(player, short.name, to_seat, "balance")
            moves.append(move)

    def _seat_elsewhere(self, player: str, to_table: str, to_seat: int, reason: str,
                        ) -> tuple[Festival, Move]:
        table = self.table_of(player)
        from_seat = table.seat_of(player)
        assert from_seat is not None
        left = table._with([(s, p) for s, p in table.seats if p != player])
        joined = self.table(to_table)
        joined = joined._with([*joined.seats, (to_seat, player)])
        festival = replace(self, tables=tuple(
            left if t.name == table.name else joined if t.name == to_table else t
            for t in self.tables))
        return festival, Move(player, table.name, from_seat, to_table, to_seat, reason)

    def _replaced(self, table: FestivalTable) -> tuple[FestivalTable, ...]:
        return tuple(table if t.name == table.name else t for t in self.tables)

    def _rng(self) -> random.Random:
        return random.Random(f"{self.seed}:draw:{self.draws}")


def _soonest_big_blind(table: FestivalTable, seats_per_table: int,
                       promised: Iterable[int] = ()) -> int:
    """The open seat of ``table`` (none of ``promised``) whose player would post the big
    blind soonest."""
    taken = {s for s, _ in table.seats}
    best: tuple[int, int] | None = None
    for seat in range(1, seats_per_table + 1):
        if seat in taken or seat in promised:
            continue
        order = table.blind_order([*taken, seat])
        wait = (order.index(seat) - 2) % len(order)
        if best is None or wait < best[0]:
            best = (wait, seat)
    if best is None:
        raise IllegalActionError(f"{table.name} has no open seat")
    return best[1]
