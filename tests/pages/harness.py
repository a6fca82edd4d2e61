"""A small scriptable stand-in for the Feltcast service, for the page tests.

It serves ``static/`` exactly where the service does (every page of ``PAGES``: ``/overlay``,
``/commentary``, ``/operator``, the tournament graphics; ``/static/...``; the look on air) and
speaks the websocket protocol of ``docs/view-model.md`` on ``/ws/<channel>``: every ``hello``
is recorded and answered with a snapshot of the channel's current view; the test then pushes
patches, gaps or closes sockets. ``POST /api/commands``
records each command (``docs/commands.md``) and answers ok or a scripted error.

The server runs on its own event loop in a background thread so that the synchronous
Playwright API can drive the browser from the test thread.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from aiohttp import WSMsgType, web

from overlay.graphics.config import default_graphics
from overlay.graphics.desk import GraphicsDesk
from overlay.graphics.web import media, theme_css, theme_link
from overlay.hub import apply_merge_patch as merge_patch
from overlay.keys import GRAPHICS_KEY

STATIC = Path(__file__).resolve().parents[2] / "static"
PAGES = ("overlay", "commentary", "operator", "leaderboard", "lowerthird", "elimination",
         "payouts", "clock", "ticker", "versus", "program")
LOG_ID = "harness-log-1"

T = TypeVar("T")


@dataclass
class Hello:
    channel: str
    message: dict[str, Any]
    token: str | None


@dataclass
class Command:
    body: dict[str, Any]
    authorization: str | None


@dataclass
class ChannelState:
    view: dict[str, Any] | None = None
    revision: int = 0
    sockets: set[web.WebSocketResponse] = field(default_factory=set)
    history: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Patches by revision, for answering a hello's ``resume`` with the missed patches."""
    resume: bool = False
    """True: a hello that resumes from a known revision gets patches, not a snapshot."""


class Harness:
    """Start with :meth:`start`; every public method is called from the test thread."""

    def __init__(self, static_dir: Path = STATIC) -> None:
        self.static_dir = static_dir
        self.port = 0
        self.hellos: list[Hello] = []
        self.commands: list[Command] = []
        self.requests: list[str] = []
        self.replies: list[tuple[int, dict[str, Any]]] = []
        self.operator_token: str | None = None
        """When set, ``GET /api/log`` refuses other tokens with 401 (as the service does)."""
        self.channels: dict[str, ChannelState] = {}
        self.graphics = GraphicsDesk(default_graphics())
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None

    # ---- lifecycle ----
    def start(self) -> None:
        self._thread.start()
        self._call(self._start_site())

    def close(self) -> None:
        self._call(self._stop_site())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()

    def stop_server(self) -> None:
        """The server goes away: every socket is closed and the port stops answering."""
        self._call(self._stop_site())

    def restart_server(self) -> None:
        self._call(self._start_site())

    def reset(self) -> None:
        self.operator_token = None
        self._call(self._reset())

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # ---- scripting ----
    def set_view(self, channel: str, view: dict[str, Any], revision: int = 1) -> None:
        """The view a (re)connecting client receives as its snapshot; nothing is pushed."""
        state = self.channels.setdefault(channel, ChannelState())
        state.view, state.revision = view, revision
        state.history.clear()

    def push_snapshot(self, channel: str, view: dict[str, Any], revision: int) -> None:
        self.set_view(channel, view, revision)
        self._send(channel, {"type": "snapshot", "channel": channel, "log_id": LOG_ID,
                             "revision": revision, "view": view})

    def push_patch(self, channel: str, patch: dict[str, Any],
                   events: list[dict[str, Any]] | None = None) -> int:
        state = self.channels[channel]
        state.view = merge_patch(state.view, patch)
        state.revision += 1
        message = {"type": "patch", "revision": state.revision, "patch": patch,
                   "events": events or []}
        state.history[state.revision] = message
        self._send(channel, message)
        return state.revision

    def push_burst(self, channel: str, patches: list[dict[str, Any]]) -> int:
        """Patches sent back to back, in one go on the server's loop (a burst of events)."""
        state = self.channels[channel]
        messages = []
        for patch in patches:
            state.view = merge_patch(state.view, patch)
            state.revision += 1
            message = {"type": "patch", "revision": state.revision, "patch": patch,
                       "events": []}
            state.history[state.revision] = message
            messages.append(json.dumps(message))

        async def send() -> None:
            for ws in list(state.sockets):
                for text in messages:
                    if not ws.closed:
                        await ws.send_str(text)
        self._call(send())
        return state.revision

    def push_gap(self, channel: str, patch: dict[str, Any]) -> None:
        """A patch that skips a revision (one was lost); the state moves on by two."""
        state = self.channels[channel]
        state.view = merge_patch(state.view, patch)
        state.revision += 2
        self._send(channel, {"type": "patch", "revision": state.revision, "patch": patch,
                             "events": []})

    def push_raw(self, channel: str, message: dict[str, Any]) -> None:
        self._send(channel, message)

    def reply_next(self, status: int, body: dict[str, Any]) -> None:
        """The reply of the next POST /api/commands (default: ok)."""
        self.replies.append((status, body))

    def connected(self, channel: str) -> int:
        state = self.channels.get(channel)
        return 0 if state is None else sum(not ws.closed for ws in state.sockets)

    def hellos_on(self, channel: str) -> list[Hello]:
        return [hello for hello in self.hellos if hello.channel == channel]

    def wait_until(self, predicate: Callable[[], bool], timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError("harness: condition not met in time")
            time.sleep(0.02)

    # ---- internals (run on the harness loop) ----
    def _call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=10)

    def _send(self, channel: str, message: dict[str, Any]) -> None:
        async def send() -> None:
            for ws in list(self.channels.get(channel, ChannelState()).sockets):
                if not ws.closed:
                    await ws.send_str(json.dumps(message))
        self._call(send())

    async def _close_all(self, code: int = 1000, message: bytes = b"") -> None:
        sockets = [ws for state in self.channels.values() for ws in state.sockets]
        await asyncio.gather(*(ws.close(code=code, message=message) for ws in sockets))

    async def _reset(self) -> None:
        await self._close_all()
        self.channels.clear()
        self.hellos.clear()
        self.commands.clear()
        self.requests.clear()
        self.replies.clear()

    def _app(self) -> web.Application:
        app = web.Application(middlewares=[self._record])
        for page in PAGES:
            app.router.add_get(f"/{page}", self._page)
        app.router.add_get("/ws/{channel}", self._websocket)
        app.router.add_post("/api/commands", self._command)
        app.router.add_get("/api/log", self._log)
        app.router.add_get("/api/channels", self._channels)
        app.router.add_static("/static/", self.static_dir)
        # The look on air, served by the service's own code (the dark theme, no logo).
        app[GRAPHICS_KEY] = self.graphics
        app.router.add_get("/graphics/theme.css", theme_css)
        app.router.add_get("/graphics/theme/{name}.css", theme_css)
        app.router.add_get("/graphics/media/{file}", media)
        return app

    async def _start_site(self) -> None:
        self._runner = web.AppRunner(self._app(), handle_signals=False, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self.port, reuse_address=True)
        await site.start()
        if not self.port:
            server = site._server
            assert isinstance(server, asyncio.Server)
            self.port = server.sockets[0].getsockname()[1]

    async def _stop_site(self) -> None:
        await self._close_all(code=1001, message=b"server going away")
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @web.middleware
    async def _record(self, request: web.Request, handler: Any) -> web.StreamResponse:
        self.requests.append(request.path_qs)
        response: web.StreamResponse = await handler(request)
        return response

    async def _page(self, request: web.Request) -> web.Response:
        html = (self.static_dir / f"{request.path.strip('/')}.html").read_text()
        return web.Response(text=theme_link(request, html), content_type="text/html")

    async def _websocket(self, request: web.Request) -> web.WebSocketResponse:
        channel = request.match_info["channel"]
        # A short close timeout: a test may close a browser tab without a close frame.
        ws = web.WebSocketResponse(timeout=1.0)
        await ws.prepare(request)
        state = self.channels.setdefault(channel, ChannelState())
        state.sockets.add(ws)
        try:
            async for message in ws:
                if message.type != WSMsgType.TEXT:
                    continue
                data = json.loads(message.data)
                if data.get("type") == "hello":
                    self.hellos.append(Hello(channel, data, request.query.get("token")))
                    current = self.channels.setdefault(channel, ChannelState())
                    resume = data.get("resume")
                    missed = range(resume + 1, current.revision + 1) if isinstance(
                        resume, int) else range(0)
                    same_log = data.get("log_id") == LOG_ID
                    if current.resume and same_log and resume == current.revision:
                        pass  # nothing was missed: nothing to send (as the hub does)
                    elif (current.resume and same_log and missed
                            and all(r in current.history for r in missed)):
                        for revision in missed:
                            await ws.send_str(json.dumps(current.history[revision]))
                    elif current.view is not None:
                        reason = {} if resume is None else {"reason": "cannot_resume"}
                        await ws.send_str(json.dumps({"type": "snapshot", "channel": channel,
                                                      "log_id": LOG_ID,
                                                      "revision": current.revision,
                                                      "view": current.view, **reason}))
        finally:
            state.sockets.discard(ws)
        return ws

    async def _channels(self, request: web.Request) -> web.Response:
        """The channels the harness has a view for, each open (the real service's answer
        is tested against the service itself)."""
        return web.json_response({"channels": [
            {"name": name, "delay": (state.view or {}).get("channel", {}).get("delay", 0),
             "opens": True, "refused": None}
            for name, state in sorted(self.channels.items()) if state.view is not None]})

    async def _log(self, request: web.Request) -> web.Response:
        wanted = self.operator_token
        if wanted is not None and request.headers.get("Authorization") != f"Bearer {wanted}":
            return web.json_response({"error": {"code": "unauthorized",
                                                "message": "the operator token is wrong"}},
                                     status=401)
        return web.json_response({"entries": []})

    async def _command(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.commands.append(Command(body, request.headers.get("Authorization")))
        if self.replies:
            status, reply = self.replies.pop(0)
            return web.json_response(reply, status=status)
        revision = max((s.revision for s in self.channels.values()), default=0)
        return web.json_response({"ok": True, "id": body.get("id"), "revision": revision})
