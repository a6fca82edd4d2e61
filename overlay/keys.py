"""Every piece of application state, under a typed :class:`aiohttp.web.AppKey`.

No module globals: the app factory (:func:`overlay.app.create_app`) fills these in its
cleanup contexts, and handlers read them from ``request.app``. This module imports nothing of
the service at run time (the types are named for the type checker only), so any module may
read the keys without an import cycle (``tests/test_architecture.py`` checks that every key is
defined here and that the service has no cycle).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aiohttp import web

if TYPE_CHECKING:
    from overlay.auth import TokenFile, TokenThrottle
    from overlay.checkpoints import Checkpoints
    from overlay.config import Config
    from overlay.device_tokens import DeviceBook
    from overlay.devices import Device
    from overlay.devices.capture_bridge import CaptureBridge
    from overlay.devices.obs.control import ObsControl
    from overlay.fanout.publisher import RedisPublisher
    from overlay.fanout.relay import RelaySource
    from overlay.fanout.worker import StandingsPairs, WorkerSettings
    from overlay.festival.client import FestivalClient
    from overlay.festival.director import Director
    from overlay.festival.settings import FestivalSettings
    from overlay.graphics.desk import GraphicsDesk
    from overlay.hub import ChannelHub, TableLog
    from overlay.pages import PageRegistry
    from overlay.store import EventStore
    from overlay.table_service import TableService
    from overlay.tasks import Stopping

CONFIG_KEY: web.AppKey[Config] = web.AppKey("config")
TOKENS_KEY: web.AppKey[TokenFile] = web.AppKey("tokens")
CHECKPOINTS_KEY: web.AppKey[Checkpoints] = web.AppKey("checkpoints")
CLOCK_KEY: web.AppKey[Callable[[], float]] = web.AppKey("clock")
STORE_KEY: web.AppKey[EventStore] = web.AppKey("store")
LOG_KEY: web.AppKey[TableLog] = web.AppKey("table_log")
HUBS_KEY: web.AppKey[dict[str, ChannelHub[Any]]] = web.AppKey("hubs")
TABLE_KEY: web.AppKey[TableService] = web.AppKey("table_service")
OBS_KEY: web.AppKey[ObsControl] = web.AppKey("obs")
THROTTLE_KEY: web.AppKey[TokenThrottle] = web.AppKey("token_throttle")
DEVICES_KEY: web.AppKey[DeviceBook] = web.AppKey("devices")
DEVICE_SOCKETS_KEY: web.AppKey[dict[web.WebSocketResponse, str]] = web.AppKey("device_sockets")
"""Each socket opened with a named device's token, by the device's name (closed on revoke)."""
OBS_SOCKETS_KEY: web.AppKey[dict[web.WebSocketResponse, bool]] = web.AppKey("obs_sockets")
"""OBS's browser sources on guarded channels, each with whether it was given the full view."""
PAGES_KEY: web.AppKey[PageRegistry] = web.AppKey("pages")
ASSET_VERSION_KEY: web.AppKey[str] = web.AppKey("asset_version")
GRAPHICS_KEY: web.AppKey[GraphicsDesk] = web.AppKey("graphics")
"""The look on air: themes, logo, sponsors (``overlay/graphics``)."""
CAPTURE_KEY: web.AppKey[CaptureBridge] = web.AppKey("capture_bridge")
"""The capture pipeline (readers and cameras) and its bridge to the table."""
TABLE_DEVICES_KEY: web.AppKey[list[Device]] = web.AppKey("table_devices")
"""The running devices (the capture bridge, its cameras, OBS) whose status, alerts and
``changed`` signal the console's device report follows (``overlay.devices.Device``)."""
PUBLISHER_KEY: web.AppKey[RedisPublisher] = web.AppKey("fanout_publisher")
"""The table's public channels published to Redis (``[fanout]`` configured)."""
RELAY_KEY: web.AppKey[RelaySource] = web.AppKey("relay")
"""A festival worker's Redis reader and its relays (:mod:`overlay.fanout.worker`)."""
WORKER_KEY: web.AppKey[WorkerSettings] = web.AppKey("worker_settings")
PAIRS_KEY: web.AppKey[StandingsPairs] = web.AppKey("standings_pairs")
"""A festival worker's pairs of the tables' channels and the festival's standings, read from
Redis at most once in :data:`overlay.fanout.worker.PAIRS_TTL` (:mod:`overlay.fanout.worker`)."""
STOPPING_KEY: web.AppKey[Stopping] = web.AppKey("stopping")
"""Set when the service must stop by itself (its table's lease lost, ``overlay.store``)."""
FESTIVAL_KEY: web.AppKey[FestivalSettings] = web.AppKey("festival_settings")
"""The tournament director's service: the festival's settings (``festival.toml``)."""
DIRECTOR_KEY: web.AppKey[Director] = web.AppKey("director")
"""The tournament director's service: the festival and its log."""
FESTIVAL_CLIENT_KEY: web.AppKey[FestivalClient] = web.AppKey("festival_client")
"""A table's service: how it asks the director's service before it deals (``[festival]``)."""
