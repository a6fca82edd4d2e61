"""Feltcast's OBS control over obs-websocket (protocol v5, OBS 28 and later).

- :mod:`overlay.devices.obs.settings`: :class:`ObsSettings` (the ``[obs]`` configuration) and rules.
- :mod:`overlay.devices.obs.client`: :class:`ObsClient`, the one supervised connection to OBS.
- :mod:`overlay.devices.obs.setup`: ``feltcast obs setup``, the final table's scenes and sources.
- :mod:`overlay.devices.obs.automation`: table events to OBS operations.
- :mod:`overlay.devices.obs.delay_guard`: no live hole cards into OBS without its stream delay.
- :mod:`overlay.devices.obs.monitor`: :class:`ObsMonitor`, OBS's health and guard for the console.
- :mod:`overlay.devices.obs.feed`: :class:`AutomationFeed`, engine events to automation moments.
- :mod:`overlay.devices.obs.control`: :class:`ObsControl`, all of the above as the service uses it.

See docs/obs.md.
"""

from __future__ import annotations

from overlay.devices.obs.automation import ObsAutomation, OutcomeStatus, RuleOutcome
from overlay.devices.obs.client import ObsClient, ObsEvent, ObsHealth, ObsRequester, ObsState
from overlay.devices.obs.control import ObsControl, settings_from_config
from overlay.devices.obs.delay_guard import (
    StreamDelay,
    check_obs,
    ensure_stream_delay,
    feeds_secure_channel,
    read_stream_delay,
)
from overlay.devices.obs.feed import AutomationFeed
from overlay.devices.obs.monitor import ObsMonitor, ObsStatus
from overlay.devices.obs.settings import AutomationRule, ObsSettings, RuleAction, default_rules
from overlay.devices.obs.setup import SetupReport, StandIn, setup_final_table

__all__ = [
    "AutomationFeed",
    "AutomationRule",
    "ObsAutomation",
    "ObsClient",
    "ObsControl",
    "ObsEvent",
    "ObsHealth",
    "ObsMonitor",
    "ObsRequester",
    "ObsSettings",
    "ObsState",
    "ObsStatus",
    "OutcomeStatus",
    "RuleAction",
    "RuleOutcome",
    "SetupReport",
    "StandIn",
    "StreamDelay",
    "check_obs",
    "default_rules",
    "ensure_stream_delay",
    "feeds_secure_channel",
    "read_stream_delay",
    "settings_from_config",
    "setup_final_table",
]
