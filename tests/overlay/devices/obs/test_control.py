"""ObsControl, the service's one entry point to OBS: from the configuration to a real OBS."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from engine.errors import ConfigError
from overlay.config import parse_config
from overlay.devices.obs.automation import OutcomeStatus
from overlay.devices.obs.control import ObsControl, settings_from_config
from overlay.devices.obs.setup import StandIn, setup_final_table
from tests.overlay.devices.obs.conftest import Observer, ObsStudio, Profile
from tests.overlay.devices.obs.test_feed import all_in_hand


def service_config(**obs: Any) -> Any:
    return parse_config({"obs": {"enabled": True, "password": "pw"} | obs,
                         "delay": {"seconds": 600}, "server": {"host": "0.0.0.0", "port": 8088}})


def test_settings_come_from_the_service_configuration() -> None:
    settings = settings_from_config(service_config(port=4460, channel="secure", timeout=2.0),
                                    obs_token="tok")
    assert settings is not None
    assert (settings.host, settings.port, settings.password) == ("127.0.0.1", 4460, "pw")
    assert settings.connect_timeout == settings.request_timeout == 2.0
    assert settings.security_delay_seconds == 600.0
    # The service listens on every interface: OBS reaches it on the loopback address.
    assert settings.overlay_url == "http://127.0.0.1:8088/overlay?channel=secure&token=tok"


def test_the_token_only_goes_to_the_secure_channel_and_disabled_means_none() -> None:
    delayed = settings_from_config(service_config(channel="delayed"), obs_token="tok",
                                   base_url="http://studio.local:9000")
    assert delayed is not None
    assert delayed.overlay_url == "http://studio.local:9000/overlay?channel=delayed"
    assert settings_from_config(parse_config({})) is None  # [obs] enabled = false


def test_every_channel_showing_hole_cards_early_is_guarded() -> None:
    config = parse_config({
        "obs": {"enabled": True, "password": "pw", "channel": "production"},
        "delay": {"seconds": 600},
        "channels": {"production": {"filter": "full", "delay": 0, "requires_token": True},
                     "late": {"filter": "full", "delay": 120, "requires_token": True},
                     "after": {"filter": "reveal_after_hand", "delay": 0}}})
    settings = settings_from_config(config, obs_token="tok")
    assert settings is not None
    # delayed (600 s = D) and a reveal-after-hand channel are safe; the others are not.
    assert settings.secret_channels == ("secure", "late", "production")
    assert settings.overlay_is_secret
    assert settings.overlay_url.endswith("channel=production&token=tok")


def test_without_a_delay_the_delayed_channel_is_live_too() -> None:
    config = parse_config({"obs": {"enabled": True, "password": "pw"},
                           "delay": {"seconds": 0}})
    settings = settings_from_config(config)
    assert settings is not None and settings.overlay_is_secret  # "delayed" by 0 s


def test_a_bad_value_names_the_obs_key() -> None:
    with pytest.raises(ConfigError) as caught:
        settings_from_config(service_config(), table_scene="Same", break_scene="Same")
    assert caught.value.key == "obs.scenes"


async def wait_for(condition: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


async def test_control_runs_client_monitor_and_rules_together(
        obs: ObsStudio, observer: Observer, profile: Profile) -> None:
    profile.set_delay(True, 900)
    settings = obs.settings(overlay_source="Control Overlay", table_scene="Control Table",
                            showdown_scene="Control Showdown", break_scene="Control Break",
                            overlay_channel="secure", security_delay_seconds=900)
    async with ObsControl(settings) as control:
        # Connected first, then the delay check: secure is allowed once OBS's 900 s is read.
        await wait_for(lambda: control.secure_allowed)
        await setup_final_table(control.client, settings, stand_in=StandIn())
        observer.call("SetCurrentSceneTransition", transitionName="Cut")
        observer.drain()
        [outcome] = await control.handle_event("all_in_showdown")
        assert outcome.status is OutcomeStatus.DONE
        observer.expect("CurrentProgramSceneChanged", sceneName="Control Showdown")

        profile.set_delay(True, 60)
        signalled: list[dict[str, Any] | None] = []  # the device's changed signal
        control.changed.connect(lambda: signalled.append(
            dict(control.status().obs or {})))
        await control.monitor.check()
        assert not control.secure_allowed
        assert control.alerts()[0].level == "error"
        assert signalled and signalled[-1] is not None
        assert not signalled[-1]["ok"] and signalled[-1]["stream_delay"] == 60.0
    assert not control.client.connected


async def test_a_real_engine_hand_drives_obs_through_the_default_rules(
        obs: ObsStudio, observer: Observer) -> None:
    settings = obs.settings(overlay_source="Engine Overlay", table_scene="Engine Table",
                            showdown_scene="Engine Showdown", break_scene="Engine Break")
    async with ObsControl(settings) as control:
        await control.client.wait_connected(10)
        await setup_final_table(control.client, settings, stand_in=StandIn())
        observer.call("SetCurrentSceneTransition", transitionName="Cut")
        observer.call("SetCurrentProgramScene", sceneName="Engine Table")
        observer.expect("CurrentProgramSceneChanged", sceneName="Engine Table")
        outcomes = {}
        for event in all_in_hand().events:
            for outcome in await control.handle_table_event(event.to_dict()):
                outcomes[outcome.rule.on] = outcome.status
                if outcome.rule.on == "all_in_showdown":
                    # The all-in cuts to the showdown scene. (At a table the board takes
                    # seconds to deal; OBS reports only the last of switches in one frame.)
                    observer.expect("CurrentProgramSceneChanged", sceneName="Engine Showdown")
        # ...and the hand's end cuts back to the table.
        observer.expect("CurrentProgramSceneChanged", sceneName="Engine Table")
    assert outcomes["all_in_showdown"] is OutcomeStatus.DONE
    assert outcomes["hand_ended"] is OutcomeStatus.DONE
    # The default rule saves a replay on an elimination; this OBS's buffer is not running.
    assert outcomes["player_eliminated"] is OutcomeStatus.UNSUPPORTED
