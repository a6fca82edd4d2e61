"""The view model per channel on seeded random tournament play (tests/log/hands.py: the real
Table and Hand, random legal actions, undos, misdeals, mucks, unread cards, burn cards,
eliminations): what each channel's view may show, checked after every released item against
the full log replayed by the engine.

* ``venue`` (public) and ``reveal`` while its hand runs: a hole card code only once that
  hand was tabled, and equity, hand name, best five and outs only from tabled hands (R20);
* ``reveal`` after the hand: the hole cards the full log dealt;
* ``delayed`` and ``secure`` (full): the engine's hole cards, and the equity of
  :func:`engine.equity.equity` with folded and mucked cards dead (R20);
* every channel: burn cards nowhere (R19), stacks and chips in the middle as the engine has
  them, every documented field present, and the hub's snapshot plus patches equal the view.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import Card
from engine.channels import ChannelFilter, ChannelSpec
from engine.equity import EquityResult, equity
from engine.events import CardBurned, HandShown, HandStarted
from engine.hand import Hand
from engine.log import TableEvent
from engine.view import HAND_EVENTS, TableViewReducer
from overlay.hub import ChannelHub, apply_merge_patch
from tests.engine.viewkit import DELAYED, REVEAL, SECURE, SPECS, VENUE, released, shape_errors
from tests.log.hands import random_log

HAND_ENDS = ("hand_ended", "hand_voided")


@dataclass
class Truth:
    """The full log's current hand after each sequence number (what really happened)."""

    hand: Hand
    shown: dict[int, tuple[str, ...]]
    burned: set[str]
    ended: bool


@dataclass
class Oracle:
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
            if isinstance(payload, HAND_EVENTS):  # not eliminations nor capture records
                events.append(payload)
                hand = Hand.replay(events)
            oracle.truths[entry.seq] = Truth(hand, dict(shown), set(burned), ended)
        return oracle


_EQUITY: dict[tuple[Any, ...], EquityResult] = {}


def engine_equity(hands: list[tuple[Card, ...]], board: tuple[Card, ...],
                  dead: tuple[Card, ...]) -> EquityResult:
    key = (tuple(hands), board, tuple(sorted(dead, key=lambda c: c.index)))
    if key not in _EQUITY:
        _EQUITY[key] = equity(hands, board, dead)
    return _EQUITY[key]


def codes(cards: Any) -> list[str | None]:
    return [] if cards is None else [c.code if c is not None else None for c in cards]


def check_channel(spec: ChannelSpec, oracle: Oracle) -> int:
    """Fold the channel's items through a reducer and check every view; returns how many
    equities were compared."""
    reducer = TableViewReducer(spec)
    state = reducer.initial()
    horizon = 0
    compared = 0
    for item in released(spec, oracle.entries):
        state = reducer.apply(state, item)
        view = reducer.snapshot(state)
        horizon = max(horizon, item.event.seq)
        truth = oracle.truths[horizon]
        assert shape_errors(view) == [], (spec.name, horizon)
        compared += check_view(spec, view, truth)
    return compared


def check_view(spec: ChannelSpec, view: dict[str, Any], truth: Truth) -> int:
    hand = truth.hand
    seats = {entry["seat"]: entry for entry in view["seats"]}
    live = set(hand.live_seats)
    # R19: a burn card of this hand appears in no card field of any channel.
    visible = set(view["table"]["board"])
    for entry in view["seats"]:
        visible |= {c for c in entry["cards"] if c} | set(entry["best_five"] or ())
    assert not visible & truth.burned, (spec.name, visible & truth.burned)
    assert view["table"]["board"] == codes(hand.board)
    for seat in hand.seats:
        assert seats[seat]["stack"] == hand.stack(seat), (spec.name, seat)
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
            assert outs == {"cards": codes(player.outs.outs), "count": len(player.outs.outs)}
    return 1


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_every_channel_shows_only_what_it_may_know(seed: int) -> None:
    oracle = Oracle.of(random_log(seed, hands=3))
    for spec in SPECS:
        check_channel(spec, oracle)


def test_full_channels_compare_equities_on_many_hands() -> None:
    """Fixed seeds, so that the equity comparison surely runs (a hypothesis run could draw
    only hands with unread cards)."""
    compared = 0
    for seed in range(4):
        oracle = Oracle.of(random_log(seed, hands=3))
        compared += check_channel(DELAYED, oracle) + check_channel(SECURE, oracle)
        check_channel(VENUE, oracle)
        check_channel(REVEAL, oracle)
    assert compared >= 20


def test_reveal_shows_every_read_hole_card_once_the_hand_is_over() -> None:
    entries = random_log(7, hands=4)
    oracle = Oracle.of(entries)
    reducer = TableViewReducer(REVEAL)
    state = reducer.initial()
    items = released(REVEAL, entries)
    seen_reveal = 0
    for k, item in enumerate(items):
        state = reducer.apply(state, item)
        nxt = items[k + 1] if k + 1 < len(items) else None
        if item.revealed and (nxt is None or not nxt.revealed):  # the last revealed item
            seen_reveal += 1
            view = reducer.snapshot(state)
            hand = oracle.truths[max(i.event.seq for i in items[:k + 1])].hand
            for seat in hand.seats:
                real = codes(hand.hole_cards(seat))
                assert next(s for s in view["seats"] if s["seat"] == seat)["cards"] == real
    assert seen_reveal >= 2


async def test_the_hub_snapshot_plus_patches_equal_the_reducers_view() -> None:
    entries = random_log(11, hands=3)
    for spec in (VENUE, SECURE, REVEAL):
        hub: ChannelHub[Any] = ChannelHub(spec, TableViewReducer(spec), log_id="t",
                                          queue_size=100_000, loop=asyncio.get_running_loop())
        sub = hub.subscribe()
        hub.offer(entries)
        view: Any = None
        while (message := sub.get_nowait()) is not None:
            data = message.data
            view = data["view"] if data["type"] == "snapshot" else apply_merge_patch(
                view, data["patch"])
        expected = hub.reducer.snapshot(hub.state)
        assert drop_nulls(view) == drop_nulls(expected)  # RFC 7386: null is a deletion
        assert hub.revision == len(released(spec, entries))
        hub.close()


def drop_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_nulls(v) for v in value]
    return value


def test_after_every_undo_the_view_is_the_view_before_the_undone_command() -> None:
    """Undo (unlimited within a hand) gives back exactly the earlier picture, operator
    object included: the same view as just before the command it took back."""
    undos = 0
    for seed in (1, 2, 3, 5, 8):
        entries = random_log(seed, hands=4)
        reducer = TableViewReducer(SECURE, operator=True)
        state = reducer.initial()
        history: list[tuple[int, int, dict[str, Any]]] = []  # (hand, effective, view)
        for item in released(SECURE, entries):
            state = reducer.apply(state, item)
            view = reducer.snapshot(state)
            view["channel"]["as_of"] = None
            hand = state.hand
            if hand is None or hand.started is None:
                continue
            key = (hand.hand_number, len(hand.effective_events))
            if item.event.kind == "action_undone":
                earlier = [v for h, n, v in history if (h, n) == key]
                assert earlier, "no earlier view with these events"
                assert view == earlier[-1]
                undos += 1
            history.append((*key, view))
    assert undos >= 3
