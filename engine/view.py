"""The page view model (``docs/view-model.md``) of one channel, as a hub reducer.

:class:`TableViewReducer` implements the ``Reducer`` protocol of ``overlay/hub.py``:
``initial()``, ``apply(state, item)`` with the :class:`~engine.channels.ChannelItem` s a
channel releases, in order, and ``snapshot(state)``: the view, a fresh JSON-ready dict with
every documented field present (``null`` when this channel does not know it).

How the view is made:

* the current hand is the engine's own :class:`~engine.hand.Hand`, fed the channel's events
  one by one exactly as :meth:`Hand.replay` does (undo and void included): full events on a
  ``full`` channel, public views (hole cards ``null``) elsewhere. Pots and their eligible
  seats, the amount to call, the minimum raise, legal actions, whose turn it is and the
  winners come from that hand; hand names and best five from :mod:`engine.evaluator`;
  equity and outs from :func:`engine.equity.equity`;
* equity, outs, hand names and best five use only the cards the channel knows, so they are
  secret by construction: a ``public`` channel knows hole cards only once they are tabled
  (R14, R15). Equity and outs need every live hand known (at least two); the known cards of
  folded and mucked hands are dead cards (R20). Outs are given on the flop and the turn to
  the players who do not hold the best hand now (a leader's are ``null``);
* a ``reveal_after_hand`` channel's ``revealed`` items (hole cards after the hand ended)
  complete the cards of the finished hand;
* table context (names, stacks, button, blinds, antes, level) comes from ``hand_started``,
  eliminations from ``player_eliminated``; table-level kinds the engine may add later
  (``player_seated``, ``seat_emptied``, ``level_started``, ``button_set``, ``clock_called``,
  ``clock_stopped``) are read when present; any other kind is ignored.

Conventions where ``docs/view-model.md`` leaves a choice:

* ``table.pots`` are the chips in the middle; this street's bets stay in ``seats[].bet``
  until the engine collects them (pages add the two for the total). Once pots are awarded,
  each pot keeps the eligible seats it had at the showdown and lists its ``winners``;
* an action's ``amount`` is the chips a call adds, the street total of a bet or raise (R6),
  ``null`` for a fold or a check; ``last_action`` is the seat's last action this street;
* ``folded`` is true for a hand mucked at the showdown too (it is out of the hand);
* ``alerts`` is ``[]`` on every channel until the service fills it (:func:`with_devices`);
  ``table.level`` is always an object (its fields ``null`` before the first hand);
* equity floats are rounded to 4 decimals; ``stack_bb`` to one.

Equity results are cached by (hands, board, dead cards): a snapshot after an action that
changes no card costs no equity computation.

The ``operator`` object (``operator=True``) is built by :mod:`engine.view_operator`; device
fields (capture, OBS, channels, connected pages) and ``alerts`` are the service's:
:func:`with_devices` fills them in a view.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from engine.actions import LegalActions
from engine.cards import Card
from engine.channels import ChannelItem, ChannelSpec
from engine.equity import EquityResult, equity, hit_chances
from engine.errors import FeltcastError
from engine.evaluator import evaluate
from engine.events import (
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
from engine.hand import Hand
from engine.pots import Pot, build_pots
from engine.production_events import AutoOperatorSet, GraphicsHidden, GraphicsShown, HandTagged
from engine.table_events import DevicesReported
from engine.tournament import DEFAULT_STRUCTURE, Structure
from engine.view_operator import ClockState, operator_view, with_devices
from engine.view_text import action_amount, action_text, last_action_text, pot_label
from engine.view_tournament import (
    TournamentSettings,
    TournamentState,
    TournamentView,
    allin_view,
    roster_change,
)

__all__ = ["HAND_EVENTS", "EquityCache", "TableViewReducer", "TableViewState", "reducer_for",
           "with_devices"]

#: The events a :class:`Hand` applies; anything else is table context or ignored.
HAND_EVENTS: tuple[type[Event], ...] = (
    HandStarted, AntePosted, BlindPosted, HoleCardsDealt, CardBurned, BoardDealt,
    StreetStarted, ActionTaken, BetReturned, BetsCollected, PlayerRestricted, HandShown,
    HandMucked, PotAwarded, HandEnded, ActionUndone, HandVoided)

TAGS_KEPT = 20
"""Hand tags a channel's state keeps (the operator view shows those of the current hand)."""

_STREET_NAMES = {Street.PREFLOP: "preflop", Street.FLOP: "flop", Street.TURN: "turn",
                 Street.RIVER: "river", Street.SHOWDOWN: "showdown", Street.COMPLETE: "over",
                 Street.VOID: "over"}

Codes = tuple[str, ...]


@dataclass(slots=True)
class _Player:
    name: str
    stack: int


@dataclass(slots=True)
class _Level:
    number: int | None = None
    small_blind: int | None = None
    big_blind: int | None = None
    ante: int | None = None
    ante_mode: str | None = None
    ends_at: float | None = None


@dataclass(slots=True)
class TableViewState:
    """What one channel knows of the table: its replay of the current hand and the table
    context around it. Mutable, owned by one reducer and one channel."""

    roster: dict[int, _Player] = field(default_factory=dict)
    """Who sits where between hands (seats with a player; an empty seat is absent)."""
    hand: Hand | None = None
    """The current (or last) hand as this channel saw it."""
    revealed: dict[int, tuple[Card | None, ...]] = field(default_factory=dict)
    """Hole cards revealed after the hand ended (``reveal_after_hand`` channels)."""
    fed: dict[int, Event] = field(default_factory=dict)
    """This hand's deals and mucks as this channel saw them, by log seq (for reveals)."""
    awarded_pots: tuple[Pot, ...] | None = None
    """The pots as they stood when the first pot was awarded (their eligible seats)."""
    level: _Level = field(default_factory=_Level)
    """A level announced by a table-level event (used until a hand says otherwise)."""
    button: int | None = None
    clock: ClockState | None = None
    devices: dict[str, Any] = field(default_factory=dict)
    """The service's device fields (operator channel only, from ``devices_reported``)."""
    as_of: float | None = None
    """The log time of the last released item."""
    items: int = 0
    tournament: TournamentState | None = None
    """The ``tournament`` object's state (:mod:`engine.view_tournament`)."""
    graphics_hidden: bool = False
    """The operator took the graphics off air (``graphics_hidden``, until ``graphics_shown``)."""
    tags: list[HandTagged] = field(default_factory=list)
    """The newest hand tags this channel saw (at most :data:`TAGS_KEPT`)."""
    auto_operator: bool | None = None
    """The demo's automatic operator: playing (True), paused (False), none (None)."""


class TableViewReducer:
    """The view model of one channel (``docs/view-model.md``) for :mod:`overlay.hub`.

    ``structure`` names the blinds of a level number (R21); ``table_name`` is shown as
    ``table.name``; ``seats`` is the number of chairs (every one appears in ``seats``);
    ``operator`` adds the ``operator`` object (the operator channel only); ``ante_mode``
    overrides the mode read from the hand's antes (R4).
    """

    def __init__(self, channel: ChannelSpec, *, structure: Structure = DEFAULT_STRUCTURE,
                 table_name: str = "", seats: int = 10, operator: bool = False,
                 ante_mode: str | None = None, equity_cache_size: int = 256,
                 equity_cache: EquityCache | None = None,
                 tournament: TournamentSettings | None = None) -> None:
        self.channel = channel
        self.structure = structure
        self.table_name = table_name
        self.seat_count = seats
        self.operator = operator
        self.ante_mode = ante_mode
        self.equity_cache = equity_cache or EquityCache(equity_cache_size)
        """Shared by every channel of a table: the secure, operator and delayed channels
        ask for the same equities (the delayed one D seconds later)."""
        self.equity_computations = 0
        """How many equities were computed (cache misses), for tests and the benchmark."""
        self.tournament = TournamentView(structure=structure, delay=channel.delay,
                                         settings=tournament)

    # --- the Reducer protocol --------------------------------------------------------------

    def initial(self) -> TableViewState:
        return TableViewState(tournament=self.tournament.initial())

    def apply(self, state: TableViewState, item: ChannelItem) -> TableViewState:
        """Take one released item (updates ``state`` in place and returns it)."""
        entry = item.event
        state.items += 1
        payload = entry.payload
        if item.revealed:
            # A hand's secrets follow its end, each with the time it was logged: the channel
            # stays as of the hand's end (``as_of`` never goes back).
            # Only the cards of a deal or muck that still stands: the revealed item has the
            # seq of the public view this channel saw; an undone deal's cards are not shown.
            shown = state.fed.get(entry.seq)
            hand = state.hand
            standing = hand is not None and shown is not None and any(
                e is shown for e in hand.effective_events)
            if standing and isinstance(payload, HoleCardsDealt | HandMucked) and payload.cards:
                have = state.revealed.get(payload.seat, ())
                state.revealed[payload.seat] = tuple(
                    new if new is not None else (have[k] if k < len(have) else None)
                    for k, new in enumerate(payload.cards))
            return state
        state.as_of = entry.time
        tournament = state.tournament
        if tournament is not None:
            self.tournament.apply(tournament, payload, entry.time)
        if isinstance(payload, HandStarted):
            self._start_hand(state, payload)
        elif isinstance(payload, HAND_EVENTS):
            if state.hand is not None:
                self._feed(state, payload)
                if isinstance(payload, HoleCardsDealt | HandMucked):
                    state.fed[entry.seq] = payload
        elif isinstance(payload, DevicesReported):
            if self.operator:
                state.devices = json.loads(payload.report)
        elif isinstance(payload, GraphicsHidden | GraphicsShown):
            state.graphics_hidden = isinstance(payload, GraphicsHidden)
        elif isinstance(payload, HandTagged):
            state.tags = [*state.tags[1 - TAGS_KEPT:], payload]
        elif isinstance(payload, AutoOperatorSet):
            state.auto_operator = payload.playing
        elif (change := roster_change(payload)) is not None:
            seat, stack = change  # a stack corrected, or a player disqualified (chips out)
            if stack is None:
                state.roster.pop(seat, None)
            elif seat in state.roster:
                state.roster[seat].stack = stack
        else:
            _table_event(state, payload)
        return state

    def snapshot(self, state: TableViewState) -> dict[str, Any]:
        """The view: a fresh JSON-ready dict (see ``docs/view-model.md``)."""
        hand = state.hand
        legal = _legal(hand)
        seats = self._seats(state, hand, legal)
        view: dict[str, Any] = {
            "channel": {"name": self.channel.name, "delay": self.channel.delay,
                        "as_of": state.as_of, "live": self.channel.is_live},
            "table": self._table(state, hand, legal),
            "seats": seats,
            "alerts": [],
            "tournament": self._tournament(state, hand, legal),
            "graphics": {"hidden": state.graphics_hidden},
        }
        if self.operator:
            view["operator"] = operator_view(hand, legal, state.clock, state.as_of)
            number = hand.started.hand_number if hand is not None and hand.started else None
            view["operator"]["tags"] = [tag.note for tag in state.tags
                                        if tag.hand_number == number]
            view["operator"]["auto_operator"] = (
                None if state.auto_operator is None
                else "playing" if state.auto_operator else "paused")
            if state.devices:
                view = with_devices(view, state.devices)
        return view

    def with_devices(self, view: dict[str, Any], devices: Mapping[str, Any]) -> dict[str, Any]:
        """``view`` with the service's device fields (see :func:`with_devices`)."""
        return with_devices(view, devices)

    def _tournament(self, state: TableViewState, hand: Hand | None,
                    legal: LegalActions | None) -> dict[str, Any] | None:
        """The ``tournament`` object (:mod:`engine.view_tournament`)."""
        tournament = state.tournament
        if tournament is None:
            return None
        level = self._level(state, hand.started if hand is not None else None)
        stacks = {seat: (player.name, player.stack) for seat, player in state.roster.items()}
        allin = None
        if hand is not None and legal is None and not hand.is_over and hand.started:
            allin = allin_view(hand, self._cards(state, hand), stacks,
                               self.tournament.settings, tournament)
        return self.tournament.snapshot(tournament, now=state.as_of, stacks=stacks,
                                        big_blind=level["big_blind"],
                                        level_number=level["number"], hand=hand,
                                        allin=allin)

    # --- applying --------------------------------------------------------------------------

    def _start_hand(self, state: TableViewState, started: HandStarted) -> None:
        if state.hand is not None and state.tournament is not None:
            self.tournament.hand_finished(state.tournament, state.hand)
        for seat in [s for s, p in state.roster.items() if p.stack == 0]:
            del state.roster[seat]  # busted last hand (R22): the seat is empty now
        for seat, name, stack in zip(started.seats, started.names, started.stacks, strict=True):
            state.roster[seat] = _Player(name, stack)
        state.hand = Hand()
        state.revealed = {}
        state.fed = {}
        state.awarded_pots = None
        state.clock = None
        state.button = started.button
        self._feed(state, started)

    def _feed(self, state: TableViewState, event: Event) -> None:
        hand = state.hand
        assert hand is not None
        if isinstance(event, PotAwarded) and not hand.awards:
            state.awarded_pots = hand.pots()
        # Hand.replay's step for one event (engine/hand.py): log it, apply it, or rebuild
        # the state without the undone events.
        hand._record(event)
        if isinstance(event, ActionUndone | HandVoided) and not hand.awards:
            state.awarded_pots = None
        if isinstance(event, ActionTaken) and state.clock is not None \
                and state.clock.seat == event.seat:
            state.clock = None
        if isinstance(event, HandEnded | HandVoided):
            for seat, name, stack in zip(hand.seats, hand.names, hand.stacks, strict=True):
                state.roster[seat] = _Player(name, stack)
        elif isinstance(event, ActionUndone) and not hand.is_over and hand.started:
            # The hand's end was taken back: the table stands at its start again.
            started = hand.started
            for seat, name, stack in zip(started.seats, started.names, started.stacks,
                                         strict=True):
                state.roster[seat] = _Player(name, stack)

    # --- drawing ---------------------------------------------------------------------------

    def _table(self, state: TableViewState, hand: Hand | None,
               legal: LegalActions | None) -> dict[str, Any]:
        started = hand.started if hand is not None else None
        return {
            "name": self.table_name,
            "hand_number": started.hand_number if started is not None else None,
            "level": self._level(state, started),
            "street": _STREET_NAMES[hand.street] if hand is not None and started else None,
            "board": [c.code for c in hand.board] if hand is not None else [],
            "pots": _pots(state, hand),
            "to_call": legal.call_amount if legal is not None else 0,
            "min_raise_to": legal.min_raise_to if legal is not None else None,
            "actions": _actions(hand),
        }

    def _level(self, state: TableViewState, started: HandStarted | None) -> dict[str, Any]:
        level = state.level
        out: dict[str, Any] = {"number": level.number, "small_blind": level.small_blind,
                               "big_blind": level.big_blind, "ante": level.ante,
                               "ante_mode": level.ante_mode, "ends_at": level.ends_at}
        if started is None:
            return out
        number = started.level or None
        small: int | None = None
        if number is not None and 1 <= number <= len(self.structure.levels):
            known = self.structure.level(number)
            if known.big_blind == started.big_blind:
                small = known.small_blind
        if small is None:
            small = started.small_blind or level.small_blind or started.level_small_blind()
        ante = max(started.antes, default=0)
        out.update(number=number, small_blind=small, big_blind=started.big_blind, ante=ante,
                   ante_mode=self.ante_mode or _ante_mode(started))
        if level.number != number:
            out["ends_at"] = None
        return out

    def _seats(self, state: TableViewState, hand: Hand | None,
               legal: LegalActions | None) -> list[dict[str, Any]]:
        in_hand = set(hand.seats) if hand is not None else set()
        count = max([self.seat_count, *state.roster, *in_hand])
        big_blind = state.level.big_blind
        if hand is not None and hand.started is not None:
            big_blind = hand.big_blind
        positions = _positions(hand, state.button)
        cards = self._cards(state, hand)
        live = set(hand.live_seats) if hand is not None else set()
        extras = self._derived(hand, cards, live)
        last = _last_actions(hand)
        won: dict[int, int] = {}
        for award in hand.awards if hand is not None else ():
            for seat, share in zip(award.seats, award.shares, strict=True):
                won[seat] = won.get(seat, 0) + share
        over = hand is None or hand.is_over
        out = []
        for seat in range(1, count + 1):
            entry = _empty_seat(seat, positions.get(seat))
            player = state.roster.get(seat)
            # After the hand the table's roster decides: a player who left with chips
            # (disqualified, seat emptied) is gone, a corrected stack shows at once; a player
            # who busted in the hand stays in the picture of that hand until the next one.
            left = (over and hand is not None and seat in in_hand and player is None
                    and hand.stack(seat) > 0)
            if hand is not None and seat in in_hand and not left:
                stack = player.stack if over and player is not None else hand.stack(seat)
                dead = hand.is_folded(seat) or hand.is_mucked(seat)
                entry.update(
                    name=hand.names[hand.seats.index(seat)], stack=stack,
                    stack_bb=_in_bb(stack, big_blind), bet=hand.bets[hand.seats.index(seat)],
                    to_act=legal is not None and legal.seat == seat, folded=dead,
                    all_in=stack == 0 and not dead and not over,
                    sitting_out=hand.started is not None and seat in hand.started.absent,
                    last_action=last.get(seat), cards=_codes(cards.get(seat)),
                    winner=seat in won, won=won.get(seat, 0))
                entry.update(extras.get(seat, {}))
            elif player is not None:
                entry.update(name=player.name, stack=player.stack,
                             stack_bb=_in_bb(player.stack, big_blind),
                             sitting_out=hand is not None and not over)
            out.append(entry)
        return out

    def _cards(self, state: TableViewState, hand: Hand | None,
               ) -> dict[int, tuple[Card | None, ...] | None]:
        """Each seat's hole cards as this channel knows them (None: not dealt)."""
        if hand is None:
            return {}
        out: dict[int, tuple[Card | None, ...] | None] = {}
        for seat in hand.seats:
            hole = hand.hole_cards(seat)
            shown = state.revealed.get(seat)
            if shown is not None and hand.is_over:
                hole = tuple(s if s is not None else (hole[k] if hole else None)
                             for k, s in enumerate(shown))
            out[seat] = hole
        return out

    def _derived(self, hand: Hand | None, cards: Mapping[int, tuple[Card | None, ...] | None],
                 live: set[int]) -> dict[int, dict[str, Any]]:
        """Equity, hand, best five and outs per seat, from the known cards only."""
        if hand is None or hand.street is Street.VOID:
            return {}
        board = tuple(hand.board)
        known = {seat: _complete(cards.get(seat)) for seat in hand.seats}
        out: dict[int, dict[str, Any]] = {}
        if len(board) >= 3:
            for seat in live:
                hole = known[seat]
                if hole is not None:
                    name, best = _made_hand(_key(hole), _key(board))
                    out[seat] = {"hand": name, "best_five": list(best)}
        players = [seat for seat in hand.seats if seat in live]
        if len(players) < 2 or any(known[seat] is None for seat in players):
            return out
        dead = tuple(sorted((c for seat in hand.seats if seat not in live
                             for c in (cards.get(seat) or ()) if c is not None),
                            key=lambda c: c.index))
        result = self._equity_of(tuple(known[s] or () for s in players), board, dead)
        unseen = 52 - len(board) - 2 * len(players) - len(dead)
        if result is None:
            return out
        for seat, player in zip(players, result.players, strict=True):
            entry = out.setdefault(seat, {})
            entry["equity"] = {"win": round(float(player.win), 4),
                               "tie": round(float(player.tie), 4),
                               "equity": round(float(player.equity), 4)}
            outs = player.outs
            if outs is not None and not outs.leading:
                nxt, by_river = hit_chances(len(outs.outs), unseen, len(board))
                entry["outs"] = {"cards": [c.code for c in outs.outs], "count": len(outs.outs),
                                 "next_card": nxt, "by_river": by_river}
        return out

    def _equity_of(self, hands: tuple[tuple[Card, ...], ...], board: tuple[Card, ...],
                   dead: tuple[Card, ...]) -> EquityResult | None:
        result, computed = self.equity_cache.get(hands, board, dead)
        self.equity_computations += computed
        return result


class EquityCache:
    """Equity results by (hands, board, dead cards), least recently used dropped first."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._results: OrderedDict[tuple[tuple[Codes, ...], Codes, Codes],
                                   EquityResult | None] = OrderedDict()

    def get(self, hands: tuple[tuple[Card, ...], ...], board: tuple[Card, ...],
            dead: tuple[Card, ...]) -> tuple[EquityResult | None, bool]:
        """The result (None when the cards allow none) and whether it was computed now."""
        key = (tuple(_key(h) for h in hands), _key(board), _key(dead))
        if key in self._results:
            self._results.move_to_end(key)
            return self._results[key], False
        try:
            result: EquityResult | None = equity(hands, board, dead)
        except FeltcastError:  # e.g. a card read twice on a reveal channel: no equity
            result = None
        self._results[key] = result
        while len(self._results) > self.size:
            self._results.popitem(last=False)
        return result, True


def reducer_for(spec: ChannelSpec, *, operator_channel: str = "operator",
                **options: Any) -> TableViewReducer:
    """The view reducer of a channel for ``overlay.hub.hubs_for``: the channel named
    ``operator_channel`` gets the ``operator`` object, no other one does."""
    return TableViewReducer(spec, operator=spec.name == operator_channel, **options)


# --- helpers --------------------------------------------------------------------------------


def _legal(hand: Hand | None) -> LegalActions | None:
    """The pending decision, or None (nobody to act, or hole cards still to deal)."""
    if hand is None or hand.started is None or hand.is_over:
        return None
    legal = hand.legal_actions()
    if legal is None or any(hand.hole_cards(seat) is None for seat in hand.seats):
        return None
    return legal


def _table_event(state: TableViewState, payload: Any) -> None:
    """Table-level events the engine may add (read by kind and field names)."""
    kind = getattr(payload, "kind", None)
    seat = getattr(payload, "seat", None)
    if kind in ("player_seated", "seat_set") and isinstance(seat, int):
        name = getattr(payload, "name", None)
        stack = getattr(payload, "stack", None)
        if isinstance(name, str) and isinstance(stack, int):
            state.roster[seat] = _Player(name, stack)
    elif kind == "seat_emptied" and isinstance(seat, int):
        state.roster.pop(seat, None)
    elif kind in ("level_started", "level_changed"):
        level = state.level
        number = getattr(payload, "number", getattr(payload, "level", None))
        level.number = number if isinstance(number, int) else level.number
        for name in ("small_blind", "big_blind", "ante"):
            value = getattr(payload, name, None)
            if isinstance(value, int):
                setattr(level, name, value)
        ends_at = getattr(payload, "ends_at", None)
        level.ends_at = float(ends_at) if isinstance(ends_at, int | float) else None
        mode = getattr(payload, "ante_mode", None)
        level.ante_mode = str(mode) if mode is not None else level.ante_mode
    elif kind in ("button_set", "button_moved") and isinstance(seat, int):
        state.button = seat
    elif kind in ("clock_called", "clock_started") and isinstance(seat, int):
        state.clock = ClockState(seat, state.as_of or 0.0)
    elif kind in ("clock_stopped", "clock_expired"):
        state.clock = None


def _ante_mode(started: HandStarted) -> str:
    """R4's ante mode as the hand's ante obligations show it."""
    payers = [i for i, a in enumerate(started.antes) if a > 0]
    if not payers:
        return "none"
    if len(payers) == len(started.antes) and len(payers) > 1:
        return "per_player"
    top = max(started.blinds)
    if len(payers) == 1 and started.blinds[payers[0]] == top:
        return "big_blind"
    return "button"


def _positions(hand: Hand | None, button: int | None) -> dict[int, str]:
    """BTN / SB / BB / BTN/SB (R2, R3, R4) from the hand's button and posted blinds."""
    out: dict[int, str] = {}
    if hand is None or hand.started is None:
        return {button: "BTN"} if button is not None else out
    small = big = None
    for event in hand.effective_events:
        if isinstance(event, BlindPosted):
            if event.blind == "small":
                small = event.seat
            else:
                big = event.seat
    if big is not None:
        out[big] = "BB"
    if small is not None:
        out[small] = "SB"
    btn = hand.started.button
    if btn is not None and btn not in out:
        out[btn] = "BTN"
    elif btn is not None and out[btn] == "SB":
        out[btn] = "BTN/SB"  # R3: heads-up the button posts the small blind
    return out


def _pots(state: TableViewState, hand: Hand | None) -> list[dict[str, Any]]:
    """Main pot first; amounts are the chips in the middle (this street's bets, still in
    front of the players, are not included: pages add ``seats[].bet``)."""
    if hand is None or hand.started is None or hand.street is Street.VOID:
        return []
    awards = hand.awards
    if state.awarded_pots is not None and awards:
        pots = state.awarded_pots
    elif hand.is_over:
        return [{"amount": a.amount, "eligible": list(a.seats), "winners": list(a.seats),
                 "label": pot_label(a.pot)} for a in awards]
    else:
        pots = _collected_pots(hand)
    winners = {a.pot: list(a.seats) for a in awards}
    return [{"amount": pot.amount, "eligible": list(pot.seats),
             "winners": winners.get(number, []), "label": pot_label(number)}
            for number, pot in enumerate(pots)]


def _collected_pots(hand: Hand) -> tuple[Pot, ...]:
    """The engine's pots (R16) built from the chips already in the middle."""
    started = hand.started
    assert started is not None
    antes = [0] * len(hand.seats)
    for event in hand.effective_events:
        if isinstance(event, AntePosted):
            antes[hand.seats.index(event.seat)] += event.amount
    dead = sum(antes) if started.dead_antes else 0
    contributions = [c - b - (a if started.dead_antes else 0) for c, b, a in
                     zip(hand.contributions, hand.bets, antes, strict=True)]
    live = set(hand.live_seats)
    return build_pots(contributions, [s not in live for s in hand.seats], seats=hand.seats,
                      dead=dead)


def _actions(hand: Hand | None) -> list[dict[str, Any]]:
    if hand is None or hand.started is None:
        return []
    names = dict(zip(hand.seats, hand.names, strict=True))
    street = Street.PREFLOP
    out = []
    for event in hand.effective_events:
        if isinstance(event, StreetStarted):
            street = event.street
        elif isinstance(event, ActionTaken):
            name = names.get(event.seat, f"Seat {event.seat}")
            out.append({"seat": event.seat, "name": name, "street": str(street),
                        "verb": str(event.action), "amount": action_amount(event),
                        "text": action_text(name, event)})
    return out


def _last_actions(hand: Hand | None) -> dict[int, str]:
    """Each seat's last action on the current street (R11/R12 forced ones included)."""
    out: dict[int, str] = {}
    if hand is None:
        return out
    for event in hand.effective_events:
        if isinstance(event, StreetStarted):
            out.clear()
        elif isinstance(event, ActionTaken):
            out[event.seat] = last_action_text(event)
    return out


def _empty_seat(seat: int, position: str | None) -> dict[str, Any]:
    return {"seat": seat, "name": None, "stack": None, "stack_bb": None, "bet": 0,
            "position": position, "to_act": False, "folded": False, "all_in": False,
            "sitting_out": False, "last_action": None, "cards": [], "equity": None,
            "hand": None, "best_five": None, "outs": None, "winner": False, "won": 0}


def _in_bb(stack: int, big_blind: int | None) -> float | None:
    return round(stack / big_blind, 1) if big_blind else None


def _codes(cards: Sequence[Card | None] | None) -> list[str | None]:
    return [] if cards is None else [c.code if c is not None else None for c in cards]


def _complete(cards: Sequence[Card | None] | None) -> tuple[Card, ...] | None:
    if cards is None or len(cards) != 2 or any(c is None for c in cards):
        return None
    return tuple(c for c in cards if c is not None)


def _key(cards: Iterable[Card]) -> Codes:
    return tuple(c.code for c in cards)


@lru_cache(maxsize=4096)
def _made_hand(hole: Codes, board: Codes) -> tuple[str, Codes]:
    """The made hand's name and its best five (R18), by the engine's evaluator."""
    value = evaluate(hole + board)
    return value.describe(), _key(value.best_five)
