"""The state of one hand and how events change it: the core under :class:`engine.hand.Hand`.

:class:`HandState` holds the per-position arrays and applies every event through one
function, :meth:`HandState._apply`; :meth:`HandState._advance` derives the events that follow
a command (absent folds R11, the end of a betting round, all-in showdowns R14, the showdown
order R15, pots R16 and odd chips R17); :meth:`HandState.legal_actions` answers whose turn it
is and what he may do (R6, R7, R10). Commands live in :mod:`engine.hand`.
"""

from __future__ import annotations

from engine.actions import LegalActions, Restriction
from engine.cards import Card
from engine.errors import IllegalActionError
from engine.evaluator import evaluate, evaluate_strength
from engine.events import (
    ActionKind,
    ActionTaken,
    ActionUndone,
    AntePosted,
    BetReturned,
    BetsCollected,
    BlindPosted,
    BoardDealt,
    CardBurned,
    Event,
    HandEnded,
    HandMucked,
    HandShown,
    HandStarted,
    HandVoided,
    HoleCardsDealt,
    PlayerRestricted,
    PotAwarded,
    Street,
    StreetStarted,
)
from engine.pots import Pot, build_pots, split_pot

BETTING_STREETS = (Street.PREFLOP, Street.FLOP, Street.TURN, Street.RIVER)


class HandState:
    """The state of one hand; see :class:`engine.hand.Hand` for the commands."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        """Every event of the hand in order, undos included (the append-only log)."""
        self._effective: list[Event] = []
        self._reset()

    # --- state --------------------------------------------------------------------------

    def _reset(self) -> None:
        self.started: HandStarted | None = None
        self.seats: tuple[int, ...] = ()
        self.names: tuple[str, ...] = ()
        self._index: dict[int, int] = {}
        self.start_stacks: tuple[int, ...] = ()
        self._stacks: list[int] = []
        self._bets: list[int] = []
        self._contributed: list[int] = []
        self._antes: list[int] = []
        self._folded: list[bool] = []
        self._mucked: list[bool] = []
        self._hole: list[tuple[Card | None, ...] | None] = []
        self._shown: list[bool] = []
        self._restricted: list[bool] = []
        self._absent: list[bool] = []
        self._acted: list[bool] = []
        self._acted_level: list[int] = []
        self.board: list[Card] = []
        self.street: Street = Street.PREFLOP
        self._level = 0
        self._min_raise = 0
        self._actor: int | None = None
        self._round_closed = False
        self._aggressor: int | None = None
        self._last_short: int | None = None
        self._bb_index = 0
        self._opened = False
        self._awarded: list[PotAwarded] = []
        self._busted: tuple[int, ...] = ()

    def _record(self, event: Event) -> None:
        self.events.append(event)
        if isinstance(event, ActionUndone):
            del self._effective[len(self._effective) - event.count:]
            self._rebuild()
        elif not isinstance(event, CardBurned):
            self._effective.append(event)
            self._apply(event)

    def _emit(self, event: Event) -> Event:
        self._record(event)
        return event

    def _rebuild(self) -> None:
        self._reset()
        for event in self._effective:
            self._apply(event)

    @property
    def effective_events(self) -> tuple[Event, ...]:
        """The events that make the current state: the log with undone events removed and
        burn cards left out."""
        return tuple(self._effective)

    @property
    def stacks(self) -> tuple[int, ...]:
        """Chips behind per position (bets on this street not included)."""
        return tuple(self._stacks)

    @property
    def bets(self) -> tuple[int, ...]:
        """Chips in front of each position on this street, not yet collected."""
        return tuple(self._bets)

    @property
    def contributions(self) -> tuple[int, ...]:
        """Each position's total chips put in this hand (antes and bets)."""
        return tuple(self._contributed)

    @property
    def is_over(self) -> bool:
        return self.street in (Street.COMPLETE, Street.VOID)

    @property
    def actor_seat(self) -> int | None:
        """The seat whose turn it is (R3, R4, R9), or None."""
        return None if self._actor is None or self.is_over else self.seats[self._actor]

    @property
    def misdeal_window(self) -> bool:
        """R13: True until two players have acted; within it a misdeal voids the deal (an
        identical card in the deck voids the hand at any time)."""
        acted = {e.seat for e in self._effective
                 if isinstance(e, ActionTaken) and e.is_command}
        return not self.is_over and len(acted) < 2

    @property
    def hand_number(self) -> int:
        return self.started.hand_number if self.started else 0

    @property
    def big_blind(self) -> int:
        return self.started.big_blind if self.started else 0

    @property
    def live_seats(self) -> tuple[int, ...]:
        """Seats still holding a hand (not folded, not mucked)."""
        return tuple(s for i, s in enumerate(self.seats) if self._live(i))

    def hole_cards(self, seat: int) -> tuple[Card | None, ...] | None:
        """The seat's hole cards as far as known (None: not dealt)."""
        return self._hole[self._position(seat)]

    def is_shown(self, seat: int) -> bool:
        return self._shown[self._position(seat)]

    def is_folded(self, seat: int) -> bool:
        return self._folded[self._position(seat)]

    def is_mucked(self, seat: int) -> bool:
        return self._mucked[self._position(seat)]

    def stack(self, seat: int) -> int:
        return self._stacks[self._position(seat)]

    def pots(self) -> tuple[Pot, ...]:
        """Main pot then side pots with the seats that can win each (R16); current street's
        bets included; empty once the hand is over (the pots have been awarded)."""
        if self.is_over:
            return ()
        dead = sum(self._antes) if self._dead_antes else 0
        contributions = [c - (a if self._dead_antes else 0)
                         for c, a in zip(self._contributed, self._antes, strict=True)]
        out = [not self._live(i) for i in range(len(self.seats))]
        return build_pots(contributions, out, seats=self.seats, dead=dead)

    @property
    def total_pot(self) -> int:
        return sum(self._contributed) - sum(a.amount for a in self._awarded)

    @property
    def awards(self) -> tuple[PotAwarded, ...]:
        return tuple(self._awarded)

    @property
    def busted(self) -> tuple[int, ...]:
        """Seats busted in this hand, best finish first (R22)."""
        return self._busted

    # --- helpers -------------------------------------------------------------------------

    @property
    def _dead_antes(self) -> bool:
        return self.started.dead_antes if self.started else True

    def _position(self, seat: int) -> int:
        try:
            return self._index[seat]
        except KeyError:
            raise IllegalActionError(f"seat {seat} is not in this hand "
                                     f"(seats {', '.join(map(str, self.seats))})") from None

    def _who(self, i: int) -> str:
        seat, name = self.seats[i], self.names[i]
        return f"Seat {seat}" if name == f"Seat {seat}" else f"Seat {seat} ({name})"

    def _live(self, i: int) -> bool:
        return not self._folded[i] and not self._mucked[i]

    def _level_for_calls(self) -> int:
        """The amount to call to (R5): live rule counts the full big blind pre-flop."""
        assert self.started is not None
        if self.street is Street.PREFLOP and self.started.short_call_rule == "live":
            return max(self._level, max(self.started.blinds))
        return self._level

    def _with_chips(self) -> list[int]:
        return [i for i in range(len(self.seats)) if self._live(i) and self._stacks[i] > 0]

    def _needs_action(self, i: int) -> bool:
        if not self._live(i) or self._stacks[i] == 0:
            return False
        level = self._level_for_calls()
        if self._acted[i] and self._bets[i] >= level:
            return False
        others = [j for j in self._with_chips() if j != i]
        return bool(others) or self._bets[i] < level

    def _next_actor(self, start: int) -> int | None:
        count = len(self.seats)
        for step in range(count):
            i = (start + step) % count
            if self._needs_action(i):
                return i
        return None

    def _strength(self, i: int) -> int:
        """The hand strength of a position with known cards on a full board (R18)."""
        hole = self._hole[i]
        assert hole is not None and len(self.board) == 5
        return evaluate_strength([c for c in hole if c is not None] + self.board)

    def _describe_hand(self, i: int) -> str:
        hole = self._hole[i]
        assert hole is not None
        return evaluate([c for c in hole if c is not None] + self.board).describe()

    # --- applying events (the only place state changes) ----------------------------------

    def _apply(self, event: Event) -> None:
        if isinstance(event, HandStarted):
            self._start(event)
        elif isinstance(event, AntePosted):
            i = self._index[event.seat]
            self._stacks[i] -= event.amount
            self._contributed[i] += event.amount
            self._antes[i] += event.amount
        elif isinstance(event, BlindPosted):
            i = self._index[event.seat]
            self._stacks[i] -= event.amount
            self._bets[i] += event.amount
            self._contributed[i] += event.amount
            self._level = max(self._level, self._bets[i])
        elif isinstance(event, StreetStarted):
            self._start_street(event.street)
        elif isinstance(event, HoleCardsDealt):
            self._hole[self._index[event.seat]] = event.cards
        elif isinstance(event, BoardDealt):
            self.board.extend(event.cards)
        elif isinstance(event, ActionTaken):
            self._apply_action(event)
        elif isinstance(event, BetReturned):
            i = self._index[event.seat]
            self._bets[i] -= event.amount
            self._contributed[i] -= event.amount
            self._stacks[i] += event.amount
            if i == self._aggressor and self.street is not Street.PREFLOP and not self._bets[i]:
                self._aggressor = None
        elif isinstance(event, BetsCollected):
            self._bets = [0] * len(self.seats)
            self._level = 0
            self._round_closed = True
            self._actor = None
        elif isinstance(event, PlayerRestricted):
            self._restricted[self._index[event.seat]] = True
        elif isinstance(event, HandShown):
            i = self._index[event.seat]
            self._hole[i] = event.cards
            self._shown[i] = True
        elif isinstance(event, HandMucked):
            i = self._index[event.seat]
            self._mucked[i] = True
            if event.cards:
                self._hole[i] = event.cards
        elif isinstance(event, PotAwarded):
            for seat, share in zip(event.seats, event.shares, strict=True):
                self._stacks[self._index[seat]] += share
            self._awarded.append(event)
        elif isinstance(event, HandEnded):
            self.street = Street.COMPLETE
            self._actor = None
            self._busted = event.busted
        elif isinstance(event, HandVoided):
            self._stacks = list(self.start_stacks)
            self._bets = [0] * len(self.seats)
            self._contributed = [0] * len(self.seats)
            self._antes = [0] * len(self.seats)
            self.street = Street.VOID
            self._actor = None

    def _start(self, e: HandStarted) -> None:
        count = len(e.seats)
        self.started = e
        self.seats, self.names, self.start_stacks = e.seats, e.names, e.stacks
        self._index = {s: i for i, s in enumerate(e.seats)}
        self._stacks = list(e.stacks)
        self._bets = [0] * count
        self._contributed = [0] * count
        self._antes = [0] * count
        self._folded = [False] * count
        self._mucked = [False] * count
        self._hole = [None] * count
        self._shown = [False] * count
        self._restricted = [False] * count
        self._absent = [s in e.absent for s in e.seats]
        self._acted = [False] * count
        self._acted_level = [0] * count
        top = max(e.blinds)
        self._bb_index = max((i for i in range(count) if e.blinds[i] == top), default=count - 1)
        if count == 2 and e.blinds[0] == e.blinds[1] == top:
            self._bb_index = 0
        self.street = Street.PREFLOP
        self._min_raise = e.big_blind

    def _start_street(self, street: Street) -> None:
        self.street = street
        self._opened = True
        count = len(self.seats)
        self._acted = [False] * count
        self._acted_level = [0] * count
        self._last_short = None
        self._round_closed = False
        assert self.started is not None
        self._min_raise = self.started.big_blind
        if street is Street.SHOWDOWN:
            self._actor = None
            return
        if street is not Street.PREFLOP:
            self._level = 0
        first = (self._bb_index + 1) % count if street is Street.PREFLOP else 0
        self._actor = self._next_actor(first)
        if self._actor is not None and len(self._with_chips()) >= 2:
            self._aggressor = None if street is not Street.PREFLOP else self._aggressor

    def _apply_action(self, e: ActionTaken) -> None:
        i = self._index[e.seat]
        level_before = self._level_for_calls()
        if e.action is ActionKind.FOLD:
            self._folded[i] = True
        else:
            self._stacks[i] -= e.added
            self._bets[i] += e.added
            self._contributed[i] += e.added
        if e.action in (ActionKind.BET, ActionKind.RAISE):
            increase = e.to - level_before
            if increase >= self._min_raise or (e.action is ActionKind.BET and not e.all_in):
                self._min_raise = max(self._min_raise, increase)
                self._last_short = None
            else:
                self._last_short = i
            self._level = e.to
            self._aggressor = i
        self._acted[i] = True
        self._acted_level[i] = self._level_for_calls()
        self._actor = self._next_actor(i + 1)

    # --- forced bets and automatic progress ----------------------------------------------

    def _forced_bets(self) -> list[AntePosted | BlindPosted]:
        """What the forced bets of this hand are (R4, R5): antes first (a short stack pays
        the ante before the blind), then the blinds, each capped by the stack."""
        e = self.started
        assert e is not None
        stacks = list(e.stacks)
        antes = [min(a, s) for a, s in zip(e.antes, stacks, strict=True)]
        if not e.dead_antes and len(antes) > 1:  # live antes: an unmatched excess is trimmed
            cutoff = sorted(antes)[-2]
            antes = [min(a, cutoff) for a in antes]
        plan: list[AntePosted | BlindPosted] = []
        for i, seat in enumerate(e.seats):
            if antes[i]:
                plan.append(AntePosted(seat, antes[i], antes[i] == stacks[i]))
                stacks[i] -= antes[i]
        top = max(e.blinds)
        for i, seat in enumerate(e.seats):
            blind = min(e.blinds[i], stacks[i])
            if blind:
                name = "big" if i == self._bb_index or e.blinds[i] == top else "small"
                plan.append(BlindPosted(seat, name, blind, blind == stacks[i]))
        return plan

    def _unposted(self) -> list[AntePosted | BlindPosted]:
        if self.street is not Street.PREFLOP or self._round_closed or self._opened:
            return []
        done = {(type(e), e.seat) for e in self._effective
                if isinstance(e, AntePosted | BlindPosted)}
        return [e for e in self._forced_bets() if (type(e), e.seat) not in done]

    def _advance(self) -> None:
        """Emit what follows from the last command: absent folds (R11), the end of a betting
        round, an uncontested pot, the showdown (R14, R15) and the awards (R16, R17)."""
        if not self._opened:  # forced bets still to be posted by the operator
            return
        while not self.is_over:
            live = [i for i in range(len(self.seats)) if self._live(i)]
            if (self._actor is not None and self._absent[self._actor]
                    and self.street in BETTING_STREETS and len(live) > 1
                    and all(h is not None for h in self._hole)):
                self._emit(ActionTaken(self.seats[self._actor], ActionKind.FOLD,
                                       self._bets[self._actor], 0, False, "R11"))
                continue
            if len(live) == 1:
                if not self._round_closed and self.street in BETTING_STREETS:
                    self._close_round()
                self._award()
                return
            if self.street in BETTING_STREETS and not self._round_closed and self._actor is None:
                self._close_round()
                continue
            if self._round_closed and self.street is Street.RIVER:
                self._emit(StreetStarted(Street.SHOWDOWN))
                continue
            if self.street is Street.SHOWDOWN:
                assert self.started is not None
                if self.started.auto_showdown:
                    self._resolve(stop_at_unknown=True)
                if self._showdown_settled():
                    self._award()
                return
            if (self._round_closed and len(self._with_chips()) < 2
                    and self.started is not None and self.started.auto_showdown):
                for i in live:  # R14: all-in, no more betting: every hand face up
                    hole = self._hole[i]
                    if not self._shown[i] and hole and all(c is not None for c in hole):
                        self._emit(HandShown(self.seats[i], tuple(c for c in hole if c), True))
            return

    def _close_round(self) -> None:
        bets = sorted(self._bets)
        cutoff = bets[-2] if len(bets) > 1 else 0
        for i, seat in enumerate(self.seats):
            if self._bets[i] > cutoff:
                self._emit(BetReturned(seat, self._bets[i] - cutoff))
        self._emit(BetsCollected(self.street, self.pots()))

    def _showdown_settled(self) -> bool:
        for pot in self.pots():
            contenders = [self._index[s] for s in pot.seats]
            if len(contenders) > 1 and not all(self._shown[i] for i in contenders):
                return False
        return True

    def _showdown_order(self) -> list[int]:
        """R15: last bettor or raiser on the final round first, else first left of the
        button; then clockwise."""
        count = len(self.seats)
        first = self._aggressor if self._aggressor is not None else 0
        return [(first + k) % count for k in range(count) if self._live((first + k) % count)]

    def _resolve(self, *, stop_at_unknown: bool, auto: bool = True) -> None:
        """Show or muck, in R15 order, every hand not yet decided: a hand is shown if it wins
        or ties a pot it contends for against the hands shown so far, else mucked."""
        pots = self.pots()
        for i in self._showdown_order():
            if self._shown[i] or not self._live(i):
                continue
            hole = self._hole[i]
            if hole is None or any(c is None for c in hole):
                if stop_at_unknown:
                    return
                raise IllegalActionError(
                    f"{self._who(i)}'s hole cards are unknown: show them (show_hand with the "
                    "cards) or muck the hand (R15)", rule="R15")
            value = self._strength(i)
            contended = [p for p in pots if self.seats[i] in p.seats and len(
                [s for s in p.seats if self._live(self._index[s])]) > 1]
            # A hand that alone contends for a side pot keeps it: it is not mucked (R16).
            wins = not contended or any(p.seats == (self.seats[i],) or [
                s for s in p.seats if self._live(self._index[s])] == [self.seats[i]]
                for p in pots if self.seats[i] in p.seats)
            for pot in contended:
                best = [self._strength(self._index[s]) for s in pot.seats
                        if self._shown[self._index[s]] and self._live(self._index[s])]
                if not best or value >= max(best):
                    wins = True
            if wins:
                self._emit(HandShown(self.seats[i], tuple(c for c in hole if c), auto))
            else:
                self._emit(HandMucked(self.seats[i], hole, auto))

    def _award(self) -> None:
        assert self.started is not None
        count = len(self.seats)
        if self.started.odd_chip_rule == "big_blind":  # R17 house rule: next due the BB
            order = [(self._bb_index + 1 + k) % count for k in range(count)]
        else:  # R17 default: first clockwise from the button
            order = list(range(count))
        for number, pot in enumerate(self.pots()):
            contenders = [self._index[s] for s in pot.seats if self._live(self._index[s])]
            description = ""
            if len(contenders) == 1:
                winners = contenders
                if self._shown[winners[0]] and len(self.board) == 5:
                    description = self._describe_hand(winners[0])
            else:
                values = {i: self._strength(i) for i in contenders}
                top = max(values.values())
                winners = [i for i in order if values.get(i) == top]
                description = self._describe_hand(winners[0])
            shares = split_pot(pot.amount, len(winners), chip_unit=self.started.chip_unit)
            self._emit(PotAwarded(number, pot.amount, tuple(self.seats[i] for i in winners),
                                  shares, description))
        busted = [i for i in range(count) if self._stacks[i] == 0]
        busted.sort(key=lambda i: -self.start_stacks[i])  # R22: bigger start stack ranks higher
        self._emit(HandEnded(self.stacks, tuple(self.seats[i] for i in busted)))

    # --- legal actions -------------------------------------------------------------------

    def legal_actions(self) -> LegalActions | None:
        """The options of the player to act (R6, R7, R10), or None when nobody is to act."""
        i = self._actor
        if i is None or self.is_over or self._round_closed:
            return None
        level = self._level_for_calls()
        to_call = min(max(level - self._bets[i], 0), self._stacks[i])
        restrictions = []
        may_raise = True
        total = self._stacks[i] + self._bets[i]
        if self._restricted[i]:
            may_raise = False
            restrictions.append(Restriction("R10", f"{self._who(i)} exposed a hole card and "
                                                   "may only call or fold"))
        if total <= level:
            may_raise = False
        elif not any(self._live(j) and self._stacks[j] + self._bets[j] > level
                     for j in range(len(self.seats)) if j != i):
            may_raise = False
            restrictions.append(Restriction("R6", "every other player is all-in or out"))
        elif (self._acted[i] and self._acted_level[i] > 0
              and level - self._acted_level[i] < self._min_raise):
            may_raise = False
            shorter = (f"the all-in by seat {self.seats[self._last_short]}"
                       if self._last_short is not None else "the last all-in")
            restrictions.append(Restriction(
                "R7", f"{shorter} was not a full raise and {self._who(i).split(' (')[0].lower()}"
                      " has already acted"))
        min_to = max_to = None
        if may_raise:
            max_to = total
            min_to = min(level + self._min_raise, total)
        return LegalActions(
            seat=self.seats[i], name=self.names[i], street=self.street,
            can_check=to_call == 0, call_amount=to_call, call_to=self._bets[i] + to_call,
            is_bet=level == 0, min_raise_to=min_to, max_raise_to=max_to,
            restrictions=tuple(restrictions))

    def pending_decision(self) -> LegalActions | None:
        """The decision a clock (R12) would expire: the same as :meth:`legal_actions`."""
        return self.legal_actions()
