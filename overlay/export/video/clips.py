"""The clip list of an export: where each hand starts and ends in the footage.

Each hand of the log that overlaps the footage is one :class:`Clip`: its first and last frame
(from the hand's first and last log entry, :class:`overlay.export.hands.HandRecord`), as
seconds and as SMPTE time codes (``HH:MM:SS:FF``, non-drop-frame at the nominal rate), with a
title (``Hand 12: Ann wins 4,800``). Written three ways for editors:

* CSV (:func:`write_csv`), one row per hand;
* chapters (:func:`ffmetadata`): an FFMETADATA file, muxed into the exported mp4 by ffmpeg and
  kept beside it; players and editors (e.g. DaVinci Resolve, Premiere via the mp4) show the
  hands as chapters;
* a CMX 3600 EDL (:func:`edl`): one event per hand, cut from the footage, hands back to back.

Given the log's chain head as of the export (issue 18, :mod:`overlay.export.log_head`), each
carries it: the CSV in two last columns, ``log_head`` and ``log_id``, on every row (a comment
line would break the header-first layout spreadsheets and marker importers read); the chapters
in a ``;`` comment line under the header; the EDL in a ``*`` comment under each event (a
comment belongs to the event above it: readers such as OpenTimelineIO refuse one before the
first event).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.errors import InvalidInputError
from overlay.export.hands import HandRecord, iso_utc
from overlay.export.log_head import CSV_FIELDS as HEAD_FIELDS
from overlay.export.log_head import LogHead
from overlay.export.video.timeline import Sync

__all__ = ["Clip", "after_footage", "clip_of", "clips_for", "edl", "ffmetadata", "hand_title",
           "parse_timecode", "timecode", "winnings", "write_csv"]


@dataclass(frozen=True, slots=True)
class Clip:
    """One hand in the footage: frames ``first`` to ``last`` (inclusive)."""

    hand: int
    first: int
    last: int
    title: str
    started_at: float
    """The hand's first log entry, Unix seconds."""
    ended_at: float
    clipped: bool = False
    """True when the hand runs past either end of the footage (cut to it)."""
    tags: tuple[str, ...] = ()
    """The operator's tags of the hand (``tag_hand``), a marker for the editor."""

    def start(self, fps: float) -> float:
        """Seconds from the footage's first frame to the hand's first frame."""
        return self.first / fps

    def end(self, fps: float) -> float:
        """Seconds to the end of the hand's last frame."""
        return (self.last + 1) / fps


def winnings(record: HandRecord) -> dict[int, int]:
    """What each winner of the hand won, by seat, in the order the pots were awarded."""
    won: dict[int, int] = {}
    for award in record.hand.awards:
        for seat, share in zip(award.seats, award.shares, strict=True):
            won[seat] = won.get(seat, 0) + share
    return won


def hand_title(record: HandRecord) -> str:
    """``Hand 12: Ann wins 4,800`` (split pots name every winner; a misdeal says so)."""
    if record.is_void:
        return f"Hand {record.number} (misdeal)"
    won = winnings(record)
    if not won:
        return f"Hand {record.number}"
    names = " & ".join(record.name_of(seat) for seat in won)
    verb = "win" if len(won) > 1 else "wins"
    return f"Hand {record.number}: {names} {verb} {sum(won.values()):,}"


def clip_of(record: HandRecord, sync: Sync, frames: int) -> Clip | None:
    """The clip of one hand, or None when it is not in the footage's ``frames`` frames."""
    first, last = sync.frame_of(record.started_at), sync.frame_of(record.ended_at)
    if first >= frames or last < 0:
        return None
    clipped = first < 0 or last >= frames
    return Clip(record.number, max(0, first), min(frames - 1, max(first, last)),
                hand_title(record), record.started_at, record.ended_at, clipped, record.tags)


def after_footage(record: HandRecord, sync: Sync, frames: int) -> bool:
    """Whether the hand starts after the footage's end (hands come in log order: so do all
    that follow it)."""
    return sync.frame_of(record.started_at) >= frames


def clips_for(records: Iterable[HandRecord], sync: Sync, frames: int) -> list[Clip]:
    """The clips of the hands that overlap the footage's ``frames`` frames, in order."""
    out = []
    for record in records:
        if after_footage(record, sync, frames):
            break
        clip = clip_of(record, sync, frames)
        if clip is not None:
            out.append(clip)
    return out


_TIMECODE = re.compile(r"^(\d{2}):(\d{2}):(\d{2})[:;.](\d{2})$")


def parse_timecode(text: str, fps: float) -> int:
    """The frame count of SMPTE ``HH:MM:SS:FF`` (non-drop-frame at the nominal rate; a
    drop-frame ``;`` is counted the same way, as editors' NDF display does).

    :raises InvalidInputError: not such a time code, or frames beyond the rate.
    """
    match = _TIMECODE.match(text.strip())
    nominal = max(1, round(fps))
    if match is None:
        raise InvalidInputError(f"time code {text!r}: write HH:MM:SS:FF, e.g. 01:00:00:00")
    hh, mm, ss, ff = (int(v) for v in match.groups())
    if mm > 59 or ss > 59 or ff >= nominal:
        raise InvalidInputError(f"time code {text!r}: minutes and seconds run to 59, frames "
                                f"to {nominal - 1} at {fps:g} fps")
    return ((hh * 60 + mm) * 60 + ss) * nominal + ff


def timecode(frame: int, fps: float) -> str:
    """SMPTE ``HH:MM:SS:FF`` of ``frame`` (non-drop-frame, at the nominal rate: 29.97 counts
    30 frames a second, as editors' NDF time codes do)."""
    nominal = max(1, round(fps))
    seconds, ff = divmod(frame, nominal)
    minutes, ss = divmod(seconds, 60)
    hh, mm = divmod(minutes, 60)
    return f"{hh:02d}:{mm:02d}:{ss:02d}:{ff:02d}"


CSV_FIELDS = ("hand", "title", "start_tc", "end_tc", "start_s", "end_s", "duration_s",
              "first_frame", "last_frame", "started_at_utc", "ended_at_utc", "clipped", "tagged",
              "tags")


def csv_text(clips: Sequence[Clip], fps: float, *, log_head: LogHead | None = None) -> str:
    """The clip list as CSV (a header row, then one row per hand; ``tagged`` and ``tags``,
    the notes joined by `` | ``, mark the hands the operator tagged); with ``log_head``, two
    more columns carry it on every row."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    head = [str(log_head), log_head.log_id] if log_head is not None else []
    writer.writerow([*CSV_FIELDS, *(HEAD_FIELDS if head else ())])
    for clip in clips:
        writer.writerow([clip.hand, clip.title, timecode(clip.first, fps),
                         timecode(clip.last + 1, fps), f"{clip.start(fps):.3f}",
                         f"{clip.end(fps):.3f}", f"{clip.end(fps) - clip.start(fps):.3f}",
                         clip.first, clip.last, iso_utc(clip.started_at),
                         iso_utc(clip.ended_at), "yes" if clip.clipped else "no",
                         "yes" if clip.tags else "no", " | ".join(clip.tags), *head])
    return buffer.getvalue()


def write_csv(clips: Sequence[Clip], fps: float, path: Path, *,
              log_head: LogHead | None = None) -> Path:
    path.write_text(csv_text(clips, fps, log_head=log_head), encoding="utf-8")
    return path


def _meta(text: str) -> str:
    """FFMETADATA escaping: ``=``, ``;``, ``#``, ``\\`` and newlines take a backslash."""
    out = []
    for ch in text:
        if ch in "=;#\\\n":
            out.append("\\")
        out.append(ch)
    return "".join(out)


def ffmetadata(clips: Sequence[Clip], fps: float, *, title: str = "",
               frames: int | None = None, log_head: LogHead | None = None) -> str:
    """The clips as FFMETADATA chapters (milliseconds), for ``ffmpeg -map_chapters``.

    An mp4 keeps only where each chapter starts (a chapter ends where the next begins, the
    first begins at 0): given the footage's ``frames``, the time before, between and after
    hands becomes chapters of its own (``Between hands``), so every hand's chapter starts and
    ends exactly at its frames in the mp4 too.
    """
    lines = [";FFMETADATA1"]
    if log_head is not None:
        lines.append(f"; {log_head.sentence()}")
    if title:
        lines.append(f"title={_meta(title)}")
    spans: list[tuple[int, int, str]] = []  # first frame, end frame (exclusive), title
    edge = 0
    for clip in clips:
        if frames is not None and clip.first > edge:
            spans.append((edge, clip.first, "Before the first hand" if not spans
                          else "Between hands"))
        spans.append((clip.first, clip.last + 1, clip.title))
        edge = clip.last + 1
    if frames is not None and frames > edge:
        spans.append((edge, frames, "After the last hand" if spans else "No hand"))
    for first, end, name in spans:
        lines += ["", "[CHAPTER]", "TIMEBASE=1/1000", f"START={round(first / fps * 1000)}",
                  f"END={round(end / fps * 1000)}", f"title={_meta(name)}"]
    return "\n".join(lines) + "\n"


def edl(clips: Sequence[Clip], fps: float, *, title: str, reel: str = "AX",
        source_name: str = "", log_head: LogHead | None = None) -> str:
    """A CMX 3600 EDL: each hand cut from the footage, placed back to back from 01:00:00:00
    (the usual record start), with its title as a comment, a ``* TAG`` comment per tag of the
    hand (with its note) and ``log_head``, when given."""
    nominal = max(1, round(fps))
    record = 3600 * nominal
    lines = [f"TITLE: {title}", "FCM: NON-DROP FRAME", ""]
    for number, clip in enumerate(clips, 1):
        length = clip.last + 1 - clip.first
        lines.append(f"{number:03d}  {reel:<8} V     C        "
                     f"{timecode(clip.first, fps)} {timecode(clip.last + 1, fps)} "
                     f"{timecode(record, fps)} {timecode(record + length, fps)}")
        if source_name:
            lines.append(f"* FROM CLIP NAME: {source_name}")
        lines.append(f"* COMMENT: {clip.title}")
        lines.extend(f"* TAG: {note}" if note else "* TAG" for note in clip.tags)
        if log_head is not None:
            lines.append(f"* {log_head.sentence()}")
        lines.append("")
        record += length
    return "\n".join(lines)
