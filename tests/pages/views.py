"""Fixture views in the shape of docs/view-model.md (what the service would send)."""

from __future__ import annotations

import copy
import re
import time
from typing import Any

View = dict[str, Any]


def _seat(seat: int, name: str | None, stack: int, **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "seat": seat, "name": name, "stack": stack, "stack_bb": round(stack / 8000, 1),
        "bet": 0, "position": None, "to_act": False, "folded": False, "all_in": False,
        "sitting_out": False, "last_action": None, "cards": [], "equity": None, "hand": None,
        "best_five": None, "outs": None, "winner": False, "won": 0,
    }
    if name is None:
        base.update(stack=0, stack_bb=0.0)
    base.update(extra)
    return base


CLOCK_SLACK = 10.0
"""Seconds a test's wait for the page may add to the time since its view was made."""


def clock_text(left: float, made_at: float, suffix: str = "") -> re.Pattern[str]:
    """The level clock a page may show for a view made at ``made_at`` (``time.time()``) with
    ``left`` seconds on its clock then: counted down since, by the time the test has taken
    so far plus :data:`CLOCK_SLACK` (a busy machine renders late; a clock counted from the
    wrong time is off by far more)."""
    least = int(left - (time.time() - made_at) - CLOCK_SLACK)
    texts = [f"{s // 60}:{s % 60:02d}" for s in range(max(0, least), int(left) + 1)]
    return re.compile("^(?:" + "|".join(texts) + ")" + re.escape(suffix) + "$")


def flop_view(channel: str = "delayed", as_of: float | None = None) -> View:
    """Hand 57 on the flop Qs 9s 8c: Rast bet 24,000, Ashton to act; three players in.

    ``as_of`` defaults to now on the channel's clock (now less the delay), as the service
    would send it; the level ends 754 s later.
    """
    delay = 30.0 if channel == "delayed" else 0.0
    if as_of is None:
        as_of = time.time() - delay
    full = channel in ("delayed", "secure", "operator")

    def cards(*codes: str) -> list[str | None]:
        return list(codes) if full else [None] * len(codes)

    def known(value: Any) -> Any:
        return value if full else None

    seats = [
        _seat(1, "Ashton Griffin", 734000, position="BTN", to_act=True, cards=cards("Ah", "Kd"),
              last_action=None, equity=known({"win": 0.27, "tie": 0.0, "equity": 0.27}),
              hand=known("Ace High"), outs=known({"cards": ["Jh", "Jd", "Jc", "Th", "Td",
                                                            "Tc"], "count": 6})),
        _seat(2, "Kalidou Sow", 412000, position="SB", folded=True, last_action="Fold",
              cards=cards("7c", "2d")),
        _seat(3, "Mira Lindqvist", 1280000, position="BB", folded=True, last_action="Fold",
              cards=cards("9h", "3h")),
        _seat(4, "Rast", 954000, bet=24000, last_action="Bet 24,000", cards=cards("Js", "Ts"),
              equity=known({"win": 0.66, "tie": 0.0, "equity": 0.66}),
              hand=known("Straight, Queen High"), outs=None),
        _seat(5, None, 0),
        _seat(6, "Daniel Ortega", 88000, all_in=False, folded=True, last_action="Fold",
              cards=cards("5s", "5d")),
        _seat(7, "Yuki Tanaka", 0, all_in=True, last_action="All-in 206,000",
              cards=cards("Qd", "Qc"),
              equity=known({"win": 0.07, "tie": 0.0, "equity": 0.07}),
              hand=known("Three of a Kind, Queens"),
              outs=known({"cards": ["9c", "9d", "8d", "8h", "Qh"], "count": 5})),
        _seat(8, "Lena Fischer", 2210000, folded=True, last_action="Fold", cards=cards("Kc", "4c")),
    ]
    return {
        "channel": {"name": channel, "delay": delay, "as_of": as_of,
                    "live": channel != "delayed"},
        "table": {
            "name": "Main Event Final Table",
            "hand_number": 57,
            "level": {"number": 12, "small_blind": 4000, "big_blind": 8000, "ante": 8000,
                      "ante_mode": "big_blind", "ends_at": as_of + 754},
            "street": "flop",
            "board": ["Qs", "9s", "8c"],
            "pots": [{"amount": 662000, "eligible": [1, 4, 7], "winners": [],
                      "label": "Main pot"},
                     {"amount": 40000, "eligible": [1, 4], "winners": [], "label": "Side pot 1"}],
            "to_call": 24000,
            "min_raise_to": 48000,
            "actions": [
                {"seat": 7, "name": "Yuki Tanaka", "street": "preflop", "verb": "all_in",
                 "amount": 206000, "text": "Yuki Tanaka is all-in for 206,000"},
                {"seat": 8, "name": "Lena Fischer", "street": "preflop", "verb": "fold",
                 "amount": None, "text": "Lena Fischer folds"},
                {"seat": 1, "name": "Ashton Griffin", "street": "preflop", "verb": "call",
                 "amount": 206000, "text": "Ashton Griffin calls 206,000"},
                {"seat": 4, "name": "Rast", "street": "preflop", "verb": "call",
                 "amount": 206000, "text": "Rast calls 206,000"},
                {"seat": 4, "name": "Rast", "street": "flop", "verb": "bet",
                 "amount": 24000, "text": "Rast bets 24,000"},
            ],
        },
        "seats": seats,
        "alerts": [],
    }


def showdown_view(channel: str = "delayed") -> View:
    """The same hand at showdown on the river: Rast's straight wins the main and side pot."""
    view = copy.deepcopy(flop_view(channel))
    table = view["table"]
    table.update(street="showdown", board=["Qs", "9s", "8c", "2h", "3c"], to_call=0,
                 min_raise_to=None)
    table["pots"][0]["winners"] = [4]
    table["pots"][1]["winners"] = [4]
    for seat in view["seats"]:
        seat["to_act"] = False
        seat["bet"] = 0
        seat["outs"] = None
    ashton, rast, yuki = view["seats"][0], view["seats"][3], view["seats"][6]
    ashton.update(cards=["Ah", "Kd"], last_action="Call 24,000", hand="Ace High",
                  equity={"win": 0.0, "tie": 0.0, "equity": 0.0})
    rast.update(winner=True, won=702000, stack=954000 + 702000, hand="Straight, Queen High",
                best_five=["Qs", "Js", "Ts", "9s", "8c"],
                equity={"win": 1.0, "tie": 0.0, "equity": 1.0})
    yuki.update(cards=["Qd", "Qc"], hand="Three of a Kind, Queens",
                equity={"win": 0.0, "tie": 0.0, "equity": 0.0})
    return view


def operator_view() -> View:
    """The operator channel: the secure view plus the operator object."""
    view = flop_view("operator")
    view["alerts"] = [{"level": "warning", "source": "reader:table",
                       "message": "Reader 'table' is silent"}]
    view["operator"] = {
        "between_hands": False,
        "legal": {
            "seat": 1, "name": "Ashton Griffin",
            "fold": True, "check": False, "call": 24000,
            "bet": None, "raise": {"min": 48000, "max": 734000},
            "all_in": 734000,
            "ruling": "A raise to less than 48,000 that adds at least 12,000 is completed "
                      "to 48,000; less than that is a call (R8).",
        },
        "undo": {"available": True, "label": "Rast bets 24,000"},
        "clock": {"seat": None, "phase": "idle", "remaining": None},
        "cards_needed": [],
        "capture": [
            {"source": "reader:table", "status": "silent", "detail": "no frame for 12 s"},
            {"source": "reader:burn", "status": "ok", "detail": None},
        ],
        "obs": {"connected": True, "stream_delay": 30.0, "ok": True,
                "message": "Stream delay 30 s"},
        "channels": [
            {"name": "venue", "delay": 0.0, "clients": 2},
            {"name": "delayed", "delay": 30.0, "clients": 3},
            {"name": "secure", "delay": 0.0, "clients": 1},
        ],
        "pages": [
            {"page": "overlay", "channel": "delayed", "version": "dev", "current": True},
            {"page": "commentary", "channel": "delayed", "version": "old", "current": False},
        ],
        "refused_pages": [
            {"page": "overlay", "channel": "secure", "peer": "10.0.0.7",
             "reason": "that token does not open the secure channel"},
        ],
    }
    return view


def ten_handed_preflop_view() -> View:
    """A full ten-handed final table pre-flop on the secure channel, seat 4 to act."""
    names = ["Ashton Griffin", "Kalidou Sow", "Mira Lindqvist", "Rast", "Bartholomew "
             "Vandersloot-Kowalczyk", "Daniel Ortega", "Yuki Tanaka", "Lena Fischer",
             "Omar Haddad", "Sofia Marchetti"]
    hands = [("Ah", "Kd"), ("7c", "2d"), ("9h", "3h"), ("Js", "Ts"), ("6d", "6c"),
             ("5s", "5d"), ("Qd", "Qc"), ("Kc", "4c"), ("8h", "8s"), ("Ac", "Jd")]
    stacks = [734000, 412000, 1280000, 954000, 5120000, 88000, 206000, 2210000, 640000, 1730000]
    seats = []
    for index, (name, hand, stack) in enumerate(zip(names, hands, stacks, strict=True)):
        seat = _seat(index + 1, name, stack, cards=list(hand))
        seats.append(seat)
    seats[0].update(position="BTN")
    seats[1].update(position="SB", bet=4000, stack=408000, last_action="SB 4,000")
    seats[2].update(position="BB", bet=8000, stack=1272000, last_action="BB 8,000")
    seats[3].update(to_act=True)
    view = flop_view("secure")
    view["seats"] = seats
    view["table"].update(street="preflop", board=[], to_call=8000, min_raise_to=16000,
                         hand_number=58, pots=[{"amount": 8000, "eligible": list(range(1, 11)),
                                                "winners": [], "label": "Main pot"}],
                         actions=[])
    return view
