"""The view model per channel on seeded random tournament play (tests/hands.py: the real
Table and Hand, random legal actions, undos, misdeals, mucks, unread cards, burn cards,
eliminations): what each channel's view may show, checked after every released item against
the full log replayed by the engine.

* ``venue`` (public) and ``reveal`` while its hand runs: a hole card code only once that
  hand was tabled, and equity, hand name, best five and outs only from tabled hands (R20);
* ``reveal`` after the hand: the hole cards the full log dealt;
* ``delayed`` and ``secure`` (full): the engine's hole cards, and the equity of
  :func:`engine.equity.equity` with folded and mucked cards dead (R20);
* every channel: burn cards nowhere (R19), names, stacks, bets, chips in the middle and
  eliminations (R22) as the engine has them, every documented field present, and the hub's
  snapshot plus patches equal the view.

The oracle (:class:`tests.engine.viewkit.Oracle`, :func:`tests.engine.viewkit.check_view`) is
shared with the leak test (``tests/overlay/test_leak.py``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.channels import ChannelSpec
from engine.view import TableViewReducer
from overlay.hub import ChannelHub, apply_merge_patch
from tests.engine.viewkit import (
    DELAYED,
    REVEAL,
    SECURE,
    SPECS,
    VENUE,
    Oracle,
    check_view,
    codes,
    drop_nulls,
    released,
    shape_errors,
)
from tests.hands import random_log


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
        # The view is as of the last log entry released (reveals follow their hand's end).
        assert view["channel"]["as_of"] == oracle.entries[horizon - 1].time, spec.name
        compared += check_view(spec, view, truth)
    return compared


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
