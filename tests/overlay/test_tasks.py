"""cancel_and_wait: every task ends, even one that loses its first cancellation."""

from __future__ import annotations

import asyncio

import pytest

from overlay.tasks import cancel_and_wait


async def test_a_task_that_swallows_a_cancellation_is_cancelled_again() -> None:
    swallowed = 0

    async def stubborn() -> None:
        nonlocal swallowed
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                if swallowed:
                    raise
                swallowed += 1  # as asyncio.wait_for on 3.11 can lose one

    task = asyncio.create_task(stubborn())
    await asyncio.sleep(0)
    await asyncio.wait_for(cancel_and_wait(task, None), 5)
    assert task.cancelled() and swallowed == 1


async def test_finished_tasks_and_their_errors() -> None:
    async def fails() -> None:
        raise RuntimeError("reader broke")

    async def idle() -> None:
        await asyncio.sleep(3600)

    broken, waiting = asyncio.create_task(fails()), asyncio.create_task(idle())
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError, match="reader broke"):
        await cancel_and_wait(broken, waiting)
    assert waiting.cancelled()
