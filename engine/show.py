"""A hand as text, street by street: forced bets, actions, pots, showdown and awards, with the
exact equity of the known hands still in the hand at the start of each street.

The text is for the operator and for ``feltcast phh show``; it prints hole cards, so it is
never a public output.
"""

from __future__ import annotations

from engine.actions import chips
from engine.cards import Card
from engine.events import (
    ActionKind,
    ActionTaken,
    AntePosted,
    BetReturned,
    BetsCollected,
    BlindPosted,
    BoardDealt,
    Event,
    HandEnded,
    HandMucked,
    HandShown,
    HandStarted,
    HandVoided,
    HoleCardsDealt,
    PotAwarded,
    Street,
    StreetStarted,
)
from engine.hand import Hand
from engine.pots import Pot

_QUIET_BEFORE_EQUITY = (HoleCardsDealt, StreetStarted, BlindPosted, AntePosted, BoardDealt)


def _cards(cards: tuple[Card | None, ...]) -> str:
    return "".join(c.code if c is not None else "??" for c in cards)


def _pots(pots: tuple[Pot, ...]) -> str:
    parts = []
    for k, pot in enumerate(pots):
        name = "main pot" if k == 0 else f"side pot {k}"
        parts.append(f"{name} {chips(pot.amount)} (seats {', '.join(map(str, pot.seats))})")
    return "; ".join(parts) or "no pot"


class _Renderer:
    def __init__(self, hand: Hand, equity: bool) -> None:
        self.hand = hand
        self.equity = equity
        self.lines: list[str] = []
        self.names: dict[int, str] = {}
        self.hole: dict[int, tuple[Card | None, ...]] = {}
        self.out: set[int] = set()
        self.board: list[Card] = []
        self.pending = False

    def name(self, seat: int) -> str:
        return f"{self.names.get(seat, '')} (seat {seat})"

    def emit_equity(self) -> None:
        self.pending = False
        if not self.equity:
            return
        live = [s for s in self.names if s not in self.out]
        known = [s for s in live if s in self.hole and None not in self.hole[s]]
        if len(known) < 2 or len(known) > 10:
            return
        from engine.equity import equity

        dead = [c for s, h in self.hole.items() if s in self.out for c in h if c is not None]
        try:
            result = equity([tuple(c for c in self.hole[s] if c is not None) for s in known],
                            self.board, dead)
        except ValueError as error:  # e.g. too few cards left to deal
            self.lines.append(f"    equity: not available ({error})")
            return
        figures = ", ".join(f"{self.names[s]} {_cards(self.hole[s])} {float(p.equity):.1%}"
                            for s, p in zip(known, result.players, strict=True))
        unknown = [s for s in live if s not in known]
        note = (f" (unknown cards: seat {', '.join(map(str, unknown))})" if unknown else "")
        self.lines.append(f"    equity: {figures}{note}")

    def feed(self, event: Event) -> None:
        if self.pending and not isinstance(event, _QUIET_BEFORE_EQUITY):
            self.emit_equity()
        add = self.lines.append
        if isinstance(event, HandStarted):
            self.names = dict(zip(event.seats, event.names, strict=True))
            add(f"Hand {event.hand_number}: blinds {'/'.join(chips(b) for b in event.blinds if b)}"
                + (f", antes {'/'.join(chips(a) for a in event.antes if a)}"
                   if any(event.antes) else "")
                + (f", button seat {event.button}" if event.button is not None else ""))
            for seat, stack in zip(event.seats, event.stacks, strict=True):
                add(f"  {self.name(seat)}: {chips(stack)}")
        elif isinstance(event, AntePosted | BlindPosted):
            what = "ante" if isinstance(event, AntePosted) else f"{event.blind} blind"
            allin = " and is all-in" if event.all_in else ""
            add(f"  {self.name(event.seat)} posts {what} {chips(event.amount)}{allin}")
        elif isinstance(event, HoleCardsDealt):
            self.hole[event.seat] = event.cards
            add(f"  {self.name(event.seat)} is dealt {_cards(event.cards)}")
        elif isinstance(event, BoardDealt):
            self.board.extend(event.cards)
        elif isinstance(event, StreetStarted):
            if event.street is not Street.SHOWDOWN:
                board = f" [{_cards(tuple(self.board))}]" if self.board else ""
                add(f"*** {event.street.value.upper()} ***{board}")
                self.pending = True
            else:
                add("*** SHOWDOWN ***")
        elif isinstance(event, ActionTaken):
            verb = {ActionKind.FOLD: "folds", ActionKind.CHECK: "checks",
                    ActionKind.CALL: f"calls {chips(event.added)}",
                    ActionKind.BET: f"bets {chips(event.to)}",
                    ActionKind.RAISE: f"raises to {chips(event.to)}"}[event.action]
            if event.action is ActionKind.FOLD:
                self.out.add(event.seat)
            extra = " and is all-in" if event.all_in else ""
            rule = f" ({event.rule})" if event.rule else ""
            add(f"  {self.name(event.seat)} {verb}{extra}{rule}")
        elif isinstance(event, BetReturned):
            add(f"  uncalled {chips(event.amount)} returned to {self.name(event.seat)}")
        elif isinstance(event, BetsCollected):
            add(f"  pots: {_pots(event.pots)}")
        elif isinstance(event, HandShown):
            self.hole[event.seat] = event.cards
            add(f"  {self.name(event.seat)} shows {_cards(event.cards)}")
        elif isinstance(event, HandMucked):
            self.out.add(event.seat)
            add(f"  {self.name(event.seat)} mucks")
        elif isinstance(event, PotAwarded):
            pot = "main pot" if event.pot == 0 else f"side pot {event.pot}"
            with_hand = f" with {event.hand}" if event.hand else ""
            for seat, share in zip(event.seats, event.shares, strict=True):
                add(f"  {self.name(seat)} wins {chips(share)} from the {pot}{with_hand}")
        elif isinstance(event, HandEnded):
            add("Final stacks: " + ", ".join(
                f"{self.names[s]} {chips(x)}" for s, x in zip(self.names, event.stacks,
                                                               strict=True)))
            if event.busted:
                add("Busted (best finish first, R22): " + ", ".join(
                    self.name(s) for s in event.busted))
        elif isinstance(event, HandVoided):
            add(f"Hand voided ({event.reason}, {event.rule}): stacks restored")


def render(hand: Hand, *, title: str = "", equity: bool = True) -> str:
    """The hand's effective events (undos applied) as text; equity when ``equity``."""
    renderer = _Renderer(hand, equity)
    if title:
        renderer.lines.append(title)
    for event in hand.effective_events:
        renderer.feed(event)
    if renderer.pending:
        renderer.emit_equity()
    return "\n".join(renderer.lines)
