"""Byte transports to RFID readers: a serial port (pyserial-asyncio-fast) or TCP.

An endpoint is written as text in configuration:

- ``serial:/dev/ttyUSB0`` or ``serial:/dev/ttyUSB0@115200`` (default 115200 baud);
- ``tcp:192.168.1.50:7000`` (the reader listens, Feltcast connects).

>>> parse_endpoint("serial:/dev/ttyACM0@57600")
SerialEndpoint(port='/dev/ttyACM0', baudrate=57600)
>>> parse_endpoint("tcp:127.0.0.1:7000")
TcpEndpoint(host='127.0.0.1', port=7000)

Opening raises :class:`OSError` (``serial.SerialException`` is one) when the device or host
is not there; reading raises :class:`OSError` or returns ``b""`` when the connection ends.
The reader coordinator treats both as "reader offline" and reconnects.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from dataclasses import dataclass
from typing import Protocol, TypeAlias

from engine.errors import ConfigError

READ_SIZE = 4096


class ByteStream(Protocol):
    """A connected reader: bytes in both directions."""

    async def read(self) -> bytes:
        """The next chunk of bytes; ``b""`` when the peer closed the connection."""
        ...

    async def write(self, data: bytes) -> None: ...

    async def close(self) -> None: ...


class StreamPair:
    """A :class:`ByteStream` over an asyncio reader/writer pair."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer

    async def read(self) -> bytes:
        return await self._reader.read(READ_SIZE)

    async def write(self, data: bytes) -> None:
        self._writer.write(data)
        await self._writer.drain()

    async def close(self) -> None:
        self._writer.close()
        with contextlib.suppress(OSError):  # TimeoutError is an OSError
            async with asyncio.timeout(1.0):
                await self._writer.wait_closed()


@dataclass(frozen=True, slots=True)
class SerialEndpoint:
    """A reader on a serial line (USB CDC or UART), 8N1, no flow control."""

    port: str
    baudrate: int = 115200

    async def open(self) -> ByteStream:
        """:raises OSError: if the port cannot be opened (unplugged, busy, no permission)."""
        import serial_asyncio_fast  # heavy import only when a serial reader is used

        reader, writer = await serial_asyncio_fast.open_serial_connection(
            loop=asyncio.get_running_loop(), url=self.port, baudrate=self.baudrate)
        return StreamPair(reader, writer)

    def __str__(self) -> str:
        return f"serial:{self.port}@{self.baudrate}"


@dataclass(frozen=True, slots=True)
class TcpEndpoint:
    """A reader reachable over TCP (it listens; Feltcast connects)."""

    host: str
    port: int

    async def open(self) -> ByteStream:
        """:raises OSError: if the connection is refused or unreachable."""
        reader, writer = await asyncio.open_connection(self.host, self.port)
        return StreamPair(reader, writer)

    def __str__(self) -> str:
        return f"tcp:{self.host}:{self.port}"


Endpoint: TypeAlias = SerialEndpoint | TcpEndpoint

_SERIAL = re.compile(r"serial:([^@]+)(?:@(\d{3,7}))?")
_TCP = re.compile(r"tcp:([A-Za-z0-9.\-]+|\[[0-9A-Fa-f:]+\]):(\d{1,5})")


def parse_endpoint(text: str, key: str = "endpoint") -> Endpoint:
    """Parse ``serial:PORT[@BAUD]`` or ``tcp:HOST:PORT``.

    :raises ConfigError: naming ``key``, for anything else.
    """
    text = text.strip() if isinstance(text, str) else ""
    if match := _SERIAL.fullmatch(text):
        baud = int(match.group(2)) if match.group(2) else 115200
        return SerialEndpoint(match.group(1), baud)
    if (match := _TCP.fullmatch(text)) and 0 < int(match.group(2)) < 65536:
        return TcpEndpoint(match.group(1).strip("[]"), int(match.group(2)))
    raise ConfigError(key, f"{text!r} is not a reader address "
                           "(use serial:/dev/ttyUSB0[@115200] or tcp:HOST:PORT)")
