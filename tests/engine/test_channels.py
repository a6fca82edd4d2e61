"""engine/channels.py: channel specs as configuration, the filter, release times, the view."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from engine.cards import Card, parse_cards
from engine.channels import (
    BUILTIN_CHANNELS,
    ChannelFilter,
    ChannelSpec,
    ChannelView,
    channels_from_config,
    due_items,
    filter_event,
)
from engine.errors import ConfigError, InvalidInputError
from engine.events import (
    ActionKind,
    ActionTaken,
    CardBurned,
    HandEnded,
    HandMucked,
    HandStarted,
    HoleCardsDealt,
    Secrecy,
)
from engine.log import TableEvent

HOLE = HoleCardsDealt(3, parse_cards("AhKd"))
FOLD = ActionTaken(3, ActionKind.FOLD)
BURN = CardBurned(Card("2c"))
START = HandStarted(hand_number=1, seats=(3, 5), names=("A", "B"), stacks=(100, 100),
                    button=5, blinds=(10, 5), antes=(0, 0), big_blind=10)


def log(*events: Any, t0: float = 100.0, step: float = 1.0) -> list[TableEvent]:
    return [TableEvent.record(i + 1, t0 + i * step, e) for i, e in enumerate(events)]


def test_builtin_channels_match_the_issue() -> None:
    venue, delayed, secure, reveal = (BUILTIN_CHANNELS[n] for n in
                                      ("venue", "delayed", "secure", "reveal"))
    assert (venue.filter, venue.delay, venue.enabled, venue.requires_token) == \
        (ChannelFilter.PUBLIC, 0.0, True, False)
    assert (delayed.filter, delayed.delay, delayed.enabled) == (ChannelFilter.FULL, 900.0, True)
    assert (secure.filter, secure.delay, secure.enabled, secure.requires_token) == \
        (ChannelFilter.FULL, 0.0, False, True)
    assert (reveal.filter, reveal.delay, reveal.enabled) == \
        (ChannelFilter.REVEAL_AFTER_HAND, 0.0, False)
    assert all(spec.audience for spec in BUILTIN_CHANNELS.values())


def test_config_changes_and_adds_channels() -> None:
    channels = channels_from_config({
        "delayed": {"delay": 30},
        "secure": {"enabled": True},
        "commentary": {"filter": "full", "delay": 60, "audience": "commentary booth"},
    })
    assert channels["delayed"] == dataclasses.replace(BUILTIN_CHANNELS["delayed"], delay=30.0)
    assert channels["secure"].enabled and channels["secure"].requires_token
    assert channels["commentary"] == ChannelSpec("commentary", ChannelFilter.FULL, 60.0,
                                                 audience="commentary booth")
    assert channels["venue"] is BUILTIN_CHANNELS["venue"]


@pytest.mark.parametrize("config, key", [
    ({"venue": {"filter": "everything"}}, "channels.venue.filter"),
    ({"delayed": {"delay": -1}}, "channels.delayed.delay"),
    ({"delayed": {"delay": "15 minutes"}}, "channels.delayed.delay"),
    ({"delayed": {"delay": True}}, "channels.delayed.delay"),
    ({"venue": {"colour": "red"}}, "channels.venue"),
    ({"extra": {"delay": 5}}, "channels.extra.filter"),
    ({"secure": {"enabled": "yes"}}, "channels.secure.enabled"),
    ({"two words": {"filter": "public"}}, "channels.two words"),
    ({"venue": "public"}, "channels.venue"),
    ({"secure": {"requires_token": False}}, "channels.secure.requires_token"),
    ({"venue": {"filter": "full"}}, "channels.venue.requires_token"),
])
def test_bad_channel_config_names_the_key(config: Any, key: str) -> None:
    with pytest.raises(ConfigError) as error:
        channels_from_config(config)
    assert error.value.key == key


def test_spec_configuration_round_trip() -> None:
    for spec in BUILTIN_CHANNELS.values():
        assert ChannelSpec.from_dict(spec.to_dict()) == spec


def test_filter_per_secrecy_class() -> None:
    hole, fold, burn = log(HOLE, FOLD, BURN)
    full, public = BUILTIN_CHANNELS["secure"], BUILTIN_CHANNELS["venue"]
    assert filter_event(full, hole) is hole
    assert filter_event(full, fold) is fold
    assert filter_event(public, fold) is fold
    assert filter_event(public, hole) == TableEvent(1, 100.0, Secrecy.PUBLIC,
                                                    HoleCardsDealt(3, (None, None)))
    for spec in channels_from_config({"x": {"filter": "full", "delay": 5}}).values():
        assert filter_event(spec, burn) is None  # R19: no channel at all


def test_release_is_time_plus_delay_and_never_goes_backwards() -> None:
    spec = ChannelSpec("d", ChannelFilter.FULL, delay=10)
    entries = [TableEvent.record(1, 100.0, FOLD), TableEvent.record(2, 97.0, FOLD),
               TableEvent.record(3, 105.0, FOLD)]
    view = ChannelView(spec)
    view.offer_all(entries)
    assert view.next_release() == 110.0
    assert view.due(109.999) == []
    assert [(i.event.seq, i.release) for i in view.due(110.0)] == [(1, 110.0), (2, 110.0)]
    assert view.next_release() == 115.0 and view.pending == 1
    assert [i.event.seq for i in view.due(1e9)] == [3]
    assert view.released == 3 and view.next_release() is None
    assert [i.release for i in due_items(spec, entries, 110.0)] == [110.0, 110.0]


def test_view_refuses_gaps_and_repeats() -> None:
    view = ChannelView(BUILTIN_CHANNELS["venue"])
    first, second, third = log(FOLD, FOLD, FOLD)
    view.offer(first)
    with pytest.raises(InvalidInputError, match="expected log event 2, got 3"):
        view.offer(third)
    with pytest.raises(InvalidInputError, match="expected log event 2, got 1"):
        view.offer(first)
    view.offer(second)


def test_reveal_channel_shows_hole_cards_only_after_the_hand() -> None:
    spec = BUILTIN_CHANNELS["reveal"]
    muck = HandMucked(5, parse_cards("7c2d"))
    entries = log(START, HOLE, BURN, FOLD, muck, HandEnded(stacks=(95, 105)))
    items = due_items(spec, entries, 1e9)
    shown = [(i.event.seq, i.event.payload, i.revealed) for i in items]
    assert shown == [
        (1, START, False),
        (2, HoleCardsDealt(3, (None, None)), False),
        (4, FOLD, False),
        (5, HandMucked(5, (None, None)), False),
        (6, HandEnded(stacks=(95, 105)), False),
        (2, HOLE, True),
        (5, muck, True),
    ]
    assert all(i.release == entries[-1].time for i in items[-2:])
    # Before the hand ends, nothing secret is pending either.
    view = ChannelView(spec)
    view.offer_all(entries[:5])
    assert all(i.event.secrecy is Secrecy.PUBLIC for i in view.due(1e9))


def test_reveal_channel_drops_secrets_of_a_hand_that_never_ended() -> None:
    spec = BUILTIN_CHANNELS["reveal"]
    entries = log(START, HOLE, START, HandEnded(stacks=(100, 100)))
    assert not any(i.revealed for i in due_items(spec, entries, 1e9))


def test_reveal_with_a_delay_releases_the_reveal_with_the_hand_end() -> None:
    spec = ChannelSpec("late_reveal", ChannelFilter.REVEAL_AFTER_HAND, delay=60)
    entries = log(START, HOLE, HandEnded(stacks=(100, 100)))
    assert due_items(spec, entries, entries[-1].time + 59.9)[-1].event.seq == 2
    assert [i.revealed for i in due_items(spec, entries, entries[-1].time + 60)] == \
        [False, False, False, True]


def test_each_channel_view_is_the_engine_replay_of_what_the_channel_saw() -> None:
    """The page view (engine/view.py, as the service builds it) from the items each channel
    released: hole cards per the filter, revealed after the hand on ``reveal``, the burn card
    nowhere (R19), the same stacks and eliminations (R22) everywhere."""
    import json

    from engine.events import PlayerEliminated
    from engine.view import reducer_for

    hand_log = log(START, HOLE, HoleCardsDealt(5, parse_cards("7c2d")), BURN,
                   ActionTaken(5, ActionKind.FOLD), HandEnded(stacks=(105, 95)),
                   PlayerEliminated(5, "B", 2, 1))
    views = {}
    for name in ("secure", "venue", "reveal"):
        reducer = reducer_for(BUILTIN_CHANNELS[name])
        state = reducer.initial()
        assert reducer.snapshot(state)["table"]["hand_number"] is None
        for item in due_items(BUILTIN_CHANNELS[name], hand_log, 1e9):
            state = reducer.apply(state, item)
        views[name] = reducer.snapshot(state)

    def cards(view: dict[str, Any]) -> dict[int, list[str | None]]:
        return {s["seat"]: s["cards"] for s in view["seats"] if s["name"] is not None}

    full, venue, reveal = views["secure"], views["venue"], views["reveal"]
    assert cards(full) == {3: ["Ah", "Kd"], 5: ["7c", "2d"]}
    assert cards(venue) == {3: [None, None], 5: [None, None]}
    assert cards(reveal) == cards(full)  # the hand is over: its hole cards are revealed
    stacks = [(s["seat"], s["stack"]) for s in full["seats"] if s["name"]]
    assert [seat for seat, _ in stacks] == [3, 5]
    for view in (full, venue, reveal):
        assert view["table"]["hand_number"] == 1 and view["table"]["street"] == "over"
        assert [(s["seat"], s["stack"]) for s in view["seats"] if s["name"]] == stacks
        assert [(e["seat"], e["place"]) for e in view["tournament"]["eliminations"]] == [(5, 2)]
        assert view["channel"]["as_of"] == hand_log[-1].time
    assert '"2c"' not in json.dumps(views)  # the burn card (R19)


def test_internal_events_reach_only_a_channel_that_shows_them() -> None:
    from engine.table_events import DevicesReported

    (devices,) = log(DevicesReported('{"pages":[{"page":"overlay"}]}'))
    assert devices.secrecy is Secrecy.INTERNAL and devices.public_view() is None
    for spec in BUILTIN_CHANNELS.values():  # venue, delayed, secure, reveal: never
        assert filter_event(dataclasses.replace(spec, enabled=True), devices) is None
        assert due_items(spec, [devices], float("inf")) == []
    operator = ChannelSpec("operator", ChannelFilter.FULL, requires_token=True, internal=True)
    assert filter_event(operator, devices) is devices


@pytest.mark.parametrize("settings", [
    {"filter": "public", "internal": True},                          # a public channel
    {"filter": "full", "delay": 30, "internal": True},               # no token
    {"filter": "full", "requires_token": True, "internal": "yes"},  # not a flag
])
def test_only_a_full_channel_with_a_token_may_show_internal_events(settings: Any) -> None:
    with pytest.raises(ConfigError) as error:
        channels_from_config({"x": settings})
    assert error.value.key == "channels.x.internal"
