"""OBS control as the service plugs it in: one object, one async context.

:class:`ObsControl` bundles the supervised client, the monitor (health and delay guard
for the operator console) and the automation rules. The service builds its settings
from the configuration with :func:`settings_from_config` and enters it in one cleanup
context::

    async def obs_ctx(app: web.Application) -> AsyncIterator[None]:
        settings = settings_from_config(app[CONFIG_KEY], obs_token=tokens.obs)
        if settings is None:            # [obs] enabled = false
            yield
            return
        obs = ObsControl(settings)
        obs.changed.connect(publish_obs_status)
        async with obs:
            app[OBS_KEY] = obs
            yield

Then ``await app[OBS_KEY].handle_table_event(event.to_dict())`` for each event of the
channel the overlay reads (``handle_event(kind, payload)`` for tournament moments), and
``obs.status()`` / ``obs.alerts()`` for the console (OBS is an
:class:`overlay.devices.Device`, with a ``changed`` signal). Nothing here ever waits for OBS:
while it is down, events are reported ``unavailable`` and the service goes on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from overlay.alerts import Alert
from overlay.devices import DeviceStatus
from overlay.devices.obs.automation import ObsAutomation, RuleOutcome
from overlay.devices.obs.client import ObsClient
from overlay.devices.obs.feed import AutomationFeed
from overlay.devices.obs.monitor import ObsMonitor, ObsStatus
from overlay.devices.obs.settings import SECURE_CHANNEL, ObsSettings
from overlay.signals import Signal

if TYPE_CHECKING:
    from overlay.config import Config

_ANY_ADDRESS = {"0.0.0.0", "::", ""}
# Settings the [obs] table may set directly (the rest come from the service configuration).
_SCENE_FIELDS = ("table_scene", "showdown_scene", "break_scene", "overlay_source",
                 "recheck_seconds")


def settings_from_config(config: Config, *, base_url: str | None = None,
                         obs_token: str = "", **changes: Any) -> ObsSettings | None:
    """OBS settings from the service configuration (``overlay.config.Config``), or None when
    OBS control is off.

    ``base_url`` defaults to the service's own address (127.0.0.1 when it listens on every
    interface); the secret channels are ``secure`` and the enabled ``full`` channels that
    are live or delayed less than D, and ``obs_token`` (the ``obs`` role's: full views only
    while the stream delay covers D) is added to the overlay URL only for one of them;
    ``changes`` set any other :class:`ObsSettings` field (scene names, rules).

    :raises ConfigError: a value ObsSettings refuses, naming the ``obs.*`` key.
    """
    section = config.obs
    if not section.enabled:
        return None
    server = config.server
    if base_url is None:
        host = "127.0.0.1" if server.host in _ANY_ADDRESS else server.host
        if ":" in host:
            host = f"[{host}]"
        base_url = f"http://{host}:{server.port}"
    # Channels that show hole cards before D (or live): the guard keeps them from OBS
    # unless its stream delay covers D. `secure` always counts.
    secret = (SECURE_CHANNEL, *sorted(
        channel.name for channel in config.channels
        if channel.name != SECURE_CHANNEL and channel.enabled and channel.filter == "full"
        and (channel.delay < config.delay or channel.delay == 0)))
    configured = section.settings  # [obs] as read once, at start-up
    values: dict[str, Any] = {
        "rules": configured.rules,
        **{name: getattr(configured, name) for name in _SCENE_FIELDS if name in section.raw},
        "host": section.host, "port": section.port, "password": section.password,
        "connect_timeout": section.timeout, "request_timeout": section.timeout,
        "base_url": base_url, "overlay_channel": section.channel,
        "overlay_token": obs_token if section.channel in secret else "",
        "secret_channels": secret,
        "security_delay_seconds": float(config.delay),
    }
    return ObsSettings(**(values | changes))


class ObsControl:
    """Client, monitor and automation for one OBS, started and stopped together."""

    def __init__(self, settings: ObsSettings, *,
                 recheck_seconds: float | None = None) -> None:
        self.settings = settings
        self.client = ObsClient(settings)
        self.changed = Signal("obs")
        """Emitted when the OBS status (connection, delay check) changed."""
        self.monitor = ObsMonitor(self.client, settings, on_change=lambda _s: self.changed.emit(),
                                  recheck_seconds=recheck_seconds or settings.recheck_seconds)
        self.automation = ObsAutomation(self.client, settings.effective_rules)
        self.feed = AutomationFeed()

    @property
    def obs_status(self) -> ObsStatus:
        """The connection and the last delay check."""
        return self.monitor.status

    def status(self) -> DeviceStatus:
        """The operator view's ``obs`` object (an :class:`overlay.devices.Device`)."""
        return DeviceStatus(obs=self.monitor.status.operator_view())

    def alerts(self) -> list[Alert]:
        """OBS's entries of the operator's ``alerts`` (standing conditions)."""
        return self.monitor.status.alerts()

    @property
    def secure_allowed(self) -> bool:
        """Whether OBS may receive the live ``secure`` channel now: connected and the last
        delay check passed. Otherwise the service gives OBS's browser sources (the ``obs``
        token) the public view instead (``overlay/app.py``, :func:`~overlay.app.hub_for`)."""
        status = self.monitor.status
        return status.ok and status.stream_delay is not None and status.stream_delay.covers(
            self.settings.security_delay_seconds)

    async def handle_table_event(self, event: Mapping[str, Any]) -> tuple[RuleOutcome, ...]:
        """Run the rules for one table event in its JSON form (``Event.to_dict()``), as the
        overlay's channel carries it, and for the moments it makes (``all_in_showdown``,
        ``player_eliminated``: see :mod:`overlay.devices.obs.feed`)."""
        outcomes: list[RuleOutcome] = []
        for kind, payload in self.feed.moments(event):
            outcomes.extend(await self.automation.handle(kind, payload))
        return tuple(outcomes)

    async def handle_event(self, kind: str,
                           payload: Mapping[str, Any] | None = None) -> tuple[RuleOutcome, ...]:
        """Run the automation rules for one moment by name (e.g. ``level_started`` from the
        tournament clock; see :class:`ObsAutomation`)."""
        return await self.automation.handle(kind, payload)

    async def start(self) -> None:
        await self.client.start()
        await self.monitor.start()

    async def stop(self) -> None:
        await self.monitor.stop()
        await self.client.stop()

    async def __aenter__(self) -> ObsControl:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()
