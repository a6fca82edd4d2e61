"""The log's chain head in the exported files: where each format carries it, and reading it
back (``feltcast log verify --export FILE``).

An export reads the log up to its head at the start (:func:`current_head`, then
:func:`entries_to`: entries the service appends meanwhile are not part of it) and every file
it writes carries that head, ``SEQ:HASH`` (:func:`overlay.store.entry_hash` of entry ``SEQ``),
with the log's id, in a place the format's readers tolerate:

* PHH: the user fields ``_feltcast_log_head`` and ``_feltcast_log_id`` (PHH's rule for extras:
  a leading underscore);
* OHH: two strings in each hand's ``flags`` (``feltcast_log_head=SEQ:HASH``,
  ``feltcast_log_id=ID``): every object of OHH 1.4.7 is closed to fields it does not define,
  and ``flags`` is the one list of free strings of a hand;
* PokerStars text: none (the format has no comment, and trackers count any other line as a
  broken hand): a sidecar ``<file>.feltcast.json`` beside it, which also records the file's
  SHA-256 (:data:`SIDECAR_SUFFIX`);
* video (mp4, ProRes mov): the container's ``comment`` tag; PNG frames: a ``tEXt`` chunk
  ``Comment``;
* clip lists: the CSV's last two columns ``log_head`` and ``log_id`` on every row (a comment
  line would break spreadsheet and marker imports); a ``;`` comment line in the FFMETADATA
  chapters; a ``*`` comment under every event of the EDL (CMX 3600 comments belong to the
  event above them: a comment before the first event is refused by readers such as
  OpenTimelineIO).

The free-text places hold :meth:`LogHead.sentence`: ``Feltcast log head 57:<hash> (log <id>)``.

>>> head = LogHead(57, "ab" * 32, "0123abcd")
>>> str(head)[:8], head.sentence()[:21]
('57:ababa', 'Feltcast log head 57:')
>>> find_sentence("* " + head.sentence()) == head
True
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
import shutil
import struct
import subprocess
import tomllib
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.errors import InvalidInputError

if TYPE_CHECKING:
    from engine.log import TableEvent
    from overlay.store import EventStore

__all__ = ["CSV_FIELDS", "PHH_FIELDS", "SIDECAR_SUFFIX", "ExportHead", "LogHead",
           "current_head", "entries_to", "find_sentence", "ohh_flags", "png_with_comment",
           "read_export_head", "sidecar_text"]

PHH_FIELDS = ("_feltcast_log_head", "_feltcast_log_id")
CSV_FIELDS = ("log_head", "log_id")
OHH_PREFIXES = ("feltcast_log_head=", "feltcast_log_id=")
SIDECAR_SUFFIX = ".feltcast.json"
"""A PokerStars file's head is in ``<file>.feltcast.json`` (not ``.txt``: trackers that import
a whole folder take every ``.txt`` for hands)."""

_HEAD = re.compile(r"^(\d+):([0-9a-f]{64})$")
_SENTENCE = re.compile(r"Feltcast log head (\d+):([0-9a-f]{64})(?: \(log ([0-9A-Za-z_-]+)\))?",
                       re.IGNORECASE)
_PNG = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True, slots=True)
class LogHead:
    """The head of a log as an export read it: entry ``seq`` and its chained ``hash``."""

    seq: int
    hash: str
    log_id: str = ""

    def __str__(self) -> str:
        return f"{self.seq}:{self.hash}"

    def sentence(self) -> str:
        """The head in free text (comments, tags)."""
        return f"Feltcast log head {self}" + (f" (log {self.log_id})" if self.log_id else "")

    @classmethod
    def parse(cls, text: str, log_id: str = "") -> LogHead | None:
        """``57:<64 hex>`` (as printed and stored), or None."""
        match = _HEAD.match(text.strip().lower())
        return cls(int(match.group(1)), match.group(2), log_id) if match else None

    @classmethod
    def from_phh(cls, fields: Mapping[str, Any]) -> LogHead | None:
        """The head in a PHH file's user fields, or None."""
        text = fields.get(PHH_FIELDS[0])
        log_id = fields.get(PHH_FIELDS[1])
        return cls.parse(text, log_id if isinstance(log_id, str) else "") \
            if isinstance(text, str) else None


def current_head(store: EventStore) -> LogHead:
    """The log's head now: its last entry and that entry's hash, read together (one query,
    so an entry appended meanwhile cannot pair one entry's number with another's hash)."""
    import sqlalchemy as sa

    from overlay.store import GENESIS

    with store.engine.connect() as conn:
        row = conn.execute(sa.text("SELECT seq, hash FROM table_event ORDER BY seq DESC "
                                   "LIMIT 1")).first()
    if row is None:
        return LogHead(0, GENESIS, store.log_id)
    return LogHead(int(row[0]), str(row[1]), store.log_id)


def entries_to(store: EventStore, head: LogHead, chunk: int = 5000) -> Iterator[TableEvent]:
    """The log's entries up to ``head``, streamed: what an export that carries ``head`` reads
    (the service may go on appending; those entries are not part of the export)."""
    after = 0
    while batch := store.read(after, chunk, until=head.seq):
        yield from batch
        after = batch[-1].seq


def ohh_flags(head: LogHead) -> list[str]:
    """The strings a hand's OHH ``flags`` carry."""
    return [f"{OHH_PREFIXES[0]}{head}", *([f"{OHH_PREFIXES[1]}{head.log_id}"]
                                          if head.log_id else [])]


def find_sentence(text: str) -> LogHead | None:
    """The first :meth:`LogHead.sentence` in ``text``, or None."""
    match = _SENTENCE.search(text)
    if match is None:
        return None
    return LogHead(int(match.group(1)), match.group(2).lower(), match.group(3) or "")


def sidecar_text(head: LogHead, path: Path) -> str:
    """The sidecar of the file at ``path`` (written already): its name, its SHA-256 and the
    head."""
    return json.dumps({"feltcast_log_head": str(head), "log_id": head.log_id,
                       "file": path.name, "sha256": _sha256(path)}, indent=2) + "\n"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while block := stream.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(
        ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_with_comment(png: bytes, comment: str) -> bytes:
    """``png`` with a ``tEXt`` chunk ``Comment`` (PNG's registered keyword) after its
    header chunk."""
    if not png.startswith(_PNG):
        raise ValueError("not a PNG")
    end = len(_PNG) + 8 + struct.unpack(">I", png[8:12])[0] + 4  # after IHDR
    text = _chunk(b"tEXt", b"Comment\x00" + comment.encode("latin-1", "replace"))
    return png[:end] + text + png[end:]


def _png_comments(data: bytes) -> Iterator[str]:
    at = len(_PNG)
    while at + 8 <= len(data):
        length = struct.unpack(">I", data[at:at + 4])[0]
        kind = data[at + 4:at + 8]
        if kind == b"IEND":  # text chunks may also follow the image data
            return
        if kind == b"tEXt":
            keyword, _, value = data[at + 8:at + 8 + length].partition(b"\x00")
            if keyword == b"Comment":
                yield value.decode("latin-1")
        at += 12 + length


@dataclass(frozen=True, slots=True)
class ExportHead:
    """The head an exported file carries, and where it was found."""

    head: LogHead
    where: str
    """e.g. ``its _feltcast_log_head field``."""
    changed: str = ""
    """Non-empty when the file is known to have changed since the export (a PokerStars file
    whose SHA-256 is not the one its sidecar recorded): what changed."""


def _no_head(path: Path, why: str = "") -> InvalidInputError:
    return InvalidInputError(f"{path} carries no Feltcast log head" + (f" ({why})" if why
                                                                        else ""))


def read_export_head(path: Path, *, ffprobe: str | None = None) -> ExportHead:
    """The head ``path`` carries (any export: PHH, OHH, PokerStars text with its sidecar, a
    sidecar itself, a video or PNG frame, the CSV, chapters or EDL clip list).

    :raises InvalidInputError: no such file, a folder, or a file that carries no head.
    """
    if path.is_dir():
        raise InvalidInputError(f"{path} is a folder: name one of the files it holds")
    if not path.is_file():
        raise InvalidInputError(f"{path}: no such file")
    name = path.name.lower()
    with path.open("rb") as stream:
        start = stream.read(len(_PNG))
    if start == _PNG:
        data = path.read_bytes()
        head = next(filter(None, map(find_sentence, _png_comments(data))), None)
        if head is None:
            raise _no_head(path, "no Comment text chunk with one")
        return ExportHead(head, "its PNG Comment text chunk")
    if name.endswith(SIDECAR_SUFFIX):
        return _from_sidecar(path, path.with_name(path.name[:-len(SIDECAR_SUFFIX)]))
    if not name.endswith((".phh", ".ohh", ".csv", ".edl", ".txt")):
        return _from_media(path, ffprobe)  # a video: only ffprobe reads it
    text = path.read_text(encoding="utf-8", errors="replace")
    if name.endswith(".phh"):
        try:
            fields = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise InvalidInputError(f"{path}: not a PHH file ({error})") from None
        head = LogHead.from_phh(fields)
        if head is None:
            raise _no_head(path, f"no {PHH_FIELDS[0]} field")
        return ExportHead(head, f"its {PHH_FIELDS[0]} field")
    if name.endswith(".ohh"):
        return _from_ohh(path, text)
    if name.endswith(".csv"):
        return _from_csv(path, text)
    if text.startswith(";FFMETADATA1") or name.endswith(".edl"):
        head = find_sentence(text)
        if head is None:
            raise _no_head(path)
        return ExportHead(head, "its FFMETADATA comment line" if text.startswith(";")
                          else "its EDL comments")
    sidecar = path.with_name(path.name + SIDECAR_SUFFIX)  # PokerStars text
    if not sidecar.is_file():
        raise _no_head(path, f"PokerStars text has no place for one: it is in the sidecar "
                             f"{sidecar.name}, which is not beside it")
    return _from_sidecar(sidecar, path)


def _from_sidecar(sidecar: Path, path: Path) -> ExportHead:
    try:
        facts = json.loads(sidecar.read_text(encoding="utf-8"))
    except (ValueError, OSError) as error:
        raise InvalidInputError(f"{sidecar}: not a Feltcast sidecar ({error})") from None
    head = LogHead.parse(str(facts.get("feltcast_log_head", "")), str(facts.get("log_id", ""))) \
        if isinstance(facts, dict) else None
    if head is None:
        raise _no_head(sidecar, "no feltcast_log_head")
    where = f"its sidecar {sidecar.name}" if sidecar != path else "this sidecar"
    if not path.is_file():
        return ExportHead(head, where, f"the file it describes, {path.name}, is not beside it")
    if _sha256(path) != facts.get("sha256"):
        return ExportHead(head, where, f"{path.name} was changed after the export: its "
                                       f"SHA-256 is not the one the sidecar recorded")
    return ExportHead(head, f"{where}, which records the SHA-256 of {path.name}: unchanged")


def _from_ohh(path: Path, text: str) -> ExportHead:
    decoder = json.JSONDecoder()
    at, hands = 0, 0
    while (at := _skip_space(text, at)) < len(text):
        try:
            value, at = decoder.raw_decode(text, at)
        except ValueError as error:
            raise InvalidInputError(f"{path}: not Open Hand History JSON ({error})") from None
        hand = value.get("ohh") if isinstance(value, dict) else None
        flags = hand.get("flags") if isinstance(hand, dict) else None
        hands += 1
        found = {prefix: flag[len(prefix):] for flag in flags or () if isinstance(flag, str)
                 for prefix in OHH_PREFIXES if flag.startswith(prefix)}
        head = LogHead.parse(found.get(OHH_PREFIXES[0], ""), found.get(OHH_PREFIXES[1], ""))
        if head is not None:
            return ExportHead(head, "the feltcast_log_head flag of its hands")
    raise _no_head(path, f"no feltcast_log_head flag in its {hands} hand(s)")


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def _from_csv(path: Path, text: str) -> ExportHead:
    rows = csv.DictReader(text.splitlines())
    if CSV_FIELDS[0] not in (rows.fieldnames or ()):
        raise _no_head(path, f"no {CSV_FIELDS[0]} column")
    for row in rows:
        head = LogHead.parse(row.get(CSV_FIELDS[0]) or "", row.get(CSV_FIELDS[1]) or "")
        if head is not None:
            return ExportHead(head, f"its {CSV_FIELDS[0]} column")
    raise _no_head(path, f"its {CSV_FIELDS[0]} column is empty")


def _from_media(path: Path, ffprobe: str | None) -> ExportHead:
    probe = ffprobe or shutil.which("ffprobe")
    if probe is None:
        raise InvalidInputError(f"{path}: reading a video's tags needs ffprobe (install "
                                f"ffmpeg)")
    done = subprocess.run([probe, "-v", "error", "-show_entries", "format_tags", "-of", "json",
                           str(path)], capture_output=True, text=True, check=False, timeout=120)
    if done.returncode != 0:
        raise InvalidInputError(f"{path}: not a file Feltcast exports (PHH, OHH, PokerStars "
                                f"text, a video, a PNG frame, a clip list) nor one ffprobe "
                                f"can read")
    tags = json.loads(done.stdout or "{}").get("format", {}).get("tags", {})
    for key, value in tags.items():
        head = find_sentence(str(value))
        if head is not None:
            return ExportHead(head, f"its {key} tag")
    raise _no_head(path, "no comment tag with one")
