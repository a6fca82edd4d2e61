"""Hands of the log as Open Hand History (OHH) JSON, spec version 1.4.7.

One ``{"ohh": {...}}`` object per hand; a file (``.ohh``) holds a table session, the objects
separated by one empty line (the spec's storage format). Amounts are tournament chips
(``"tournament": true``); what the log does not hold is ``null`` where the spec allows it
(buy-in, fees, bounties) and the broadcast has no hero (``hero_player_id`` is ``null``).

Rounds follow the spec: round 0 ``Preflop`` with the posts (``Post Ante``, ``Post SB``,
``Post BB``), a ``Dealt Cards`` action per player (with the cards when they were read), then
``Flop`` / ``Turn`` / ``River`` with the new board cards, and a ``Showdown`` round with every
``Shows Cards`` and ``Mucks Cards`` (R14, R15; mucked cards that were read are included).
A raise's ``amount`` is the chips it added (the spec's rule), ``is_allin`` marks all-ins.
``pots`` lists the main pot then the side pots (R16) with each winner's share (R17).

Tournament context (issue 10), as far as OHH 1.4.7 has fields for it: ``tournament_info``
carries the configured tournament's name (else the table's) and the prize pool's currency
(also the hand's ``currency``), each player's ``display`` is his display name
(``player_identified``). OHH has no field for a prize pool, a country or a finishing place
(the spec leaves results to its Open Tournament Summary companion): those are in the PHH and
PokerStars exports.

The log's chain head as of the export (issue 18) is in each hand's ``flags``, the one list of
free strings OHH 1.4.7 gives a hand (its objects admit no field of another name):
``feltcast_log_head=SEQ:HASH`` and ``feltcast_log_id=ID`` (:mod:`overlay.export.log_head`),
and so are the operator's tags for the editors: ``feltcast_tag=NOTE``, one per tag.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

from engine.errors import HandHistoryError
from engine.events import Street
from overlay.export.hands import HandRecord
from overlay.export.log_head import LogHead, ohh_flags
from overlay.export.phh import skip_reason
from overlay.export.pokerstars import hand_id, tournament_id
from overlay.export.steps import StepKind, hand_steps

__all__ = ["EXTENSION", "SEPARATOR", "SPEC_VERSION", "TAG_FLAG", "ohh_object", "ohh_text"]

EXTENSION = ".ohh"
SEPARATOR = "\n\n"
"""Between two hand objects of one file: one empty line (the spec's storage format)."""
SPEC_VERSION = "1.4.7"
TAG_FLAG = "feltcast_tag="
"""The prefix of a hand flag that carries one of the operator's tags (``tag_hand``)."""

_ACTION_WORDS = {
    StepKind.ANTE: "Post Ante", StepKind.SMALL_BLIND: "Post SB", StepKind.BIG_BLIND: "Post BB",
    StepKind.FOLD: "Fold", StepKind.CHECK: "Check", StepKind.CALL: "Call", StepKind.BET: "Bet",
    StepKind.RAISE: "Raise", StepKind.SHOW: "Shows Cards", StepKind.MUCK: "Mucks Cards",
    StepKind.DEALT: "Dealt Cards",
}
_STREET_NAMES = {Street.PREFLOP: "Preflop", Street.FLOP: "Flop", Street.TURN: "Turn",
                 Street.RIVER: "River"}


def _version() -> str:
    try:
        return metadata.version("feltcast")
    except metadata.PackageNotFoundError:
        return "0"


def _utc(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def ohh_object(record: HandRecord, *, tournament: int | None = None,
               table_size: int | None = None, currency: str | None = None,
               log_head: LogHead | None = None) -> dict[str, Any]:
    """The hand as an OHH ``{"ohh": {...}}`` object (see the module docstring); ``log_head``:
    the head of the log as the export read it.

    :raises HandHistoryError: a void or unfinished hand (nothing to write).
    """
    reason = skip_reason(record)
    if reason is not None:
        raise HandHistoryError(f"hand {record.number}: {reason}")
    ids = {seat: k for k, seat in enumerate(record.seats)}
    steps = hand_steps(record.hand)
    rounds: list[dict[str, Any]] = [{"id": 0, "street": "Preflop", "actions": []}]
    showdown: list[dict[str, Any]] = []
    for step in steps:
        if step.kind is StepKind.BOARD:
            rounds.append({"id": len(rounds), "street": _STREET_NAMES[step.street],
                           "cards": [c.code for c in step.cards if c is not None],
                           "actions": []})
            continue
        word = _ACTION_WORDS.get(step.kind)
        if word is None or step.seat is None:
            continue  # returned bets and awards live in the pots
        action: dict[str, Any] = {"action_number": 0, "player_id": ids[step.seat],
                                  "action": word}
        if step.kind in (StepKind.DEALT, StepKind.SHOW, StepKind.MUCK):
            known = [c.code for c in step.cards if c is not None]
            if len(known) == len(step.cards) and known:
                action["cards"] = known
        else:
            if step.kind not in (StepKind.FOLD, StepKind.CHECK):
                action["amount"] = step.amount
            action["is_allin"] = step.all_in
        (showdown if step.kind in (StepKind.SHOW, StepKind.MUCK) else
         rounds[-1]["actions"]).append(action)
    if showdown:  # all-in hands are tabled early (R14); OHH keeps them in the showdown
        rounds.append({"id": len(rounds), "street": "Showdown", "actions": showdown})
    for number, action in enumerate((a for r in rounds for a in r["actions"]), 1):
        action["action_number"] = number
    pots: dict[int, dict[str, Any]] = {}
    for award in record.hand.awards:
        pots[award.pot] = {
            "number": award.pot, "amount": award.amount, "rake": 0, "jackpot": 0,
            "player_wins": [{"player_id": ids[seat], "win_amount": share,
                             "cashout_amount": 0, "cashout_fee": 0, "bonus_amount": 0}
                            for seat, share in zip(award.seats, award.shares, strict=True)]}
    tid = str(tournament_id(record.table) if tournament is None else tournament)
    info = record.tournament
    currency = currency or info.currency or "USD"
    return {"ohh": {
        "spec_version": SPEC_VERSION,
        "site_name": "Feltcast",
        "network_name": "Feltcast",
        "internal_version": _version(),
        "tournament": True,
        "tournament_info": {
            "tournament_number": tid, "name": info.name or record.table,
            "start_date_utc": _utc(record.started_at), "currency": currency,
            "buyin_amount": None, "fee_amount": None, "bounty_fee_amount": None,
            "initial_stack": None, "type": "MTT", "flags": [],
            "speed": {"type": "Normal", "round_time": 0},
        },
        "game_number": str(hand_id(record)),
        "start_date_utc": _utc(record.started_at),
        "table_name": record.table,
        "game_type": "Holdem",
        "bet_limit": {"bet_cap": 0, "bet_type": "NL"},
        "table_size": table_size or (10 if max(record.seats) > 9 else 9),
        "currency": currency,
        "dealer_seat": record.button if record.button is not None else record.seats[-1],
        "small_blind_amount": record.small_blind,
        "big_blind_amount": record.big_blind,
        "ante_amount": record.ante,
        "hero_player_id": None,
        "flags": [*(ohh_flags(log_head) if log_head is not None else []),
                  *(f"{TAG_FLAG}{note}" for note in record.tags)],
        "players": [{"id": ids[seat], "seat": seat, "name": name, "display": display,
                     "starting_stack": stack, "player_bounty": None,
                     "is_sitting_out": seat in record.absent}
                    for seat, name, display, stack in zip(
                        record.seats, record.names, record.display_names,
                        record.starting_stacks, strict=True)],
        "rounds": rounds,
        "pots": [pots[k] for k in sorted(pots)],
    }}


def ohh_text(record: HandRecord, **options: Any) -> str:
    """The hand's OHH object as one line of JSON (UTF-8 names kept as they are)."""
    return json.dumps(ohh_object(record, **options), ensure_ascii=False,
                      separators=(",", ":"))
