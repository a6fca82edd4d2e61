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
* **AF** (aggression factor): (bets + raises) / calls, over every street; None without calls.
* **WTSD** (went to showdown): hands in which the player reached a showdown (two or more
  players at the end of the river action, or all in with the board to come) / hands in which
  he saw the flop.

The ticker line says who won what with which hand: ``"Hand 41: Ann wins 4,800 with two pair,
queens and nines"``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.events import Event

__all__ = ["PlayerStats", "session_stats", "ticker_line"]


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
    """Bets and raises, every street."""
    calls: int = 0
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


def session_stats(hands: Iterable[Sequence[Event]]) -> dict[str, PlayerStats]:
    """Stats per player name over ``hands`` (each a hand's effective events, starting with
    its ``HandStarted``; void hands count for nothing)."""
    raise NotImplementedError


def ticker_line(events: Sequence[Event]) -> str:
    """The line a ticker shows after a finished hand (its effective events)."""
    raise NotImplementedError
