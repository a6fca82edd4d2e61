"""The native reader protocol (docs/rfid-protocol.md): parser, formatter, line decoder."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from capture.errors import ReaderProtocolError
from capture.rfid.protocol import (
    MAX_LINE,
    Heartbeat,
    Hello,
    Inventory,
    LineDecoder,
    LineError,
    Message,
    UnknownLine,
    checksum,
    format_line,
    parse_line,
)

uids = st.binary(min_size=4, max_size=16).map(lambda b: b.hex().upper())
inventories = st.builds(
    Inventory,
    seq=st.integers(0, 2**32 - 1),
    antenna=st.integers(1, 64),
    uids=st.lists(uids, max_size=40, unique=True).map(tuple),
)
heartbeats = st.builds(Heartbeat, seq=st.integers(0, 2**32 - 1),
                       uptime_ms=st.integers(0, 2**40))
names = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}", fullmatch=True)
hellos = st.builds(Hello, name=names,
                   firmware=st.from_regex(r"[A-Za-z0-9._+-]{1,32}", fullmatch=True),
                   protocol=st.integers(1, 999), antennas=st.integers(1, 64))
messages = st.one_of(inventories, heartbeats, hellos)


def test_the_examples_of_the_specification_parse() -> None:
    assert parse_line("HELLO proto=1 name=table-a fw=1.4.2 ants=13 *1C") == Hello(
        "table-a", "1.4.2", 1, 13)
    assert parse_line("INV seq=15 ant=1 n=2 uid=E0040150A1B2C3D4,E0040150A1B2C3D5 *71") == (
        Inventory(15, 1, ("E0040150A1B2C3D4", "E0040150A1B2C3D5")))
    assert parse_line("INV seq=16 ant=2 n=0 uid= *5E") == Inventory(16, 2, ())
    assert parse_line("HB seq=17 up=123456 *69") == Heartbeat(17, 123456)


def test_an_empty_snapshot_may_leave_out_the_uid_field() -> None:
    assert parse_line("INV seq=1 ant=3 n=0") == Inventory(1, 3, ())


@given(messages, st.booleans(), st.sampled_from(["", "\n", "\r\n", "\r"]))
def test_every_message_round_trips(message: Message, with_checksum: bool, end: str) -> None:
    line = format_line(message, with_checksum=with_checksum)
    assert parse_line(line + end) == message
    assert parse_line((line + end).encode()) == message


@given(inventories, st.data())
def test_any_single_byte_change_is_caught_by_the_checksum(message: Inventory,
                                                          data: st.DataObject) -> None:
    line = bytearray(format_line(message).encode())
    index = data.draw(st.integers(0, len(line) - 1))
    replacement = data.draw(st.integers(0x20, 0x7E).filter(lambda b: b != line[index]))
    line[index] = replacement
    try:
        parsed = parse_line(bytes(line))
    except ReaderProtocolError:
        return
    # A change that still parses must be harmless: only the checksum separator ' *'
    # turning into something else makes the suffix part of the content, which then fails
    # field validation, so a successful parse can only be the original message.
    assert parsed == message


@given(st.binary(max_size=300))
def test_random_bytes_never_crash_and_are_counted(noise: bytes) -> None:
    decoder = LineDecoder()
    out = decoder.feed(noise + b"\n")
    for item in out:
        assert isinstance(item, LineError | Inventory | Heartbeat | Hello | UnknownLine)
    assert decoder.errors == sum(isinstance(item, LineError) for item in out)


@given(st.lists(st.one_of(messages.map(lambda m: ("ok", m)),
                          st.binary(min_size=1, max_size=80).map(lambda b: ("noise", b))),
                max_size=30),
       st.lists(st.integers(1, 50), min_size=1, max_size=10))
def test_the_decoder_recovers_every_good_line_whatever_the_noise_and_chunking(
        items: list[tuple[str, object]], cuts: list[int]) -> None:
    stream = bytearray()
    expected: list[Message] = []
    for tag, item in items:
        if tag == "ok":
            assert isinstance(item, Inventory | Heartbeat | Hello)
            stream += format_line(item).encode() + b"\r\n"
            expected.append(item)
        else:
            assert isinstance(item, bytes)
            # Noise is always followed by a line end, as on a real line.
            stream += item.replace(b"\n", b"").replace(b"\r", b"") + b"\n"
    decoder = LineDecoder(require_checksum=True)
    out: list[Message | LineError] = []
    pos, i = 0, 0
    while pos < len(stream):
        step = cuts[i % len(cuts)]
        out += decoder.feed(bytes(stream[pos:pos + step]))
        pos, i = pos + step, i + 1
    good = [item for item in out if not isinstance(item, LineError)]
    assert good == expected


def test_crlf_cr_and_lf_all_end_lines_and_blank_lines_are_skipped() -> None:
    decoder = LineDecoder()
    out = decoder.feed(b"HB seq=1 up=1\r\n\r\n\nHB seq=2 up=2\rHB seq=3 up=3\n  \n")
    assert out == [Heartbeat(1, 1), Heartbeat(2, 2), Heartbeat(3, 3)]
    assert decoder.errors == 0


def test_an_overlong_line_is_dropped_once_up_to_its_end() -> None:
    decoder = LineDecoder()
    out = decoder.feed(b"INV " + b"x" * (MAX_LINE + 10))
    out += decoder.feed(b"y" * 3000)
    out += decoder.feed(b"zz\nHB seq=4 up=9\n")
    assert [type(item) for item in out] == [LineError, Heartbeat]
    assert decoder.errors == 1


@pytest.mark.parametrize(("line", "problem"), [
    ("INV seq=1 ant=1 n=2 uid=E0040150A1B2C3D4", "n=2 but 1 UIDs"),
    ("INV seq=1 ant=1 n=1 uid=E0040150A1B2C3D4,E0040150A1B2C3D5", "n=1 but 2"),
    ("INV seq=1 ant=1 n=2 uid=E0040150A1B2C3D4,E0040150A1B2C3D4", "listed twice"),
    ("INV seq=1 ant=1 n=1 uid=E00401", "not a tag UID"),
    ("INV seq=1 ant=1 n=1 uid=G0040150A1B2C3D4", "not a tag UID"),
    ("INV seq=1 ant=0 n=0 uid=", "ant="),
    ("INV seq=1 ant=65 n=0 uid=", "ant="),
    ("INV seq=-1 ant=1 n=0 uid=", "seq="),
    ("INV seq=01 ant=1 n=0 uid=", "seq="),
    ("INV seq=4294967296 ant=1 n=0 uid=", "seq="),
    ("INV ant=1 n=0 uid=", "missing field seq="),
    ("INV seq=1 ant=1 n=1", "missing field uid="),
    ("INV seq=1 seq=2 ant=1 n=0 uid=", "given twice"),
    ("INV seq=1  ant=1 n=0 uid=", "key=value"),
    ("INV seq=1 ant=1 n=0 uid= *00", "checksum mismatch"),
    ("INV seq=1 ant=1 n=0 uid= *XY", "checksum suffix"),
    ("HB seq=1 up=1 *", "checksum suffix"),
    ("inv seq=1 ant=1 n=0 uid=", "not a line type"),
    ("HELLO proto=1 name=-bad fw=1 ants=4", "reader name"),
    ("HELLO proto=1 name=a fw= ants=4", "firmware"),
    ("HELLO proto=0 name=a fw=1 ants=4", "proto="),
    ("HB seq=1 up=1\x00", "control"),
    ("HB seq=1 up=1 ü", "non-ASCII"),
])
def test_invalid_lines_are_rejected_with_a_reason(line: str, problem: str) -> None:
    with pytest.raises(ReaderProtocolError, match=problem):
        parse_line(line)


def test_a_required_checksum_must_be_present() -> None:
    with pytest.raises(ReaderProtocolError, match="checksum missing"):
        parse_line("HB seq=1 up=1", require_checksum=True)
    body = "HB seq=1 up=1"
    assert parse_line(f"{body} *{checksum(body).lower()}", require_checksum=True) == (
        Heartbeat(1, 1))


def test_unknown_verbs_and_unknown_keys_are_tolerated_for_extensions() -> None:
    assert parse_line("TEMP c=41") == UnknownLine("TEMP", "TEMP c=41")
    assert parse_line("HB seq=5 up=9 temp=41") == Heartbeat(5, 9)


def test_lowercase_uids_are_normalised() -> None:
    assert parse_line("INV seq=1 ant=1 n=1 uid=e004aabbccddeeff").uids == (  # type: ignore[union-attr]
        "E004AABBCCDDEEFF",)


def test_formatting_refuses_what_cannot_be_parsed_back() -> None:
    with pytest.raises(ReaderProtocolError):
        format_line(Inventory(1, 1, ("not-a-uid",)))


def test_every_example_line_in_the_specification_is_valid() -> None:
    spec = (Path(__file__).resolve().parents[2] / "docs" / "rfid-protocol.md").read_text()
    examples = re.findall(r"((?:HELLO|INV|HB) [^\"`\n]*\*[0-9A-F]{2})", spec)
    assert len(examples) >= 6
    for line in examples:
        parse_line(line, require_checksum=True)
