"""What the burned-in graphics show at each frame: the table log folded into views.

The graphics of a video export show what the browser overlay shows, from the same view model
(``docs/view-model.md``): :class:`engine.view.TableViewReducer` over :data:`EXPORT_CHANNEL`, a
full-information channel without delay. Editors cut the footage after the event, so every
hole card, equity and mucked hand (R20) may be shown: nothing here is live (the security
delay protects live outputs only).

Sync: :class:`Sync` maps the log's wall-clock times to frames of the footage. An event at wall
time ``t`` first shows at frame ``round((t - start) * fps)``; several events in one frame show
their combined result. :func:`frame_views` streams the views frame by frame (only frames where
the drawn picture changes), reading the log as it goes: the state before the footage starts
is folded without drawing, and reading stops once the footage ends.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from engine.channels import ChannelFilter, ChannelItem, ChannelSpec, filter_event
from engine.clock import ACTION_CLOCK_COUNTDOWN
from engine.errors import InvalidInputError
from engine.log import TableEvent
from engine.view import TableViewReducer

__all__ = ["EXPORT_CHANNEL", "Clocks", "FrameView", "Sync", "ViewCursor", "clock_text",
           "clocks_at", "drawn_key", "drawn_view", "frame_views", "level_clock"]

EXPORT_CHANNEL = ChannelSpec(
    "export", ChannelFilter.FULL, requires_token=True,
    audience="video exports for editors, after the event (full information, no delay)")
"""The view a video export draws: full information, undelayed (editors work afterwards)."""


@dataclass(frozen=True, slots=True)
class Sync:
    """Where the footage sits on the log's clock: frame 0 was filmed at Unix time ``start``.

    >>> sync = Sync(start=1_796_000_000.0, fps=30.0)
    >>> sync.frame_of(1_796_000_010.0), sync.time_of(300)
    (300, 1796000010.0)
    """

    start: float
    fps: float

    def __post_init__(self) -> None:
        if not math.isfinite(self.start):
            raise InvalidInputError(f"the footage's start time is not a time: {self.start!r}")
        if not math.isfinite(self.fps) or self.fps <= 0:
            raise InvalidInputError(f"frames per second must be positive, got {self.fps!r}")

    def frame_of(self, time: float) -> int:
        """The first frame that shows an event logged at ``time`` (half up, as in round)."""
        return math.floor((time - self.start) * self.fps + 0.5 + 1e-9)

    def time_of(self, frame: int) -> float:
        """The wall-clock time at which ``frame`` was filmed."""
        return self.start + frame / self.fps

    @classmethod
    def from_hand_start(cls, hand_started_at: float, frame: int, fps: float) -> Sync:
        """The sync that puts a hand's first log entry (``hand_started_at``) at ``frame``."""
        return cls(hand_started_at - frame / fps, fps)


@dataclass(frozen=True, slots=True)
class FrameView:
    """The picture from ``frame`` on (until the next :class:`FrameView`)."""

    frame: int
    view: dict[str, Any]
    key: str
    """The drawn part of ``view`` as canonical JSON: equal keys draw equal pictures."""


def drawn_key(view: dict[str, Any]) -> str:
    """What the graphics draw of a view (its table, seats and the tournament's clocks), as
    canonical JSON."""
    tournament = view.get("tournament") or {}
    return json.dumps([view.get("table"), view.get("seats"), tournament.get("clock"),
                       tournament.get("action_clock")], sort_keys=True, separators=(",", ":"))


def drawn_view(key: str) -> dict[str, Any]:
    """The view a :func:`drawn_key` was made of, as far as the graphics draw it (its table,
    seats and the tournament's clocks; the rest left out): it draws the same picture."""
    table, seats, clock, action_clock = json.loads(key)
    return {"table": table, "seats": seats,
            "tournament": {"clock": clock, "action_clock": action_clock}}


def level_clock(view: dict[str, Any] | None, now: float) -> tuple[str, bool] | None:
    """The level clock at wall time ``now``, as the overlay shows it (``m:ss``) and whether it
    stands still: the tournament clock (counting down from ``remaining`` at ``as_of`` while it
    runs; not shown before the floor starts it), else the table level's end. None: no clock.
    """
    if view is None:
        return None
    clock = (view.get("tournament") or {}).get("clock")
    if isinstance(clock, dict) and clock.get("started") is not False:
        remaining = clock.get("remaining")
        if not isinstance(remaining, int | float):
            return None
        as_of = clock.get("as_of")
        running = bool(clock.get("running"))
        if running and isinstance(as_of, int | float):
            remaining -= max(0.0, now - as_of)
        return clock_text(remaining), not running
    level = (view.get("table") or {}).get("level") or {}
    ends_at = level.get("ends_at")
    if not isinstance(ends_at, int | float):
        return None
    return clock_text(ends_at - now), False


@dataclass(frozen=True, slots=True)
class Clocks:
    """What the clocks show at one frame (the parts of the picture that move with time)."""

    level: tuple[str, bool] | None = None
    """The level clock's text and whether it stands still (:func:`level_clock`)."""
    action_seat: int | None = None
    """The seat the R12 action clock was called on (None: no clock called)."""
    action: str = ""
    """Its time left: ``m:ss``, or whole seconds in the final ten (``7``)."""
    final: bool = False


def clocks_at(view: dict[str, Any] | None, now: float) -> Clocks:
    """The level clock and the R12 action clock at wall time ``now``, as the overlay shows
    them (static/overlay.js renderLevelClock)."""
    level = level_clock(view, now)
    called = ((view or {}).get("tournament") or {}).get("action_clock")
    if not isinstance(called, dict) or not isinstance(called.get("ends_at"), int | float):
        return Clocks(level)
    ends_at = float(called["ends_at"])
    left = max(0.0, ends_at - now)
    countdown = called.get("countdown_at")
    start = float(countdown) if isinstance(countdown, int | float) \
        else ends_at - ACTION_CLOCK_COUNTDOWN
    final = now >= start
    text = str(math.ceil(left)) if final else clock_text(left)
    seat = called.get("seat")
    return Clocks(level, seat if isinstance(seat, int) else None, text, final)


def clock_text(seconds: float) -> str:
    """Seconds left as ``m:ss``, rounded up, never negative (static/js/dom.js clockText)."""
    whole = max(0, math.ceil(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


def frame_views(entries: Iterable[TableEvent], sync: Sync, *, frames: int | None = None,
                table_name: str = "", seats: int = 10) -> Iterator[FrameView]:
    """The views to draw, frame by frame, in order (see the module docstring).

    The first item is always for frame 0 (the table as it stood when filming began, empty
    before the log's first hand); later items only where the drawn picture changes.
    ``frames`` (the footage's length) stops reading the log at the footage's end.
    """
    reducer = TableViewReducer(EXPORT_CHANNEL, table_name=table_name, seats=seats)
    state = reducer.initial()
    current = 0  # the frame whose entries are being folded
    last_key: str | None = None
    dirty = True
    for entry in entries:
        shown = filter_event(EXPORT_CHANNEL, entry)  # R19: burn cards are in no view
        if shown is None:
            continue
        frame = max(0, sync.frame_of(entry.time))
        if frames is not None and frame >= frames:
            break
        if frame != current and dirty:
            out = _emit(reducer, state, current, last_key)
            if out is not None:
                last_key = out.key
                yield out
            dirty = False
        current = max(current, frame)  # a clock step back in the log stays in order
        state = reducer.apply(state, ChannelItem(shown, shown.time))
        dirty = True
    if dirty or last_key is None:
        out = _emit(reducer, state, current, last_key)
        if out is not None:
            yield out


def _emit(reducer: TableViewReducer, state: Any, frame: int,
          last_key: str | None) -> FrameView | None:
    view = reducer.snapshot(state)
    key = drawn_key(view)
    if key == last_key:
        return None
    return FrameView(frame, view, key)


class ViewCursor:
    """Frame-by-frame lookup over :func:`frame_views`: ``at(frame)`` for increasing frames
    returns the view to draw and whether it changed since the previous call."""

    def __init__(self, views: Iterable[FrameView]) -> None:
        self._views = iter(views)
        self._next: FrameView | None = next(self._views, None)
        self.current: FrameView | None = None
        self.changes = 0
        """How many different pictures were returned so far."""

    def at(self, frame: int) -> tuple[FrameView | None, bool]:
        changed = False
        while self._next is not None and self._next.frame <= frame:
            self.current, changed = self._next, True
            self._next = next(self._views, None)
        if changed:
            self.changes += 1
        return self.current, changed

    @property
    def next_frame(self) -> int | None:
        """The frame of the next change (None: no more)."""
        return self._next.frame if self._next is not None else None
