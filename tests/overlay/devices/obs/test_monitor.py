"""The operator console's view of OBS: health plus the delay guard, against a real OBS."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from overlay.devices.obs.client import ObsClient
from overlay.devices.obs.monitor import ObsMonitor, ObsStatus
from tests.overlay.devices.obs.conftest import Observer, ObsStudio, Profile, free_port


async def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


async def test_all_is_well_on_the_delayed_channel(client: ObsClient, obs: ObsStudio,
                                                  profile: Profile) -> None:
    profile.set_delay(False, 20)
    async with ObsMonitor(client, obs.settings(overlay_channel="delayed")) as monitor:
        status = await monitor.check()
    assert status.operator_view() == {"connected": True, "stream_delay": 0.0, "ok": True,
                                      "message": f"connected (OBS {client.health.obs_version}),"
                                                 " stream delay off"}
    assert status.alerts() == []


async def test_secure_without_delay_is_an_error_alert_until_the_delay_is_on(
        client: ObsClient, obs: ObsStudio, profile: Profile) -> None:
    profile.set_delay(False, 20)
    published: list[ObsStatus] = []
    settings = obs.settings(overlay_channel="secure", security_delay_seconds=900)
    async with ObsMonitor(client, settings, on_change=published.append) as monitor:
        await wait_for(lambda: bool(monitor.status.violation))  # checked at start
        view = monitor.status.operator_view()
        assert (view["connected"], view["ok"]) == (True, False)
        assert "stream delay is off" in view["message"]
        [alert] = monitor.status.alerts()
        assert (alert.level, alert.source, alert.kind) == ("error", "obs", "obs_delay_violation")

        profile.set_delay(True, 900)
        status = await monitor.check()
    assert status.operator_view() == {"connected": True, "stream_delay": 900.0, "ok": True,
                                      "message": "Stream delay 900 s"}
    assert published[-1] == status


async def test_a_new_input_in_obs_triggers_a_new_check(client: ObsClient, obs: ObsStudio,
                                                       observer: Observer,
                                                       profile: Profile) -> None:
    profile.set_delay(True, 900)
    settings = obs.settings(overlay_channel="secure", security_delay_seconds=900)
    async with ObsMonitor(client, settings, recheck_seconds=3600) as monitor:
        await wait_for(lambda: monitor.status.ok)
        profile.set_delay(False, 900)  # OBS sends no event for this...
        observer.call("CreateInput", sceneName=observer.call("GetCurrentProgramScene")[
            "currentProgramSceneName"], inputName="Monitor Trigger",
            inputKind="color_source_v3", inputSettings={})  # ...but for this it does
        await wait_for(lambda: bool(monitor.status.violation))
    assert not monitor.status.ok


async def test_obs_down_is_a_warning_with_the_reason(obs: ObsStudio) -> None:
    async with (ObsClient(obs.settings(port=free_port())) as down,
                ObsMonitor(down, down.settings) as monitor):
        await wait_for(lambda: monitor.status.health.attempts > 0)
        status = monitor.status
    assert status.operator_view()["connected"] is False
    assert status.operator_view()["ok"] is False
    [alert] = status.alerts()
    assert alert.level == "warning" and "nothing listens" in alert.message
