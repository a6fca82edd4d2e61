"""Hand events: every change of state the engine makes, as an immutable value.

Each event is a frozen dataclass with a class-level :attr:`Event.kind` (its wire name),
an exact JSON round trip (:meth:`Event.to_dict` / :meth:`Event.from_dict`) and a
:attr:`Event.secrecy` per instance (see ``helpers/contract-events.md``):

* ``PUBLIC`` events may go to any live output;
* ``SECRET`` events carry unrevealed hole cards; :meth:`Event.public_view` gives the
  version that a live public channel may see (the same event with the cards removed);
* ``NEVER`` events (burn cards, rule R19) reach no output at all.

A hand is the fold of its events: :class:`engine.hand.Hand` applies every event through one
function, so replaying a log (or the public views of a log) rebuilds the state. Seats are
physical chair numbers (1-10), never list positions. Chips are integers.

>>> e = HoleCardsDealt(seat=3, cards=(Card("Ah"), Card("Kd")))
>>> e.secrecy, e.public_view()
(Secrecy.SECRET, HoleCardsDealt(seat=3, cards=(None, None)))
>>> Event.from_dict(e.to_dict()) == e
True
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from engine.cards import Card
from engine.errors import InvalidInputError
from engine.pots import Pot


class _Enum(enum.StrEnum):
    def __repr__(self) -> str:  # round-trips: ``Street.FLOP``
        return f"{type(self).__name__}.{self.name}"


class Secrecy(_Enum):
    """Who may see an event: anyone live, only delayed/secure outputs, or nobody (R19); and
    ``internal``: the service's own state (device reports), for the operator channel only,
    never on a public, delayed or secure output."""

    PUBLIC = "public"
    SECRET = "secret"
    NEVER = "never"
    INTERNAL = "internal"


class Street(_Enum):
    """The betting rounds of a hand, in order, plus the terminal phases."""

    PREFLOP = "preflop"
    FLOP = "flop"
    TURN = "turn"
    RIVER = "river"
    SHOWDOWN = "showdown"
    COMPLETE = "complete"
    VOID = "void"


class ActionKind(_Enum):
    """A player's decision; amounts are always "to" totals for the street (R6)."""

    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BET = "bet"
    RAISE = "raise"


E = TypeVar("E", bound="Event")
_REGISTRY: dict[str, type[Event]] = {}
_HINTS: dict[type, dict[str, Any]] = {}


@dataclass(frozen=True, slots=True)
class Event:
    """Base class of every hand event (abstract: use a subclass)."""

    kind: ClassVar[str] = "event"
    #: Events the engine derives from the previous command (blinds, collections, awards);
    #: an undo removes a command together with the derived events that follow it.
    derived: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # No super() call: @dataclass(slots=True) re-creates the class, which breaks the
        # zero-argument super(); the registry keeps the final (slotted) class.
        kind = cls.__dict__.get("kind")
        if isinstance(kind, str):
            _REGISTRY[kind] = cls

    @property
    def secrecy(self) -> Secrecy:
        return Secrecy.PUBLIC

    @property
    def is_command(self) -> bool:
        """True for an event a person caused (an undo step), False for a derived one."""
        return not self.derived

    def public_view(self) -> Event | None:
        """The version of this event a live public channel may see (None: nothing)."""
        secrecy = self.secrecy
        if secrecy is Secrecy.PUBLIC:
            return self
        return None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict including ``"kind"``; cards as codes, unknown cards as null."""
        out: dict[str, Any] = {"kind": self.kind}
        for f in dataclasses.fields(self):
            out[f.name] = _encode(getattr(self, f.name))
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Event:
        """The event that :meth:`to_dict` produced, dispatched on ``"kind"``.

        :raises InvalidInputError: for an unknown kind or a missing field.
        """
        kind = data.get("kind")
        target = _REGISTRY.get(kind) if isinstance(kind, str) else None
        if target is None:
            raise InvalidInputError(f"unknown event kind {kind!r}")
        hints = _hints(target)
        try:
            values = {f.name: _decode(hints[f.name], data[f.name])
                      for f in dataclasses.fields(target) if f.name in data or not _has_default(f)}
        except KeyError as missing:
            raise InvalidInputError(f"event {kind!r} lacks field {missing}") from None
        return target(**values)


def _has_default(f: dataclasses.Field[Any]) -> bool:
    return (f.default is not dataclasses.MISSING
            or f.default_factory is not dataclasses.MISSING)


def _hints(cls: type) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = typing.get_type_hints(cls)
        _HINTS[cls] = hints
    return hints


def _encode(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | str | float):
        return value.value if isinstance(value, enum.Enum) else value
    if isinstance(value, Card):
        return value.code
    if isinstance(value, tuple):
        return [_encode(item) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    raise TypeError(f"cannot encode {value!r}")


def _decode(hint: Any, value: Any) -> Any:
    origin = typing.get_origin(hint)
    if origin is types.UnionType or origin is typing.Union:
        args = typing.get_args(hint)
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _decode(inner, value)
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], item) for item in value)
        return tuple(_decode(a, item) for a, item in zip(args, value, strict=True))
    if hint is Card:
        return Card(value)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint(value)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        sub = _hints(hint)
        return hint(**{f.name: _decode(sub[f.name], value[f.name])
                       for f in dataclasses.fields(hint)})
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InvalidInputError(f"expected a number, got {value!r}")
        return float(value)
    if hint in (int, str, bool):
        if not isinstance(value, hint) or (hint is int and isinstance(value, bool)):
            raise InvalidInputError(f"expected {hint.__name__}, got {value!r}")
        return value
    raise TypeError(f"cannot decode {hint!r}")


# --- the hand's events --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HandStarted(Event):
    """A new hand: who sits where, with what, and under which rules.

    Positions run clockwise from the seat left of the button (the button is last);
    ``blinds`` and ``antes`` are the obligations per position (R4); what is actually
    posted follows as :class:`BlindPosted` / :class:`AntePosted` events (R5).
    """

    kind: ClassVar[str] = "hand_started"

    hand_number: int
    seats: tuple[int, ...]
    names: tuple[str, ...]
    stacks: tuple[int, ...]
    button: int | None
    blinds: tuple[int, ...]
    antes: tuple[int, ...]
    big_blind: int
    absent: tuple[int, ...] = ()
    short_call_rule: str = "live"
    odd_chip_rule: str = "button"
    chip_unit: int = 1
    dead_antes: bool = True
    auto_showdown: bool = True
    level: int = 0
    small_blind: int = 0
    """The level's small blind, posted or not (a dead small blind posts nothing, R2); 0 in
    logs written before it was recorded (readers then take the largest blind below the big
    one: :meth:`level_small_blind`)."""

    def level_small_blind(self) -> int:
        """The level's small blind: :attr:`small_blind`, else (an older log) the largest
        blind obligation below the big blind, else half the big blind.

        >>> HandStarted(1, (1, 2, 3), ("A", "B", "C"), (100,) * 3, 3, (50, 100, 0), (0,) * 3,
        ...             100).level_small_blind()
        50
        """
        if self.small_blind:
            return self.small_blind
        below = [b for b in self.blinds if 0 < b < self.big_blind]
        return max(below, default=self.big_blind // 2)


@dataclass(frozen=True, slots=True)
class AntePosted(Event):
    """An ante taken from a stack (R4); ``all_in`` when it took the whole stack (R5);
    ``manual`` when the operator posted it (then an undo step)."""

    kind: ClassVar[str] = "ante_posted"
    derived: ClassVar[bool] = True

    seat: int
    amount: int
    all_in: bool = False
    manual: bool = False

    @property
    def is_command(self) -> bool:
        return self.manual


@dataclass(frozen=True, slots=True)
class BlindPosted(Event):
    """A blind posted (R4); short and all-in when the stack could not cover it (R5)."""

    kind: ClassVar[str] = "blind_posted"
    derived: ClassVar[bool] = True

    seat: int
    blind: str
    amount: int
    all_in: bool = False
    manual: bool = False

    @property
    def is_command(self) -> bool:
        return self.manual


@dataclass(frozen=True, slots=True)
class HoleCardsDealt(Event):
    """Hole cards for a seat; a ``None`` card was dealt but not read."""

    kind: ClassVar[str] = "hole_cards_dealt"

    seat: int
    cards: tuple[Card | None, ...]

    @property
    def secrecy(self) -> Secrecy:
        return Secrecy.SECRET if any(c is not None for c in self.cards) else Secrecy.PUBLIC

    def public_view(self) -> Event | None:
        return HoleCardsDealt(self.seat, tuple(None for _ in self.cards))


@dataclass(frozen=True, slots=True)
class CardBurned(Event):
    """A burn card (R19): never in any output; it does not change the hand's state."""

    kind: ClassVar[str] = "card_burned"

    card: Card | None = None

    @property
    def secrecy(self) -> Secrecy:
        return Secrecy.NEVER


@dataclass(frozen=True, slots=True)
class BoardDealt(Event):
    """Community cards for a street (three on the flop, one on the turn and river)."""

    kind: ClassVar[str] = "board_dealt"

    street: Street
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class ActionTaken(Event):
    """A player's decision. ``to`` is his total bet on this street after it, ``added``
    the chips it moved; ``rule`` names the rule that forced it (R11 absent, R12 clock)."""

    kind: ClassVar[str] = "action_taken"

    seat: int
    action: ActionKind
    to: int = 0
    added: int = 0
    all_in: bool = False
    rule: str = ""

    @property
    def is_command(self) -> bool:
        return self.rule != "R11"


@dataclass(frozen=True, slots=True)
class BetReturned(Event):
    """The uncalled part of a bet goes back to its owner."""

    kind: ClassVar[str] = "bet_returned"
    derived: ClassVar[bool] = True

    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class BetsCollected(Event):
    """The end of a betting round: bets go to the middle; the pots as they now stand (R16)."""

    kind: ClassVar[str] = "bets_collected"
    derived: ClassVar[bool] = True

    street: Street
    pots: tuple[Pot, ...]


@dataclass(frozen=True, slots=True)
class StreetStarted(Event):
    """A betting round begins (after the board cards for it are dealt)."""

    kind: ClassVar[str] = "street_started"
    derived: ClassVar[bool] = True

    street: Street


@dataclass(frozen=True, slots=True)
class PlayerRestricted(Event):
    """The operator ruled that the player exposed a hole card (R10): call or fold only."""

    kind: ClassVar[str] = "player_restricted"

    seat: int
    rule: str = "R10"


@dataclass(frozen=True, slots=True)
class HandShown(Event):
    """Cards tabled (at showdown, or face up in an all-in, R14): public from now on."""

    kind: ClassVar[str] = "hand_shown"

    seat: int
    cards: tuple[Card, ...]
    auto: bool = False

    @property
    def is_command(self) -> bool:
        return not self.auto


@dataclass(frozen=True, slots=True)
class HandMucked(Event):
    """A hand thrown away unseen (R20): its cards, if known, are secret."""

    kind: ClassVar[str] = "hand_mucked"

    seat: int
    cards: tuple[Card | None, ...] = ()
    auto: bool = False

    @property
    def is_command(self) -> bool:
        return not self.auto

    @property
    def secrecy(self) -> Secrecy:
        return Secrecy.SECRET if any(c is not None for c in self.cards) else Secrecy.PUBLIC

    def public_view(self) -> Event | None:
        return HandMucked(self.seat, tuple(None for _ in self.cards), self.auto)


@dataclass(frozen=True, slots=True)
class PotAwarded(Event):
    """One pot (``pot`` 0 is the main pot) paid to its winners (R16, R17)."""

    kind: ClassVar[str] = "pot_awarded"
    derived: ClassVar[bool] = True

    pot: int
    amount: int
    seats: tuple[int, ...]
    shares: tuple[int, ...]
    hand: str = ""


@dataclass(frozen=True, slots=True)
class HandEnded(Event):
    """The hand is over: final stacks per position, and the players who busted in R22
    order (best finish first)."""

    kind: ClassVar[str] = "hand_ended"
    derived: ClassVar[bool] = True

    stacks: tuple[int, ...]
    busted: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class ActionUndone(Event):
    """The operator took back the last ``count`` events (one command and what it caused)."""

    kind: ClassVar[str] = "action_undone"

    count: int
    description: str = ""


@dataclass(frozen=True, slots=True)
class HandVoided(Event):
    """A misdeal (R13): every stack returns to its start-of-hand value; the button stays."""

    kind: ClassVar[str] = "hand_voided"

    reason: str = "misdeal"
    rule: str = "R13"


@dataclass(frozen=True, slots=True)
class PlayerEliminated(Event):
    """A player busted (R22): ``place`` is his finishing place at this table's count."""

    kind: ClassVar[str] = "player_eliminated"
    derived: ClassVar[bool] = True

    seat: int
    name: str
    place: int
    hand_number: int


EVENT_KINDS: dict[str, type[Event]] = _REGISTRY
"""Every event class by its :attr:`Event.kind`."""

# The table's and the tournament's events register themselves when their modules are imported;
# importing them here lets Event.from_dict decode every kind whichever module came first.
from engine import festival_events as _festival_events  # noqa: E402
from engine import identity as _identity  # noqa: E402
from engine import production_events as _production_events  # noqa: E402
from engine import table_events as _table_events  # noqa: E402
from engine import tournament_events as _tournament_events  # noqa: E402

del _festival_events, _identity, _production_events, _table_events, _tournament_events

__all__ = [
    "EVENT_KINDS", "ActionKind", "ActionTaken", "ActionUndone", "AntePosted", "BetReturned",
    "BetsCollected", "BlindPosted", "BoardDealt", "CardBurned", "Event", "HandEnded",
    "HandMucked", "HandShown", "HandStarted", "HandVoided", "HoleCardsDealt",
    "PlayerEliminated", "PlayerRestricted", "PotAwarded", "Secrecy", "Street", "StreetStarted",
]
