"""The aiohttp service: pages, channels over websockets, the JSON API and the devices.

:func:`create_app` is the one factory (CLI, tests and tools use it). Each long-lived resource is
one cleanup context: the event store, the table log with its channel hubs, the table service,
OBS control and the device reporter. Errors become JSON in one place
(:mod:`overlay.web_errors`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from engine.channels import ChannelFilter, ChannelSpec
from engine.errors import InvalidInputError
from engine.events import HandEnded, HandStarted, HandVoided
from engine.table_events import AccessRecorded
from overlay.alerts import Alert, AlertLevel
from overlay.assets import static_dir
from overlay.auth import (
    ROLES,
    TokenFile,
    Tokens,
    TokenThrottle,
    identify,
    load_or_create_tokens,
    origin_allowed,
    presented_token,
    require_operator,
    require_private_transport,
    roles_of,
    shared_socket_key,
    token_roles,
)
from overlay.channel_views import view_reducers
from overlay.checkpoints import Checkpoints
from overlay.commands import parse_command
from overlay.config import Config
from overlay.device_tokens import DeviceBook, create_device, list_devices, revoke_device
from overlay.devices import merge_statuses
from overlay.devices.capture_bridge import capture_ctx
from overlay.fanout.publisher import RedisPublisher
from overlay.festival.client import FestivalClient
from overlay.graphics.desk import GraphicsDesk
from overlay.graphics.web import add_graphics_routes, theme_link
from overlay.hub import ChannelHub, TableLog
from overlay.keys import (
    ASSET_VERSION_KEY,
    CHECKPOINTS_KEY,
    CLOCK_KEY,
    CONFIG_KEY,
    DEVICE_SOCKETS_KEY,
    DEVICES_KEY,
    GRAPHICS_KEY,
    HUBS_KEY,
    LOG_KEY,
    OBS_KEY,
    OBS_SOCKETS_KEY,
    PAGES_KEY,
    PUBLISHER_KEY,
    STOPPING_KEY,
    STORE_KEY,
    TABLE_DEVICES_KEY,
    TABLE_KEY,
    THROTTLE_KEY,
    TOKENS_KEY,
)
from overlay.pages import PageRegistry
from overlay.players_web import add_player_routes
from overlay.sockets import forward, hellos, resume_of
from overlay.startup import StartupError, open_service_store
from overlay.store import EventStore, Sender, StoreUnreachableError
from overlay.table_service import TableService
from overlay.tasks import Stopping, cancel_and_wait
from overlay.tournament_desk import tournament_config
from overlay.web_errors import (
    error_middleware,
    error_of,
    error_payload,
    json_error,
    quiet_garbage_http,
)
from overlay.web_json import read_json

_log = logging.getLogger(__name__)

HAND_BOUNDARIES = (HandStarted.kind, HandEnded.kind, HandVoided.kind)
"""The log entries that start and end hands (``GET /api/hands``)."""

STATIC_DIR = static_dir()
GRAPHICS = ("leaderboard", "lowerthird", "elimination", "payouts", "clock", "ticker", "versus",
            "program")
"""The tournament graphics (docs/pages.md): OBS browser sources like the overlay."""
PAGES = ("overlay", "commentary", "operator", *GRAPHICS)
OPERATOR_CHANNEL = "operator"
DEFAULT_CHANNEL = {"overlay": "delayed", "commentary": "delayed", "operator": OPERATOR_CHANNEL,
                   **{page: "delayed" for page in GRAPHICS}}
MAX_LOG_PAGE = 10_000
"""The most entries one ``GET /api/log`` returns (page on with ``after``)."""
WS_QUEUE = 256
"""Messages a websocket client may fall behind before it is resynchronised."""


def asset_version(static_dir: Path = STATIC_DIR) -> str:
    """A short hash of every static file: pages report it, the console flags stale ones."""
    digest = hashlib.sha256()
    for path in sorted(static_dir.rglob("*")):
        if path.is_file() and path.suffix not in (".py", ".pyc") \
                and "__pycache__" not in path.parts:
            digest.update(path.relative_to(static_dir).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def channel_specs(config: Config) -> dict[str, ChannelSpec]:
    """The configured channels plus the operator's own (live, full, token)."""
    specs = {spec.name: spec for spec in config.channels}
    specs[OPERATOR_CHANNEL] = ChannelSpec(OPERATOR_CHANNEL, "full", 0.0,  # type: ignore[arg-type]
                                          requires_token=True, internal=True,
                                          audience="the operator console")
    return specs


def create_app(config: Config, *, clock: Callable[[], float] = time.time,
               tokens: Tokens | None = None, static_dir: Path = STATIC_DIR) -> web.Application:
    """The service for ``config``; ``clock`` is wall-clock seconds (tests inject one)."""
    app = web.Application(middlewares=[error_middleware, security_headers])
    app[CONFIG_KEY] = config
    app[CLOCK_KEY] = clock
    app[TOKENS_KEY] = TokenFile(config.data_dir, tokens if tokens is not None
                               else load_or_create_tokens(config.data_dir))
    app[ASSET_VERSION_KEY] = asset_version(static_dir)
    app[PAGES_KEY] = PageRegistry(app[ASSET_VERSION_KEY])
    app[OBS_SOCKETS_KEY] = {}
    app[THROTTLE_KEY] = TokenThrottle()
    app[DEVICE_SOCKETS_KEY] = {}
    app[GRAPHICS_KEY] = GraphicsDesk(config.graphics, config.data_dir)
    app[TABLE_DEVICES_KEY] = []  # the device contexts add theirs
    app[STOPPING_KEY] = Stopping()
    app.cleanup_ctx.append(quiet_garbage_http)
    app.cleanup_ctx.append(store_ctx)
    app.cleanup_ctx.append(device_tokens_ctx)
    app.cleanup_ctx.append(log_ctx)
    app.cleanup_ctx.append(table_ctx)
    app.cleanup_ctx.append(obs_ctx)
    app.cleanup_ctx.append(capture_ctx)  # readers and cameras: the pipeline, built once
    app.cleanup_ctx.append(fanout_ctx)
    app.cleanup_ctx.append(devices_ctx)
    app.on_shutdown.append(close_websockets)
    app.add_routes([
        web.get("/", index),
        *[web.get(f"/{page}", page_handler(page, static_dir)) for page in PAGES],
        web.static("/static", static_dir, append_version=False),
        web.get("/ws/{channel}", websocket_handler),
        web.get("/api/state", api_state),
        web.get("/api/config", api_config),
        web.get("/api/channels", api_channels),
        web.get("/api/players", api_players),
        web.get("/api/hands", api_hands),
        web.get("/api/log", api_log),
        web.post("/api/commands", api_command),
        web.get("/api/devices", api_devices),
        web.post("/api/devices", api_device_create),
        web.delete("/api/devices/{name}", api_device_revoke),
    ])
    add_player_routes(app)  # identity: photos, CSV import, /media/players/
    add_graphics_routes(app)  # the look on air: themes, logo, sponsors
    return app


# --- cleanup contexts: one per long-lived resource ---------------------------------------


async def store_ctx(app: web.Application) -> AsyncIterator[None]:
    """The table's log, once this service holds its lease (:func:`take_lease`)."""
    config = app[CONFIG_KEY]
    store = await asyncio.to_thread(open_service_store, config.database_url, config.data_dir)
    try:
        await take_lease(store, standby=config.standby)
    except BaseException:
        await asyncio.to_thread(store.close)
        raise
    app[STORE_KEY] = store
    yield
    await asyncio.to_thread(store.close)


LEASE_RETRY_SECONDS = 0.5
"""How often a standby asks for the lease of the log it waits to write."""


async def take_lease(store: EventStore, *, standby: bool) -> None:
    """Hold the log's lease before anything reads it (one writer per table,
    :mod:`overlay.store`): refused when another service holds it, or with ``standby``
    waited for (until that service stops or dies)."""
    waiting = away = False
    while True:
        try:
            if await asyncio.to_thread(store.take_lease):
                break
        except StoreUnreachableError as error:
            if not standby:
                raise
            # Standing by through a database restart: the writer's lease is decided when the
            # database is back (its session, or a new one of its, or this one's).
            if not away:
                _log.warning("standing by: the database cannot be reached (%s); asking "
                             "again", error)
                away = True
            await asyncio.sleep(LEASE_RETRY_SECONDS)
            continue
        away = False
        if not standby:
            raise StartupError(
                "another Feltcast service writes this table's log (it holds the lease): "
                "stop it first, or start this one with --standby to take over when it stops")
        if not waiting:
            _log.warning("standing by: another service writes this table's log; this one "
                         "takes over when it stops")
            waiting = True
        await asyncio.sleep(LEASE_RETRY_SECONDS)
    if waiting:
        _log.warning("took over this table's log at event %d", store.last_seq)


async def device_tokens_ctx(app: web.Application) -> AsyncIterator[None]:
    """The named device tokens and ``tokens.json``, re-read every second: a device revoked
    from the CLI or the console, or a shared token rotated, loses its sockets at once (code
    4003) and is refused from then on."""
    book = DeviceBook(app[STORE_KEY].engine)
    await asyncio.to_thread(book.refresh)
    app[DEVICES_KEY] = book

    async def watch() -> None:
        while True:
            await asyncio.sleep(1.0)
            try:
                revoked = await asyncio.to_thread(book.refresh)
                rotated = await asyncio.to_thread(app[TOKENS_KEY].refresh)
            except Exception:  # the database away for a moment: the last list stands
                _log.warning("device tokens could not be re-read", exc_info=True)
                continue
            close_revoked(app, revoked | {shared_socket_key(role) for role in rotated})

    task = asyncio.create_task(watch(), name="feltcast-device-tokens")
    yield
    await cancel_and_wait(task)


def close_revoked(app: web.Application, names: set[str]) -> None:
    for ws, device in list(app[DEVICE_SOCKETS_KEY].items()):
        if device in names and not ws.closed:
            app[DEVICE_SOCKETS_KEY].pop(ws, None)
            asyncio.get_running_loop().create_task(
                ws.close(code=4003, message=b"this device's token was revoked"))


async def log_ctx(app: web.Application) -> AsyncIterator[None]:
    config, clock = app[CONFIG_KEY], app[CLOCK_KEY]
    specs = [spec for spec in channel_specs(config).values() if spec.enabled]
    views = view_reducers(config, specs)  # the same views log show --view and the tests draw
    hubs: dict[str, ChannelHub[Any]] = {
        spec.name: ChannelHub(spec, views[spec.name], clock=clock, queue_size=WS_QUEUE)
        for spec in specs}
    table_log = TableLog(app[STORE_KEY], hubs.values(), clock=clock)
    table_log.on_lease_lost = app[STOPPING_KEY].stop
    checkpoints = Checkpoints(app[STORE_KEY], config.data_dir, config,
                              every=config.checkpoint_every)
    restored = await asyncio.to_thread(checkpoints.load)
    if restored is not None and set(restored.state["hubs"]) == set(hubs):
        histories = restored.state["deferred"]["histories"]
        for name, hub in hubs.items():
            hub.restore(restored.state["hubs"][name], histories[name])
        replayed = await table_log.start(after=restored.seq,
                                         last_time=restored.state["log"]["last_time"])
        _log.info("started from the checkpoint at entry %d: %d events after it replayed",
                  restored.seq, replayed)
    else:
        checkpoints.restored, checkpoints.started_from = None, 0
        replayed = await table_log.start()
        _log.info("log replayed: %d events", replayed)
    app[HUBS_KEY] = hubs
    app[LOG_KEY] = table_log
    app[CHECKPOINTS_KEY] = checkpoints
    yield
    for hub in hubs.values():
        hub.close()
    await table_log.close()


async def fanout_ctx(app: web.Application) -> AsyncIterator[None]:
    """The public channels published to Redis for a festival's web workers (``[fanout]``):
    a device, so that the operator sees when Redis cannot be reached."""
    settings = app[CONFIG_KEY].fanout
    if not settings.enabled:
        yield
        return
    hubs: dict[str, ChannelHub[Any]] = app[HUBS_KEY]
    publisher = RedisPublisher(settings, hubs, clock=app[CLOCK_KEY], desk=app[GRAPHICS_KEY])
    app[PUBLISHER_KEY] = publisher
    app[TABLE_DEVICES_KEY].append(publisher)
    task = asyncio.create_task(publisher.run(), name="feltcast-fanout")
    yield
    await cancel_and_wait(task)
    await publisher.wait_closed()


async def table_ctx(app: web.Application) -> AsyncIterator[None]:
    config = app[CONFIG_KEY]
    festival = FestivalClient(config.festival) if config.festival.enabled else None
    service = TableService(config, app[LOG_KEY], clock=app[CLOCK_KEY],
                           checkpoints=app[CHECKPOINTS_KEY], festival=festival)
    await service.start()
    app[CHECKPOINTS_KEY].restored = None  # taken: its state now lives on
    app[TABLE_KEY] = service
    yield
    service.close()
    if festival is not None:
        await festival.close()
    try:  # a clean stop: the next start replays nothing
        await service.checkpoint_now()
    except Exception:
        _log.warning("no checkpoint at the stop", exc_info=True)


async def obs_ctx(app: web.Application) -> AsyncIterator[None]:
    """OBS control, and its automation fed by the channel the OBS overlay reads (so scene
    switches happen in step with the graphics, after the same delay)."""
    from overlay.devices.obs.control import ObsControl, settings_from_config

    settings = settings_from_config(app[CONFIG_KEY], obs_token=app[TOKENS_KEY].tokens.obs)
    if settings is None:
        yield
        return
    obs = ObsControl(settings)
    obs.changed.connect(lambda: obs_guard_changed(app))  # the guard's verdict may have changed
    async with obs:
        app[OBS_KEY] = obs
        app[TABLE_DEVICES_KEY].append(obs)
        hub = app[HUBS_KEY].get(settings.overlay_channel)
        task = asyncio.create_task(_automate(obs, hub)) if hub is not None else None
        yield
        await cancel_and_wait(task)
        app[TABLE_DEVICES_KEY].remove(obs)


async def _automate(obs: Any, hub: ChannelHub[Any]) -> None:
    subscription = hub.subscribe()
    try:
        async for message in subscription:
            if message.type != "patch":
                continue  # a snapshot is history: no scene switches for it
            for event in message.data.get("events", ()):
                try:
                    await obs.handle_table_event(event)
                except Exception:
                    _log.exception("OBS automation failed for %s", event.get("kind"))
    finally:
        subscription.close()


REPORT_SECONDS = 1.0
"""The device report's beat (connected pages, a reader's recent faults fading); a device's
``changed`` signal brings it forward."""


async def devices_ctx(app: web.Application) -> AsyncIterator[None]:
    """Report the devices (readers, cameras, OBS, channels, connected pages) to the operator
    channel: every beat, and at once when a device's ``changed`` signal says so."""
    app[TABLE_KEY].device_report = lambda: device_report(app)
    wake = asyncio.Event()
    disconnect = [device.changed.connect(wake.set) for device in app[TABLE_DEVICES_KEY]]

    async def report_forever() -> None:
        while True:
            wake.clear()
            try:
                await app[TABLE_KEY].report_devices()
            except Exception:
                _log.exception("could not report the devices to the operator console")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(REPORT_SECONDS):
                    await wake.wait()

    task = asyncio.create_task(report_forever())
    yield
    await cancel_and_wait(task)
    for each in disconnect:
        each()


def device_report(app: web.Application) -> dict[str, Any]:
    """The operator view's device fields (``docs/view-model.md``)."""
    pages = app[PAGES_KEY]
    channels = [{"name": hub.name, "delay": hub.spec.delay, "clients": pages.clients(hub.name)}
                for hub in app[HUBS_KEY].values() if hub.name != OPERATOR_CHANNEL]
    devices = app[TABLE_DEVICES_KEY]
    status = merge_statuses(device.status() for device in devices)
    alerts = [alert for device in devices for alert in device.alerts()]
    alerts.extend(transport_alerts(app[CONFIG_KEY]))
    return {"channels": channels, "pages": pages.summary(),
            "refused_pages": pages.refused_summary(app[CLOCK_KEY]()),
            "obs": None if status.obs is None else dict(status.obs),
            "capture": [dict(entry) for entry in status.capture],
            "decks": None if status.decks is None else dict(status.decks),
            "alerts": [alert.to_view() for alert in alerts]}


def transport_alerts(config: Config) -> list[Alert]:
    """The console's red line when the service is reachable from the venue network without
    TLS (loopback only is fine: nothing leaves the machine)."""
    server = config.server
    if server.tls or server.host in ("127.0.0.1", "localhost", "::1"):
        return []
    if server.allow_plaintext:
        return [Alert(AlertLevel.ERROR, "security", "plaintext_allowed",
                      f"TLS is off and allow_plaintext is on: tokens and live hole cards cross "
                      f"the network in clear text to anyone on it ({server.host}:"
                      f"{server.port})")]
    return [Alert(AlertLevel.ERROR, "security", "tls_off",
                  "TLS is off: other machines get only the public and delayed pages; the "
                  "console, the secure channel and every command work only from "
                  f"{', '.join(server.local_networks)} (feltcast tls init, then [server] tls "
                  "= true)")]


async def close_websockets(app: web.Application) -> None:
    for hub in app[HUBS_KEY].values():
        hub.close()  # every subscription ends; each handler then closes its socket


# --- middlewares ------------------------------------------------------------------------

_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "font-src 'self'; connect-src 'self' ws: wss:; frame-src 'self'; "
        "frame-ancestors 'self'; base-uri 'none'; form-action 'self'")
"""Everything from this server only; a page may be framed only by this server's own pages
(the composed program, ``/program``), never by another site's."""


@web.middleware
async def security_headers(request: web.Request,
                           handler: Callable[[web.Request], Any]) -> web.StreamResponse:
    response: web.StreamResponse = await handler(request)
    response.headers.setdefault("Content-Security-Policy", _CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    if request.path.startswith("/api/"):
        response.headers.setdefault("Cache-Control", "no-store")
    return response


# --- pages -------------------------------------------------------------------------------


async def index(request: web.Request) -> web.Response:
    raise web.HTTPFound("/operator")


def page_handler(page: str, static_dir: Path) -> Callable[[web.Request], Any]:
    path = static_dir / f"{page}.html"

    async def handler(request: web.Request) -> web.Response:
        html = path.read_text(encoding="utf-8")
        version = request.app[ASSET_VERSION_KEY]
        html = html.replace('name="feltcast-version" content="dev"',
                            f'name="feltcast-version" content="{version}"')
        html = theme_link(request, html)
        return web.Response(text=html, content_type="text/html",
                            headers={"Cache-Control": "no-cache"})

    return handler


# --- access ------------------------------------------------------------------------------


def hub_for(request: web.Request, name: str, *, allow_query_token: bool) -> ChannelHub[Any]:
    """The hub of channel ``name`` if this request may read it (token, Origin)."""
    token = presented_token(request, allow_query=allow_query_token)
    refusal, obs = channel_refusal(request, name, token, lambda: token_roles(request, token))
    if refusal is not None:
        raise refusal
    return obs_hub(request.app, name) if obs else request.app[HUBS_KEY][name]


def channel_refusal(request: web.Request, name: str, token: str | None,
                    roles: Callable[[], frozenset[str]],
                    ) -> tuple[web.HTTPException | None, bool]:
    """Why this request may not read channel ``name`` (None: it may), and whether it reads
    it as OBS's browser sources do (:func:`obs_hub`). ``roles`` gives the token's roles; it is
    called only when the channel needs a token."""
    hubs = request.app[HUBS_KEY]
    spec = channel_specs(request.app[CONFIG_KEY]).get(name)
    if spec is None:
        return json_error(404, "unknown_channel", f"there is no channel {name!r} "
                          f"(channels: {', '.join(sorted(hubs))})"), False
    if name not in hubs:
        return json_error(404, "channel_disabled", f"the {name} channel is not enabled "
                          f"in the configuration"), False
    if not origin_allowed(request, request.app[CONFIG_KEY].server.allowed_origins):
        return json_error(403, "forbidden",
                          "this page's origin may not read Feltcast channels"), False
    if spec.requires_token:
        try:
            require_private_transport(request, f"the {name} channel")
        except web.HTTPException as refused:
            return refused, False
        needed = "operator" if name == OPERATOR_CHANNEL else "secure"
        if not token:
            return json_error(401, "unauthorized", f"the {name} channel needs a token"), False
        granted = roles()
        if needed not in granted:
            if "obs" in granted and name != OPERATOR_CHANNEL:
                return None, True
            return json_error(403, "forbidden",
                              f"that token does not open the {name} channel"), False
    return None, False


def obs_guard_holds(app: web.Application) -> bool:
    """OBS is connected and its stream delay covers D (the delay guard's last check)."""
    obs = app.get(OBS_KEY)
    return obs is not None and obs.secure_allowed


def obs_hub(app: web.Application, name: str) -> ChannelHub[Any]:
    """What OBS's browser sources (the ``obs`` token) get of the live channel ``name``: the
    channel while OBS's own stream delay covers D, else the live public view, ``venue`` (fail
    closed: hole cards never reach an OBS that would stream them live). The guard's changes
    close OBS's sockets (:func:`obs_guard_changed`); they reconnect to what it allows then."""
    hubs = app[HUBS_KEY]
    if obs_guard_holds(app):
        return hubs[name]
    if "venue" not in hubs:
        raise json_error(503, "delay_violation", f"OBS's stream delay does not cover the "
                         f"security delay, so OBS gets no {name} view; and the venue channel, "
                         f"its public stand-in, is disabled")
    return hubs["venue"]


def obs_guard_changed(app: web.Application) -> None:
    """The delay guard's verdict changed: every OBS socket on a guarded channel is closed, so
    that it reconnects to the view the guard allows now (within ``[obs] recheck_seconds`` of
    the change in OBS)."""
    holds = obs_guard_holds(app)
    for ws, full in list(app[OBS_SOCKETS_KEY].items()):
        if full != holds and not ws.closed:
            app[OBS_SOCKETS_KEY].pop(ws, None)
            asyncio.get_running_loop().create_task(
                ws.close(code=4001, message=b"the OBS delay guard changed"))


# --- websockets --------------------------------------------------------------------------


async def websocket_handler(request: web.Request) -> web.WebSocketResponse:
    name = request.match_info["channel"]
    try:
        hub = hub_for(request, name, allow_query_token=True)
    except web.HTTPException as refused:
        # The page stays blank on air: the console names it and the reason.
        request.app[PAGES_KEY].refused(request.query.get("page", ""), name,
                                       error_of(refused)["message"],
                                       request.remote, request.app[CLOCK_KEY]())
        raise
    ws = web.WebSocketResponse(heartbeat=20.0, max_msg_size=64 * 1024)
    await ws.prepare(request)
    obs_source = is_obs_source(request, name)
    if obs_source:  # closed when the delay guard changes its verdict (obs_guard_changed)
        full = hub is request.app[HUBS_KEY][name]
        request.app[OBS_SOCKETS_KEY][ws] = full
        if full != obs_guard_holds(request.app):  # it changed meanwhile
            obs_guard_changed(request.app)
    pages = request.app[PAGES_KEY]
    handle = pages.connect(name, request.app[CLOCK_KEY]())
    connection = uuid.uuid4().hex[:16] if audited(request.app, hub) else ""
    sender = sender_of(request)
    who = identify(request.app, presented_token(request, allow_query=True))
    if who.role != "none":  # closed at once if its token is revoked (device_tokens_ctx)
        request.app[DEVICE_SOCKETS_KEY][ws] = who.device or shared_socket_key(who.role)
    if connection:
        await record_access(request.app, sender, "open", connection, hub.name)
    writer: asyncio.Task[None] | None = None
    try:
        async for data in hellos(ws, request):
            pages.hello(handle, data)
            if writer is not None:
                writer.cancel()
            resume, log_id = resume_of(data)
            subscription = hub.subscribe(  # OBS switches views: never resumes, a snapshot
                resume_from=None if obs_source else resume, log_id=log_id)
            if "look" in data:  # a page following the look: now (unless shown), every change
                request.app[GRAPHICS_KEY].attach(subscription, shown=data["look"])
            writer = asyncio.create_task(forward(subscription, ws, request))
    finally:  # first what needs no waiting: aiohttp may cancel this handler meanwhile
        pages.disconnect(handle)
        request.app[OBS_SOCKETS_KEY].pop(ws, None)
        request.app[DEVICE_SOCKETS_KEY].pop(ws, None)
        if connection:
            record_close_soon(request.app, sender, connection, hub.name)
        await cancel_and_wait(writer)
    return ws


def audited(app: web.Application, hub: ChannelHub[Any]) -> bool:
    """The access audit covers every channel that shows hole cards earlier than D (the
    operator's, ``secure``, a live or short-delayed full channel)."""
    spec = hub.spec
    early = spec.delay < app[CONFIG_KEY].delay or spec.delay == 0
    return spec.filter is ChannelFilter.FULL and early


def sender_of(request: web.Request) -> Sender:
    """Who is asking: the role of the token presented, the peer address, the user agent."""
    who = identify(request.app, presented_token(request, allow_query=True))
    role = f"{who.role} ({who.device})" if who.device else who.role
    agent = "".join(c for c in request.headers.get("User-Agent", "") if c.isprintable())
    return Sender(role, request.remote or "", agent[:200])


async def record_access(app: web.Application, sender: Sender, action: str, connection: str,
                        channel: str) -> None:
    """One access audit event (internal: the operator channel's only)."""
    event = AccessRecorded(action, connection, channel, sender.role, sender.peer, sender.agent)
    try:
        await app[TABLE_KEY].append_events([event], source="audit")
    except Exception:  # shutting down: the next start closes what was left open
        _log.warning("access audit: %s of %s not logged", action, connection)


_AUDIT_TASKS: set[asyncio.Task[None]] = set()


def record_close_soon(app: web.Application, sender: Sender, connection: str,
                      channel: str) -> None:
    """The ``close`` of an audited connection, logged even when aiohttp cancels the handler
    of a socket whose peer went away (a task of its own)."""
    task = asyncio.get_running_loop().create_task(
        record_access(app, sender, "close", connection, channel))
    _AUDIT_TASKS.add(task)
    task.add_done_callback(_AUDIT_TASKS.discard)


def is_obs_source(request: web.Request, name: str) -> bool:
    """The request reads a guarded channel with the ``obs`` token (not a secure one)."""
    spec = channel_specs(request.app[CONFIG_KEY]).get(name)
    if spec is None or not spec.requires_token or name == OPERATOR_CHANNEL:
        return False
    roles = roles_of(request.app, presented_token(request, allow_query=True))
    return "obs" in roles and "secure" not in roles


# --- the JSON API ------------------------------------------------------------------------


async def api_state(request: web.Request) -> web.Response:
    """``GET /api/state?channel=venue``: the channel's snapshot (view and revision)."""
    name = request.query.get("channel", "venue")
    hub = hub_for(request, name, allow_query_token=False)
    if audited(request.app, hub):
        await record_access(request.app, sender_of(request), "read", uuid.uuid4().hex[:16],
                            hub.name)
    return web.Response(text=hub.snapshot_message().text, content_type="application/json")


async def api_config(request: web.Request) -> web.Response:
    """What a page or tool may know of the configuration (no secrets)."""
    config = request.app[CONFIG_KEY]
    table = config.table
    return web.json_response({
        "table": {"name": table.name, "seats": table.seats, "ante_mode": table.ante_mode,
                  "chip_unit": table.chip_unit, "level_minutes": table.level_minutes},
        "delay": config.delay,
        "tournament": tournament_config(config),
        "channels": [{"name": spec.name, "filter": str(spec.filter), "delay": spec.delay,
                      "enabled": spec.enabled, "requires_token": spec.requires_token,
                      "audience": spec.audience}
                     for spec in channel_specs(config).values()],
        "version": request.app[ASSET_VERSION_KEY],
    })


async def api_channels(request: web.Request) -> web.Response:
    """``GET /api/channels``: every channel of this service, and whether the token in the
    ``Authorization`` header opens it (and if not, why): what a page offers to switch to, and
    how it names the reason a channel stays shut. A wrong token counts once against the
    sender (:func:`overlay.auth.token_roles`), however many channels it is tried on."""
    token = presented_token(request, allow_query=False)
    granted: list[frozenset[str]] = []

    def roles() -> frozenset[str]:
        if not granted:
            granted.append(token_roles(request, token))
        return granted[0]

    out = []
    for spec in channel_specs(request.app[CONFIG_KEY]).values():
        refusal, obs = channel_refusal(request, spec.name, token, roles)
        out.append({"name": spec.name, "filter": str(spec.filter), "delay": spec.delay,
                    "enabled": spec.enabled, "requires_token": spec.requires_token,
                    "audience": spec.audience,
                    "opens": refusal is None and (not obs or obs_guard_holds(request.app)),
                    "refused": None if refusal is None else error_of(refusal)})
    return web.json_response({"channels": out})


async def api_players(request: web.Request) -> web.Response:
    """Seats, names and stacks as the public ``venue`` channel shows them."""
    hub = hub_for(request, request.query.get("channel", "venue"), allow_query_token=False)
    view = hub.snapshot_message().data["view"]
    seats = [{key: seat.get(key) for key in ("seat", "name", "stack", "stack_bb")}
             for seat in view.get("seats", []) if seat.get("name") is not None]
    return web.json_response({"players": seats})


async def api_hands(request: web.Request) -> web.Response:
    """``GET /api/hands?channel=delayed``: the hands a channel has released so far (number,
    start and end time, how each ended), for editors cutting the recording."""
    hub = hub_for(request, request.query.get("channel", "delayed"), allow_query_token=False)
    store: EventStore = request.app[STORE_KEY]
    boundaries = await asyncio.to_thread(store.read, until=hub.seq, kinds=HAND_BOUNDARIES)
    hands: list[dict[str, Any]] = []
    for entry in boundaries:
        if isinstance(entry.payload, HandStarted):
            hands.append({"hand_number": entry.payload.hand_number, "started": entry.time,
                          "seq": entry.seq, "ended": None, "result": "running"})
        elif hands and hands[-1]["ended"] is None:
            hands[-1]["ended"] = entry.time
            hands[-1]["result"] = "voided" if entry.kind == HandVoided.kind else "complete"
    return web.json_response({"channel": hub.name, "hands": hands})


async def api_log(request: web.Request) -> web.Response:
    """``GET /api/log?after=N``: raw log entries for exports (operator token; burn cards are
    never included, R19)."""
    require_operator(request)
    try:
        after = int(request.query.get("after", "0"))
        asked = int(request.query.get("limit", "1000"))
    except ValueError:
        raise json_error(422, "invalid_input", "after and limit are whole numbers") from None
    if after < 0 or asked < 0:
        raise json_error(422, "invalid_input", "after and limit are 0 or more")
    limit = min(asked, MAX_LOG_PAGE)
    store: EventStore = request.app[STORE_KEY]
    entries = await asyncio.to_thread(store.read, after, limit)
    answer: dict[str, Any] = {"entries": [e.to_dict() for e in entries
                                          if str(e.secrecy) != "never"], "limit": limit}
    if limit < asked:
        answer["note"] = (f"limit {asked} was clamped to {MAX_LOG_PAGE}: page on with "
                          f"after={entries[-1].seq if entries else after}")
    return web.json_response(answer)


async def api_command(request: web.Request) -> web.Response:
    """``POST /api/commands``: one typed, acknowledged operator command."""
    require_operator(request)
    command = parse_command(await read_json(request))
    result = await request.app[TABLE_KEY].execute(command, sender=sender_of(request))
    operator_hub = request.app[HUBS_KEY].get(OPERATOR_CHANNEL)
    if operator_hub is not None:
        result = {**result, "revision": operator_hub.revision}
    return web.json_response(result)


async def api_devices(request: web.Request) -> web.Response:
    """``GET /api/devices``: the named device tokens (never the tokens themselves)."""
    require_operator(request)
    devices = await asyncio.to_thread(list_devices, request.app[STORE_KEY].engine)
    return web.json_response({"roles": list(ROLES), "devices": [
        {"name": d.name, "role": d.role, "created": d.created, "revoked": d.revoked}
        for d in devices]})


async def api_device_create(request: web.Request) -> web.Response:
    """``POST /api/devices`` ``{"name", "role"}``: a token for one device, shown once."""
    require_operator(request)
    body = await read_json(request)
    if not isinstance(body, dict) or not isinstance(body.get("name"), str) or not isinstance(
            body.get("role"), str):
        raise InvalidInputError(f"a device is {{\"name\": ..., \"role\": ...}}, the role one "
                                f"of {', '.join(ROLES)}")
    book = request.app[DEVICES_KEY]
    token = await asyncio.to_thread(create_device, book.engine, body["name"], body["role"],
                                    request.app[CLOCK_KEY]())
    await asyncio.to_thread(book.refresh)  # usable at once
    return web.json_response({"ok": True, "name": body["name"].strip(), "role": body["role"],
                              "token": token})


async def api_device_revoke(request: web.Request) -> web.Response:
    """``DELETE /api/devices/{name}``: the device's token ends; its sockets close now."""
    require_operator(request)
    book, name = request.app[DEVICES_KEY], request.match_info["name"]
    if not await asyncio.to_thread(revoke_device, book.engine, name, request.app[CLOCK_KEY]()):
        raise json_error(404, "not_found", f"no device named {name!r} with a live token")
    close_revoked(request.app, await asyncio.to_thread(book.refresh))
    return web.json_response({"ok": True, "name": name, "revoked": True})


__all__ = ["create_app", "device_report", "error_payload"]
