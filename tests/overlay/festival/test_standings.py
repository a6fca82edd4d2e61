"""The festival's standings channel view (overlay/festival/channels.py): keyed places, so
that a bust's patch carries its own place and the paid place it decides, not the field's
whole list again (RFC 7386 replaces an array whole)."""

from __future__ import annotations

import json

from engine.festival import Festival
from overlay.festival.channels import places_view, standings_view
from overlay.hub import apply_merge_patch, merge_patch
from tests.engine.test_festival import STACK, bust, players

FIELD = 300
PRIZES = [50_000, 30_000, 20_000, *[5_000] * 27]


def test_a_busts_patch_stays_small_however_many_places_are_decided() -> None:
    festival = Festival.draw(players(FIELD), [f"T{k}" for k in range(1, 35)], stack=STACK,
                             seed=3, prizes=PRIZES)
    view = standings_view("Open", festival)
    sizes: list[int] = []
    while festival.remaining > 2:
        table = max(festival.tables, key=lambda t: len(t.seats))
        loser = table.players[0]
        festival, _ = bust(festival, table.name, [loser])
        after = standings_view("Open", festival)
        patch = merge_patch(view, after)
        assert apply_merge_patch(view, patch) == after  # what a page does with it
        assert list(patch.get("finishes", {})) == [loser]
        assert set(patch.get("payouts", {})) <= {str(festival.remaining + 1)}
        sizes.append(len(json.dumps(patch)))
        view = after
    # The places are those the director lists, keyed.
    listed = places_view(festival)
    assert view["finishes"] == {f["player"]: {k: v for k, v in f.items() if k != "player"}
                                for f in listed["finishes"]}
    assert view["payouts"] == {str(p["place"]): {"prize": p["prize"], "player": p["player"]}
                               for p in listed["payouts"]}
    assert len(view["finishes"]) == FIELD - 2
    # The 298th bust's patch is as small as the first's (a list would have grown to the
    # whole field: tens of kilobytes to every viewer).
    assert max(sizes) < 300, max(sizes)
    assert len(json.dumps(view["finishes"])) > 50 * max(sizes)
