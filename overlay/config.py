"""The service configuration: one TOML file, overridable from the command line.

Every problem is reported as :class:`engine.errors.ConfigError` naming the key (dotted path, e.g.
``players[3].stack``) and the problem, so a bad configuration stops the start with one clear line.

A minimal ``feltcast.toml``::

    [table]
    name = "Main Event Final Table"
    seats = 9

    [[players]]
    seat = 1
    name = "Ashton"
    stack = 7380000

    [delay]
    seconds = 900

Everything else has a default; ``feltcast serve --print-config`` shows the effective values.

The file is read once, here, into the domain values the service runs on: besides the sections,
a :class:`Config` carries the blind :class:`~engine.tournament.Structure` (``structure``), the
tournament's :class:`~engine.view_tournament.TournamentSettings`, the RFID readers with their
parsed endpoints and antenna map (``rfid``) and the OBS settings (``obs.settings``). They are
made when the configuration is (also by ``dataclasses.replace``), so a bad value stops the
start naming its key, and nothing downstream reads the sections again.

The reader is hand-written rather than pydantic's: every message names the TOML key as the
operator wrote it (``players[3].stack``, ``capture.readers[0].antennas.rail.3``) in one line a
floor manager can act on, and the sections are the frozen values the engine already uses.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from capture.rfid.adapters import DEFAULT_UID_PATTERN, UidLinesSettings
from capture.rfid.antenna_map import STANDARD_ANTENNAS, AntennaMap
from capture.rfid.reader import ReaderConfig
from capture.rfid.transports import Endpoint, SerialEndpoint, parse_endpoint
from engine.channels import ChannelSpec, channels_from_config
from engine.errors import ConfigError
from engine.payouts import PayoutTable
from engine.tournament import DEFAULT_STRUCTURE, BlindLevel, Break, Structure
from engine.view_tournament import TournamentSettings
from overlay.devices.camera_config import CameraConfigSection, parse_cameras
from overlay.devices.obs.settings import ObsSettings
from overlay.fanout import DEFAULT_TABLE, FanoutSettings
from overlay.festival.settings import TableFestival, parse_table_festival
from overlay.graphics.config import GraphicsConfig, default_graphics, parse_graphics
from overlay.store import with_schema

T = TypeVar("T")

@dataclass(frozen=True, slots=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8080
    #: Extra origins allowed to open websockets and send commands (the server's own origin
    #: is always allowed). OBS browser sources send no Origin header at all.
    allowed_origins: tuple[str, ...] = ()
    #: HTTPS and WSS (overlay/tls.py): with ``tls_cert`` and ``tls_key`` that certificate,
    #: otherwise the show's own local CA and certificate, made on the first start.
    tls: bool = False
    tls_cert: str = ""
    tls_key: str = ""
    #: Peers that may read live hole cards, the operator channel and send commands without
    #: TLS (loopback: the machine itself).
    local_networks: tuple[str, ...] = ("127.0.0.0/8", "::1/128")
    #: Let peers outside ``local_networks`` do that in clear text all the same.
    allow_plaintext: bool = False


@dataclass(frozen=True, slots=True)
class PlayerConfig:
    seat: int
    name: str
    stack: int


@dataclass(frozen=True, slots=True)
class TableConfigSection:
    name: str = "Final Table"
    seats: int = 10
    button: int = 0
    """The seat with the first button (R1 draw done by the floor); 0: the first player."""
    level: int = 1
    """The level the table starts at (R21)."""
    levels: tuple[tuple[int, ...], ...] = ()
    """The structure as ``[small, big]`` or ``[small, big, ante]`` rows; empty: the default
    structure of rule R21 (25/50 ... 30,000/60,000, no ante)."""
    level_minutes: int = 20
    ante_mode: str = "none"
    chip_unit: int = 25
    odd_chip: str = "button"
    dead_button: bool = True
    short_call: str = "live"
    starting_stack: int = 5000


@dataclass(frozen=True, slots=True)
class TournamentConfigSection:
    """``[tournament]``: what is at stake (``docs/tournament.md``, "In the service")."""

    name: str = ""
    """The tournament's name for the graphics; empty: the table's name."""
    entrants: int = 0
    """Players who entered (the payout table depends on it, R23); 0: the [[players]]."""
    prize_pool: int = 0
    """The prize pool in whole currency units; 0: no prizes shown."""
    currency: str = ""
    """ISO 4217 code of the prize pool (EUR, USD, ...); empty: none shown."""
    payouts: Mapping[str, Any] = field(default_factory=dict)
    """``[tournament.payouts]`` as :meth:`engine.payouts.PayoutTable.from_config` reads it
    (percentages, amounts or by_field_size; unit); empty: R23's table by field size."""
    levels: tuple[tuple[int, int, int, int], ...] = ()
    """The structure as (small blind, big blind, ante, minutes); empty: ``[table]``'s."""
    breaks: tuple[tuple[int, int, str], ...] = ()
    """Breaks as (after level, minutes, name)."""


@dataclass(frozen=True, slots=True)
class ReaderSection:
    """One ``[[capture.readers]]`` entry as written (the capture side's
    :class:`capture.rfid.reader.ReaderConfig`, with its parsed endpoint, is in
    :attr:`Config.rfid`)."""

    name: str
    transport: str
    address: str
    antennas: Mapping[int, str] = field(default_factory=dict)
    baudrate: int = 115200
    protocol: str = "native"
    """``native`` (docs/rfid-protocol.md) or ``uid-lines`` (one tag read per line)."""
    uid_lines: UidLinesSettings | None = None
    """How a ``uid-lines`` reader's lines read (``pattern``, ``hold_s``)."""
    watchdog_s: float | None = 3.0
    """Silence that marks the reader offline; a ``uid-lines`` reader has none by default."""


@dataclass(frozen=True, slots=True)
class ObsConfigSection:
    enabled: bool = False
    host: str = "127.0.0.1"
    port: int = 4455
    password: str = ""
    channel: str = "delayed"
    timeout: float = 5.0
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False)
    """The whole ``[obs]`` table (scene names, automation rules, ...) as written (two
    sections are equal when they give the same settings: a default spelt out or left out)."""
    settings: ObsSettings = field(init=False)
    """``raw`` read once by :meth:`ObsSettings.from_mapping` (every key and rule checked);
    :func:`overlay.devices.obs.control.settings_from_config` adds what the service knows."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "settings", ObsSettings.from_mapping(self.raw))


@dataclass(frozen=True, slots=True)
class RfidSetup:
    """The RFID readers as capture runs them (:class:`capture.rfid.reader.RfidCapture`)."""

    readers: tuple[ReaderConfig, ...] = ()
    antenna_map: AntennaMap = field(default_factory=lambda: AntennaMap(()))


@dataclass(frozen=True, slots=True)
class Config:
    server: ServerConfig = ServerConfig()
    table: TableConfigSection = TableConfigSection()
    players: tuple[PlayerConfig, ...] = ()
    delay: float = 900.0
    channels: tuple[ChannelSpec, ...] = ()
    readers: tuple[ReaderSection, ...] = ()
    cameras: tuple[CameraConfigSection, ...] = ()
    obs: ObsConfigSection = ObsConfigSection()
    tournament: TournamentConfigSection = TournamentConfigSection()
    graphics: GraphicsConfig = field(default_factory=default_graphics)
    """The look on air (``[graphics]``, ``docs/graphics.md``)."""
    database_url: str = ""
    data_dir: Path = Path("data")
    checkpoint_every: int = 1000
    """A state checkpoint every this many log entries (0: none; ``overlay/checkpoints.py``)."""
    standby: bool = False
    """``[database] standby`` (or ``feltcast serve --standby``): when another service writes
    this table's log (PostgreSQL), wait and take over once it stops, instead of refusing to
    start."""
    fanout: FanoutSettings = field(default_factory=FanoutSettings)
    festival: TableFestival = field(default_factory=TableFestival)
    """``[festival]``: this table plays in a festival, asking its director's service before
    each hand (:mod:`overlay.festival`; none by default)."""
    """``[fanout]``: the Redis server the public channels are published to for a festival's
    web workers (:mod:`overlay.fanout`; none by default)."""

    # The domain values, made once from the sections above (also by dataclasses.replace).
    structure: Structure = field(init=False, compare=False)
    """The blind structure every part of the service uses (:func:`structure_of`)."""
    tournament_settings: TournamentSettings = field(init=False, compare=False)
    """What the views need of ``[tournament]`` (name, field, prize pool, payout table)."""
    rfid: RfidSetup = field(init=False, compare=False)
    """The readers with their endpoints and the antenna map, as capture runs them."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "structure", structure_of(self.table, self.tournament))
        object.__setattr__(self, "tournament_settings", _tournament_settings(self))
        object.__setattr__(self, "rfid", _rfid_setup(self.readers, self.table.seats))

    def channel(self, name: str) -> ChannelSpec:
        for channel in self.channels:
            if channel.name == name:
                return channel
        raise ConfigError(f"channels.{name}", "no such channel")


# --- the domain values ------------------------------------------------------------------


def structure_of(table: TableConfigSection, section: TournamentConfigSection) -> Structure:
    """The blind structure: ``[[tournament.levels]]`` / ``[[tournament.breaks]]`` first, then
    ``[table] levels``, else R21's default (with ``level_minutes`` if set)."""
    if section.levels or section.breaks:
        if section.levels:
            levels = tuple(BlindLevel(k + 1, small, big, ante, minutes)
                           for k, (small, big, ante, minutes) in enumerate(section.levels))
        elif table.levels:
            levels = Structure.from_rows(table.levels,  # type: ignore[arg-type]
                                         minutes=table.level_minutes).levels
        else:
            levels = tuple(BlindLevel(lv.number, lv.small_blind, lv.big_blind, lv.ante,
                                      table.level_minutes) for lv in DEFAULT_STRUCTURE.levels)
        breaks = tuple(Break(after, minutes, name) for after, minutes, name in section.breaks)
        try:
            return Structure(levels, table.starting_stack, breaks)
        except ConfigError as error:
            raise ConfigError(f"tournament.{error.key}", error.problem) from None
    if table.levels:
        return Structure.from_rows(table.levels, minutes=table.level_minutes,  # type: ignore[arg-type]
                                   starting_stack=table.starting_stack)
    if table.level_minutes != 20:
        return Structure.from_rows(
            [(lv.small_blind, lv.big_blind, lv.ante) for lv in DEFAULT_STRUCTURE.levels],
            minutes=table.level_minutes, starting_stack=table.starting_stack)
    return DEFAULT_STRUCTURE


def _tournament_settings(config: Config) -> TournamentSettings:
    section = config.tournament
    entrants = section.entrants or len(config.players)
    payouts = None
    if section.payouts:
        payouts = PayoutTable.from_config(section.payouts, entrants=max(entrants, 2))
    return TournamentSettings(name=section.name or config.table.name,
                              entrants=section.entrants, prize_pool=section.prize_pool,
                              currency=section.currency, payouts=payouts)


def _endpoint(reader: ReaderSection, index: int) -> Endpoint:
    """The transport of one reader (``transport`` serial|tcp, ``address``).

    :raises ConfigError: naming the key, for an address that is not one.
    """
    key = f"capture.readers[{index}].address"
    address = reader.address.strip()
    if reader.transport == "serial":
        if address.startswith("serial:"):
            parsed = parse_endpoint(address, key)
            return SerialEndpoint(parsed.port, reader.baudrate) \
                if isinstance(parsed, SerialEndpoint) else parsed
        if not address:
            raise ConfigError(key, "a serial reader needs a device path, e.g. /dev/ttyUSB0")
        return SerialEndpoint(address, reader.baudrate)
    return parse_endpoint(address if address.startswith("tcp:") else f"tcp:{address}", key)


def _rfid_setup(readers: tuple[ReaderSection, ...], seats: int) -> RfidSetup:
    """Every reader's endpoint and ``antennas`` table; a reader without one gets the standard
    layout (antennas 1-10 the seats, 11 the board, 12 the muck, 13 the burn pile)."""
    entries: list[Any] = []
    for index, reader in enumerate(readers):
        if reader.antennas:
            antennas: dict[str | int, str] = {str(k): v for k, v in reader.antennas.items()}
            try:
                mapped = AntennaMap.from_config({reader.name: antennas})
            except ConfigError as error:
                raise ConfigError(f"capture.readers[{index}].{error.key}", error.problem) \
                    from None
        else:
            mapped = AntennaMap.standard(reader.name, seats)
        entries.extend(mapped.entries)
    return RfidSetup(
        tuple(ReaderConfig(r.name, _endpoint(r, i), watchdog_s=r.watchdog_s,
                           uid_lines=r.uid_lines) for i, r in enumerate(readers)),
        AntennaMap(tuple(sorted(entries))))


# --- validation helpers ------------------------------------------------------------------


def _take(table: Mapping[str, Any], key: str, path: str, kind: type[T], default: T) -> T:
    if key not in table:
        return default
    value = table[key]
    where = f"{path}.{key}" if path else key
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if kind is int and isinstance(value, bool):
        raise ConfigError(where, f"expected a whole number, got {value!r}")
    if not isinstance(value, kind):
        raise ConfigError(where, f"expected {_kind_name(kind)}, got {value!r}")
    return value


def _kind_name(kind: type) -> str:
    return {int: "a whole number", float: "a number", str: "a string", bool: "true or false",
            list: "a list", dict: "a table"}.get(kind, kind.__name__)


def _positive(value: int | float, where: str, *, zero_ok: bool = False) -> None:
    if value < 0 or (value == 0 and not zero_ok):
        raise ConfigError(where, f"must be {'zero or more' if zero_ok else 'positive'}, "
                                 f"got {value!r}")


def _choice(value: str, where: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ConfigError(where, f"{value!r} is not one of {', '.join(choices)}")


def _section(raw: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = raw.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(key, "expected a table")
    return value


def _reject_unknown(table: Mapping[str, Any], path: str, allowed: set[str]) -> None:
    for key in table:
        if key not in allowed:
            where = f"{path}.{key}" if path else key
            raise ConfigError(where, f"unknown key (known: {', '.join(sorted(allowed))})")


def _fields(cls: type) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


# --- parsing ------------------------------------------------------------------------------


def _parse_server(raw: Mapping[str, Any], base_dir: Path | None = None) -> ServerConfig:
    section = _section(raw, "server")
    _reject_unknown(section, "server", _fields(ServerConfig))
    d = ServerConfig()
    host = _take(section, "host", "server", str, d.host)
    port = _take(section, "port", "server", int, d.port)
    if not 0 <= port <= 65535:
        raise ConfigError("server.port", f"{port} is not a TCP port (0-65535)")
    origins = _take(section, "allowed_origins", "server", list, [])
    for i, origin in enumerate(origins):
        if not isinstance(origin, str) or not origin.startswith(("http://", "https://")):
            raise ConfigError(f"server.allowed_origins[{i}]",
                              f"expected an origin like 'http://studio:8080', got {origin!r}")
    tls = _take(section, "tls", "server", bool, d.tls)
    cert = _take(section, "tls_cert", "server", str, d.tls_cert)
    key = _take(section, "tls_key", "server", str, d.tls_key)
    if bool(cert) != bool(key):
        raise ConfigError("server.tls_cert" if key else "server.tls_key",
                          "a certificate goes with its key: give tls_cert and tls_key")
    if cert and not tls:
        raise ConfigError("server.tls", "is needed (true) with tls_cert and tls_key")
    if cert and base_dir is not None:  # relative to the configuration file, like data_dir
        cert, key = (str(base_dir / path) if not Path(path).is_absolute() else path
                     for path in (cert, key))
    networks = _take(section, "local_networks", "server", list, list(d.local_networks))
    for i, network in enumerate(networks):
        try:
            ipaddress.ip_network(network, strict=False)
        except (TypeError, ValueError):
            raise ConfigError(f"server.local_networks[{i}]", f"expected a network like "
                              f"'192.168.10.0/24', got {network!r}") from None
    plaintext = _take(section, "allow_plaintext", "server", bool, d.allow_plaintext)
    return ServerConfig(host, port, tuple(origins), tls, cert, key, tuple(networks), plaintext)


def _parse_table(raw: Mapping[str, Any]) -> TableConfigSection:
    section = _section(raw, "table")
    _reject_unknown(section, "table", _fields(TableConfigSection))
    d = TableConfigSection()
    values: dict[str, Any] = {}
    for f in dataclasses.fields(TableConfigSection):
        if f.name != "levels":
            default = getattr(d, f.name)
            values[f.name] = _take(section, f.name, "table", type(default), default)
    values["levels"] = _parse_levels(section.get("levels", []))
    if not 2 <= values["seats"] <= 10:
        raise ConfigError("table.seats", f"a table has 2 to 10 seats, got {values['seats']}")
    if not 0 <= values["button"] <= values["seats"]:
        raise ConfigError("table.button", f"seat {values['button']} does not exist")
    for key in ("chip_unit", "level_minutes", "starting_stack", "level"):
        _positive(values[key], f"table.{key}")
    count = len(values["levels"]) or 18
    if values["level"] > count:
        raise ConfigError("table.level", f"there is no level {values['level']} (1-{count})")
    _choice(values["ante_mode"], "table.ante_mode", ("none", "per_player", "big_blind", "button"))
    _choice(values["odd_chip"], "table.odd_chip", ("button", "big_blind"))
    _choice(values["short_call"], "table.short_call", ("live", "phh"))
    return TableConfigSection(**values)


def _parse_levels(rows: object) -> tuple[tuple[int, ...], ...]:
    if not isinstance(rows, list):
        raise ConfigError("table.levels", "expected a list of [small, big] or "
                                          "[small, big, ante] rows")
    result = []
    for i, row in enumerate(rows):
        where = f"table.levels[{i}]"
        if (not isinstance(row, list) or len(row) not in (2, 3)
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in row)):
            raise ConfigError(where, f"expected [small, big] or [small, big, ante], got {row!r}")
        small, big = row[0], row[1]
        if not 0 < small <= big:
            raise ConfigError(where, f"blinds {small}/{big} are not valid")
        if len(row) == 3 and row[2] < 0:
            raise ConfigError(where, "the ante cannot be negative")
        result.append(tuple(row))
    return tuple(result)


def _parse_players(raw: Mapping[str, Any], table: TableConfigSection) -> tuple[PlayerConfig, ...]:
    players = raw.get("players", [])
    if not isinstance(players, list):
        raise ConfigError("players", "expected a list of [[players]] tables")
    result: list[PlayerConfig] = []
    seats_taken: dict[int, int] = {}
    for i, entry in enumerate(players):
        path = f"players[{i}]"
        if not isinstance(entry, dict):
            raise ConfigError(path, "expected a table with seat, name and stack")
        _reject_unknown(entry, path, {"seat", "name", "stack"})
        for key in ("seat", "name"):
            if key not in entry:
                raise ConfigError(f"{path}.{key}", "is missing")
        seat = _take(entry, "seat", path, int, 0)
        name = _take(entry, "name", path, str, "").strip()
        stack = _take(entry, "stack", path, int, table.starting_stack)
        if not 1 <= seat <= table.seats:
            raise ConfigError(f"{path}.seat", f"seat {seat} does not exist "
                                              f"(the table has seats 1-{table.seats})")
        if seat in seats_taken:
            raise ConfigError(f"{path}.seat", f"seat {seat} is already taken by "
                                              f"players[{seats_taken[seat]}]")
        if not name:
            raise ConfigError(f"{path}.name", "is empty")
        _positive(stack, f"{path}.stack")
        seats_taken[seat] = i
        result.append(PlayerConfig(seat, name, stack))
    return tuple(sorted(result, key=lambda p: p.seat))


def _parse_tournament(raw: Mapping[str, Any], table: TableConfigSection,
                      players: int) -> TournamentConfigSection:
    section = _section(raw, "tournament")
    _reject_unknown(section, "tournament", _fields(TournamentConfigSection))
    d = TournamentConfigSection()
    name = _take(section, "name", "tournament", str, d.name).strip()
    entrants = _take(section, "entrants", "tournament", int, d.entrants)
    _positive(entrants, "tournament.entrants", zero_ok=True)
    if entrants and entrants < players:
        raise ConfigError("tournament.entrants", f"{entrants} entrants, but {players} "
                          "players are seated ([[players]])")
    pool = _take(section, "prize_pool", "tournament", int, d.prize_pool)
    _positive(pool, "tournament.prize_pool", zero_ok=True)
    currency = _take(section, "currency", "tournament", str, d.currency).strip().upper()
    if currency and (len(currency) != 3 or not currency.isascii() or not currency.isalpha()):
        raise ConfigError("tournament.currency", f"expected a three-letter ISO 4217 code like "
                          f"EUR or USD, got {currency!r}")
    payouts = _take(section, "payouts", "tournament", dict, {})
    if payouts:
        from engine.payouts import PayoutTable

        try:
            table_ = PayoutTable.from_config(payouts, entrants=entrants or max(players, 2))
            if not table_.amounts and not pool:
                raise ConfigError("prize_pool", "is needed with a percentage table")
            table_.prizes(pool or None)
        except ConfigError as error:
            raise ConfigError(f"tournament.{error.key}", error.problem) from None
    levels = _parse_tournament_levels(section.get("levels", []), table)
    if levels and table.levels:
        raise ConfigError("tournament.levels", "the structure is given twice: use "
                          "[[tournament.levels]] or [table] levels, not both")
    count = len(levels) or len(table.levels) or 18
    breaks = _parse_breaks(section.get("breaks", []), count)
    return TournamentConfigSection(
        name=name, entrants=entrants, prize_pool=pool, currency=currency,
        payouts=dict(payouts), levels=levels, breaks=breaks)


def _parse_tournament_levels(rows: object, table: TableConfigSection,
                             ) -> tuple[tuple[int, int, int, int], ...]:
    if not isinstance(rows, list):
        raise ConfigError("tournament.levels", "expected [[tournament.levels]] tables")
    out: list[tuple[int, int, int, int]] = []
    for k, row in enumerate(rows):
        path = f"tournament.levels[{k}]"
        if not isinstance(row, dict):
            raise ConfigError(path, "expected a table with small_blind, big_blind, ante and "
                              "minutes")
        _reject_unknown(row, path, {"small_blind", "big_blind", "ante", "minutes"})
        if "big_blind" not in row:
            raise ConfigError(f"{path}.big_blind", "is missing")
        big = _take(row, "big_blind", path, int, 0)
        small = _take(row, "small_blind", path, int, big // 2)
        ante = _take(row, "ante", path, int, 0)
        minutes = _take(row, "minutes", path, int, table.level_minutes)
        if not 0 < small <= big:
            raise ConfigError(path, f"blinds {small}/{big} are not valid")
        _positive(ante, f"{path}.ante", zero_ok=True)
        _positive(minutes, f"{path}.minutes")
        if out and big < out[-1][1]:
            raise ConfigError(f"{path}.big_blind", f"{big} is smaller than the level "
                              f"before ({out[-1][1]})")
        out.append((small, big, ante, minutes))
    return tuple(out)


def _parse_breaks(rows: object, levels: int) -> tuple[tuple[int, int, str], ...]:
    if not isinstance(rows, list):
        raise ConfigError("tournament.breaks", "expected [[tournament.breaks]] tables")
    out: list[tuple[int, int, str]] = []
    for k, row in enumerate(rows):
        path = f"tournament.breaks[{k}]"
        if not isinstance(row, dict):
            raise ConfigError(path, "expected a table with after_level and minutes")
        _reject_unknown(row, path, {"after_level", "minutes", "name"})
        for key in ("after_level", "minutes"):
            if key not in row:
                raise ConfigError(f"{path}.{key}", "is missing")
        after = _take(row, "after_level", path, int, 0)
        minutes = _take(row, "minutes", path, int, 0)
        name = _take(row, "name", path, str, "Break").strip() or "Break"
        if not 1 <= after < levels:
            raise ConfigError(f"{path}.after_level", f"a break goes between two levels "
                              f"(1-{levels - 1}), got {after}")
        if any(b[0] == after for b in out):
            raise ConfigError(f"{path}.after_level", f"two breaks after level {after}")
        _positive(minutes, f"{path}.minutes")
        out.append((after, minutes, name))
    return tuple(sorted(out))


def _parse_channels(raw: Mapping[str, Any], delay: float) -> tuple[ChannelSpec, ...]:
    """The built-in channels (engine/channels.py) with the ``[channels]`` table applied; the
    ``delayed`` channel's delay is ``[delay].seconds`` unless the table sets it."""
    section = _section(raw, "channels")
    for name, entry in section.items():
        if not isinstance(entry, dict):
            raise ConfigError(f"channels.{name}", "expected a table")
    delayed = dict(section.get("delayed", {}))
    delayed.setdefault("delay", delay)
    # With no delay the "delayed" channel is live with hole cards: token only (secrecy).
    delayed.setdefault("requires_token", delayed["delay"] == 0)
    return tuple(channels_from_config({**section, "delayed": delayed}).values())


def _parse_readers(raw: Mapping[str, Any]) -> tuple[ReaderSection, ...]:
    capture = _section(raw, "capture")
    _reject_unknown(capture, "capture", {"readers", "cameras"})
    readers = capture.get("readers", [])
    if not isinstance(readers, list):
        raise ConfigError("capture.readers", "expected a list of [[capture.readers]] tables")
    result: list[ReaderSection] = []
    names: set[str] = set()
    for i, entry in enumerate(readers):
        path = f"capture.readers[{i}]"
        if not isinstance(entry, dict):
            raise ConfigError(path, "expected a table")
        _reject_unknown(entry, path, {"name", "transport", "address", "antennas", "baudrate",
                                      "protocol", "pattern", "hold_s", "watchdog_s"})
        for key in ("name", "transport", "address"):
            if key not in entry:
                raise ConfigError(f"{path}.{key}", "is missing")
        name = _take(entry, "name", path, str, "")
        if name in names:
            raise ConfigError(f"{path}.name", f"reader name {name!r} is used twice")
        names.add(name)
        transport = _take(entry, "transport", path, str, "")
        _choice(transport, f"{path}.transport", ("serial", "tcp"))
        address = _take(entry, "address", path, str, "")
        baudrate = _take(entry, "baudrate", path, int, 115200)
        antennas_raw = _take(entry, "antennas", path, dict, {})
        antennas: dict[int, str] = {}
        for key, zone in antennas_raw.items():
            where = f"{path}.antennas.{key}"
            if not str(key).isdigit():
                raise ConfigError(where, "antenna numbers are whole numbers")
            if not isinstance(zone, str):
                raise ConfigError(where, "expected a zone like 'seat 3', 'board', 'muck', 'burn'")
            antennas[int(key)] = zone
        protocol = _take(entry, "protocol", path, str, "native")
        _choice(protocol, f"{path}.protocol", ("native", "uid-lines"))
        uid_lines = None
        if protocol == "uid-lines":
            uid_lines = UidLinesSettings(
                antennas=max(antennas, default=STANDARD_ANTENNAS),
                pattern=_take(entry, "pattern", path, str, DEFAULT_UID_PATTERN),
                hold_s=_take(entry, "hold_s", path, float, 0.5), where=path)
        else:
            for key in ("pattern", "hold_s"):
                if key in entry:
                    raise ConfigError(f"{path}.{key}", 'only for protocol = "uid-lines"')
        watchdog: float | None = 3.0 if protocol == "native" else None
        if "watchdog_s" in entry:
            watchdog = _take(entry, "watchdog_s", path, float, 3.0)
            _positive(watchdog, f"{path}.watchdog_s")
        result.append(ReaderSection(name, transport, address, antennas, baudrate, protocol,
                                   uid_lines, watchdog))
    return tuple(result)


def _parse_obs(raw: Mapping[str, Any]) -> ObsConfigSection:
    section = _section(raw, "obs")
    d = ObsConfigSection()
    values = {f.name: _take(section, f.name, "obs", type(getattr(d, f.name)),
                            getattr(d, f.name))
              for f in dataclasses.fields(ObsConfigSection) if f.init and f.name != "raw"}
    if not 1 <= values["port"] <= 65535:
        raise ConfigError("obs.port", f"{values['port']} is not a TCP port")
    _positive(values["timeout"], "obs.timeout")
    if values["enabled"] and not values["password"]:
        # obs-websocket listens on every interface: never run it without a password.
        raise ConfigError("obs.password", "is required when OBS control is enabled")
    return ObsConfigSection(**values, raw=dict(section))  # raw read by ObsSettings here


def parse_config(raw: Mapping[str, Any], *, base_dir: Path | None = None) -> Config:
    """Validate a parsed TOML document into a :class:`Config`.

    :raises ConfigError: naming the first bad key.
    """
    _reject_unknown(raw, "", {"server", "table", "players", "delay", "channels", "capture",
                              "obs", "database", "data_dir", "tournament", "graphics",
                              "fanout", "festival"})
    table = _parse_table(raw)
    players = _parse_players(raw, table)
    delay_section = _section(raw, "delay")
    _reject_unknown(delay_section, "delay", {"seconds"})
    delay = _take(delay_section, "seconds", "delay", float, 900.0)
    _positive(delay, "delay.seconds", zero_ok=True)
    database = _section(raw, "database")
    _reject_unknown(database, "database", {"url", "checkpoint_every", "schema", "standby"})
    url = _take(database, "url", "database", str, "")
    standby = _take(database, "standby", "database", bool, False)
    checkpoint_every = _take(database, "checkpoint_every", "database", int, 1000)
    if checkpoint_every < 0:
        raise ConfigError("database.checkpoint_every", "expected 0 (no checkpoints) or a "
                          "number of log entries")
    if url and not url.startswith(("sqlite:///", "postgresql://", "postgresql+psycopg2://")):
        raise ConfigError("database.url", "expected a sqlite:/// or postgresql:// URL")
    schema = _take(database, "schema", "database", str, "")
    if schema:  # the table's own schema in a festival's database (overlay.store)
        url = with_schema(url, schema)
    data_dir = Path(_take(raw, "data_dir", "", str, "data"))
    if base_dir is not None and not data_dir.is_absolute():
        data_dir = base_dir / data_dir
    return Config(
        server=_parse_server(raw, base_dir),
        table=table,
        players=players,
        delay=delay,
        channels=_parse_channels(raw, delay),
        readers=_parse_readers(raw),
        cameras=parse_cameras(_section(raw, "capture"), seats=table.seats, base_dir=base_dir),
        obs=_parse_obs(raw),
        tournament=_parse_tournament(raw, table, len(players)),
        graphics=parse_graphics(_section(raw, "graphics"), base_dir=base_dir),
        database_url=url,
        data_dir=data_dir,
        checkpoint_every=checkpoint_every,
        standby=standby,
        fanout=_parse_fanout(raw),
        festival=parse_table_festival(_section(raw, "festival")),
    )


def _parse_fanout(raw: Mapping[str, Any]) -> FanoutSettings:
    section = _section(raw, "fanout")
    _reject_unknown(section, "fanout", {"url", "table"})
    return FanoutSettings(url=_take(section, "url", "fanout", str, ""),
                          table=_take(section, "table", "fanout", str, DEFAULT_TABLE))


def load_config(path: Path | None) -> Config:
    """Read and validate a TOML file; ``None`` gives the defaults."""
    if path is None:
        return parse_config({})
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(str(path), f"cannot read the file: {error.strerror}") from error
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(str(path), f"not valid TOML: {error}") from error
    return parse_config(raw, base_dir=path.resolve().parent)


def with_overrides(config: Config, *, host: str | None = None, port: int | None = None,
                   data_dir: Path | None = None, delay: float | None = None,
                   standby: bool = False) -> Config:
    """Apply command-line overrides (which win over the file)."""
    server = config.server
    if host is not None:
        try:
            ipaddress.ip_address(host)
        except ValueError:
            if host != "localhost":
                raise ConfigError("--host", f"{host!r} is not an IP address") from None
        server = dataclasses.replace(server, host=host)
    if port is not None:
        if not 0 <= port <= 65535:
            raise ConfigError("--port", f"{port} is not a TCP port (0-65535)")
        server = dataclasses.replace(server, port=port)
    channels = config.channels
    if delay is not None:
        _positive(delay, "--delay", zero_ok=True)
        channels = tuple(ChannelSpec.from_dict({**c.to_dict(), "delay": delay,
                                                "requires_token": c.requires_token or delay == 0})
                         if c.name == "delayed" else c for c in channels)
    return dataclasses.replace(
        config, server=server, channels=channels,
        delay=config.delay if delay is None else delay,
        data_dir=config.data_dir if data_dir is None else data_dir,
        standby=config.standby or standby,
    )


# --- writing it back ------------------------------------------------------------------------


def config_to_raw(config: Config) -> dict[str, Any]:
    """The TOML document of ``config`` with every effective value spelt out: what
    ``feltcast serve --print-config`` prints, and :func:`parse_config` reads back to the same
    configuration (paths absolute, so that it holds wherever the file is put)."""
    table = {f.name: getattr(config.table, f.name) for f in dataclasses.fields(config.table)}
    table["levels"] = [list(row) for row in config.table.levels]
    raw: dict[str, Any] = {
        "data_dir": str(config.data_dir.resolve()),
        "server": {"host": config.server.host, "port": config.server.port,
                   "allowed_origins": list(config.server.allowed_origins),
                   "tls": config.server.tls, "tls_cert": config.server.tls_cert,
                   "tls_key": config.server.tls_key,
                   "local_networks": list(config.server.local_networks),
                   "allow_plaintext": config.server.allow_plaintext},
        "table": table,
        "delay": {"seconds": config.delay},
        "players": [{"seat": p.seat, "name": p.name, "stack": p.stack} for p in config.players],
        "channels": {spec.name: {k: v for k, v in spec.to_dict().items() if k != "name"}
                     for spec in config.channels},
        "capture": {"readers": [_reader_raw(r) for r in config.readers],
                    "cameras": [_camera_raw(c) for c in config.cameras]},
        "obs": _obs_raw(config.obs),
        "tournament": _tournament_raw(config.tournament),
        "graphics": config.graphics.to_raw(),
    }
    raw["fanout"] = {"url": config.fanout.url, "table": config.fanout.table}
    if config.festival.enabled:
        raw["festival"] = {"url": config.festival.url, "table": config.festival.table,
                           "token": config.festival.token}
    raw["database"] = {"checkpoint_every": config.checkpoint_every, "standby": config.standby}
    if config.database_url:
        raw["database"]["url"] = config.database_url
    return raw


def config_to_toml(config: Config) -> str:
    """:func:`config_to_raw` as TOML text, with a heading line."""
    import tomli_w

    return ("# The effective configuration (feltcast serve --print-config): every value, the\n"
            "# defaults included. `feltcast serve --config FILE` reads it back as it is.\n\n"
            + tomli_w.dumps(config_to_raw(config)))


def _reader_raw(reader: ReaderSection) -> dict[str, Any]:
    raw: dict[str, Any] = {"name": reader.name, "transport": reader.transport,
                           "address": reader.address, "baudrate": reader.baudrate,
                           "protocol": reader.protocol,
                           "antennas": {str(k): v for k, v in sorted(reader.antennas.items())}}
    if reader.uid_lines is not None:
        raw["pattern"] = reader.uid_lines.pattern
        raw["hold_s"] = reader.uid_lines.hold_s
    if reader.watchdog_s is not None:
        raw["watchdog_s"] = reader.watchdog_s
    return raw


def _camera_raw(camera: CameraConfigSection) -> dict[str, Any]:
    return {"name": camera.name, "source": camera.source, "deck": camera.deck,
            "regions": [{"zone": str(r.zone), "rect": list(r.rect)} for r in camera.regions],
            "confirm_frames": camera.confirm_frames, "drop_frames": camera.drop_frames,
            "threshold": camera.threshold, "fusion": str(camera.fusion),
            "fallback": camera.fallback}


# The [obs] keys the service reads itself, and the longer keys of obs/settings.py they stand for.
_OBS_SHORT = {"enabled": (), "host": (), "port": (), "password": (),
              "channel": ("overlay_channel",), "timeout": ("connect_timeout", "request_timeout")}


def _obs_raw(obs: ObsConfigSection) -> dict[str, Any]:
    raw = dict(obs.raw)
    for key, longer in _OBS_SHORT.items():
        if key not in raw and not any(name in raw for name in longer):
            raw[key] = getattr(obs, key)
    return raw


def _tournament_raw(tournament: TournamentConfigSection) -> dict[str, Any]:
    return {
        "name": tournament.name, "entrants": tournament.entrants,
        "prize_pool": tournament.prize_pool, "currency": tournament.currency,
        "payouts": dict(tournament.payouts),
        "levels": [{"small_blind": s, "big_blind": b, "ante": a, "minutes": m}
                   for s, b, a, m in tournament.levels],
        "breaks": [{"after_level": after, "minutes": minutes, "name": name}
                   for after, minutes, name in tournament.breaks],
    }
