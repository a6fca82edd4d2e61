"""The one owner of Feltcast's connection to OBS: a supervised obs-websocket (v5) client.

obs-websocket-py is blocking and has no timeout on ``connect()``, so :class:`ObsClient`
runs every blocking step on one dedicated worker thread, bounds each of them (a socket
timeout covers TCP connect, websocket upgrade, Hello and Identify; every request waits at
most ``request_timeout``), and supervises the connection from the event loop: reconnect
with exponential backoff, a :class:`ObsHealth` value for the operator page, and one log
line when the connection goes down and one when it is back (never one per retry).

Usage from the service (one cleanup-context entry)::

    async with ObsClient(settings) as obs:       # starts the supervisor, returns at once
        obs.add_health_listener(publish_health)  # called on every health change
        await obs.call("SetCurrentProgramScene", {"sceneName": "Feltcast Table"})

Calls made while OBS is down raise :class:`~overlay.devices.obs.errors.ObsUnavailableError` at once:
nothing in the service ever waits for OBS.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import itertools
import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

import websocket
from obswebsocket import obsws
from obswebsocket import requests as obs_requests
from obswebsocket.core import RecvThread

from overlay.devices.obs.errors import ObsRequestError, ObsUnavailableError
from overlay.devices.obs.settings import ObsSettings
from overlay.tasks import cancel_and_wait

LOG = logging.getLogger(__name__)


class _QuietLossFilter(logging.Filter):
    """obs-websocket-py warns "Connection lost!" on every loss; ObsClient logs the
    transition itself, once, so that line is dropped (its other messages pass)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Connection lost")


logging.getLogger("obswebsocket.core").addFilter(_QuietLossFilter())

_STOPPED = "Feltcast stopped its OBS connection"
_STABLE_SECONDS = 10.0
"""A connection that lasted this long resets the reconnect backoff."""


class ObsRequester(Protocol):
    """What setup, automation and the delay guard need from a connection to OBS."""

    async def call(self, request_type: str,
                   data: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Send one request; return its ``responseData``.

        :raises ObsUnavailableError: not connected or no answer in time.
        :raises ObsRequestError: OBS answered with a failure.
        """
        ...

    def supports(self, request_type: str) -> bool:
        """Whether this OBS knows the request (its ``GetVersion`` ``availableRequests``)."""
        ...


class ObsState(StrEnum):
    """The connection's state as the operator page shows it."""

    CONNECTING = "connecting"
    """Before the first attempt has succeeded or failed."""
    CONNECTED = "connected"
    DOWN = "down"
    """Not connected; retrying in the background with backoff."""


@dataclass(frozen=True, slots=True)
class ObsHealth:
    """A snapshot of the OBS connection for the operator page."""

    state: ObsState
    since: float
    """Wall-clock time (UNIX seconds) of the last change of ``state``."""
    last_error: str = ""
    """Why the connection last failed, in words (empty while it never failed)."""
    attempts: int = 0
    """Failed attempts since the last success."""
    obs_version: str = ""
    websocket_version: str = ""

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping for the operator page and the API."""
        return {"state": self.state.value, "since": self.since, "last_error": self.last_error,
                "attempts": self.attempts, "obs_version": self.obs_version,
                "websocket_version": self.websocket_version}


@dataclass(frozen=True, slots=True)
class ObsEvent:
    """An event OBS sent (``eventType`` and ``eventData`` of an obs-websocket Event)."""

    type: str
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Identity:
    obs_version: str
    websocket_version: str
    available_requests: frozenset[str]


class _ReceiveThread(RecvThread):
    """The library's receive loop, made to report how it ended instead of dying noisily."""

    def run(self) -> None:
        reason = "OBS closed the connection"
        try:
            super().run()
        except Exception as error:  # the library re-raises socket errors from its loop
            reason = _describe(error)
        finally:
            self.core.connection_lost(reason, self)


class _Connection(obsws):
    """One obs-websocket session, with the timeouts and error details the library lacks.

    Used only from the client's worker thread, except for the receive thread's callbacks.
    """

    def __init__(self, settings: ObsSettings, on_event: Callable[[ObsEvent], None],
                 on_lost: Callable[[str], None]) -> None:
        # Pass the port explicitly and legacy=False: the library falls back to the v4
        # protocol on port 4444. authreconnect=0: reconnecting is the supervisor's job.
        super().__init__(settings.host, settings.port, settings.password, legacy=False,
                         timeout=settings.request_timeout, authreconnect=0)
        self._settings = settings
        self._on_event = on_event
        self._on_lost = on_lost
        self._closing = False
        self._lost_reason = ""
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self.identity = _Identity("", "", frozenset())
        self.register(self._forward_event)

    def open(self) -> _Identity:
        """Connect, authenticate and read the server's version, all within the timeouts."""
        url = f"ws://{self._settings.host}:{self._settings.port}"
        self.ws = websocket.WebSocket()
        # The socket timeout bounds the TCP connect, the upgrade, Hello and Identify.
        self.ws.connect(url, timeout=self._settings.connect_timeout)
        self._auth()
        # The receive thread blocks in recv() for as long as the session lives.
        self.ws.settimeout(None)
        self.thread_recv = _ReceiveThread(self)
        self.thread_recv.daemon = True
        self.thread_recv.name = "feltcast-obs-recv"
        self.thread_recv.start()
        version = self.request("GetVersion", {})
        self.identity = _Identity(str(version.get("obsVersion", "")),
                                  str(version.get("obsWebSocketVersion", "")),
                                  frozenset(version.get("availableRequests", ())))
        return self.identity

    def request(self, request_type: str, data: Mapping[str, Any]) -> dict[str, Any]:
        """Send one request and wait for its answer (at most ``request_timeout``).

        The library's ``call()`` drops the status code and comment of failures; this keeps
        them, and makes request ids thread-safe.
        """
        request = getattr(obs_requests, request_type)(**data)
        with self._lock:
            request_id = f"feltcast-{next(self._ids)}"
            answered = threading.Event()
            self.events[request_id] = answered
        try:
            self.ws.send(_json_dumps({"op": 6, "d": {"requestType": request.name,
                                                     "requestId": request_id,
                                                     "requestData": request.data()}}))
            answered.wait(self._settings.request_timeout)
        finally:
            with self._lock:
                self.events.pop(request_id, None)
                answer = self.answers.pop(request_id, None)
        if answer is None and self._lost_reason:
            raise ObsUnavailableError(f"OBS connection lost during {request_type}: "
                                      f"{self._lost_reason}")
        if answer is None:
            raise ObsUnavailableError(
                f"OBS did not answer {request_type} within {self._settings.request_timeout:g} s")
        status = answer.get("requestStatus", {})
        if not status.get("result"):
            code = int(status.get("code", 0))
            comment = str(status.get("comment", ""))
            raise ObsRequestError(
                f"OBS refused {request_type}: {comment or 'error ' + str(code)}",
                request_type=request_type, status=code, comment=comment)
        response: dict[str, Any] = answer.get("responseData") or {}
        return response

    def close(self) -> None:
        """End the session; the receive thread stops without reporting a loss."""
        self._closing = True
        if self.thread_recv is not None:
            self.thread_recv.running = False
        if self.ws is not None:
            try:
                self.ws.abort()  # wakes the receive thread blocked in recv()
                self.ws.close(timeout=0.5)
            except (OSError, websocket.WebSocketException):
                pass  # already gone: OBS died or the handshake failed
            finally:
                self.ws.shutdown()  # closes the socket in every case
        if self.thread_recv is not None and self.thread_recv is not threading.current_thread():
            self.thread_recv.join(timeout=2.0)

    def connection_lost(self, reason: str, thread: RecvThread) -> None:
        if thread is not self.thread_recv:
            return
        with self._lock:
            self._lost_reason = reason
            waiting = list(self.events.values())
        for answered in waiting:  # no answer is coming: end their wait now
            answered.set()
        if not self._closing:
            self._on_lost(reason)

    def disconnect(self) -> None:
        # The library's receive loop calls this when OBS goes away; it must not join the
        # receive thread from inside itself, and the supervisor decides what happens next.
        if self.thread_recv is not None:
            self.thread_recv.running = False

    def _forward_event(self, event: Any) -> None:
        self._on_event(ObsEvent(str(event.name), dict(event.datain)))


class ObsClient:
    """The supervised connection to OBS (see the module docstring). Implements
    :class:`ObsRequester`."""

    def __init__(self, settings: ObsSettings, *, clock: Callable[[], float] = time.time) -> None:
        self.settings = settings
        self._clock = clock
        self._health = ObsHealth(ObsState.CONNECTING, clock())
        self._health_listeners: list[Callable[[ObsHealth], None]] = []
        self._event_listeners: list[Callable[[ObsEvent], None]] = []
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._connection: _Connection | None = None
        self._lost = asyncio.Event()
        self._changed = asyncio.Event()
        self._lost_reason = ""
        self._identity = _Identity("", "", frozenset())
        self._was_down = False

    # --- lifecycle --------------------------------------------------------------------

    async def start(self) -> None:
        """Start connecting in the background; returns at once."""
        if self._task is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="feltcast-obs")
        self._task = asyncio.create_task(self._supervise(), name="feltcast-obs-supervisor")

    async def stop(self) -> None:
        """Stop supervising and close the connection (waits for the worker thread)."""
        task, self._task = self._task, None
        await cancel_and_wait(task)
        await self._close_connection()
        if self._executor is not None:
            executor, self._executor = self._executor, None
            await asyncio.get_running_loop().run_in_executor(None, executor.shutdown)
        old = self._health
        if old.state is not ObsState.DOWN or old.last_error != _STOPPED:
            # A deliberate stop: down, but no warning in the log.
            self._publish(ObsHealth(ObsState.DOWN, self._clock(), _STOPPED, 0, old.obs_version,
                                    old.websocket_version))

    async def __aenter__(self) -> ObsClient:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    # --- what the service uses --------------------------------------------------------

    @property
    def health(self) -> ObsHealth:
        return self._health

    @property
    def connected(self) -> bool:
        return self._health.state is ObsState.CONNECTED

    def add_health_listener(self, listener: Callable[[ObsHealth], None]) -> Callable[[], None]:
        """Call ``listener(health)`` on the event loop at every change; returns an unsubscribe."""
        self._health_listeners.append(listener)
        return lambda: self._health_listeners.remove(listener)

    def add_event_listener(self, listener: Callable[[ObsEvent], None]) -> Callable[[], None]:
        """Call ``listener(event)`` on the event loop for every OBS event; returns an
        unsubscribe."""
        self._event_listeners.append(listener)
        return lambda: self._event_listeners.remove(listener)

    def supports(self, request_type: str) -> bool:
        return request_type in self._identity.available_requests

    async def wait_connected(self, timeout: float, *, give_up_when_down: bool = False) -> None:
        """Wait until connected.

        :param give_up_when_down: fail on the first failed attempt instead of waiting for
            the retries (what a one-shot command such as ``feltcast obs setup`` wants).
        :raises ObsUnavailableError: with the last error, when ``timeout`` passes first.
        """
        deadline = time.monotonic() + timeout
        while not self.connected:
            if give_up_when_down and self._health.state is ObsState.DOWN:
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), remaining)
            except TimeoutError:
                break
        if not self.connected:
            raise self._unavailable()

    async def call(self, request_type: str,
                   data: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Send one obs-websocket request and return its ``responseData``.

        :raises ObsUnavailableError: OBS is not connected, or did not answer in time.
        :raises ObsRequestError: OBS answered with a failure (status code and comment kept).
        """
        connection = self._connection
        if connection is None or not self.connected:
            raise self._unavailable()
        payload = dict(data or {})
        try:
            return await asyncio.wait_for(
                self._run(connection.request, request_type, payload),
                self.settings.request_timeout + 1.0)
        except TimeoutError:
            raise ObsUnavailableError(
                f"OBS did not answer {request_type} within "
                f"{self.settings.request_timeout:g} s") from None
        except (OSError, websocket.WebSocketException) as error:
            self._connection_lost(_describe(error))
            raise ObsUnavailableError(f"OBS connection failed during {request_type}: "
                                      f"{_describe(error)}") from None

    # --- supervision ------------------------------------------------------------------

    async def _supervise(self) -> None:
        delay = self.settings.reconnect_initial
        while True:
            self._lost.clear()
            try:
                connection = _Connection(self.settings, self._event_from_thread,
                                         self._lost_from_thread)
                self._connection = connection
                identity = await asyncio.wait_for(
                    self._run(connection.open), self.settings.connect_timeout * 2 + 1.0)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                await self._close_connection()
                self._set_down(_explain_connect_failure(error, self.settings))
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.settings.reconnect_max)
                continue
            self._identity = identity
            self._set_connected(identity)
            connected_at = time.monotonic()
            await self._lost.wait()
            await self._close_connection()
            self._set_down(self._lost_reason)
            # A connection that held for a while starts the backoff afresh; one that drops
            # at once (OBS flapping, a server closing after Identify) keeps backing off.
            if time.monotonic() - connected_at >= _STABLE_SECONDS:
                delay = self.settings.reconnect_initial
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.settings.reconnect_max)

    async def _run(self, function: Callable[..., Any], *args: Any) -> Any:
        if self._executor is None:
            raise self._unavailable()
        return await asyncio.get_running_loop().run_in_executor(self._executor, function, *args)

    async def _close_connection(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None and self._executor is not None:
            await asyncio.shield(self._run(connection.close))

    def _event_from_thread(self, event: ObsEvent) -> None:
        self._to_loop(self._dispatch_event, event)

    def _lost_from_thread(self, reason: str) -> None:
        self._to_loop(self._connection_lost, reason)

    def _to_loop(self, function: Callable[..., None], *args: Any) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        # RuntimeError: the loop closed between the check and the call.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(function, *args)

    def _dispatch_event(self, event: ObsEvent) -> None:
        for listener in list(self._event_listeners):
            try:
                listener(event)
            except Exception:
                LOG.exception("OBS event listener failed on %s", event.type)

    def _connection_lost(self, reason: str) -> None:
        if not self._lost.is_set():
            self._lost_reason = reason
            self._lost.set()

    def _set_connected(self, identity: _Identity) -> None:
        if self._was_down:
            LOG.info("OBS connection back (%s:%d, OBS %s)", self.settings.host,
                     self.settings.port, identity.obs_version)
        self._was_down = False
        self._publish(ObsHealth(ObsState.CONNECTED, self._clock(), "", 0,
                                identity.obs_version, identity.websocket_version))

    def _set_down(self, reason: str) -> None:
        old = self._health
        if old.state is ObsState.DOWN:
            # Still down: keep `since`, count the attempt, no new log line.
            self._publish(ObsHealth(ObsState.DOWN, old.since, reason, old.attempts + 1,
                                    old.obs_version, old.websocket_version))
            return
        LOG.warning("OBS connection down (%s:%d): %s", self.settings.host, self.settings.port,
                    reason)
        self._was_down = True
        self._publish(ObsHealth(ObsState.DOWN, self._clock(), reason, 1, old.obs_version,
                                old.websocket_version))

    def _publish(self, health: ObsHealth) -> None:
        self._health = health
        self._changed.set()
        for listener in list(self._health_listeners):
            try:
                listener(health)
            except Exception:
                LOG.exception("OBS health listener failed")

    def _unavailable(self) -> ObsUnavailableError:
        health = self._health
        if health.state is ObsState.CONNECTING and not health.last_error:
            return ObsUnavailableError(f"OBS at {self.settings.host}:{self.settings.port} is "
                                       "not connected yet")
        since = time.strftime("%H:%M:%S", time.localtime(health.since))
        return ObsUnavailableError(f"OBS is not connected (since {since}): "
                                   f"{health.last_error or 'connection closed'}")


def _explain_connect_failure(error: BaseException, settings: ObsSettings) -> str:
    """Why a connection attempt failed, in words a producer can act on."""
    where = f"{settings.host}:{settings.port}"
    if isinstance(error, ConnectionRefusedError):
        return (f"nothing listens on {where}: is OBS running, with Tools > WebSocket Server "
                f"Settings > Enable on port {settings.port}?")
    if isinstance(error, TimeoutError | socket.timeout | websocket.WebSocketTimeoutException):
        return (f"{where} did not complete the obs-websocket handshake within "
                f"{settings.connect_timeout:g} s")
    text = _describe(error)
    if "Identify" in text or "password" in text.lower() or "4009" in text:
        return f"OBS at {where} refused the password (Tools > WebSocket Server Settings)"
    return f"cannot connect to OBS at {where}: {text}"


def _describe(error: BaseException) -> str:
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _json_dumps(payload: Mapping[str, Any]) -> str:
    return json.dumps(payload, separators=(",", ":"))
