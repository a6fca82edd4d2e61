"""A festival's web worker (``feltcast worker``): every table's public pages and channels,
relayed from Redis (:mod:`overlay.fanout.relay`), for as many viewers as one process can hold.

It keeps no log and runs no table: any number of workers serve any table, behind any load
balancer, and one may be killed and started again at any time (its pages reconnect to
another, or to it, and resume). Routes, for a table published as ``<table>``:

* ``/t/<table>/<page>``: the public pages (the overlay and the tournament graphics) in the
  table's look on air, relayed from its writer (``/t/<table>/graphics/theme.css`` and the
  look's files at ``/graphics/media/<file>``; the default look until the table published
  one), reading ``/t/<table>/ws/<channel>``, whose pages follow each change of the look;
* ``/t/<table>/ws/<channel>``: the channel, same protocol as the table's own service
  (``docs/view-model.md``); only channels the writer publishes (no token needed there);
* ``/t/<table>/api/state?channel=``: the channel's snapshot;
* ``/festival/ws/<channel>`` and ``/festival/api/state?channel=``: the festival's standings
  (places and prizes, :mod:`overlay.festival.channels`) for pages reading the tables'
  ``<channel>``: the festival's channel of the smallest delay at least that channel's delay
  at every table (404 when the director publishes none that late);
* ``/api/tables``: the tables published and their channels;
* ``/``: the festival's front page: every table's state and the field's chip counts
  (``static/festival.html``), for viewers on phones as much as on screens.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from aiohttp import web

from engine.channels import ChannelSpec
from overlay.app import GRAPHICS, asset_version, page_handler, security_headers
from overlay.assets import static_dir
from overlay.auth import origin_allowed
from overlay.fanout import FESTIVAL_KEY
from overlay.fanout.relay import (
    RelayHub,
    RelaySource,
    RelayUnavailableError,
    UnknownTableError,
)
from overlay.festival.channels import standings_channel_for
from overlay.graphics.config import default_graphics
from overlay.graphics.desk import GraphicsDesk
from overlay.graphics.web import media, media_response, theme_css, theme_link_tag
from overlay.keys import ASSET_VERSION_KEY, GRAPHICS_KEY, PAIRS_KEY, RELAY_KEY, WORKER_KEY
from overlay.sockets import forward, hellos, resume_of
from overlay.tasks import cancel_and_wait
from overlay.web_errors import error_middleware, json_error, quiet_garbage_http

__all__ = ["PAIRS_TTL", "WORKER_PAGES", "StandingsPairs", "WorkerSettings",
           "create_worker_app"]

WORKER_PAGES = ("overlay", *GRAPHICS)
"""The pages a worker serves (those that read a public channel)."""
WS_QUEUE = 256
PAIRS_TTL = 2.0
"""Seconds the worker keeps what it read of the published channels to pair the tables' with
the festival's standings: a crowd opening pages asks Redis once, not once a viewer, and a
table or a director that starts publishing is paired at most that long after."""


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    redis: str
    """The festival's Redis server."""
    allowed_origins: tuple[str, ...] = ()
    queue_size: int = WS_QUEUE
    """Messages a socket may fall behind before it is resynchronised."""


def create_worker_app(settings: WorkerSettings) -> web.Application:
    """The worker for ``settings`` (see the module docstring)."""
    app = web.Application(middlewares=[error_middleware, security_headers])
    app[WORKER_KEY] = settings
    app[ASSET_VERSION_KEY] = asset_version()
    app[GRAPHICS_KEY] = GraphicsDesk(default_graphics())
    app.cleanup_ctx.append(quiet_garbage_http)
    app.cleanup_ctx.append(relay_ctx)
    pages = static_dir()
    app.add_routes([
        web.get("/", table_page("festival", pages)),
        web.get("/api/tables", api_tables),
        web.get("/t/{table}/ws/{channel}", relay_socket),
        web.get("/t/{table}/api/state", api_state),
        web.get("/festival/ws/{channel}", relay_socket),
        web.get("/festival/api/state", api_state),
        *[web.get(f"/t/{{table}}/{page}", table_page(page, pages)) for page in WORKER_PAGES],
        web.get("/t/{table}/graphics/theme.css", table_theme_css),
        web.get("/graphics/theme.css", theme_css),  # the default look (and rehearsals')
        web.get("/graphics/theme/{name}.css", theme_css),
        web.get("/graphics/media/{file}", relayed_media),
        web.static("/static", pages, append_version=False),
    ])
    return app


async def relay_ctx(app: web.Application) -> AsyncIterator[None]:
    settings = app[WORKER_KEY]
    source = RelaySource(settings.redis, queue_size=settings.queue_size)
    app[RELAY_KEY] = source
    app[PAIRS_KEY] = StandingsPairs(source)
    task = asyncio.create_task(source.run(), name="feltcast-relay")
    yield
    await source.close()
    await cancel_and_wait(task)
    await source.wait_closed()


async def _relay(request: web.Request, channel: str) -> RelayHub:
    if not origin_allowed(request, request.app[WORKER_KEY].allowed_origins):
        raise json_error(403, "forbidden", "this page's origin may not read Feltcast channels")
    source = request.app[RELAY_KEY]
    table = request.match_info.get("table")
    if table is None:
        return await _standings(request, channel)
    if table == FESTIVAL_KEY:  # read only through /festival/, paired with the tables' delay
        raise UnknownTableError(f"no table {table!r} is published here")
    return await source.hub(table, channel)


async def standings_pairs(source: RelaySource) -> dict[str, ChannelSpec]:
    """Each tables' channel that has the festival's standings, and the festival's channel
    its pages read: the one released no earlier than that channel shows the busts they
    rank, at any table (:func:`overlay.festival.channels.standings_channel_for`)."""
    festival = await source.channels(FESTIVAL_KEY)
    if not festival:
        return {}
    delays: dict[str, float] = {}
    for table in await source.tables():
        for spec in await source.channels(table):
            delays[spec.name] = max(spec.delay, delays.get(spec.name, 0.0))
    pairs = {name: standings_channel_for(delay, festival) for name, delay in delays.items()}
    return {name: spec for name, spec in pairs.items() if spec is not None}


class StandingsPairs:
    """:func:`standings_pairs`, read at most once in ``ttl`` seconds for every page and socket
    that asks (those asking while it is read wait for that one reading). A reading that
    fails (Redis away) is not kept: the next one asks again."""

    def __init__(self, source: RelaySource, ttl: float = PAIRS_TTL,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.source, self.ttl, self.clock = source, ttl, clock
        self.readings = 0
        """How often Redis was asked (the worker's tests count them)."""
        self._pairs: dict[str, ChannelSpec] = {}
        self._read_at = float("-inf")
        self._reading: asyncio.Future[dict[str, ChannelSpec]] | None = None

    async def get(self) -> dict[str, ChannelSpec]:
        if self.clock() - self._read_at < self.ttl:
            return self._pairs
        if self._reading is None:
            self._reading = asyncio.ensure_future(self._read())
        return await asyncio.shield(self._reading)  # a page that goes away stops no one

    async def _read(self) -> dict[str, ChannelSpec]:
        started = self.clock()
        self.readings += 1
        try:
            self._pairs = await standings_pairs(self.source)
            self._read_at = started
            return self._pairs
        finally:
            self._reading = None


async def _standings(request: web.Request, channel: str) -> RelayHub:
    source = request.app[RELAY_KEY]
    spec = (await request.app[PAIRS_KEY].get()).get(channel)
    if spec is None:
        raise UnknownTableError(f"the festival publishes no standings for the tables' "
                                f"{channel!r} (none at all, or none delayed as long)")
    return await source.hub(FESTIVAL_KEY, spec.name)


async def relay_socket(request: web.Request) -> web.WebSocketResponse:
    hub = await _relay(request, request.match_info["channel"])
    table = request.match_info.get("table")
    ws = web.WebSocketResponse(heartbeat=20.0, max_msg_size=64 * 1024)
    await ws.prepare(request)
    writer: asyncio.Task[None] | None = None
    try:
        async for hello in hellos(ws, request):
            if writer is not None:
                writer.cancel()
            resume, log_id = resume_of(hello)
            subscription = hub.subscribe(resume_from=resume, log_id=log_id)
            if table is not None and "look" in hello:  # the table's look, live
                request.app[RELAY_KEY].follow_look(table, subscription, hello["look"])
            writer = asyncio.create_task(forward(subscription, ws, request))
    finally:
        await cancel_and_wait(writer)
    return ws


async def api_state(request: web.Request) -> web.Response:
    hub = await _relay(request, request.query.get("channel", "delayed"))
    message = hub.snapshot_message()
    return web.Response(text=message.text, content_type="application/json")


async def api_tables(request: web.Request) -> web.Response:
    source = request.app[RELAY_KEY]
    listing = [{"table": table, "channels": [spec.name for spec in
                                             await source.channels(table)]}
               for table in await source.tables()]
    return web.json_response({"tables": listing, "redis": source.connected})


def table_page(page: str, pages: Path) -> Callable[[web.Request], Any]:
    """A page of the worker: marked ``data-standings`` with the tables' channels that have
    the festival's standings (:class:`StandingsPairs`; a page on one of them reads them,
    ``static/js/standings.js``); a table's
    page (``/t/<table>/…``) in the table's look on air as its writer published it (the
    default look until it published one, and a bundled one for a rehearsal's ``?theme=``,
    ``?layout=`` or ``?safe=``)."""
    served = page_handler(page, pages)

    async def handler(request: web.Request) -> web.StreamResponse:
        response = await served(request)
        if not isinstance(response, web.Response) or response.text is None:
            return response
        source = request.app[RELAY_KEY]
        html = response.text
        try:
            pairs = await request.app[PAIRS_KEY].get()
            if pairs:
                names = escape(" ".join(sorted(pairs)))
                html = html.replace("<html ", f'<html data-standings="{names}" ', 1)
            table = request.match_info.get("table")
            rehearsal = {"theme", "layout", "safe"} & set(request.query)
            look = None if table is None or rehearsal else await source.look(table)
        except (RelayUnavailableError, UnknownTableError):
            look = None  # Redis away: the default look; the socket brings the table's
        if look is not None:
            html = _with_look(html, look.state)
        response.text = html
        return response

    return handler


def _with_look(html: str, state: Mapping[str, Any]) -> str:
    """``html`` with its theme link (:func:`overlay.graphics.web.theme_link`) naming the
    relayed look's stylesheet, theme and layout."""
    link = theme_link_tag(str(state["css"]), str(state.get("name", "")),
                          str(state.get("layout", "")), state.get("regions"))
    start = html.find('<link id="feltcast-theme"')
    if start < 0:
        return html
    end = html.find(">", start) + 1
    return html[:start] + link + html[end:]


async def table_theme_css(request: web.Request) -> web.Response:
    look = await request.app[RELAY_KEY].look(request.match_info["table"])
    if look is None:
        raise json_error(404, "not_found", "that table has published no look")
    return web.Response(text=look.css, content_type="text/css",
                        headers={"Cache-Control": "no-cache"})


async def relayed_media(request: web.Request) -> web.StreamResponse:
    """A file of a table's look (relayed), else of the bundled themes."""
    found = request.app[RELAY_KEY].media(request.match_info["file"])
    if found is None:
        return await media(request)
    return media_response(found)
