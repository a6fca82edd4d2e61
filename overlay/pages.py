"""The pages connected to the service, from their ``hello`` (shown in the operator console).

Each websocket that says hello is one entry: which page, on which channel, with which asset
version. The console flags pages that still run old assets (``current`` false) so the producer
can reload that OBS browser source.

A page whose channel refuses it (a wrong token, an unknown or disabled channel) never says
hello: its socket is refused before it opens. It is kept apart, with the refusal's reason and
its address, for :data:`REFUSED_SHOWN_S` after its last attempt, so that the console names the
OBS source that stays blank and why (at most :data:`REFUSED_KEPT` of them).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import Any, Final

_PAGE_IDS = frozenset({"overlay", "commentary", "operator", "replay", "leaderboard",
                       "lowerthird", "elimination", "payouts", "clock", "ticker", "versus",
                       "program"})


REFUSED_SHOWN_S: Final = 60.0
"""A refused page is listed this long after its last attempt (it retries every few seconds
while it is open)."""
REFUSED_KEPT: Final = 20
"""The most refused pages listed (the latest)."""


def page_id(value: object) -> str:
    """A page's id as pages name themselves (``hello``, ``?page=``); "unknown" otherwise."""
    return value if isinstance(value, str) and value in _PAGE_IDS else "unknown"


@dataclass(frozen=True, slots=True)
class RefusedPage:
    page: str
    channel: str
    reason: str
    peer: str
    at: float


@dataclass(frozen=True, slots=True)
class ConnectedPage:
    page: str
    channel: str
    version: str
    since: float


class PageRegistry:
    """The connected pages; one instance per app (``PAGES_KEY``)."""

    def __init__(self, asset_version: str) -> None:
        self.asset_version = asset_version
        self._pages: dict[int, ConnectedPage] = {}
        self._ids = itertools.count(1)
        self._refused: dict[tuple[str, str, str], RefusedPage] = {}

    def connect(self, channel: str, since: float) -> int:
        """A socket opened; returns its id (the page is unknown until its hello)."""
        handle = next(self._ids)
        self._pages[handle] = ConnectedPage("unknown", channel, "", since)
        return handle

    def hello(self, handle: int, message: dict[str, Any]) -> None:
        page = message.get("page")
        version = message.get("version")
        entry = self._pages.get(handle)
        if entry is None:
            return
        self._pages[handle] = replace(
            entry, page=page_id(page), version=version[:40] if isinstance(version, str) else "")
        # It opens its channel now: an earlier refusal of it is over.
        for key in [k for k in self._refused if k[:2] == (page_id(page), entry.channel)]:
            del self._refused[key]

    def refused(self, page: str, channel: str, reason: str, peer: str | None,
                at: float) -> None:
        """A page's socket was refused (it said no hello): kept for the console."""
        key = (page_id(page), channel[:40], peer or "unknown")
        self._refused.pop(key, None)
        self._refused[key] = RefusedPage(*key[:2], reason[:200], key[2], at)
        while len(self._refused) > REFUSED_KEPT:
            del self._refused[next(iter(self._refused))]

    def refused_summary(self, now: float) -> list[dict[str, Any]]:
        """The ``operator.refused_pages`` list of the view model: the pages refused in the
        last :data:`REFUSED_SHOWN_S` seconds, the latest first."""
        for key in [k for k, r in self._refused.items() if now - r.at > REFUSED_SHOWN_S]:
            del self._refused[key]
        return [{"page": r.page, "channel": r.channel, "reason": r.reason, "peer": r.peer}
                for r in sorted(self._refused.values(), key=lambda r: -r.at)]

    def disconnect(self, handle: int) -> None:
        self._pages.pop(handle, None)

    def clients(self, channel: str) -> int:
        return sum(1 for page in self._pages.values() if page.channel == channel)

    def summary(self) -> list[dict[str, Any]]:
        """The ``operator.pages`` list of the view model."""
        return [
            {"page": p.page, "channel": p.channel, "version": p.version,
             "current": p.version == self.asset_version}
            for p in sorted(self._pages.values(), key=lambda p: (p.page, p.channel, p.since))
        ]
