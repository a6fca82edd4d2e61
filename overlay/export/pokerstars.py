"""Hands of the log in the PokerStars text format: what trackers and replayers import.

A tournament hand as PokerStars writes it (header, seats with stacks, antes and blinds,
``*** HOLE CARDS ***``, ``*** FLOP ***`` / ``TURN`` / ``RIVER``, ``*** SHOW DOWN ***``,
``*** SUMMARY ***``), with a broadcast's full information: a ``Dealt to`` line for every
player whose hole cards were read (replayers show them from the start, like a TV table;
cards never read are simply not dealt to anyone in the text). Hands are separated by two
empty lines, so one file holds a whole table session, as PokerStars' own files do.

Conventions (documented in ``docs/export.md``):

* ``PokerStars Hand #<start><nnnn>``: the hand's start in Unix seconds followed by the table's
  hand number in four digits, so that hands of different sessions never share a number (trackers
  drop a hand whose number they already hold); ``Tournament #`` comes from the log's id;
  amounts are tournament chips; the buy-in is written ``Freeroll`` (the log does not hold it);
* the time is the hand's first log entry, in UTC, then in ET in brackets as PokerStars does;
* all-in hands are tabled (R14) under ``*** SHOW DOWN ***`` after the river, where PokerStars
  writes them; mucked hands whose cards were read are written ``mucked [..]`` in the summary;
* a player marked absent (R11) is ``is sitting out``; a clock expiry (R12) is ``has timed out``;
* the players a hand busted (R22) get PokerStars' line before the summary, worst place first:
  ``Zoë finished the tournament in 4th place and received €10,000.00.`` (``... in 5th place``
  outside the money or when no prize is known), and the winner
  ``Bo wins the tournament and receives €40,000.00 - congratulations!`` (R23; money in the
  configuration's currency, :meth:`overlay.export.hands.TournamentInfo.money`).

The log's chain head as of the export (issue 18) is not in the text: PokerStars' format has no
comment or field for it, and a line of any other shape is, to trackers, a hand they cannot
read. ``feltcast export hands`` writes it beside the file instead, in ``<file>.feltcast.json``
with the file's SHA-256 (:mod:`overlay.export.log_head`).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from datetime import UTC, datetime, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from engine.cards import Card
from engine.errors import HandHistoryError
from engine.events import Street
from overlay.export.hands import HandRecord
from overlay.export.phh import skip_reason
from overlay.export.steps import Step, StepKind, describe_hand, hand_steps, pot_name

__all__ = ["EXTENSION", "SEPARATOR", "finish_lines", "hand_id", "ordinal", "pokerstars_text",
           "roman", "tournament_id"]

EXTENSION = ".txt"
SEPARATOR = "\n\n\n"
"""Between two hands of one file: two empty lines, as in PokerStars' own files."""

_STREET_WORDS = {Street.PREFLOP: "before Flop", Street.FLOP: "on the Flop",
                 Street.TURN: "on the Turn", Street.RIVER: "on the River"}


def _eastern() -> tzinfo | None:
    try:
        return ZoneInfo("America/New_York")
    except ZoneInfoNotFoundError:  # no time zone database: the UTC time alone
        return None


def roman(number: int) -> str:
    """``8`` -> ``VIII`` (PokerStars numbers levels in Roman numerals)."""
    if number <= 0:
        return "0"
    out = []
    for value, letters in ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"),
                           (90, "XC"), (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"),
                           (4, "IV"), (1, "I")):
        count, number = divmod(number, value)
        out.append(letters * count)
    return "".join(out)


def hand_id(record: HandRecord) -> int:
    """The hand's PokerStars number: its start in Unix seconds, then the table's hand number
    in four digits (``1796036002`` ``0001``)."""
    return int(record.started_at) * 10_000 + record.number % 10_000


def tournament_id(key: str) -> int:
    """A stable tournament number from a log id (or any text)."""
    return zlib.crc32(key.encode("utf-8"))


def _cards(cards: Iterable[Card | None]) -> str:
    return " ".join(c.code for c in cards if c is not None)


def _names(record: HandRecord) -> dict[int, str]:
    """Seat -> the name to write: one line, no colon-space confusion, unique at the table."""
    names: dict[int, str] = {}
    seen: set[str] = set()
    for seat, raw in zip(record.seats, record.names, strict=True):
        name = " ".join(raw.split()) or f"Seat {seat}"
        if name in seen:
            name = f"{name} #{seat}"
        seen.add(name)
        names[seat] = name
    return names


def _header(record: HandRecord, tournament: int, table_size: int) -> list[str]:
    start = datetime.fromtimestamp(record.started_at, UTC)
    when = f"{start:%Y/%m/%d} {start.hour}:{start:%M:%S} UTC"
    eastern = _eastern()
    if eastern is not None:
        local = start.astimezone(eastern)
        when += f" [{local:%Y/%m/%d} {local.hour}:{local:%M:%S} ET]"
    level = f"Level {roman(record.level or 1)} ({record.small_blind}/{record.big_blind})"
    button = record.button if record.button is not None else record.seats[-1]
    return [
        f"PokerStars Hand #{hand_id(record)}: Tournament #{tournament}, Freeroll  "
        f"Hold'em No Limit - {level} - {when}",
        f"Table '{record.table}' {table_size}-max Seat #{button} is the button",
    ]


def pokerstars_text(record: HandRecord, *, tournament: int | None = None,
                    table_size: int | None = None) -> str:
    """One hand in the PokerStars format (no trailing separator).

    :raises HandHistoryError: a void or unfinished hand (nothing to write).
    """
    reason = skip_reason(record)
    if reason is not None:
        raise HandHistoryError(f"hand {record.number}: {reason}")
    hand = record.hand
    names = _names(record)
    size = table_size or (10 if max(record.seats) > 9 else 9)
    lines = _header(record, tournament_id(record.table) if tournament is None else tournament,
                    size)
    stacks = dict(zip(record.seats, record.starting_stacks, strict=True))
    for seat in sorted(record.seats):
        out = " is sitting out" if seat in record.absent else ""
        lines.append(f"Seat {seat}: {names[seat]} ({stacks[seat]} in chips){out}")
    steps = hand_steps(hand)
    board = [c for s in steps if s.kind is StepKind.BOARD for c in s.cards if c is not None]
    showdown = [s for s in steps if s.kind in (StepKind.SHOW, StepKind.MUCK)]
    collects = [s for s in steps if s.kind is StepKind.COLLECT]
    holes: dict[int, tuple[Card, ...]] = {}
    lines.extend(_forced(steps, names))
    lines.append("*** HOLE CARDS ***")
    running: list[Card] = []
    for step in steps:
        if step.kind is StepKind.DEALT and None not in step.cards and step.seat is not None:
            holes[step.seat] = tuple(c for c in step.cards if c is not None)
            lines.append(f"Dealt to {names[step.seat]} [{_cards(step.cards)}]")
        elif step.kind is StepKind.BOARD:
            before = f" [{_cards(running)}]" if running else ""
            running.extend(c for c in step.cards if c is not None)
            lines.append(f"*** {step.street.name} ***{before} [{_cards(step.cards)}]")
        elif step.kind is StepKind.RETURNED:
            assert step.seat is not None
            lines.append(f"Uncalled bet ({step.amount}) returned to {names[step.seat]}")
        elif step.seat is not None and (text := _action(step)):
            if step.rule == "R12":
                lines.append(f"{names[step.seat]} has timed out")
            lines.append(f"{names[step.seat]}: {text}")
    for step in showdown:
        if step.kind is StepKind.SHOW and step.seat is not None:
            holes[step.seat] = tuple(c for c in step.cards if c is not None)
    won: dict[int, int] = {}
    for step in collects:
        assert step.seat is not None
        won[step.seat] = won.get(step.seat, 0) + step.amount
    if showdown:
        lines.append("*** SHOW DOWN ***")
        for step in showdown:
            assert step.seat is not None
            if step.kind is StepKind.SHOW:
                shown = holes[step.seat]
                lines.append(f"{names[step.seat]}: shows [{_cards(shown)}] "
                             f"({describe_hand(shown, board) or 'shown'})")
            else:
                lines.append(f"{names[step.seat]}: mucks hand")
    for step in collects:
        assert step.seat is not None
        lines.append(f"{names[step.seat]} collected {step.amount} from "
                     f"{pot_name(step.pot, step.pots)}")
    if not showdown:
        lines.extend(f"{names[seat]}: doesn't show hand" for seat in won)
    lines.extend(finish_lines(record, names))
    lines.extend(_summary(record, steps, names, board, holes, won))
    return "\n".join(lines)


def ordinal(number: int) -> str:
    """``1`` -> ``1st``, ``12`` -> ``12th``, ``22`` -> ``22nd``."""
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{'th' if 10 <= number % 100 <= 20 else suffix}"


def finish_lines(record: HandRecord, names: dict[int, str] | None = None) -> list[str]:
    """PokerStars' lines for the places this hand decided (R22, R23; see the docstring)."""
    names = names if names is not None else _names(record)
    money = record.tournament.money
    lines = []
    for bust in record.busts:
        name = names.get(bust.seat, bust.name)
        paid = f" and received {money(bust.prize)}." if bust.prize else ""
        lines.append(f"{name} finished the tournament in {ordinal(bust.place)} place{paid}")
    winner = record.winner
    if winner is not None and winner.name in record.names:
        name = names[record.seats[record.names.index(winner.name)]]
        paid = f" and receives {money(winner.prize)}" if winner.prize else ""
        lines.append(f"{name} wins the tournament{paid} - congratulations!")
    return lines


def _forced(steps: list[Step], names: dict[int, str]) -> list[str]:
    lines = []
    for step in steps:
        allin = " and is all-in" if step.all_in else ""
        if step.kind is StepKind.ANTE and step.seat is not None:
            lines.append(f"{names[step.seat]}: posts the ante {step.amount}{allin}")
        elif step.kind in (StepKind.SMALL_BLIND, StepKind.BIG_BLIND) and step.seat is not None:
            size = "small" if step.kind is StepKind.SMALL_BLIND else "big"
            lines.append(f"{names[step.seat]}: posts {size} blind {step.amount}{allin}")
    return lines


def _action(step: Step) -> str:
    allin = " and is all-in" if step.all_in else ""
    if step.kind is StepKind.FOLD:
        return "folds"
    if step.kind is StepKind.CHECK:
        return "checks"
    if step.kind is StepKind.CALL:
        return f"calls {step.amount}{allin}"
    if step.kind is StepKind.BET:
        return f"bets {step.to}{allin}"
    if step.kind is StepKind.RAISE:
        return f"raises {step.increment} to {step.to}{allin}"
    return ""


def _summary(record: HandRecord, steps: list[Step], names: dict[int, str], board: list[Card],
             holes: dict[int, tuple[Card, ...]], won: dict[int, int]) -> list[str]:
    collects = [s for s in steps if s.kind is StepKind.COLLECT]
    pots: dict[int, int] = {}
    for step in collects:
        pots[step.pot] = pots.get(step.pot, 0) + step.amount
    total = sum(pots.values())
    parts = ""
    if len(pots) > 1:
        parts = f" Main pot {pots[0]}." + "".join(
            f" {pot_name(k, len(pots)).capitalize()} {amount}." for k, amount in
            sorted(pots.items()) if k)
    lines = ["*** SUMMARY ***", f"Total pot {total}{parts} | Rake 0"]
    if board:
        lines.append(f"Board [{_cards(board)}]")
    folded = {s.seat: s.street for s in steps if s.kind is StepKind.FOLD}
    put_in = {s.seat for s in steps if s.kind in (StepKind.SMALL_BLIND, StepKind.BIG_BLIND,
                                                   StepKind.CALL, StepKind.BET, StepKind.RAISE)}
    shown = {s.seat for s in steps if s.kind is StepKind.SHOW}
    mucked = {s.seat: s.cards for s in steps if s.kind is StepKind.MUCK}
    small = {s.seat for s in steps if s.kind is StepKind.SMALL_BLIND}
    big = {s.seat for s in steps if s.kind is StepKind.BIG_BLIND}
    for seat in sorted(record.seats):
        tags = "".join(tag for tag, yes in ((" (button)", seat == record.button),
                                            (" (small blind)", seat in small),
                                            (" (big blind)", seat in big)) if yes)
        if seat in folded:
            bet = "" if seat in put_in or folded[seat] is not Street.PREFLOP else " (didn't bet)"
            what = f"folded {_STREET_WORDS.get(folded[seat], 'before Flop')}{bet}"
        elif seat in shown:
            cards = holes[seat]
            description = describe_hand(cards, board)
            with_ = f" with {description}" if description else ""
            result = f"won ({won[seat]})" if seat in won else "lost"
            what = f"showed [{_cards(cards)}] and {result}{with_}"
        elif seat in mucked:
            known = [c for c in mucked[seat] if c is not None]
            what = f"mucked [{_cards(known)}]" if len(known) == 2 else "mucked"
        elif seat in won:
            what = f"collected ({won[seat]})"
        else:
            what = "lost"
        lines.append(f"Seat {seat}: {names[seat]}{tags} {what}")
    return lines
