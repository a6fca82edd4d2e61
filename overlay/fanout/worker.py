"""A festival's web worker (``feltcast worker``): every table's public pages and channels,
relayed from Redis (:mod:`overlay.fanout.relay`), for as many viewers as one process can hold.

It keeps no log and runs no table: any number of workers serve any table, behind any load
balancer, and one may be killed and started again at any time (its pages reconnect to
another, or to it, and resume). Routes, for a table published as ``<table>``:

* ``/t/<table>/<page>``: the public pages (the overlay and the tournament graphics) in the
  default look, reading ``/t/<table>/ws/<channel>``;
* ``/t/<table>/ws/<channel>``: the channel, same protocol as the table's own service
  (``docs/view-model.md``); only channels the writer publishes (no token needed there);
* ``/t/<table>/api/state?channel=``: the channel's snapshot;
* ``/api/tables``: the tables published and their channels;
* ``/``: the festival's front page: every table's state and the field's chip counts
  (``static/festival.html``), for viewers on phones as much as on screens.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from overlay.app import GRAPHICS, asset_version, page_handler, security_headers
from overlay.assets import static_dir
from overlay.auth import origin_allowed
from overlay.fanout.relay import RelaySource
from overlay.graphics.config import default_graphics
from overlay.graphics.desk import GraphicsDesk
from overlay.graphics.web import add_graphics_routes
from overlay.keys import ASSET_VERSION_KEY, GRAPHICS_KEY, RELAY_KEY, WORKER_KEY
from overlay.sockets import forward, hellos, resume_of
from overlay.tasks import cancel_and_wait
from overlay.web_errors import error_middleware, json_error, quiet_garbage_http

__all__ = ["WORKER_PAGES", "WorkerSettings", "create_worker_app"]

WORKER_PAGES = ("overlay", *GRAPHICS)
"""The pages a worker serves (those that read a public channel)."""
WS_QUEUE = 256


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
        web.get("/", page_handler("festival", pages)),
        web.get("/api/tables", api_tables),
        web.get("/t/{table}/ws/{channel}", relay_socket),
        web.get("/t/{table}/api/state", api_state),
        *[web.get(f"/t/{{table}}/{page}", page_handler(page, pages)) for page in WORKER_PAGES],
        web.static("/static", pages, append_version=False),
    ])
    add_graphics_routes(app)
    return app


async def relay_ctx(app: web.Application) -> AsyncIterator[None]:
    settings = app[WORKER_KEY]
    source = RelaySource(settings.redis, queue_size=settings.queue_size)
    app[RELAY_KEY] = source
    task = asyncio.create_task(source.run(), name="feltcast-relay")
    yield
    await source.close()
    await cancel_and_wait(task)
    await source.wait_closed()


async def _relay(request: web.Request, channel: str) -> Any:
    if not origin_allowed(request, request.app[WORKER_KEY].allowed_origins):
        raise json_error(403, "forbidden", "this page's origin may not read Feltcast channels")
    return await request.app[RELAY_KEY].hub(request.match_info["table"], channel)


async def relay_socket(request: web.Request) -> web.WebSocketResponse:
    hub = await _relay(request, request.match_info["channel"])
    ws = web.WebSocketResponse(heartbeat=20.0, max_msg_size=64 * 1024)
    await ws.prepare(request)
    writer: asyncio.Task[None] | None = None
    try:
        async for hello in hellos(ws, request):
            if writer is not None:
                writer.cancel()
            resume, log_id = resume_of(hello)
            subscription = hub.subscribe(resume_from=resume, log_id=log_id)
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
