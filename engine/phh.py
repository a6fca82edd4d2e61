"""PHH hand histories (variant ``NT``): parse, replay through the engine, verify, write.

Text in, text out: reading and finding ``.phh`` files is :mod:`overlay.phh_files`'s (the engine
does no I/O).

PHH is the TOML hand-history format of the University of Toronto Computer Poker Research
Group (``phh-std``). Players are listed in position order: ``p1`` is the small blind and the
last player the button; heads-up, ``p1`` is the big blind and ``p2`` the button posting the
small blind (PokerKit's convention). Amounts follow the PHH/PokerKit call convention (R5:
:attr:`HandStarted.short_call_rule` ``"phh"``), antes are live when
``ante_trimming_status`` is true and dead money in the main pot otherwise.

PokerKit, the reference PHH reader, keeps a betting round open for the last player with
chips when everyone else is all-in for no more than his bet, and records his no-op check
(``p2 cc``); the engine closes that round at once. Reading accepts that check as the no-op
it is (:func:`apply_action`); writing (:func:`export`) records it where PokerKit expects it
and leaves out a live call that is a no-op in PHH's convention, so that every written file
replays in PokerKit as it is. The live rule is unchanged.

>>> history = loads('''
... variant = "NT"
... antes = [0, 0]
... blinds_or_straddles = [1, 2]
... min_bet = 2
... starting_stacks = [100, 100]
... actions = ["d dh p1 AhAs", "d dh p2 ????", "p2 f"]
... finishing_stacks = [101, 99]
... ''')
>>> replay(history).stacks
(101, 99)
"""

from __future__ import annotations

import datetime
import json
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from engine.errors import (
    FeltcastError,
    HandHistoryError,
    InvalidInputError,
    NoPhhSpellingError,
)
from engine.events import (
    ActionKind,
    ActionTaken,
    AntePosted,
    BetsCollected,
    BlindPosted,
    BoardDealt,
    Event,
    HandMucked,
    HandShown,
    HandStarted,
    HoleCardsDealt,
    Street,
    StreetStarted,
)
from engine.hand import Hand
from engine.hand_state import BETTING_STREETS

_PLAYER = re.compile(r"p(\d+)$")


@dataclass(frozen=True, slots=True)
class HandHistory:
    """One PHH hand (the fields the engine needs, plus the rest as ``extra``)."""

    antes: tuple[int, ...]
    blinds_or_straddles: tuple[int, ...]
    min_bet: int
    starting_stacks: tuple[int, ...]
    actions: tuple[str, ...]
    variant: str = "NT"
    ante_trimming_status: bool = False
    players: tuple[str, ...] = ()
    seats: tuple[int, ...] = ()
    finishing_stacks: tuple[int, ...] | None = None
    hand: int | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    source: str = ""

    @property
    def player_count(self) -> int:
        return len(self.starting_stacks)


def loads(text: str, *, source: str = "") -> HandHistory:
    """Parse PHH text.

    :raises HandHistoryError: for TOML errors, a variant other than ``NT`` or missing fields.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        where = f"{source}: " if source else ""
        raise HandHistoryError(f"{where}not valid TOML: {error}") from None
    return from_dict(data, source=source)


def from_dict(fields: dict[str, Any], *, source: str = "") -> HandHistory:
    """A hand history from PHH's fields as TOML gives them (e.g. one table of a ``.phhs``
    file); ``fields`` is not changed.

    :raises HandHistoryError: a variant other than ``NT``, missing or malformed fields.
    """
    where = f"{source}: " if source else ""
    data = dict(fields)
    if data.get("variant") != "NT":
        raise HandHistoryError(f"{where}variant {data.get('variant')!r} is not NT "
                               "(No-Limit Texas Hold'em)")
    try:
        stacks = tuple(int(x) for x in data.pop("starting_stacks"))
        history = HandHistory(
            antes=_per_player(data.pop("antes", 0), len(stacks)),
            blinds_or_straddles=_per_player(data.pop("blinds_or_straddles"), len(stacks)),
            min_bet=int(data.pop("min_bet")),
            starting_stacks=stacks,
            actions=tuple(str(a) for a in data.pop("actions")),
            variant=str(data.pop("variant")),
            ante_trimming_status=bool(data.pop("ante_trimming_status", False)),
            players=tuple(str(p) for p in data.pop("players", ())),
            seats=tuple(int(s) for s in data.pop("seats", ())),
            finishing_stacks=(tuple(int(x) for x in data.pop("finishing_stacks"))
                              if "finishing_stacks" in data else None),
            hand=int(data.pop("hand")) if isinstance(data.get("hand"), int) else None,
            extra=data, source=source)
    except KeyError as missing:
        raise HandHistoryError(f"{where}missing field {missing}") from None
    except (TypeError, ValueError) as error:
        raise HandHistoryError(f"{where}bad field value: {error}") from None
    return history


def _per_player(value: Any, count: int) -> tuple[int, ...]:
    if isinstance(value, list):
        if len(value) != count:
            raise ValueError(f"{len(value)} values for {count} players")
        return tuple(int(v) for v in value)
    return (int(value),) * count


def start(history: HandHistory, *, auto_showdown: bool = False) -> Hand:
    """A :class:`Hand` at the start of ``history`` (forced bets posted, nothing dealt)."""
    count = history.player_count
    blinds, antes = history.blinds_or_straddles, history.antes
    if count == 2:  # heads-up: p1 is the big blind, p2 the button on the small blind (R3)
        blinds, antes = blinds[::-1], antes[::-1]
    seats = history.seats or tuple(range(1, count + 1))
    names = history.players or tuple(f"p{k}" for k in range(1, count + 1))
    # R17: split pots are shared in units of the smallest chip (user field ``_chip_unit``).
    unit = history.extra.get("_chip_unit", 1)
    chip_unit = unit if isinstance(unit, int) and not isinstance(unit, bool) and unit > 0 else 1
    small = history.extra.get("_small_blind", 0)  # Feltcast's exports write the level's
    small = small if isinstance(small, int) and not isinstance(small, bool) and small > 0 else 0
    return Hand.start(seats=seats, names=names, stacks=history.starting_stacks, blinds=blinds,
                      antes=antes, big_blind=history.min_bet, button=seats[-1],
                      hand_number=history.hand or 1, short_call_rule="phh",
                      dead_antes=not history.ante_trimming_status,
                      auto_showdown=auto_showdown, chip_unit=chip_unit, small_blind=small)


def apply_action(hand: Hand, action: str) -> Event | None:
    """Apply one PHH action (``d dh p1 AhKd``, ``p2 cbr 300``, ``p3 sm``, ...).

    :raises FeltcastError: if it is not a PHH action or the rules do not allow it.
    """
    words = action.split("#", 1)[0].split()
    seats = hand.seats
    match words:
        case []:
            return None
        case ["d", "dh", player, cards]:
            return hand.deal_hole(seats[_player(player, len(seats))], cards)
        case ["d", "db", cards]:
            return hand.deal_board(cards)
        case [player, "f"]:
            return hand.fold(seats[_player(player, len(seats))])
        case [player, "cc"]:
            seat = seats[_player(player, len(seats))]
            if _closing_check(hand, seat):
                return None
            return hand.check_or_call(seat)
        case [player, "cbr", amount]:
            return hand.raise_to(_amount(amount), seats[_player(player, len(seats))])
        case [player, "sm"]:
            return hand.muck_hand(seats[_player(player, len(seats))])
        case [player, "sm", "-"]:
            return hand.show_hand(seats[_player(player, len(seats))])
        case [player, "sm", cards] if set(cards) == {"?"}:
            # Unknown cards at the showdown (PokerKit writes a hand nobody saw so): not shown.
            return hand.muck_hand(seats[_player(player, len(seats))])
        case [player, "sm", cards]:
            return hand.show_hand(seats[_player(player, len(seats))], cards)
    raise InvalidInputError(f"not a No-Limit Hold'em PHH action: {action!r}")


def _closing_check(hand: Hand, seat: int) -> bool:
    """Whether ``seat`` checking now is PokerKit's closing no-op: the round is closed for the
    engine (nobody is to act) because every other player still in is all-in, and ``seat``,
    with chips behind, has the highest bet."""
    if hand.is_over or hand.street not in BETTING_STREETS or hand.legal_actions() is not None:
        return False
    live = hand.live_seats
    if seat not in live or hand.stack(seat) == 0:
        return False
    if any(hand.stack(other) for other in live if other != seat):
        return False
    return hand.bets[hand.seats.index(seat)] >= max(hand.bets)


def _player(token: str, count: int) -> int:
    match = _PLAYER.match(token)
    if match is None or not 1 <= int(match.group(1)) <= count:
        raise InvalidInputError(f"{token!r} is not a player (p1-p{count})")
    return int(match.group(1)) - 1


def _amount(token: str) -> int:
    try:
        return int(token)
    except ValueError:
        raise InvalidInputError(f"{token!r} is not a whole number of chips") from None


def replay(history: HandHistory) -> Hand:
    """Replay a history to its end, settling a showdown the actions leave open (R15).

    :raises HandHistoryError: naming the action the engine refused and why.
    """
    hand = start(history)
    for number, action in enumerate(history.actions, 1):
        try:
            apply_action(hand, action)
        except FeltcastError as error:
            where = f"{history.source}: " if history.source else ""
            raise HandHistoryError(f"{where}action {number} {action!r}: {error}") from None
    if hand.street is Street.SHOWDOWN and not hand.is_over:
        hand.resolve_showdown()
    return hand


@dataclass(frozen=True, slots=True)
class Verification:
    """The result of replaying one file against its ``finishing_stacks``."""

    source: str
    passed: bool
    checked: bool
    message: str = ""


def verify(history: HandHistory) -> Verification:
    """Replay and compare every finishing stack; unchecked when the file has none."""
    try:
        hand = replay(history)
    except FeltcastError as error:
        return Verification(history.source, False, True, str(error))
    if not hand.is_over:
        return Verification(history.source, False, True,
                            f"the hand is not over after the last action ({hand.street})")
    if history.finishing_stacks is None:
        return Verification(history.source, True, False,
                            "no finishing_stacks to compare (replayed to the end)")
    diffs = [f"p{k + 1} {got - want:+,} ({got:,} instead of {want:,})"
             for k, (got, want) in enumerate(zip(hand.stacks, history.finishing_stacks,
                                                 strict=True)) if got != want]
    if diffs:
        return Verification(history.source, False, True, "; ".join(diffs))
    return Verification(history.source, True, True)


# --- export --------------------------------------------------------------------------------


def export(hand: Hand, *, extra: dict[str, Any] | None = None) -> str:
    """The hand as PHH text, written from its events so that a replay gives the same stacks.

    :raises NoPhhSpellingError: if PHH cannot express the hand as played (a live-rule call
        of a full big blind over a short all-in blind, R5): the replay of the text would
        differ, or PHH readers would expect another player to act.
    """
    started = hand.started
    if started is None:
        raise HandHistoryError("nothing to export: the hand has not started")
    count = len(started.seats)
    blinds, antes = list(started.blinds), list(started.antes)
    if count == 2:
        blinds, antes = blinds[::-1], antes[::-1]
    position = {seat: k + 1 for k, seat in enumerate(started.seats)}
    # PHH deals every hole card before the first action: one deal per player, with the cards
    # as finally known (a seat read late, or in two parts, is dealt once).
    dealt = dict.fromkeys(e.seat for e in hand.effective_events
                          if isinstance(e, HoleCardsDealt))
    actions = [_action_text(HoleCardsDealt(seat, hand.hole_cards(seat) or (None, None)),
                            position) for seat in dealt]
    shown: set[int] = set()
    turns = _PhhTurns(started)
    for event in hand.effective_events:
        if isinstance(event, HoleCardsDealt):
            continue
        if isinstance(event, HandShown):  # a tabled hand is shown once (R14, R15)
            if event.seat in shown:
                continue
            shown.add(event.seat)
        if isinstance(event, ActionTaken):
            if not turns.act(event):
                continue  # a live call PHH spells as nothing (R5)
        else:
            actions.extend(turns.follow(event))
        actions.append(_action_text(event, position))
    lines = [
        'variant = "NT"',
        f"ante_trimming_status = {'false' if started.dead_antes else 'true'}",
        f"antes = {antes}",
        f"blinds_or_straddles = {blinds}",
        f"min_bet = {started.big_blind}",
        f"starting_stacks = {list(started.stacks)}",
        "actions = [",
        *(f'  "{a}",' for a in actions if a),
        "]",
        f"players = [{', '.join(_toml_str(n) for n in started.names)}]",
        f"seats = {list(started.seats)}",
        f"hand = {started.hand_number}",
    ]
    if hand.is_over:
        lines.append(f"finishing_stacks = {list(hand.stacks)}")
    if started.chip_unit != 1:  # R17: odd chips of a split pot (PokerKit: a divmod in units)
        lines.append(f"_chip_unit = {started.chip_unit}")
    for key, value in (extra or {}).items():
        lines.append(f"{key} = {_toml_value(value)}")
    text = "\n".join(lines) + "\n"
    if hand.is_over:
        check = verify(loads(text))
        if not check.passed:
            raise turns.unspellable(check.message)
    return text


class _PhhTurns:
    """Whose turn PokerKit, the reference PHH reader, expects as the writer walks a hand.

    Each betting round, every player still in with chips (and something to play for) acts
    from the opener, and again after every bet or raise; the round is not closed early when
    the others are all-in, so the last player with chips checks (``cc``) even when nothing
    is left to decide. A call is the largest amount actually in front of a player (R5 in
    PHH's convention). The engine's own events say what happened; :meth:`follow` and
    :meth:`act` add the checks PokerKit expects, drop the live calls PHH spells as nothing,
    and raise :class:`HandHistoryError` for what PHH cannot express.
    """

    def __init__(self, started: HandStarted) -> None:
        count = len(started.seats)
        self._position = {seat: k for k, seat in enumerate(started.seats)}
        self._blinds = started.blinds
        self._stacks = list(started.stacks)
        self._bets = [0] * count
        self._in = [True] * count
        self._queue: list[int] = []
        self.notes: list[str] = []
        """Where the live rule parted from PHH's convention (R5): the reason a replay of the
        text may end differently."""

    def follow(self, event: Event) -> list[str]:
        """Track a non-action event; the no-op checks PokerKit expects before it."""
        if isinstance(event, AntePosted):
            self._stacks[self._position[event.seat]] -= event.amount
        elif isinstance(event, BlindPosted):
            i = self._position[event.seat]
            self._stacks[i] -= event.amount
            self._bets[i] += event.amount
        elif isinstance(event, StreetStarted) and event.street in BETTING_STREETS:
            self._begin()
        elif isinstance(event, BetsCollected):
            return self._close()
        return []

    def act(self, event: ActionTaken) -> bool:
        """Track a player's action; False when PHH spells it as nothing."""
        i = self._position[event.seat]
        top = max(self._bets)
        idle = event.action in (ActionKind.CHECK, ActionKind.CALL) and self._bets[i] >= top
        if event.action is ActionKind.FOLD and self._bets[i] >= top and not event.rule:
            self.notes.append(  # (an absent player's fold, R11, is no such fold)
                f"p{i + 1} folds facing the live call of the full big blind (R5), where PHH's "
                "convention has nothing to call")
        if not self._queue or self._queue[0] != i:
            if idle:  # e.g. the button calling the full big blind over a short one (R5)
                return False
            expected = f"p{self._queue[0] + 1}" if self._queue else "nobody"
            raise self.unspellable(f"p{i + 1} acts where PHH readers expect {expected} to")
        self._queue.pop(0)
        if event.action is ActionKind.FOLD:
            self._in[i] = False
            if sum(self._in) <= 1:
                self._queue.clear()
        elif event.action in (ActionKind.CHECK, ActionKind.CALL):
            added = min(top - self._bets[i], self._stacks[i])
            if event.action is ActionKind.CALL and event.to > self._bets[i] + added:
                self.notes.append(
                    f"p{i + 1}'s call of {event.to:,}, the full big blind over a short "
                    f"all-in blind (R5, the live rule), is a call of {self._bets[i] + added:,} "
                    "in PHH's convention")
            self._bets[i] += added
            self._stacks[i] -= added
        else:
            self._stacks[i] -= event.to - self._bets[i]
            self._bets[i] = event.to
            count = len(self._bets)
            after = ((i + k) % count for k in range(1, count))
            self._queue = [j for j in after if self._in[j] and self._stacks[j]]
        return True

    def unspellable(self, what: str) -> NoPhhSpellingError:
        why = f" ({self.notes[0]})" if self.notes else ""
        return NoPhhSpellingError(f"this hand has no faithful PHH spelling: {what}{why}")

    def _begin(self) -> None:
        count = len(self._bets)
        top = max(range(count), key=lambda i: (self._bets[i] if self._blinds[i] else 0, i))
        order = [(top + 1 + k) % count for k in range(count)]
        totals = sorted(self._bets[i] + self._stacks[i] for i in range(count) if self._in[i])
        second = totals[-2] if len(totals) > 1 else 0
        self._queue = [i for i in order if self._in[i] and self._stacks[i]
                       and min(self._stacks[i], second - self._bets[i]) > 0]
        if len(self._queue) == 1 and self._bets[self._queue[0]] >= max(self._bets):
            self._queue.clear()

    def _close(self) -> list[str]:
        checks = []
        for i in self._queue:
            if self._bets[i] < max(self._bets):
                raise self.unspellable(f"p{i + 1} would still have to call in PHH's "
                                        "convention")
            checks.append(f"p{i + 1} cc")
        self._queue.clear()
        ordered = sorted(self._bets)
        if len(ordered) > 1 and ordered[-1] > ordered[-2]:  # the uncalled bet comes back
            self._stacks[self._bets.index(ordered[-1])] += ordered[-1] - ordered[-2]
        self._bets = [0] * len(self._bets)
        return checks


def _action_text(event: Event, position: dict[int, int]) -> str:
    if isinstance(event, HoleCardsDealt):
        cards = "".join(c.code if c is not None else "??" for c in event.cards)
        return f"d dh p{position[event.seat]} {cards}"
    if isinstance(event, BoardDealt):
        return "d db " + "".join(c.code for c in event.cards)
    if isinstance(event, ActionTaken):
        player = f"p{position[event.seat]}"
        if event.action is ActionKind.FOLD:
            return f"{player} f"
        if event.action in (ActionKind.CHECK, ActionKind.CALL):
            return f"{player} cc"
        return f"{player} cbr {event.to}"
    if isinstance(event, HandShown):
        return f"p{position[event.seat]} sm " + "".join(c.code for c in event.cards)
    if isinstance(event, HandMucked):
        return f"p{position[event.seat]} sm"
    if isinstance(event, HandStarted):
        return ""
    return ""


def _toml_str(text: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's (quotes, backslashes, control
    characters as \\uXXXX); TOML also wants DEL escaped."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _toml_value(value: Any) -> str:
    if isinstance(value, datetime.date | datetime.time):  # TOML dates and times
        return value.isoformat()
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return _toml_str(str(value))
