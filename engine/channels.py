"""Information channels: what each audience may see of the table log, and when.

A channel is configuration, not code (see ``docs/channels.md``): a :class:`ChannelSpec` is a
name, a *filter* (:class:`ChannelFilter`), a *delay* in seconds and a few flags. Four channels
are built in (:data:`BUILTIN_CHANNELS`):

========== ================== ======= ================================================
name       filter             delay   audience
========== ================== ======= ================================================
venue      public             0       in-room screens: live, public information only
delayed    full               900     the stream (OBS) and commentary, D seconds late
secure     full               0       production room only, token, off unless enabled
reveal     reveal_after_hand  0       live, hole cards once their hand is over; off
========== ================== ======= ================================================

Filters (rule R19: ``never`` events, the burn and stub cards, are in no channel at all):

* ``full``: every ``public`` and ``secret`` event as it is;
* ``public``: ``public`` events as they are, ``secret`` events as their public view (e.g. "seat
  3 has cards") or not at all (R20: mucked cards stay hidden);
* ``reveal_after_hand``: like ``public`` while the hand runs; when it ends, the hand's secret
  events follow the hand-end event, marked ``revealed``.

Timing: an item is released when ``now >= release`` where ``release = event.time + delay``,
made non-decreasing along the log (a clock step backwards never reorders a channel).

:class:`ChannelView` is the pure, incremental form used by the service: offer it every log
event in order, ask it for the items due at ``now`` and when the next one falls due. What a
channel's pages show of the items it released is :mod:`engine.view`'s view model.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from typing import Any, Final

from engine.errors import ConfigError, InvalidInputError
from engine.events import Secrecy
from engine.log import TableEvent

__all__ = [
    "BUILTIN_CHANNELS",
    "ChannelFilter",
    "ChannelItem",
    "ChannelSpec",
    "ChannelView",
    "channels_from_config",
    "due_items",
    "filter_event",
    "with_delay",
]


class ChannelFilter(StrEnum):
    """What information a channel may carry (see the module docstring)."""

    FULL = "full"
    PUBLIC = "public"
    REVEAL_AFTER_HAND = "reveal_after_hand"


#: Payload kinds that end a hand, for ``reveal_after_hand`` channels.
DEFAULT_HAND_END_KINDS: Final = ("hand_ended", "hand_voided")
#: Payload kinds that start a hand: anything still held back from the previous one is dropped.
DEFAULT_HAND_START_KINDS: Final = ("hand_started",)


@dataclass(frozen=True, slots=True)
class ChannelSpec:
    """One channel, as configuration: ``ChannelSpec("venue", ChannelFilter.PUBLIC)``."""

    name: str
    filter: ChannelFilter
    delay: float = 0.0
    """Seconds between an event's time and its release on this channel."""
    requires_token: bool = False
    """Subscribers must present the production token (the service checks it)."""
    enabled: bool = True
    """A disabled channel accepts no subscribers."""
    audience: str = ""
    """Who watches it, in a floor manager's words (shown in the operator console)."""
    internal: bool = False
    """Shows the service's internal events (``secrecy`` internal: device reports); only for a
    live, full channel with a token (the operator's)."""
    hand_end_kinds: tuple[str, ...] = DEFAULT_HAND_END_KINDS
    hand_start_kinds: tuple[str, ...] = DEFAULT_HAND_START_KINDS

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ConfigError(f"channels.{self.name}", "a channel name is a single word "
                              "of letters, digits and underscores")
        try:
            object.__setattr__(self, "filter", ChannelFilter(self.filter))
        except ValueError:
            choices = ", ".join(f.value for f in ChannelFilter)
            raise ConfigError(f"channels.{self.name}.filter",
                              f"unknown filter {self.filter!r} (one of {choices})") from None
        if (isinstance(self.delay, bool) or not isinstance(self.delay, int | float)
                or not math.isfinite(self.delay) or self.delay < 0):
            raise ConfigError(f"channels.{self.name}.delay",
                              f"a delay is a number of seconds >= 0, got {self.delay!r}")
        object.__setattr__(self, "delay", float(self.delay))
        if self.filter is ChannelFilter.FULL and self.delay == 0 and not self.requires_token:
            raise ConfigError(f"channels.{self.name}.requires_token",
                              "a live channel with hole cards must require a token")
        if self.internal is not False and (self.internal is not True or not self.requires_token
                                           or self.filter is not ChannelFilter.FULL):
            raise ConfigError(f"channels.{self.name}.internal",
                              "only a full channel with a token shows internal events")
        object.__setattr__(self, "hand_end_kinds", tuple(self.hand_end_kinds))
        object.__setattr__(self, "hand_start_kinds", tuple(self.hand_start_kinds))

    @property
    def is_live(self) -> bool:
        """True when the channel shows events as they happen (no delay)."""
        return self.delay == 0

    def to_dict(self) -> dict[str, Any]:
        """The configuration form, accepted back by :meth:`from_dict`."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["filter"] = str(self.filter)
        data["hand_end_kinds"] = list(self.hand_end_kinds)
        data["hand_start_kinds"] = list(self.hand_start_kinds)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ChannelSpec:
        name = data.get("name", "?")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"channels.{name}", f"unknown settings {unknown}")
        if "filter" not in data:
            raise ConfigError(f"channels.{name}.filter", "missing (full, public or "
                              "reveal_after_hand)")
        for flag in ("requires_token", "enabled", "internal"):
            if flag in data and not isinstance(data[flag], bool):
                raise ConfigError(f"channels.{name}.{flag}", "must be true or false")
        return cls(**data)


BUILTIN_CHANNELS: Final[Mapping[str, ChannelSpec]] = {
    spec.name: spec for spec in (
        ChannelSpec("venue", ChannelFilter.PUBLIC, audience="in-room screens"),
        ChannelSpec("delayed", ChannelFilter.FULL, delay=900.0,
                    audience="the stream and the commentators, after the security delay"),
        ChannelSpec("secure", ChannelFilter.FULL, requires_token=True, enabled=False,
                    audience="the production room only (OBS with its own stream delay)"),
        ChannelSpec("reveal", ChannelFilter.REVEAL_AFTER_HAND, enabled=False,
                    audience="live stream without delay: hole cards once the hand is over"),
    )
}
"""The built-in channels; :func:`channels_from_config` changes or adds to them."""


def channels_from_config(config: Mapping[str, Mapping[str, Any]] | None = None,
                         ) -> dict[str, ChannelSpec]:
    """The built-in channels with ``config`` applied: ``{name: {setting: value}}``.

    A known name changes only the settings given (``{"delayed": {"delay": 30}}``); a new name
    defines a channel and must give its ``filter``.
    """
    channels = dict(BUILTIN_CHANNELS)
    for name, settings in (config or {}).items():
        if not isinstance(settings, Mapping):
            raise ConfigError(f"channels.{name}", "expected a table of settings")
        base = channels[name].to_dict() if name in channels else {}
        channels[name] = ChannelSpec.from_dict({**base, **settings, "name": name})
    return channels


@dataclass(frozen=True, slots=True)
class ChannelItem:
    """One event as a channel shows it, with the time it may be released."""

    event: TableEvent
    """The event as this channel may see it (a public view on filtered channels)."""
    release: float
    """Wall-clock seconds from which the item may leave the process."""
    revealed: bool = False
    """A secret shown after its hand ended (``reveal_after_hand`` channels)."""

    def to_dict(self) -> dict[str, Any]:
        data = {"event": self.event.to_dict(), "release": self.release}
        if self.revealed:
            data["revealed"] = True
        return data


def filter_event(spec: ChannelSpec, event: TableEvent) -> TableEvent | None:
    """What ``spec`` may show live of ``event`` (``reveal_after_hand``: during the hand)."""
    if event.secrecy is Secrecy.NEVER:  # R19: burn and stub cards, nowhere
        return None
    if event.secrecy is Secrecy.INTERNAL:  # the service's state: the operator's only
        return event if spec.internal else None
    if spec.filter is ChannelFilter.FULL:
        return event
    return event.public_view()


@dataclass(slots=True)
class ChannelView:
    """The incremental, pure view of one channel: log events in (:meth:`offer`, in sequence
    order), releasable items out (:meth:`due` at a time the caller gives); :meth:`next_release`
    tells the caller when to come back."""

    spec: ChannelSpec
    last_seq: int = 0
    """The last log sequence number offered."""
    released: int = 0
    """How many items have been released (the channel's revision)."""
    _pending: deque[ChannelItem] = field(default_factory=deque)
    _held: list[TableEvent] = field(default_factory=list)
    _last_release: float = -math.inf

    def offer(self, event: TableEvent) -> None:
        """Take the next log event (in sequence order, no gaps)."""
        if event.seq != self.last_seq + 1:
            raise InvalidInputError(f"channel {self.spec.name} expected log event "
                                    f"{self.last_seq + 1}, got {event.seq}")
        self.last_seq = event.seq
        release = max(self._last_release, event.time + self.spec.delay)
        self._last_release = release
        reveal = self.spec.filter is ChannelFilter.REVEAL_AFTER_HAND
        if reveal and event.kind in self.spec.hand_start_kinds:
            self._held.clear()  # never revealed: the hand had no end (fail closed)
        shown = filter_event(self.spec, event)
        if shown is not None:
            self._pending.append(ChannelItem(shown, release))
        if reveal and event.secrecy is Secrecy.SECRET:
            self._held.append(event)
        if reveal and event.kind in self.spec.hand_end_kinds:
            self._pending.extend(ChannelItem(held, release, revealed=True)
                                 for held in self._held)
            self._held.clear()

    def offer_all(self, events: Iterable[TableEvent]) -> None:
        for event in events:
            self.offer(event)

    def next_release(self) -> float | None:
        """When the next item falls due, or ``None`` when nothing is pending."""
        return self._pending[0].release if self._pending else None

    def due(self, now: float) -> list[ChannelItem]:
        """Remove and return the items released at ``now``, in log order."""
        out: list[ChannelItem] = []
        pending = self._pending
        while pending and pending[0].release <= now:
            out.append(pending.popleft())
        self.released += len(out)
        return out

    @property
    def pending(self) -> int:
        """How many items wait for their release time."""
        return len(self._pending)


def due_items(spec: ChannelSpec, events: Iterable[TableEvent], now: float,
              ) -> list[ChannelItem]:
    """Everything ``spec`` has released at ``now`` from the log ``events`` (from seq 1)."""
    view = ChannelView(spec)
    view.offer_all(events)
    return view.due(now)


def with_delay(spec: ChannelSpec, delay: float) -> ChannelSpec:
    """``spec`` with another delay (e.g. the demo's 30 s delayed channel)."""
    return replace(spec, delay=delay)
