"""Session statistics per player from the hands played, and the ticker line after a hand.

Definitions (the usual tracker ones; a *hand* counts when the player was dealt in):

* **VPIP** (voluntarily put money in pot): hands in which the player called, bet or raised
  before the flop / hands dealt. Posting a blind or an ante is not voluntary; a walk (everyone
  folds to the big blind) is not counted, and a big blind who only checks does not count.
* **PFR** (pre-flop raise): hands in which the player raised (or opened with a raise) before
  the flop / hands dealt.
* **Three-bet**: hands in which the player re-raised a pre-flop raise (the second raise of
  the round; the big blind is the first bet) / hands in which he had the chance to (he acted
  facing exactly one raise before the flop).
* **AF** (aggression factor): (bets + raises) / calls on the flop, turn and river (the
  usual post-flop definition); None without calls.
* **WTSD** (went to showdown): hands in which the player reached a showdown (two or more
  players at the end of the river action, or all in with the board to come) / hands in which
  he saw the flop.

The ticker line says who won what with which hand: ``"Hand 41: Ann wins 4,800 with two pair,
queens and nines"``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from engine.events import (
    ActionKind,
    ActionTaken,
    BoardDealt,
    Event,
    HandStarted,
    HandVoided,
    PlayerEliminated,
    PotAwarded,
)
from engine.hand import Hand

__all__ = ["PlayerStats", "hand_stats", "merge_stats", "session_stats", "ticker_line"]


class _Adds(Protocol):
    def __add__(self: S, other: S, /) -> S: ...


S = TypeVar("S", bound=_Adds)


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """One player's counts for the session; the ratios are properties (None: no sample)."""

    name: str
    hands: int = 0
    vpip_hands: int = 0
    pfr_hands: int = 0
    three_bet_chances: int = 0
    three_bets: int = 0
    aggressive: int = 0
    """Bets and raises after the flop."""
    calls: int = 0
    """Calls after the flop."""
    saw_flop: int = 0
    showdowns: int = 0

    @property
    def vpip(self) -> float | None:
        return self.vpip_hands / self.hands if self.hands else None

    @property
    def pfr(self) -> float | None:
        return self.pfr_hands / self.hands if self.hands else None

    @property
    def three_bet(self) -> float | None:
        return self.three_bets / self.three_bet_chances if self.three_bet_chances else None

    @property
    def af(self) -> float | None:
        return self.aggressive / self.calls if self.calls else None

    @property
    def wtsd(self) -> float | None:
        return self.showdowns / self.saw_flop if self.saw_flop else None

    def to_dict(self) -> dict[str, Any]:
        """The view's per-player ``tournament.stats`` object."""
        return {"hands": self.hands, "vpip": self.vpip, "pfr": self.pfr,
                "three_bet": self.three_bet, "af": self.af, "wtsd": self.wtsd}


    def __add__(self, other: PlayerStats) -> PlayerStats:
        if other.name != self.name:
            raise ValueError(f"cannot add {other.name}'s stats to {self.name}'s")
        return PlayerStats(self.name, *(getattr(self, f) + getattr(other, f)
                                        for f in _COUNTS))


_COUNTS = ("hands", "vpip_hands", "pfr_hands", "three_bet_chances", "three_bets", "aggressive",
           "calls", "saw_flop", "showdowns")


def hand_stats(events: Sequence[Event]) -> dict[str, PlayerStats]:
    """The counts one hand adds, per player name (an empty dict for a void or unstarted
    hand). ``events`` is the hand's log from its ``HandStarted``; undone actions are taken
    out first (the hand is replayed)."""
    if not events:
        return {}
    effective = Hand.replay(events).effective_events
    started = effective[0]
    if not isinstance(started, HandStarted) or any(isinstance(e, HandVoided)
                                                   for e in effective):
        return {}
    names = dict(zip(started.seats, started.names, strict=True))
    counts = {seat: dict.fromkeys(_COUNTS, 0) for seat in started.seats}
    vpip: set[int] = set()
    pfr: set[int] = set()
    chances: set[int] = set()
    three_bets: set[int] = set()
    folded: set[int] = set()
    flop_seen: set[int] = set()
    raises = 0  # pre-flop raises so far (the big blind is the first bet)
    preflop = True
    for event in effective:
        if isinstance(event, BoardDealt) and preflop:
            preflop = False
            flop_seen = set(started.seats) - folded
        elif isinstance(event, ActionTaken):
            seat, kind = event.seat, event.action
            if kind is ActionKind.FOLD:
                folded.add(seat)
            if preflop:
                if raises == 1 and event.rule not in ("R11", "R12"):
                    chances.add(seat)  # he acts facing exactly one raise
                if kind in (ActionKind.CALL, ActionKind.BET, ActionKind.RAISE):
                    vpip.add(seat)
                if kind in (ActionKind.BET, ActionKind.RAISE):
                    pfr.add(seat)
                    raises += 1
                    if raises == 2:
                        three_bets.add(seat)
            elif kind in (ActionKind.BET, ActionKind.RAISE):
                counts[seat]["aggressive"] += 1
            elif kind is ActionKind.CALL:
                counts[seat]["calls"] += 1
    live = set(started.seats) - folded  # a hand mucked at showdown still went there
    showdown = len(live) >= 2
    for seat, c in counts.items():
        c["hands"] = 1
        c["vpip_hands"] = int(seat in vpip)
        c["pfr_hands"] = int(seat in pfr)
        c["three_bet_chances"] = int(seat in chances)
        c["three_bets"] = int(seat in three_bets)
        c["saw_flop"] = int(seat in flop_seen)
        c["showdowns"] = int(showdown and seat in live and seat in flop_seen)
    return {names[seat]: PlayerStats(names[seat], **c) for seat, c in counts.items()}


def session_stats(hands: Iterable[Sequence[Event]]) -> dict[str, PlayerStats]:
    """Stats per player name over ``hands`` (each a hand's events, starting with its
    ``HandStarted``; void hands count for nothing)."""
    out: dict[str, PlayerStats] = {}
    for events in hands:
        out = merge_stats(out, hand_stats(events))
    return out


def merge_stats(stats: Mapping[str, S], more: Mapping[str, S]) -> dict[str, S]:
    """``stats`` with ``more`` added, per player name (a new dict; the inputs are kept). Any
    per-player value that adds up works: :class:`PlayerStats`, ``engine.stories.PlayerStory``."""
    out = dict(stats)
    for name, counts in more.items():
        before = out.get(name)
        out[name] = counts if before is None else before + counts
    return out


_ARTICLE = {"pair": "a pair", "straight": "a straight", "flush": "a flush",
            "full house": "a full house", "straight flush": "a straight flush",
            "royal flush": "a royal flush"}


def _spoken(description: str) -> str:
    """``'Two Pair, Queens and Nines'`` -> ``'two pair, queens and nines'``."""
    text = description.lower()
    category, _, detail = text.partition(", ")
    category = _ARTICLE.get(category, category)
    if category == "a pair" and detail:
        return f"a pair of {detail}"
    if category == "high card" and detail:
        return f"{detail} high"
    return f"{category}, {detail}" if detail else category


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def ticker_line(events: Sequence[Event],
                eliminations: Sequence[PlayerEliminated] = (),
                shown: Mapping[int, str] | None = None) -> str:
    """The line a ticker shows after a finished hand: who won how much with what, and who
    went out in which place (``eliminations``: the table's, for this hand), e.g.
    ``"Hand 41: Ann wins 4,800 with two pair, queens and nines; Cy is out in 7th"``.
    ``shown`` names the players by seat as the graphics show them (their display names);
    a seat it does not name goes by the table's name."""
    effective = Hand.replay(events).effective_events if events else ()
    started = effective[0] if effective else None
    if not isinstance(started, HandStarted):
        return ""
    head = f"Hand {started.hand_number}"
    if any(isinstance(e, HandVoided) for e in effective):
        return f"{head}: misdeal, the hand is void"
    names = {**dict(zip(started.seats, started.names, strict=True)), **(shown or {})}
    won: dict[int, int] = {}
    how: dict[int, str] = {}
    split_with: dict[int, tuple[int, ...]] = {}
    for e in effective:
        if isinstance(e, PotAwarded):
            for seat, share in zip(e.seats, e.shares, strict=True):
                won[seat] = won.get(seat, 0) + share
                if e.hand and seat not in how:
                    how[seat] = _spoken(e.hand)
                if len(e.seats) > 1:
                    split_with.setdefault(seat, e.seats)
    if not won:
        return f"{head}: in progress"
    parts = []
    done: set[int] = set()
    for seat in sorted(won, key=lambda s: -won[s]):
        if seat in done:
            continue
        group = [s for s in split_with.get(seat, (seat,)) if s in won and s not in done]
        if len(group) > 1 and len({won[s] for s in group}) == 1:
            text = f"{_join([names[s] for s in group])} split {sum(won[s] for s in group):,}"
        else:
            group = [seat]
            text = f"{names[seat]} wins {won[seat]:,}"
        if how.get(seat):
            text += f" with {how[seat]}"
        parts.append(text)
        done.update(group)
    line = f"{head}: " + "; ".join(parts)
    for out in eliminations:
        line += f"; {names.get(out.seat, out.name)} is out in {_ordinal(out.place)}"
    return line


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
