"""A change signal: how a part of the service tells the others that it changed.

The table service emits one when an append changed the table (the capture bridge reconciles
what lies on the felt with it); every device (readers, cameras, OBS) emits one when what it
shows the operator changed (the device report is sent at once instead of at the next beat).
Listeners are plain callables run in the order they connected, on the event loop's thread,
and must not block; :meth:`Signal.connect` returns the function that disconnects again (the
Home Assistant way), so a listener that stops never leaks.

>>> changed = Signal("table")
>>> seen = []
>>> disconnect = changed.connect(lambda: seen.append("one"))
>>> changed.emit()
>>> disconnect()
>>> changed.emit()
>>> seen
['one']
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable

__all__ = ["Signal"]

_log = logging.getLogger(__name__)


class Signal:
    """Listeners called on :meth:`emit` (see the module docstring)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._listeners: list[Callable[[], object]] = []

    def __repr__(self) -> str:
        return f"Signal({self.name!r})"

    def connect(self, listener: Callable[[], object]) -> Callable[[], None]:
        """Call ``listener`` on every emit from now on; the function that stops it."""
        self._listeners.append(listener)

        def disconnect() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(listener)
        return disconnect

    def emit(self) -> None:
        """Call every listener; one that raises is logged and does not stop the others (a
        faulty listener must not fail the append that emitted)."""
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:
                _log.exception("a listener of the %s signal failed", self.name)
