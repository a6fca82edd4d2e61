"""``festival.toml``, read once into :class:`FestivalSettings`; and the ``[festival]`` section
of a table's configuration (:class:`TableFestival`). Every problem is a
:class:`engine.errors.ConfigError` naming the key."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import ConfigError
from engine.festival import FestivalTable
from overlay.fanout import parse_redis_url, table_key

__all__ = ["FestivalSettings", "TableFestival", "load_festival", "parse_festival",
           "parse_table_festival"]

FESTIVAL_SCHEMA = "festival"
"""The PostgreSQL schema of the festival's own log."""


@dataclass(frozen=True, slots=True)
class FestivalSettings:
    """The festival: its tables (their keys, in draw order), the table that plays the final
    table, the players, the starting stack, the table size, the draw's seed, the prizes, the
    database and the director's service address and token; and ``[fanout]``: the Redis
    server its standings are published on for the web workers (empty: not published) and
    the tables' security delay (its delayed standings' delay)."""

    name: str
    tables: tuple[str, ...]
    players: tuple[str, ...]
    stack: int
    database_url: str
    token: str
    final_table: str = ""
    seats_per_table: int = 9
    seed: int = 0
    prizes: tuple[int, ...] = ()
    host: str = "127.0.0.1"
    port: int = 8070
    standby: bool = False
    fanout_url: str = ""
    delay: float = 900.0

    def __post_init__(self) -> None:
        if self.fanout_url:
            parse_redis_url(self.fanout_url, "fanout.url")
        if isinstance(self.delay, bool) or not isinstance(self.delay, int | float) \
                or not 0 <= self.delay < 86_400:
            raise ConfigError("fanout.delay", "the tables' security delay in seconds (their "
                              "[delay] seconds)")
        for index, key in enumerate(self.tables):
            table_key(key, f"festival.tables[{index}]")
        if len(set(self.tables)) != len(self.tables) or not self.tables:
            raise ConfigError("festival.tables", "name each table once")
        if not self.final_table:
            object.__setattr__(self, "final_table", self.tables[0])
        if self.final_table not in self.tables:
            raise ConfigError("festival.final_table", f"{self.final_table!r} is not one of "
                              "the tables")
        if len(self.token) < 16:
            raise ConfigError("festival.token", "a shared secret of at least 16 characters "
                              "(the tables present it)")
        if not self.database_url.startswith(("postgresql://", "postgresql+psycopg2://")):
            raise ConfigError("database.url", "a festival's tables share one postgresql:// "
                              "database")


def _take(section: Mapping[str, Any], key: str, where: str, kind: type, default: Any) -> Any:
    value = section.get(key, default)
    if (kind is int and isinstance(value, bool)) or not isinstance(value, kind):
        raise ConfigError(f"{where}.{key}", f"expected {kind.__name__}, got {value!r}")
    return value


def parse_festival(raw: Mapping[str, Any]) -> FestivalSettings:
    unknown = set(raw) - {"festival", "database", "server", "fanout"}
    if unknown:
        raise ConfigError(sorted(unknown)[0], "unknown section")
    section = raw.get("festival", {})
    database = raw.get("database", {})
    server = raw.get("server", {})
    fanout = raw.get("fanout", {})
    if not isinstance(fanout, dict) or set(fanout) - {"url", "delay"}:
        raise ConfigError("fanout", "url (the festival's Redis) and delay (the tables' "
                          "security delay, seconds) only")
    players = _take(section, "players", "festival", list, [])
    if not all(isinstance(p, str) and p.strip() for p in players):
        raise ConfigError("festival.players", "a list of names")
    prizes = _take(section, "prizes", "festival", list, [])
    if not all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in prizes):
        raise ConfigError("festival.prizes", "a list of amounts, place 1 first")
    return FestivalSettings(
        name=_take(section, "name", "festival", str, "Festival"),
        tables=tuple(_take(section, "tables", "festival", list, [])),
        players=tuple(p.strip() for p in players),
        stack=_take(section, "stack", "festival", int, 20_000),
        database_url=_take(database, "url", "database", str, ""),
        token=_take(section, "token", "festival", str, ""),
        final_table=_take(section, "final_table", "festival", str, ""),
        seats_per_table=_take(section, "seats_per_table", "festival", int, 9),
        seed=_take(section, "seed", "festival", int, 0),
        prizes=tuple(prizes),
        host=_take(server, "host", "server", str, "127.0.0.1"),
        port=_take(server, "port", "server", int, 8070),
        standby=_take(database, "standby", "database", bool, False),
        fanout_url=_take(fanout, "url", "fanout", str, ""),
        delay=fanout.get("delay", 900.0),
    )


def load_festival(path: Path) -> FestivalSettings:
    try:
        return parse_festival(tomllib.loads(path.read_text(encoding="utf-8")))
    except OSError as error:
        raise ConfigError(str(path), f"cannot read the file: {error.strerror}") from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(str(path), f"not valid TOML: {error}") from error


@dataclass(frozen=True, slots=True)
class TableFestival:
    """``[festival]`` of a table's configuration: this table plays in the festival whose
    director's service is at ``url`` (empty: no festival), as table ``table``."""

    url: str = ""
    table: str = ""
    token: str = ""

    @property
    def enabled(self) -> bool:
        return bool(self.url)


def parse_table_festival(section: Mapping[str, Any]) -> TableFestival:
    unknown = set(section) - {"url", "table", "token"}
    if unknown:
        raise ConfigError(f"festival.{sorted(unknown)[0]}", "unknown setting")
    url = _take(section, "url", "festival", str, "")
    if not url:
        return TableFestival()
    if not url.startswith(("http://", "https://")):
        raise ConfigError("festival.url", "the director's service, http://host:port")
    table = table_key(_take(section, "table", "festival", str, ""), "festival.table")
    return TableFestival(url.rstrip("/"), table, _take(section, "token", "festival", str, ""))


def seating(table: FestivalTable, stacks: Mapping[str, int]) -> list[list[Any]]:
    """A table's seats as the director's answer gives them: ``[seat, player, stack]``."""
    return [[seat, player, stacks[player]] for seat, player in table.seats]
