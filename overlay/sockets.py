"""Page sockets: the hello a page sends, and websocket frames made once per message and
written to every socket as they are.

A page's socket carries one request from the page, ``{"type": "hello", ...}`` (again
whenever it wants a fresh start); anything else is answered with an error and changes
nothing (:func:`hellos`, the one reader of both the table's service and a festival worker).

A channel message goes to every subscriber of a channel: hundreds on a table's service,
thousands on a festival worker. aiohttp would frame it, and with permessage-deflate compress
it, once per socket. A server's text frame (RFC 6455 §5.2: not masked) is the same bytes for
every socket, and a message compressed *without* the previous messages as context (RFC 7692
§7.2.1: a sender may always do so; a receiver with context takeover decodes it all the same)
is too, for every socket that negotiated the same window size. So :class:`ChannelMessage
<overlay.hub.ChannelMessage>` keeps its frames (:func:`frame_of`), and :func:`forward` writes
them to the socket's transport. Every data frame of such a socket goes this way (aiohttp's
own compressor, whose context would no longer match what the client holds, is never used on
it); control frames (ping, pong, close) are aiohttp's and never compressed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import struct
import weakref
import zlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from aiohttp import WSMsgType, web

from engine.errors import InvalidInputError
from overlay.web_errors import error_payload
from overlay.web_json import decode_json

__all__ = ["Frames", "deflate_frame", "forward", "hellos", "resume_of", "send_json", "text_frame"]

_log = logging.getLogger(__name__)

FIN_TEXT = 0x81
RSV1 = 0x40
_TAIL = b"\x00\x00\xff\xff"


def _header(first: int, length: int) -> bytes:
    if length < 126:
        return struct.pack("!BB", first, length)
    if length < 1 << 16:
        return struct.pack("!BBH", first, 126, length)
    return struct.pack("!BBQ", first, 127, length)


def text_frame(payload: bytes) -> bytes:
    """An unfragmented, unmasked text frame carrying ``payload`` (UTF-8).

    >>> text_frame(b'{"a":1}')
    b'\\x81\\x07{"a":1}'
    """
    return _header(FIN_TEXT, len(payload)) + payload


def deflate_frame(payload: bytes, window_bits: int) -> bytes:
    """``payload`` as a compressed text frame of permessage-deflate (RFC 7692), with no
    context from earlier messages; ``window_bits`` as negotiated (9-15).

    >>> frame = deflate_frame(b"x" * 1000, 15)
    >>> frame[0] == 0xC1 and len(frame) < 30
    True
    >>> zlib.decompressobj(-15).decompress(frame[2:] + b"\\x00\\x00\\xff\\xff")[:5]
    b'xxxxx'
    """
    compressor = zlib.compressobj(zlib.Z_BEST_SPEED, zlib.DEFLATED, -max(9, window_bits))
    body = compressor.compress(payload) + compressor.flush(zlib.Z_SYNC_FLUSH)
    if body.endswith(_TAIL):
        body = body[:-4]
    return _header(FIN_TEXT | RSV1, len(body)) + body


class Frames:
    """The frames of one text, made on first use (shared by every socket)."""

    __slots__ = ("_deflated", "_plain", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._plain: bytes | None = None
        self._deflated: dict[int, bytes] = {}

    def frame(self, window_bits: int) -> bytes:
        if window_bits:
            frame = self._deflated.get(window_bits)
            if frame is None:
                frame = self._deflated[window_bits] = deflate_frame(
                    self.text.encode("utf-8"), window_bits)
            return frame
        if self._plain is None:
            self._plain = text_frame(self.text.encode("utf-8"))
        return self._plain


def _window_bits(ws: web.WebSocketResponse) -> int:
    compress = ws.compress
    return int(compress) if compress and not isinstance(compress, bool) else 0


async def send_json(ws: web.WebSocketResponse, request: web.Request, data: Any) -> None:
    """One JSON message on a socket whose data frames all go through this module (an error
    answering a page's message)."""
    text = json.dumps(data, separators=(",", ":"))
    _write(request, Frames(text).frame(_window_bits(ws)))
    await _drain(request)


def _write(request: web.Request, frame: bytes) -> None:
    transport = request.transport
    if transport is None or transport.is_closing():
        raise ConnectionResetError("the socket is closed")
    transport.write(frame)


async def _drain(request: web.Request) -> None:
    """Wait while the socket's send buffer is over its high-water mark (a slow reader):
    its subscription's bounded queue fills meanwhile, and overflows into a resync."""
    protocol: Any = request.protocol
    if protocol.writing_paused:
        await protocol._drain_helper()  # what aiohttp's own StreamWriter.drain awaits


class _Outbox:
    """The sockets with frames waiting, flushed together once the event loop runs again
    (one callback for a whole fan-out, not one per socket)."""

    __slots__ = ("_flushes", "_loop")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._flushes: list[Callable[[], None]] = []

    def later(self, flush: Callable[[], None]) -> None:
        if not self._flushes:
            self._loop.call_soon(self._run)
        self._flushes.append(flush)

    def _run(self) -> None:
        flushes, self._flushes = self._flushes, []
        for flush in flushes:
            try:
                flush()
            except Exception as error:  # one broken socket; its writer ends and says why
                _log.debug("websocket flush failed: %s", error)


_outboxes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Outbox] = \
    weakref.WeakKeyDictionary()


def _outbox() -> _Outbox:
    loop = asyncio.get_running_loop()
    outbox = _outboxes.get(loop)
    if outbox is None:
        outbox = _outboxes[loop] = _Outbox(loop)
    return outbox


async def forward(subscription: Any, ws: web.WebSocketResponse, request: web.Request) -> None:
    """One writer per socket: the subscription's messages, in order, each as the frame made
    once for every socket (see the module docstring).

    Messages handed over together (a burst released at once, or read from Redis in one
    go) leave in one write: the fast path collects frames until the event loop next runs,
    so a socket costs one system call per burst, not one per message."""
    bits = _window_bits(ws)
    transport, protocol = request.transport, request.protocol
    corked: list[bytes] = []
    outbox = _outbox()

    def flush() -> None:
        """The frames taken since the loop last ran, in one write (one system call)."""
        if corked:
            data = corked[0] if len(corked) == 1 else b"".join(corked)
            corked.clear()
            if transport is not None and not transport.is_closing():
                transport.write(data)

    def direct(message: Any) -> bool:  # the hub's fast path (Subscription.direct)
        if transport is None or transport.is_closing() or protocol.writing_paused:
            return False
        if not corked:
            outbox.later(flush)
        corked.append(message.frames.frame(bits))
        return True

    try:
        subscription.direct = direct
        async for message in subscription:
            flush()  # whatever the fast path took first goes first
            _write(request, message.frames.frame(bits))
            await _drain(request)
    except asyncio.CancelledError:
        # The handler is done with the socket (the page left, or said hello again): it
        # reads no more, so a close handshake here would only wait for its timeout.
        subscription.close()
        raise
    except ConnectionResetError:
        pass
    except Exception as error:  # the subscription closed (shutdown) or the socket broke
        _log.debug("websocket writer ended: %s", error)
    subscription.close()  # (and its direct path with it)
    if not ws.closed:  # the subscription ended (shutdown, a hub closed): say goodbye
        await ws.close(code=1001, message=b"going away")


async def hellos(ws: web.WebSocketResponse, request: web.Request,
                 ) -> AsyncIterator[dict[str, Any]]:
    """Each ``hello`` the page sends (this is the socket's only reader); anything else gets
    an error message and is otherwise ignored."""
    async for message in ws:
        if message.type != WSMsgType.TEXT:
            continue
        try:
            data = decode_json(message.data, what="message")
        except InvalidInputError as error:
            await send_json(ws, request, {"type": "error", "error": error_payload(error)})
            continue
        if not isinstance(data, dict) or data.get("type") != "hello":
            await send_json(ws, request, {"type": "error", "error": {
                "code": "invalid_input",
                "message": "pages only say hello; commands go to POST /api/commands"}})
            continue
        yield data


def resume_of(hello: dict[str, Any]) -> tuple[int | None, str | None]:
    """The revision and log a page's hello says it has (``None``: a fresh snapshot)."""
    resume, log_id = hello.get("resume"), hello.get("log_id")
    return (resume if isinstance(resume, int) and not isinstance(resume, bool) else None,
            log_id if isinstance(log_id, str) else None)
