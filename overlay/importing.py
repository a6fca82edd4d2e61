"""Hand histories recorded elsewhere, put into a table log (``feltcast import hands``).

Every export reads a table log (:func:`overlay.export.hands.read_hands`); importing gives it
hands that were never played at a Feltcast table, so that the PHH, PokerStars and OHH exports,
the video replays and the editors' timeline work on them too.

* **Sources.** PHH files (``.phh``, one hand; ``.phhs``, several, PokerKit's ``[1]``
  sections), and PokerStars hand-history text (``.txt``, any number of hands), read with
  PokerKit's own PokerStars parser into PHH. Folders are searched for those three kinds.
* **Replayed by the engine.** Each hand is replayed through :mod:`engine.phh` (PHH's
  conventions, R5 ``"phh"``), and its events are what the log holds, exactly as a live hand's
  are: a hand the engine refuses, or that does not reach its end, is left out with the
  engine's reason, and nothing of it is written.
* **Its own log.** An imported log holds hands only, and the service never serves it
  (:func:`check_servable`); a data directory whose log a table wrote is refused, so that
  imported hands never mix with a show's own. Importing again into the same folder adds the
  new hands after the others; a hand the log already holds (the same events, whatever its
  number) is noted and left out, so an import can be repeated safely.
* **Numbers and times.** A hand keeps the number its file gives when the log does not hold
  it yet (and it is below 100,000: a PokerStars hand id is no table's hand number); otherwise
  it takes the next number after the log's highest. It starts at the time its file gives
  (Feltcast's ``_start_unix``, else PHH's ``year``/``month``/``day``/``time`` in UTC), else
  :data:`GAP_SECONDS` after the hand before it; its events follow each other
  :data:`STEP_SECONDS` apart, or spread over ``_start_unix``-``_end_unix`` when the file says.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import io
import re
import time
import tomllib
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from engine import phh
from engine.errors import FeltcastError, HandHistoryError, InvalidInputError
from engine.events import HandStarted
from engine.log import TableEvent
from overlay.store import EventStore

__all__ = ["GAP_SECONDS", "STEP_SECONDS", "SUFFIXES", "Imported", "Skipped", "check_servable",
           "import_hands", "iter_sources", "read_histories"]

STEP_SECONDS = 2.0
"""Seconds between a hand's events when its file gives no end time."""
GAP_SECONDS = 30.0
"""Seconds between two hands when a file gives no start time."""
SUFFIXES = (".phh", ".phhs", ".txt")
MAX_KEPT_NUMBER = 100_000


@dataclass(frozen=True, slots=True)
class Imported:
    """A hand written to the log."""

    source: str
    number: int
    first_seq: int
    last_seq: int


@dataclass(frozen=True, slots=True)
class Skipped:
    """A hand (or a whole file) left out, and why."""

    source: str
    reason: str
    duplicate_of: int | None = None
    """The number of the hand the log already holds, when that is the reason."""


def iter_sources(paths: Iterable[Path]) -> Iterator[Path]:
    """Every hand-history file under the given files and folders (sorted within a folder);
    a file named directly is read whatever its suffix."""
    for path in paths:
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*") if p.is_file() and (
                p.suffix.lower() in (".phh", ".phhs")
                or (p.suffix.lower() == ".txt" and _is_pokerstars(p))))
        else:
            yield path


def _is_pokerstars(path: Path) -> bool:
    """Whether a text file in a folder is PokerStars hand histories (its first hand's
    header), so that a folder's README or licence is not read as one."""
    try:
        with path.open("rb") as file:
            head = file.read(4096)
    except OSError:
        return False
    return b"PokerStars Hand #" in head or b"PokerStars Game #" in head


def read_histories(path: Path) -> Iterator[phh.HandHistory | Skipped]:
    """The hands of one file, each a :class:`~engine.phh.HandHistory` or, when it cannot be
    read, a :class:`Skipped` naming the hand and the reason.

    :raises InvalidInputError: the file cannot be read at all (missing, not text, not a hand
        history of a kind this reads).
    """
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InvalidInputError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise InvalidInputError(f"{path}: not a text file (hand histories are UTF-8 text)") \
            from None
    except OSError as error:
        raise InvalidInputError(f"{path}: cannot be read ({error.strerror or error})") from None
    if "PokerStars Hand #" in text or "PokerStars Game #" in text:
        yield from _pokerstars(text, str(path))
    elif path.suffix.lower() == ".txt":
        yield Skipped(str(path), "not a PokerStars hand history (no 'PokerStars Hand #' "
                                 "header)")
    elif path.suffix.lower() == ".phhs" or text.lstrip().startswith("["):
        yield from _phh_sections(text, str(path))
    else:
        try:
            yield phh.loads(text, source=str(path))
        except HandHistoryError as error:
            yield Skipped(str(path), str(error).removeprefix(f"{path}: "))


def _phh_sections(text: str, source: str) -> Iterator[phh.HandHistory | Skipped]:
    """PokerKit's ``.phhs``: TOML tables ``[1]``, ``[2]``, ... each one hand."""
    try:
        tables = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        yield Skipped(source, f"not valid TOML: {error}")
        return
    for key, value in tables.items():
        where = f"{source} [{key}]"
        if not isinstance(value, dict):
            yield Skipped(where, "not a hand (a .phhs file holds one table per hand)")
            continue
        try:
            yield phh.from_dict(value, source=where)
        except HandHistoryError as error:
            yield Skipped(where, str(error).removeprefix(f"{where}: "))


def _pokerstars(text: str, source: str) -> Iterator[phh.HandHistory | Skipped]:
    """PokerStars text through PokerKit's parser (one hand at a time: PokerKit prints a
    traceback for a hand it cannot read; it is kept as the reason instead)."""
    import pokerkit

    parser = pokerkit.PokerStarsParser()
    for number, hand_text in enumerate(re.findall(parser.HAND, text), 1):
        found = re.search(r"PokerStars (?:Hand|Game) #(\d+)", hand_text)
        where = f"{source} (PokerStars hand #{found[1] if found else number})"
        printed = io.StringIO()
        try:  # (PokerKit warns of the fields its own parser adds: not the user's business)
            with contextlib.redirect_stderr(printed), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                (history,) = parser(hand_text, error_status=True)
                text = history.dumps()
        except ValueError:
            lines = [line for line in printed.getvalue().splitlines() if line.strip()]
            cause = lines[-1].removeprefix("ValueError: ") if lines else "unknown"
            yield Skipped(where, f"PokerKit cannot read this hand ({cause})")
            continue
        if "posts the ante" in hand_text and not any(history.antes):
            yield Skipped(where, "PokerKit's PokerStars parser drops the antes of this hand "
                                 "(it takes them off the starting stacks and out of the pot, "
                                 "so the pots would differ): import its PHH file instead")
            continue
        try:
            yield phh.loads(text, source=where)
        except HandHistoryError as error:
            yield Skipped(where, str(error).removeprefix(f"{where}: "))


def check_servable(store: EventStore) -> None:
    """Refuse to serve a log of imported hands (its first entry is a hand, not a table).

    :raises InvalidInputError: naming the import and what to do instead.
    """
    if _holds_imports(store):
        raise InvalidInputError(
            "this data directory holds imported hand histories (feltcast import hands), not "
            "a table's log: export them (feltcast export hands --data-dir DIR) and serve a "
            "show from a data directory of its own")


def _holds_imports(store: EventStore) -> bool | None:
    """Whether the log is one of imported hands (its first entry a hand), a table's own
    (False), or empty (None)."""
    first = store.read(0, 1)
    return isinstance(first[0].payload, HandStarted) if first else None


def import_hands(store: EventStore, paths: Iterable[Path], *,
                 now: float | None = None) -> Iterator[Imported | Skipped]:
    """Import the hands of ``paths`` (files and folders) into ``store``, one at a time
    (each hand is one append: it is in the log entirely or not at all).

    :raises InvalidInputError: the log is a table's own (not an import), or a file cannot
        be read at all.
    """
    existing = _Existing.read(store)
    clock = now if now is not None else time.time()
    clock = max(clock, existing.last_time + GAP_SECONDS) if existing.last_time else clock
    for path in iter_sources(paths):
        for item in read_histories(path):
            if isinstance(item, Skipped):
                yield item
                continue
            try:
                hand = phh.replay(item)
            except FeltcastError as error:
                yield Skipped(item.source, str(error).removeprefix(f"{item.source}: "))
                continue
            if not hand.is_over:
                yield Skipped(item.source, f"the hand is not over after its last action "
                                           f"({hand.street})")
                continue
            events = hand.events
            digest = _digest(events)
            if digest in existing.digests:
                number = existing.digests[digest]
                yield Skipped(item.source, f"already in the log as hand {number}", number)
                continue
            number = existing.number_for(item.hand)
            started = events[0]
            assert isinstance(started, HandStarted)
            numbered = [replace(started, hand_number=number), *events[1:]]
            start, step = _timing(item, len(numbered), clock)
            first = store.last_seq + 1
            store.append([TableEvent.record(first + k, start + k * step, event)
                          for k, event in enumerate(numbered)])
            clock = start + (len(numbered) - 1) * step + GAP_SECONDS
            existing.add(digest, number)
            yield Imported(item.source, number, first, store.last_seq)


@dataclass
class _Existing:
    """What the log holds already: its hands' numbers and digests, and its last time."""

    numbers: set[int]
    digests: dict[str, int]
    last_time: float

    @classmethod
    def read(cls, store: EventStore) -> _Existing:
        found = cls(set(), {}, 0.0)
        if _holds_imports(store) is False:
            raise InvalidInputError(
                "this data directory holds a table's own log: import hand histories into "
                "a folder of its own (--data), so that they never mix with a show's hands")
        hand: list[object] = []
        for entry in store.iter_all():
            if isinstance(entry.payload, HandStarted) and hand:
                found.add(_digest(hand), _number(hand))
                hand = []
            hand.append(entry.payload)
            found.last_time = entry.time
        if hand:
            found.add(_digest(hand), _number(hand))
        return found

    def add(self, digest: str, number: int) -> None:
        self.numbers.add(number)
        self.digests.setdefault(digest, number)

    def number_for(self, wanted: int | None) -> int:
        if wanted is not None and 0 < wanted < MAX_KEPT_NUMBER and wanted not in self.numbers:
            return wanted
        return max(self.numbers, default=0) + 1


def _number(events: list[object]) -> int:
    started = events[0]
    return started.hand_number if isinstance(started, HandStarted) else 0


def _digest(events: Iterable[object]) -> str:
    """A hand's identity whatever its number: the digest of its events' reprs (frozen value
    types whose reprs round-trip), the number set to 0."""
    hashed = hashlib.sha256()
    for event in events:
        if isinstance(event, HandStarted):
            event = replace(event, hand_number=0)
        hashed.update(repr(event).encode())
    return hashed.hexdigest()


def _timing(history: phh.HandHistory, count: int, clock: float) -> tuple[float, float]:
    """The hand's start (Unix seconds) and the seconds between its events."""
    start, end = _seconds(history.extra.get("_start_unix")), _seconds(
        history.extra.get("_end_unix"))
    if start is not None:
        if end is not None and end > start and count > 1:
            return start, (end - start) / (count - 1)
        return start, STEP_SECONDS
    day = _phh_datetime(history.extra)
    return (day.timestamp() if day is not None else clock), STEP_SECONDS


def _seconds(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def _phh_datetime(extra: dict[str, object]) -> dt.datetime | None:
    """PHH's ``year``/``month``/``day`` and ``time``, taken as UTC (the zone names PHH
    writes, e.g. ``ET``, are not unambiguous; Feltcast and PokerKit's PokerStars parser
    write UTC)."""
    year, month, day = extra.get("year"), extra.get("month"), extra.get("day")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (year, month, day)):
        return None
    at = extra.get("time")
    clock = at if isinstance(at, dt.time) else dt.time()
    try:
        return dt.datetime.combine(dt.date(year, month, day),  # type: ignore[arg-type]
                                   clock.replace(tzinfo=None), dt.UTC)
    except ValueError:
        return None
