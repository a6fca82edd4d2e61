"""Page sockets (overlay/sockets.py) on a real aiohttp server and client: frames made once,
and the messages handed over together leaving in one write, in order."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

from aiohttp import web

from engine.channels import BUILTIN_CHANNELS
from engine.log import TableEvent
from overlay.hub import ChannelHub, EventListReducer
from overlay.sockets import forward
from tests.overlay.test_hub import log_entries

VENUE = BUILTIN_CHANNELS["venue"]


class Server:
    """A hub, and one socket handler forwarding it (writes counted on the real transport)."""

    def __init__(self) -> None:
        self.hub: ChannelHub[Any] = ChannelHub(VENUE, EventListReducer())
        self.writes: list[bytes] = []
        self.subscribed = asyncio.Event()

    async def handler(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(compress=False)
        await ws.prepare(request)
        transport: Any = request.transport
        real_write = transport.write

        def write(data: bytes) -> None:
            self.writes.append(bytes(data))
            real_write(data)

        transport.write = write  # counts what reaches the socket, changes nothing
        subscription = self.hub.subscribe()
        self.subscribed.set()
        await forward(subscription, ws, request)
        return ws

    def release_through(self, revision: int, events: Iterator[TableEvent]) -> None:
        """Offer log events, in this one turn of the event loop, until ``revision``."""
        while self.hub.revision < revision:
            self.hub.offer([next(events)])


async def _connected(aiohttp_client: Any) -> tuple[Server, Any, dict[str, Any]]:
    """A server, a page's socket on it, and the first message the page got."""
    server = Server()
    app = web.Application()
    app.router.add_get("/ws", server.handler)
    client = await aiohttp_client(app)
    ws = await client.ws_connect("/ws")
    await asyncio.wait_for(server.subscribed.wait(), 60)
    (first,) = await _received(ws, 1)
    return server, ws, first


async def _goodbye(server: Server, ws: Any) -> None:
    """The server closes (its handler reads nothing, so the page cannot start the close)."""
    server.hub.close()
    assert (await asyncio.wait_for(ws.receive(), 60)).type.name in ("CLOSE", "CLOSING", "CLOSED")


async def _received(ws: Any, count: int) -> list[dict[str, Any]]:
    messages = []
    while len(messages) < count:
        message = await asyncio.wait_for(ws.receive(), 60)
        messages.append(json.loads(message.data))
    return messages


async def test_messages_handed_over_together_leave_in_one_write(aiohttp_client: Any) -> None:
    server, ws, snapshot = await _connected(aiohttp_client)
    assert snapshot["type"] == "snapshot"
    before = len(server.writes)

    events = iter(log_entries(200))
    server.release_through(5, events)  # released together: one turn of the event loop
    burst = await _received(ws, 5)
    assert [m["revision"] for m in burst] == [1, 2, 3, 4, 5]
    assert len(server.writes) == before + 1, "five frames, one write"
    assert server.writes[-1].count(b'"type":"patch"') == 5

    for revision in (6, 7):  # one at a time: each leaves as it comes
        server.release_through(revision, events)
        await _received(ws, 1)
    assert len(server.writes) == before + 3
    await _goodbye(server, ws)


async def test_a_stream_with_bursts_arrives_whole_and_in_order(aiohttp_client: Any) -> None:
    server, ws, _ = await _connected(aiohttp_client)
    events = iter(log_entries(1000, seed=3))
    sizes = [1, 4, 2, 9, 1, 1, 6, 3, 12, 1, 20]  # bursts between turns of the loop
    offered = 0
    for size in sizes:
        offered += size
        server.release_through(offered, events)
        await asyncio.sleep(0)
    received = await _received(ws, offered)
    assert [m["revision"] for m in received] == list(range(1, offered + 1))
    assert len(server.writes) <= len(sizes) + 1
    await _goodbye(server, ws)
