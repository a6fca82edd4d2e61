"""The delay guard reads OBS's real stream delay (set with SetProfileParameter)."""

from __future__ import annotations

import pytest

from overlay.devices.obs.client import ObsClient
from overlay.devices.obs.delay_guard import (
    StreamDelay,
    check_obs,
    ensure_stream_delay,
    read_stream_delay,
)
from overlay.devices.obs.errors import DelayViolationError
from overlay.devices.obs.setup import StandIn, setup_final_table, stand_in_names
from tests.overlay.devices.obs.conftest import Observer, ObsStudio, Profile


@pytest.mark.parametrize("enabled, seconds", [(False, 20), (True, 1800), (False, 1800),
                                              (True, 5)])
async def test_reads_the_profiles_stream_delay(client: ObsClient, profile: Profile,
                                               enabled: bool, seconds: int) -> None:
    profile.set_delay(enabled, seconds)
    assert await read_stream_delay(client) == StreamDelay(enabled, seconds)


async def test_refuses_unless_the_delay_is_on_and_long_enough(client: ObsClient,
                                                              profile: Profile) -> None:
    profile.set_delay(False, 3600)
    with pytest.raises(DelayViolationError) as off:
        await ensure_stream_delay(client, 900, ["Feltcast Overlay"])
    assert "stream delay is off" in str(off.value)
    assert "'Feltcast Overlay'" in str(off.value)
    assert "Settings > Advanced > Stream Delay with at least 900 s" in str(off.value)

    profile.set_delay(True, 899)
    with pytest.raises(DelayViolationError, match="stream delay is 899 s"):
        await ensure_stream_delay(client, 900)

    profile.set_delay(True, 900)
    assert await ensure_stream_delay(client, 900) == StreamDelay(True, 900)


async def test_check_obs_only_guards_what_reads_the_secure_channel(
        client: ObsClient, obs: ObsStudio, profile: Profile) -> None:
    profile.set_delay(False, 20)
    # Nothing in this OBS reads `secure` (it has no browser sources at all): no delay needed.
    assert await check_obs(client, obs.settings(overlay_channel="delayed")) is None
    with pytest.raises(DelayViolationError):
        await check_obs(client, obs.settings(overlay_channel="secure"))
    profile.set_delay(True, 1200)
    secure = obs.settings(overlay_channel="secure", security_delay_seconds=1200)
    assert await check_obs(client, secure) == StreamDelay(True, 1200)


async def test_setup_on_the_secure_channel_needs_the_delay_first(
        client: ObsClient, obs: ObsStudio, observer: Observer, profile: Profile) -> None:
    settings = obs.settings(overlay_source="Secure Overlay", table_scene="Secure Table",
                            showdown_scene="Secure Showdown", break_scene="Secure Break",
                            overlay_channel="secure", overlay_token="s3cr3t-v4lue",
                            security_delay_seconds=600)
    profile.set_delay(True, 300)
    scenes_before = observer.call("GetSceneList")["scenes"]
    with pytest.raises(DelayViolationError, match="300 s"):
        await setup_final_table(client, settings, stand_in=StandIn())
    assert observer.call("GetSceneList")["scenes"] == scenes_before  # nothing half made

    profile.set_delay(True, 600)
    report = await setup_final_table(client, settings, stand_in=StandIn())
    assert f"scene {settings.table_scene!r}" in report.created
    text_name, _ = stand_in_names(settings)
    text = observer.call("GetInputSettings", inputName=text_name)["inputSettings"]["text"]
    assert "channel=secure&token=***" in text
    assert "s3cr3t-v4lue" not in text  # a stand-in may go on air: the token never shows
    assert "s3cr3t-v4lue" not in " ".join(report.lines())
