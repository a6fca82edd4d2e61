"""Named device tokens: one per tablet, laptop, OBS machine or commentary booth.

``feltcast tokens create NAME --role ROLE`` (or ``POST /api/devices`` from the console) makes a
token for one device and shows it once; only its SHA-256 is stored (table ``device_token`` of
the log's database). ``feltcast tokens revoke NAME`` (or ``DELETE /api/devices/NAME``) ends it:
the running service notices within a second and closes that device's sockets at once; its next
request is refused. The roles are those of ``overlay/auth.py``: ``operator`` (commands
and every channel), ``secure`` (the live channels with hole cards), ``obs`` (those only while
OBS's stream delay covers D) and ``commentary`` (the live channels with hole cards, read only,
for a commentators' booth).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Final

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from engine.errors import InvalidInputError
from overlay.auth import ROLES, token_digest

DEVICE_ROLES: Final = ROLES
_TABLE = sa.table("device_token", sa.column("name"), sa.column("role"),
                  sa.column("token_hash"), sa.column("created"), sa.column("revoked"))


@dataclass(frozen=True, slots=True)
class Device:
    name: str
    role: str
    created: float
    revoked: float | None = None


def _check_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > 64 or not all(c.isalnum() or c in " -_." for c in name):
        raise InvalidInputError(f"a device name is 1-64 letters, digits, spaces, '-', '_' or "
                                f"'.', got {name!r}")
    return name


def create_device(engine: Engine, name: str, role: str, now: float) -> str:
    """A new token for device ``name``; the token itself (shown once, never stored).

    :raises InvalidInputError: a bad name or role, or a name in use (revoked ones too).
    """
    name = _check_name(name)
    if role not in DEVICE_ROLES:
        raise InvalidInputError(f"a device role is one of {', '.join(DEVICE_ROLES)}, got "
                                f"{role!r}")
    token = secrets.token_urlsafe(24)
    try:
        with engine.begin() as conn:
            conn.execute(sa.insert(_TABLE).values(name=name, role=role,
                                                  token_hash=token_digest(token), created=now))
    except sa.exc.IntegrityError:
        raise InvalidInputError(f"there is a device named {name!r} already (names are kept "
                                f"after a revocation: pick another)") from None
    return token


def revoke_device(engine: Engine, name: str, now: float) -> bool:
    """End device ``name``'s token; False when there is no such live device."""
    with engine.begin() as conn:
        done = conn.execute(sa.update(_TABLE).where(_TABLE.c.name == name,
                                                    _TABLE.c.revoked.is_(None))
                            .values(revoked=now))
    return bool(done.rowcount)


def list_devices(engine: Engine) -> list[Device]:
    with engine.connect() as conn:
        rows = conn.execute(sa.select(_TABLE.c.name, _TABLE.c.role, _TABLE.c.created,
                                      _TABLE.c.revoked).order_by(_TABLE.c.created)).all()
    return [Device(*row) for row in rows]


class DeviceBook:
    """The live device tokens as the service checks them (kept in memory, re-read by
    :meth:`refresh` once a second)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._by_hash: dict[str, Device] = {}
        self._revoked: set[str] = set()
        self._ended: dict[str, str] = {}

    def refresh(self) -> set[str]:
        """Re-read the table; returns the names revoked since the last read."""
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(_TABLE.c.name, _TABLE.c.role, _TABLE.c.created,
                                          _TABLE.c.revoked, _TABLE.c.token_hash)).all()
        live = {digest: Device(name, role, created) for name, role, created, revoked, digest
                in rows if revoked is None}
        ended = {digest: name for name, _, _, revoked, digest in rows if revoked is not None}
        new = set(ended.values()) - self._revoked
        self._by_hash, self._revoked, self._ended = live, set(ended.values()), ended
        return new

    def lookup(self, token: str | None) -> Device | None:
        return self._by_hash.get(token_digest(token)) if token else None

    def revoked_name(self, token: str) -> str | None:
        """The device whose revoked token this is (``None``: not a revoked token)."""
        return self._ended.get(token_digest(token))
