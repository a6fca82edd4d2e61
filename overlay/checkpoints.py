"""State checkpoints: a start in constant time, whatever the length of the log.

Without them a start replays the whole log into the table, the tournament desk and every
channel (and draws each channel's resume history): seconds at a few thousand entries, and a
two-day final table only gets longer, while the stream's graphics wait. So the service saves
its state at a log position, every ``[database] checkpoint_every`` entries (at the end of a
hand when one is near, and on a clean stop), in the log's own database (table
``state_checkpoint``, :mod:`overlay.store`); a start takes the newest valid checkpoint and
replays only the entries after it. A checkpoint holds

* the table (:class:`engine.table.Table` with its hand), the replay recorder, the tournament
  desk's state, the audited connections still open, the clock call still running;
* each channel hub's view of the log (released count, the items still waiting for their
  delay), its reducer's state, its drawn view and its resume history (the messages as the
  subscribers got them), so that a page that reconnects after a restart with its revision gets
  only what it missed.

What makes a checkpoint valid, each checked at the start (one warning per checkpoint set
aside, then the next older one is tried, then the full log):

* its *format*: written by this very code (a digest of the engine's and the service's source)
  for this very table and channel configuration: an upgrade or a changed ``[table]``,
  ``[delay]``, ``[channels]`` or ``[tournament]`` sets it aside;
* its position: the log's entry at that sequence number still has the hash the checkpoint
  recorded (the log was not replaced, cut or rewritten under it);
* its MAC: HMAC-SHA256 with the data directory's ``checkpoint.key`` (made on first use, mode
  0600) over all of the above and the state; only then is the state unpickled. Without the key
  (a log copied without its data directory) no checkpoint is used.

Checkpoints are derived data: deleting them loses nothing but start-up time, and
``tests/overlay/test_checkpoints.py`` checks that a start from one equals a full replay.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import pickle
import secrets
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

from overlay.auth import write_private
from overlay.config import Config
from overlay.store import SCHEMA_VERSION, EventStore, StoredCheckpoint

_log = logging.getLogger(__name__)

KEY_FILE: Final = "checkpoint.key"
FORMAT_VERSION: Final = 1
"""This module's own layout of the state."""
KEEP: Final = 3
"""Checkpoints kept (the newest ones)."""
_STATE_MODULES: Final = ("overlay/hub.py", "overlay/table_service.py",
                         "overlay/tournament_desk.py", "overlay/checkpoints.py",
                         "overlay/channel_views.py", "overlay/players.py")


@cache
def code_digest() -> str:
    """A digest of the source whose objects a checkpoint pickles: the engine and the service
    modules that hold state. Any change to them sets older checkpoints aside."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    files = sorted((root / "engine").rglob("*.py")) + [root / name for name in _STATE_MODULES]
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def state_format(config: Config) -> str:
    """The format a checkpoint must have to be used with ``config`` by this code."""
    shaping = repr((config.table, config.players, config.delay, config.channels,
                    config.tournament))
    table = hashlib.sha256(shaping.encode()).hexdigest()
    return f"v{FORMAT_VERSION} schema {SCHEMA_VERSION} code {code_digest()[:24]} " \
           f"table {table[:24]}"


def checkpoint_key(data_dir: Path, *, create: bool) -> bytes | None:
    """The data directory's checkpoint MAC key (``None``: there is none and ``create`` is
    false)."""
    path = data_dir / KEY_FILE
    try:
        key = path.read_bytes()
    except FileNotFoundError:
        if not create:
            return None
        key = secrets.token_bytes(32)
        data_dir.mkdir(parents=True, exist_ok=True)
        write_private(path, key)
        return key
    return key if len(key) == 32 else None


def _mac(key: bytes, seq: int, entry_hash: str, fmt: str, state: bytes) -> str:
    mac = hmac.new(key, f"{seq}\n{entry_hash}\n{fmt}\n".encode(), hashlib.sha256)
    mac.update(state)
    return mac.hexdigest()


@dataclass(frozen=True, slots=True)
class Captured:
    """A state captured at entry ``seq``, not yet written."""

    seq: int
    pickled: bytes
    deferred: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Restored:
    """A checkpoint's state, checked and unpickled."""

    seq: int
    """The last log entry it includes."""
    state: Mapping[str, Any]
    """``{"hubs": {name: ...}, "log": {...}, "service": {...}, "deferred": {...}}``."""


class Checkpoints:
    """The checkpoints of one service: written on its loop's schedule, read at its start.

    :meth:`capture` (on the event loop, where the state lives: a consistent picture) pickles
    the state; :meth:`write` (in a worker thread) compresses, seals and stores it.
    """

    def __init__(self, store: EventStore, data_dir: Path, config: Config, *,
                 every: int) -> None:
        self.store = store
        self.data_dir = data_dir
        self.format = state_format(config)
        self.every = every
        self.last_seq = 0
        """The position of the newest checkpoint written or read."""
        self.restored: Restored | None = None
        """What the start took (the table service reads it once)."""
        self.started_from = 0
        """The entry the last start's checkpoint stood at (0: the whole log was replayed)."""
        self.skipped: list[str] = []
        """Why checkpoints were set aside at the start (also logged as warnings)."""

    @property
    def enabled(self) -> bool:
        return self.every > 0

    # --- the start ------------------------------------------------------------------------

    def load(self) -> Restored | None:
        """The newest valid checkpoint (blocking: call it in a thread), else ``None``."""
        stored = self.store.checkpoints()
        if stored:
            self.last_seq = stored[0].seq
        if not self.enabled or not stored:
            return None
        key = checkpoint_key(self.data_dir, create=False)
        if key is None:
            self._skip(f"no {KEY_FILE} in {self.data_dir}: the checkpoints cannot be checked, "
                       f"so none is used")
            return None
        for row in stored:
            restored = self._check(row, key)
            if restored is not None:
                self.restored, self.started_from = restored, restored.seq
                return restored
        return None

    def _check(self, row: StoredCheckpoint, key: bytes) -> Restored | None:
        where = f"the checkpoint at entry {row.seq}"
        if row.format != self.format:
            self._skip(f"{where} was written by another Feltcast or for another table, "
                       f"delay or channel configuration ({row.format}); the log is replayed")
            return None
        if self.store.hash_at(row.seq) != row.entry_hash:
            self._skip(f"{where} does not match the log (its entry {row.seq} differs or is "
                       f"gone); the log is replayed")
            return None
        blob = self.store.checkpoint_state(row.seq) or b""
        if not hmac.compare_digest(_mac(key, row.seq, row.entry_hash, row.format, blob),
                                   row.mac):
            self._skip(f"{where} is damaged or was not written with this data directory's "
                       f"key; the log is replayed")
            return None
        try:  # sealed by our own key: see above
            outer = pickle.loads(zlib.decompress(blob))
            state = pickle.loads(outer["state"]) | {"deferred": outer["deferred"]}
        except Exception as error:
            self._skip(f"{where} cannot be read ({type(error).__name__}: {error}); the log "
                       f"is replayed")
            return None
        return Restored(row.seq, state)

    def _skip(self, why: str) -> None:
        self.skipped.append(why)
        _log.warning("%s", why)

    # --- while the service runs -------------------------------------------------------------

    def due(self, seq: int, *, hand_over: bool) -> bool:
        """Whether to checkpoint at entry ``seq``: every :attr:`every` entries, or at the end
        of a hand once a quarter of that has been logged."""
        if not self.enabled:
            return False
        since = seq - self.last_seq
        return since >= self.every or (hand_over and since >= max(1, self.every // 4))

    def capture(self, seq: int, state: Mapping[str, Any], deferred: Mapping[str, Any],
                ) -> Captured:
        """The state at entry ``seq``: ``state`` pickled now (on the loop, where it changes:
        nothing moves meanwhile), ``deferred`` (values that never change once made, such as
        the channels' resume histories) kept as references for :meth:`write` to pickle."""
        self.last_seq = seq
        return Captured(seq, pickle.dumps(dict(state), protocol=pickle.HIGHEST_PROTOCOL),
                        deferred)

    def write(self, captured: Captured, now: float) -> None:
        """Finish, compress, seal and store a captured state (blocking: call it in a thread)."""
        seq = captured.seq
        pickled = pickle.dumps({"state": captured.pickled, "deferred": captured.deferred},
                               protocol=pickle.HIGHEST_PROTOCOL)
        entry_hash = self.store.hash_at(seq)
        if entry_hash is None:  # not committed: cannot be (capture follows the publish)
            _log.warning("no checkpoint at entry %d: the log does not hold it", seq)
            return
        key = checkpoint_key(self.data_dir, create=True)
        assert key is not None
        blob = zlib.compress(pickled, 1)
        self.store.save_checkpoint(StoredCheckpoint(
            seq, entry_hash, self.format, now, _mac(key, seq, entry_hash, self.format, blob),
            blob), keep=KEEP)
