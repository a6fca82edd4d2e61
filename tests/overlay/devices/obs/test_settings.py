"""OBS settings and rules from the configuration: pure, no OBS needed."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import ConfigError
from overlay.devices.obs.delay_guard import StreamDelay, feeds_secure_channel
from overlay.devices.obs.settings import AutomationRule, ObsSettings, RuleAction, default_rules


def test_from_mapping_reads_every_kind_of_field() -> None:
    settings = ObsSettings.from_mapping({
        "host": "10.0.0.5", "port": 4460, "password": "pw", "connect_timeout": 2,
        "overlay_channel": "secure", "overlay_token": "tok", "security_delay_seconds": 600,
        "rules": [{"on": "hand_ended", "do": "switch_scene", "scene": "Wide"},
                  {"on": "level_started", "do": "emit_event", "name": "level $level"}],
    })
    assert (settings.host, settings.port, settings.password) == ("10.0.0.5", 4460, "pw")
    assert settings.connect_timeout == 2.0
    assert settings.security_delay_seconds == 600.0
    assert settings.overlay_url == "http://127.0.0.1:8080/overlay?channel=secure&token=tok"
    assert settings.effective_rules == (
        AutomationRule("hand_ended", RuleAction.SWITCH_SCENE, scene="Wide"),
        AutomationRule("level_started", RuleAction.EMIT_EVENT, name="level $level"),
    )


def test_the_service_sections_short_keys_are_understood() -> None:
    settings = ObsSettings.from_mapping({"enabled": True, "host": "10.0.0.5", "port": 4455,
                                         "password": "pw", "channel": "venue", "timeout": 2.5})
    assert settings.overlay_channel == "venue"
    assert settings.connect_timeout == settings.request_timeout == 2.5


@pytest.mark.parametrize("table, key, problem", [
    ({"enabled": "yes"}, "obs.enabled", "true or false"),
    ({"channel": "venue", "overlay_channel": "venue"}, "obs.channel", "either"),
    ({"timeout": 1, "request_timeout": 2}, "obs.timeout", "either"),
    ({"channel": "my channel"}, "obs.channel", "not a channel name"),
    ({"timeout": 0}, "obs.timeout", "positive"),
    ({"timeout": "5s"}, "obs.timeout", "expected a number"),
    ({"port": 0}, "obs.port", "not a TCP port"),
    ({"port": "4455"}, "obs.port", "whole number"),
    ({"port": True}, "obs.port", "whole number"),
    ({"request_timeout": -1}, "obs.request_timeout", "positive"),
    ({"reconnect_initial": 5, "reconnect_max": 1}, "obs.reconnect_max", "not be shorter"),
    ({"overlay_channel": "a&b"}, "obs.overlay_channel", "not a channel name"),
    ({"secret_channels": "secure"}, "obs.secret_channels", "list of channel names"),
    ({"secret_channels": ["secure", 7]}, "obs.secret_channels", "list of channel names"),
    ({"secret_channels": ["secure", "no way"]}, "obs.secret_channels", "not a channel name"),
    ({"base_url": "127.0.0.1:8080"}, "obs.base_url", "service root"),
    ({"base_url": "http://h:1/overlay?channel=delayed"}, "obs.base_url", "service root"),
    ({"table_scene": "Same", "break_scene": "Same"}, "obs.scenes", "different"),
    ({"security_delay_seconds": -1}, "obs.security_delay_seconds", "not be negative"),
    ({"colour": "red"}, "obs.colour", "unknown key"),
    ({"rules": "switch"}, "obs.rules", "list of tables"),
    ({"rules": [{"on": "hand_ended", "do": "explode"}]}, "obs.rules[0].do", "not one of"),
    ({"rules": [{"on": "x", "do": "switch_scene"}]}, "obs.rules[0].scene", "needs a scene"),
    ({"rules": [{"on": "x", "do": "show_item", "scene": "S"}]}, "obs.rules[0].source",
     "needs a source"),
    ({"rules": [{"do": "save_replay"}]}, "obs.rules[0].on", "event kind"),
    ({"rules": [{"on": "x", "do": "save_replay", "when": "now"}]}, "obs.rules[0].when",
     "unknown key"),
])
def test_bad_configuration_names_the_key(table: dict[str, Any], key: str, problem: str) -> None:
    with pytest.raises(ConfigError) as caught:
        ObsSettings.from_mapping(table)
    assert caught.value.key == key
    assert problem in caught.value.problem


def test_secrets_stay_out_of_the_repr() -> None:
    settings = ObsSettings(password="hunter2", overlay_token="t0ken")
    assert "hunter2" not in repr(settings) and "t0ken" not in repr(settings)


@given(st.text(min_size=1, max_size=30))
def test_the_shown_overlay_url_never_contains_the_token(token: str) -> None:
    settings = ObsSettings(overlay_channel="secure", overlay_token=token)
    shown = settings.overlay_url_shown
    assert shown == "http://127.0.0.1:8080/overlay?channel=secure&token=***"
    assert ObsSettings().overlay_url_shown == ObsSettings().overlay_url


def test_default_rules_follow_the_scene_names() -> None:
    settings = ObsSettings(table_scene="Wide", showdown_scene="Close", break_scene="Pause")
    rules = default_rules(settings)
    assert settings.effective_rules == rules
    switch = {rule.on: rule.scene for rule in rules if rule.action is RuleAction.SWITCH_SCENE}
    assert switch["all_in_showdown"] == "Close"
    assert switch["hand_ended"] == switch["hand_voided"] == "Wide"
    assert switch["break_started"] == "Pause"


@given(st.sampled_from(["delayed", "venue", "secure"]), st.text(max_size=20))
def test_overlay_url_round_trips_channel_and_token(channel: str, token: str) -> None:
    settings = ObsSettings(overlay_channel=channel, overlay_token=token)
    assert feeds_secure_channel(settings.overlay_url) == (channel == "secure")


def test_a_configured_live_channel_is_as_secret_as_secure() -> None:
    settings = ObsSettings.from_mapping({"channel": "production",
                                         "secret_channels": ["secure", "production"]})
    assert settings.overlay_is_secret
    assert feeds_secure_channel(settings.overlay_url, settings.secret_channels)
    assert not ObsSettings(overlay_channel="venue").overlay_is_secret


@pytest.mark.parametrize("url, secure", [
    ("http://127.0.0.1:8080/overlay?channel=secure", True),
    ("http://127.0.0.1:8080/overlay?token=x&channel=SECURE", True),
    ("http://127.0.0.1:8080/overlay?channel=delayed", False),
    ("http://127.0.0.1:8080/secure", False),
    ("", False),
])
def test_feeds_secure_channel(url: str, secure: bool) -> None:
    assert feeds_secure_channel(url) is secure


@pytest.mark.parametrize("delay, required, covers", [
    (StreamDelay(True, 900), 900.0, True),
    (StreamDelay(True, 900), 900.5, False),
    (StreamDelay(True, 899), 900.0, False),
    (StreamDelay(False, 3600), 900.0, False),
    (StreamDelay(False, 0), 0.0, False),  # live hole cards into OBS need its delay on
    (StreamDelay(True, 0), 0.0, True),
])
def test_stream_delay_covers(delay: StreamDelay, required: float, covers: bool) -> None:
    assert delay.covers(required) is covers
