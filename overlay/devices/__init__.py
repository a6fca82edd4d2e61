"""The table's devices in the service: RFID readers (:mod:`.capture_bridge`), cameras
(:mod:`.camera_bridge`, :mod:`.camera_config`), deck registration (:mod:`.deck_desk`) and OBS
Studio (:mod:`.obs`).

Every device has one shape, :class:`Device`: its :meth:`~Device.status` (what it adds to the
operator view's ``capture``, ``decks`` and ``obs`` fields, ``docs/view-model.md``), its
:meth:`~Device.alerts` (:class:`overlay.alerts.Alert`, one frozen type for all) and its
``changed`` signal (:class:`overlay.signals.Signal`), emitted when either changed. The service
keeps the running devices under ``TABLE_DEVICES_KEY``; ``overlay.app.device_report`` merges their
statuses and alerts, and its reporting wakes on any device's ``changed`` (a reader going
offline reaches the console at once, not at the next beat).

The capture pipeline is built once (``capture_ctx``): the capture bridge owns the readers'
:class:`capture.rfid.RfidCapture` and, when cameras are configured, the camera service
whose fusion RFID events pass through on their way to the bridge.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from overlay.alerts import Alert
from overlay.signals import Signal

__all__ = ["Device", "DeviceStatus", "merge_statuses"]


@dataclass(frozen=True, slots=True)
class DeviceStatus:
    """What one device adds to the operator view."""

    capture: tuple[Mapping[str, Any], ...] = ()
    """Entries of the ``capture`` list (a reader's or a camera's health)."""
    decks: Mapping[str, Any] | None = None
    """The ``decks`` field (the RFID deck desk), if this device has one."""
    obs: Mapping[str, Any] | None = None
    """The ``obs`` field, if this device is OBS."""


@runtime_checkable
class Device(Protocol):
    """A device as the service sees it (see the module docstring)."""

    changed: Signal

    def status(self) -> DeviceStatus: ...

    def alerts(self) -> list[Alert]: ...


def merge_statuses(statuses: Iterable[DeviceStatus]) -> DeviceStatus:
    """The devices' statuses as one: the capture entries in device order, the first
    ``decks`` and ``obs`` given.

    >>> merged = merge_statuses([DeviceStatus(capture=({"source": "reader:t"},)),
    ...                          DeviceStatus(capture=({"source": "camera:c"},)),
    ...                          DeviceStatus(obs={"connected": True})])
    >>> [entry["source"] for entry in merged.capture], merged.obs, merged.decks
    (['reader:t', 'camera:c'], {'connected': True}, None)
    """
    capture: list[Mapping[str, Any]] = []
    decks = obs = None
    for status in statuses:
        capture.extend(status.capture)
        decks = decks if decks is not None else status.decks
        obs = obs if obs is not None else status.obs
    return DeviceStatus(tuple(capture), decks, obs)
