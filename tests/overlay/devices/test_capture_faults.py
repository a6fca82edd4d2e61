"""Every capture fault of issue 6 reaches the operator view (``capture`` and ``alerts``) of
the running service, over a real pseudo-terminal, and none stops anything."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from capture.rfid.decks import DeckRegistry
from capture.simulator import simulated_deck
from overlay.keys import STORE_KEY

from .rig import TABLE, ServiceRig, service_rig, uid

BOARD = 11


async def alert_of(rig: ServiceRig, kind: str, what: str) -> dict[str, Any]:
    view = await rig.until_view("operator", lambda v: rig.alerts(v, kind), what=what)
    alert = rig.alerts(view, kind)[0]
    assert alert["source"] == "reader:table"
    return alert


async def test_table_faults_reach_the_operator_and_name_no_card(tmp_path: Path) -> None:
    async with service_rig(tmp_path) as rig:
        # An unknown tag: an alert, never a card.
        rig.sim.place(1, "E00499990000AAAA")
        alert = await alert_of(rig, "unknown_uid", "the unknown-tag alert")
        assert "E00499990000AAAA" in alert["message"]
        view = await rig.state("operator")
        assert view["operator"]["capture"][0]["status"] == "fault"
        rig.sim.clear()
        # A malformed line: counted and skipped.
        rig.sim.inject("INV seq=oops ant=99 garbage\r\n")
        alert = await alert_of(rig, "malformed_line", "the malformed-line alert")
        view = await rig.until_view("operator",
                                    lambda v: v["operator"]["capture"][0]["malformed"] >= 1)
        # Crosstalk: one tag on two antennas at once.
        rig.sim.place(1, uid("9c"))
        rig.sim.place(4, uid("9c"))
        alert = await alert_of(rig, "crosstalk", "the crosstalk alert")
        rig.sim.clear()
        # A third card at a seat: suspected misdeal (R13), an error, no card named.
        rig.place(1, "Ah", "Kh", "Qh")
        alert = await alert_of(rig, "too_many_cards", "the third-card alert")
        assert alert["level"] == "error" and "R13" in alert["message"]
        assert not any(code in alert["message"] for code in ("Ah", "Kh", "Qh"))
        rig.sim.clear()
        # A card at an empty seat (nobody sits at seat 2).
        rig.place(2, "5d")
        alert = await alert_of(rig, "card_at_empty_seat", "the empty-seat alert")
        assert "seat2" in alert["message"] and "5d" not in alert["message"]
        rig.sim.clear()
        # Two tags that both say the same card (a mislabelled tag): suspected misdeal.
        deck = simulated_deck(1) | {"E0049999000000AB": simulated_deck(1)[uid("Ah")]}
        rig.bridge.capture.set_cards(deck)
        rig.place(1, "Ah")
        rig.sim.place(BOARD, "E0049999000000AB")
        alert = await alert_of(rig, "duplicate_card", "the duplicate-card alert")
        assert "Ah" not in alert["message"] and "R13" in alert["message"]
        # Nothing crashed: the reader is still online and a hand is still dealt by capture.
        rig.sim.clear()
        rig.bridge.capture.set_cards(simulated_deck(1))
        await rig.ok("next_hand")
        await _deal_all(rig, {1: ("2s", "3s"), 4: ("4h", "5h"), 7: ("6c", "7c")})
        # The operator view's alerts travel in a public event: no card code in any of them.
        view = await rig.state("operator")
        messages = " ".join(alert["message"] for alert in view["alerts"])
        assert "Ah" not in messages and "9c" not in messages


async def _deal_all(rig: ServiceRig, hole: dict[int, tuple[str, str]]) -> None:
    for seat, cards in hole.items():
        rig.place(seat, *cards)
    await rig.until(lambda: all(rig.hand.hole_cards(s) is not None for s in hole),
                    what="hole cards dealt by capture")
    for seat, cards in hole.items():
        assert {c.code for c in rig.hand.hole_cards(seat)} == set(cards)


async def test_a_read_the_engine_refuses_becomes_an_alert(tmp_path: Path) -> None:
    async with service_rig(tmp_path) as rig:
        await rig.ok("next_hand")
        await rig.ok("deal_cards", seat=4, cards=["Ah", "Kd"])  # manual entry
        rig.place(1, "Ah", "2c")  # capture reads a card the hand already has: R13
        view = await rig.until_view("operator", lambda v: rig.alerts(v, "capture_refused"),
                                    what="the refusal alert")
        alert = rig.alerts(view, "capture_refused")[0]
        assert "R13" in alert["message"] and "Ah" not in alert["message"]
        assert rig.hand.hole_cards(1) is None
        # Capture reads different cards than the operator entered: the hand keeps its own.
        rig.place(4, "Qs", "Js")
        view = await rig.until_view("operator", lambda v: rig.alerts(v, "capture_conflict"),
                                    what="the conflict alert")
        assert {c.code for c in rig.hand.hole_cards(4)} == {"Ah", "Kd"}
        # A later good read is still dealt.
        rig.place(7, "8d", "8h")
        await rig.until(lambda: rig.hand.hole_cards(7) is not None, what="seat 7 dealt")


async def test_reader_unplugged_and_back_then_silent(tmp_path: Path) -> None:
    async with service_rig(tmp_path) as rig:
        await rig.ok("next_hand")
        rig.place(1, "As", "Ks")
        await rig.until(lambda: rig.hand.hole_cards(1) is not None, what="seat 1 dealt")
        await rig.sim.unplug()
        view = await rig.until_view(
            "operator", lambda v: v["operator"]["capture"][0]["status"] == "offline",
            what="the reader offline")
        assert rig.alerts(view, "reader_offline")[0]["level"] == "error"
        await rig.sim.replug()
        view = await rig.until_view(
            "operator", lambda v: v["operator"]["capture"][0]["status"] in ("ok", "fault")
            and not rig.alerts(v, "reader_offline"), timeout=8.0, what="the reader back")
        # Its zones were frozen, not cleared: seat 1's cards are still there after replug.
        assert rig.bridge._seats.get(1) is not None
        rig.sim.silent = True  # a hung firmware: the watchdog (3 s) notices
        view = await rig.until_view(
            "operator", lambda v: v["operator"]["capture"][0]["status"] == "silent",
            timeout=8.0, what="the reader silent")
        assert rig.alerts(view, "reader_silent")
        rig.sim.silent = False


async def test_without_an_active_deck_every_tag_is_unknown(tmp_path: Path) -> None:
    async with service_rig(tmp_path, deck=False) as rig:
        view = await rig.until_view("operator", lambda v: rig.alerts(v, "no_deck"),
                                    what="the no-deck alert")
        assert "feltcast deck" in rig.alerts(view, "no_deck")[0]["message"]
        assert view["operator"]["capture"][0]["deck"] is None
        await rig.ok("next_hand")
        rig.place(1, "As", "Ks")
        await alert_of(rig, "unknown_uid", "the unknown-tag alert")
        assert rig.hand.hole_cards(1) is None  # never a card
        # A deck is activated (feltcast deck, maybe from another process): it is used.
        registry = DeckRegistry(rig.app[STORE_KEY].engine)
        registry.save("Late deck", {card: u for u, card in simulated_deck(1).items()})
        registry.activate("Late deck", TABLE)
        await rig.bridge.refresh_deck()
        view = await rig.until_view("operator", lambda v: not rig.alerts(v, "no_deck"),
                                    what="the no-deck alert gone")
        assert view["operator"]["capture"][0]["deck"] == "Late deck"
        # The tags lying at seat 1 are cards now.
        await rig.until(lambda: rig.hand.hole_cards(1) is not None, what="seat 1 dealt")


async def test_a_quiet_table_logs_no_device_reports(tmp_path: Path) -> None:
    async with service_rig(tmp_path) as rig:
        store = rig.app[STORE_KEY]

        def reports() -> int:
            return sum(1 for e in store.iter_all() if e.kind == "devices_reported")

        # The first reports after start-up, until the reporter has nothing new to say (its
        # one-second rounds: a busy machine makes them later, never more).
        await rig.until(lambda: reports() > 0, timeout=30, what="the first device report")
        loop = asyncio.get_running_loop()
        before, settled, deadline = reports(), loop.time(), loop.time() + 60
        while loop.time() - settled < 2.5:
            assert loop.time() < deadline, "the device reports never settle"
            await asyncio.sleep(0.1)
            if reports() != before:
                before, settled = reports(), loop.time()
        def lines() -> int:
            return sum(stats.lines for stats in rig.bridge.capture.stats())

        start = lines()
        rig.place(1, "As", "Ks")  # reads, scans and heartbeats go on: 40 lines of them
        await rig.until(lambda: lines() >= start + 40, timeout=60, what="40 reader lines")
        assert reports() == before
