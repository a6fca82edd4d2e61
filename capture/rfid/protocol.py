"""The Feltcast native RFID reader protocol, version 1: a pure parser and formatter.

No I/O here: bytes in, messages out. ``docs/rfid-protocol.md`` is the specification; this
module is its reference implementation. In short, a reader sends ASCII lines::

    HELLO proto=1 name=table-a fw=1.4.2 ants=13 *1C
    INV seq=15 ant=1 n=2 uid=E0040150A1B2C3D4,E0040150A1B2C3D5 *71
    INV seq=16 ant=2 n=0 uid= *5E
    HB seq=17 up=123456 *69

Each ``INV`` line is the complete set of tags on one antenna (an empty set is explicit), the
``*HH`` suffix is an optional XOR checksum, and anything that is not a valid line is rejected
with a :class:`~capture.errors.ReaderProtocolError` naming the problem, so the caller can count
and skip it.

>>> parse_line("INV seq=15 ant=1 n=1 uid=e0040150a1b2c3d4")
Inventory(seq=15, antenna=1, uids=('E0040150A1B2C3D4',))
>>> format_line(Heartbeat(seq=3, uptime_ms=1000))
'HB seq=3 up=1000 *5A'
>>> parse_line(format_line(Heartbeat(seq=3, uptime_ms=1000)))
Heartbeat(seq=3, uptime_ms=1000)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, TypeAlias

from capture.errors import ReaderProtocolError

PROTOCOL_VERSION: Final = 1
"""The major protocol version this module speaks."""

MAX_LINE: Final = 1024
"""Longest accepted line in bytes, terminator excluded."""

MAX_SEQ: Final = 2**32 - 1
MAX_ANTENNAS: Final = 64
MAX_TAGS: Final = 128
"""Most tags one antenna may report at once (a full stub reads ~45)."""

HELLO_REQUEST: Final = "HELLO?"
"""The one host-to-reader command: ask the reader to repeat its HELLO line."""

_VERB = re.compile(r"[A-Z][A-Z0-9]{1,15}\??")
_KEY = re.compile(r"[a-z][a-z0-9_]{0,15}")
_VALUE = re.compile(r"[\x21-\x7e]{0,2048}")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")
_FIRMWARE = re.compile(r"[A-Za-z0-9._+-]{1,32}")
_UID = re.compile(r"(?:[0-9A-Fa-f]{2}){4,16}")
_UINT = re.compile(r"0|[1-9][0-9]{0,18}")
_CHECKSUM = re.compile(r"\*([0-9A-Fa-f]{2})")
_TERMINATOR = re.compile(rb"[\r\n]")


@dataclass(frozen=True, slots=True)
class Hello:
    """A reader introduces itself (after power-up, reconnection or a ``HELLO?`` request)."""

    name: str
    firmware: str
    protocol: int
    antennas: int


@dataclass(frozen=True, slots=True)
class Inventory:
    """The complete set of tags on one antenna right now; ``uids`` empty means none."""

    seq: int
    antenna: int
    uids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """The reader is alive; ``uptime_ms`` since its power-up."""

    seq: int
    uptime_ms: int


@dataclass(frozen=True, slots=True)
class UnknownLine:
    """A well-formed line with a verb this version does not know (ignored, for extensions)."""

    verb: str
    text: str


Message: TypeAlias = Hello | Inventory | Heartbeat | UnknownLine


def checksum(text: str) -> str:
    """The two-hex-digit XOR of the bytes of ``text`` (what precedes `` *HH``)."""
    value = 0
    for byte in text.encode("ascii"):
        value ^= byte
    return f"{value:02X}"


def _shorten(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _uint(fields: dict[str, str], key: str, line: str, *, low: int = 0,
          high: int = MAX_SEQ) -> int:
    try:
        raw = fields[key]
    except KeyError:
        raise ReaderProtocolError(f"missing field {key}=", line) from None
    if not _UINT.fullmatch(raw) or not low <= int(raw) <= high:
        raise ReaderProtocolError(f"field {key}={raw!r} is not a number {low}-{high}", line)
    return int(raw)


def _split(line: str, require_checksum: bool) -> tuple[str, dict[str, str]]:
    body = line
    if " *" in line:
        body, _, tail = line.rpartition(" *")
        match = _CHECKSUM.fullmatch("*" + tail)
        if match is None:
            raise ReaderProtocolError(f"bad checksum suffix {'*' + tail!r}", line)
        expected = checksum(body)
        if match.group(1).upper() != expected:
            raise ReaderProtocolError(
                f"checksum mismatch (line says {match.group(1)}, content gives {expected})", line)
    elif require_checksum:
        raise ReaderProtocolError("checksum missing", line)
    words = body.split(" ")
    verb = words[0]
    if not _VERB.fullmatch(verb):
        raise ReaderProtocolError(f"{_shorten(verb, 20)!r} is not a line type", line)
    fields: dict[str, str] = {}
    for word in words[1:]:
        key, eq, value = word.partition("=")
        if not eq or not _KEY.fullmatch(key) or not _VALUE.fullmatch(value):
            raise ReaderProtocolError(f"{_shorten(word, 20)!r} is not a key=value field", line)
        if key in fields:
            raise ReaderProtocolError(f"field {key}= given twice", line)
        fields[key] = value
    return verb, fields


def parse_line(raw: str | bytes, *, require_checksum: bool = False) -> Message:
    """Parse one line (terminator optional; a trailing CR is ignored).

    :raises ReaderProtocolError: naming what is wrong, for any line that is not valid
        protocol: non-ASCII or control bytes, bad or missing fields, a checksum mismatch,
        ``n=`` disagreeing with the UID list, a UID listed twice, or an over-long line.
    """
    if isinstance(raw, bytes):
        if len(raw.rstrip(b"\r\n")) > MAX_LINE:
            raise ReaderProtocolError(f"line longer than {MAX_LINE} bytes", "")
        try:
            text = raw.decode("ascii")
        except UnicodeDecodeError:
            raise ReaderProtocolError("line contains non-ASCII bytes",
                                      _shorten(raw.decode("ascii", "replace"))) from None
    else:
        text = raw
    line = text.rstrip("\r\n")
    if len(line) > MAX_LINE:
        raise ReaderProtocolError(f"line longer than {MAX_LINE} bytes", _shorten(line))
    if not line.isascii() or not line.isprintable():
        raise ReaderProtocolError("line contains control or non-ASCII characters",
                                  _shorten(line.encode("ascii", "backslashreplace").decode()))
    verb, fields = _split(line, require_checksum)
    short = _shorten(line)
    if verb == "INV":
        seq = _uint(fields, "seq", short)
        antenna = _uint(fields, "ant", short, low=1, high=MAX_ANTENNAS)
        count = _uint(fields, "n", short, high=MAX_TAGS)
        listed = fields.get("uid", "")
        if "uid" not in fields and count:
            raise ReaderProtocolError("missing field uid=", short)
        uids = tuple(uid.upper() for uid in listed.split(",")) if listed else ()
        for uid in uids:
            if not _UID.fullmatch(uid):
                raise ReaderProtocolError(
                    f"{_shorten(uid, 40)!r} is not a tag UID (8-32 hex digits)", short)
        if len(uids) != count:
            raise ReaderProtocolError(f"n={count} but {len(uids)} UIDs listed", short)
        if len(set(uids)) != len(uids):
            raise ReaderProtocolError("a UID is listed twice", short)
        return Inventory(seq, antenna, uids)
    if verb == "HB":
        return Heartbeat(_uint(fields, "seq", short), _uint(fields, "up", short, high=2**63 - 1))
    if verb == "HELLO":
        protocol = _uint(fields, "proto", short, low=1, high=999)
        name = fields.get("name", "")
        if not _NAME.fullmatch(name):
            raise ReaderProtocolError(f"reader name {name!r} is not valid", short)
        firmware = fields.get("fw", "")
        if not _FIRMWARE.fullmatch(firmware):
            raise ReaderProtocolError(f"firmware {firmware!r} is not valid", short)
        antennas = _uint(fields, "ants", short, low=1, high=MAX_ANTENNAS)
        return Hello(name, firmware, protocol, antennas)
    return UnknownLine(verb, short)


def format_line(message: Message, *, with_checksum: bool = True) -> str:
    """The protocol line for ``message``, without the line terminator.

    :raises ReaderProtocolError: if ``message`` could not be parsed back (e.g. a bad UID).
    """
    if isinstance(message, Inventory):
        body = (f"INV seq={message.seq} ant={message.antenna} n={len(message.uids)} "
                f"uid={','.join(message.uids)}")
    elif isinstance(message, Heartbeat):
        body = f"HB seq={message.seq} up={message.uptime_ms}"
    elif isinstance(message, Hello):
        body = (f"HELLO proto={message.protocol} name={message.name} fw={message.firmware} "
                f"ants={message.antennas}")
    else:
        body = message.text
    line = f"{body} *{checksum(body)}" if with_checksum else body
    parsed = parse_line(line)
    if parsed != message and not isinstance(message, UnknownLine):
        raise ReaderProtocolError(f"cannot be written as a protocol line: {message!r}", line)
    return line


@dataclass(frozen=True, slots=True)
class LineError:
    """A rejected line: the error and the raw bytes (shortened)."""

    error: ReaderProtocolError


class LineSplitter:
    """Splits a byte stream into raw lines, for any line-based reader protocol.

    LF, CRLF and a lone CR all end a line; blank lines are dropped. A line longer than
    :data:`MAX_LINE` is discarded up to its terminator and reported once, as an error.

    >>> LineSplitter().feed(b"one\\r\\n\\ntwo\\rthr")
    [b'one', b'two']
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._discarding = False

    def feed(self, data: bytes) -> list[bytes | ReaderProtocolError]:
        out: list[bytes | ReaderProtocolError] = []
        self._buffer += data
        while True:
            found = _TERMINATOR.search(self._buffer)
            if found is None:
                if len(self._buffer) > MAX_LINE:
                    if not self._discarding:
                        out.append(ReaderProtocolError(f"line longer than {MAX_LINE} bytes", ""))
                    self._discarding = True
                    self._buffer.clear()
                return out
            end = found.start()
            raw = bytes(self._buffer[:end])
            del self._buffer[:end + 1]
            if self._discarding:
                self._discarding = False
                continue
            if raw.strip(b" \t"):
                out.append(raw)


class LineDecoder:
    """Splits a byte stream into lines and parses them; tolerant of noise.

    Lines as :class:`LineSplitter` cuts them. Nothing here raises: every bad line comes out as
    a :class:`LineError`.

    >>> decoder = LineDecoder()
    >>> decoder.feed(b"\\x00\\xffgarbage\\r\\nHB seq=1 up=5\\r\\nINV se")
    [LineError(error=ReaderProtocolError('line contains non-ASCII bytes')), \
Heartbeat(seq=1, uptime_ms=5)]
    >>> decoder.feed(b"q=2 ant=1 n=0 uid=\\n")
    [Inventory(seq=2, antenna=1, uids=())]
    """

    def __init__(self, *, require_checksum: bool = False) -> None:
        self.require_checksum = require_checksum
        self._splitter = LineSplitter()
        self.lines = 0
        """Lines seen (valid or not)."""
        self.errors = 0
        """Lines rejected."""

    def feed(self, data: bytes) -> list[Message | LineError]:
        out: list[Message | LineError] = []
        for raw in self._splitter.feed(data):
            self.lines += 1
            try:
                if isinstance(raw, ReaderProtocolError):
                    raise raw
                out.append(parse_line(raw, require_checksum=self.require_checksum))
            except ReaderProtocolError as error:
                self.errors += 1
                out.append(LineError(error))
        return out
