"""What a table's service asks the director's service (``[festival]``), before it deals.

:class:`FestivalClient` sends the table's question with an id made of the table and its hand
number, so that asking again (a lost answer, a restart) gets the first answer; the answer's
refusals come back as the engine's errors (R24 as :class:`IllegalActionError` with its
rule), and a director that cannot be reached is a :class:`DirectorUnreachableError`: the
operator is told, nothing at the table changes, the command can be sent again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import aiohttp

from engine.errors import FeltcastError, IllegalActionError
from overlay.festival.settings import TableFestival

__all__ = ["DirectorUnreachableError", "FestivalClient"]

TIMEOUT_SECONDS = 10.0


class DirectorUnreachableError(FeltcastError):
    """The tournament director's service did not answer."""

    code = "director_unreachable"


class FestivalClient:
    """A table's link to the director's service (one HTTP session)."""

    def __init__(self, settings: TableFestival) -> None:
        self.settings = settings
        self._session: aiohttp.ClientSession | None = None

    async def next_hand(self, table_hand: int, stacks: Mapping[str, int] | None,
                        ) -> dict[str, Any]:
        """May this table deal its hand ``table_hand`` (``stacks``: its players' chips after
        the hand before)? The seating to deal with (see :mod:`overlay.festival.director`)."""
        if self._session is None:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=TIMEOUT_SECONDS))
        body = {"id": f"{self.settings.table}:hand:{table_hand}",
                "table": self.settings.table, "table_hand": table_hand,
                "stacks": None if stacks is None else dict(stacks)}
        try:
            async with self._session.post(
                    f"{self.settings.url}/api/festival/next_hand", json=body,
                    headers={"Authorization": f"Bearer {self.settings.token}"}) as response:
                answer: dict[str, Any] = await response.json(content_type=None)
        except (aiohttp.ClientError, TimeoutError, ValueError) as failure:
            raise DirectorUnreachableError(
                f"the tournament director's service at {self.settings.url} did not answer "
                f"({failure or type(failure).__name__}): the hand was not started; send it "
                "again") from None
        if response.status == 200:
            return answer
        refusal = answer.get("error", {}) if isinstance(answer, dict) else {}
        message = str(refusal.get("message", f"status {response.status}"))
        if response.status in (409, 422):
            raise IllegalActionError(f"the festival: {message}",
                                     rule=str(refusal.get("rule", "")))
        raise DirectorUnreachableError(f"the tournament director's service refused "
                                       f"({response.status}): {message}")

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
