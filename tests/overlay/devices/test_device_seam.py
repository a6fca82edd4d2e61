"""One device seam (issue 16, step 4): the table service's own change signal, and every device
(the capture bridge, its cameras, OBS) as one :class:`overlay.devices.Device` whose ``changed``
signal brings the console's device report forward.

On the real service with a simulated reader on a real pseudo-terminal; OBS's signal is
checked against a real OBS Studio in ``tests/overlay/devices/obs/test_control.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import overlay.app
from overlay.devices import Device, DeviceStatus
from overlay.keys import CAPTURE_KEY, TABLE_DEVICES_KEY, TABLE_KEY

from .rig import service_rig


async def test_the_table_service_signals_a_change_of_the_table_not_a_device_report(
        tmp_path: Path) -> None:
    async with service_rig(tmp_path) as rig:
        service = rig.app[TABLE_KEY]
        seen: list[int] = []
        disconnect = service.changed.connect(lambda: seen.append(service.table.hand_number))

        def broken() -> None:
            raise RuntimeError("a listener's bug")

        service.changed.connect(broken)  # logged; the append and the others go on
        service.device_report = lambda: {"alerts": [], "capture": [], "note": len(seen)}
        await service.report_devices()  # a device report changes no decision
        assert seen == []
        await rig.ok("next_hand")
        assert seen and seen[-1] == service.table.hand_number
        disconnect()
        count = len(seen)
        await rig.ok("misdeal")
        assert len(seen) == count  # disconnected: no more calls


async def test_the_capture_bridge_learns_of_a_table_change_from_the_signal(
        tmp_path: Path) -> None:
    """Cards lying at a seat before the hand starts are dealt when it starts: the bridge
    reconciles on the table service's signal (there is no capture event then)."""
    async with service_rig(tmp_path) as rig:
        rig.place(1, "As", "Ks")
        await rig.until(lambda: rig.bridge._seats.get(1) is not None, what="seat 1 read")
        assert rig.app[TABLE_KEY].table.hand is None
        await rig.ok("next_hand")
        await rig.until(lambda: rig.hand.hole_cards(1) is not None, timeout=30,
                        what="seat 1 dealt after next_hand")


async def test_a_device_change_reaches_the_console_without_waiting_for_the_beat(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(overlay.app, "REPORT_SECONDS", 3600.0)  # only a signal can wake it
    async with service_rig(tmp_path) as rig:
        devices = rig.app[TABLE_DEVICES_KEY]
        assert devices == [rig.app[CAPTURE_KEY]]  # no OBS, no camera configured here
        assert all(isinstance(device, Device) for device in devices)
        status = rig.bridge.status()
        assert isinstance(status, DeviceStatus) and status.decks is not None
        assert [entry["source"] for entry in status.capture] == ["reader:table"]
        await rig.until_view("operator", lambda v: v["operator"]["capture"][0]["status"]
                             in ("ok", "fault"), timeout=30, what="the reader online")
        await rig.sim.unplug()
        view = await rig.until_view(
            "operator", lambda v: v["operator"]["capture"][0]["status"] == "offline",
            timeout=30, what="the reader offline, at once")
        assert rig.alerts(view, "reader_offline")
