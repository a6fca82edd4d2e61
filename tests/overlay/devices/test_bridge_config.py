"""``[[capture.readers]]`` as the service reads them: transports, antenna maps, and a TCP
reader end to end."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestServer

from capture.rfid.transports import SerialEndpoint, TcpEndpoint
from capture.simulator import SimulatedReader
from engine.capture_events import Zone
from engine.errors import ConfigError
from overlay.app import create_app
from overlay.config import RfidSetup, parse_config
from overlay.keys import CAPTURE_KEY, TABLE_KEY

from .rig import PLAYERS, TABLE, register_deck, uid


def readers(*entries: dict[str, Any], seats: int = 10) -> RfidSetup:
    """``[[capture.readers]]`` as the configuration reads them, once."""
    return parse_config({"table": {"name": "T", "seats": seats},
                         "capture": {"readers": list(entries)}}).rfid


def test_endpoints() -> None:
    def endpoint(transport: str, address: str, **more: Any) -> object:
        (reader,) = readers({"name": "a", "transport": transport, "address": address,
                             **more}).readers
        return reader.endpoint

    assert endpoint("serial", "/dev/ttyUSB0", baudrate=57600) == \
        SerialEndpoint("/dev/ttyUSB0", 57600)
    assert endpoint("serial", "serial:/dev/ttyACM1") == SerialEndpoint("/dev/ttyACM1", 115200)
    assert endpoint("tcp", "127.0.0.1:4001") == TcpEndpoint("127.0.0.1", 4001)
    assert endpoint("tcp", "tcp:10.0.0.7:4001") == TcpEndpoint("10.0.0.7", 4001)
    good = {"name": "ok", "transport": "tcp", "address": "127.0.0.1:1"}
    with pytest.raises(ConfigError, match=r"capture\.readers\[2\]\.address"):
        readers(good, {**good, "name": "b"}, {"name": "c", "transport": "tcp",
                                               "address": "no port"})
    with pytest.raises(ConfigError, match=r"capture\.readers\[0\]\.address"):
        endpoint("serial", " ")


def test_antenna_maps() -> None:
    standard = readers({"name": "a", "transport": "serial", "address": "/dev/x"},
                       seats=9).antenna_map
    assert standard.zone("a", 9) == Zone.parse("seat9")
    assert standard.zone("a", 10) is None
    assert [standard.zone("a", n) for n in (11, 12, 13)] == \
        [Zone.parse("board"), Zone.parse("muck"), Zone.parse("burn")]
    two = readers({"name": "a", "transport": "serial", "address": "/dev/x",
                   "antennas": {"1": "seat 1", "2": "board"}},
                  {"name": "b", "transport": "tcp", "address": "h:1",
                   "antennas": {"1": "muck"}}).antenna_map
    assert two.readers() == {"a", "b"} and two.zone("b", 1) == Zone.parse("muck")
    # A zone that is none is refused when the configuration is read, naming the key.
    with pytest.raises(ConfigError, match=r"capture\.readers\[0\]\.antennas\.a\.3"):
        readers({"name": "a", "transport": "serial", "address": "/dev/x",
                 "antennas": {"3": "the rail"}})


async def test_a_tcp_reader_deals_hole_cards(tmp_path: Path) -> None:
    data = tmp_path / "data"
    register_deck(data)
    async with SimulatedReader("rail", scan_interval=0.05, heartbeat_interval=0.25) as sim:
        port = await sim.open_tcp()
        config = parse_config({
            "table": {"name": TABLE, "seats": 9, "button": 1}, "players": PLAYERS,
            "capture": {"readers": [{"name": "rail", "transport": "tcp",
                                     "address": f"127.0.0.1:{port}"}]},
            "data_dir": str(data)})
        server = TestServer(create_app(config), host="127.0.0.1")
        await server.start_server()
        try:
            service = server.app[TABLE_KEY]
            await service.execute({"id": "tcp-test-next-hand", "type": "next_hand"})
            sim.place(7, uid("Ac"), uid("Ad"))
            bridge = server.app[CAPTURE_KEY]
            for _ in range(200):
                if service.hand.hole_cards(7) is not None:
                    break
                await asyncio.sleep(0.02)
            assert {c.code for c in service.hand.hole_cards(7)} == {"Ac", "Ad"}
            assert bridge.operator_capture()[0]["source"] == "reader:rail"
        finally:
            await server.close()
