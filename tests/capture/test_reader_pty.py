"""End to end over a real pseudo-terminal: simulated reader -> serial transport -> capture
events, with a dealt hand and every reader fault of issue 6."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import Callable
from pathlib import Path

from capture.simulator import (
    BOARD_ANTENNA,
    BURN_ANTENNA,
    DealtHand,
    DealTiming,
    deal_forever,
    play_hand,
    simulated_deck,
    simulated_uid,
)
from engine.capture_events import (
    BOARD,
    BoardCardRead,
    BurnSeen,
    CaptureEvent,
    CardMucked,
    CardRemoved,
    FaultKind,
    HoleCardsRead,
    ReaderOffline,
    ReaderOnline,
    Zone,
)
from engine.cards import Card

from .rig import rig

TIMING = DealTiming(card_s=0.4, street_s=4.0, fold_s=3.0, scale=0.1)


def uid(code: str, deck: int = 1) -> str:
    return simulated_uid(Card(code), deck)


async def test_a_dealt_hand_arrives_as_capture_events(tmp_path: Path) -> None:
    hand = DealtHand.random(random.Random(3), seats=(2, 4, 5, 7), fold_rate=0.5)
    assert hand.folds, "the seed is chosen so that somebody folds"
    async with rig(tmp_path) as r:
        await r.until(lambda: r.of(ReaderOnline), what="the reader's HELLO")
        await play_hand(r.sim, hand, timing=TIMING)
        await r.until(lambda: len(r.of(CardRemoved)) >= 8 + 5, what="the table cleared")
    hands = {e.seat: set(e.cards) for e in r.of(HoleCardsRead)}
    assert hands == {seat: set(cards) for seat, cards in hand.hole.items()}
    board = r.of(BoardCardRead)  # the order within the flop is free; turn and river are not
    assert sorted(e.position for e in board) == [1, 2, 3, 4, 5]
    assert {e.card for e in board if e.position <= 3} == set(hand.board[:3])
    assert [(e.position, e.card) for e in board if e.position > 3] == [
        (4, hand.board[3]), (5, hand.board[4])]
    mucked = {e.card for e in r.of(CardMucked)}
    assert mucked == {card for seat in hand.folds for card in hand.hole[seat]}  # R20
    assert [e.count for e in r.of(BurnSeen)] == [1, 2, 3, 0]
    # R19: no burn card, and no burn UID, anywhere in what capture put out.
    text = json.dumps([e.to_dict() for e in r.events])
    for card in hand.burns:
        assert uid(card.code) not in text
        assert f'"{card.code}"' not in text
    assert r.faults(FaultKind.MALFORMED_LINE) == []
    assert r.capture.stats()[0].lost == 0


async def test_unplugged_reader_freezes_its_zones_and_comes_back(tmp_path: Path) -> None:
    async with rig(tmp_path) as r:
        r.sim.place(3, uid("Ah"), uid("Kd"))
        r.sim.place(BOARD_ANTENNA, uid("2c"), uid("3c"), uid("4c"))
        await r.until(lambda: r.of(HoleCardsRead) and len(r.of(BoardCardRead)) == 3)
        await r.sim.unplug()
        await r.until(lambda: r.of(ReaderOffline), what="offline")
        assert next(f.detail for f in r.faults(FaultKind.READER_OFFLINE)).endswith("frozen")
        r.sim.clear(BOARD_ANTENNA)  # the dealer clears the board while the cable is out
        during = await r.quiet(1.0)  # > release_s: still nothing may leave
        assert not [e for e in during if isinstance(e, CardRemoved)]
        assert r.capture.tracker.cards_in(Zone.at_seat(3)) == {Card("Ah"), Card("Kd")}
        assert len(r.faults(FaultKind.READER_OFFLINE)) == 1  # retries are not re-reported
        await r.sim.replug()
        await r.until(lambda: len(r.of(ReaderOnline)) == 2, what="back online")
        await r.until(lambda: len(r.of(CardRemoved)) == 3, what="the board confirmed empty")
        assert {e.zone for e in r.of(CardRemoved)} == {BOARD}
        assert r.capture.tracker.cards_in(Zone.at_seat(3)) == {Card("Ah"), Card("Kd")}
        assert len(r.of(HoleCardsRead)) == 1  # the seat was not re-reported
        assert r.capture.stats()[0].connects >= 2


async def test_a_silent_reader_trips_the_watchdog(tmp_path: Path) -> None:
    async with rig(tmp_path) as r:
        r.sim.place(6, uid("9s"), uid("9h"))
        await r.until(lambda: r.of(HoleCardsRead))
        r.sim.silent = True
        await r.until(lambda: r.faults(FaultKind.READER_SILENT), what="the watchdog")
        assert next(e.reason for e in r.of(ReaderOffline)).startswith("silent")
        r.sim.clear()
        assert not [e for e in await r.quiet(0.8) if isinstance(e, CardRemoved)]
        r.sim.silent = False
        await r.until(lambda: len(r.of(ReaderOnline)) == 2, what="back online")
        await r.until(lambda: len(r.of(CardRemoved)) == 2)


async def test_malformed_lines_are_counted_and_skipped(tmp_path: Path) -> None:
    async with rig(tmp_path) as r:
        await r.until(lambda: r.of(ReaderOnline))
        r.sim.inject(b"\x00\xff\xfe garbage \x07\r\n")
        r.sim.inject("INV seq=1 ant=1 n=3 uid=E004\r\n")
        r.sim.inject("INV seq=9 ant=1 n=0 uid= *00\n")  # checksum mismatch
        r.sim.place(1, uid("Qs"), uid("Jd"))
        await r.until(lambda: len(r.faults(FaultKind.MALFORMED_LINE)) == 3)
        await r.until(lambda: r.of(HoleCardsRead), what="good lines still used")
        assert [f.count for f in r.faults(FaultKind.MALFORMED_LINE)] == [1, 2, 3]
        assert r.capture.stats()[0].malformed == 3


async def test_lost_lines_are_reported(tmp_path: Path) -> None:
    async with rig(tmp_path) as r:
        await r.until(lambda: r.of(ReaderOnline))
        await r.quiet(0.2)
        r.sim.seq_skip = 4
        await r.until(lambda: r.faults(FaultKind.LINES_LOST))
        assert r.faults(FaultKind.LINES_LOST)[0].count == 4


async def test_table_faults_arrive_over_the_wire(tmp_path: Path) -> None:
    cards = simulated_deck(1) | simulated_deck(2)
    async with rig(tmp_path, cards=cards, occupied={1, 2, 3, 4}) as r:
        r.sim.place(BOARD_ANTENNA, uid("Ah"))
        await r.until(lambda: r.of(BoardCardRead))
        r.sim.place(1, "DEADBEEFCAFE0001")                        # unknown UID
        r.sim.place(2, uid("Ah", deck=2), uid("Kc"))               # the same card twice
        r.sim.place(3, uid("2d"), uid("3d"), uid("4d"))            # a third card at a seat
        r.sim.place(9, uid("5d"))                                  # a card at an empty seat
        r.sim.place(4, uid("6d"))
        r.sim.place(BURN_ANTENNA, uid("6d"))                       # crosstalk with the burn
        await r.until(lambda: all(r.faults(kind) for kind in (
            FaultKind.UNKNOWN_UID, FaultKind.DUPLICATE_CARD, FaultKind.TOO_MANY_CARDS,
            FaultKind.CARD_AT_EMPTY_SEAT, FaultKind.CROSSTALK)), what="all five faults")
        await r.quiet(0.3)
    assert r.of(HoleCardsRead) == []
    assert [e.card for e in r.of(BoardCardRead)] == [Card("Ah")]
    assert all(f.misdeal for kind in (FaultKind.DUPLICATE_CARD, FaultKind.TOO_MANY_CARDS,
                                      FaultKind.CARD_AT_EMPTY_SEAT) for f in r.faults(kind))
    cross = r.faults(FaultKind.CROSSTALK)
    assert cross[0].cards == () and cross[0].uid == ""  # R19: it involves the burn antenna
    for kind in FaultKind:
        assert len(r.faults(kind)) <= 1, f"{kind} reported more than once"


async def test_a_failing_sink_does_not_stop_capture(tmp_path: Path) -> None:
    def wrapper(inner: Callable[[CaptureEvent], None]) -> Callable[[CaptureEvent], None]:
        def sink(event: CaptureEvent) -> None:
            inner(event)
            raise RuntimeError("the consumer has a bug")
        return sink

    async with rig(tmp_path, sink_wrapper=wrapper) as r:
        r.sim.place(8, uid("Tc"), uid("Td"))
        await r.until(lambda: r.of(HoleCardsRead))
        r.sim.place(BOARD_ANTENNA, uid("Ts"))
        await r.until(lambda: r.of(BoardCardRead))


async def test_a_reader_with_another_protocol_or_name_is_refused(tmp_path: Path) -> None:
    async with rig(tmp_path, protocol=2) as r:
        r.sim.place(1, uid("Ac"), uid("Ad"))
        await r.until(lambda: r.faults(FaultKind.PROTOCOL_MISMATCH))
        assert not [e for e in await r.quiet(0.4) if isinstance(e, HoleCardsRead)]
        assert r.of(ReaderOnline) == []
        r.sim.protocol = 1  # reflashed and rebooted on the same (UART) line
        r.sim.send_hello()
        await r.until(lambda: r.of(HoleCardsRead), what="the reader accepted after all")
        assert len(r.of(ReaderOnline)) == 1
    async with rig(tmp_path, reader_name="table-b") as r:
        r.sim.place(1, uid("Ac"), uid("Ad"))
        await r.until(lambda: r.faults(FaultKind.WRONG_READER))
        assert "table-b" in r.faults(FaultKind.WRONG_READER)[0].detail
        assert not [e for e in await r.quiet(0.4) if isinstance(e, HoleCardsRead)]


async def test_the_dealer_deals_hand_after_hand(tmp_path: Path) -> None:
    hands: list[DealtHand] = []
    seats = [1, 5, 9]
    async with rig(tmp_path) as r:
        dealer = asyncio.create_task(deal_forever(
            r.sim, lambda: seats, random.Random(1), DealTiming(scale=0.05),
            on_hand=hands.append, fold_rate=0.0))
        try:
            await r.until(lambda: len(hands) == 2 and len(r.of(HoleCardsRead)) == 6,
                          timeout=10, what="two hands dealt and read")
        finally:
            dealer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await dealer
    read = [(e.seat, frozenset(e.cards)) for e in r.of(HoleCardsRead)]
    for number, hand in enumerate(hands):  # hand by hand; seats of one hand in any order
        assert set(read[3 * number:3 * number + 3]) == {
            (seat, frozenset(hand.hole[seat])) for seat in seats}
    assert hands[0] != hands[1]
