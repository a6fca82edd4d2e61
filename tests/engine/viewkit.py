"""Shared helpers for the view-model tests: log engine events, release them on a channel and
fold them through :class:`engine.view.TableViewReducer`, the documented shape of a view
(``docs/view-model.md``) to check every field is present, and the oracle of what a channel's
view may show (:class:`Oracle`, :func:`check_view`: the full log replayed by the engine),
shared by the view tests and the leak test (``tests/overlay/test_leak.py``)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.cards import Card
from engine.channels import ChannelFilter, ChannelItem, ChannelSpec, ChannelView
from engine.equity import EquityResult, equity
from engine.events import CardBurned, Event, HandShown, HandStarted, PlayerEliminated
from engine.hand import Hand
from engine.log import TableEvent
from engine.table import Table, TableRules
from engine.view import HAND_EVENTS, TableViewReducer, TableViewState
from engine.view_tournament import ELIMINATIONS_SHOWN

T0 = 1_764_500_000.0

VENUE = ChannelSpec("venue", ChannelFilter.PUBLIC)
DELAYED = ChannelSpec("delayed", ChannelFilter.FULL, delay=30.0)
SECURE = ChannelSpec("secure", ChannelFilter.FULL, requires_token=True)
REVEAL = ChannelSpec("reveal", ChannelFilter.REVEAL_AFTER_HAND)
OPERATOR = ChannelSpec("operator", ChannelFilter.FULL, requires_token=True, internal=True)
SPECS = (VENUE, DELAYED, SECURE, REVEAL)

# Every documented key (docs/view-model.md) of each object of the view.
VIEW_KEYS = {"channel", "table", "seats", "alerts", "tournament", "graphics"}
GRAPHICS_KEYS = {"hidden"}
TOURNAMENT_KEYS = {"name", "clock", "action_clock", "field", "players", "eliminations",
                   "eliminated", "payouts", "icm", "allin", "stats", "stories", "ticker"}
TOURNAMENT_CLOCK_KEYS = {"level", "small_blind", "big_blind", "ante", "is_break", "running",
                         "started", "remaining", "as_of", "name", "next"}
FIELD_KEYS = {"entrants", "remaining", "total_chips", "average", "average_bb", "chip_leader"}
PLAYER_KEYS = {"seat", "name", "display_name", "table_name", "country", "photo", "stack",
               "in_bb", "share", "rank", "prize_so_far"}
ELIMINATION_KEYS = {"seat", "place", "name", "display_name", "table_name", "country", "photo",
                    "prize", "hand"}
CHANNEL_KEYS = {"name", "delay", "as_of", "live"}
TABLE_KEYS = {"name", "hand_number", "level", "street", "board", "pots", "to_call",
              "min_raise_to", "actions"}
LEVEL_KEYS = {"number", "small_blind", "big_blind", "ante", "ante_mode", "ends_at"}
POT_KEYS = {"amount", "eligible", "winners", "label"}
ACTION_KEYS = {"seat", "name", "street", "verb", "amount", "text"}
SEAT_KEYS = {"seat", "name", "stack", "stack_bb", "bet", "position", "to_act", "folded",
             "all_in", "sitting_out", "last_action", "cards", "equity", "hand", "best_five",
             "outs", "winner", "won"}
EQUITY_KEYS = {"win", "tie", "equity"}
OUTS_KEYS = {"cards", "count", "next_card", "by_river"}
OPERATOR_KEYS = {"between_hands", "legal", "undo", "clock", "cards_needed", "capture", "decks",
                 "obs", "channels", "pages", "refused_pages", "tags", "auto_operator"}
LEGAL_KEYS = {"seat", "name", "fold", "check", "call", "bet", "raise", "all_in", "ruling",
              "presets"}
UNDO_KEYS = {"available", "label"}
CLOCK_KEYS = {"seat", "phase", "remaining"}


def log_of(events: Iterable[Event], *, t0: float = T0, step: float = 1.0,
           start_seq: int = 1) -> list[TableEvent]:
    """Engine events as log entries, ``step`` seconds apart."""
    return [TableEvent.record(start_seq + k, t0 + k * step, event)
            for k, event in enumerate(events)]


def released(spec: ChannelSpec, entries: Sequence[TableEvent],
             now: float = math.inf) -> list[ChannelItem]:
    view = ChannelView(spec)
    view.offer_all(entries)
    return view.due(now)


def fold(spec: ChannelSpec, entries: Sequence[TableEvent], now: float = math.inf,
         **options: Any) -> tuple[TableViewReducer, TableViewState, list[dict[str, Any]]]:
    """Every view of ``spec`` (one per released item) and the reducer and its final state."""
    reducer = TableViewReducer(spec, **options)
    state = reducer.initial()
    views = []
    for item in released(spec, entries, now):
        state = reducer.apply(state, item)
        views.append(reducer.snapshot(state))
    return reducer, state, views


def last_view(spec: ChannelSpec, entries: Sequence[TableEvent], **options: Any,
              ) -> dict[str, Any]:
    reducer, state, _ = fold(spec, entries, **options)
    return reducer.snapshot(state)


def table_of(players: Sequence[tuple[int, str, int]], *, button: int, level: int = 1,
             rules: TableRules | None = None) -> Table:
    table = Table(rules)
    for seat, name, stack in players:
        table.seat_player(seat, name, stack)
    table.set_button(button)
    table.set_level(level)
    return table


def seat_of(view: dict[str, Any], seat: int) -> dict[str, Any]:
    (entry,) = [s for s in view["seats"] if s["seat"] == seat]
    return entry


def shape_errors(view: dict[str, Any], *, operator: bool = False) -> list[str]:
    """Every documented key missing (or undocumented key present) anywhere in ``view``."""
    errors: list[str] = []

    def check(where: str, obj: Any, keys: set[str]) -> None:
        if not isinstance(obj, dict):
            errors.append(f"{where} is not an object: {obj!r}")
            return
        if set(obj) != keys:
            errors.append(f"{where}: missing {sorted(keys - set(obj))}, "
                          f"extra {sorted(set(obj) - keys)}")

    check("view", view, VIEW_KEYS | ({"operator"} if operator else set()))
    check("channel", view.get("channel"), CHANNEL_KEYS)
    check("graphics", view.get("graphics"), GRAPHICS_KEYS)
    table = view.get("table", {})
    check("table", table, TABLE_KEYS)
    check("table.level", table.get("level"), LEVEL_KEYS)
    for k, pot in enumerate(table.get("pots", [])):
        check(f"table.pots[{k}]", pot, POT_KEYS)
    for k, action in enumerate(table.get("actions", [])):
        check(f"table.actions[{k}]", action, ACTION_KEYS)
    for seat in view.get("seats", []):
        where = f"seats[{seat.get('seat')}]"
        check(where, seat, SEAT_KEYS)
        if seat.get("equity") is not None:
            check(f"{where}.equity", seat["equity"], EQUITY_KEYS)
        if seat.get("outs") is not None:
            check(f"{where}.outs", seat["outs"], OUTS_KEYS)
    tournament = view.get("tournament", {})
    check("tournament", tournament, TOURNAMENT_KEYS)
    check("tournament.clock", tournament.get("clock"), TOURNAMENT_CLOCK_KEYS)
    check("tournament.field", tournament.get("field"), FIELD_KEYS)
    for k, player in enumerate(tournament.get("players", [])):
        check(f"tournament.players[{k}]", player, PLAYER_KEYS)
    for k, out in enumerate(tournament.get("eliminations", [])):
        check(f"tournament.eliminations[{k}]", out, ELIMINATION_KEYS)
    if operator:
        op = view.get("operator", {})
        check("operator", op, OPERATOR_KEYS)
        if op.get("legal") is not None:
            check("operator.legal", op["legal"], LEGAL_KEYS)
        check("operator.undo", op.get("undo"), UNDO_KEYS)
        check("operator.clock", op.get("clock"), CLOCK_KEYS)
    # JSON-ready: a round trip through JSON gives the same object.
    if json.loads(json.dumps(view, allow_nan=False)) != view:
        errors.append("the view does not survive a JSON round trip")
    return errors


HAND_ENDS = ("hand_ended", "hand_voided")


@dataclass
class Truth:
    """The full log's current hand after each sequence number (what really happened)."""

    hand: Hand
    shown: dict[int, tuple[str, ...]]
    burned: set[str]
    ended: bool
    eliminated: tuple[tuple[int, int, str], ...] = ()
    """Every player eliminated so far (R22): (seat, place, name), oldest first."""


@dataclass
class Oracle:
    """What really happened after each log entry: the full log replayed by the engine."""

    entries: list[TableEvent]
    truths: dict[int, Truth] = field(default_factory=dict)

    @classmethod
    def of(cls, entries: list[TableEvent]) -> Oracle:
        oracle = cls(entries)
        events: list[Any] = []
        shown: dict[int, tuple[str, ...]] = {}
        burned: set[str] = set()
        ended = False
        hand = Hand()
        eliminated: tuple[tuple[int, int, str], ...] = ()
        for entry in entries:
            payload = entry.payload
            if isinstance(payload, HandStarted):
                events, shown, burned, ended = [], {}, set(), False
            if isinstance(payload, CardBurned) and payload.card is not None:
                burned.add(payload.card.code)
            if isinstance(payload, HandShown):
                shown[payload.seat] = tuple(c.code for c in payload.cards)
            if payload.kind in HAND_ENDS:
                ended = True
            if isinstance(payload, PlayerEliminated):
                eliminated += ((payload.seat, payload.place, payload.name),)
            if isinstance(payload, HAND_EVENTS):  # not eliminations nor capture records
                events.append(payload)
                hand = Hand.replay(events)
            oracle.truths[entry.seq] = Truth(hand, dict(shown), set(burned), ended,
                                           eliminated)
        return oracle


_EQUITY: dict[tuple[Any, ...], EquityResult] = {}


def engine_equity(hands: list[tuple[Card, ...]], board: tuple[Card, ...],
                  dead: tuple[Card, ...]) -> EquityResult:
    key = (tuple(hands), board, tuple(sorted(dead, key=lambda c: c.index)))
    if key not in _EQUITY:
        _EQUITY[key] = equity(hands, board, dead)
    return _EQUITY[key]


def codes(cards: Any) -> list[str | None]:
    """Card codes of ``cards`` (``None`` for an unknown card, ``[]`` for no cards)."""
    return [] if cards is None else [c.code if c is not None else None for c in cards]


def check_view(spec: ChannelSpec, view: dict[str, Any], truth: Truth) -> int:
    """Check a view of channel ``spec`` against what really happened up to its horizon:
    names, stacks, bets, board, chips in the middle and eliminations as the engine has them,
    hole cards, equity, hand names and outs only as the channel may know them; returns 1 when
    the equities were compared with :func:`engine.equity.equity` (full channels), else 0."""
    hand = truth.hand
    seats = {entry["seat"]: entry for entry in view["seats"]}
    live = set(hand.live_seats)
    # R19: a burn card of this hand appears in no card field of any channel.
    visible = set(view["table"]["board"])
    for entry in view["seats"]:
        visible |= {c for c in entry["cards"] if c} | set(entry["best_five"] or ())
    assert not visible & truth.burned, (spec.name, visible & truth.burned)
    assert view["table"]["board"] == codes(hand.board)
    for seat, name, bet in zip(hand.seats, hand.names, hand.bets, strict=True):
        entry = seats[seat]
        assert entry["stack"] == hand.stack(seat), (spec.name, seat)
        assert (entry["name"], entry["bet"]) == (name, bet), (spec.name, seat)
        assert entry["folded"] == (hand.is_folded(seat) or hand.is_mucked(seat)), (
            spec.name, seat)
    out = [(e["seat"], e["place"], e["name"]) for e in view["tournament"]["eliminations"]]
    assert tuple(out) == truth.eliminated[-ELIMINATIONS_SHOWN:], (spec.name, out)  # R22
    assert view["tournament"]["eliminated"] == len(truth.eliminated), spec.name
    if not hand.is_over and not hand.awards:
        in_middle = sum(p["amount"] for p in view["table"]["pots"])
        assert in_middle + sum(hand.bets) == hand.total_pot
    full = spec.filter is ChannelFilter.FULL
    revealed = spec.filter is ChannelFilter.REVEAL_AFTER_HAND and truth.ended
    for seat in hand.seats:
        entry = seats[seat]
        real = codes(hand.hole_cards(seat))
        if full:
            assert entry["cards"] == real, (spec.name, seat)
        elif revealed:  # revealed items follow the hand's end: a card is null or the real one
            tabled = list(truth.shown.get(seat, ()))
            assert entry["cards"] == tabled or all(
                c is None or c == r for c, r in zip(entry["cards"], real, strict=True)), (
                spec.name, seat)
        elif seat in truth.shown:
            assert entry["cards"] == list(truth.shown[seat])
        else:  # R20: nobody at the table may learn an untabled hand
            assert all(c is None for c in entry["cards"]), (spec.name, seat, entry["cards"])
            for key in ("equity", "hand", "best_five", "outs"):
                assert entry[key] is None, (spec.name, seat, key)
    if not full and not revealed:
        with_equity = [s for s in hand.seats if seats[s]["equity"] is not None]
        if with_equity:
            assert live <= set(truth.shown), "equity from an untabled hand"
    if not full or hand.street.value == "void" or len(live) < 2:
        return 0
    known = {s: hand.hole_cards(s) for s in hand.seats}
    players = [s for s in hand.seats if s in live]
    if any(known[s] is None or None in known[s] for s in players):  # type: ignore[operator]
        assert all(seats[s]["equity"] is None for s in hand.seats)
        return 0
    dead = tuple(c for s in hand.seats if s not in live for c in (known[s] or ()) if c)
    hands = [tuple(c for c in known[s] or () if c) for s in players]
    result = engine_equity(hands, tuple(hand.board), dead)
    for seat, player in zip(players, result.players, strict=True):
        assert seats[seat]["equity"] == {"win": round(float(player.win), 4),
                                         "tie": round(float(player.tie), 4),
                                         "equity": round(float(player.equity), 4)}
        outs = seats[seat]["outs"]
        if player.outs is None or player.outs.leading:
            assert outs is None
        else:
            count = len(player.outs.outs)
            unseen = 52 - len(hand.board) - 2 * len(players) - len(dead)
            # Counted here over the cards to come: the boards with no out among them.
            to_come = 5 - len(hand.board)
            miss = math.comb(unseen - count, to_come) / math.comb(unseen, to_come)
            assert outs == {"cards": codes(player.outs.outs), "count": count,
                            "next_card": round(count / unseen, 4),
                            "by_river": round(1 - miss, 4)}
    return 1


def drop_nulls(value: Any) -> Any:
    """``value`` without its ``null`` object members: what a client holds after merge patches
    (RFC 7386: ``null`` deletes a key), to compare with the server's view."""
    if isinstance(value, dict):
        return {k: drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_nulls(v) for v in value]
    return value


def same_view(client: Any, server: Any) -> bool:
    """``client`` (a view rebuilt from merge patches) equals ``server``'s view, a missing
    object member counting as ``null`` (RFC 7386: a patch deletes a member set to null)."""
    if client == server:
        return True
    if isinstance(client, dict) and isinstance(server, dict):
        return all(same_view(client.get(k), server.get(k)) for k in client.keys() | server.keys())
    if isinstance(client, list) and isinstance(server, list):
        return len(client) == len(server) and all(map(same_view, client, server))
    return False
