"""Small asyncio helpers shared by the service's long-lived parts."""

from __future__ import annotations

import asyncio
import contextlib
import faulthandler
import os
import signal
import sys
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

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


STOP_SECONDS = 30.0
"""How long a program stopped by Ctrl-C or SIGTERM may take to close: then every thread's
stack is printed to stderr and the process ends (exit status 1)."""


class StopSignals:
    """Ctrl-C (SIGINT) and SIGTERM for a program's main coroutine (``feltcast serve``, ``feltcast
    demo``): the first asks it to stop (:attr:`requested`; :func:`until_stopped` cancels the
    work until it has finished: a cancellation that Python 3.11 loses cannot keep it running),
    and arms a watchdog: a program that has not closed :data:`STOP_SECONDS` later prints every
    thread's stack and ends. A second signal ends the process at once (the log survives that
    as it survives a power cut). Installed on the running loop by :meth:`install` (a no-op
    outside the main thread, where signals cannot be handled)."""

    def __init__(self, out: Callable[[str], None] = print, *,
                 stop_seconds: float = STOP_SECONDS) -> None:
        self.out = out
        self.stop_seconds = stop_seconds
        self.requested = asyncio.Event()

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def install(self) -> None:
        loop = asyncio.get_running_loop()
        for signum in self.SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signum, self._signal)

    def _signal(self) -> None:
        """The first signal (on the loop): stop, with the watchdog armed."""
        self.requested.set()
        faulthandler.dump_traceback_later(self.stop_seconds, exit=True)
        loop = asyncio.get_running_loop()
        for signum in self.SIGNALS:  # the next one is handled outside the loop: it may hang
            loop.remove_signal_handler(signum)
            signal.signal(signum, self._at_once)

    def _at_once(self, signum: int, frame: object) -> None:
        self.out("stopping at once (second signal)")
        sys.stdout.flush()
        os._exit(128 + signum)


async def until_stopped(work: Coroutine[Any, Any, T], stop: StopSignals) -> tuple[bool, T | None]:
    """Run ``work`` until it returns or ``stop`` is requested: ``(False, its result)`` or
    ``(True, None)`` once it has been cancelled and has finished (its ``finally`` clauses run).
    Its own exception is raised."""
    task = asyncio.ensure_future(work)
    waiter = asyncio.ensure_future(stop.requested.wait())
    try:
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped = not task.done()
        await cancel_and_wait(task, waiter)
    return (True, None) if stopped else (False, task.result())


class Stopping:
    """A service's own reason to stop (its table's log taken over by another writer):
    ``feltcast serve`` waits on it and exits with status 3, so that a supervisor starts it
    again (as a standby)."""

    def __init__(self) -> None:
        self._event = asyncio.Event()
        self.reason = ""

    def stop(self, reason: str) -> None:
        if not self._event.is_set():
            self.reason = reason
            self._event.set()

    @property
    def requested(self) -> bool:
        return self._event.is_set()

    async def wait(self) -> None:
        await self._event.wait()
