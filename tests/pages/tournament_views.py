"""Fixture views with the contract's ``tournament`` object (docs/view-model.md), for the
tournament graphics' page tests: ten entrants, seven left, the three out already paid.
"""

from __future__ import annotations

import copy
import time
from typing import Any

from tests.pages.views import flop_view

View = dict[str, Any]

PRIZES = [30000, 20000, 14000, 10000, 8000, 6000, 5000, 4000, 3000]
"""Nine places paid from a 100,000 pool (sums to 100,000)."""

PLAYERS: list[dict[str, Any]] = [
    {"seat": 4, "name": "Rast Andersson", "display_name": "Rast", "country": "SE",
     "photo": "/static/favicon.svg", "stack": 12000},
    {"seat": 1, "name": "Ashton Griffin", "display_name": "Ashton", "country": "US",
     "photo": None, "stack": 9000},
    {"seat": 3, "name": "Mira Lindqvist", "display_name": "Mira", "country": "FI",
     "photo": None, "stack": 8000},
    {"seat": 8, "name": "Lena Fischer", "display_name": "Lena", "country": "DE",
     "photo": None, "stack": 7000},
    {"seat": 7, "name": "Yuki Tanaka", "display_name": "Yuki", "country": "JP",
     "photo": None, "stack": 6000},
    {"seat": 2, "name": "Kalidou Sow", "display_name": "Kalidou", "country": "SN",
     "photo": None, "stack": 5000},
    {"seat": 6, "name": "Daniel Ortega", "display_name": "Danny", "country": None,
     "photo": None, "stack": 3000},
]
TOTAL_CHIPS = 50000
BIG_BLIND = 600


def _players() -> list[dict[str, Any]]:
    players = []
    for rank, player in enumerate(PLAYERS, 1):
        stack = player["stack"]
        players.append({**player, "in_bb": round(stack / BIG_BLIND, 1),
                        "share": stack / TOTAL_CHIPS, "rank": rank, "prize_so_far": 0})
    return players


def _eliminations() -> list[dict[str, Any]]:
    return [
        {"place": 8, "name": "Olga Petrova", "display_name": "Olga", "country": "BG",
         "prize": 4000, "hand": 41},
        {"place": 9, "name": "Tom Brenner", "display_name": "Tom", "country": "AT",
         "prize": 3000, "hand": 30},
        {"place": 10, "name": "Jo Kim", "display_name": "Jo", "country": "KR",
         "prize": 0, "hand": 12},
    ]


def tournament(as_of: float, *, remaining: float = 734.2, running: bool = True) -> dict[str, Any]:
    """The contract's tournament object: level 5 (300/600), seven of ten players left."""
    places: list[dict[str, Any]] = [{"place": n, "prize": prize, "name": None}
                                    for n, prize in enumerate(PRIZES, 1)]
    places[7]["name"] = "Olga Petrova"
    places[8]["name"] = "Tom Brenner"
    players = _players()
    return {
        "clock": {"level": 5, "small_blind": 300, "big_blind": 600, "ante": 0,
                  "is_break": False, "running": running, "remaining": remaining,
                  "as_of": as_of, "next": {"small_blind": 500, "big_blind": 1000, "ante": 100}},
        "action_clock": None,
        "field": {"entrants": 10, "remaining": 7, "total_chips": TOTAL_CHIPS,
                  "average": TOTAL_CHIPS // 7, "average_bb": round(TOTAL_CHIPS / 7 / 600, 1),
                  "chip_leader": 4},
        "players": players,
        "eliminations": _eliminations(),
        "payouts": {"prize_pool": 100000, "currency": "EUR", "places": places},
        "icm": {str(p["seat"]): 10000.0 for p in players},
        "stats": {},
        "ticker": "Hand 41: Rast wins 4,800 with two pair",
    }


def tournament_view(channel: str = "delayed", **options: Any) -> View:
    """The overlay's flop fixture view with a tournament object whose clock is of now.

    The tournament's times are the server's wall time: the service writes a delayed channel's
    clock at the moment its viewers see it (log time + delay), so for the view's last event
    (``channel.as_of``, log time) that is ``as_of + delay``.
    """
    view = flop_view(channel)
    info = view["channel"]
    view["tournament"] = tournament(info["as_of"] + info["delay"], **options)
    return view


def eliminated(view: View, seat: int, place: int, prize: int, hand: int) -> View:
    """``view`` after the player in ``seat`` busts in ``place`` (a new copy)."""
    result = copy.deepcopy(view)
    tour = result["tournament"]
    player = next(p for p in tour["players"] if p["seat"] == seat)
    tour["players"].remove(player)
    tour["eliminations"].insert(0, {"place": place, "name": player["name"],
                                    "display_name": player["display_name"],
                                    "country": player["country"], "prize": prize,
                                    "hand": hand})
    tour["field"]["remaining"] -= 1
    tour["payouts"]["places"][place - 1]["name"] = player["name"]
    return result


def now() -> float:
    return time.time()


def allin_view(channel: str = "delayed") -> View:
    """The flop of hand 57 after Rast folded: Yuki (seat 7, all in with queens) against Ashton
    (seat 1, all in too, ace-king), the cards running out; the view's ``allin`` says what the
    prize money does in the two outcomes (Yuki wins and doubles; Ashton wins and Yuki is out
    in 7th, 5,000)."""
    view = tournament_view(channel)
    for seat in view["seats"]:
        if seat["seat"] == 4:
            seat.update(folded=True, last_action="Fold", bet=0, equity=None, hand=None)
        if seat["seat"] == 1:
            seat.update(all_in=True, to_act=False, stack=0, last_action="All-in 734,000",
                        equity={"win": 0.27, "tie": 0.0, "equity": 0.27})
        if seat["seat"] == 7:
            seat["equity"] = {"win": 0.73, "tie": 0.0, "equity": 0.73}
    seats = sorted(p["seat"] for p in view["tournament"]["players"])   # [1, 2, 3, 4, 6, 7, 8]
    before = [10000.0] * len(seats)

    def equity(**changed: float) -> list[float]:
        values = list(before)
        for key, value in changed.items():
            values[seats.index(int(key[1:]))] = value
        return values

    view["tournament"]["allin"] = {
        "seats": seats, "chip_equity": [0.27 if s == 1 else 0.73 if s == 7 else 0.0
                                        for s in seats],
        "expected_stacks": [0.0] * len(seats), "equity_before": before,
        "expected_equity": equity(s1=9400.0, s7=11900.0), "boards": 990,
        "outcomes": [
            {"probability": 0.73, "stacks": [0] * len(seats), "winners": [7], "busted": [],
             "doubled": [7], "split": False, "equity": equity(s1=7300.0, s7=13800.0)},
            {"probability": 0.27, "stacks": [0] * len(seats), "winners": [1], "busted": [7],
             "doubled": [1], "split": False, "equity": equity(s1=15400.0, s7=5000.0)},
        ]}
    return view
