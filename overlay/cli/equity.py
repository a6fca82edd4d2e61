"""``feltcast equity``: exact all-in equity of known hands on any street.

``feltcast equity AhAs KdKc [--board Qs9s8c] [--dead 7c2d] [--json]`` prints one row per hand:
equity, outright wins and splits (counts of boards and percentages), and on the flop and the
turn the hand each player holds now and the next cards that put them ahead (for the leader,
the cards that cost the lead). ``--json`` prints the exact figures as fractions instead.
Bad input exits with status 2 and one line naming the problem.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from engine.equity import EquityResult, PlayerEquity


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("hands", nargs="+", metavar="HAND",
                        help="2 to 10 hands of two cards each, e.g. AhAs KdKc")
    parser.add_argument("--board", default="", metavar="CARDS",
                        help="the board so far: 0, 3, 4 or 5 cards, e.g. Qs9s8c")
    parser.add_argument("--dead", default="", metavar="CARDS",
                        help="cards known to be out of the deck (mucked hands), e.g. 7c2d")
    parser.add_argument("--json", action="store_true",
                        help="print exact figures (fractions) as JSON")


def run(args: argparse.Namespace) -> int:
    from engine.equity import equity

    result = equity(args.hands, board=args.board, dead=args.dead)
    if args.json:
        json.dump(result.to_dict(), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        write_table(result, sys.stdout)
    return 0


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:6.2f}%"


def _next_card(player: PlayerEquity) -> str:
    outs = player.outs
    if outs is None:
        return ""
    if outs.leading:
        lost = len(outs.lead_lost_on)
        if not lost:
            return "ahead on every card"
        cards = " ".join(c.code for c in outs.lead_lost_on)
        return f"leads; {lost} card{'s' * (lost != 1)} cost the lead: {cards}"
    if not outs.outs:
        return "no outs"
    return f"{len(outs.outs)} out{'s' * (len(outs.outs) != 1)}: " + " ".join(
        c.code for c in outs.outs)


def write_table(result: EquityResult, out: TextIO) -> None:
    board = " ".join(c.code for c in result.board)
    head = f"{result.street.capitalize()}{' ' + board if board else ''}"
    if result.dead:
        head += f", dead {' '.join(c.code for c in result.dead)}"
    out.write(f"{head}: {result.boards:,} board{'s' * (result.boards != 1)}, exact\n\n")
    show_now = any(p.hand_now for p in result.players)
    header = f"{'hand':<6} {'equity':>7}  {'wins':>11} {'':7}  {'ties':>11} {'':7}"
    if show_now:
        header += f"  {'now':<28} next card"
    out.write(header.rstrip() + "\n")
    for p in result.players:
        hand = "".join(c.code for c in p.hand)
        row = (f"{hand:<6} {100 * float(p.equity):6.2f}%  "
               f"{p.wins:>11,} {_percent(p.wins, p.boards)}  "
               f"{p.ties:>11,} {_percent(p.ties, p.boards)}")
        if show_now:
            row += f"  {p.hand_now or '':<28} {_next_card(p)}"
        out.write(row.rstrip() + "\n")
