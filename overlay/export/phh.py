"""One hand of the log as a PHH file (``.phh``, TOML), for PokerKit and every PHH reader.

The core is :func:`engine.phh.export` (the hand's effective events, verified by replaying the
text through the engine). This module adds what the log knows around the hand:

* standard PHH fields: ``table``, ``level``, ``time`` / ``time_zone`` / ``day`` / ``month`` /
  ``year`` (UTC, the hand's first log entry);
* Feltcast's user fields, all with a leading underscore (the PHH rule for extras):
  ``_table``, ``_level``, ``_start_time`` / ``_end_time`` (ISO 8601 UTC),
  ``_start_unix`` / ``_end_unix`` (Unix seconds), ``_duration``, ``_small_blind``,
  ``_big_blind``, ``_ante``, ``_button`` (a seat number; it may be empty, R2), ``_absent``
  (R11), ``_eliminated`` (``[seat, place]`` pairs, R22), ``_log_seq`` (the first and last log
  entry), ``_chip_unit`` (R17, written by the engine when it is not 1) and ``_tags`` (the
  operator's notes for the editors, ``tag_hand``, when the hand has any);
* the tournament context (issue 10): ``_display_names`` and ``_countries`` per player when
  identities were given (``""``: no country), ``_places`` and ``_prizes`` per player when the
  hand decided places (R22, R23: the busted players and the winner; TOML has no null, so 0
  stands for a player whose place the hand did not decide), and the configuration's
  ``_tournament``, ``_currency``, ``_prize_pool`` and ``_entrants`` (the tournament's name is
  the ``event`` unless one is given);
* the log's chain head as of the export (issue 18, :mod:`overlay.export.log_head`):
  ``_feltcast_log_head`` (``SEQ:HASH``) and ``_feltcast_log_id``, when given.

Unknown hole cards are written ``????`` (PHH's unknown card). A void hand (R13) or a hand
still running has no PHH: :func:`phh_text` raises :class:`~engine.errors.HandHistoryError`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from engine import phh
from engine.errors import HandHistoryError
from overlay.export.hands import HandRecord, iso_utc, unix_seconds
from overlay.export.log_head import PHH_FIELDS, LogHead

__all__ = ["EXTENSION", "feltcast_fields", "phh_text", "skip_reason", "tournament_fields"]

EXTENSION = ".phh"


def skip_reason(record: HandRecord) -> str | None:
    """Why a hand has no hand history (void or unfinished), or None."""
    if record.is_void:
        return f"void hand ({record.void_reason}): nothing was played"
    if not record.hand.is_over:
        return "still running at the end of the log"
    return None


def feltcast_fields(record: HandRecord, *, event: str = "",
                    log_head: LogHead | None = None) -> dict[str, Any]:
    """The PHH fields this module adds to the engine's export, in file order."""
    start = datetime.fromtimestamp(record.started_at, UTC)
    fields: dict[str, Any] = {}
    info = record.tournament
    if event or info.name:
        fields["event"] = event or info.name
    fields["table"] = record.table
    if record.level:
        fields["level"] = record.level
    fields.update({
        "time": start.time().replace(microsecond=0),
        "time_zone": "UTC",
        "day": start.day,
        "month": start.month,
        "year": start.year,
        "_table": record.table,
        "_level": record.level,
        "_start_time": iso_utc(record.started_at),
        "_end_time": iso_utc(record.ended_at),
        "_start_unix": unix_seconds(record.started_at),
        "_end_unix": unix_seconds(record.ended_at),
        "_duration": unix_seconds(record.duration),
        "_small_blind": record.small_blind,
        "_big_blind": record.big_blind,
        "_ante": record.ante,
    })
    if record.button is not None:
        fields["_button"] = record.button
    if record.absent:
        fields["_absent"] = list(record.absent)
    if record.eliminations:
        fields["_eliminated"] = [[e.seat, e.place] for e in record.eliminations]
    fields["_log_seq"] = [record.first_seq, record.last_seq]
    if record.tags:
        fields["_tags"] = list(record.tags)
    fields.update(tournament_fields(record))
    if log_head is not None:
        fields[PHH_FIELDS[0]] = str(log_head)
        if log_head.log_id:
            fields[PHH_FIELDS[1]] = log_head.log_id
    return fields


def tournament_fields(record: HandRecord) -> dict[str, Any]:
    """The tournament context of the hand as PHH user fields (see the module docstring)."""
    fields: dict[str, Any] = {}
    info = record.tournament
    if any(i is not None for i in record.identities):
        fields["_display_names"] = list(record.display_names)
        fields["_countries"] = [c or "" for c in record.countries]
    decided = {b.seat: (b.place, b.prize) for b in record.busts}
    winner = record.winner
    if winner is not None and winner.name in record.names:
        decided[record.seats[record.names.index(winner.name)]] = (winner.place, winner.prize)
    if decided:
        fields["_places"] = [decided[s][0] if s in decided else 0 for s in record.seats]
        if all(prize is not None for _, prize in decided.values()):
            fields["_prizes"] = [decided[s][1] if s in decided else 0 for s in record.seats]
    if info.name:
        fields["_tournament"] = info.name
    if info.currency:
        fields["_currency"] = info.currency
    if info.prize_pool:
        fields["_prize_pool"] = info.prize_pool
    if info.entrants:
        fields["_entrants"] = info.entrants
    return fields


def phh_text(record: HandRecord, *, event: str = "", log_head: LogHead | None = None) -> str:
    """The hand as PHH text (see the module docstring); ``log_head``: the head of the log
    as the export read it.

    :raises HandHistoryError: a void or unfinished hand, or one PHH cannot spell (a live-rule
        call of a full big blind over a short all-in blind, R5).
    """
    reason = skip_reason(record)
    if reason is not None:
        raise HandHistoryError(f"hand {record.number}: {reason}")
    try:
        return phh.export(record.hand, extra=feltcast_fields(record, event=event,
                                                             log_head=log_head))
    except HandHistoryError as error:
        raise type(error)(f"hand {record.number}: {error}") from None
