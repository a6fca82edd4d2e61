"""RFID capture into the running service, end to end over a real pseudo-terminal: reader
lines -> capture events -> table commands -> engine state -> channel messages."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from engine.capture_events import ZoneKind
from engine.log import CaptureRecord
from overlay.keys import STORE_KEY, TABLE_KEY, TOKENS_KEY

from .rig import service_rig, uid

BOARD, MUCK, BURN = 11, 12, 13


def seat(view: dict[str, Any], number: int) -> dict[str, Any]:
    return next(s for s in view["seats"] if s["seat"] == number)


async def test_a_hand_dealt_by_capture_reaches_each_channel_as_allowed(tmp_path: Path) -> None:
    async with service_rig(tmp_path) as rig:
        await rig.ok("next_hand")
        # The dealer pitches: seat 1 As Ks, seat 4 Qh Qd, seat 7 7c 2d.
        hole = {1: ("As", "Ks"), 4: ("Qh", "Qd"), 7: ("7c", "2d")}
        for round_ in range(2):
            for number, cards in hole.items():
                rig.place(number, cards[round_])
        secure = await rig.until_view(
            "secure", lambda v: all(seat(v, n)["cards"] and None not in seat(v, n)["cards"]
                                    for n in hole), what="hole cards on secure")
        for number, cards in hole.items():
            assert sorted(seat(secure, number)["cards"]) == sorted(cards)
        assert seat(secure, 4)["equity"] is not None  # equity with capture's cards
        venue = await rig.state("venue")
        for number in hole:  # R20-style secrecy: the public channel knows cards exist only
            assert seat(venue, number)["cards"] == [None, None]
        # The burn card and the flop arrive before the betting is over: they wait (R9), and
        # the burn card is never anywhere (R19).
        rig.place(BURN, "2c")
        rig.place(BOARD, "Jh", "Th", "3s")
        await rig.until(lambda: rig.bridge.burn_count == 1, what="the burn count")
        await rig.until(lambda: len(rig.bridge._board) == 3, what="the flop read")
        assert rig.hand.board == []
        legal = rig.hand.legal_actions()
        while legal is not None and not rig.hand.board:  # the flop comes as the round ends
            await rig.ok("call" if legal.can_call else "check", seat=legal.seat)
            legal = rig.hand.legal_actions()
        secure = await rig.until_view("secure", lambda v: len(v["table"]["board"]) == 3,
                                      what="the flop dealt")
        assert sorted(secure["table"]["board"]) == ["3s", "Jh", "Th"]
        venue = await rig.state("venue")
        assert sorted(venue["table"]["board"]) == ["3s", "Jh", "Th"]
        # Seat 7 folds to a bet; the dealer pushes his cards to the muck: dead cards (R20).
        legal = rig.hand.legal_actions()
        assert legal is not None, (rig.hand.street, rig.hand.events[-6:])
        await rig.ok("fold" if legal.seat == 7 else "bet", seat=legal.seat, amount=100)
        legal = rig.hand.legal_actions()
        while legal is not None:
            await rig.ok("fold" if legal.seat == 7 else "call", seat=legal.seat)
            legal = rig.hand.legal_actions()
        assert rig.hand.is_folded(7)
        rig.remove(7, "7c", "2d")
        rig.place(MUCK, "7c", "2d")
        await rig.until(lambda: len(rig.bridge._muck) == 2, what="the muck read")
        # Turn and river, one card at a time, in order.
        for card in ("9h", "4d"):
            legal = rig.hand.legal_actions()
            while legal is not None:  # the next card is not on the table yet
                await rig.ok("check", seat=legal.seat)
                legal = rig.hand.legal_actions()
            rig.place(BOARD, card)
            size = len(rig.hand.board) + 1
            await rig.until(lambda size=size: len(rig.hand.board) == size,  # type: ignore[misc]
                            what=f"board card {card}")
        legal = rig.hand.legal_actions()
        while legal is not None:
            await rig.ok("check", seat=legal.seat)
            legal = rig.hand.legal_actions()
        assert rig.hand.is_over  # the showdown resolved itself: every hole card was read
        assert [c.code for c in rig.hand.board][3:] == ["9h", "4d"]
        # The log holds the capture records; none names the burn card (R19), and every one
        # that carries a card is secret.
        entries = list(rig.app[STORE_KEY].iter_all())
        records = [e for e in entries if isinstance(e.payload, CaptureRecord)]
        kinds = {e.kind for e in records}
        assert {"capture.hole_cards_read", "capture.board_card_read", "capture.card_mucked",
                "capture.burn_seen", "capture.reader_online"} <= kinds
        text = json.dumps([e.to_dict() for e in entries])
        assert '"2c"' not in text and uid("2c") not in text
        for entry in records:
            carries = entry.payload.to_dict()["capture"]
            if carries.get("cards") or carries.get("card"):
                assert str(entry.secrecy) == "secret"
            zone = carries.get("zone")
            assert zone is None or zone != str(ZoneKind.BURN)


async def test_hand_boundaries_bust_and_cards_reused_next_hand(tmp_path: Path) -> None:
    players = [{"seat": 1, "name": "Ashton", "stack": 5000},
               {"seat": 4, "name": "Tong", "stack": 5000},
               {"seat": 7, "name": "Rast", "stack": 100}]
    async with service_rig(tmp_path, players=players) as rig:
        await rig.ok("next_hand")
        for number, cards in {1: ("As", "Ks"), 4: ("3h", "2h"), 7: ("7c", "2d")}.items():
            rig.place(number, *cards)
        await rig.until(lambda: all(rig.hand.hole_cards(s) for s in (1, 4, 7)),
                        what="hole cards")
        for kind in ("raise_to", "fold", "all_in"):
            legal = rig.hand.legal_actions()
            await rig.ok(kind, seat=legal.seat, **({"amount": 300} if kind == "raise_to"
                                                   else {}))
            if kind == "fold":
                rig.remove(legal.seat, *[c.code for c in rig.hand.hole_cards(legal.seat)])
        # The all-in run-out, street by street from capture (R14).
        rig.place(BOARD, "Kd", "8h", "9c")
        await rig.until(lambda: len(rig.hand.board) == 3, what="the flop")
        for size, card in ((4, "4s"), (5, "Jd")):
            rig.place(BOARD, card)
            await rig.until(lambda size=size: len(rig.hand.board) == size,  # type: ignore[misc]
                            what=f"board card {card}")
        await rig.until(lambda: rig.hand.is_over, what="the hand over")
        assert 7 not in rig.app[TABLE_KEY].table.names or \
            rig.app[TABLE_KEY].table.stacks.get(7, 0) == 0
        # Seat 7 busted but his cards still lie there: not a card at an empty seat.
        await asyncio.sleep(0.5)
        view = await rig.state("operator")
        assert not rig.alerts(view, "card_at_empty_seat"), view["alerts"]
        # The table is cleared; the next hand may reuse a card of the last board (Kd).
        rig.sim.clear()
        await asyncio.sleep(1.3)
        await rig.ok("next_hand")
        rig.place(1, "Qd", "Qs")
        rig.place(4, "5c", "6c")
        await rig.until(lambda: all(rig.hand.hole_cards(s) for s in (1, 4)), what="hole cards")
        rig.place(BOARD, "Kd", "Tc", "3c")
        legal = rig.hand.legal_actions()
        while legal is not None and not rig.hand.board:
            await rig.ok("call" if legal.can_call else "check", seat=legal.seat)
            legal = rig.hand.legal_actions()
        await rig.until(lambda: len(rig.hand.board) == 3, what="the flop with Kd again")
        assert "Kd" in [c.code for c in rig.hand.board]


async def test_the_operator_can_undo_a_capture_deal(tmp_path: Path) -> None:
    async with service_rig(tmp_path) as rig:
        await rig.ok("next_hand")
        rig.place(4, "9s", "9d")
        await rig.until(lambda: rig.hand.hole_cards(4) is not None, what="seat 4 dealt")
        await rig.ok("undo")  # a misread, says the operator
        assert rig.hand.hole_cards(4) is None
        await asyncio.sleep(0.6)  # capture still sees the cards, but does not fight the undo
        assert rig.hand.hole_cards(4) is None
        # The dealer picks the cards up and pitches them again: a new read, dealt again.
        rig.remove(4, "9s", "9d")
        await rig.until(lambda: 4 not in rig.bridge._seats, what="the cards picked up")
        rig.place(4, "9s", "9d")
        await rig.until(lambda: rig.hand.hole_cards(4) is not None, what="seat 4 dealt again")


async def test_a_hand_thrown_into_the_muck_at_the_showdown_is_mucked(tmp_path: Path) -> None:
    async with service_rig(tmp_path) as rig:
        await rig.ok("next_hand")
        rig.place(1, "As", "Ks")
        rig.place(7, "7c", "2d")  # seat 4's cards are never read at the seat
        await rig.until(lambda: rig.hand.hole_cards(1) and rig.hand.hole_cards(7),
                        what="hole cards")
        await rig.ok("deal_cards", seat=4, cards=[None, None])  # dealt, unread
        legal = rig.hand.legal_actions()
        while legal is not None and not rig.hand.board:
            if legal.seat == 7:
                await rig.ok("fold", seat=7)
                rig.sim.move(uid("7c"), 7, MUCK)
                rig.sim.move(uid("2d"), 7, MUCK)
            else:
                await rig.ok("call" if legal.can_call else "check", seat=legal.seat)
            legal = rig.hand.legal_actions()
        await rig.until(lambda: len(rig.bridge._muck) == 2, what="seat 7's muck read")
        for cards in (("Jh", "Th", "3s"), ("9h",), ("4d",)):
            while (legal := rig.hand.legal_actions()) is not None:
                await rig.ok("check", seat=legal.seat)
            size = len(rig.hand.board) + len(cards)
            rig.place(BOARD, *cards)
            await rig.until(lambda size=size: len(rig.hand.board) == size,  # type: ignore[misc]
                            what="the board")
        while (legal := rig.hand.legal_actions()) is not None:
            await rig.ok("check", seat=legal.seat)
        assert not rig.hand.is_over  # the showdown waits for seat 4's unknown hand (R15)
        rig.place(MUCK, "Qh", "Qd")  # seat 4 throws his hand away
        await rig.until(lambda: rig.hand.is_over, what="the hand over")
        assert rig.hand.is_mucked(4) and not rig.hand.is_mucked(1)


async def test_websockets_secure_gets_the_read_venue_never_a_hole_card(tmp_path: Path) -> None:
    async with service_rig(tmp_path) as rig:
        secure_token = rig.app[TOKENS_KEY].tokens.secure
        venue = await rig.session.ws_connect(rig.url("/ws/venue"))
        secure = await rig.session.ws_connect(rig.url(f"/ws/secure?token={secure_token}"))
        for ws in (venue, secure):
            await ws.send_json({"type": "hello", "page": "test", "version": "test"})
        texts: dict[str, list[str]] = {"venue": [], "secure": []}

        async def collect(name: str, ws: Any) -> None:
            async for message in ws:
                texts[name].append(message.data)

        tasks = [asyncio.create_task(collect("venue", venue)),
                 asyncio.create_task(collect("secure", secure))]
        await rig.ok("next_hand")
        hole = {1: ("Ad", "Kc"), 4: ("8s", "8h"), 7: ("5c", "4c")}
        for number, cards in hole.items():
            rig.place(number, *cards)
        await rig.until(lambda: any('"8s"' in t and '"equity"' in t for t in texts["secure"]),
                        what="the read on the secure websocket")
        rig.place(BOARD, "Qd", "Jd", "2s")
        legal = rig.hand.legal_actions()
        while legal is not None and not rig.hand.board:
            await rig.ok("call" if legal.can_call else "check", seat=legal.seat)
            legal = rig.hand.legal_actions()
        await rig.until(lambda: any('"Qd"' in t for t in texts["venue"]),
                        what="the flop on the venue websocket")
        await asyncio.sleep(0.3)  # the capture records of the flop are logged too
        for task in tasks:
            task.cancel()
        await venue.close()
        await secure.close()
        venue_text = "".join(texts["venue"])
        for cards in hole.values():
            for card in cards:
                assert f'"{card}"' not in venue_text  # R20: not live, not in any event
        assert '"Qd"' in venue_text
