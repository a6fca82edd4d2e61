"""Player identity for the graphics: full name, display name, country and photo per seat.

Identity is public (it is on every screen) and it is logged like everything else
(:class:`PlayerIdentified`), so the log stays the one source of truth: the graphics after a
restart, and on a delayed channel, are the log replayed. The table's own name of a player
(``player_seated``, the name in hand events and the action ticker) is not changed by it.

>>> e = PlayerIdentified(seat=4, name="Ann Smith", display_name="Ann", country="DE")
>>> Event.from_dict(e.to_dict()) == e
True
>>> Identity.of(e).to_view()["country"]
'DE'
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.errors import InvalidInputError
from engine.events import Event

__all__ = ["Identity", "PlayerIdentified", "check_country"]

MAX_NAME = 80
"""Longest full or display name accepted (graphics have room for less)."""


def check_country(code: str | None, *, where: str = "country") -> str | None:
    """``code`` as an upper-case ISO 3166-1 alpha-2 code (``None`` or ``""``: unknown).

    Only the shape is checked here; the service also checks it has a flag
    (:mod:`overlay.players`).

    :raises InvalidInputError: for anything that is not two letters.
    """
    if code is None or code.strip() == "":
        return None
    value = code.strip().upper()
    if len(value) != 2 or not value.isascii() or not value.isalpha():
        raise InvalidInputError(f"{where} must be a two-letter ISO 3166-1 code like DE or "
                                f"FR, got {code!r}")
    return value


@dataclass(frozen=True, slots=True)
class PlayerIdentified(Event):
    """The identity of the player in ``seat`` for graphics, complete (not a change set):
    the latest event for a seat is its identity. ``photo`` is the photo's URL path under
    ``/media/`` (the file lives in the service's data directory), ``None``: no photo."""

    kind: ClassVar[str] = "player_identified"

    seat: int
    name: str
    display_name: str
    country: str | None = None
    photo: str | None = None

    @classmethod
    def checked(cls, seat: int, name: str, display_name: str, country: str | None = None,
                photo: str | None = None) -> PlayerIdentified:
        """The event for a new identity, its values checked (names stripped, the country in
        upper case). Events read back from a log are taken as they are.

        :raises InvalidInputError: a seat outside 1-10, an empty or too long name, a country
            that is not two letters, a photo that is not a path under ``/media/``.
        """
        if not 1 <= seat <= 10:
            raise InvalidInputError(f"seat {seat} does not exist (1-10)")
        name, display_name = name.strip(), display_name.strip()
        for label, value in (("name", name), ("display name", display_name)):
            if not value:
                raise InvalidInputError(f"seat {seat}: the {label} is empty")
            if len(value) > MAX_NAME:
                raise InvalidInputError(f"seat {seat}: the {label} is longer than "
                                        f"{MAX_NAME} characters")
            if any(unicodedata.category(c) in ("Cc", "Cs") for c in value):
                raise InvalidInputError(f"seat {seat}: the {label} holds a control character "
                                        "or a broken character")
        if photo is not None and not photo.startswith("/media/"):
            raise InvalidInputError(f"seat {seat}: a photo is a path under /media/")
        return cls(seat, name, display_name, check_country(country), photo)


@dataclass(frozen=True, slots=True)
class Identity:
    """One seat's identity as the view shows it."""

    name: str
    display_name: str
    country: str | None = None
    photo: str | None = None

    @classmethod
    def of(cls, event: PlayerIdentified) -> Identity:
        return cls(event.name, event.display_name, event.country, event.photo)

    def to_view(self) -> dict[str, Any]:
        return {"name": self.name, "display_name": self.display_name,
                "country": self.country, "photo": self.photo}
