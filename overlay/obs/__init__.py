"""Feltcast's OBS control over obs-websocket (protocol v5, OBS 28 and later).

- :mod:`overlay.obs.settings`: :class:`ObsSettings` (the ``[obs]`` configuration) and rules.
- :mod:`overlay.obs.client`: :class:`ObsClient`, the one supervised connection to OBS.
- :mod:`overlay.obs.setup`: ``feltcast obs setup``, the final table's scenes and sources.
- :mod:`overlay.obs.automation`: table events to OBS operations.
- :mod:`overlay.obs.delay_guard`: no live hole cards into OBS without its stream delay.
- :mod:`overlay.obs.monitor`: :class:`ObsMonitor`, OBS's health and guard for the console.
- :mod:`overlay.obs.feed`: :class:`AutomationFeed`, engine events to automation moments.
- :mod:`overlay.obs.control`: :class:`ObsControl`, all of the above as the service uses it.

See docs/obs.md.
"""

from __future__ import annotations

from overlay.obs.automation import ObsAutomation, OutcomeStatus, RuleOutcome
from overlay.obs.client import ObsClient, ObsEvent, ObsHealth, ObsRequester, ObsState
from overlay.obs.control import ObsControl, settings_from_config
from overlay.obs.delay_guard import (
    StreamDelay,
    check_obs,
    ensure_stream_delay,
    feeds_secure_channel,
    read_stream_delay,
)
from overlay.obs.feed import AutomationFeed
from overlay.obs.monitor import ObsMonitor, ObsStatus
from overlay.obs.settings import AutomationRule, ObsSettings, RuleAction, default_rules
from overlay.obs.setup import SetupReport, StandIn, setup_final_table

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
