"""The table's event log envelope: :class:`TableEvent`.

Every change of state the service records (a hand engine event, a capture event that matters,
an operator or tournament event) is wrapped in one immutable :class:`TableEvent`:

* ``seq``: the position in the append-only log, 1, 2, 3, … without gaps;
* ``time``: wall-clock seconds (Unix time, a float) stamped by the *caller*: the engine never
  reads a clock, the service does when it appends;
* ``secrecy``: who may see it (:class:`engine.events.Secrecy`): ``public`` anywhere live,
  ``secret`` only on full-information channels (hole cards, mucked cards, R20), ``never``
  nowhere at all (burn and stub cards, R19);
* ``payload``: the event itself, a frozen engine event value (anything that has ``kind``,
  ``secrecy``, ``to_dict()`` and ``public_view()``, see :class:`LoggedEvent`);
* ``source``: who produced it (``engine``, ``capture``, ``operator``, …).

The envelope's secrecy may be stricter than the payload's (an operator may mark a public event
secret), never looser: a stricter class is kept, a looser one is refused.

JSON round trip: ``TableEvent.from_dict(event.to_dict()) == event``. The payload is decoded by
:func:`decode_payload` (engine events, and capture events wrapped in :class:`CaptureRecord`)
unless another decoder is given.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

from engine.capture_events import CaptureEvent, CaptureFault
from engine.capture_events import event_from_dict as capture_event_from_dict
from engine.errors import InvalidInputError
from engine.events import Event, Secrecy

__all__ = [
    "SECRECY_RANK",
    "CaptureRecord",
    "LoggedEvent",
    "PayloadDecoder",
    "TableEvent",
    "decode_engine_event",
    "decode_payload",
]

#: Strictness of each secrecy class: a larger number is seen by fewer channels.
SECRECY_RANK: Mapping[Secrecy, int] = {Secrecy.PUBLIC: 0, Secrecy.SECRET: 1, Secrecy.INTERNAL: 2,
                                       Secrecy.NEVER: 3}


class LoggedEvent(Protocol):
    """What the log needs of a payload (every ``engine.events.Event`` is one)."""

    @property
    def kind(self) -> str: ...

    @property
    def secrecy(self) -> Secrecy: ...

    def to_dict(self) -> dict[str, Any]: ...

    def public_view(self) -> Any: ...


#: Turns a payload's ``to_dict()`` back into the payload.
PayloadDecoder = Callable[[Mapping[str, Any]], LoggedEvent]


#: Capture events that carry no card and may be shown anywhere (reader health, the burn
#: pile's anonymous count); every other capture event is secret (fail closed).
PUBLIC_CAPTURE_TYPES = frozenset({"burn_seen", "reader_online", "reader_offline"})
CAPTURE_PREFIX = "capture."


@dataclass(frozen=True, slots=True)
class CaptureRecord:
    """A capture event (``engine/capture_events.py``) kept in the table log, for audits and
    replays of the hardware: ``TableEvent.record(seq, t, CaptureRecord(read), source=...)``.

    Its kind is ``capture.<type>``. A record that carries a card (hole cards read, a board or
    muck read, a card removed, a fault naming cards) is secret with no public view: the
    engine's own events say what may be shown. Burn-pile cards never reach a capture event.
    """

    event: CaptureEvent

    @property
    def kind(self) -> str:
        return CAPTURE_PREFIX + self.event.TYPE

    @property
    def secrecy(self) -> Secrecy:
        if self.event.TYPE in PUBLIC_CAPTURE_TYPES:
            return Secrecy.PUBLIC
        if isinstance(self.event, CaptureFault) and not self.event.cards:
            return Secrecy.PUBLIC
        return Secrecy.SECRET

    def public_view(self) -> CaptureRecord | None:
        return self if self.secrecy is Secrecy.PUBLIC else None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "capture": self.event.to_dict()}


def decode_payload(data: Mapping[str, Any]) -> LoggedEvent:
    """The default payload decoder: capture records by their ``capture.`` kind, everything
    else by the hand engine's ``Event.from_dict``."""
    kind = data.get("kind")
    if isinstance(kind, str) and kind.startswith(CAPTURE_PREFIX):
        capture = data.get("capture")
        if not isinstance(capture, Mapping):
            raise InvalidInputError(f"log payload {kind!r} lacks its capture event")
        return CaptureRecord(capture_event_from_dict(capture))
    event: LoggedEvent = Event.from_dict(dict(data))
    return event


decode_engine_event = decode_payload  # the earlier name


@dataclass(frozen=True, slots=True)
class TableEvent:
    """One entry of the append-only table log (see the module docstring)."""

    seq: int
    time: float
    secrecy: Secrecy
    payload: LoggedEvent
    source: str = "engine"

    def __post_init__(self) -> None:
        if isinstance(self.seq, bool) or not isinstance(self.seq, int) or self.seq < 1:
            raise InvalidInputError(f"log sequence numbers start at 1, got {self.seq!r}")
        if not isinstance(self.time, int | float) or not math.isfinite(self.time):
            raise InvalidInputError(f"event time must be a finite number of seconds, "
                                    f"got {self.time!r}")
        object.__setattr__(self, "time", float(self.time))
        object.__setattr__(self, "secrecy", Secrecy(self.secrecy))
        if SECRECY_RANK[self.secrecy] < SECRECY_RANK[Secrecy(self.payload.secrecy)]:
            raise InvalidInputError(
                f"event {self.seq} ({self.payload.kind}) is {self.payload.secrecy}: "
                f"it cannot be logged as {self.secrecy}")
        if not self.source or not isinstance(self.source, str):
            raise InvalidInputError(f"event source must be a name, got {self.source!r}")

    @classmethod
    def record(cls, seq: int, time: float, event: LoggedEvent, *, source: str = "engine",
               secrecy: Secrecy | None = None) -> TableEvent:
        """Wrap ``event`` with the secrecy it declares itself (or a stricter one)."""
        return cls(seq, time, event.secrecy if secrecy is None else secrecy, event, source)

    @property
    def kind(self) -> str:
        """The payload's kind, e.g. ``"board_dealt"``."""
        return self.payload.kind

    def public_view(self) -> TableEvent | None:
        """What of this event may be shown on a live public output, or ``None``.

        ``public`` events as they are; ``secret`` events as their payload's public view (a view
        that is not itself public is withheld: fail closed); ``never`` events not at all (R19).
        """
        if self.secrecy is Secrecy.PUBLIC:
            return self
        if self.secrecy in (Secrecy.NEVER, Secrecy.INTERNAL):
            return None
        view = self.payload.public_view()
        if view is None or Secrecy(view.secrecy) is not Secrecy.PUBLIC:
            return None
        return replace(self, secrecy=Secrecy.PUBLIC, payload=view)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form: ``{"seq", "time", "secrecy", "source", "event"}``."""
        return {
            "seq": self.seq,
            "time": self.time,
            "secrecy": str(self.secrecy),
            "source": self.source,
            "event": self.payload.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any],
                  decode: PayloadDecoder = decode_payload) -> TableEvent:
        """Inverse of :meth:`to_dict`; raises :class:`InvalidInputError` on a malformed entry."""
        try:
            seq, time, secrecy = data["seq"], data["time"], data["secrecy"]
            source, payload = data["source"], data["event"]
        except (KeyError, TypeError) as error:
            raise InvalidInputError(f"not a log entry: {data!r} (missing {error})") from None
        if secrecy not in {str(s) for s in Secrecy}:
            raise InvalidInputError(f"unknown secrecy {secrecy!r} in log entry {seq!r}")
        return cls(seq, time, Secrecy(secrecy), decode(payload), source)

    def __repr__(self) -> str:
        return (f"TableEvent(seq={self.seq!r}, time={self.time!r}, "
                f"secrecy=Secrecy.{self.secrecy.name}, payload={self.payload!r}, "
                f"source={self.source!r})")
