"""``python -m bench.bench_view``: the page view model's cost per released item.

Plays seeded 9-handed tournament hands through :class:`engine.table.Table` with every hole
card known (random legal actions, burn cards, showdowns), logs them, releases them on a
``full`` channel and a ``public`` one, and times what the hub does for every item:
``reducer.apply(state, item)`` followed by ``reducer.snapshot(state)``
(:class:`engine.view.TableViewReducer`). Items are grouped by whether the snapshot had to
compute an equity (a card dealt, a fold: new hands or dead cards) or found it in the cache
(a bet, a call, a check: no card changed). Prints p50/p99 per group in milliseconds and
writes ``bench/results/view-<UTC time>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.cards import FULL_DECK
from engine.channels import ChannelFilter, ChannelSpec, ChannelView
from engine.events import Event, Street
from engine.hand import Hand
from engine.log import TableEvent
from engine.table import AnteMode, Table, TableRules
from engine.view import TableViewReducer

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
PLAYERS = 9
STACK = 400_000


def play(hands: int, seed: int) -> list[Event]:
    """``hands`` 9-handed hands at level 10 (2,000/4,000, big-blind ante), all cards read."""
    rng = random.Random(seed)
    table = Table(TableRules(ante_mode=AnteMode.BIG_BLIND))
    for seat in range(1, PLAYERS + 1):
        table.seat_player(seat, f"Player {seat}", STACK)
    table.set_button(1)
    table.set_level(10)
    events: list[Event] = []
    for _ in range(hands):
        hand = table.start_hand()
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        for seat in hand.seats:
            hand.deal_hole(seat, (deck.pop(), deck.pop()))
        drive(hand, rng, deck)
        events.extend(hand.events)
        events.extend(table.finish_hand())
        for seat in range(1, PLAYERS + 1):  # keep the table 9-handed
            if seat not in table.stacks:
                table.seat_player(seat, f"Player {seat}", STACK)
    return events


def drive(hand: Hand, rng: random.Random, deck: list[Any]) -> None:
    while not hand.is_over:
        legal = hand.legal_actions()
        if legal is not None:
            roll = rng.random()
            if roll < 0.3 and not legal.can_check:
                hand.fold()
            elif roll < 0.85 or legal.min_raise_to is None or legal.max_raise_to is None:
                hand.check_or_call()
            else:
                hand.raise_to(legal.min_raise_to)
        elif hand.street is Street.SHOWDOWN:
            hand.resolve_showdown()
        else:
            hand.burn_card(deck.pop())
            hand.deal_board([deck.pop() for _ in range(3 if not hand.board else 1)])


def measure(spec: ChannelSpec, entries: list[TableEvent]) -> dict[str, list[float]]:
    """Seconds per item (apply + snapshot), grouped by equity computed or cached."""
    channel = ChannelView(spec)
    channel.offer_all(entries)
    reducer = TableViewReducer(spec)
    state = reducer.initial()
    groups: dict[str, list[float]] = {"all": [], "recompute": [], "cached": []}
    for item in channel.due(float("inf")):
        computed = reducer.equity_computations
        start = time.perf_counter()
        state = reducer.apply(state, item)
        view = reducer.snapshot(state)
        elapsed = time.perf_counter() - start
        groups["all"].append(elapsed)
        has_equity = any(seat["equity"] is not None for seat in view["seats"])
        if reducer.equity_computations > computed:
            groups["recompute"].append(elapsed)
        elif has_equity:
            groups["cached"].append(elapsed)
    return groups


def summary(times: list[float]) -> dict[str, float | int]:
    if not times:
        return {"items": 0, "p50_ms": 0.0, "p99_ms": 0.0, "max_ms": 0.0}
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return {"items": len(times), "p50_ms": round(1e3 * statistics.median(ordered), 3),
            "p99_ms": round(1e3 * p99, 3), "max_ms": round(1e3 * ordered[-1], 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_view",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=40, help="9-handed hands to play")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for the JSON file")
    args = parser.parse_args(argv)

    events = play(args.hands, args.seed)
    entries = [TableEvent.record(k + 1, 1_764_500_000.0 + k, e) for k, e in enumerate(events)]
    load_before = os.getloadavg()
    specs = (ChannelSpec("secure", ChannelFilter.FULL, requires_token=True),
             ChannelSpec("venue", ChannelFilter.PUBLIC))
    figures: dict[str, Any] = {}
    for spec in specs:
        groups = measure(spec, entries)
        figures[spec.name] = {name: summary(times) for name, times in groups.items()}
    load_after = os.getloadavg()
    print(f"{args.hands} hands, {len(entries)} log entries, {PLAYERS}-handed, all cards known")
    print(f"{'channel':<8} {'items':<10} {'n':>6} {'p50 ms':>9} {'p99 ms':>9} {'max ms':>9}")
    for channel, groups in figures.items():
        for name, row in groups.items():
            if row["items"]:
                print(f"{channel:<8} {name:<10} {row['items']:>6} {row['p50_ms']:>9.3f} "
                      f"{row['p99_ms']:>9.3f} {row['max_ms']:>9.3f}")
    print("secure 'cached': an action with no card change (equity from the cache); "
          "'recompute': a card dealt or a fold (equity computed)")
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} "
          f"on {os.cpu_count()} CPUs")
    when = datetime.now(UTC).isoformat(timespec="seconds")
    report = {"when": when, "hands": args.hands, "entries": len(entries), "players": PLAYERS,
              "seed": args.seed, "channels": figures,
              "machine": {"python": platform.python_version(), "platform": platform.platform(),
                          "cpus": os.cpu_count(), "load_before": load_before,
                          "load_after": load_after}}
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"view-{when.replace(':', '')[:17]}.json"
    path.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
