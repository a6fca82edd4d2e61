"""Fan-out between processes: a table's released channel items carried over Redis, so that
any web worker serves any table's public channels with the same snapshot/patch/resume
protocol as the table's own service (``docs/festival.md``).

::

  table writer (feltcast serve)              Redis                 web workers (feltcast worker)
  ChannelHub "delayed" ── RedisPublisher ──► SET  …:snapshot  ◄── GET at start / after a gap
    (releases items          (a subscriber    PUBLISH …        ──► RelaySource ─► RelayHub
     at log time + D)         like any page)                        (view, revision, history)
                                                                     └─► /t/<table>/ws/delayed

* **What crosses.** Only the writer's *public* channels: those that need no token
  (``venue``, ``delayed``; never ``operator``, ``secure``, or a live full channel, which the
  channel rules make require a token). :func:`published_channels` is the one selection; the
  publisher refuses anything else, so a hole card can reach Redis only after the delay the
  channel itself applies. A worker never releases anything: it relays what the writer's hub
  released, so nothing is released early whatever a worker's clock says.
* **Encoded once.** What is published is the message text the writer's hub made once for
  all its subscribers; a worker relays that text as it is (and frames it once for all its
  sockets, :mod:`overlay.sockets`).
* **Nothing lost, nothing doubled.** Redis pub/sub delivers at most once, so each published
  patch goes with the channel's current snapshot in one transaction (``MULTI``: ``SET`` the
  snapshot, ``PUBLISH`` the patch). A worker that sees a revision out of order, or lost its
  connection, reads that snapshot and tells its subscribers (a ``snapshot`` with ``reason``
  ``behind``), exactly as a hub does for a subscriber that fell behind.

* **The festival's standings.** The tournament director's service publishes its own public
  channels (the festival's places and prizes, :mod:`overlay.festival.channels`) the same
  way, under the reserved key :data:`FESTIVAL_KEY` (never a table's key, and not listed
  among the tables).
* **The look on air.** A writer publishes its look (the theme, logo, sponsors, layout:
  :class:`overlay.graphics.desk.GraphicsDesk`) with the theme's stylesheet and files, so
  that a worker's pages of the table wear it and follow each change live.

Keys (``feltcast:`` then the table's key, :data:`TABLE_KEY_PATTERN`):
``feltcast:tables`` (a set of table keys), ``feltcast:t:<table>:channels`` (the published
channels' specs, JSON), ``feltcast:t:<table>:<channel>`` (the pub/sub channel of its
messages) and ``feltcast:t:<table>:<channel>:snapshot`` (its newest snapshot);
``feltcast:look:<table>`` (the table's look, JSON: a key and the pub/sub channel of its
changes) and ``feltcast:media:<file>`` (a theme's font, logo or sponsor, by its content's
hash).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from engine.channels import ChannelSpec
from engine.errors import ConfigError

__all__ = [
    "DEFAULT_TABLE",
    "FESTIVAL_KEY",
    "LOOK_PATTERN",
    "TABLES_KEY",
    "TABLE_KEY_PATTERN",
    "FanoutSettings",
    "channel_key",
    "channels_key",
    "look_key",
    "media_key",
    "parse_redis_url",
    "published_channels",
    "snapshot_key",
    "split_channel_key",
    "split_look_key",
    "table_key",
]

TABLES_KEY = "feltcast:tables"
TABLE_KEY_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
"""A table's key: lower-case letters, digits and dashes, at most 40 (``table-1``, ``final``)."""
_PREFIX = "feltcast:t:"
DEFAULT_TABLE = "table"
FESTIVAL_KEY = "festival"
"""The festival's standings' key (its channels: ``feltcast:t:festival:<channel>``); no table
may take it."""
_LOOK_PREFIX = "feltcast:look:"
LOOK_PATTERN = f"{_LOOK_PREFIX}*"


def parse_redis_url(url: str, where: str) -> str:
    """``url`` if it is a Redis URL (``redis://``, ``rediss://`` with TLS, ``unix://``)."""
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise ConfigError(where, f"expected a redis://, rediss:// or unix:// URL, got {url!r}")
    return url


def table_key(text: str, where: str) -> str:
    if not TABLE_KEY_PATTERN.fullmatch(text):
        raise ConfigError(where, f"{text!r} is not a table key (lower-case letters, digits "
                          "and dashes, at most 40, e.g. 'table-1')")
    if text == FESTIVAL_KEY:
        raise ConfigError(where, f"{text!r} is the festival's own key: name the table "
                          "otherwise (e.g. 'table-1')")
    return text


@dataclass(frozen=True, slots=True)
class FanoutSettings:
    """``[fanout]``: where this table's public channels are published (empty ``url``: not
    published; one table, one process, as on a laptop)."""

    url: str = ""
    """The Redis server (``redis://127.0.0.1:6379/0``)."""
    table: str = DEFAULT_TABLE
    """This table's key in the festival (:data:`TABLE_KEY_PATTERN`)."""

    def __post_init__(self) -> None:
        if self.url:
            parse_redis_url(self.url, "fanout.url")
        table_key(self.table, "fanout.table")

    @property
    def enabled(self) -> bool:
        return bool(self.url)


def published_channels(specs: Iterable[ChannelSpec]) -> list[ChannelSpec]:
    """The channels a writer publishes: enabled and open without a token. A channel that
    shows hole cards live must require a token (:class:`engine.channels.ChannelSpec`), so
    none of these carries a secret before its time."""
    return [spec for spec in specs if spec.enabled and not spec.requires_token
            and not spec.internal]


def channels_key(table: str) -> str:
    return f"{_PREFIX}{table}:channels"


def channel_key(table: str, channel: str) -> str:
    return f"{_PREFIX}{table}:{channel}"


def snapshot_key(table: str, channel: str) -> str:
    return f"{_PREFIX}{table}:{channel}:snapshot"


def look_key(table: str) -> str:
    """The key (and the pub/sub channel) of ``table``'s look on air."""
    return f"{_LOOK_PREFIX}{table}"


def split_look_key(key: str) -> str | None:
    """The table of a look key, else ``None``.

    >>> split_look_key("feltcast:look:table-1")
    'table-1'
    >>> split_look_key("feltcast:look:../x") is None
    True
    """
    table = key.removeprefix(_LOOK_PREFIX)
    return table if key.startswith(_LOOK_PREFIX) and TABLE_KEY_PATTERN.fullmatch(table) \
        else None


def media_key(file_name: str) -> str:
    """The key of a theme's file (its served name: the content's hash and a suffix)."""
    return f"feltcast:media:{file_name}"


def split_channel_key(key: str) -> tuple[str, str] | None:
    """``(table, channel)`` of a pub/sub channel key, else ``None``.

    >>> split_channel_key("feltcast:t:table-1:delayed")
    ('table-1', 'delayed')
    >>> split_channel_key("feltcast:t:table-1:delayed:snapshot") is None
    True
    """
    if not key.startswith(_PREFIX):
        return None
    parts = key[len(_PREFIX):].split(":")
    if len(parts) != 2 or not TABLE_KEY_PATTERN.fullmatch(parts[0]) \
            or not parts[1].isidentifier():
        return None
    return parts[0], parts[1]
