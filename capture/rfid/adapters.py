"""Decoders: what a reader's bytes mean, for the native protocol and for readers that speak
another one.

A :class:`ReaderCoordinator <capture.rfid.reader.ReaderCoordinator>` owns a reader's
connection and hands every chunk of bytes to a :class:`Decoder`, which turns it into the
native protocol's messages (``docs/rfid-protocol.md``): a ``HELLO``, one complete
``INV`` snapshot per antenna, heartbeats, and a :class:`LineError` for every line it cannot
use. Everything after the decoder (sequence checks, presence tracking, faults) is the same for
every kind of reader. A decoder is pure: bytes and times in, messages out.

* :class:`NativeDecoder`: readers with Feltcast's own firmware.
* :class:`UidLinesDecoder` (``protocol = "uid-lines"``): readers that print one tag read per
  line, as the firmware of home-built tables usually does (an Arduino or ESP32 polling
  MFRC522 or PN532 modules, one per antenna, and printing ``3: 04 A1 B2 C3 D4 E5 F6``). A
  regular expression with the named groups ``antenna`` and ``uid`` says where each is in
  the line. Such a reader never says which tags are gone, so a tag counts as present while
  it is read again within ``hold_s``; a line whose ``uid`` group is empty says the antenna is
  empty at once. Each line gives its antenna's snapshot at once, and every
  :data:`ROUND_S` every antenna heard from gets one, as a native reader's inventory rounds
  do (the presence tracker needs to see an absence a few times before a card is gone).

>>> decoder = UidLinesDecoder("home", UidLinesSettings(antennas=4, hold_s=0.5))
>>> decoder.poll(0.0)
[Hello(name='home', firmware='uid-lines', protocol=1, antennas=4)]
>>> decoder.feed(b"3: 04 a1 b2 c3 d4 e5 f6\\n", 0.1)
[Inventory(seq=1, antenna=3, uids=('04A1B2C3D4E5F6',))]
>>> decoder.poll(0.7)
[Inventory(seq=2, antenna=3, uids=())]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final, Protocol

from capture.errors import ReaderProtocolError
from engine.errors import ConfigError

from .protocol import (
    MAX_ANTENNAS,
    MAX_TAGS,
    PROTOCOL_VERSION,
    Hello,
    Inventory,
    LineDecoder,
    LineError,
    LineSplitter,
    Message,
)

__all__ = ["DEFAULT_UID_PATTERN", "ROUND_S", "Decoder", "NativeDecoder", "UidLinesDecoder",
           "UidLinesSettings"]

DEFAULT_UID_PATTERN: Final = (r"\s*(?:ant(?:enna)?\s*)?(?P<antenna>\d{1,2})\s*[:=,;\t ]\s*"
                              r"(?:uid\s*[:=]?\s*)?(?P<uid>(?:[0-9A-Fa-f]{2}[ :-]?)*)\s*")
"""Lines like ``3: 04 A1 B2 C3 D4 E5 F6``, ``ant 3 uid 04:A1:B2:C3``, ``3,04A1B2C3D4E5F6``
or ``3:`` (antenna 3 is empty)."""

ROUND_S: Final = 0.1
"""Seconds between the snapshot rounds a ``uid-lines`` decoder makes up."""

_SEPARATORS = re.compile(r"[\s:-]")
_HEX_UID = re.compile(r"(?:[0-9A-F]{2}){4,16}")


class Decoder(Protocol):
    """Bytes from one connection in, native messages out (one decoder per connection)."""

    greets: bool
    """True when the reader answers ``HELLO?`` (the native protocol); an adapter makes up
    the reader's hello itself and the host sends it nothing."""

    def feed(self, data: bytes, now: float) -> list[Message | LineError]:
        """The messages in ``data``, received at ``now``."""

    def poll(self, now: float) -> list[Message]:
        """What time alone produces by ``now`` (e.g. a tag no longer read)."""

    def next_poll(self) -> float | None:
        """When :meth:`poll` has something to say next, if ever."""


class NativeDecoder:
    """The native protocol (:class:`capture.rfid.protocol.LineDecoder`)."""

    greets = True

    def __init__(self, *, require_checksum: bool = False) -> None:
        self.lines = LineDecoder(require_checksum=require_checksum)

    def feed(self, data: bytes, now: float) -> list[Message | LineError]:
        return self.lines.feed(data)

    def poll(self, now: float) -> list[Message]:
        return []

    def next_poll(self) -> float | None:
        return None


@dataclass(frozen=True, slots=True)
class UidLinesSettings:
    """How to read a reader that prints one tag read per line (``protocol = "uid-lines"``).

    :raises ConfigError: naming the key, for a pattern that does not compile or lacks a
        group, or numbers out of range.
    """

    antennas: int
    """How many antennas the reader has (numbered from 1)."""
    pattern: str = DEFAULT_UID_PATTERN
    """A regular expression a whole line must match, with the named groups ``antenna`` (its
    number) and ``uid`` (hex digits, with or without spaces, colons or dashes between the
    bytes; empty: nothing on that antenna)."""
    hold_s: float = 0.5
    """A tag is present while it is read again within this many seconds (the firmware
    polls each antenna several times a second); then it is gone."""
    firmware: str = "uid-lines"
    where: str = "capture.readers"
    """The configuration key this came from (for error messages)."""
    compiled: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not 1 <= self.antennas <= MAX_ANTENNAS:
            raise ConfigError(f"{self.where}.antennas",
                              f"a reader has 1 to {MAX_ANTENNAS} antennas")
        if not 0.05 <= self.hold_s <= 10:
            raise ConfigError(f"{self.where}.hold_s", "between 0.05 and 10 seconds")
        try:
            compiled = re.compile(self.pattern)
        except re.error as error:
            raise ConfigError(f"{self.where}.pattern",
                              f"not a regular expression: {error}") from None
        missing = {"antenna", "uid"} - set(compiled.groupindex)
        if missing:
            raise ConfigError(f"{self.where}.pattern", "needs the named groups (?P<antenna>…) "
                              f"and (?P<uid>…); missing: {', '.join(sorted(missing))}")
        object.__setattr__(self, "compiled", compiled)


class UidLinesDecoder:
    """A reader printing one tag read per line (see the module docstring)."""

    greets = False

    def __init__(self, name: str, settings: UidLinesSettings) -> None:
        self.name = name
        self.settings = settings
        self._lines = LineSplitter()
        self._seen: dict[int, dict[str, float]] = {}
        """Per antenna: each present tag's last read."""
        self._seq = 0
        self._greeted = False
        self._next_round = 0.0

    def feed(self, data: bytes, now: float) -> list[Message | LineError]:
        out: list[Message | LineError] = [*self.poll(now)]
        for raw in self._lines.feed(data):
            try:
                if isinstance(raw, ReaderProtocolError):
                    raise raw
                out.append(self._read(raw, now))
            except ReaderProtocolError as error:
                out.append(LineError(error))
        return out

    def poll(self, now: float) -> list[Message]:
        out: list[Message] = []
        if not self._greeted:
            self._greeted = True
            out.append(Hello(self.name, self.settings.firmware, PROTOCOL_VERSION,
                             self.settings.antennas))
        if self._seen and now >= self._next_round:
            self._next_round = now + ROUND_S
            for antenna, seen in sorted(self._seen.items()):
                self._forget(seen, now)
                out.append(self._snapshot(antenna))
        return out

    def next_poll(self) -> float | None:
        return self._next_round if self._seen else None

    def _read(self, raw: bytes, now: float) -> Inventory:
        try:
            line = raw.decode("ascii").rstrip("\r\n")
        except UnicodeDecodeError:
            raise ReaderProtocolError("line contains non-ASCII bytes",
                                      raw.decode("ascii", "replace")[:80]) from None
        match = self.settings.compiled.fullmatch(line)
        if match is None:
            raise ReaderProtocolError("not a tag read (the reader's pattern does not match)",
                                      line[:80])
        antenna = int(match["antenna"])
        if not 1 <= antenna <= self.settings.antennas:
            raise ReaderProtocolError(f"antenna {antenna} does not exist (the reader has "
                                      f"{self.settings.antennas})", line[:80])
        uid = _SEPARATORS.sub("", match["uid"] or "").upper()
        seen = self._seen.setdefault(antenna, {})
        if not uid:
            seen.clear()  # the firmware says the antenna is empty
        elif _HEX_UID.fullmatch(uid) is None:
            raise ReaderProtocolError(f"{uid[:40]!r} is not a tag UID (4 to 16 bytes in hex)",
                                      line[:80])
        else:
            if uid not in seen and len(seen) >= MAX_TAGS:
                raise ReaderProtocolError(f"more than {MAX_TAGS} tags on antenna {antenna}",
                                          line[:80])
            seen[uid] = now
            self._forget(seen, now)
        return self._snapshot(antenna)

    def _forget(self, seen: dict[str, float], now: float) -> None:
        for uid in [u for u, last in seen.items() if now - last > self.settings.hold_s]:
            del seen[uid]

    def _snapshot(self, antenna: int) -> Inventory:
        self._seq = (self._seq + 1) % 2**32
        return Inventory(self._seq, antenna, tuple(sorted(self._seen.get(antenna, {}))))
