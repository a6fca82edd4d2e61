"""The pages connected to the service, from their ``hello`` (shown in the operator console).

Each websocket that says hello is one entry: which page, on which channel, with which asset
version. The console flags pages that still run old assets (``current`` false) so the producer
can reload that OBS browser source.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import Any

_PAGE_IDS = frozenset({"overlay", "commentary", "operator", "replay", "leaderboard",
                       "lowerthird", "elimination", "payouts", "clock"})


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
            entry,
            page=page if isinstance(page, str) and page in _PAGE_IDS else "unknown",
            version=version[:40] if isinstance(version, str) else "",
        )

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
