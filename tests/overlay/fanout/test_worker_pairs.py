"""A festival worker pairs each tables' channel with the festival's standings it may read
(:class:`overlay.fanout.worker.StandingsPairs`) by reading what is published on Redis: a
crowd opening pages at once asks Redis once, not once a viewer, and a table that starts
publishing later is paired once the reading is older than ``PAIRS_TTL``. On a real
redis-server on loopback, the worker app served on 127.0.0.1; Redis's own command counts
(``INFO commandstats``) say how often it was asked."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import redis.asyncio as aioredis

from engine.channels import ChannelFilter, ChannelSpec
from overlay.fanout import FESTIVAL_KEY, TABLES_KEY, channels_key
from overlay.fanout.worker import PAIRS_TTL, WorkerSettings, create_worker_app
from overlay.festival.channels import festival_channels
from overlay.keys import PAIRS_KEY, RELAY_KEY
from tests.overlay.fanout.test_relay import until
from tests.redis_server import RedisServer

PAGES = 60


async def publish(client: aioredis.Redis, table: str, *specs: ChannelSpec) -> None:
    """What a writer publishes of its channels (as :mod:`overlay.fanout.publisher` does)."""
    await client.set(channels_key(table), json.dumps([spec.to_dict() for spec in specs]))
    if table != FESTIVAL_KEY:
        await client.sadd(TABLES_KEY, table)


async def table_reads(client: aioredis.Redis) -> int:
    """How often Redis was asked for the list of tables."""
    stats = await client.info("commandstats")
    return int(stats.get("cmdstat_smembers", {}).get("calls", 0))


async def test_a_crowd_of_pages_asks_redis_once_and_a_new_table_is_paired_later(
        aiohttp_client: Any) -> None:
    with RedisServer() as redis:
        client = aioredis.from_url(redis.url)
        try:
            await publish(client, FESTIVAL_KEY, *festival_channels(30.0).values())
            await publish(client, "table-1", ChannelSpec("venue", ChannelFilter.PUBLIC))
            worker = await aiohttp_client(create_worker_app(WorkerSettings(redis.url)))
            now = [0.0]
            source, pairs = worker.server.app[RELAY_KEY], worker.server.app[PAIRS_KEY]
            pairs.clock = lambda: now[0]
            await until(lambda: source.connected, "the worker on Redis")
            before = await table_reads(client)

            async def page() -> str:
                response = await worker.get("/t/table-1/leaderboard?channel=venue")
                assert response.status == 200
                return await response.text()

            shown = await asyncio.gather(*(page() for _ in range(PAGES)))
            assert all('<html data-standings="venue" ' in html for html in shown)
            assert pairs.readings == 1
            assert await table_reads(client) - before == 1  # one reading for 60 pages
            # A second table starts publishing a channel delayed 30 s: paired once the
            # reading is older than PAIRS_TTL, not before.
            await publish(client, "table-2", ChannelSpec("delayed", ChannelFilter.PUBLIC,
                                                         delay=30.0))
            assert 'data-standings="venue" ' in await page()
            now[0] += PAIRS_TTL
            assert 'data-standings="delayed venue" ' in await page()
            assert pairs.readings == 2
        finally:
            await client.aclose()


async def test_a_reading_redis_refuses_is_not_kept(aiohttp_client: Any) -> None:
    """Redis away: the page is served without standings; once Redis is back, the next page
    asks again at once (the failed reading was not kept as 'no standings')."""
    with RedisServer() as redis:
        client = aioredis.from_url(redis.url)
        try:
            worker = await aiohttp_client(create_worker_app(WorkerSettings(redis.url)))
            source, pairs = worker.server.app[RELAY_KEY], worker.server.app[PAIRS_KEY]
            pairs.clock = lambda: 0.0  # no time passes: only a kept reading could answer
            await until(lambda: source.connected, "the worker on Redis")
            redis.kill()
            await until(lambda: not source.connected, "the worker to see Redis gone")
            response = await worker.get("/t/table-1/leaderboard?channel=venue")
            assert response.status == 200  # the page still, without standings
            assert "data-standings" not in await response.text()
            assert pairs.readings == 1
            redis.start()
            await publish(client, FESTIVAL_KEY, *festival_channels(30.0).values())
            await publish(client, "table-1", ChannelSpec("venue", ChannelFilter.PUBLIC))
            await until(lambda: source.connected, "the worker back on Redis")
            html = await (await worker.get("/t/table-1/leaderboard?channel=venue")).text()
            assert '<html data-standings="venue" ' in html
            assert pairs.readings == 2
        finally:
            await client.aclose()
