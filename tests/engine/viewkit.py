"""Shared helpers for the view-model tests: log engine events, release them on a channel and
fold them through :class:`engine.view.TableViewReducer`, and the documented shape of a view
(``docs/view-model.md``) to check every field is present."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from typing import Any

from engine.channels import ChannelFilter, ChannelItem, ChannelSpec, ChannelView
from engine.events import Event
from engine.log import TableEvent
from engine.table import Table, TableRules
from engine.view import TableViewReducer, TableViewState

T0 = 1_764_500_000.0

VENUE = ChannelSpec("venue", ChannelFilter.PUBLIC)
DELAYED = ChannelSpec("delayed", ChannelFilter.FULL, delay=30.0)
SECURE = ChannelSpec("secure", ChannelFilter.FULL, requires_token=True)
REVEAL = ChannelSpec("reveal", ChannelFilter.REVEAL_AFTER_HAND)
OPERATOR = ChannelSpec("operator", ChannelFilter.FULL, requires_token=True)
SPECS = (VENUE, DELAYED, SECURE, REVEAL)

# Every documented key (docs/view-model.md) of each object of the view.
VIEW_KEYS = {"channel", "table", "seats", "alerts", "tournament"}
TOURNAMENT_KEYS = {"name", "clock", "action_clock", "field", "players", "eliminations",
                   "payouts", "icm", "allin", "stats", "ticker"}
TOURNAMENT_CLOCK_KEYS = {"level", "small_blind", "big_blind", "ante", "is_break", "running",
                         "started", "remaining", "as_of", "name", "next"}
FIELD_KEYS = {"entrants", "remaining", "total_chips", "average", "average_bb", "chip_leader"}
PLAYER_KEYS = {"seat", "name", "display_name", "table_name", "country", "photo", "stack",
               "in_bb", "share", "rank", "prize_so_far"}
ELIMINATION_KEYS = {"seat", "place", "name", "display_name", "country", "photo", "prize",
                    "hand"}
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
OUTS_KEYS = {"cards", "count"}
OPERATOR_KEYS = {"between_hands", "legal", "undo", "clock", "cards_needed", "capture", "decks",
                 "obs", "channels", "pages"}
LEGAL_KEYS = {"seat", "name", "fold", "check", "call", "bet", "raise", "all_in", "ruling"}
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
