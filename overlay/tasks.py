"""Small asyncio helpers shared by the service's long-lived parts."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

RECANCEL_SECONDS = 0.5
"""How long a cancelled task may take before it is cancelled again."""


async def cancel_and_wait(*tasks: asyncio.Task[Any] | None) -> None:
    """Cancel ``tasks`` (``None`` entries are skipped) and wait until each has finished.

    A task that is still running :data:`RECANCEL_SECONDS` later is cancelled again: on Python
    3.11 ``asyncio.wait_for`` loses a cancellation that arrives just as the awaited future
    completes, and a loop such as "check, then wait for a wake-up" would then run on for ever
    and this call with it. A task's own exception (other than its cancellation) is raised.
    """
    live = [task for task in tasks if task is not None]
    for task in live:
        task.cancel()
    pending = {task for task in live if not task.done()}
    while pending:
        _, pending = await asyncio.wait(pending, timeout=RECANCEL_SECONDS)
        for task in pending:
            task.cancel()
    for task in live:
        with contextlib.suppress(asyncio.CancelledError):
            await task
