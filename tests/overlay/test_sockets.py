"""Page sockets (overlay/sockets.py) on a real aiohttp server and client: frames made once,
and the messages handed over together leaving in one write, in order."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp import web

from engine.channels import BUILTIN_CHANNELS
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


async def _received(ws: Any, count: int) -> list[dict[str, Any]]:
    messages = []
    while len(messages) < count:
        message = await asyncio.wait_for(ws.receive(), 60)
        messages.append(json.loads(message.data))
    return messages


async def test_messages_handed_over_together_leave_in_one_write(aiohttp_client: Any) -> None:
    server = Server()
    app = web.Application()
    app.router.add_get("/ws", server.handler)
    client = await aiohttp_client(app)
    ws = await client.ws_connect("/ws")
    await asyncio.wait_for(server.subscribed.wait(), 60)
    (snapshot,) = await _received(ws, 1)
    assert snapshot["type"] == "snapshot"
    before = len(server.writes)

    events = iter(log_entries(200))
    while server.hub.revision < 5:  # released together: one turn of the event loop
        server.hub.offer([next(events)])
    burst = await _received(ws, 5)
    assert [m["revision"] for m in burst] == [1, 2, 3, 4, 5]
    assert len(server.writes) == before + 1, "five frames, one write"
    assert server.writes[-1].count(b'"type":"patch"') == 5

    for revision in (6, 7):  # one at a time: each leaves as it comes
        while server.hub.revision < revision:
            server.hub.offer([next(events)])
        await _received(ws, 1)
    assert len(server.writes) == before + 3
    server.hub.close()  # the server says goodbye (its handler reads nothing)
    assert (await asyncio.wait_for(ws.receive(), 60)).type.name in ("CLOSE", "CLOSING", "CLOSED")


async def test_a_stream_with_bursts_arrives_whole_and_in_order(aiohttp_client: Any) -> None:
    server = Server()
    app = web.Application()
    app.router.add_get("/ws", server.handler)
    client = await aiohttp_client(app)
    ws = await client.ws_connect("/ws")
    await asyncio.wait_for(server.subscribed.wait(), 60)
    await _received(ws, 1)
    events = iter(log_entries(1000, seed=3))
    sizes = [1, 4, 2, 9, 1, 1, 6, 3, 12, 1, 20]  # bursts between turns of the loop
    offered = 0
    for size in sizes:
        offered += size
        while server.hub.revision < offered:
            server.hub.offer([next(events)])
        await asyncio.sleep(0)
    received = await _received(ws, offered)
    assert [m["revision"] for m in received] == list(range(1, offered + 1))
    assert len(server.writes) <= len(sizes) + 1
    server.hub.close()  # the server says goodbye (its handler reads nothing)
    assert (await asyncio.wait_for(ws.receive(), 60)).type.name in ("CLOSE", "CLOSING", "CLOSED")
