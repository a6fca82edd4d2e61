"""What the operator console shows about OBS: connection health plus the delay guard.

:class:`ObsMonitor` watches an :class:`~overlay.devices.obs.client.ObsClient`. On every
(re)connection, when OBS reports a new or changed input, and every ``recheck_seconds``
while connected, it runs the delay guard (:func:`~overlay.devices.obs.delay_guard.check_obs`).
It publishes the ``operator.obs`` object and the OBS entries of ``alerts`` of
docs/view-model.md::

    "obs": {"connected": true, "stream_delay": 900.0, "ok": true,
            "message": "Stream delay 900 s"}

A delay violation is an ``error`` alert: the service must then keep hole cards away from
OBS (refuse its secret channels to it) until the check passes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from overlay.alerts import Alert, AlertLevel
from overlay.devices.obs.client import ObsClient, ObsEvent, ObsHealth, ObsState
from overlay.devices.obs.delay_guard import StreamDelay, check_obs, read_stream_delay
from overlay.devices.obs.errors import DelayViolationError, ObsError
from overlay.devices.obs.settings import ObsSettings
from overlay.tasks import cancel_and_wait

LOG = logging.getLogger(__name__)

RECHECK_EVENTS: Final = frozenset({"InputCreated", "InputSettingsChanged", "InputNameChanged",
                                   "CurrentProfileChanged"})
"""OBS events after which the guard runs again (a browser source may now read a secret channel)."""


@dataclass(frozen=True, slots=True)
class ObsStatus:
    """One snapshot of OBS for the operator console."""

    health: ObsHealth
    stream_delay: StreamDelay | None = None
    """Last read, or None before the first successful check."""
    violation: str = ""
    """The delay guard's refusal, or empty."""
    check_error: str = ""
    """Why the last check could not run (OBS refused a request), or empty."""

    @property
    def ok(self) -> bool:
        return (self.health.state is ObsState.CONNECTED and not self.violation
                and not self.check_error)

    @property
    def message(self) -> str:
        if self.violation:
            return self.violation
        if self.health.state is not ObsState.CONNECTED:
            return self.health.last_error or f"OBS {self.health.state.value}"
        if self.check_error:
            return self.check_error
        if self.stream_delay is not None and self.stream_delay.enabled:
            return f"Stream delay {self.stream_delay.seconds} s"
        return f"connected (OBS {self.health.obs_version}), stream delay off"

    def operator_view(self) -> dict[str, Any]:
        """The ``operator.obs`` object of docs/view-model.md."""
        delay = self.stream_delay
        return {"connected": self.health.state is ObsState.CONNECTED,
                "stream_delay": None if delay is None else
                float(delay.seconds if delay.enabled else 0),
                "ok": self.ok, "message": self.message}

    def alerts(self) -> list[Alert]:
        """OBS's entries for the ``alerts`` list (empty when all is well): standing
        conditions, without a time."""
        if self.violation:
            return [Alert(AlertLevel.ERROR, "obs", "obs_delay_violation", self.violation)]
        if self.health.state is ObsState.DOWN:
            return [Alert(AlertLevel.WARNING, "obs", "obs_offline",
                          f"OBS not connected: {self.health.last_error}")]
        if self.check_error:
            return [Alert(AlertLevel.WARNING, "obs", "obs_check_failed", self.check_error)]
        return []


class ObsMonitor:
    """Keeps an :class:`ObsStatus` up to date; ``on_change(status)`` runs on the loop."""

    def __init__(self, client: ObsClient, settings: ObsSettings, *,
                 on_change: Callable[[ObsStatus], None] | None = None,
                 recheck_seconds: float = 30.0) -> None:
        self._client = client
        self._settings = settings
        self._on_change = on_change
        self._recheck_seconds = recheck_seconds
        self._status = ObsStatus(client.health)
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._unsubscribe: list[Callable[[], None]] = []

    @property
    def status(self) -> ObsStatus:
        return self._status

    async def start(self) -> None:
        if self._task is not None:
            return
        self._unsubscribe = [self._client.add_health_listener(self._on_health),
                             self._client.add_event_listener(self._on_event)]
        self._task = asyncio.create_task(self._run(), name="feltcast-obs-monitor")

    async def stop(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []
        task, self._task = self._task, None
        await cancel_and_wait(task)

    async def __aenter__(self) -> ObsMonitor:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    async def check(self) -> ObsStatus:
        """Run the delay guard now (when connected) and publish the result."""
        health = self._client.health
        if health.state is not ObsState.CONNECTED:
            self._publish(ObsStatus(health, self._status.stream_delay))
            return self._status
        try:
            delay = await check_obs(self._client, self._settings)
            if delay is None:
                delay = await read_stream_delay(self._client)
            status = ObsStatus(self._client.health, delay)
        except DelayViolationError as error:
            delay = await _read_quietly(self._client)
            status = ObsStatus(self._client.health, delay, violation=str(error))
        except ObsError as error:
            status = ObsStatus(self._client.health, self._status.stream_delay,
                               check_error=f"OBS delay check failed: {error}")
        if status.violation and status.violation != self._status.violation:
            LOG.error("OBS delay guard: %s", status.violation)
        self._publish(status)
        return status

    async def _run(self) -> None:
        while True:
            if self._client.health.state is ObsState.CONNECTED:
                await self.check()
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._recheck_seconds)

    def _on_health(self, health: ObsHealth) -> None:
        self._publish(ObsStatus(health, self._status.stream_delay, self._status.violation,
                                self._status.check_error))
        if health.state is ObsState.CONNECTED:
            self._wake.set()

    def _on_event(self, event: ObsEvent) -> None:
        if event.type in RECHECK_EVENTS:
            self._wake.set()

    def _publish(self, status: ObsStatus) -> None:
        changed = status != self._status
        self._status = status
        if changed and self._on_change is not None:
            try:
                self._on_change(status)
            except Exception:
                LOG.exception("OBS status listener failed")


async def _read_quietly(client: ObsClient) -> StreamDelay | None:
    try:
        return await read_stream_delay(client)
    except ObsError:
        return None
