"""Story lines for the commentators' booth, per player, from the hands he played.

What a commentator reaches for when a player is in a big pot, counted over the hands this
channel has seen end (like :mod:`engine.stats`):

* **biggest pot won**: the most chips he took from the middle in one hand (his share of every
  pot he won, his own chips included), and the hand;
* **biggest loss**: the most chips his stack went down in one hand, and the hand;
* **chip lead**: how often he took the chip lead of the table (the one largest stack after a
  hand that was not his before it), and the last hand he took it in;
* **knocked out**: the players he put out; a player who busts was put out by the player whose
  stack grew most in that hand;
* **doubled up**: the hands in which his stack at least doubled without busting anyone, and
  through whom (the player whose stack fell most in that hand).

Void hands count for nothing (R13).

>>> from engine.events import HandStarted, PotAwarded, HandEnded
>>> hand = (HandStarted(7, (1, 2), ("Ann", "Bo"), (900, 400), 1, (50, 100), (0, 0), 100),
...         PotAwarded(0, 800, (2,), (800,), "Flush"), HandEnded((500, 800)))
>>> stories = hand_stories(hand)
>>> stories["Bo"].doubled, stories["Bo"].biggest_won
(((7, 'Ann'),), (7, 800))
>>> stories["Ann"].biggest_lost
(7, 400)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.events import Event, HandEnded, HandStarted, HandVoided, PotAwarded
from engine.stats import merge_stats

__all__ = ["PlayerStory", "hand_stories", "merge_stories"]


@dataclass(frozen=True, slots=True)
class PlayerStory:
    """One player's story lines for the session (see the module docstring)."""

    name: str
    biggest_won: tuple[int, int] | None = None
    """(hand number, chips won), or None."""
    biggest_lost: tuple[int, int] | None = None
    """(hand number, chips lost), or None."""
    lead_taken: int = 0
    lead_hand: int | None = None
    """The last hand in which he took the chip lead."""
    knocked_out: tuple[tuple[str, int], ...] = ()
    """(name, hand number) of each player he put out, oldest first."""
    doubled: tuple[tuple[int, str], ...] = ()
    """(hand number, through whom) of each double-up, oldest first."""

    def __add__(self, other: PlayerStory) -> PlayerStory:
        if other.name != self.name:
            raise ValueError(f"cannot add {other.name}'s story to {self.name}'s")
        return PlayerStory(
            self.name, _larger(self.biggest_won, other.biggest_won),
            _larger(self.biggest_lost, other.biggest_lost), self.lead_taken + other.lead_taken,
            other.lead_hand if other.lead_hand is not None else self.lead_hand,
            self.knocked_out + other.knocked_out, self.doubled + other.doubled)

    def to_dict(self) -> dict[str, Any]:
        """The view's per-player ``tournament.stories`` object (``docs/view-model.md``)."""
        def pair(value: tuple[int, int] | None) -> dict[str, int] | None:
            return None if value is None else {"hand": value[0], "chips": value[1]}
        return {"biggest_won": pair(self.biggest_won), "biggest_lost": pair(self.biggest_lost),
                "lead_taken": self.lead_taken, "lead_hand": self.lead_hand,
                "knocked_out": [{"name": n, "hand": h} for n, h in self.knocked_out],
                "doubled": [{"hand": h, "through": n} for h, n in self.doubled]}


def _larger(a: tuple[int, int] | None, b: tuple[int, int] | None) -> tuple[int, int] | None:
    """The one with more chips; the earlier hand on a tie."""
    if a is None or b is None:
        return a if b is None else b
    return b if b[1] > a[1] else a


def _leader(stacks: Mapping[int, int]) -> int | None:
    """The seat of the one largest stack (None on a tie or without chips)."""
    if not stacks:
        return None
    top = max(stacks.values())
    leaders = [seat for seat, chips in stacks.items() if chips == top]
    return leaders[0] if top > 0 and len(leaders) == 1 else None


def hand_stories(events: Sequence[Event]) -> dict[str, PlayerStory]:
    """What one finished hand adds to each player's story, by name (empty for a hand that is
    void or not over). ``events`` are the hand's effective events from its ``HandStarted``."""
    if not events or not isinstance(events[0], HandStarted):
        return {}
    started = events[0]
    ended = next((e for e in events if isinstance(e, HandEnded)), None)
    if ended is None or any(isinstance(e, HandVoided) for e in events):
        return {}
    number = started.hand_number
    names = dict(zip(started.seats, started.names, strict=True))
    before = dict(zip(started.seats, started.stacks, strict=True))
    after = dict(zip(started.seats, ended.stacks, strict=True))
    won: dict[int, int] = {}
    for e in events:
        if isinstance(e, PotAwarded):
            for seat, share in zip(e.seats, e.shares, strict=True):
                won[seat] = won.get(seat, 0) + share
    change = {seat: after[seat] - before[seat] for seat in started.seats}
    gainer = max(started.seats, key=lambda s: (change[s], -started.seats.index(s)))
    loser = min(started.seats, key=lambda s: (change[s], started.seats.index(s)))
    busted = [seat for seat in ended.busted if seat in names]
    leader_before, leader_after = _leader(before), _leader(after)
    out: dict[str, PlayerStory] = {}
    for seat in started.seats:
        took_lead = leader_after == seat and leader_before != seat
        knocked = tuple((names[b], number) for b in busted
                        if b != seat and change[seat] > 0 and seat == gainer)
        doubled = ((number, names[loser]),) if (
            before[seat] > 0 and after[seat] >= 2 * before[seat] and not knocked
            and loser != seat and change[loser] < 0) else ()
        out[names[seat]] = PlayerStory(
            names[seat],
            biggest_won=(number, won[seat]) if won.get(seat) else None,
            biggest_lost=(number, -change[seat]) if change[seat] < 0 else None,
            lead_taken=int(took_lead), lead_hand=number if took_lead else None,
            knocked_out=knocked, doubled=doubled)
    return out


def merge_stories(stories: Mapping[str, PlayerStory], more: Mapping[str, PlayerStory],
                  ) -> dict[str, PlayerStory]:
    """``stories`` with ``more`` added, per player name (a new dict; the inputs are kept)."""
    return merge_stats(stories, more)
