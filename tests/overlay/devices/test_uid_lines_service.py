"""The whole service with a home-built RFID table: a reader that prints one tag read per line
(``protocol = "uid-lines"`` in ``[[capture.readers]]``), on a real pseudo-terminal."""

from __future__ import annotations

from pathlib import Path

from engine.cards import Card

from .rig import service_rig


async def test_a_home_built_table_deals_a_hand_into_the_channels(tmp_path: Path) -> None:
    async with service_rig(tmp_path, protocol="uid-lines") as rig:
        view = await rig.state("operator")
        (reader,) = [d for d in view["operator"]["capture"] if d["source"] == "reader:table"]
        assert reader["status"] == "ok" and "uid-lines" in reader["detail"]
        await rig.ok("next_hand")
        for seat, cards in ((1, ("As", "Ks")), (4, ("Qh", "Qd")), (7, ("7c", "2d"))):
            rig.place(seat, *cards)
        secure = await rig.until_view(
            "secure", lambda v: all(len([c for c in s["cards"] if c]) == 2
                                    for s in v["seats"] if s["seat"] in (1, 4, 7)),
            what="every hole card on the secure channel")
        assert {s["seat"]: s["cards"] for s in secure["seats"] if s["seat"] in (1, 4, 7)} == {
            1: ["As", "Ks"], 4: ["Qh", "Qd"], 7: ["7c", "2d"]}
        assert all(s["equity"] is not None for s in secure["seats"] if s["seat"] in (1, 4, 7))
        venue = await rig.state("venue")  # public: hole cards never (R20)
        assert all(card is None for s in venue["seats"] for card in s["cards"])
        # Seat 7 throws his cards in the muck: the board never says a tag left, so they leave
        # the seat once no longer read there (hold_s), and are dead cards in the muck (R20).
        rig.remove(7, "7c", "2d")
        rig.place(12, "7c", "2d")
        mucked = {Card("7c"), Card("2d")}
        await rig.until(lambda: 7 not in rig.bridge._seats and mucked <= rig.bridge._muck,
                        timeout=8, what="seat 7's cards off the seat and in the muck")
