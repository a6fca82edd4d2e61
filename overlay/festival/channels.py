"""The festival's public channels: its places and prizes for the web workers' pages.

The director's service keeps the festival as a log (:mod:`overlay.festival.director`); the
same log feeds :class:`overlay.hub.ChannelHub` s, one per channel of
:func:`festival_channels`, whose reducer (:class:`StandingsReducer`) replays the festival's
events into its standings (R22, R23): the places decided with their prizes, the paid places,
the players left. With ``[fanout]`` in ``festival.toml`` they are published to Redis like a
table's public channels (:class:`overlay.fanout.publisher.RedisPublisher`, under
:data:`overlay.fanout.FESTIVAL_KEY`), and a worker relays them beside each table's channel.

**Never before the bust.** The director learns of a bust when the table reports its hand
(before it deals the next one), so after the table logged the bust; a channel of delay ``d``
releases the place at that report's time + ``d``. A worker pairs a table's channel with the
festival's channel of the smallest delay at least that channel's delay at every table
(:func:`standings_channel_for`), so a place never reaches a page before the bust it ranks
reaches that channel at its table. The delayed channel's delay is ``[fanout] delay`` (the
tables' ``[delay] seconds``); a worker finds none for a channel delayed longer, and its pages
then show no festival standings rather than early ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.channels import ChannelFilter, ChannelItem, ChannelSpec
from engine.events import Event
from engine.festival import Festival
from engine.festival_events import festival_after

__all__ = ["StandingsReducer", "festival_channels", "places_view", "standings_channel_for",
           "standings_view"]


def festival_channels(delay: float) -> dict[str, ChannelSpec]:
    """The festival's channels: ``venue`` (live) and ``delayed`` (``delay`` seconds late),
    both public (the festival's events are: names, stacks, places)."""
    return {spec.name: spec for spec in (
        ChannelSpec("venue", ChannelFilter.PUBLIC,
                    audience="the festival's standings, live"),
        ChannelSpec("delayed", ChannelFilter.PUBLIC, delay=delay,
                    audience="the festival's standings, after the security delay"),
    )}


def standings_channel_for(needed: float, published: Iterable[ChannelSpec],
                          ) -> ChannelSpec | None:
    """The festival channel a page whose table channels are delayed up to ``needed``
    seconds may read: the one with the smallest delay at least ``needed`` (its places come
    as soon as the busts they rank), or ``None``.

    >>> specs = festival_channels(30).values()
    >>> standings_channel_for(0, specs).name, standings_channel_for(30, specs).name
    ('venue', 'delayed')
    >>> standings_channel_for(60, specs) is None
    True
    """
    fitting = [spec for spec in published if spec.delay >= needed]
    return min(fitting, key=lambda spec: spec.delay) if fitting else None


@dataclass(slots=True)
class _State:
    name: str
    festival: Festival | None = None


class StandingsReducer:
    """The festival's standings from the festival events a channel released."""

    def __init__(self, name: str) -> None:
        self.name = name

    def initial(self) -> _State:
        return _State(self.name)

    def apply(self, state: _State, item: ChannelItem) -> _State:
        # The director's own replay, the orders included (a round switched on by hand
        # ranks its busts by R22 as the director does).
        event = item.event.payload
        if isinstance(event, Event):
            state.festival, _ = festival_after(state.festival, event)
        return state

    def snapshot(self, state: _State) -> dict[str, Any]:
        return {"festival": None if state.festival is None
                else standings_view(state.name, state.festival)}


def standings_view(name: str, festival: Festival) -> dict[str, Any]:
    """The festival's standings as the workers' pages get them (``docs/festival.md``):
    ``{"name", "entrants", "remaining", "hand_for_hand", "finishes": {player: {"place",
    "prize", "hand_id", "tied"}}, "payouts": {place: {"prize", "player"}}}``.

    The places are keyed (by player, and by place as a string), not listed: a bust's patch
    (RFC 7386 replaces an array whole) adds its player's place and the paid place it
    decides, whatever the field's size, instead of the whole list again."""
    standings = festival.standings
    listed = places_view(festival)  # the director's rows, keyed here
    return {
        "name": name,
        "entrants": standings.remaining + len(standings.busts) + len(standings.disqualified),
        "remaining": festival.remaining,
        "hand_for_hand": festival.hand_for_hand,
        "finishes": {row.pop("player"): row for row in listed["finishes"]},
        "payouts": {str(row.pop("place")): row for row in listed["payouts"]},
    }


def places_view(festival: Festival) -> dict[str, Any]:
    """The places decided and the paid places as the director's view lists them:
    ``{"finishes": [{"player", "place", "prize", "hand_id", "tied"}], "payouts":
    [{"place", "prize", "player"}]}`` (the workers' standings key them:
    :func:`standings_view`)."""
    standings = festival.standings
    return {
        "finishes": [{"player": f.name, "place": f.place, "prize": f.prize,
                      "hand_id": f.hand_number, "tied": f.tied}
                     for f in standings.finishes()],
        "payouts": [{"place": place, "prize": prize, "player": player}
                    for place, prize, player in standings.places()],
    }
