"""``feltcast init``: a commented ``feltcast.toml`` for a new show.

It writes the table (name, seats, the security delay), the players from a CSV (the same file
``feltcast players import`` takes: ``seat`` and ``name`` columns; stacks from ``--stack``, to be
edited before the start), the RFID readers found on this machine's serial ports (USB serial
adapters as readers; other ports commented out), and OBS Studio if obs-websocket answers on
``--obs`` (default 127.0.0.1:4455). The file is read back by the service's own configuration
reader before it is kept, so ``feltcast serve --config feltcast.toml`` accepts it as it is.
An existing file is never overwritten without ``--force``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import ConfigError

DEFAULT_OBS = "127.0.0.1:4455"


@dataclass(frozen=True, slots=True)
class SerialPort:
    device: str
    description: str
    usb: bool
    """A USB serial adapter (the way RFID reader boards connect); other ports are listed but
    left commented out."""


@dataclass(frozen=True, slots=True)
class ObsFound:
    host: str
    port: int
    version: str
    """obs-websocket's version, from its Hello."""
    password_required: bool


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", type=Path, default=Path("feltcast.toml"),
                        help="the file to write (default feltcast.toml)")
    parser.add_argument("--name", default="Final Table", help="the table's name on the "
                                                              "graphics")
    parser.add_argument("--seats", type=int, default=None,
                        help="seats at the table, 2-10 (default 9, or the highest seat in "
                             "the CSV)")
    parser.add_argument("--delay", type=float, default=900.0,
                        help="the security delay D in seconds (default 900)")
    parser.add_argument("--players", type=Path, help="a players CSV (seat,name,...)")
    parser.add_argument("--stack", type=int, default=5000,
                        help="every player's stack until you edit it (default 5000)")
    parser.add_argument("--serial", action="append", default=[], metavar="DEVICE",
                        help="a reader's serial device, in addition to those found (repeat "
                             "for several)")
    parser.add_argument("--no-scan", action="store_true",
                        help="do not look for serial ports or OBS; write only what is given")
    parser.add_argument("--obs", default=DEFAULT_OBS, metavar="HOST:PORT",
                        help=f"where to look for obs-websocket (default {DEFAULT_OBS})")
    parser.add_argument("--obs-password", default="",
                        help="obs-websocket's password (OBS: Tools > WebSocket Server "
                             "Settings); with it, OBS control is enabled")
    parser.add_argument("--force", action="store_true", help="overwrite an existing file")


def run(args: argparse.Namespace) -> int:
    from overlay.config import load_config
    from overlay.players import parse_players_csv

    path: Path = args.path
    if path.exists() and not args.force:
        raise ConfigError(str(path), "the file exists already (--force overwrites it)")
    players: list[tuple[int, str]] = []
    if args.players is not None:
        try:
            text = args.players.read_text(encoding="utf-8-sig")
        except OSError as error:
            raise ConfigError("--players", f"cannot read {args.players}: "
                                           f"{error.strerror}") from None
        players = [(row.seat, row.name) for row in parse_players_csv(text, photos=True)]
    seats = args.seats or max([9, *(seat for seat, _ in players)])
    if args.stack <= 0:
        raise ConfigError("--stack", f"a stack is positive, got {args.stack}")
    obs_host, obs_port = _host_port(args.obs)
    ports = [] if args.no_scan else serial_ports()
    given = {device for device in args.serial}
    ports = [SerialPort(d, "given with --serial", True) for d in args.serial] + [
        p for p in ports if p.device not in given]
    obs = None if args.no_scan else probe_obs(obs_host, obs_port)
    text = render(name=args.name, seats=seats, delay=args.delay, players=players,
                  stack=args.stack, ports=ports, obs=obs, obs_password=args.obs_password,
                  obs_address=(obs_host, obs_port), players_csv=args.players)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    try:
        load_config(partial)  # what serve would say of it, before it is kept
    except ConfigError:
        partial.unlink()
        raise
    partial.replace(path)
    readers = sum(1 for p in ports if p.usb)
    found_obs = (f"OBS found at {obs.host}:{obs.port} (obs-websocket {obs.version})"
                 if obs else "no OBS found")
    print(f"wrote {path}: {seats} seats, {len(players)} players, {readers} "
          f"reader{'' if readers == 1 else 's'}, {found_obs}")
    print(f"next: check the stacks, then  feltcast serve --config {path}")
    return 0


def _host_port(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ConfigError("--obs", f"expected HOST:PORT like {DEFAULT_OBS}, got {text!r}")
    return host.strip("[]"), int(port)


def serial_ports() -> list[SerialPort]:
    """The serial ports pyserial finds on this machine (``/dev/ttyUSB0``, ``/dev/ttyACM0``,
    COM3, ...)."""
    from serial.tools import list_ports

    found = []
    for info in sorted(list_ports.comports(), key=lambda p: p.device):
        description = next((text for text in (info.description, info.hwid)
                            if text and text != "n/a"), "")
        found.append(SerialPort(info.device, description, info.vid is not None))
    return found


def probe_obs(host: str, port: int, timeout: float = 2.0) -> ObsFound | None:
    """obs-websocket's Hello at ``host:port``, or ``None`` when nothing answers as OBS."""
    import websocket

    try:
        connection = websocket.create_connection(
            f"ws://{host}:{port}", timeout=timeout, subprotocols=["obswebsocket.json"])
    except (OSError, websocket.WebSocketException):
        return None
    try:
        hello: Any = json.loads(connection.recv())
    except (OSError, ValueError, websocket.WebSocketException):
        return None
    finally:
        connection.close()
    if not isinstance(hello, dict) or hello.get("op") != 0 or not isinstance(hello.get("d"),
                                                                              dict):
        return None
    data = hello["d"]
    return ObsFound(host, port, str(data.get("obsWebSocketVersion", "?")),
                    "authentication" in data)


def _toml(value: object) -> str:
    """One TOML value (a string quoted and escaped as TOML wants it)."""
    import tomli_w

    return tomli_w.dumps({"v": value}).removeprefix("v = ").rstrip("\n")


def render(*, name: str, seats: int, delay: float, players: Sequence[tuple[int, str]],
           stack: int, ports: Sequence[SerialPort], obs: ObsFound | None, obs_password: str,
           obs_address: tuple[str, int], players_csv: Path | None) -> str:
    """The commented file."""
    out = [
        f"# feltcast.toml: one show's configuration, written by `feltcast init` on "
        f"{time.strftime('%Y-%m-%d')}.",
        "# Start the service with it:  feltcast serve --config feltcast.toml",
        "# Every key: the README and docs/ (docs/show-day.md for a whole show day);",
        "# `feltcast serve --print-config` prints every effective value.",
        "",
        "[table]",
        f"name = {_toml(name)}",
        f"seats = {seats}                 # 2-10",
        "button = 0                # the seat with the first button (0: the first player)",
        f"starting_stack = {stack}     # a player's stack where [[players]] gives none",
        "",
        "[delay]",
        f"seconds = {_toml(float(delay))}          # the security delay D: the stream "
        "(`delayed`) shows hole cards this late",
        "",
        "[server]",
        'host = "127.0.0.1"        # "0.0.0.0" serves other machines too (read docs/show-day.md '
        "first)",
        "port = 8080",
        "",
    ]
    if players:
        source = f" (from {players_csv.name})" if players_csv else ""
        out.append(f"# The players{source}: check every stack before the start. Countries and "
                   "photos:")
        out.append("# `feltcast players import` with the same CSV once the service runs.")
        for seat, player in players:
            out += ["[[players]]", f"seat = {seat}", f"name = {_toml(player)}",
                    f"stack = {stack}", ""]
    else:
        out += ["# The players, one table each:", "# [[players]]", "# seat = 1",
                '# name = "Ann Smith"', f"# stack = {stack}", ""]
    readers = [p for p in ports if p.usb]
    others = [p for p in ports if not p.usb]
    if readers:
        out.append("# RFID readers (docs/rfid-protocol.md): antennas 1-10 the seats, 11 the "
                   "board, 12 the muck, 13 the")
        out.append("# burn pile, unless an antennas table says otherwise; protocol = "
                   '"uid-lines" for home-built boards.')
    for number, port in enumerate(readers, 1):
        out += ["[[capture.readers]]", f"name = {_toml(f'reader-{number}')}",
                'transport = "serial"', f"address = {_toml(port.device)}"
                + (f"   # {port.description}" if port.description else ""), ""]
    if others:
        out.append("# Serial ports found that are not USB adapters; uncomment one if a "
                   "reader is on it:")
        for port in others:
            out += ["# [[capture.readers]]", f"# name = {_toml(port.device.rsplit('/')[-1])}",
                    '# transport = "serial"', f"# address = {_toml(port.device)}"
                    + (f"   # {port.description}" if port.description else "")]
        out.append("")
    if not ports:
        out += ["# No serial port found. A reader, when there is one:", "# [[capture.readers]]",
                '# name = "table"', '# transport = "serial"', '# address = "/dev/ttyUSB0"', ""]
    obs_host, obs_port = obs_address
    if obs is not None:
        auth = "password required" if obs.password_required else "no password set in OBS"
        out.append(f"# OBS Studio found at {obs.host}:{obs.port} (obs-websocket {obs.version}, "
                   f"{auth}); docs/obs.md.")
        enabled = bool(obs_password)
        if not enabled:
            out.append("# Put obs-websocket's password below (OBS: Tools > WebSocket Server "
                       "Settings) and set enabled = true.")
        out += ["[obs]", f"enabled = {'true' if enabled else 'false'}",
                f"host = {_toml(obs.host)}", f"port = {obs.port}",
                f"password = {_toml(obs_password)}",
                'channel = "delayed"       # what the overlay in OBS reads (docs/obs.md: '
                '"secure" with OBS\'s own stream delay)', ""]
    else:
        out += [f"# No OBS Studio answered at {obs_host}:{obs_port}. To let Feltcast set up and "
                "check OBS (docs/obs.md):", "# [obs]", "# enabled = true",
                f"# host = {_toml(obs_host)}", f"# port = {obs_port}",
                '# password = "the obs-websocket password"', ""]
    return "\n".join(out)
