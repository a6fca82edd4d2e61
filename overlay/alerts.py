"""The operator's alerts: one frozen type for every device (readers, cameras, OBS, the deck
desk, the transport), kept by one rule.

Every entry of the operator view's ``alerts`` list (``docs/view-model.md``) is an
:class:`Alert`'s :meth:`~Alert.to_view`: ``level``, ``source``, ``kind``, ``message`` and
``at`` (when it began, or null for a standing condition such as TLS being off). Devices that
raise alerts as things happen keep them in an :class:`AlertBook`:

* an alert is raised under a key (one per condition, e.g. ``("offline", reader)``); raised
  again with the same message it keeps its ``at`` (the operator view, which is logged whenever
  it changes, does not change with every repetition of a fault) and its expiry starts again;
  with another message it is a new alert;
* a one-off fault expires ``expire_seconds`` after it was last raised; a *sticky* one (a
  device offline) stays until cleared;
* :meth:`AlertBook.current` lists them newest first.

>>> book = AlertBook(clock=lambda: 100.0, expire_seconds=30)
>>> book.raise_alert(("offline", "table"), Alert(AlertLevel.ERROR, "reader:table",
...                  "reader_offline", "Reader 'table' offline", sticky=True))
True
>>> [(alert.kind, alert.at) for alert in book.current()]
[('reader_offline', 100.0)]
>>> book.current()[0].to_view()["level"]
'error'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

__all__ = ["MAX_ALERTS", "Alert", "AlertBook", "AlertLevel"]

MAX_ALERTS: Final = 20
"""At most this many alerts of one device are shown (the newest)."""


class AlertLevel(StrEnum):
    ERROR = "error"
    """Something on air or at the table is wrong now (a device offline, hole cards at risk)."""
    WARNING = "warning"
    """Something the operator should look at (a fault, a refused reading)."""


@dataclass(frozen=True, slots=True)
class Alert:
    """One line of the console's alert list."""

    level: AlertLevel
    source: str
    """What raised it: ``reader:<name>``, ``camera:<name>``, ``obs``, ``decks``, ``capture``,
    ``security``."""
    kind: str
    """A stable code for pages and tests (``reader_offline``, ``camera_rfid_disagree`` ...)."""
    message: str
    """What happened and what to do, in a floor manager's words."""
    at: float | None = None
    """When it began (log clock); None for a standing condition."""
    sticky: bool = False
    """Stays until cleared (a device offline) instead of expiring."""

    def to_view(self) -> dict[str, Any]:
        return {"level": str(self.level), "source": self.source, "kind": self.kind,
                "message": self.message, "at": None if self.at is None else round(self.at, 3)}


class AlertBook:
    """A device's alerts by key, raised and cleared as things happen (see the module
    docstring)."""

    def __init__(self, *, clock: Callable[[], float], expire_seconds: float) -> None:
        self.clock = clock
        self.expire_seconds = expire_seconds
        self._alerts: dict[Hashable, Alert] = {}
        self._last: dict[Hashable, float] = {}

    def raise_alert(self, key: Hashable, alert: Alert) -> bool:
        """Raise ``alert`` under ``key`` (stamped now unless it has an ``at``); True when the
        list changed (a new alert, or a new message for the key)."""
        now = self.clock()
        self._last[key] = now
        current = self._alerts.get(key)
        if current is not None and (current.message, current.level) == (alert.message,
                                                                          alert.level):
            return False
        self._alerts[key] = alert if alert.at is not None else dataclasses.replace(alert, at=now)
        return True

    def clear(self, key: Hashable) -> bool:
        """Take the alert under ``key`` down; True when there was one."""
        self._last.pop(key, None)
        return self._alerts.pop(key, None) is not None

    def __contains__(self, key: Hashable) -> bool:
        return key in self._alerts

    def current(self) -> list[Alert]:
        """The alerts still up, newest first (one-off faults past their time are dropped)."""
        now = self.clock()
        for key, alert in list(self._alerts.items()):
            if not alert.sticky and now - self._last[key] > self.expire_seconds:
                self.clear(key)
        newest = sorted(self._alerts.values(), key=lambda a: (-(a.at or 0.0), a.source))
        return newest[:MAX_ALERTS]
