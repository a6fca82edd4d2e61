"""Roles, tokens and cross-site protection.

Three roles hold a token: ``operator`` (the console: every state-changing command), ``secure``
(the live channels with hole cards, for the production room) and ``obs`` (OBS's browser sources:
the live channels with hole cards only while OBS's own stream delay covers the security delay,
the public view otherwise; ``overlay/obs/control.py`` checks it). Tokens are generated on first
start, kept in ``<data>/tokens.json`` (mode 0600) and printed once. The ``venue`` and
``delayed`` channels need no token.

A token travels in the ``Authorization: Bearer <token>`` header (API clients, the console's
``fetch``), or as ``?token=`` in a page or websocket URL (OBS browser sources cannot set
headers). State-changing requests must carry the token in a header: a browser never adds such a
header to a cross-site request, so a header token is also the CSRF protection; the Origin, when a
browser sends one, must be the server's own or an allowed one.
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

from aiohttp import web

_log = logging.getLogger(__name__)

ROLES: Final = ("operator", "secure", "obs")
ROLE_GRANTS: Final[dict[str, frozenset[str]]] = {
    "operator": frozenset({"operator", "secure"}),  # the console also opens secure outputs
    "secure": frozenset({"secure"}), "obs": frozenset({"obs"})}
"""What a token of each role opens (shared tokens and named devices alike)."""
TOKEN_FILE: Final = "tokens.json"


@dataclass(frozen=True, slots=True)
class Tokens:
    """The tokens of each role."""

    operator: str
    secure: str
    obs: str = ""
    """OBS's browser sources (empty: none issued)."""
    created: bool = False
    """True when this start created them (the CLI then prints them once)."""

    def for_role(self, role: str) -> str:
        if role in ROLES:
            token: str = getattr(self, role)
            return token
        raise KeyError(role)

    def roles_of(self, token: str | None) -> frozenset[str]:
        """The roles a presented token grants; the operator token also opens secure outputs."""
        if not token:
            return frozenset()
        roles: set[str] = set()
        for role in ROLES:
            mine = self.for_role(role)
            if mine and hmac.compare_digest(token.encode(), mine.encode()):
                roles |= ROLE_GRANTS[role]
        return frozenset(roles)


def load_or_create_tokens(data_dir: Path) -> Tokens:
    """Read the tokens from the data directory, creating them on first start."""
    path = data_dir / TOKEN_FILE
    if path.exists():
        stored = json.loads(path.read_text())
        tokens = Tokens(operator=stored["operator"], secure=stored["secure"],
                        obs=stored.get("obs", ""))
        if not tokens.obs:  # a data directory from before the obs role: issue it now
            tokens = Tokens(tokens.operator, tokens.secure, secrets.token_urlsafe(24))
            _write_tokens(path, tokens)
        return tokens
    data_dir.mkdir(parents=True, exist_ok=True)
    tokens = Tokens(operator=secrets.token_urlsafe(24), secure=secrets.token_urlsafe(24),
                    obs=secrets.token_urlsafe(24), created=True)
    _write_tokens(path, tokens)
    return tokens


def _write_tokens(path: Path, tokens: Tokens) -> None:
    write_private(path, json.dumps({role: tokens.for_role(role) for role in ROLES}).encode())


def write_private(path: Path, data: bytes) -> None:
    """A secret file (tokens, keys): mode 0600 from its first byte, written to a temporary
    file and renamed, so it is never half-written or readable by others."""
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def presented_token(request: web.Request, *, allow_query: bool) -> str | None:
    """The token a request carries: the Authorization header, else (if allowed) ``?token=``."""
    header = request.headers.get("Authorization", "")
    if header.startswith("Bearer "):
        return header.removeprefix("Bearer ").strip()
    if allow_query:
        return request.query.get("token")
    return None


def origin_allowed(request: web.Request, allowed_origins: tuple[str, ...]) -> bool:
    """Whether the request's Origin (if any) is this server's own or an allowed one.

    Requests without an Origin header (OBS browser sources, curl, API clients) pass: the
    Origin check exists to stop *other web pages* in a browser from using the service.
    """
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    if origin in allowed_origins:
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc == request.host


class TokenThrottle:
    """Repeated wrong tokens from one peer: after ``limit`` within ``window`` seconds the peer
    is refused (429, ``Retry-After``) for ``block`` seconds, whatever it presents, and the
    block is logged once. A right token does not reset a block (guessing must not pay)."""

    def __init__(self, *, limit: int = 10, window: float = 60.0, block: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.window, self.block, self.clock = limit, window, block, clock
        self._failures: dict[str, deque[float]] = {}
        self._blocked: dict[str, float] = {}

    def retry_after(self, peer: str) -> float:
        """Seconds the peer is still refused (0: not blocked)."""
        until = self._blocked.get(peer)
        if until is None:
            return 0.0
        left = until - self.clock()
        if left <= 0:
            del self._blocked[peer]
            return 0.0
        return left

    def failed(self, peer: str) -> None:
        """One wrong token from ``peer``."""
        now = self.clock()
        failures = self._failures.setdefault(peer, deque())
        failures.append(now)
        while failures and failures[0] < now - self.window:
            failures.popleft()
        if len(failures) >= self.limit and peer not in self._blocked:
            self._blocked[peer] = now + self.block
            failures.clear()
            _log.warning("%d wrong tokens from %s within %g s: refusing it for %g s",
                         self.limit, peer, self.window, self.block)
        if len(self._failures) > 10_000:  # a flood of peers: forget the oldest
            self._failures.pop(next(iter(self._failures)))
