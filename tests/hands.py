"""Seeded random tournament hands through the real engine, as a table log.

:func:`random_log` plays tournament hands with :class:`engine.table.Table` and
:class:`engine.hand.Hand` (random legal actions, burn cards before every board card, undos,
misdeals, showdowns with shown and mucked hands, absent players, level changes, eliminations)
and returns every event the engine emitted, in order, with wall-clock times.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from engine.capture_events import BoardCardRead, HoleCardsRead, ReaderOffline
from engine.cards import FULL_DECK, Card
from engine.errors import IllegalActionError
from engine.events import BoardDealt, Event, HoleCardsDealt, Street
from engine.hand import Hand
from engine.log import CaptureRecord, LoggedEvent, TableEvent
from engine.table import AnteMode, Table, TableRules
from tests.engine.randomhands import random_setup


def play_random_hand(rng: random.Random, number: int) -> list[Event]:
    """One stand-alone hand's events (a random table setup of tests/engine/randomhands.py)."""
    setup = random_setup(rng)
    count = len(setup.stacks)
    seats = tuple(sorted(rng.sample(range(1, 11), count)))
    hand = Hand.start(seats=seats, stacks=setup.stacks, blinds=setup.blinds,
                      antes=setup.antes, big_blind=setup.big_blind, button=seats[-1],
                      names=tuple(f"P{s}" for s in seats), hand_number=number)
    drive_hand(hand, rng, list(setup.deck))
    return list(hand.events)


def drive_hand(hand: Hand, rng: random.Random, deck: list[Card], fold: float = 0.1) -> None:
    """Play ``hand`` to its end: hole cards (a few unread), random legal actions, undos, a
    burn card before each board card (R19), showdowns with shown and mucked hands, and now
    and then a misdeal (R13)."""
    burns = deck[:4]  # the bottom of the shuffled deck: never dealt to anyone
    del deck[:4]
    seats = hand.seats
    for seat in seats:
        unread = rng.random() < 0.05
        cards: tuple[Card | None, ...] = (None, None) if unread else (deck.pop(), deck.pop())
        hand.deal_hole(seat, cards)
    if rng.random() < 0.08 and not hand.is_over:
        hand.void()
        return
    for _ in range(500):
        if hand.is_over:
            return
        legal = hand.legal_actions()
        roll = rng.random()
        if legal is not None:
            if roll < 0.05 and len(hand.events) > len(seats) + 4:
                try:
                    hand.undo()
                except IllegalActionError:
                    pass
                else:  # an undone deal is dealt again (new cards: the old ones were seen)
                    for seat in seats:
                        if hand.hole_cards(seat) is None:
                            hand.deal_hole(seat, (deck.pop(), deck.pop()))
                    continue
            if roll < 0.05 + fold and not legal.can_check:
                hand.fold()
            elif roll < 0.75 or legal.min_raise_to is None or legal.max_raise_to is None:
                hand.check_or_call()
            else:
                low, high = legal.min_raise_to, legal.max_raise_to
                hand.raise_to(high if low >= high or roll > 0.95 else rng.randint(low, high))
        elif hand.street is Street.SHOWDOWN:
            for seat in hand.live_seats:
                if hand.is_over or hand.street is not Street.SHOWDOWN:
                    break
                known = hand.hole_cards(seat)
                try:
                    if rng.random() < 0.3 and not hand.is_shown(seat):
                        hand.muck_hand(seat)
                    elif known and all(c is not None for c in known):
                        hand.show_hand(seat)
                    else:
                        hand.show_hand(seat, (deck.pop(), deck.pop()))
                except IllegalActionError:
                    continue
            if not hand.is_over and hand.street is Street.SHOWDOWN:
                try:
                    hand.resolve_showdown()
                except IllegalActionError:
                    hand.void("showdown could not be resolved")
        else:
            if burns:
                hand.burn_card(burns.pop())
            need = 3 if not hand.board else 1
            hand.deal_board(tuple(deck.pop() for _ in range(need)))
    raise AssertionError("the hand did not end")


def table_hands(rng: random.Random) -> Iterator[list[Event]]:
    """Endless tournament play through :class:`engine.table.Table`: each item is one hand's
    events followed by its eliminations (R22). A table plays until one player is left, then
    a new one sits down (seats, stacks, ante mode, absent players and levels vary)."""
    while True:
        table = Table(TableRules(ante_mode=rng.choice(list(AnteMode))))
        seats = sorted(rng.sample(range(1, 11), rng.randint(2, 9)))
        for seat in seats:
            table.seat_player(seat, f"P{seat}", rng.choice((400, 1500, 5000, 20000)))
        draw = list(FULL_DECK)
        rng.shuffle(draw)
        table.draw_for_button(dict(zip(seats, draw, strict=False)))
        while len(table.stacks) >= 2:
            if rng.random() < 0.1:
                table.set_level(rng.randint(1, 8))
            if rng.random() < 0.1:
                table.set_absent(rng.choice(list(table.stacks)), rng.random() < 0.5)
            hand = table.start_hand()
            deck = list(FULL_DECK)
            rng.shuffle(deck)
            drive_hand(hand, rng, deck)
            eliminated = table.finish_hand()
            yield [*hand.events, *eliminated]


def random_log(seed: int, hands: int, gaps: tuple[float, ...] = (0.0, 0.4, 2.0),
               t0: float = 1_700_000_000.0) -> list[TableEvent]:
    """The first ``hands`` hands of seeded tournament play as log entries (seq from 1),
    times ``t0`` + random gaps."""
    rng = random.Random(seed)
    entries: list[TableEvent] = []
    now = t0

    def add(payload: LoggedEvent, source: str = "engine") -> None:
        entries.append(TableEvent.record(len(entries) + 1, now, payload, source=source))

    for _, events in zip(range(hands), table_hands(rng), strict=False):
        for event in events:
            now += rng.choice(gaps)
            # What the readers saw, logged next to the engine's events (secret or public
            # by the capture record's own rule).
            if isinstance(event, HoleCardsDealt) and None not in event.cards:
                first, second = event.cards
                assert first is not None and second is not None
                add(CaptureRecord(HoleCardsRead(event.seat, (first, second), now, "rfid")),
                    "capture")
            if isinstance(event, BoardDealt):
                for k, card in enumerate(event.cards, 1):
                    add(CaptureRecord(BoardCardRead(card, k, now, "rfid")), "capture")
            if rng.random() < 0.02:
                add(CaptureRecord(ReaderOffline("rfid", "no heartbeat", now)), "capture")
            add(event)
    return entries


def full_calls_over_a_short_big_blind(*, number: int = 1,
                                      names: tuple[str, ...] = ()) -> Hand:
    """A live R5 ruling PHH cannot express: three players call the full big blind (100) over
    a big blind all-in for 60, and check it down; stacks end (1260, 0, 900, 900)."""
    hand = Hand.start(seats=(1, 2, 3, 4), stacks=(1000, 60, 1000, 1000),
                      blinds=(50, 100, 0, 0), big_blind=100, button=4, hand_number=number,
                      names=names or None)
    for seat, cards in zip((1, 2, 3, 4), ("AhAd", "KhKd", "QcQd", "JcJd"), strict=True):
        hand.deal_hole(seat, cards)
    for _ in range(3):
        hand.call()
    for board in ("2c3d7h", "8s", "9s"):
        hand.deal_board(board)
        while hand.legal_actions() is not None:
            hand.check()
    return hand
