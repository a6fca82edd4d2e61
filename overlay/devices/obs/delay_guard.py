"""The delay guard: no live hole cards into OBS unless OBS holds its stream back long enough.

When OBS sits in the secure production room (topology 1 of the architecture note), its
overlay reads the live ``secure`` channel and OBS's *Stream Delay* (Settings > Advanced)
must hold the outgoing stream back by at least the table's security delay D. Feltcast
reads that setting over obs-websocket (``GetProfileParameter``, category ``Output``, names
``DelayEnable`` and ``DelaySec``) and refuses otherwise with
:class:`~overlay.devices.obs.errors.DelayViolationError`.

OBS applies a new stream delay only when the stream (re)starts; the guard reads the
profile, so after changing the delay during a live stream, restart the stream.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from overlay.devices.obs.client import ObsRequester
from overlay.devices.obs.errors import DelayViolationError
from overlay.devices.obs.settings import SECURE_CHANNEL, ObsSettings

BROWSER_SOURCE_KIND = "browser_source"


@dataclass(frozen=True, slots=True)
class StreamDelay:
    """OBS's stream delay as its current profile sets it."""

    enabled: bool
    seconds: int

    def covers(self, required_seconds: float) -> bool:
        """Whether the stream is held back at least ``required_seconds``."""
        return self.enabled and self.seconds >= math.ceil(required_seconds)

    def describe(self) -> str:
        return f"{self.seconds} s" if self.enabled else "off"


def feeds_secure_channel(url: str, secret_channels: Iterable[str] = (SECURE_CHANNEL,)) -> bool:
    """Whether a page URL reads a channel with live hole cards (``?channel=secure``).

    >>> feeds_secure_channel("http://127.0.0.1:8080/overlay?channel=secure&token=x")
    True
    >>> feeds_secure_channel("http://127.0.0.1:8080/overlay?channel=delayed")
    False
    """
    secret = {name.lower() for name in secret_channels}
    channels = parse_qs(urlsplit(url).query).get("channel", [])
    return any(c.strip().lower() in secret for c in channels)


async def read_stream_delay(obs: ObsRequester) -> StreamDelay:
    """Read ``Output/DelayEnable`` and ``Output/DelaySec`` from OBS's current profile."""
    enabled = await _profile_parameter(obs, "DelayEnable")
    seconds = await _profile_parameter(obs, "DelaySec")
    try:
        delay_seconds = int(seconds or "0")
    except ValueError:
        delay_seconds = 0
    return StreamDelay((enabled or "").strip().lower() == "true", max(delay_seconds, 0))


async def ensure_stream_delay(obs: ObsRequester, required_seconds: float,
                              sources: Iterable[str] = ()) -> StreamDelay:
    """Refuse unless OBS's stream delay is on and at least ``required_seconds``.

    :param sources: the OBS sources that read the live channel, named in the message.
    :returns: the delay read, when it is long enough.
    :raises DelayViolationError: the delay is off or too short (the message says what to do).
    """
    delay = await read_stream_delay(obs)
    if delay.covers(required_seconds):
        return delay
    names = ", ".join(repr(name) for name in sources) or "the Feltcast overlay"
    need = math.ceil(required_seconds)
    raise DelayViolationError(
        f"OBS stream delay is {delay.describe()}, but {names} reads a live channel with hole "
        f"cards: "
        f"hole cards would go on air before the {need} s security delay. In OBS, turn on "
        f"Settings > Advanced > Stream Delay with at least {need} s (then restart the "
        f"stream), or switch the overlay to the delayed channel.")


async def secure_browser_sources(obs: ObsRequester, secret_channels: Iterable[str] = (
        SECURE_CHANNEL,)) -> tuple[str, ...]:
    """The names of OBS browser sources whose URL reads a channel with live hole cards."""
    secret = tuple(secret_channels)
    kinds = await obs.call("GetInputKindList", {"unversioned": True})
    if BROWSER_SOURCE_KIND not in kinds.get("inputKinds", ()):
        return ()
    inputs = await obs.call("GetInputList", {"inputKind": BROWSER_SOURCE_KIND})
    found = []
    for entry in inputs.get("inputs", ()):
        name = str(entry.get("inputName", ""))
        settings = await obs.call("GetInputSettings", {"inputName": name})
        url = str(settings.get("inputSettings", {}).get("url", ""))
        if feeds_secure_channel(url, secret):
            found.append(name)
    return tuple(found)


async def check_obs(obs: ObsRequester, settings: ObsSettings) -> StreamDelay | None:
    """The guard as the service runs it on every (re)connection and before setup.

    Looks for browser sources in OBS that read one of ``settings.secret_channels`` (the
    producer may have added one by hand) and, when there is one or Feltcast's own overlay is
    configured on such a channel, requires the stream delay.

    :returns: the delay read, or None when nothing in OBS reads the secure channel.
    :raises DelayViolationError: the delay is off or too short.
    """
    sources = list(await secure_browser_sources(obs, settings.secret_channels))
    if settings.overlay_is_secret and settings.overlay_source not in sources:
        sources.append(settings.overlay_source)
    if not sources:
        return None
    return await ensure_stream_delay(obs, settings.security_delay_seconds, sources)


async def _profile_parameter(obs: ObsRequester, name: str) -> str | None:
    data = await obs.call("GetProfileParameter",
                          {"parameterCategory": "Output", "parameterName": name})
    value = data.get("parameterValue")
    if value is None:
        value = data.get("defaultParameterValue")
    return None if value is None else str(value)
