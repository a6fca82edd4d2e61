"""Every piece of application state, under a typed :class:`aiohttp.web.AppKey`.

No module globals: the app factory (:func:`overlay.app.create_app`) fills these in its
cleanup contexts, and handlers read them from ``request.app``. Modules named here never import
this one (only the web layer does), so there is no import cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aiohttp import web

from overlay.auth import TokenFile, TokenThrottle
from overlay.checkpoints import Checkpoints
from overlay.config import Config
from overlay.device_tokens import DeviceBook
from overlay.hub import ChannelHub, TableLog
from overlay.obs.control import ObsControl
from overlay.pages import PageRegistry
from overlay.store import EventStore
from overlay.table_service import TableService

CONFIG_KEY = web.AppKey("config", Config)
TOKENS_KEY = web.AppKey("tokens", TokenFile)
CHECKPOINTS_KEY = web.AppKey("checkpoints", Checkpoints)
CLOCK_KEY: web.AppKey[Callable[[], float]] = web.AppKey("clock")
STORE_KEY = web.AppKey("store", EventStore)
LOG_KEY = web.AppKey("table_log", TableLog)
HUBS_KEY = web.AppKey("hubs", dict[str, ChannelHub[Any]])
TABLE_KEY = web.AppKey("table_service", TableService)
OBS_KEY = web.AppKey("obs", ObsControl)
THROTTLE_KEY = web.AppKey("token_throttle", TokenThrottle)
DEVICES_KEY = web.AppKey("devices", DeviceBook)
DEVICE_SOCKETS_KEY = web.AppKey("device_sockets", dict[web.WebSocketResponse, str])
"""Each socket opened with a named device's token, by the device's name (closed on revoke)."""
OBS_SOCKETS_KEY = web.AppKey("obs_sockets", dict[web.WebSocketResponse, bool])
"""OBS's browser sources on guarded channels, each with whether it was given the full view."""
PAGES_KEY = web.AppKey("pages", PageRegistry)
ASSET_VERSION_KEY = web.AppKey("asset_version", str)
