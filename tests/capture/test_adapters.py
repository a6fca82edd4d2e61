"""Readers that do not speak the native protocol: the ``uid-lines`` adapter (one tag read per
line, as home-built tables print them), alone and end to end over a real pseudo-terminal."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from capture.rfid.adapters import ROUND_S, UidLinesDecoder, UidLinesSettings
from capture.rfid.antenna_map import AntennaMap
from capture.rfid.protocol import Hello, Inventory, LineError
from capture.rfid.reader import ReaderConfig, RfidCapture
from capture.rfid.transports import SerialEndpoint
from capture.simulator import (
    DealtHand,
    DealTiming,
    UidLineReader,
    play_hand,
    simulated_deck,
    simulated_uid,
)
from engine.capture_events import (
    BoardCardRead,
    CaptureEvent,
    CaptureFault,
    CardRemoved,
    FaultKind,
    HoleCardsRead,
    ReaderOffline,
    ReaderOnline,
)
from engine.cards import Card
from engine.errors import ConfigError
from overlay.config import parse_config

from .rig import FAST, Rig

UID = "04A1B2C3D4E5F6"


def decoder(antennas: int = 13, **options: Any) -> UidLinesDecoder:
    reader = UidLinesDecoder("home", UidLinesSettings(antennas=antennas, **options))
    assert reader.poll(0.0) == [Hello("home", "uid-lines", 1, antennas)]
    return reader


def inventories(items: list[Any]) -> list[tuple[int, tuple[str, ...]]]:
    return [(i.antenna, i.uids) for i in items if isinstance(i, Inventory)]


@pytest.mark.parametrize("line", [
    "3: 04 A1 B2 C3 D4 E5 F6", "3:04a1b2c3d4e5f6", "ant 3 uid 04:A1:B2:C3:D4:E5:F6",
    "antenna 3 uid: 04-a1-b2-c3-d4-e5-f6", "3,04A1B2C3D4E5F6", "  3 = 04A1B2C3D4E5F6  ",
    "3;04A1B2C3D4E5F6", "3\t04A1B2C3D4E5F6"])
def test_the_default_pattern_reads_common_firmware_lines(line: str) -> None:
    assert inventories(decoder().feed(line.encode() + b"\r\n", 1.0)) == [(3, (UID,))]


def test_a_tag_is_present_while_read_again_within_the_hold_time() -> None:
    reader = decoder(hold_s=0.5)
    other = "E0040150A1B2C3D4"
    both = tuple(sorted((UID, other)))
    assert inventories(reader.feed(f"4: {UID}\n4: {other}\n".encode(), 1.0)) == [
        (4, (UID,)), (4, both)]
    # Rounds: every ROUND_S a snapshot of every antenna heard from, as a native reader sends.
    assert inventories(reader.poll(1.0)) == [(4, both)]
    assert reader.next_poll() == pytest.approx(1.0 + ROUND_S)
    assert reader.poll(1.0 + ROUND_S / 2) == []
    assert inventories(reader.feed(f"4: {UID}\n".encode(), 1.4)) == [(4, both), (4, both)]
    # The other tag is not read again: gone once its hold time is over.
    assert inventories(reader.poll(1.51)) == [(4, (UID,))]
    assert inventories(reader.poll(1.91)) == [(4, ())]
    assert inventories(reader.poll(2.01)) == [(4, ())]  # and the empty antenna says so


def test_an_empty_uid_says_the_antenna_is_empty_at_once() -> None:
    reader = decoder()
    reader.feed(f"7: {UID}\n".encode(), 1.0)
    assert inventories(reader.feed(b"7:\n", 1.01))[-1] == (7, ())
    assert inventories(reader.poll(5.0)) == [(7, ())]


def test_bad_lines_are_errors_that_name_the_problem_and_lose_nothing() -> None:
    reader = decoder(antennas=4)
    items = reader.feed(b"MFRC522 x4 ready\r\n9: 04A1B2C3\r\n2: 04G1B2C3\r\n2: 04A1\r\n"
                        b"\xff\xfe\r\n1: " + UID.encode() + b"\r\n", 2.0)
    errors = [str(i.error) for i in items if isinstance(i, LineError)]
    assert len(errors) == 5
    assert "pattern does not match" in errors[0]
    assert "antenna 9 does not exist (the reader has 4)" in errors[1]
    assert "pattern does not match" in errors[2]  # a G is no hex digit
    assert "is not a tag UID" in errors[3]  # 2 bytes
    assert "non-ASCII" in errors[4]
    assert inventories(items) == [(1, (UID,))]  # the good line after them still counts


def test_a_pattern_of_ones_own_firmware() -> None:
    reader = decoder(pattern=r"Reader (?P<antenna>\d+): Card UID:(?P<uid>( [0-9A-F]{2})+)")
    assert inventories(reader.feed(b"Reader 2: Card UID: 04 A1 B2 C3 D4 E5 F6\n", 0.5)) == [
        (2, (UID,))]


@pytest.mark.parametrize(("options", "key", "message"), [
    ({"pattern": r"(?P<antenna>\d+) (?P<uid>"}, "pattern", "not a regular expression"),
    ({"pattern": r"(?P<antenna>\d+) (?P<tag>\w+)"}, "pattern", "missing: uid"),
    ({"antennas": 0}, "antennas", "1 to 64"),
    ({"hold_s": 0.0}, "hold_s", "between 0.05 and 10"),
])
def test_bad_settings_name_the_key(options: dict[str, Any], key: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        UidLinesSettings(**{"antennas": 13, "where": "capture.readers[0]", **options})
    assert caught.value.key == f"capture.readers[0].{key}"


@given(st.lists(st.tuples(st.integers(1, 3), st.integers(0, 4), st.floats(0.0, 0.4)),
                max_size=60))
def test_each_snapshot_is_the_tags_read_within_the_hold_time(
        reads: list[tuple[int, int, float]]) -> None:
    # The model: an antenna holds every tag read on it within hold_s, until an expiry poll.
    hold = 0.3
    reader = decoder(antennas=3, hold_s=hold)
    tags = [simulated_uid(Card(code)) for code in ("As", "Kd", "7c", "2h", "Th")]
    last: dict[int, dict[str, float]] = {}
    now, seq = 0.0, 0
    for antenna, tag, gap in reads:
        now += gap
        for item in reader.poll(now):
            assert isinstance(item, Inventory) and item.seq == seq + 1
            seq = item.seq
            held = last[item.antenna]
            assert set(item.uids) == {u for u, t in held.items() if now - t <= hold}
        last.setdefault(antenna, {})[tags[tag]] = now
        # The round, if one was due, came out of the poll above: one snapshot, the line's.
        (item,) = reader.feed(f"{antenna}: {tags[tag]}\n".encode(), now)
        assert isinstance(item, Inventory) and item.seq == seq + 1
        seq = item.seq
        held = last[antenna]
        assert set(item.uids) == {u for u, t in held.items() if now - t <= hold}
        last[antenna] = {u: t for u, t in held.items() if now - t <= hold}


def test_the_configuration_reads_the_adapter_and_refuses_what_does_not_fit(
        tmp_path: Path) -> None:
    def config(**reader: Any) -> Any:
        return parse_config({"table": {"name": "T", "seats": 9},
                             "capture": {"readers": [{"name": "home", "transport": "serial",
                                                      "address": "/dev/ttyACM0", **reader}]},
                             "data_dir": str(tmp_path)})
    (native,) = config().rfid.readers
    assert native.uid_lines is None and native.watchdog_s == 3.0
    (home,) = config(protocol="uid-lines", hold_s=0.8,
                             antennas={"1": "seat 1", "5": "board"}).rfid.readers
    assert home.uid_lines is not None and home.watchdog_s is None
    assert (home.uid_lines.antennas, home.uid_lines.hold_s) == (5, 0.8)
    with pytest.raises(ConfigError, match="only for protocol") as caught:
        config(pattern="(?P<antenna>1)(?P<uid>)")
    assert caught.value.key == "capture.readers[0].pattern"
    with pytest.raises(ConfigError, match="not one of native, uid-lines"):
        config(protocol="feig")
    with pytest.raises(ConfigError, match="missing: antenna"):
        config(protocol="uid-lines", pattern="(?P<uid>.*)")
    (watched,) = config(protocol="uid-lines", watchdog_s=2).rfid.readers
    assert watched.watchdog_s == 2.0


async def test_a_home_built_table_over_a_real_pty(tmp_path: Path) -> None:
    """A hand dealt on a reader that prints UIDs, through the adapter, the serial transport
    and the presence tracker: the same capture events as a native reader gives."""
    sim = UidLineReader("home", scan_interval=0.05)
    path = await sim.open_pty(tmp_path / "home-reader")
    config = ReaderConfig("home", SerialEndpoint(path), watchdog_s=None,
                          backoff_initial_s=0.05, backoff_max_s=0.2, connect_timeout_s=1.0,
                          malformed_report_s=0.0,
                          uid_lines=UidLinesSettings(antennas=13, hold_s=0.25))
    events: list[CaptureEvent] = []
    capture = RfidCapture([config], AntennaMap.standard("home"), simulated_deck(),
                          events.append, presence=FAST, tick_s=0.05)
    rig = Rig(sim, capture, events)  # type: ignore[arg-type]
    hand = DealtHand.random(random.Random(5), seats=(1, 3, 6), fold_rate=0.0)
    try:
        async with capture:
            await rig.until(lambda: rig.of(ReaderOnline), what="the adapter's hello")
            sim.inject("MFRC522 self test: OK\r\n")  # firmware chatter between the reads
            await play_hand(sim, hand, timing=DealTiming(card_s=0.4, street_s=4.0,
                                                         fold_s=3.0, scale=0.1))
            await rig.until(lambda: len(rig.of(CardRemoved)) >= 6 + 5, what="table cleared")
            assert rig.faults(FaultKind.READER_SILENT) == []  # quiet when empty: no fault
            await sim.unplug()
            await rig.until(lambda: rig.of(ReaderOffline), what="offline after unplug")
            await sim.replug()
            await rig.until(lambda: len(rig.of(ReaderOnline)) == 2, what="back online")
    finally:
        await sim.close()
    assert {e.seat: set(e.cards) for e in rig.of(HoleCardsRead)} == {
        seat: set(cards) for seat, cards in hand.hole.items()}
    board = rig.of(BoardCardRead)
    assert sorted(e.position for e in board) == [1, 2, 3, 4, 5]
    assert [(e.position, e.card) for e in board if e.position > 3] == [
        (4, hand.board[3]), (5, hand.board[4])]
    # Chatter is a line the pattern does not match: counted, reported, nothing more.
    malformed = [e for e in rig.of(CaptureFault) if e.kind is FaultKind.MALFORMED_LINE]
    assert malformed and "pattern does not match" in malformed[0].detail
    assert capture.stats()[0].lost == 0
