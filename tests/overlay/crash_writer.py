"""The process the crash test kills: ``python -m tests.overlay.crash_writer URL SEED``.

It appends a deterministic stream of random-hand events to the log at URL through the
service's write path (:class:`overlay.hub.TableLog`) in batches of 1-5 and prints
``ack <seq>`` after each append returns, forever. On start it continues after the last
persisted event, so a restarted writer extends the same stream.
"""

from __future__ import annotations

import asyncio
import random
import sys
from collections.abc import Iterator

from engine.channels import BUILTIN_CHANNELS
from engine.events import Event
from overlay.hub import ChannelHub, EventListReducer, TableLog
from overlay.store import open_store
from tests.hands import table_hands


def event_stream(seed: int) -> Iterator[Event]:
    """The same endless sequence of engine events (tournament play) for a given seed."""
    for hand in table_hands(random.Random(seed)):
        yield from hand


async def main(url: str, seed: int) -> None:
    store = open_store(url)
    table_log = TableLog(store, [ChannelHub(BUILTIN_CHANNELS["venue"], EventListReducer())])
    await table_log.start()
    stream = event_stream(seed)
    for _ in range(store.last_seq):  # already persisted by an earlier run
        next(stream)
    sizes = random.Random(seed + store.last_seq)
    print(f"start {store.last_seq}", flush=True)
    while True:
        batch = [next(stream) for _ in range(sizes.randint(1, 5))]
        entries = await table_log.append(batch)
        print(f"ack {entries[-1].seq}", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
