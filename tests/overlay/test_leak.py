"""The leak test (issue 4's proof): seeded random hands through the real engine, the channels
and their hubs with the service's own view reducers (:func:`overlay.channel_views.view_reducers`:
the page view model of ``docs/view-model.md``, operator channel included), recording every
message each subscriber receives and when.

* No secret ever appears on ``venue`` (nor on ``reveal`` before its hand is over): no secret
  card code anywhere in the JSON text of any message (hole cards, best five, the ``allin``
  object, events, and codes standing alone in texts such as the ticker), outs excepted: they
  list the cards a channel does *not* see. Hand names, equity and outs of untabled hands are
  the exactness check's part (R20).
* Nothing appears on ``delayed`` before ``event time + D``.
* Burn cards (R19) appear on no channel at all, not even ``secure``.
* Snapshot plus patches always equals the channel's view, for every subscriber (also late and
  slow ones, which are resynchronised).
* Every view a channel shows is exact: names, stacks, bets, board, pots, eliminations, and hole
  cards, equity, hand names and outs as that channel may know them, checked against the full
  log replayed by the engine (``tests/engine/viewkit.py``'s oracle) at the channel's horizon.
"""

from __future__ import annotations

import asyncio
import random
import re
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine.channels import ChannelFilter, ChannelSpec, channels_from_config, due_items
from engine.events import (
    EVENT_KINDS,
    BoardDealt,
    CardBurned,
    HandMucked,
    HandShown,
    HoleCardsDealt,
)
from engine.log import TableEvent
from overlay.app import channel_specs
from overlay.channel_views import view_reducers
from overlay.config import Config, parse_config
from overlay.hub import ChannelHub, ChannelMessage, Subscription, apply_merge_patch
from tests.engine.viewkit import Oracle, check_view, codes, same_view, shape_errors
from tests.hands import random_log

HAND_ENDS = {"hand_ended", "hand_voided"}
#: What a live public channel may carry (hole cards and mucks only as "has cards").
PUBLIC_KINDS = {k for k in EVENT_KINDS if k != "card_burned"} | {
    "capture.reader_offline", "capture.reader_online", "capture.burn_seen"}
#: A card code standing alone ("Ah" in JSON, "Flop Ah Kd Qc" in a text), not inside a word.
CARD_WORD = re.compile(r"\b[2-9TJQKA][cdhs]\b")
#: A seat's outs in a message's JSON text (``docs/view-model.md``: cards first, then count).
OUTS = re.compile(r'"outs":\{"cards":\[[^\]]*\]')
CONFIG = parse_config({"table": {"name": "Leak Test Final Table"},
                       "tournament": {"entrants": 9, "prize_pool": 90_000, "currency": "EUR"}})
"""A table with prizes (R23), so that the views carry payouts, ICM and, at an all-in, the
``allin`` object (drawn from hole cards: public only once the hands are tabled)."""


def cards_shown(message: ChannelMessage) -> set[str]:
    """Every card code a message shows, in the JSON text that goes on the wire: each string
    that is a card code and each card code standing alone in a text, anywhere but in ``outs``
    (the cards a channel does not see: a secret card is rightly among them on a public channel,
    and so is a burn card on any channel, as neither is known to be anywhere)."""
    return set(CARD_WORD.findall(OUTS.sub("", message.text)))


@dataclass(slots=True)
class Hands:
    """Per log position: which hand, which of its cards are secret, public, burned."""

    hand_of: dict[int, int] = field(default_factory=dict)
    secret: dict[int, set[str]] = field(default_factory=dict)
    burns: dict[int, set[str]] = field(default_factory=dict)
    public_at: dict[int, set[str]] = field(default_factory=dict)
    end_seq: dict[int, int] = field(default_factory=dict)

    @classmethod
    def of(cls, entries: list[TableEvent]) -> Hands:
        hands = cls()
        number = 0
        public: set[str] = set()
        for entry in entries:
            event = entry.payload
            if entry.kind == "hand_started":
                number += 1
                public = set()
                hands.secret[number], hands.burns[number] = set(), set()
            if isinstance(event, HoleCardsDealt | HandMucked):
                hands.secret[number] |= {c.code for c in event.cards if c is not None}
            if isinstance(event, CardBurned) and event.card is not None:
                hands.burns[number].add(event.card.code)
            if isinstance(event, BoardDealt | HandShown):
                public |= {c.code for c in event.cards}
            if entry.kind in HAND_ENDS:
                hands.end_seq[number] = entry.seq
            hands.hand_of[entry.seq] = number
            hands.public_at[entry.seq] = set(public)
        return hands

    def forbidden(self, spec: ChannelSpec, position: int) -> set[str]:
        """Card codes that channel ``spec`` may not show once it has released up to
        ``position``."""
        number = self.hand_of.get(position, 0)
        if number == 0:  # before the first hand (reader health records): no card yet
            return set()
        burns = self.burns[number]
        if spec.filter is ChannelFilter.FULL:
            return burns
        if (spec.filter is ChannelFilter.REVEAL_AFTER_HAND
                and position >= self.end_seq.get(number, 1 << 60)):
            return burns
        return (self.secret[number] - self.public_at[position]) | burns


@dataclass(slots=True)
class Client:
    """One subscriber and what it rebuilt from its messages."""

    channel: str
    subscription: Subscription
    slow: bool = False
    view: dict | None = None
    revision: int | None = None
    position: int = 0
    received: list[tuple[float, int, ChannelMessage]] = field(default_factory=list)

    def take(self, now: float, message: ChannelMessage) -> None:
        if message.type == "snapshot":
            self.view, self.revision = message.data["view"], message.revision
            self.position = message.data["seq"]
        else:
            assert message.type == "patch"
            assert self.revision is not None and message.revision == self.revision + 1, \
                f"{self.channel}: gap or duplicate at revision {message.revision}"
            self.view = apply_merge_patch(self.view, message.data["patch"])
            self.revision = message.revision
            self.position = max(self.position, message.data["seq"])
        self.received.append((now, self.position, message))


@dataclass(slots=True)
class Run:
    """What a simulation leaves: the hubs, their subscribers, the end time, and every view
    each channel showed (its horizon, the view) as the hub drew it."""

    hubs: dict[str, ChannelHub[Any]]
    clients: list[Client]
    end: float
    shown: dict[str, list[tuple[int, dict[str, Any]]]]


def simulate(entries: list[TableEvent], specs: dict[str, ChannelSpec], rng: random.Random,
             ) -> Run:
    """Offer the log to every hub in (simulated) real time, subscribers joining and reading
    at random moments."""
    now = [entries[0].time - 1.0]
    reducers = view_reducers(CONFIG, specs.values())
    hubs: dict[str, ChannelHub[Any]] = {
        name: ChannelHub(spec, reducers[name], log_id="L", clock=lambda: now[0],
                         queue_size=rng.choice((4, 64, 1024)))
        for name, spec in specs.items()}
    shown: dict[str, list[tuple[int, dict[str, Any]]]] = {name: [] for name in hubs}
    clients: list[Client] = []

    def join(name: str, slow: bool = False) -> None:
        clients.append(Client(name, hubs[name].subscribe(), slow))

    for name in hubs:
        join(name)
        join(name, slow=True)
    moments = sorted({e.time for e in entries}
                     | {e.time + s.delay for e in entries for s in specs.values()}
                     | {entries[-1].time + s.delay + 1.0 for s in specs.values()})
    offered = 0
    for step, moment in enumerate(moments):
        now[0] = moment
        fresh = []
        while offered < len(entries) and entries[offered].time <= moment:
            fresh.append(entries[offered])
            offered += 1
        changed = set()
        for name, hub in hubs.items():
            before = hub.revision
            hub.offer(fresh)  # releases what is due now
            if hub.revision != before:
                changed.add(name)
                shown[name].append((hub.seq, hub.snapshot_message().data["view"]))
        if rng.random() < 0.05:
            join(rng.choice(list(hubs)))
        for client in clients:
            if client.slow and rng.random() < 0.8 and step != len(moments) - 1:
                continue
            took = len(client.received)
            while (message := client.subscription.get_nowait()) is not None:
                client.take(moment, message)
            # A reader that keeps up has the hub's view at every moment (checked when either
            # changed: a hub that changed while its reader got nothing fails here too).
            if not client.slow and (took != len(client.received) or client.channel in changed):
                assert same_view(client.view, hubs[client.channel].snapshot_message().data[
                    "view"]), f"{client.channel}: a client's view is not the hub's"
    return Run(hubs, clients, now[0], shown)


def channels(delay: float) -> dict[str, ChannelSpec]:
    """Every built-in channel enabled, a delayed public one, and the operator's (as the
    service adds it)."""
    configured = channels_from_config({"delayed": {"delay": delay}, "secure": {"enabled": True},
                                       "reveal": {"enabled": True},
                                       "commentary": {"filter": "public", "delay": delay / 2}})
    return channel_specs(Config(channels=tuple(configured.values())))


def check_log(entries: list[TableEvent], specs: dict[str, ChannelSpec], seed: int,
              served: dict[str, ChannelSpec] | None = None) -> None:
    """Check the channels ``specs`` promise against hubs built from ``served`` (the same
    unless a test breaks one on purpose)."""
    hands = Hands.of(entries)
    by_seq = {e.seq: e for e in entries}

    runs: list[Run] = []  # (not the coroutine's result: asyncio may repr that)

    async def simulated() -> None:
        runs.append(simulate(entries, served or specs, random.Random(seed)))
        for hub in runs[0].hubs.values():
            hub.close()

    asyncio.run(simulated())
    (run,) = runs
    hubs = run.hubs
    shown: dict[int, set[str]] = {}  # card codes a message shows, by message
    forbidden: dict[tuple[str, int], set[str]] = {}
    for client in run.clients:
        spec = specs[client.channel]
        assert client.received, f"{client.channel}: no message at all"
        for at, position, message in client.received:
            cards = shown.get(id(message))
            if cards is None:
                cards = shown[id(message)] = cards_shown(message)
            key = (client.channel, position)
            if key not in forbidden:
                forbidden[key] = hands.forbidden(spec, position)
            leaked = cards & forbidden[key]
            assert not leaked, (f"{client.channel} leaked {sorted(leaked)} at position "
                                f"{position}: {message.text[:300]}")
            if message.type != "patch":
                continue
            entry = by_seq[message.data["seq"]]
            assert at >= entry.time + spec.delay, f"{client.channel} released early"
            for event in message.data["events"]:
                assert event["kind"] != "card_burned"
                if spec.filter is not ChannelFilter.FULL and not event.get("revealed"):
                    if event["kind"] in {"hole_cards_dealt", "hand_mucked"}:
                        assert event["cards"] == [None] * len(event["cards"])
                    assert event["kind"] in PUBLIC_KINDS, event["kind"]
        # Snapshot plus patches equals the view, even for slow and late subscribers.
        assert same_view(client.view, hubs[client.channel].snapshot_message().data["view"]), \
            f"{client.channel}: a client's view is not the hub's"
    # Every view each channel showed, against the truth: the whole log replayed by the engine.
    oracle = Oracle.of(entries)
    for name, spec in specs.items():
        for horizon, view in run.shown[name]:
            check_view(spec, view, oracle.truths[horizon])
        # The hub's view is the service's reducer folding exactly what the channel released.
        items = due_items(spec, entries, run.end)
        reducer = view_reducers(CONFIG, [spec])[name]
        state = reducer.initial()
        for item in items:
            state = reducer.apply(state, item)
        view = hubs[name].snapshot_message().data["view"]
        assert view == reducer.snapshot(state)
        assert hubs[name].revision == len(items)
        assert shape_errors(view, operator=name == "operator") == []
        truth = oracle.truths[hubs[name].seq]
        hand = truth.hand
        if spec.filter is ChannelFilter.REVEAL_AFTER_HAND and truth.ended:
            # After the hand: every hole card the readers read (an unread one stays null).
            for seat in hand.seats:
                (entry,) = [s for s in view["seats"] if s["seat"] == seat]
                assert entry["cards"] == codes(hand.hole_cards(seat)), (name, seat)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), hands=st.integers(1, 4),
       delay=st.sampled_from([1.0, 5.0, 30.0]))
@example(seed=60366, hands=1, delay=1.0)  # a reader record before the first hand
def test_no_secret_leaks_and_every_view_is_exact(seed: int, hands: int, delay: float) -> None:
    entries = random_log(seed, hands, gaps=(0.0, 0.3, 1.0, 7.0))
    check_log(entries, channels(delay), seed)


def test_the_card_scan_reads_texts_and_skips_outs() -> None:
    """The scan finds a card code as a JSON string and standing alone in a text, not inside a
    word, and not among a seat's outs."""
    view = {"seats": [{"seat": 3, "cards": ["Ah", None], "outs": {"cards": ["Qs", "2c"],
                                                                  "count": 2}}],
            "tournament": {"ticker": "Hand 4: P3 shows Kd 7c, Aces and Queens"}}
    message = ChannelMessage({"type": "snapshot", "revision": 1, "seq": 9, "view": view})
    assert cards_shown(message) == {"Ah", "Kd", "7c"}


def test_the_leak_checker_catches_a_leaking_channel() -> None:
    """The oracle works: a venue channel served with full information is caught."""
    entries = random_log(7, 2)
    leaky = {**channels(5.0), "venue": ChannelSpec("venue", ChannelFilter.FULL,
                                                   requires_token=True)}
    try:
        check_log(entries, channels(5.0), 7, served=leaky)
    except AssertionError as error:
        assert "venue" in str(error)
    else:
        raise AssertionError("a full-information venue channel went unnoticed")


def test_the_leak_checker_catches_an_early_release() -> None:
    entries = random_log(11, 1)
    early = {**channels(30.0), "delayed": ChannelSpec("delayed", ChannelFilter.FULL, delay=29)}
    try:
        check_log(entries, channels(30.0), 11, served=early)
    except AssertionError as error:
        assert "delayed released early" in str(error)
    else:
        raise AssertionError("an early release went unnoticed")
