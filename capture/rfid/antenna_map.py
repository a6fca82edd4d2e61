"""Which table zone each reader antenna covers: seat N, board, muck or burn.

Built from configuration, e.g. (JSON or TOML alike)::

    {"table-a": {"1": "seat1", "2": "seat2", "11": "board", "12": "muck", "13": "burn"},
     "table-b": {"1": "board"}}

Several antennas may cover one zone (a long board, two readers); one antenna covers exactly
one zone.

>>> amap = AntennaMap.from_config({"table-a": {"1": "seat1", "11": "board"}})
>>> amap.zone("table-a", 11)
Zone.parse('board')
>>> amap.zone("table-a", 5) is None
True
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from engine.capture_events import BOARD, BURN, MUCK, Zone, ZoneKind
from engine.errors import ConfigError, InvalidInputError

STANDARD_ANTENNAS = 13
"""Antennas of the standard layout (:meth:`AntennaMap.standard`): seats, board, muck, burn."""

AntennaKey = tuple[str, int]
"""(reader name, antenna number)."""


@dataclass(frozen=True, slots=True)
class AntennaMap:
    """A frozen mapping (reader, antenna) -> zone."""

    entries: tuple[tuple[AntennaKey, Zone], ...]

    def __post_init__(self) -> None:
        keys = [key for key, _ in self.entries]
        if len(set(keys)) != len(keys):
            raise ConfigError("antennas", "an antenna is mapped twice")

    @classmethod
    def from_config(cls, config: Mapping[str, Mapping[str | int, str]]) -> AntennaMap:
        """Build from ``{reader: {antenna: zone}}``.

        :raises ConfigError: naming the key, for a bad antenna number or zone name.
        """
        if not isinstance(config, Mapping) or not config:
            raise ConfigError("antennas", "expected a table {reader: {antenna: zone}}")
        entries: list[tuple[AntennaKey, Zone]] = []
        for reader, antennas in config.items():
            if not isinstance(reader, str) or not reader:
                raise ConfigError("antennas", f"reader name {reader!r} is not a name")
            if not isinstance(antennas, Mapping):
                raise ConfigError(f"antennas.{reader}", "expected a table {antenna: zone}")
            for antenna, zone_name in antennas.items():
                key = f"antennas.{reader}.{antenna}"
                try:
                    number = int(antenna)
                except (TypeError, ValueError):
                    raise ConfigError(key, "antenna must be a number 1-64") from None
                if not 1 <= number <= 64:
                    raise ConfigError(key, "antenna must be a number 1-64")
                try:
                    zone = Zone.parse(zone_name)
                except InvalidInputError as error:
                    raise ConfigError(key, str(error)) from None
                entries.append(((reader, number), zone))
        return cls(tuple(sorted(entries)))

    @classmethod
    def standard(cls, reader: str, seats: int = 10) -> AntennaMap:
        """The layout the simulator uses: antennas 1..seats for the seats, then the board,
        the muck and the burn pile on antennas 11, 12 and 13."""
        entries = [((reader, seat), Zone.at_seat(seat)) for seat in range(1, seats + 1)]
        entries += [((reader, 11), BOARD), ((reader, 12), MUCK), ((reader, 13), BURN)]
        return cls(tuple(entries))

    def to_config(self) -> dict[str, dict[str, str]]:
        config: dict[str, dict[str, str]] = {}
        for (reader, antenna), zone in self.entries:
            config.setdefault(reader, {})[str(antenna)] = str(zone)
        return config

    def zone(self, reader: str, antenna: int) -> Zone | None:
        """The zone of an antenna, or None if it is not mapped."""
        for key, zone in self.entries:
            if key == (reader, antenna):
                return zone
        return None

    def as_dict(self) -> dict[AntennaKey, Zone]:
        return dict(self.entries)

    def readers(self) -> frozenset[str]:
        return frozenset(reader for (reader, _), _zone in self.entries)

    def seats(self) -> frozenset[int]:
        """The seat numbers that have an antenna."""
        return frozenset(zone.seat for _, zone in self.entries if zone.kind is ZoneKind.SEAT)

    def antennas_of(self, reader: str) -> Iterator[tuple[int, Zone]]:
        for (name, antenna), zone in self.entries:
            if name == reader:
                yield antenna, zone
