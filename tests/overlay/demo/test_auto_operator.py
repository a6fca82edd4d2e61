"""The demo's automatic operator against the real service and a simulated table on a pty."""

from __future__ import annotations

import random
from pathlib import Path

from engine.cards import Card
from overlay.demo.operator import AutoOperator, Timing, preflop_strength
from overlay.keys import TOKENS_KEY
from tests.overlay.devices.rig import service_rig


def test_preflop_strength_orders_hands_plausibly() -> None:
    def of(a: str, b: str) -> float:
        return preflop_strength((Card(a), Card(b)))

    assert of("As", "Ah") > of("Ks", "Kh") > of("7s", "7h") > of("7c", "2d")
    assert of("As", "Ks") > of("As", "Kd") > of("Qs", "Jd") > of("9c", "4d")
    assert all(0 <= of(a, b) <= 1 for a, b in (("2c", "7d"), ("Ac", "Ad")))


async def test_the_operator_stops_dealing_when_one_player_is_left(tmp_path: Path) -> None:
    async with service_rig(tmp_path) as rig:
        for seat in (4, 7):  # everybody but seat 1 has left
            await rig.ok("empty_seat", seat=seat)
        lines: list[str] = []
        operator = AutoOperator(rig.session, rig.url("/").rstrip("/"),
                                rig.app[TOKENS_KEY].tokens.operator, rig.sim, random.Random(5),
                                Timing(speed=50), lines.append)
        await operator.run(3)
        assert operator.over and operator.hands == 0 and operator.refused == 0
        assert lines == ["The tournament is over: Ashton has all the chips. "
                         "The pages stay up until Ctrl-C."]
        view = await rig.state("operator")
        assert view["operator"]["between_hands"] and view["table"]["hand_number"] in (0, None)
