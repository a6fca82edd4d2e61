"""The operator's commands: typed values, one parser, one registry, one dispatcher.

Every command the service takes (``docs/commands.md``) is a frozen dataclass here, registered
under its wire ``type`` in :data:`COMMANDS`. :func:`parse_command` is the one parser: it turns
a JSON body into the command's value (codes into :class:`engine.cards.Card`, numbers checked,
names trimmed) or raises :class:`engine.errors.InvalidInputError` naming the field. In-process
callers (the capture bridge) build the values directly, with Cards, and skip JSON.

A :class:`Dispatcher` maps each command class to the one handler a desk registered for it (the
table service its own, the tournament desk's, the capture bridge's deck desk while a reader is
configured) and returns the engine events the handler made; the table service runs it under its
lock, logs the events with the command's acknowledgement in one transaction (exactly once, the
answer persisted with them) and answers a repeated ``id`` from the log's answers.

>>> parse_command({"id": "c-000001", "type": "raise_to", "seat": 3, "amount": 1200})
RaiseTo(id='c-000001', revision=None, seat=3, amount=1200)
>>> parse_command({"id": "c-000002", "type": "deal_board", "cards": ["Kh"]}).cards
(Card('Kh'),)
>>> parse_command({"id": "c-000003", "type": "bet", "seat": 3})
Traceback (most recent call last):
engine.errors.InvalidInputError: command bet needs 'amount'
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar, Union

from engine.cards import Card
from engine.errors import IllegalActionError, InvalidInputError
from engine.events import Event

__all__ = ["COMMANDS", "Command", "Dispatcher", "parse_command"]

MAX_NAME = 64
"""A deck or reader name's longest form (characters)."""


def _new_id() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True, kw_only=True)
class Command:
    """What every command carries: its ``id`` (made by the client: a retry repeats it) and,
    optionally, the operator channel's ``revision`` the console built it on."""

    type: ClassVar[str] = ""
    section: ClassVar[str] = ""
    """The ``docs/commands.md`` section that lists it."""
    checks_revision: ClassVar[bool] = True
    """Refused as stale when built on a view older than the table's last change."""
    reports_devices: ClassVar[bool] = False
    """Changes the operator's device fields: the new report is logged with the answer."""
    source: ClassVar[str] = "operator"
    """The log entries' source."""
    unavailable: ClassVar[str] = "this command is not available on this service"
    """The refusal when no desk has registered a handler (e.g. no RFID reader)."""

    id: str = field(default_factory=_new_id)
    revision: int | None = None

    def checked(self) -> Command:
        """The command with its values normalised, or :class:`InvalidInputError` (parser)."""
        return self

    def to_json(self) -> dict[str, Any]:
        """The wire form (``parse_command(c.to_json()) == c``)."""
        out: dict[str, Any] = {"id": self.id, "type": self.type}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "id" or (value is None and f.default is None):
                continue
            if isinstance(value, tuple):  # cards
                value = [v.code if isinstance(v, Card) else v for v in value]
            out[f.name] = value
        return out


COMMANDS: dict[str, type[Command]] = {}
"""Wire ``type`` -> command class, in the order ``docs/commands.md`` lists them."""


C = TypeVar("C", bound=Command)


@typing.dataclass_transform(frozen_default=True, kw_only_default=True)
def command(kind: str, section: str) -> Callable[[type[C]], type[C]]:
    """Make a command class (a frozen, keyword-only dataclass) and register it under its wire
    ``type``."""
    def register(cls: type[C]) -> type[C]:
        assert kind not in COMMANDS, kind
        cls = dataclass(frozen=True, kw_only=True)(cls)
        cls.type, cls.section = kind, section
        COMMANDS[kind] = cls
        return cls
    return register


Cards = tuple[Card | None, ...]

# --- the hand ------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class SeatCommand(Command):
    seat: int


@command("fold", "Commands")
class Fold(SeatCommand):
    pass


@command("check", "Commands")
class Check(SeatCommand):
    pass


@command("call", "Commands")
class Call(SeatCommand):
    pass


@command("bet", "Commands")
class Bet(SeatCommand):
    amount: int


@command("raise_to", "Commands")
class RaiseTo(SeatCommand):
    amount: int


@command("all_in", "Commands")
class AllIn(SeatCommand):
    pass


@command("undo", "Commands")
class Undo(Command):
    pass


@command("misdeal", "Commands")
class Misdeal(Command):
    pass


@command("next_hand", "Commands")
class NextHand(Command):
    pass


@command("deal_cards", "Commands")
class DealCards(SeatCommand):
    cards: Cards


@command("deal_board", "Commands")
class DealBoard(Command):
    cards: Cards


@command("call_clock", "Commands")
class CallClock(SeatCommand):
    pass


@command("stop_clock", "Commands")
class StopClock(Command):
    pass


@command("show_hand", "Commands")
class ShowHand(SeatCommand):
    cards: Cards | None = None


@command("muck_hand", "Commands")
class MuckHand(SeatCommand):
    pass


@command("restrict", "Commands")
class Restrict(SeatCommand):
    pass


@command("set_absent", "Commands")
class SetAbsent(SeatCommand):
    absent: bool


@command("set_level", "Commands")
class SetLevel(Command):
    level: int


# --- between hands -------------------------------------------------------------------------


@command("set_seat", "Commands")
class SetSeat(SeatCommand):
    name: str
    stack: int

    def checked(self) -> SetSeat:
        name = self.name.strip()
        if not name:
            raise InvalidInputError("a player needs a name")
        return dataclasses.replace(self, name=name)


@command("empty_seat", "Commands")
class EmptySeat(SeatCommand):
    pass


@command("set_button", "Commands")
class SetButton(SeatCommand):
    pass


# --- the broadcast -------------------------------------------------------------------------


@command("hide_graphics", "Commands")
class HideGraphics(Command):
    pass


@command("show_graphics", "Commands")
class ShowGraphics(Command):
    pass


@command("tag_hand", "Commands")
class TagHand(Command):
    note: str
    hand: int | None = field(default=None, metadata={"what": "a hand number"})


@command("pause_auto_operator", "Commands")
class PauseAutoOperator(Command):
    pass


@command("resume_auto_operator", "Commands")
class ResumeAutoOperator(Command):
    pass


# --- decks ---------------------------------------------------------------------------------


def _name(kind: str, key: str, value: str) -> str:
    value = value.strip()
    if not value:
        raise InvalidInputError(f"command {kind} needs {key!r} (a name)")
    if len(value) > MAX_NAME:
        raise InvalidInputError(f"command {kind}: {key!r} is longer than {MAX_NAME} characters")
    return value


@dataclass(frozen=True, kw_only=True)
class DeckCommand(Command):
    checks_revision: ClassVar[bool] = False  # decks change between sessions, not the hand
    reports_devices: ClassVar[bool] = True  # operator.decks is a device field
    source: ClassVar[str] = "decks"
    unavailable: ClassVar[str] = ("no RFID reader is configured: decks are registered for the "
                                  "readers of [[capture.readers]]")


@dataclass(frozen=True, kw_only=True)
class NamedDeckCommand(DeckCommand):
    name: str

    def checked(self) -> NamedDeckCommand:
        return dataclasses.replace(self, name=_name(self.type, "name", self.name))


@command("deck_scan_start", "Decks")
class DeckScanStart(NamedDeckCommand):
    reader: str
    antenna: int

    def checked(self) -> DeckScanStart:
        if not 1 <= self.antenna <= 64:
            raise InvalidInputError(f"command {self.type}: 'antenna' must be an antenna number "
                                    f"of the reader (1-64), got {self.antenna!r}")
        return dataclasses.replace(self, name=_name(self.type, "name", self.name),
                                   reader=_name(self.type, "reader", self.reader))


@command("deck_scan_cancel", "Decks")
class DeckScanCancel(DeckCommand):
    pass


@command("deck_scan_save", "Decks")
class DeckScanSave(NamedDeckCommand):
    pass


@command("deck_activate", "Decks")
class DeckActivate(NamedDeckCommand):
    pass


@command("deck_retire", "Decks")
class DeckRetire(NamedDeckCommand):
    pass


# --- the tournament ------------------------------------------------------------------------


@command("start_clock", "Tournament")
class StartClock(Command):
    pass


@command("pause_clock", "Tournament")
class PauseClock(Command):
    pass


@command("resume_clock", "Tournament")
class ResumeClock(Command):
    pass


MAX_ADJUST = 24 * 3600
"""``adjust_clock`` moves the clock by at most a day."""


@command("adjust_clock", "Tournament")
class AdjustClock(Command):
    seconds: float

    def checked(self) -> AdjustClock:
        if self.seconds == 0 or abs(self.seconds) > MAX_ADJUST:
            raise InvalidInputError("adjust_clock: 'seconds' is the time to add (or, negative, "
                                    "to take away), not 0 and at most a day")
        return self


@command("correct_stack", "Tournament")
class CorrectStack(SeatCommand):
    stack: int
    reason: str


@command("disqualify", "Tournament")
class Disqualify(SeatCommand):
    reason: str


IDENTITY_FIELDS = ("name", "display_name", "country", "photo")


@command("set_player", "Tournament")
class SetPlayer(SeatCommand):
    """``changes``: the identity fields given (a field left out keeps its value, ``None``
    clears it)."""

    changes: tuple[tuple[str, str | None], ...] = ()

    @classmethod
    def from_body(cls, body: Mapping[str, Any]) -> dict[str, Any]:
        changes = []
        for key, value in body.items():
            if key in ("id", "type", "seat", "revision"):
                continue
            if key not in IDENTITY_FIELDS:
                raise InvalidInputError(f"set_player does not know the field {key!r} "
                                        f"({', '.join(IDENTITY_FIELDS)})")
            if value is not None and not isinstance(value, str):
                raise InvalidInputError(f"set_player: {key!r} must be text or null, "
                                        f"got {value!r}")
            changes.append((key, value))
        return {"changes": tuple(changes)}

    def to_json(self) -> dict[str, Any]:
        out = {k: v for k, v in super().to_json().items() if k != "changes"}
        return {**out, **dict(self.changes)}


# --- the parser ----------------------------------------------------------------------------

_WHAT: Mapping[object, str] = {int: "a whole number", str: "text", bool: "true or false",
                               float: "a number", Cards: "a list of card codes"}


def _value(kind: str, name: str, value: object, expected: object, what: str | None) -> object:
    """One field's JSON value as the command's type."""
    optional = typing.get_origin(expected) in (Union, types.UnionType) and \
        type(None) in typing.get_args(expected) and expected is not Cards
    if optional:
        if value is None:
            return None
        expected = next(a for a in typing.get_args(expected) if a is not type(None))
    ok: bool
    if expected == Cards:
        if isinstance(value, list):
            if not all(isinstance(c, str | None) for c in value):
                raise InvalidInputError("cards are codes like 'Ah' (null for an unread card)")
            return tuple(None if c is None else Card(c) for c in value)
        ok = False
    elif expected is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        if ok:
            return float(value)  # type: ignore[arg-type]
    elif expected is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, expected)  # type: ignore[arg-type]
    if not ok:
        raise InvalidInputError(f"command {kind}: {name!r} must be {what or _WHAT[expected]}, "
                                f"got {value!r}")
    return value


_HINTS: dict[type[Command], dict[str, Any]] = {}


def _hints(cls: type[Command]) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    return hints


def parse_command(body: object) -> Command:
    """A command from its JSON form (shape only: the engine decides whether it is legal).

    :raises InvalidInputError: naming what is wrong.
    """
    if not isinstance(body, dict):
        raise InvalidInputError("a command is a JSON object with an id and a type")
    kind = body.get("type")
    cls = COMMANDS.get(kind) if isinstance(kind, str) else None
    if cls is None or not isinstance(kind, str):
        raise InvalidInputError(f"unknown command type {kind!r} "
                                f"(one of {', '.join(sorted(COMMANDS))})")
    command_id = body.get("id")
    if not isinstance(command_id, str) or not 8 <= len(command_id) <= 64:
        raise InvalidInputError("a command needs an id (a UUID made by the client)")
    revision = body.get("revision")
    if revision is not None and (not isinstance(revision, int) or isinstance(revision, bool)
                                 or revision < 0):
        raise InvalidInputError(f"command {kind}: 'revision' must be the operator channel's "
                                f"revision the command was built on, got {revision!r}")
    values: dict[str, Any] = {"id": command_id, "revision": revision}
    hints = _hints(cls)
    from_body = getattr(cls, "from_body", None)
    custom = from_body(body) if from_body is not None else {}
    for f in dataclasses.fields(cls):
        if f.name in values or f.name in custom:
            continue
        if f.name not in body or (body[f.name] is None and f.default is None):
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise InvalidInputError(f"command {kind} needs {f.name!r}")
            continue
        values[f.name] = _value(kind, f.name, body[f.name], hints[f.name], f.metadata.get("what"))
    return cls(**values, **custom).checked()


# --- the dispatcher ------------------------------------------------------------------------

Handler = Callable[[Any], Sequence[Event] | Awaitable[Sequence[Event]]]


class Dispatcher:
    """Command class -> the one handler registered for it (see the module docstring)."""

    def __init__(self) -> None:
        self._handlers: dict[type[Command], Handler] = {}

    def register(self, kind: type[C], handler: Callable[[C], Sequence[Event]]
                 | Callable[[C], Awaitable[Sequence[Event]]]) -> None:
        """``handler`` runs ``kind``: it checks and changes the state and returns the events
        to log (with the command's answer); it raises, having changed nothing, to refuse."""
        if kind in self._handlers:
            raise RuntimeError(f"{kind.type} already has a handler")
        self._handlers[kind] = handler

    def unregister(self, *kinds: type[Command]) -> None:
        for kind in kinds:
            self._handlers.pop(kind, None)

    def registered(self) -> frozenset[type[Command]]:
        return frozenset(self._handlers)

    async def run(self, command: Command) -> list[Event]:
        """The events of ``command`` from its handler.

        :raises IllegalActionError: no desk takes this command on this service (or the
            handler's refusal).
        """
        handler = self._handlers.get(type(command))
        if handler is None:
            raise IllegalActionError(type(command).unavailable)
        result = handler(command)
        if inspect.isawaitable(result):
            result = await result
        return list(result)
