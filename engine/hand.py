"""One No-Limit Hold'em hand as a pure, synchronous state machine (rules R3-R17, R22).

Every command (``deal_hole``, ``raise_to``, ``show_hand``, ``undo`` ...) first verifies
itself (``verify_<verb>`` raises :class:`~engine.errors.IllegalActionError` naming the rule
and the legal options; ``can_<verb>`` answers yes or no), then emits events: the command's
own event and the events it causes (bets collected, pots awarded ...). Every event goes
through one function, :meth:`Hand._apply`, so that :meth:`Hand.replay` of a log, or of its
public views, rebuilds the state exactly. Positions run clockwise from the seat left of the
button (position 0 is the small blind, the button is last; heads-up the big blind is 0).

>>> hand = Hand.start(seats=(1, 2, 3), stacks=(1000, 1000, 1000), blinds=(5, 10, 0),
...                   button=3, big_blind=10)
>>> for seat in (1, 2, 3):
...     _ = hand.deal_hole(seat, None)
>>> hand.legal_actions().describe()
'call 10, raise to 20-1,000 or fold'
>>> _ = hand.fold(); _ = hand.fold()
>>> hand.stacks
(995, 1005, 1000)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from engine.actions import LegalActions, chips
from engine.cards import Card, ensure_distinct, parse_cards
from engine.errors import DuplicateCardError, IllegalActionError, Ruling
from engine.events import (
    ActionKind,
    ActionTaken,
    ActionUndone,
    AntePosted,
    BlindPosted,
    BoardDealt,
    CardBurned,
    Event,
    HandMucked,
    HandShown,
    HandStarted,
    HandVoided,
    HoleCardsDealt,
    PlayerRestricted,
    Street,
    StreetStarted,
)
from engine.hand_state import BETTING_STREETS, HandState

_BOARD_SIZE = {Street.PREFLOP: 0, Street.FLOP: 3, Street.TURN: 4, Street.RIVER: 5}
_STREET_FOR_BOARD = {3: Street.FLOP, 4: Street.TURN, 5: Street.RIVER}

CardsInput = str | Iterable[str | Card | None] | None


class Hand(HandState):
    """One hand at one table. Build it with :meth:`start` or :meth:`replay`."""

    # --- construction ------------------------------------------------------------------

    @classmethod
    def start(cls, *, seats: Sequence[int], stacks: Sequence[int], blinds: Sequence[int],
              big_blind: int, button: int | None = None, antes: Sequence[int] | None = None,
              names: Sequence[str] | None = None, hand_number: int = 1,
              absent: Iterable[int] = (), short_call_rule: str = "live",
              odd_chip_rule: str = "button", chip_unit: int = 1, dead_antes: bool = True,
              auto_showdown: bool = True, level: int = 0, small_blind: int = 0,
              post_forced_bets: bool = True) -> Hand:
        """Start a hand: post antes and blinds (R4, R5) and open the pre-flop betting.

        With ``post_forced_bets=False`` the operator posts each ante and blind with
        :meth:`post_ante` / :meth:`post_blind` (each an undoable command) and the betting
        opens once all are in.

        ``seats``, ``stacks``, ``blinds`` and ``antes`` are per position (clockwise from the
        seat left of the button). ``short_call_rule`` is ``"live"`` (R5 default: call at
        least the full big blind, raise to at least two) or ``"phh"`` (PHH/PokerKit: the
        call is the largest amount actually posted). ``small_blind`` is the level's small
        blind, recorded in :class:`HandStarted` whether or not anyone posts it (R2).
        """
        count = len(seats)
        antes = tuple(antes) if antes is not None else (0,) * count
        names = tuple(names) if names is not None else tuple(f"Seat {s}" for s in seats)
        if not 2 <= count <= 10 or len(set(seats)) != count:
            raise IllegalActionError(f"a hand needs 2-10 distinct seats, got {list(seats)}")
        if not (len(stacks) == len(blinds) == len(antes) == len(names) == count):
            raise IllegalActionError("seats, stacks, blinds, antes and names differ in length")
        if big_blind <= 0 or any(b < 0 for b in blinds) or any(a < 0 for a in antes):
            raise IllegalActionError("the big blind must be positive, blinds and antes not "
                                     "negative")
        if any(s <= 0 for s in stacks):
            raise IllegalActionError("every player dealt in needs chips")
        if short_call_rule not in ("live", "phh") or odd_chip_rule not in ("button", "big_blind"):
            raise IllegalActionError("short_call_rule is live or phh; odd_chip_rule button or "
                                     "big_blind")
        hand = cls()
        started = HandStarted(
            hand_number=hand_number, seats=tuple(seats), names=names, stacks=tuple(stacks),
            button=button, blinds=tuple(blinds), antes=antes, big_blind=big_blind,
            absent=tuple(sorted(set(absent))), short_call_rule=short_call_rule,
            odd_chip_rule=odd_chip_rule, chip_unit=chip_unit, dead_antes=dead_antes,
            auto_showdown=auto_showdown, level=level, small_blind=small_blind)
        hand._emit(started)
        if post_forced_bets:
            for event in hand._forced_bets():
                hand._emit(event)
            hand._emit(StreetStarted(Street.PREFLOP))
            hand._advance()
        return hand

    @classmethod
    def replay(cls, events: Iterable[Event]) -> Hand:
        """The hand that these events describe (a full log or a channel's public views)."""
        hand = cls()
        for event in events:
            hand._record(event)
        return hand

    def _post(self, kind: type[AntePosted | BlindPosted], seat: int,
              amount: int | None) -> AntePosted | BlindPosted:
        i = self._position(seat)
        due = [e for e in self._unposted() if isinstance(e, kind) and e.seat == seat]
        noun = "ante" if kind is AntePosted else "blind"
        if not due:
            raise IllegalActionError(f"{self._who(i)} owes no {noun} now (R4)", rule="R4")
        owed = due[0]
        if amount is not None and amount != owed.amount:
            short = " (all-in, R5)" if owed.all_in else ""
            raise IllegalActionError(f"{self._who(i)} posts {chips(owed.amount)}{short}, not "
                                     f"{chips(amount)}", rule="R5" if owed.all_in else "R4")
        if kind is BlindPosted and any(isinstance(e, AntePosted) for e in self._unposted()):
            raise IllegalActionError("post the antes before the blinds (R4)", rule="R4")
        event = AntePosted(owed.seat, owed.amount, owed.all_in, manual=True) if isinstance(
            owed, AntePosted) else BlindPosted(owed.seat, owed.blind, owed.amount,
                                               owed.all_in, manual=True)
        self._emit(event)
        if not self._unposted():
            self._emit(StreetStarted(Street.PREFLOP))
            self._advance()
        return event

    def post_ante(self, seat: int, amount: int | None = None) -> AntePosted:
        """Post a seat's ante (only with ``post_forced_bets=False``); ``amount`` is checked
        against what is due (the whole stack when it is short, R5)."""
        event = self._post(AntePosted, seat, amount)
        assert isinstance(event, AntePosted)
        return event

    def post_blind(self, seat: int, amount: int | None = None) -> BlindPosted:
        """Post a seat's blind (only with ``post_forced_bets=False``), after the antes."""
        event = self._post(BlindPosted, seat, amount)
        assert isinstance(event, BlindPosted)
        return event

    def _require_turn(self, seat: int | None, verb: str) -> tuple[int, LegalActions]:
        if self.is_over:
            raise IllegalActionError(f"cannot {verb}: the hand is over")
        legal = self.legal_actions()
        if legal is None:
            what = "deal the board" if self._round_closed and len(self.board) < 5 else "wait"
            if self._unposted():
                what = "post the antes and blinds first"
            raise IllegalActionError(f"cannot {verb}: nobody is to act now ({what})", rule="R9")
        if seat is not None and seat != legal.seat:
            i = self._position(seat)
            raise IllegalActionError(
                f"{self._who(i)} cannot {verb}: it is {legal.name}'s turn (seat {legal.seat}) "
                "(R9)", rule="R9", legal=legal.to_json())
        missing = [self.seats[i] for i in range(len(self.seats)) if self._hole[i] is None]
        if missing:
            raise IllegalActionError(
                f"cannot {verb} before hole cards are dealt to seat(s) "
                f"{', '.join(map(str, missing))} (deal them, unknown if unread)")
        assert self._actor is not None
        return self._actor, legal

    def _illegal(self, i: int, verb: str, why: str, rule: str, legal: LegalActions,
                 ruling: Ruling | None = None) -> IllegalActionError:
        return IllegalActionError(
            f"{self._who(i)} cannot {verb}: {why} ({rule}). Legal: {legal.describe()}.",
            rule=rule, legal=legal.to_json(), ruling=ruling)

    # --- player actions: verify / can / do ------------------------------------------------

    def verify_fold(self, seat: int | None = None) -> None:
        self._require_turn(seat, "fold")

    def can_fold(self, seat: int | None = None) -> bool:
        return _can(self.verify_fold, seat)

    def fold(self, seat: int | None = None, *, rule: str = "") -> ActionTaken:
        """Fold (any time it is the player's turn)."""
        i, _ = self._require_turn(seat, "fold")
        return self._act(ActionTaken(self.seats[i], ActionKind.FOLD, self._bets[i], 0, False,
                                     rule))

    def verify_check(self, seat: int | None = None) -> None:
        i, legal = self._require_turn(seat, "check")
        if not legal.can_check:
            raise self._illegal(i, "check", f"there is {chips(legal.call_amount)} to call",
                                "R6", legal)

    def can_check(self, seat: int | None = None) -> bool:
        return _can(self.verify_check, seat)

    def check(self, seat: int | None = None, *, rule: str = "") -> ActionTaken:
        self.verify_check(seat)
        i = self._actor
        assert i is not None
        return self._act(ActionTaken(self.seats[i], ActionKind.CHECK, self._bets[i], 0, False,
                                     rule))

    def verify_call(self, seat: int | None = None) -> None:
        i, legal = self._require_turn(seat, "call")
        if legal.can_check:
            raise self._illegal(i, "call", "there is no bet to call", "R6", legal)

    def can_call(self, seat: int | None = None) -> bool:
        return _can(self.verify_call, seat)

    def call(self, seat: int | None = None) -> ActionTaken:
        self.verify_call(seat)
        i = self._actor
        assert i is not None
        legal = self.legal_actions()
        assert legal is not None
        added = legal.call_amount
        return self._act(ActionTaken(self.seats[i], ActionKind.CALL, self._bets[i] + added,
                                     added, added == self._stacks[i]))

    def check_or_call(self, seat: int | None = None) -> ActionTaken:
        """Check if possible, else call (PHH ``cc``)."""
        legal = self.legal_actions()
        if legal is not None and legal.can_check:
            return self.check(seat)
        return self.call(seat)

    def verify_raise_to(self, amount: int, seat: int | None = None, *,
                        verb: str = "raise") -> None:
        """Check a bet or raise to ``amount`` (a street total, R6).

        :raises IllegalActionError: naming R7/R10 when raising is closed, R6 outside the
            limits, and with the R8 ruling for an amount below the minimum.
        """
        i, legal = self._require_turn(seat, verb)
        if legal.min_raise_to is None or legal.max_raise_to is None:
            reason = legal.restrictions[0] if legal.restrictions else None
            if reason is None:
                why = "his stack does not cover more than a call"
                raise self._illegal(i, verb, why, "R6", legal)
            raise self._illegal(i, verb, reason.reason, reason.rule, legal)
        if verb == "bet" and not legal.is_bet:
            raise self._illegal(i, "bet", f"there is already a bet (raise to more than "
                                          f"{chips(legal.call_to)})", "R6", legal)
        if amount > legal.max_raise_to:
            raise self._illegal(i, f"{verb} to {chips(amount)}",
                                f"that is more than his {chips(legal.max_raise_to)}", "R6",
                                legal)
        if amount < legal.min_raise_to and amount != legal.max_raise_to:
            level = self._level_for_calls()
            increment = self._min_raise
            seat_no = self.seats[i]
            call = (Ruling(f"call {chips(legal.call_amount)}", "call", seat_no)
                    if legal.can_call else Ruling("check", "check", seat_no))
            if amount <= level:
                raise self._illegal(i, f"{verb} to {chips(amount)}",
                                    f"that is not more than the {chips(level)} to call", "R6",
                                    legal, ruling=call)
            if 2 * (amount - level) >= increment:
                kind = "bet" if legal.is_bet else "raise_to"
                ruling = Ruling(f"{'bet' if legal.is_bet else 'raise to'} "
                                f"{chips(legal.min_raise_to)}", kind, seat_no,
                                legal.min_raise_to)
                words = f"completed to {chips(legal.min_raise_to)}"
            else:
                ruling = call
                words = f"a call of {chips(legal.call_amount)}"
            raise self._illegal(
                i, f"{verb} to {chips(amount)}",
                f"the minimum is {chips(legal.min_raise_to)}; under the 50 % rule this is "
                f"ruled {words}", "R8", legal, ruling=ruling)

    def can_raise_to(self, amount: int, seat: int | None = None) -> bool:
        return _can(self.verify_raise_to, amount, seat)

    def raise_to(self, amount: int, seat: int | None = None) -> ActionTaken:
        """Bet or raise to a street total of ``amount`` (R6-R8)."""
        self.verify_raise_to(amount, seat)
        return self._wager(amount)

    def verify_bet(self, amount: int, seat: int | None = None) -> None:
        self.verify_raise_to(amount, seat, verb="bet")

    def can_bet(self, amount: int, seat: int | None = None) -> bool:
        return _can(self.verify_bet, amount, seat)

    def bet(self, amount: int, seat: int | None = None) -> ActionTaken:
        """Open the betting on a street with ``amount`` (at least the big blind, R6)."""
        self.verify_bet(amount, seat)
        return self._wager(amount)

    def verify_all_in(self, seat: int | None = None) -> None:
        i, legal = self._require_turn(seat, "go all-in")
        if legal.max_raise_to is None and legal.call_amount < self._stacks[i]:
            self.verify_raise_to(self._stacks[i] + self._bets[i], seat)

    def can_all_in(self, seat: int | None = None) -> bool:
        return _can(self.verify_all_in, seat)

    def all_in(self, seat: int | None = None) -> ActionTaken:
        """Put in every chip: a raise if raising is open, else a call for the whole stack."""
        self.verify_all_in(seat)
        legal = self.legal_actions()
        assert legal is not None
        if legal.max_raise_to is not None:
            return self._wager(legal.max_raise_to)
        return self.call(seat)

    def _wager(self, amount: int) -> ActionTaken:
        i = self._actor
        assert i is not None
        kind = ActionKind.BET if self._level_for_calls() == 0 else ActionKind.RAISE
        added = amount - self._bets[i]
        return self._act(ActionTaken(self.seats[i], kind, amount, added,
                                     added == self._stacks[i]))

    def expire_clock(self) -> ActionTaken:
        """R12: the clock ran out; the player checks if he can, else folds."""
        legal = self.legal_actions()
        if legal is None:
            raise IllegalActionError("no decision is pending, so no clock can expire", rule="R12")
        if legal.can_check:
            return self.check(rule="R12")
        return self.fold(rule="R12")

    def _act(self, event: ActionTaken) -> ActionTaken:
        self._emit(event)
        self._advance()
        return event

    # --- cards ---------------------------------------------------------------------------

    def _known(self) -> list[Card]:
        known = [c for hole in self._hole if hole for c in hole if c is not None]
        return known + self.board

    def verify_deal_hole(self, seat: int, cards: CardsInput = None) -> tuple[Card | None, ...]:
        if self.is_over:
            raise IllegalActionError("cannot deal: the hand is over")
        i = self._position(seat)
        parsed = _parse_hole(cards)
        have = self._hole[i]
        if have is not None:
            if all(c is not None for c in have):
                raise IllegalActionError(f"{self._who(i)} already has hole cards (R13: too "
                                         "many cards to a seat)", rule="R13")
            merged = tuple(old if old is not None else new for old, new in
                           zip(have, parsed, strict=True))
            if any(o is not None and o != n for o, n in zip(have, parsed, strict=True)):
                raise IllegalActionError(f"{self._who(i)}'s hole cards differ from those read")
            parsed = merged
        others = [c for j, hole in enumerate(self._hole) if hole and j != i
                  for c in hole if c is not None] + self.board
        try:
            ensure_distinct(others, [c for c in parsed if c is not None])
        except DuplicateCardError as dup:
            raise IllegalActionError(f"{dup} (R13: identical cards void the hand)",
                                     rule="R13") from None
        return parsed

    def deal_hole(self, seat: int, cards: CardsInput = None) -> HoleCardsDealt:
        """Deal hole cards to a seat; ``None`` (or ``"????"``) for cards not read."""
        parsed = self.verify_deal_hole(seat, cards)
        event = HoleCardsDealt(seat, parsed)
        self._emit(event)
        self._advance()
        return event

    def burn_card(self, card: Card | str | None = None) -> CardBurned:
        """Record a burn card (R19): it never reaches any output."""
        event = CardBurned(Card(card) if isinstance(card, str) else card)
        self._emit(event)
        return event

    def verify_deal_board(self, cards: str | Iterable[str | Card]) -> tuple[Card, ...]:
        parsed = parse_cards(cards)
        if self.is_over:
            raise IllegalActionError("cannot deal the board: the hand is over")
        if not self._round_closed or self.street not in BETTING_STREETS:
            who = self.actor_seat
            wait = f" (seat {who} is to act)" if who is not None else ""
            raise IllegalActionError(f"cannot deal the board: the betting round is not "
                                     f"over{wait}", rule="R9")
        after = len(self.board) + len(parsed)
        betting = len(self._with_chips()) >= 2 and len(self.live_seats) > 1
        nxt = _BOARD_SIZE[self.street] + {0: 3}.get(len(self.board), 1)
        if after not in _STREET_FOR_BOARD or (betting and after != nxt) or after < nxt:
            raise IllegalActionError(f"cannot deal {len(parsed)} board card(s) now: the "
                                     f"{_STREET_FOR_BOARD.get(nxt, Street.RIVER)} needs "
                                     f"{nxt - len(self.board)}")
        try:
            ensure_distinct(self._known(), parsed)
        except DuplicateCardError as dup:
            raise IllegalActionError(f"{dup} (R13: identical cards void the hand)",
                                     rule="R13") from None
        return parsed

    def deal_board(self, cards: str | Iterable[str | Card]) -> BoardDealt:
        """Deal the flop (3 cards), turn or river (1); a run-out may deal several streets."""
        parsed = self.verify_deal_board(cards)
        event = BoardDealt(_STREET_FOR_BOARD[len(self.board) + len(parsed)], parsed)
        self._emit(event)
        self._emit(StreetStarted(event.street))
        self._advance()
        return event

    def verify_show_hand(self, seat: int, cards: CardsInput = None) -> tuple[Card, ...]:
        i = self._position(seat)
        if self.is_over or not self._live(i):
            raise IllegalActionError(f"{self._who(i)} has no live hand to show")
        if self.street is not Street.SHOWDOWN and not (
                self._round_closed and len(self._with_chips()) < 2):
            raise IllegalActionError(f"{self._who(i)} cannot show now: hands are shown at the "
                                     "showdown or in an all-in (R14, R15)", rule="R15")
        have = self._hole[i] or (None, None)
        parsed = _parse_hole(cards) if cards is not None else have
        if any(c is None for c in parsed):
            raise IllegalActionError(f"{self._who(i)}'s cards were not read: give the cards "
                                     "shown")
        if any(h is not None and h != p for h, p in zip(have, parsed, strict=True)):
            raise IllegalActionError(f"{self._who(i)} shows {_fmt(parsed)} but was dealt "
                                     f"{_fmt(have)}")
        others = [c for j, hole in enumerate(self._hole) if hole and j != i
                  for c in hole if c is not None] + self.board
        try:
            ensure_distinct(others, parsed)  # type: ignore[arg-type]
        except DuplicateCardError as dup:
            raise IllegalActionError(f"{dup} (R13)", rule="R13") from None
        return tuple(c for c in parsed if c is not None)

    def show_hand(self, seat: int, cards: CardsInput = None) -> HandShown:
        """Table a hand at the showdown or in an all-in (R14, R15)."""
        parsed = self.verify_show_hand(seat, cards)
        event = HandShown(seat, parsed)
        self._emit(event)
        self._advance()
        return event

    def verify_muck_hand(self, seat: int) -> None:
        i = self._position(seat)
        if self.is_over or not self._live(i) or self.street is not Street.SHOWDOWN:
            raise IllegalActionError(f"{self._who(i)} cannot muck now (only a live hand at "
                                     "the showdown)", rule="R15")
        if self.is_shown(seat):
            raise IllegalActionError(f"{self._who(i)} has tabled his hand: a shown hand "
                                     "stays face up and plays (R15)", rule="R15")
        for pot in self.pots():
            live = [s for s in pot.seats if self._live(self._index[s])]
            if live == [seat]:
                raise IllegalActionError(f"{self._who(i)} is the last player in a pot and "
                                         "wins it without showing: nothing to muck")

    def muck_hand(self, seat: int) -> HandMucked:
        """Give up the hand unseen at the showdown (R20: the cards stay secret)."""
        self.verify_muck_hand(seat)
        i = self._position(seat)
        event = HandMucked(seat, self._hole[i] or ())
        self._emit(event)
        self._advance()
        return event

    def resolve_showdown(self) -> None:
        """Show or muck every undecided hand in R15 order, then award the pots."""
        if self.street is not Street.SHOWDOWN:
            raise IllegalActionError("there is no showdown to resolve now")
        self._resolve(stop_at_unknown=False, auto=False)  # each decision can be undone
        self._advance()

    def restrict(self, seat: int) -> PlayerRestricted:
        """R10: the player exposed a hole card; he may only call or fold from now on."""
        i = self._position(seat)
        if self.is_over or not self._live(i):
            raise IllegalActionError(f"{self._who(i)} has no live hand")
        event = PlayerRestricted(seat)
        self._emit(event)
        return event

    # --- undo and void -------------------------------------------------------------------

    def undo(self) -> ActionUndone:
        """Take back the last command and everything it caused (unlimited within the hand)."""
        for k in range(len(self._effective) - 1, 0, -1):
            event = self._effective[k]
            if event.is_command:
                count = len(self._effective) - k
                undone = ActionUndone(count, _describe(event))
                self._emit(undone)
                return undone
        raise IllegalActionError("nothing to undo in this hand")

    def void(self, reason: str = "misdeal") -> HandVoided:
        """R13: void the hand; every stack returns to its start value, the button stays."""
        if self.is_over:
            raise IllegalActionError("cannot void: the hand is over")
        event = HandVoided(reason)
        self._emit(event)
        return event

    # --- what a command did ----------------------------------------------------------------

    def following(self, event: Event) -> tuple[Event, ...]:
        """``event``, as a verb returned it, and every event the hand logged because of it:
        absent players' folds (R11), the end of the betting round, the showdown and the
        awards. A service logs these together as the command's effect.

        >>> hand = Hand.start(seats=(1, 2, 3), stacks=(1000, 1000, 1000), blinds=(5, 10, 0),
        ...                   button=3, big_blind=10)
        >>> for seat in (1, 2, 3):
        ...     _ = hand.deal_hole(seat, None)
        >>> _ = hand.fold()
        >>> [type(e).__name__ for e in hand.following(hand.fold())]
        ['ActionTaken', 'BetReturned', 'BetsCollected', 'PotAwarded', 'HandEnded']

        :raises ValueError: ``event`` is not in this hand's log.
        """
        for k in range(len(self.events) - 1, -1, -1):
            if self.events[k] is event:
                return tuple(self.events[k:])
        raise ValueError(f"{event!r} is not in this hand's log")



def _can(verify: Any, *args: Any) -> bool:
    try:
        verify(*args)
    except IllegalActionError:
        return False
    return True


def _parse_hole(cards: CardsInput) -> tuple[Card | None, ...]:
    if cards is None:
        return (None, None)
    if isinstance(cards, str):
        text = cards.replace(" ", "")
        if set(text) <= {"?"}:
            return (None,) * max(len(text) // 2, 2)
        tokens: list[str | Card | None] = [text[k:k + 2] for k in range(0, len(text), 2)]
    else:
        tokens = list(cards)
    out: list[Card | None] = []
    for token in tokens:
        if token is None or token == "??":
            out.append(None)
        else:
            out.append(Card(token) if isinstance(token, str) else token)
    if len(out) != 2:
        raise IllegalActionError(f"Hold'em hole cards are two cards, got {len(out)} (R13)",
                                 rule="R13")
    if out[0] is not None and out[0] == out[1]:
        raise IllegalActionError(f"card {out[0]} appears twice (R13)", rule="R13")
    return tuple(out)


def _fmt(cards: Sequence[Card | None]) -> str:
    return "".join(c.code if c is not None else "??" for c in cards)


def _describe(event: Event) -> str:
    if isinstance(event, ActionTaken):
        amount = f" {event.to:,}" if event.action in (ActionKind.BET, ActionKind.RAISE,
                                                       ActionKind.CALL) else ""
        return f"seat {event.seat} {event.action.value}{amount}"
    return event.kind.replace("_", " ")
