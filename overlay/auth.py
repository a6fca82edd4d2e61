"""Roles, tokens and cross-site protection.

Four roles hold a token: ``operator`` (the console: every state-changing command), ``secure``
(the live channels with hole cards, for the production room), ``obs`` (OBS's browser sources:
the live channels with hole cards only while OBS's own stream delay covers the security delay,
the public view otherwise; ``overlay/devices/obs/control.py`` checks it) and ``commentary`` (the
commentators' booth: the live channels with hole cards, read only, named as such in the access
audit). The first three have a shared token; ``commentary`` is for named devices only
(``overlay/device_tokens.py``). Tokens are generated on first
start and printed once; ``<data>/tokens.json`` (mode 0600) keeps the operator's and the
production room's as SHA-256 digests only (``feltcast tokens rotate ROLE`` issues a new one when
one is lost or leaked). The ``venue`` and
``delayed`` channels need no token.

A token travels in the ``Authorization: Bearer <token>`` header (API clients, the console's
``fetch``), or as ``?token=`` in a page or websocket URL (OBS browser sources cannot set
headers). State-changing requests must carry the token in a header: a browser never adds such a
header to a cross-site request, so a header token is also the CSRF protection; the Origin, when a
browser sends one, must be the server's own or an allowed one.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import os
import secrets
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

from aiohttp import web

from engine.errors import ConfigError, InvalidInputError
from overlay.keys import CONFIG_KEY, DEVICES_KEY, THROTTLE_KEY, TOKENS_KEY
from overlay.web_errors import json_error, too_many_requests

_log = logging.getLogger(__name__)

SHARED_ROLES: Final = ("operator", "secure", "obs")
"""The roles with a shared token in ``tokens.json``."""
ROLES: Final = (*SHARED_ROLES, "commentary")
"""Every role a named device token may have."""
ROLE_GRANTS: Final[dict[str, frozenset[str]]] = {
    "operator": frozenset({"operator", "secure"}),  # the console also opens secure outputs
    "secure": frozenset({"secure"}), "obs": frozenset({"obs"}),
    "commentary": frozenset({"secure", "commentary"})}
"""What a token of each role opens (shared tokens and named devices alike)."""
TOKEN_FILE: Final = "tokens.json"


DIGESTED: Final = ("operator", "secure")
"""The shared tokens ``tokens.json`` keeps only as a SHA-256 digest (never the token itself)."""


def token_digest(token: str) -> str:
    """The SHA-256 (hex) a token is kept as: shared tokens and named devices alike."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Tokens:
    """The shared tokens, as ``tokens.json`` keeps them: the operator's and the production
    room's as SHA-256 digests, never the tokens themselves; OBS's in clear, because the service
    writes it into OBS's browser sources itself (``feltcast obs setup``; OBS keeps it in its
    scene collection in clear anyway), and it opens hole cards only while OBS delays the stream
    by D. The tokens themselves are known only on the start that issued them (:attr:`issued`,
    printed once)."""

    digests: Mapping[str, str]
    """The SHA-256 of the ``operator`` and ``secure`` tokens."""
    obs: str = ""
    """OBS's browser sources' token."""
    issued: Mapping[str, str] = field(default_factory=dict)
    """The tokens this start issued, by role (empty on a later start)."""

    @property
    def operator(self) -> str:
        """The operator's token, when this start issued it ("" otherwise)."""
        return self.issued.get("operator", "")

    @property
    def secure(self) -> str:
        """The production room's token, when this start issued it ("" otherwise)."""
        return self.issued.get("secure", "")

    @property
    def created(self) -> bool:
        """True when this start issued tokens (the CLI then prints them once)."""
        return bool(self.issued)

    def role_of(self, token: str | None) -> str:
        """The shared role a presented token is the token of ("": none)."""
        if not token:
            return ""
        digest = token_digest(token)
        for role in DIGESTED:
            if hmac.compare_digest(digest, self.digests.get(role, "")):
                return role
        if self.obs and hmac.compare_digest(token.encode(), self.obs.encode()):
            return "obs"
        return ""

    def roles_of(self, token: str | None) -> frozenset[str]:
        """What a presented token opens; the operator token also opens secure outputs."""
        role = self.role_of(token)
        return ROLE_GRANTS[role] if role else frozenset()

    def to_json(self) -> bytes:
        return json.dumps({"format": _FORMAT, "sha256": dict(self.digests), "obs": self.obs},
                          indent=2).encode()


_FORMAT: Final = 2
"""``tokens.json``'s layout: 2 keeps digests; 1 (before 0.2) kept every token in clear."""


def issue_tokens(roles: tuple[str, ...] = SHARED_ROLES, *, keep: Tokens | None = None,
                 ) -> Tokens:
    """New shared tokens for ``roles``; the other roles' are kept from ``keep``."""
    fresh = {role: secrets.token_urlsafe(24) for role in roles}
    digests = dict(keep.digests) if keep else {}
    digests |= {role: token_digest(fresh[role]) for role in DIGESTED if role in fresh}
    obs = fresh.get("obs", keep.obs if keep else "")
    return Tokens(digests, obs, fresh)


def read_tokens(data_dir: Path) -> Tokens | None:
    """The shared tokens of the data directory (None: not issued yet). A file from before
    0.2 (every token in clear) is rewritten with digests; its tokens keep working.

    :raises ConfigError: the file is not one ``tokens.json`` can be.
    """
    path = data_dir / TOKEN_FILE
    try:
        stored = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        raise ConfigError("tokens", f"{path} cannot be read ({error}); move it away and "
                          f"start again to issue new tokens") from None
    try:
        if stored.get("format") == _FORMAT:
            digests = {role: str(stored["sha256"][role]) for role in DIGESTED}
            return Tokens(digests, str(stored.get("obs", "")))
        legacy = Tokens({role: token_digest(stored[role]) for role in DIGESTED},
                        str(stored.get("obs", "")))
    except (AttributeError, KeyError, TypeError):
        raise ConfigError("tokens", f"{path} is not a Feltcast token file; move it away and "
                          f"start again to issue new tokens") from None
    if not legacy.obs:  # a data directory from before the obs role: issue it now
        legacy = issue_tokens(("obs",), keep=legacy)
        legacy = Tokens(legacy.digests, legacy.obs)
    write_private(path, legacy.to_json())
    _log.info("%s: the operator and secure tokens are now kept as digests only", path)
    return legacy


def load_or_create_tokens(data_dir: Path) -> Tokens:
    """Read the shared tokens from the data directory, issuing them on first start."""
    tokens = read_tokens(data_dir)
    if tokens is not None:
        return tokens
    return rotate_tokens(data_dir, SHARED_ROLES)


def rotate_tokens(data_dir: Path, roles: tuple[str, ...]) -> Tokens:
    """New shared tokens for ``roles`` (the others kept), written to ``tokens.json``; the old
    ones stop working (a running service re-reads the file within a second and closes their
    sockets). The returned tokens carry the new ones in :attr:`Tokens.issued`, to print once;
    in a data directory without tokens yet, every role's is issued.
    """
    unknown = [role for role in roles if role not in SHARED_ROLES]
    if unknown:
        raise InvalidInputError(f"the shared tokens are {', '.join(SHARED_ROLES)}; "
                                f"{', '.join(unknown)} is not one (a commentary booth gets a "
                                f"named device token: feltcast tokens create)")
    data_dir.mkdir(parents=True, exist_ok=True)
    kept = read_tokens(data_dir)
    tokens = issue_tokens(roles if kept else SHARED_ROLES, keep=kept)  # the first: all
    write_private(data_dir / TOKEN_FILE, tokens.to_json())
    return tokens


class TokenFile:
    """The shared tokens as a running service checks them: ``tokens.json`` re-read by
    :meth:`refresh` when it changes (``feltcast tokens rotate`` from another terminal)."""

    def __init__(self, data_dir: Path, tokens: Tokens) -> None:
        self.path = data_dir / TOKEN_FILE
        self.tokens = tokens
        self.retired: set[str] = set()
        """Digests of the shared tokens rotated away while this service ran."""
        self._stamp = self._stat()

    def _stat(self) -> tuple[int, int] | None:
        try:
            stat = self.path.stat()
        except OSError:
            return None
        return stat.st_mtime_ns, stat.st_size

    def refresh(self) -> set[str]:
        """Re-read the file if it changed; returns the roles whose token changed."""
        stamp = self._stat()
        if stamp is None or stamp == self._stamp:
            return set()
        fresh = read_tokens(self.path.parent)
        self._stamp = stamp
        if fresh is None:
            return set()
        changed = {role for role in DIGESTED if fresh.digests.get(role)
                   != self.tokens.digests.get(role)}
        changed |= {"obs"} if fresh.obs != self.tokens.obs else set()
        old = self.tokens
        self.retired |= {old.digests[role] for role in changed if role in old.digests}
        self.retired |= {token_digest(old.obs)} if "obs" in changed and old.obs else set()
        self.tokens = Tokens(fresh.digests, fresh.obs, self.tokens.issued)
        return changed

    def is_retired(self, token: str) -> bool:
        """A shared token this run rotated away (refused, but not as a guess)."""
        return token_digest(token) in self.retired


def shared_socket_key(role: str) -> str:
    """How the sockets opened with a shared token are filed beside the named devices' (no
    device name has parentheses)."""
    return f"({role})"


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


# --- access checks: who a request is, and whether it may do what it asks ----------------


def peer_is_local(peer: str | None, networks: tuple[str, ...]) -> bool:
    """Whether ``peer`` (an IP address) is in one of the local ``networks``."""
    if not peer:
        return False
    try:
        address = ipaddress.ip_address(peer.split("%")[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in ipaddress.ip_network(network, strict=False) for network in networks)


@dataclass(frozen=True, slots=True)
class Identity:
    """Who a presented token says the caller is."""

    roles: frozenset[str] = frozenset()
    """What the token opens (``auth.ROLE_GRANTS`` of its role)."""
    role: str = "none"
    """The token's role, as the access audit names it."""
    device: str = ""
    """The named device it belongs to (``""``: a shared token of ``tokens.json``, or none)."""


def identify(app: web.Application, token: str | None) -> Identity:
    """The role, grants and named device of a token: one lookup for all three."""
    role = app[TOKENS_KEY].tokens.role_of(token)
    if role:
        return Identity(ROLE_GRANTS[role], role)
    device = app[DEVICES_KEY].lookup(token) if DEVICES_KEY in app and token else None
    return Identity(ROLE_GRANTS[device.role], device.role, device.name) if device else Identity()


def roles_of(app: web.Application, token: str | None) -> frozenset[str]:
    return identify(app, token).roles


def require_private_transport(request: web.Request, what: str) -> None:
    """Tokens and live hole cards travel in TLS, or stay within the local networks.

    :raises HTTPException: 403 for a plaintext request from outside ``[server]
        local_networks`` (unless ``allow_plaintext``)."""
    server = request.app[CONFIG_KEY].server
    if request.secure or server.allow_plaintext or peer_is_local(request.remote,
                                                                  server.local_networks):
        return
    raise json_error(403, "plaintext_refused", f"{what} needs TLS from another machine "
                     f"(https://, wss://): this connection from {request.remote} is plain "
                     f"text on the venue network")


def token_roles(request: web.Request, token: str | None) -> frozenset[str]:
    """The roles ``token`` grants; a peer that presented too many wrong tokens is refused (429)
    and each token that opens nothing counts against it (:class:`overlay.auth.TokenThrottle`)."""
    throttle, peer = request.app[THROTTLE_KEY], request.remote or "unknown"
    if token:
        wait = throttle.retry_after(peer)
        if wait:
            raise too_many_requests(wait)
    roles = roles_of(request.app, token)
    if token and not roles:
        refuse_retired(request.app, token)
        throttle.failed(peer)
    return roles


def refuse_retired(app: web.Application, token: str) -> None:
    """A revoked device's or a rotated shared token is refused (403, ``token_revoked``) but
    not counted as a guess: a page left open with it retries for as long as it is open, and
    must not get the throttle to block every device behind the same address (the console on
    the same machine, a venue's NAT)."""
    device = app[DEVICES_KEY].revoked_name(token) if DEVICES_KEY in app else None
    if device is not None:
        raise json_error(403, "token_revoked", f"the token of device {device!r} was revoked: "
                         f"the operator can create a new one (console, Devices)")
    if app[TOKENS_KEY].is_retired(token):
        raise json_error(403, "token_revoked", "this token was replaced (feltcast tokens "
                         "rotate): use the new one")


def require_operator(request: web.Request) -> None:
    """State-changing requests: the operator token in a header and a same-site Origin."""
    if not origin_allowed(request, request.app[CONFIG_KEY].server.allowed_origins):
        raise json_error(403, "forbidden", "cross-site requests are refused")
    require_private_transport(request, "the operator's token")
    token = presented_token(request, allow_query=False)
    if not token:
        raise json_error(401, "unauthorized", "the operator token is missing "
                         "(Authorization: Bearer <token>)")
    if "operator" not in token_roles(request, token):
        raise json_error(401, "unauthorized", "the operator token is wrong")
