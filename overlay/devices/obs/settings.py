"""Configuration of Feltcast's OBS control: connection, scene names, overlay page, rules.

Everything here is a frozen value built once from the ``[obs]`` table of the configuration
(:meth:`ObsSettings.from_mapping`); a bad value raises :class:`~engine.errors.ConfigError`
naming the key, e.g. ``obs.port``.

>>> settings = ObsSettings(password="s3cret", base_url="http://127.0.0.1:8080/")
>>> settings.overlay_url
'http://127.0.0.1:8080/overlay?channel=delayed'
>>> "s3cret" in repr(settings)
False
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final
from urllib.parse import urlencode, urlsplit

from engine.errors import ConfigError

OVERLAY_WIDTH: Final = 1920
"""The stage the Feltcast pages draw on, 1920x1080, scaled to a browser source of any size
(``feltcast obs setup`` sizes the source to OBS's canvas); the canvas assumed when OBS does
not say."""
OVERLAY_HEIGHT: Final = 1080
"""The stage's height (see :data:`OVERLAY_WIDTH`)."""

CHANNELS: Final = ("delayed", "venue", "secure")
"""The standard information channels (see docs/obs.md for which to pick); the service may
configure more."""
SECURE_CHANNEL: Final = "secure"
"""The standard live channel with hole cards: only behind an OBS stream delay."""
_CHANNEL_NAME: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")


class RuleAction(StrEnum):
    """What an automation rule does in OBS when its event happens."""

    SWITCH_SCENE = "switch_scene"
    """``SetCurrentProgramScene`` to ``scene``."""
    SHOW_ITEM = "show_item"
    """``SetSceneItemEnabled`` true for ``source`` in ``scene``."""
    HIDE_ITEM = "hide_item"
    """``SetSceneItemEnabled`` false for ``source`` in ``scene``."""
    EMIT_EVENT = "emit_event"
    """``CallVendorRequest`` to obs-browser's ``emit_event``: a JS event in the browser pages."""
    RECORD_CHAPTER = "record_chapter"
    """``CreateRecordChapter`` (OBS 30.2 and later, Hybrid MP4 recordings only)."""
    SAVE_REPLAY = "save_replay"
    """``SaveReplayBuffer`` (the replay buffer must be running)."""


_SHORT_KEYS: Final = {"channel": ("overlay_channel",),
                      "timeout": ("connect_timeout", "request_timeout"),
                      "enabled": ()}
"""Keys of the service's ``[obs]`` section (overlay/config.py) and the fields they set."""

_NEEDS_SCENE: Final = {RuleAction.SWITCH_SCENE, RuleAction.SHOW_ITEM, RuleAction.HIDE_ITEM}
_NEEDS_SOURCE: Final = {RuleAction.SHOW_ITEM, RuleAction.HIDE_ITEM}


@dataclass(frozen=True, slots=True)
class AutomationRule:
    """On an event of kind ``on`` (e.g. ``"all_in_showdown"``), do ``action`` in OBS.

    ``name`` is the event name for ``emit_event`` (default: the event kind) and the chapter
    name for ``record_chapter`` (default: the event kind); it may use ``$key`` placeholders
    filled from the event's payload, e.g. ``"Hand $hand_number"``.
    """

    on: str
    action: RuleAction
    scene: str = ""
    source: str = ""
    name: str = ""

    def __post_init__(self) -> None:
        if not self.on:
            raise ConfigError("on", "an automation rule needs the event kind it reacts to")
        if self.action in _NEEDS_SCENE and not self.scene:
            raise ConfigError("scene", f"the rule {self.action.value!r} needs a scene name")
        if self.action in _NEEDS_SOURCE and not self.source:
            raise ConfigError("source", f"the rule {self.action.value!r} needs a source name")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], key: str = "obs.rules[0]") -> AutomationRule:
        """Build a rule from a configuration table such as
        ``{"on": "hand_ended", "do": "switch_scene", "scene": "Feltcast Table"}``.

        :raises ConfigError: naming ``key`` and the faulty field.
        """
        if not isinstance(data, Mapping):
            raise ConfigError(key, "expected a table with 'on' and 'do'")
        unknown = sorted(set(data) - {"on", "do", "scene", "source", "name"})
        if unknown:
            raise ConfigError(f"{key}.{unknown[0]}", "unknown key (expected on, do, scene, "
                              "source or name)")
        values = {k: _string(data, k, f"{key}.{k}", "") for k in ("on", "scene", "source", "name")}
        do = _string(data, "do", f"{key}.do", "")
        try:
            action = RuleAction(do)
        except ValueError:
            choices = ", ".join(a.value for a in RuleAction)
            raise ConfigError(f"{key}.do", f"{do!r} is not one of {choices}") from None
        try:
            return cls(action=action, **values)
        except ConfigError as error:
            raise ConfigError(f"{key}.{error.key}", error.problem) from None


@dataclass(frozen=True, slots=True)
class ObsSettings:
    """How Feltcast reaches OBS and what it builds there. Passwords and tokens stay out of
    the repr."""

    host: str = "127.0.0.1"
    port: int = 4455
    password: str = field(default="", repr=False)
    connect_timeout: float = 5.0
    """Seconds for TCP connect, websocket upgrade, Hello and Identify together."""
    request_timeout: float = 5.0
    """Seconds OBS has to answer one request."""
    reconnect_initial: float = 0.5
    """First wait before reconnecting after a failure; doubles up to ``reconnect_max``."""
    reconnect_max: float = 30.0
    recheck_seconds: float = 30.0
    """How often the delay guard reads OBS's stream delay again while connected (it also runs
    on every connection and when OBS reports a changed input): the longest an OBS browser
    source keeps the full view after the stream delay was switched off."""
    base_url: str = "http://127.0.0.1:8080"
    """Root of the Feltcast service as OBS reaches it (pages are ``/overlay`` and so on)."""
    overlay_channel: str = "delayed"
    """The channel the OBS overlay reads: ``delayed``, ``venue``, ``secure`` or another
    channel the service configures."""
    overlay_token: str = field(default="", repr=False)
    """Access token added to the overlay URL (the ``secure`` channel needs one)."""
    overlay_source: str = "Feltcast Overlay"
    table_scene: str = "Feltcast Table"
    showdown_scene: str = "Feltcast Showdown"
    break_scene: str = "Feltcast Break"
    security_delay_seconds: float = 900.0
    """The table's security delay D: OBS's stream delay must be on and at least this long
    whenever an OBS browser source reads the live ``secure`` channel (on even when D is 0)."""
    secret_channels: tuple[str, ...] = (SECURE_CHANNEL,)
    """Channels that show hole cards earlier than D: an OBS browser source reading one of
    them needs OBS's stream delay (the delay guard)."""
    rules: tuple[AutomationRule, ...] = ()

    def __post_init__(self) -> None:
        if not self.host:
            raise ConfigError("obs.host", "must not be empty")
        if not 0 < self.port < 65536:
            raise ConfigError("obs.port", f"{self.port} is not a TCP port (1-65535)")
        for name in ("connect_timeout", "request_timeout", "reconnect_initial",
                     "reconnect_max", "recheck_seconds"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"obs.{name}", "must be a positive number of seconds")
        if self.reconnect_max < self.reconnect_initial:
            raise ConfigError("obs.reconnect_max", "must not be shorter than reconnect_initial")
        url = urlsplit(self.base_url)
        if url.scheme not in ("http", "https") or not url.netloc or url.query:
            raise ConfigError("obs.base_url", f"{self.base_url!r} is not a service root such as "
                              "http://127.0.0.1:8080")
        for channel in (self.overlay_channel, *self.secret_channels):
            if not _CHANNEL_NAME.fullmatch(channel):
                key = ("obs.overlay_channel" if channel == self.overlay_channel
                       else "obs.secret_channels")
                raise ConfigError(key, f"{channel!r} is not a channel name such as "
                                  + ", ".join(CHANNELS))
        names = [self.overlay_source, self.table_scene, self.showdown_scene, self.break_scene]
        if any(not name for name in names) or len(set(names)) != len(names):
            raise ConfigError("obs.scenes", "the overlay source and the three scenes need "
                              "four different, non-empty names")
        if self.security_delay_seconds < 0:
            raise ConfigError("obs.security_delay_seconds", "must not be negative")

    @property
    def scenes(self) -> tuple[str, str, str]:
        """The scenes ``feltcast obs setup`` builds: table, showdown, break."""
        return (self.table_scene, self.showdown_scene, self.break_scene)

    @property
    def overlay_is_secret(self) -> bool:
        """Whether the overlay reads a channel with hole cards earlier than D."""
        return self.overlay_channel in self.secret_channels

    @property
    def overlay_url(self) -> str:
        """The URL the OBS browser source loads."""
        query = {"channel": self.overlay_channel}
        if self.overlay_token:
            query["token"] = self.overlay_token
        return f"{self.base_url.rstrip('/')}/overlay?{urlencode(query)}"

    @property
    def overlay_url_shown(self) -> str:
        """The overlay URL as Feltcast shows it to people (logs, reports, stand-in text): the
        token is masked, since a stand-in may go on air."""
        if not self.overlay_token:
            return self.overlay_url
        channel = urlencode({"channel": self.overlay_channel})
        return f"{self.base_url.rstrip('/')}/overlay?{channel}&token=***"

    @property
    def effective_rules(self) -> tuple[AutomationRule, ...]:
        """The configured rules, or the defaults for these scene names when none are set."""
        return self.rules or default_rules(self)

    def replace(self, **changes: Any) -> ObsSettings:
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> ObsSettings:
        """Build settings from the ``[obs]`` table of the configuration.

        Keys are the field names; ``rules`` is a list of tables (see :class:`AutomationRule`).
        The service configuration's short keys are understood too: ``channel`` for
        ``overlay_channel``, ``timeout`` for both timeouts, and ``enabled`` (whether to use
        OBS at all: the service's business, checked here only for its type).

        :raises ConfigError: naming the key and the problem.
        """
        if not isinstance(data, Mapping):
            raise ConfigError("obs", "expected a table")
        known = {f.name for f in dataclasses.fields(cls)} | set(_SHORT_KEYS)
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"obs.{unknown[0]}", "unknown key")
        if "enabled" in data and not isinstance(data["enabled"], bool):
            raise ConfigError("obs.enabled", f"expected true or false, got {data['enabled']!r}")
        data = dict(data)
        written_as: dict[str, str] = {}
        for short, longs in _SHORT_KEYS.items():
            if short in data:
                for long in longs:
                    if long in data:
                        raise ConfigError(f"obs.{short}", f"give either {short} or {long}")
                    data[long] = data[short]
                    written_as[f"obs.{long}"] = f"obs.{short}"
        values: dict[str, Any] = {}
        defaults = cls()
        for f in dataclasses.fields(cls):
            if f.name not in data or f.name in ("rules", "secret_channels"):
                continue
            default = getattr(defaults, f.name)
            key = written_as.get(f"obs.{f.name}", f"obs.{f.name}")
            if isinstance(default, str):
                values[f.name] = _string(data, f.name, key, default)
            elif isinstance(default, int):
                values[f.name] = _integer(data[f.name], key)
            else:
                values[f.name] = _number(data[f.name], key)
        if "secret_channels" in data:
            names = data["secret_channels"]
            if (isinstance(names, str | bytes) or not isinstance(names, Sequence)
                    or not all(isinstance(name, str) for name in names)):
                raise ConfigError("obs.secret_channels", "expected a list of channel names")
            values["secret_channels"] = tuple(names)
        if "rules" in data:
            raw_rules = data["rules"]
            if isinstance(raw_rules, str | bytes) or not isinstance(raw_rules, Sequence):
                raise ConfigError("obs.rules", "expected a list of tables")
            values["rules"] = tuple(AutomationRule.from_mapping(rule, f"obs.rules[{i}]")
                                    for i, rule in enumerate(raw_rules))
        try:
            return cls(**values)
        except ConfigError as error:
            if error.key in written_as:  # name the key as the configuration wrote it
                raise ConfigError(written_as[error.key], error.problem) from None
            raise


def default_rules(settings: ObsSettings) -> tuple[AutomationRule, ...]:
    """What Feltcast does in OBS when the configuration names no rules."""
    return (
        AutomationRule("all_in_showdown", RuleAction.SWITCH_SCENE, scene=settings.showdown_scene),
        AutomationRule("hand_ended", RuleAction.SWITCH_SCENE, scene=settings.table_scene),
        AutomationRule("hand_voided", RuleAction.SWITCH_SCENE, scene=settings.table_scene),
        AutomationRule("break_started", RuleAction.SWITCH_SCENE, scene=settings.break_scene),
        AutomationRule("level_started", RuleAction.SWITCH_SCENE, scene=settings.table_scene),
        AutomationRule("level_started", RuleAction.EMIT_EVENT, name="feltcast_level_started"),
        AutomationRule("player_eliminated", RuleAction.SAVE_REPLAY),
    )


def _string(data: Mapping[str, Any], name: str, key: str, default: str) -> str:
    value = data.get(name, default)
    if not isinstance(value, str):
        raise ConfigError(key, f"expected text, got {type(value).__name__}")
    return value


def _integer(value: object, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(key, f"expected a whole number, got {value!r}")
    return value


def _number(value: object, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(key, f"expected a number, got {value!r}")
    return float(value)
