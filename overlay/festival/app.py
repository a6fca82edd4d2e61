"""``feltcast festival serve``: the tournament director's service (:mod:`.director`).

Routes: ``/`` (the director's view, ``static/director.html``), ``POST
/api/festival/next_hand`` (a table's question, with the festival's token: ``{"id",
"table", "table_hand", "stacks"}``), the director's orders with the same token (``POST
/api/festival/move`` ``{"id", "player", "table", "seat"}``, ``/api/festival/break``
``{"id", "table"}``, ``/api/festival/hand_for_hand`` ``{"id", "on"}``, and an order still
waiting withdrawn: ``/api/festival/withdraw`` ``{"id", "player"}`` or ``{"id", "table"}``
for a break), ``GET
/api/festival`` (the festival: tables, seats, stacks, hand-for-hand, busts, places, prizes,
moves, the orders waiting or lapsed; public, as every screen shows it).

With ``[fanout] url`` the festival's standings are published to Redis for the web workers'
pages (:mod:`overlay.festival.channels`).
"""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web

from engine.errors import InvalidInputError
from engine.events import Event
from engine.festival_events import (
    FestivalBreakOrdered,
    FestivalHandForHandOrdered,
    FestivalMoveOrdered,
    FestivalOrderWithdrawn,
)
from overlay.app import asset_version, page_handler, security_headers, take_lease
from overlay.assets import static_dir
from overlay.fanout import FanoutSettings
from overlay.fanout.publisher import RedisPublisher
from overlay.festival.channels import StandingsReducer, festival_channels
from overlay.festival.director import Director
from overlay.festival.settings import FESTIVAL_SCHEMA, FestivalSettings
from overlay.graphics.config import default_graphics
from overlay.graphics.desk import GraphicsDesk
from overlay.hub import ChannelHub, TableLog
from overlay.keys import (
    ASSET_VERSION_KEY,
    DIRECTOR_KEY,
    FESTIVAL_KEY,
    GRAPHICS_KEY,
    PUBLISHER_KEY,
)
from overlay.startup import open_service_store
from overlay.store import with_schema
from overlay.tasks import cancel_and_wait
from overlay.web_errors import error_middleware, json_error, quiet_garbage_http
from overlay.web_json import read_json

__all__ = ["create_festival_app"]


def create_festival_app(settings: FestivalSettings, data_dir: Any) -> web.Application:
    app = web.Application(middlewares=[error_middleware, security_headers])
    app[FESTIVAL_KEY] = settings
    app[ASSET_VERSION_KEY] = asset_version()
    app[GRAPHICS_KEY] = GraphicsDesk(default_graphics())
    app.cleanup_ctx.append(quiet_garbage_http)

    async def director_ctx(app: web.Application) -> AsyncIterator[None]:
        url = with_schema(settings.database_url, FESTIVAL_SCHEMA)
        store = await asyncio.to_thread(open_service_store, url, data_dir)
        hubs = [ChannelHub(spec, StandingsReducer(settings.name))
                for spec in festival_channels(settings.delay).values()]
        try:
            await take_lease(store, standby=settings.standby)
            log = TableLog(store, hubs)
            await log.start()  # the standings' channels stand where the log does
            director = Director(settings, log)
            await director.start()
        except BaseException:
            await asyncio.to_thread(store.close)
            raise
        app[DIRECTOR_KEY] = director
        yield
        await log.close()

    async def standings_ctx(app: web.Application) -> AsyncIterator[None]:
        """The festival's standings on Redis for the web workers (``[fanout] url``)."""
        if not settings.fanout_url:
            yield
            return
        publisher = RedisPublisher(FanoutSettings(url=settings.fanout_url),
                                   app[DIRECTOR_KEY].log.hubs, festival=True)
        app[PUBLISHER_KEY] = publisher
        task = asyncio.create_task(publisher.run(), name="feltcast-festival-fanout")
        yield
        await cancel_and_wait(task)
        await publisher.wait_closed()

    app.cleanup_ctx.append(director_ctx)
    app.cleanup_ctx.append(standings_ctx)
    pages = static_dir()
    app.add_routes([web.get("/", page_handler("director", pages)),
                    web.post("/api/festival/next_hand", api_next_hand),
                    web.post("/api/festival/move", api_move),
                    web.post("/api/festival/break", api_break),
                    web.post("/api/festival/hand_for_hand", api_hand_for_hand),
                    web.post("/api/festival/withdraw", api_withdraw),
                    web.get("/api/festival", api_festival),
                    web.static("/static", pages, append_version=False)])
    return app


def _require_token(request: web.Request) -> None:
    header = request.headers.get("Authorization", "")
    token = header.removeprefix("Bearer ").strip() if header.startswith("Bearer ") else ""
    expected = request.app[FESTIVAL_KEY].token
    if not token or not hmac.compare_digest(token.encode(), expected.encode()):
        raise json_error(401, "unauthorized", "the festival's token is needed")


async def api_next_hand(request: web.Request) -> web.Response:
    _require_token(request)
    body = await read_json(request)
    if not isinstance(body, dict):
        raise InvalidInputError("expected a JSON object")
    command_id, table, hand = body.get("id"), body.get("table"), body.get("table_hand")
    stacks = body.get("stacks")
    if not isinstance(command_id, str) or not 0 < len(command_id) <= 64:
        raise InvalidInputError("id: a string of 1 to 64 characters")
    if not isinstance(table, str) or not isinstance(hand, int) or isinstance(hand, bool) \
            or hand < 1:
        raise InvalidInputError("table (a key) and table_hand (its hand number) are needed")
    if stacks is not None and (not isinstance(stacks, dict) or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0
            for k, v in stacks.items())):
        raise InvalidInputError("stacks: {player: chips}")
    answer = await request.app[DIRECTOR_KEY].next_hand(command_id, table, hand, stacks)
    return web.json_response(answer)


async def _order_body(request: web.Request) -> tuple[str, dict[str, Any]]:
    _require_token(request)
    body = await read_json(request)
    if not isinstance(body, dict):
        raise InvalidInputError("expected a JSON object")
    command_id = body.get("id")
    if not isinstance(command_id, str) or not 0 < len(command_id) <= 64:
        raise InvalidInputError("id: a string of 1 to 64 characters")
    return command_id, body


def _name(body: dict[str, Any], key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str) or not 0 < len(value) <= 200:
        raise InvalidInputError(f"{key}: a name is needed")
    return value


async def _order(request: web.Request, command_id: str, event: Event) -> web.Response:
    return web.json_response(await request.app[DIRECTOR_KEY].order(command_id, event))


async def api_move(request: web.Request) -> web.Response:
    """The director moves a player (``seat`` optional: the seat that posts the big blind
    soonest)."""
    command_id, body = await _order_body(request)
    seat = body.get("seat", 0)
    if seat is None:
        seat = 0
    if not isinstance(seat, int) or isinstance(seat, bool) or seat < 0:
        raise InvalidInputError("seat: a seat number (or none: the seat that posts the big "
                                "blind soonest)")
    return await _order(request, command_id, FestivalMoveOrdered(
        _name(body, "player"), _name(body, "table"), seat))


async def api_break(request: web.Request) -> web.Response:
    command_id, body = await _order_body(request)
    return await _order(request, command_id, FestivalBreakOrdered(_name(body, "table")))


async def api_hand_for_hand(request: web.Request) -> web.Response:
    command_id, body = await _order_body(request)
    on = body.get("on")
    if not isinstance(on, bool):
        raise InvalidInputError("on: true or false")
    return await _order(request, command_id, FestivalHandForHandOrdered(on))


async def api_withdraw(request: web.Request) -> web.Response:
    """The director withdraws his order still waiting: a player's move (``player``) or a
    table's break (``table``)."""
    command_id, body = await _order_body(request)
    if ("player" in body) == ("table" in body):
        raise InvalidInputError("player (whose move is withdrawn) or table (whose break "
                                "is withdrawn): one of them")
    if "player" in body:
        return await _order(request, command_id, FestivalOrderWithdrawn(_name(body, "player")))
    return await _order(request, command_id,
                        FestivalOrderWithdrawn(break_table=_name(body, "table")))


async def api_festival(request: web.Request) -> web.Response:
    return web.json_response(request.app[DIRECTOR_KEY].state())

