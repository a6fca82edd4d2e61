"""``feltcast deck``: register, list, activate and retire RFID decks.

``feltcast deck register NAME --reader tcp:HOST:PORT|serial:PORT [--antenna N]`` guides the
operator through the scan: it prints one instruction per line ("Put the Ace of spades (As)
alone on the antenna …", "Take the card off the antenna.", then the verification pass) and
saves the deck once all 52 cards are registered and verified (``--activate TABLE`` makes it
the table's active deck). Problems (a card from another deck, two cards at once, a tag
registered twice, a reader offline) are printed as lines starting with ``! `` and the scan
carries on. Other subcommands: ``list``, ``activate NAME TABLE``, ``retire NAME``.

The decks live in the service's database: ``--db URL`` or the SQLite file in ``--data-dir``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from overlay.tasks import cancel_and_wait

if TYPE_CHECKING:
    from capture.rfid.decks import DeckRegistry


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", default="", metavar="URL",
                        help="database URL (sqlite:///… or postgresql://…)")
    parser.add_argument("--data-dir", default="data", type=Path, metavar="DIR",
                        help="where the default SQLite database lives (default: data)")
    actions = parser.add_subparsers(dest="deck_action", metavar="ACTION", required=True)
    register = actions.add_parser("register", help="scan a new deck card by card")
    register.add_argument("name", help="the deck's name, e.g. 'Blue 1'")
    register.add_argument("--reader", required=True, metavar="ADDRESS",
                          help="the registration reader: serial:/dev/ttyUSB0 or tcp:HOST:PORT")
    register.add_argument("--antenna", type=int, default=1, metavar="N",
                          help="the antenna to scan on (default 1)")
    register.add_argument("--reads", type=int, default=3, metavar="N",
                          help="stable reads needed per card (at least 3, the default)")
    register.add_argument("--activate", default="", metavar="TABLE",
                          help="make the new deck the active deck of TABLE")
    actions.add_parser("list", help="list the decks")
    activate = actions.add_parser("activate", help="make a deck the active deck of a table")
    activate.add_argument("name")
    activate.add_argument("table")
    retire = actions.add_parser("retire", help="take a deck out of service for good")
    retire.add_argument("name")


def run(args: argparse.Namespace) -> int:
    from capture.rfid.decks import DeckRegistry
    from overlay.store import create_db_engine, database_url

    engine = create_db_engine(database_url(args.db, args.data_dir))
    try:
        registry = DeckRegistry(engine)
        if args.deck_action == "register":
            return asyncio.run(_register(args, registry))
        if args.deck_action == "list":
            decks = registry.decks()
            for deck in decks:
                where = f" at table {deck.table}" if deck.table else ""
                print(f"{deck.name}\t{deck.status}{where}")
            if not decks:
                print("no decks registered yet")
            return 0
        if args.deck_action == "activate":
            info = registry.activate(args.name, args.table)
            print(f"deck {info.name!r} is now the active deck of table {info.table}")
            return 0
        info = registry.retire(args.name)
        print(f"deck {info.name!r} retired")
        return 0
    finally:
        engine.dispose()


def _say(text: str) -> None:
    print(text, flush=True)


async def _register(args: argparse.Namespace, registry: DeckRegistry) -> int:
    from capture.rfid.decks import DeckRegistration, Phase
    from capture.rfid.reader import ReaderConfig, ReaderCoordinator, SnapshotQueue
    from capture.rfid.transports import parse_endpoint
    from engine.capture_events import CaptureFault, ReaderOffline, ReaderOnline

    scan = DeckRegistration(args.name, taken=registry.active_uids(), stable_reads=args.reads)
    if any(deck.name == scan.name for deck in registry.decks()):
        _say(f"! a deck called {scan.name!r} already exists")
        return 2
    endpoint = parse_endpoint(args.reader, "--reader")
    feed = SnapshotQueue(args.antenna)
    coordinator = ReaderCoordinator(
        ReaderConfig("registration", endpoint, accept_any_name=True), feed)
    task = asyncio.create_task(coordinator.run())
    _say(f"Registering deck {scan.name!r} on {endpoint}, antenna {args.antenna}.")
    prompt = scan.prompt
    _say(prompt.text)
    problem = ""
    try:
        while scan.phase is not Phase.DONE:
            while not feed.events.empty():
                event = feed.events.get_nowait()
                if isinstance(event, ReaderOnline):
                    _say(f"reader {event.reader} online (firmware {event.firmware})")
                elif isinstance(event, CaptureFault):
                    _say(f"! {event.detail}")
                elif isinstance(event, ReaderOffline):
                    pass  # its fault was printed
            try:
                async with asyncio.timeout(1.0):
                    uids = await feed.snapshots.get()
            except TimeoutError:
                continue
            update = scan.observe(uids)
            if update.problem and update.problem != problem:
                _say(f"! {update.problem}")
            problem = update.problem
            if update.accepted:
                _say(f"ok {update.accepted}")
            if update.verified:
                _say(f"verified {update.verified}")
            if update.prompt != prompt:
                prompt = update.prompt
                if scan.phase is not Phase.DONE:
                    _say(prompt.text)
    finally:
        await cancel_and_wait(task)
    registry.save(scan.name, scan.cards())
    _say(scan.prompt.text)
    if args.activate:
        registry.activate(scan.name, args.activate)
        _say(f"deck {scan.name!r} is now the active deck of table {args.activate}")
    sys.stdout.flush()
    return 0
