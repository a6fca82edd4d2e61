"""A tournament table across hands: seats, button and blinds (R1-R3), antes (R4), absent
players (R11), the clock (R12), eliminations (R22) and levels (R21).

The table decides who posts what, starts each :class:`~engine.hand.Hand` and, when it is
over, takes the stacks back, ranks the players who busted and moves the button. A void hand
(misdeal, R13) changes nothing: same stacks, same button, same blinds.

>>> table = Table()
>>> for seat, name in ((1, "Ann"), (4, "Bo"), (7, "Cy")):
...     table.seat_player(seat, name, 5000)
>>> table.draw_for_button({1: "Kd", 4: "Ks", 7: "2c"})
4
>>> hand = table.start_hand()
>>> hand.seats, hand.bets
((7, 1, 4), (25, 50, 0))
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from engine.actions import LegalActions
from engine.cards import Card
from engine.errors import ConfigError, IllegalActionError
from engine.events import ActionTaken, PlayerEliminated, Street
from engine.hand import Hand
from engine.tournament import DEFAULT_STRUCTURE, BlindLevel, Structure
from engine.tournament_events import PlayerDisqualified, StackCorrected


class AnteMode(enum.StrEnum):
    """Who pays the ante (R4)."""

    NONE = "none"
    PER_PLAYER = "per_player"
    BIG_BLIND = "big_blind"
    BUTTON = "button"


@dataclass(frozen=True, slots=True)
class TableRules:
    """The house rules of a table (defaults are the rules' defaults)."""

    ante_mode: AnteMode = AnteMode.NONE
    short_call_rule: str = "live"
    """R5: ``"live"`` (call the full big blind) or ``"phh"`` (PHH/PokerKit convention)."""
    odd_chip_rule: str = "button"
    """R17: ``"button"`` (first winner clockwise from the button) or ``"big_blind"``."""
    dead_button: bool = True
    """R2: the big blind advances one player and the button may be dead; False moves the
    button to the next player in the hand (a simplified house rule)."""
    chip_unit: int = 1
    max_seats: int = 10
    auto_showdown: bool = True
    button_ante_to_small_blind_at: int = 6
    """R4 (004 §27): with this many players or fewer the button ante is paid by the small
    blind; 0 disables."""

    def __post_init__(self) -> None:
        if self.short_call_rule not in ("live", "phh"):
            raise ConfigError("short_call_rule", "must be 'live' or 'phh'")
        if self.odd_chip_rule not in ("button", "big_blind"):
            raise ConfigError("odd_chip_rule", "must be 'button' or 'big_blind'")
        if not 2 <= self.max_seats <= 10 or self.chip_unit <= 0:
            raise ConfigError("max_seats", "2-10 seats and a positive chip unit")


@dataclass(slots=True)
class _Player:
    name: str
    stack: int
    absent: bool = False


@dataclass(frozen=True, slots=True)
class Positions:
    """Where the button and blinds are for a hand. ``button`` may be an empty seat (dead
    button, R2); the small blind's seat may be empty too (then nobody posts it)."""

    button: int
    small_blind_seat: int
    big_blind: int
    small_blind_posts: bool = True

    @property
    def small_blind(self) -> int | None:
        """The seat posting the small blind, or None (no small blind this hand, R2)."""
        return self.small_blind_seat if self.small_blind_posts else None


class Table:
    """One final table. All changes go through methods; time is passed in (R21)."""

    def __init__(self, rules: TableRules | None = None,
                 structure: Structure = DEFAULT_STRUCTURE) -> None:
        self.rules = rules or TableRules()
        self.structure = structure
        self.level: BlindLevel = structure.levels[0]
        self._pending_level: BlindLevel | None = None
        self._players: dict[int, _Player] = {}
        self.button: int | None = None
        self._last: Positions | None = None
        self.hand: Hand | None = None
        self.hand_number = 0
        self.disqualified: list[PlayerDisqualified] = []
        self._positions: Positions | None = None
        self._taken_back = True

    # --- seats ---------------------------------------------------------------------------

    def seat_player(self, seat: int, name: str, stack: int) -> None:
        if not 1 <= seat <= self.rules.max_seats:
            raise IllegalActionError(f"seat {seat} does not exist (1-{self.rules.max_seats})")
        if seat in self._players:
            raise IllegalActionError(f"seat {seat} is taken by {self._players[seat].name}")
        if stack <= 0:
            raise IllegalActionError(f"{name} needs chips to sit down")
        self._require_between_hands("seat a player")
        self._players[seat] = _Player(name, stack)

    def update_player(self, seat: int, name: str, stack: int) -> None:
        """Correct a seated player's name or stack between hands."""
        player = self._player(seat)
        if stack <= 0:
            raise IllegalActionError(f"{name} needs chips to stay seated (empty the seat "
                                     f"instead)")
        if not name.strip():
            raise IllegalActionError(f"the player in seat {seat} needs a name")
        self._require_between_hands("change a player's name or stack")
        player.name, player.stack = name, stack

    def correct_stack(self, seat: int, stack: int, reason: str) -> StackCorrected:
        """Correct a stack between hands: an event with the old and new stack and the reason,
        never a silent edit (issue 10).

        :raises IllegalActionError: during a hand, without a reason, or for no chips (a
            player leaves through elimination or :meth:`disqualify`).
        """
        player = self._player(seat)
        if not reason.strip():
            raise IllegalActionError("a stack correction needs a reason (it is logged)")
        if stack <= 0:
            raise IllegalActionError(f"{player.name} needs chips to stay seated")
        self._require_between_hands("correct a stack")
        event = StackCorrected(seat, stack, player.stack, reason.strip())
        player.stack = stack
        return event

    def disqualify(self, seat: int, reason: str) -> PlayerDisqualified:
        """The tournament director excludes the player in ``seat`` (001 §2.22): his chips
        leave play and the seat is empty; his prize is forfeit (R23, see
        :class:`engine.payouts.Standings`).

        :raises IllegalActionError: during a hand or without a reason.
        """
        player = self._player(seat)
        if not reason.strip():
            raise IllegalActionError("a disqualification needs a reason (it is logged)")
        self._require_between_hands("disqualify a player")
        event = PlayerDisqualified(seat, player.name, reason.strip(), player.stack)
        del self._players[seat]
        self.disqualified.append(event)
        return event

    def remove_player(self, seat: int) -> None:
        """Empty a seat between hands (the player left the table)."""
        self._player(seat)
        self._require_between_hands("empty a seat")
        del self._players[seat]

    def set_absent(self, seat: int, absent: bool = True) -> None:
        """R11: an absent player is dealt in, posts, and is folded when the action reaches
        him; takes effect from the next hand."""
        self._player(seat).absent = absent

    @property
    def stacks(self) -> dict[int, int]:
        return {seat: p.stack for seat, p in sorted(self._players.items())}

    @property
    def names(self) -> dict[int, str]:
        return {seat: p.name for seat, p in sorted(self._players.items())}

    def _player(self, seat: int) -> _Player:
        try:
            return self._players[seat]
        except KeyError:
            raise IllegalActionError(f"nobody sits in seat {seat}") from None

    def _require_between_hands(self, what: str) -> None:
        if self.hand is not None and not self.hand.is_over:
            raise IllegalActionError(f"cannot {what} during a hand")

    def _active(self) -> list[int]:
        return sorted(s for s, p in self._players.items() if p.stack > 0)

    def _next_active(self, after: int) -> int:
        active = self._active()
        for step in range(1, self.rules.max_seats + 1):
            seat = (after - 1 + step) % self.rules.max_seats + 1
            if seat in active:
                return seat
        raise IllegalActionError("nobody has chips")

    # --- button and blinds (R1-R3) -------------------------------------------------------

    def draw_for_button(self, draws: Mapping[int, Card | str]) -> int:
        """R1: the highest card drawn takes the button; suits break ties, spades highest."""
        self._require_between_hands("draw for the button")
        cards = {seat: Card(c) if isinstance(c, str) else c for seat, c in draws.items()}
        missing = set(self._active()) - set(cards)
        if missing:
            raise IllegalActionError(f"seat(s) {sorted(missing)} have not drawn a card")
        if len(set(cards.values())) != len(cards):
            raise IllegalActionError("two players drew the same card")
        self.button = max(cards, key=lambda seat: cards[seat].index)
        self._last = None
        return self.button

    def set_button(self, seat: int) -> None:
        """Place the button by hand (e.g. the final table starts where it was)."""
        self._player(seat)
        self.button = seat
        self._last = None

    def next_positions(self) -> Positions:
        """Button, small blind and big blind for the next hand (R2 dead button, R3)."""
        active = self._active()
        if len(active) < 2:
            raise IllegalActionError("a hand needs at least two players with chips")
        last = self._last
        if last is None:  # the first hand: from the drawn (or placed) button
            if self.button is None:
                raise IllegalActionError("draw for the button first (R1)")
            button = self.button
            if len(active) == 2:  # R3: heads-up the button posts the small blind
                button = button if button in active else self._next_active(button)
                return Positions(button, button, self._next_active(button))
            small = self._next_active(button)
            return Positions(button, small, self._next_active(small))
        big = self._next_active(last.big_blind)  # R2: the big blind moves one player on
        if len(active) == 2:  # R3: the other player has the button and the small blind,
            other = next(s for s in active if s != big)  # so nobody posts the BB twice
            return Positions(other, other, big)
        if not self.rules.dead_button:
            button = self._next_active(last.button)
            small = self._next_active(button)
            return Positions(button, small, self._next_active(small))
        # R2: small blind and button follow the big blind, even onto empty seats; if last
        # hand's big blind busted there is no small blind.
        return Positions(last.small_blind_seat, last.big_blind, big,
                         small_blind_posts=last.big_blind in active)

    # --- levels (R21) --------------------------------------------------------------------

    def set_level(self, number: int) -> BlindLevel:
        """Move to level ``number``; it takes effect with the next hand (R21)."""
        level = self.structure.level(number)
        if self.hand is not None and not self.hand.is_over:
            self._pending_level = level
        else:
            self.level = level
        return level

    # --- hands ---------------------------------------------------------------------------

    def start_hand(self, *, elapsed_seconds: float | None = None) -> Hand:
        """Start the next hand: blinds and antes posted, the first player to act set.

        ``elapsed_seconds`` (tournament clock) picks the level by R21: never mid-hand.
        """
        self._require_between_hands("start a hand")
        if self.hand is not None and self.hand.street is not Street.VOID:
            self._take_back(self.hand)
        if self._pending_level is not None:
            self.level, self._pending_level = self._pending_level, None
        if elapsed_seconds is not None:
            self.level = self.structure.level_at(elapsed_seconds)
        pos = self.next_positions()
        count = self.rules.max_seats
        seats = sorted(self._active(), key=lambda s: (s - pos.button - 1) % count)
        level = self.level
        blinds = [0] * len(seats)
        if pos.small_blind is not None:
            blinds[seats.index(pos.small_blind)] = level.small_blind
        blinds[seats.index(pos.big_blind)] = level.big_blind
        antes = self._antes(seats, pos, level)
        self.hand_number += 1
        hand = Hand.start(
            seats=seats, names=[self._players[s].name for s in seats],
            stacks=[self._players[s].stack for s in seats], blinds=blinds, antes=antes,
            big_blind=level.big_blind, button=pos.button, hand_number=self.hand_number,
            absent=[s for s in seats if self._players[s].absent],
            short_call_rule=self.rules.short_call_rule, odd_chip_rule=self.rules.odd_chip_rule,
            chip_unit=self.rules.chip_unit, auto_showdown=self.rules.auto_showdown,
            level=level.number, small_blind=level.small_blind)
        self.hand = hand
        self._positions = pos
        self._taken_back = False
        return hand

    def _antes(self, seats: list[int], pos: Positions, level: BlindLevel) -> list[int]:
        mode, ante = self.rules.ante_mode, level.ante
        antes = [0] * len(seats)
        if not ante or mode is AnteMode.NONE:
            return antes
        if mode is AnteMode.PER_PLAYER:
            return [ante] * len(seats)
        if mode is AnteMode.BIG_BLIND:
            antes[seats.index(pos.big_blind)] = ante
            return antes
        payer = pos.button if pos.button in seats else None  # R4 button ante
        few = self.rules.button_ante_to_small_blind_at
        if payer is None or (few and len(seats) <= few):
            payer = pos.small_blind if pos.small_blind is not None else pos.big_blind
        antes[seats.index(payer)] = ante
        return antes

    def finish_hand(self) -> tuple[PlayerEliminated, ...]:
        """Take the finished hand's stacks back, rank the busted players (R22) and move the
        button (R1, R2). A void hand (R13) moves nothing.

        :raises IllegalActionError: while the hand is still running.
        """
        hand = self.hand
        if hand is None or not hand.is_over:
            raise IllegalActionError("the hand is not over")
        if hand.street is Street.VOID:
            return ()
        return self._take_back(hand)

    def _take_back(self, hand: Hand) -> tuple[PlayerEliminated, ...]:
        if self._taken_back:
            return ()
        self._taken_back = True
        for seat, stack in zip(hand.seats, hand.stacks, strict=True):
            self._players[seat].stack = stack
        remaining = len(hand.seats)
        out = []
        busted = hand.busted
        for k, seat in enumerate(busted):  # best finish first (R22)
            place = remaining - len(busted) + 1 + k
            event = PlayerEliminated(seat, self._players[seat].name, place, hand.hand_number)
            out.append(event)
            del self._players[seat]
        assert self._positions is not None
        self._last = self._positions
        self.button = self._positions.button
        return tuple(out)

    # --- the clock (R12) -----------------------------------------------------------------

    def pending_decision(self) -> LegalActions | None:
        """The decision a clock is running on, or None."""
        return self.hand.pending_decision() if self.hand is not None else None

    def expire_clock(self) -> ActionTaken:
        """R12: the clock expired; check if possible, else fold."""
        if self.hand is None:
            raise IllegalActionError("no hand is running", rule="R12")
        return self.hand.expire_clock()
