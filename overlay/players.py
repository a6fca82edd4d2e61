"""Player identity in the service: names, display names, countries, photos, CSV import.

Identity is logged (:class:`engine.identity.PlayerIdentified`, public), so the graphics after a
restart and on a delayed channel are the log replayed. :class:`PlayerDirectory` keeps the
current identity of each seat (rebuilt from the log at start-up) and turns a ``set_player``
command or a CSV row into the next complete identity event.

Photos are files in the data directory (``<data>/media/players/``), served at
``/media/players/<file>``; an identity event names the URL path, never the bytes. A photo is
checked by its first bytes (JPEG, PNG or WebP) and its size (:data:`MAX_PHOTO_BYTES`), and
stored under a name made of the seat and a hash of its content (a new photo is a new URL, so
no page shows a cached old one).

The CSV format (``docs/tournament.md``, "CSV format")::

    seat,name,display_name,country,photo
    1,Ann Smith,Ann,DE,photos/ann.jpg
    4,Ole Hansen,,NO,

``seat`` and ``name`` are required; ``display_name`` defaults to the name, ``country`` is an
ISO 3166-1 alpha-2 code, ``photo`` a file next to the CSV (only ``feltcast players import``
uploads files; the HTTP import refuses the column). Commas or semicolons separate the fields
(spreadsheets in many countries write semicolons); a UTF-8 byte-order mark is ignored. Every
problem is reported at once with its line number.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine.errors import InvalidInputError
from engine.events import Event, PlayerEliminated
from engine.identity import MAX_NAME, PlayerIdentified, check_country
from engine.table_events import SeatEmptied
from engine.tournament_events import PlayerDisqualified
from overlay.assets import flags_dir

__all__ = ["CSV_COLUMNS", "MAX_PHOTO_BYTES", "CsvPlayer", "PhotoStore", "PlayerDirectory",
           "check_flag_country", "parse_players_csv"]

FLAGS_DIR = flags_dir()
MAX_PHOTO_BYTES = 4 * 1024 * 1024
"""The largest photo accepted (a portrait for a lower third needs far less)."""
PHOTO_TYPES: Mapping[str, str] = {"image/jpeg": ".jpg", "image/png": ".png",
                                  "image/webp": ".webp"}
CSV_COLUMNS = ("seat", "name", "display_name", "country", "photo")
MAX_CSV_ROWS = 200


@lru_cache(maxsize=1)
def flag_countries(flags_dir: Path = FLAGS_DIR) -> frozenset[str]:
    """The upper-case codes with a bundled flag (``static/flags/<code>.svg``)."""
    return frozenset(p.stem.upper() for p in flags_dir.glob("*.svg") if len(p.stem) == 2)


def check_flag_country(code: str | None, *, where: str = "country") -> str | None:
    """An ISO 3166-1 alpha-2 code with a bundled flag, upper case (``None``: unknown).

    :raises InvalidInputError: for a code that is not two letters or not a country.
    """
    value = check_country(code, where=where)
    if value is not None and value not in flag_countries():
        raise InvalidInputError(f"{where}: {value} is not an ISO 3166-1 country code "
                                "(examples: DE, FR, GB, US)")
    return value


def photo_type(data: bytes) -> str | None:
    """The image type of ``data`` by its first bytes, or ``None``."""
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


class PhotoStore:
    """Player photos in ``<data_dir>/media/players`` (see the module docstring)."""

    URL_PREFIX = "/media/players/"

    def __init__(self, data_dir: Path) -> None:
        self.directory = data_dir / "media" / "players"

    def save(self, seat: int, data: bytes, content_type: str = "") -> str:
        """Store a photo for ``seat``; returns its URL path.

        :raises InvalidInputError: an empty, too large or unsupported file, or one whose
            content does not match its declared type.
        """
        if not data:
            raise InvalidInputError("the photo is empty")
        if len(data) > MAX_PHOTO_BYTES:
            raise InvalidInputError(f"the photo is {len(data) / 1e6:.1f} MB; the limit is "
                                    f"{MAX_PHOTO_BYTES / 1e6:.1f} MB")
        kind = photo_type(data)
        if kind is None:
            raise InvalidInputError("a photo must be a JPEG, PNG or WebP image")
        declared = content_type.split(";")[0].strip().lower()
        if declared and declared not in ("application/octet-stream", kind):
            raise InvalidInputError(f"the file is {kind} but was sent as {declared}")
        digest = hashlib.sha256(data).hexdigest()[:16]
        name = f"seat{seat}-{digest}{PHOTO_TYPES[kind]}"
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / name
        if not path.exists():
            temporary = path.with_suffix(".part")
            temporary.write_bytes(data)
            temporary.replace(path)  # never a half-written file under the served name
        return self.URL_PREFIX + name

    def exists(self, url: str) -> bool:
        name = url.removeprefix(self.URL_PREFIX)
        return (url.startswith(self.URL_PREFIX) and "/" not in name
                and (self.directory / name).is_file())


@dataclass(frozen=True, slots=True)
class CsvPlayer:
    """One row of a players CSV, checked."""

    line: int
    seat: int
    name: str
    display_name: str
    country: str | None
    photo: str | None
    """The photo file as written in the CSV (relative to the CSV), or ``None``."""


def parse_players_csv(text: str, *, max_seat: int = 10,
                      photos: bool = True) -> list[CsvPlayer]:
    """The rows of a players CSV (see the module docstring).

    ``photos=False`` refuses a non-empty ``photo`` column (the HTTP import cannot take files).

    :raises InvalidInputError: listing every problem with its line number.
    """
    text = text.removeprefix("\ufeff")
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise InvalidInputError("the CSV is empty: its first line names the columns "
                                f"({', '.join(CSV_COLUMNS)})")
    header = lines[0]
    delimiter = ";" if header.count(";") > header.count(",") else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    columns = [c.strip().lower() for c in next(reader)]
    problems: list[str] = []
    unknown = [c for c in columns if c not in CSV_COLUMNS]
    if unknown:
        problems.append(f"line 1: unknown column {unknown[0]!r} "
                        f"(columns: {', '.join(CSV_COLUMNS)})")
    for required in ("seat", "name"):
        if required not in columns:
            problems.append(f"line 1: the column {required!r} is missing")
    if len(set(columns)) != len(columns):
        problems.append("line 1: a column is named twice")
    if problems:
        raise InvalidInputError("the CSV has problems: " + "; ".join(problems))
    rows: list[CsvPlayer] = []
    seats: dict[int, int] = {}
    for row in reader:
        line = reader.line_num
        if not any(cell.strip() for cell in row):
            continue  # blank line
        if len(row) > len(columns):
            problems.append(f"line {line}: {len(row)} fields, the header has {len(columns)}")
            continue
        cells = {c: (row[k].strip() if k < len(row) else "") for k, c in enumerate(columns)}
        try:
            player = _csv_player(line, cells, max_seat=max_seat, photos=photos)
        except InvalidInputError as error:
            problems.append(f"line {line}: {error}")
            continue
        if player.seat in seats:
            problems.append(f"line {line}: seat {player.seat} is already on line "
                            f"{seats[player.seat]}")
            continue
        seats[player.seat] = line
        rows.append(player)
        if len(rows) > MAX_CSV_ROWS:
            problems.append(f"line {line}: more than {MAX_CSV_ROWS} players")
            break
    if problems:
        shown = problems[:20]
        more = f" (and {len(problems) - 20} more)" if len(problems) > 20 else ""
        raise InvalidInputError("the CSV has problems: " + "; ".join(shown) + more)
    if not rows:
        raise InvalidInputError("the CSV names no players (only a header line)")
    return rows


def _csv_player(line: int, cells: Mapping[str, str], *, max_seat: int,
                photos: bool) -> CsvPlayer:
    seat_text = cells.get("seat", "")
    if not seat_text.isdigit() or not 1 <= int(seat_text) <= max_seat:
        raise InvalidInputError(f"seat {seat_text!r} is not a seat number (1-{max_seat})")
    name = cells.get("name", "")
    if not name:
        raise InvalidInputError("the name is empty")
    display = cells.get("display_name", "") or name
    for label, value in (("name", name), ("display_name", display)):
        if len(value) > MAX_NAME:
            raise InvalidInputError(f"the {label} is longer than {MAX_NAME} characters")
    country = check_flag_country(cells.get("country", ""))
    photo = cells.get("photo", "") or None
    if photo is not None and not photos:
        raise InvalidInputError("photos cannot be imported over HTTP: upload them with "
                                "POST /api/players/{seat}/photo, or import with "
                                "'feltcast players import', which uploads the files")
    return CsvPlayer(line, int(seat_text), name, display, country, photo)


class PlayerDirectory:
    """The current identity of each seat (see the module docstring)."""

    def __init__(self) -> None:
        self.identities: dict[int, PlayerIdentified] = {}

    def apply(self, event: Event) -> None:
        """Follow the log: identities set, and dropped when the player leaves the seat
        (emptied, busted or disqualified: a new player there starts without one)."""
        if isinstance(event, PlayerIdentified):
            self.identities[event.seat] = event
        elif isinstance(event, SeatEmptied | PlayerEliminated | PlayerDisqualified):
            self.identities.pop(event.seat, None)

    def apply_all(self, events: Iterable[Event]) -> None:
        for event in events:
            self.apply(event)

    def identify(self, seat: int, fields: Mapping[str, Any], *, table_name: str | None,
                 photos: PhotoStore | None = None) -> PlayerIdentified:
        """The next identity of ``seat`` from a ``set_player`` command's ``fields``: a field
        that is absent keeps its value, ``null`` clears it (a cleared name falls back to the
        table's name of the player).

        :raises InvalidInputError: a bad field, or no name known for the seat.
        """
        current = self.identities.get(seat)
        for key in fields:
            if key not in ("name", "display_name", "country", "photo"):
                raise InvalidInputError(f"set_player does not know the field {key!r} "
                                        "(name, display_name, country, photo)")
        for key in ("name", "display_name", "country", "photo"):
            value = fields.get(key)
            if value is not None and not isinstance(value, str):
                raise InvalidInputError(f"set_player: {key!r} must be text or null, "
                                        f"got {value!r}")

        def pick(key: str, old: str | None) -> str | None:
            if key not in fields:
                return old
            value = fields[key]
            return value.strip() or None if isinstance(value, str) else None

        name = pick("name", current.name if current else None) or table_name
        if not name:
            raise InvalidInputError(f"seat {seat} has no player: give a name")
        display = pick("display_name", current.display_name if current else None)
        display = display or table_name or name
        country = check_flag_country(pick("country", current.country if current else None))
        photo = pick("photo", current.photo if current else None)
        if photo is not None and photos is not None and "photo" in fields \
                and not photos.exists(photo):
            raise InvalidInputError(f"there is no uploaded photo {photo!r} (upload it with "
                                    "POST /api/players/{seat}/photo)")
        return PlayerIdentified.checked(seat, name, display, country, photo)

    def from_csv(self, rows: Sequence[CsvPlayer],
                 photo_urls: Mapping[int, str] | None = None) -> list[PlayerIdentified]:
        """One identity event per CSV row (``photo_urls``: uploaded photos by seat; a row
        without one keeps the seat's current photo)."""
        urls = photo_urls or {}
        events = []
        for row in rows:
            current = self.identities.get(row.seat)
            photo = urls.get(row.seat, current.photo if current else None)
            events.append(PlayerIdentified.checked(row.seat, row.name, row.display_name,
                                                   row.country, photo))
        return events
