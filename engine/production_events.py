"""Production events: what the operator does for the broadcast rather than for the game.

None of them changes the table or the tournament (:mod:`engine.table_replay` ignores them):

* :class:`GraphicsHidden` and :class:`GraphicsShown`: "hide graphics", as PokerGFX's tracker
  has it. Public: every channel carries them after its own delay, so the on-air graphics fade
  out on each output exactly when that output reaches the moment the operator pressed the key
  (a delayed stream hides its graphics D seconds later, in step with its pictures);
* :class:`HandTagged`: a hand marked with a note for the editors (a marker in the exported
  hand histories and the clip list). Internal, like the next: a note may name hole cards
  ("Ann's bluff with 7-2"), and even the moment a hand is tagged hints that it is worth
  watching, so no audience channel carries it, delayed or not; the exports read the log;
* :class:`AutoOperatorSet`: the demo's automatic operator playing or paused.

Internal events reach the operator console only.

>>> from engine.events import Event
>>> tag = HandTagged(hand_number=12, note="hero call")
>>> Event.from_dict(tag.to_dict()) == tag, tag.public_view()
(True, None)
>>> GraphicsHidden().secrecy, tag.secrecy, AutoOperatorSet(playing=False).secrecy
(Secrecy.PUBLIC, Secrecy.INTERNAL, Secrecy.INTERNAL)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

from engine.errors import InvalidInputError
from engine.events import Event, Secrecy

__all__ = [
    "MAX_NOTE",
    "PRODUCTION_EVENTS",
    "AutoOperatorSet",
    "GraphicsHidden",
    "GraphicsShown",
    "HandTagged",
    "tag_note",
]

MAX_NOTE: Final = 200
"""The longest hand-tag note, in characters (a clip title, not an essay)."""


@dataclass(frozen=True, slots=True)
class GraphicsHidden(Event):
    """The operator took the graphics off air (they fade out on every on-air page)."""

    kind: ClassVar[str] = "graphics_hidden"


@dataclass(frozen=True, slots=True)
class GraphicsShown(Event):
    """The graphics are back on air."""

    kind: ClassVar[str] = "graphics_shown"


@dataclass(frozen=True, slots=True)
class HandTagged(Event):
    """Hand ``hand_number`` marked for the editors with ``note`` (may be empty)."""

    kind: ClassVar[str] = "hand_tagged"

    hand_number: int
    note: str = ""

    @property
    def secrecy(self) -> Secrecy:
        """Internal: a note may say what a player held (see the module docstring)."""
        return Secrecy.INTERNAL


@dataclass(frozen=True, slots=True)
class AutoOperatorSet(Event):
    """The demo's automatic operator plays (``playing``) or waits for the human operator."""

    kind: ClassVar[str] = "auto_operator_set"

    playing: bool

    @property
    def secrecy(self) -> Secrecy:
        return Secrecy.INTERNAL


PRODUCTION_EVENTS: Final = (GraphicsHidden, GraphicsShown, HandTagged, AutoOperatorSet)
"""The events of this module: the table and the tournament ignore every one."""


def tag_note(text: str) -> str:
    """A tag's note as it is logged: trimmed, one line.

    >>> tag_note("  river\\n  hero call ")
    'river hero call'

    :raises InvalidInputError: for a note longer than :data:`MAX_NOTE` characters.
    """
    note = " ".join(text.split())
    if len(note) > MAX_NOTE:
        raise InvalidInputError(f"a hand tag's note is at most {MAX_NOTE} characters "
                                f"(this one has {len(note)})")
    return note
