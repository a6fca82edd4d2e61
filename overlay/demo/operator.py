"""The demo's dealer and automatic operator: cards laid on the simulated reader's antennas,
plausible poker played through the operator's HTTP API, the tournament clock kept at the
table's pace."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp

from capture.simulator import (
    BOARD_ANTENNA,
    BURN_ANTENNA,
    MUCK_ANTENNA,
    SimulatedReader,
    simulated_uid,
)
from engine.cards import FULL_DECK, Card
from overlay.demo.show import IDENTITIES, PLAYERS, initials, money, ordinal, portrait_png

_log = logging.getLogger(__name__)


MIN_CLEAR_S = 1.5
"""Real seconds between clearing the table and the next deal: a tag must be seen gone
(presence release, 0.8 s and three empty scans) before a new hand may put it back."""


@dataclass(frozen=True, slots=True)
class Timing:
    """The dealer's and players' pace in seconds at speed 1."""

    card_s: float = 0.35
    think_s: tuple[float, float] = (1.5, 5.0)
    tank_s: tuple[float, float] = (8.0, 40.0)
    """How long a player on the clock (R12) still thinks: always inside its first minute."""
    street_s: float = 2.5
    showdown_s: float = 6.0
    speed: float = 1.0

    def of(self, seconds: float) -> float:
        return seconds / self.speed


def _rank(card: Card) -> int:
    """2..14 (ace high)."""
    return card.rank + 2


def preflop_strength(cards: tuple[Card, Card]) -> float:
    """A rough 0-1 strength of two hole cards (pairs, high cards, suited, connected)."""
    high, low = sorted((_rank(c) for c in cards), reverse=True)
    if high == low:
        return min(1.0, 0.55 + high / 30)
    score = (high + low) / 28 * 0.6 + (0.08 if cards[0].suit == cards[1].suit else 0.0)
    gap = high - low
    score += 0.06 if gap == 1 else 0.03 if gap == 2 else 0.0
    score += 0.12 if high == 14 else 0.05 if high == 13 else 0.0
    return max(0.0, min(1.0, score))


class TakenOver(Exception):
    """The console paused the automatic operator; it has been resumed since."""


class AutoOperator:
    """Deals on the simulated table and presses the operator's buttons over HTTP."""

    def __init__(self, session: aiohttp.ClientSession, base: str, token: str,
                 reader: SimulatedReader, rng: random.Random, timing: Timing,
                 out: Callable[[str], None] = print, *, clock_calls: float = 0.03) -> None:
        self.session = session
        self.base = base
        self.headers = {"Authorization": f"Bearer {token}"}
        self.reader = reader
        self.rng = rng
        self.timing = timing
        self.out = out
        self.hole: dict[int, tuple[Card, Card]] = {}
        self.board: list[Card] = []
        self.burns: list[Card] = []
        self.burned: list[Card] = []
        """This hand's burn cards so far (never dealt again)."""
        self.aggressor: int | None = None
        self.hands = 0
        self.refused = 0
        self.clock_calls = clock_calls
        """The chance that the floor calls the clock (R12) on a player about to act."""
        self.over = False
        """True once one player has all the chips: the tournament is over."""
        self.synced = time.monotonic()
        """When the tournament clock was last brought to the table's pace (``keep_pace``)."""
        self.reported = 0
        """Eliminations already printed."""

    # -- HTTP ---------------------------------------------------------------------------

    async def view(self) -> dict[str, Any]:
        async with self.session.get(f"{self.base}/api/state?channel=operator",
                                    headers=self.headers) as response:
            response.raise_for_status()
            view: dict[str, Any] = (await response.json())["view"]
            return view

    async def gate(self) -> None:
        """Wait while the console has paused the automatic operator (``pause_auto_operator``).

        :raises TakenOver: when it was paused: the table may have changed meanwhile, so the
            hand is picked up again from the view (:meth:`run`).
        """
        if (await self.view())["operator"].get("auto_operator") != "paused":
            return
        self.out("  the automatic operator is paused: the console has the table")
        cleared = False
        while (view := await self.view())["operator"].get("auto_operator") == "paused":
            if view["operator"]["between_hands"] and not cleared:
                cleared = True  # the dealer collects the cards of the hand that ended
                await asyncio.sleep(self.timing.of(self.timing.showdown_s))
                self.reader.clear()
            await asyncio.sleep(0.2)
        self.out("  the automatic operator plays again")
        raise TakenOver

    async def send(self, kind: str, **fields: Any) -> bool:
        await self.gate()
        body = {"id": str(uuid.uuid4()), "type": kind, **fields}
        async with self.session.post(f"{self.base}/api/commands", json=body,
                                     headers=self.headers) as response:
            if response.status == 200:
                return True
            reply = await response.json()
            self.refused += 1
            _log.warning("the engine refused %s: %s", body,
                         reply.get("error", {}).get("message"))
            return False

    async def upload_photo(self, seat: int, png: bytes) -> bool:
        """``POST /api/players/{seat}/photo``, as the console's photo button does."""
        async with self.session.post(f"{self.base}/api/players/{seat}/photo", data=png,
                                     headers={**self.headers,
                                              "Content-Type": "image/png"}) as response:
            if response.status == 200:
                return True
            self.refused += 1
            _log.warning("the service refused the photo of seat %d: %s", seat,
                         await response.text())
            return False

    async def pause(self, seconds: float, *, at_least: float = 0.0) -> None:
        await asyncio.sleep(max(self.timing.of(seconds), at_least))
        await self.gate()

    async def wait_for(self, predicate: Callable[[dict[str, Any]], bool],
                       timeout: float) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout
        while True:
            view = await self.view()
            if predicate(view):
                return view
            if time.monotonic() > deadline:
                return None
            await asyncio.sleep(0.05)

    # -- the tournament --------------------------------------------------------------------

    async def prepare(self, portraits: Path) -> dict[str, Any]:
        """Before the first hand: the players' identities (names, display names, countries)
        and portraits (drawn into ``portraits``, uploaded through the photo API), then the
        tournament clock started. A seat already identified (``--data`` of an earlier run)
        is left as it is. Returns the operator's view from before."""
        view = await self.view()
        tournament = view["tournament"]
        in_play = {p["seat"]: p for p in tournament["players"]}
        for seat, name, _ in PLAYERS:
            player = in_play.get(seat)
            if player is None or player["table_name"] != name:
                continue  # busted in an earlier run: his identity left with him
            full, display, country = IDENTITIES[seat]
            if (player["name"], player["display_name"], player["country"]) != (
                    full, display, country):
                await self.send("set_player", seat=seat, name=full, display_name=display,
                                country=country)
            if not player["photo"]:
                png = await asyncio.to_thread(portrait_png, full, seat)
                portraits.mkdir(parents=True, exist_ok=True)
                (portraits / f"seat{seat}-{initials(full).lower()}.png").write_bytes(png)
                await self.upload_photo(seat, png)
        if not tournament["clock"]["started"]:
            await self.send("start_clock")
        self.synced = time.monotonic()
        self.reported = tournament["eliminated"]
        return view

    async def keep_pace(self, view: dict[str, Any], *, waiting_out_break: bool = False) -> None:
        """At ``--speed F`` the table plays F times faster than real time; the floor keeps the
        tournament clock at the same pace by taking away, between hands, the time the table
        saved since the last time (``adjust_clock``). It never takes the clock further than
        just past the end of the running level or break, so a level lasts at least a hand;
        and a break that began during the last hand is not shortened by the time that hand
        saved (a slow hand on a busy machine would skip it): only :meth:`wait_out_break`
        takes time off a break, as it waits it out. Nothing to do at speed 1, or while the
        clock is paused."""
        now = time.monotonic()
        real, self.synced = now - self.synced, now
        take = real * (self.timing.speed - 1)
        clock = view["tournament"]["clock"]
        if not clock["running"] or (clock["is_break"] and not waiting_out_break):
            return
        if take > 0 and clock["remaining"] is not None:
            left = clock["remaining"] - (time.time() - clock["as_of"])
            take = min(take, max(0.0, left) + 0.1)
        if abs(take) >= 1:
            await self.send("adjust_clock", seconds=-round(take, 1))

    async def wait_out_break(self) -> dict[str, Any]:
        """No hand is dealt during a break (R21): wait until the clock leaves it."""
        announced = False
        while True:
            view = await self.view()
            clock = view["tournament"]["clock"]
            if not (clock["is_break"] and clock["running"]) or clock["remaining"] is None:
                return view
            left = clock["remaining"] - (time.time() - clock["as_of"])
            if not announced:
                announced = True
                self.out(f"  {clock['name']}: play resumes in {max(0, left) / 60:.1f} "
                         f"minutes of tournament time")
            await asyncio.sleep(max(0.05, min(left / self.timing.speed, 1.0)))
            await self.keep_pace(view, waiting_out_break=True)

    def announce_over(self, view: dict[str, Any]) -> None:
        self.over = True
        left = [s for s in view["seats"] if s["name"] and s["stack"] > 0]
        if not left:
            self.out("The tournament is over.")
            return
        winner = left[0]["name"]
        payouts = view["tournament"].get("payouts")
        first = payouts["places"][0]["prize"] if payouts and payouts["places"] else 0
        prize = f" and wins {money(first)}" if first else ""
        self.out(f"The tournament is over: {winner} has all the chips{prize}. "
                 "The pages stay up until Ctrl-C.")

    # -- hands --------------------------------------------------------------------------

    async def run(self, hands: int | None) -> None:
        """Play ``hands`` hands (None: until the tournament is over). The console may pause
        it at any moment (``pause_auto_operator``); resumed, it goes on from the table as it
        finds it: the hand the operator left running is played out, not voided."""
        view = await self.view()
        if view["operator"].get("auto_operator") != "playing":
            await self.send("resume_auto_operator")  # the console shows its Pause key now
        if not view["operator"]["between_hands"]:
            await self.send("misdeal")  # a hand left running by an earlier demo: void it
        while (hands is None or self.hands < hands) and not self.over:
            try:
                await self.play_hand()
            except TakenOver:
                continue

    async def play_hand(self) -> None:
        view = await self.view()
        if view["operator"]["between_hands"]:
            players = [s for s in view["seats"] if s["name"] and s["stack"] > 0]
            if len(players) < 2:
                self.announce_over(view)
                return
            await self.keep_pace(view)
            await self.wait_out_break()
            if not await self.send("next_hand"):
                await self.pause(self.timing.street_s, at_least=0.5)
                return
            view = await self.view()
            seats = [need["seat"] for need in view["operator"]["cards_needed"]
                     if need["target"] == "seat"]
            await self.deal(seats, view)
        while True:
            view = await self.bet_street(await self.view())
            if view["operator"]["between_hands"] or view["table"]["street"] in (
                    "showdown", "over", None):
                break
            needed = view["operator"]["cards_needed"]
            if any(n["target"] == "seat" for n in needed):
                await self.enter_hole_cards(view)  # a hand the console started
            elif any(n["target"] == "board" for n in needed):
                await self.deal_board(view)
            else:
                await asyncio.sleep(0.05)
        await self.finish(await self.view())

    def unseen(self, view: dict[str, Any]) -> list[Card]:
        """The cards not on the table in ``view`` (board and every known hole card), in the
        order this hand's deck has them (after a takeover the console may have dealt others)."""
        seen = {Card(code) for code in view["table"]["board"]}
        seen.update(Card(code) for s in view["seats"] for code in s["cards"] if code)
        seen.update(self.burned)
        planned = [*self.board, *self.burns]
        rest = [c for c in FULL_DECK if c not in planned]
        random.Random(self.hands).shuffle(rest)  # not self.rng: the seed's decisions stay
        return [c for c in (*planned, *rest) if c not in seen]

    async def enter_hole_cards(self, view: dict[str, Any]) -> None:
        """Hole cards the table still needs (a hand started from the console while paused):
        typed in as the console would, from the cards nobody holds."""
        self.burns, self.board, self.burned = [], [], []
        free = iter(self.unseen(view))
        for need in view["operator"]["cards_needed"]:
            if need["target"] == "seat":
                cards = (next(free), next(free))
                self.hole[need["seat"]] = cards
                await self.send("deal_cards", seat=need["seat"], cards=[c.code for c in cards])
        rest = list(free)
        self.burns, self.board = rest[5:8], rest[:5]

    async def deal(self, seats: list[int], view: dict[str, Any]) -> None:
        deck = list(FULL_DECK)
        self.rng.shuffle(deck)
        button = next((s["seat"] for s in view["seats"] if s["position"] in ("BTN", "BTN/SB")),
                      seats[0])
        order = sorted(seats, key=lambda s: (s - button - 1) % 9)  # from the small blind
        self.hole = {seat: (deck[i], deck[i + len(order)]) for i, seat in enumerate(order)}
        rest = deck[2 * len(order):]
        self.burns, self.board = [rest[0], rest[4], rest[6]], [*rest[1:4], rest[5], rest[7]]
        self.burned = []
        self.aggressor = None
        for round_ in range(2):
            for seat in order:
                self.reader.place(seat, simulated_uid(self.hole[seat][round_]))
                await self.pause(self.timing.card_s)
        dealt = await self.wait_for(lambda v: not any(
            n["target"] == "seat" for n in v["operator"]["cards_needed"]), timeout=10.0)
        if dealt is None:  # capture failed: the operator types the cards in
            _log.warning("capture did not deliver the hole cards; entering them by hand")
            for seat, cards in self.hole.items():
                await self.send("deal_cards", seat=seat, cards=[c.code for c in cards])

    async def deal_board(self, view: dict[str, Any]) -> None:
        have = len(view["table"]["board"])
        free = self.unseen(view)  # the planned board, unless the console dealt other cards
        cards = free[:3] if have < 3 else free[:1]
        burn = next(c for c in [*self.burns, *free[len(cards):]] if c not in cards)
        self.burns = [c for c in self.burns if c != burn]
        self.burned.append(burn)
        await self.pause(self.timing.street_s)
        self.reader.place(BURN_ANTENNA, simulated_uid(burn))
        await self.pause(self.timing.card_s)
        for card in cards:
            self.reader.place(BOARD_ANTENNA, simulated_uid(card))
            await self.pause(self.timing.card_s)
        want = have + len(cards)
        dealt = await self.wait_for(lambda v: len(v["table"]["board"]) >= want
                                    or v["operator"]["between_hands"], timeout=10.0)
        if dealt is None:
            _log.warning("capture did not deliver the board; entering it by hand")
            await self.send("deal_board", cards=[c.code for c in cards])

    async def bet_street(self, view: dict[str, Any]) -> dict[str, Any]:
        """Play the betting round until nobody is to act."""
        while (legal := view["operator"]["legal"]) is not None:
            if self.rng.random() < self.clock_calls and view["tournament"]["action_clock"] \
                    is None and await self.send("call_clock", seat=legal["seat"]):
                name = next(s["name"] for s in view["seats"] if s["seat"] == legal["seat"])
                self.out(f"  the clock is called on {name} (R12)")
                await self.pause(self.rng.uniform(*self.timing.tank_s))
            await self.pause(self.rng.uniform(*self.timing.think_s))
            kind, amount = self.decide(view, legal)
            fields: dict[str, Any] = {"seat": legal["seat"]}
            if amount is not None:
                fields["amount"] = amount
            done = kind if await self.send(kind, **fields) else None
            for fallback in ("call" if legal["call"] is not None else "check",
                             "fold" if legal["fold"] else "check"):
                if done is None:  # never stall the table: give way
                    done = fallback if await self.send(fallback, seat=legal["seat"]) else None
            if done in ("bet", "raise_to", "all_in"):
                self.aggressor = legal["seat"]
            if done == "fold":
                self.muck(legal["seat"])
            view = await self.view()
        return view

    def muck(self, seat: int) -> None:
        for card in self.hole.get(seat, ()):
            with contextlib.suppress(ValueError):
                self.reader.move(simulated_uid(card), seat, MUCK_ANTENNA)

    def decide(self, view: dict[str, Any], legal: dict[str, Any]) -> tuple[str, int | None]:
        """A plausible decision for the seat to act (it sees only its own cards and equity)."""
        table = view["table"]
        seat = legal["seat"]
        me = next(s for s in view["seats"] if s["seat"] == seat)
        bb = max(1, table["level"]["big_blind"])
        pot = sum(p["amount"] for p in table["pots"]) + sum(s["bet"] for s in view["seats"])
        to_call = legal["call"] or 0
        street = table["street"]
        raises = sum(1 for a in table["actions"] if a["street"] == street
                     and a["verb"] in ("bet", "raise"))
        stack_bb = (me["stack"] + me["bet"]) / bb
        cards = self.hole.get(seat)
        if street == "preflop":
            strength = preflop_strength(cards) if cards else 0.3
        else:
            equity = (me.get("equity") or {}).get("equity")
            live = sum(1 for s in view["seats"] if s["name"] and not s["folded"]
                       and s["cards"])
            share = 1 / max(2, live)
            strength = 0.5 if equity is None else min(1.0, equity / (2 * share))
        strength = min(1.0, max(0.0, strength + self.rng.gauss(0, 0.08)))
        rng = self.rng.random()
        if legal["all_in"] is not None and (
                (stack_bb <= 12 and strength > 0.62)
                or (strength > 0.93 and rng < 0.35) or (raises >= 2 and strength > 0.9)):
            return "all_in", None
        if to_call == 0:
            if legal["bet"] is not None:  # postflop, nobody bet yet
                cbet = seat == self.aggressor and rng < 0.65
                if cbet or (strength > 0.7 and rng < 0.7) or rng < 0.08:
                    return self.sized("bet", pot * self.rng.choice((0.33, 0.5, 0.66, 0.75)),
                                      legal["bet"], legal)
            elif legal["raise"] is not None and strength > 0.72 and rng < 0.6:
                return self.sized("raise_to", bb * self.rng.choice((3, 3.5, 4)),
                                  legal["raise"], legal)  # the big blind raises limpers
            return "check", None
        if street == "preflop":
            if raises == 0:  # open, limp rarely, or fold
                threshold = 0.5 if len(table["actions"]) < 4 else 0.45
                if strength > threshold and legal["raise"] is not None:
                    return self.sized("raise_to", bb * self.rng.choice((2.0, 2.2, 2.5)),
                                      legal["raise"], legal)
                return ("call", None) if strength > 0.42 and rng < 0.15 else ("fold", None)
            current = max(s["bet"] for s in view["seats"])
            if raises == 1 and strength > 0.78 and legal["raise"] is not None:
                return self.sized("raise_to", current * self.rng.choice((2.8, 3.0, 3.3)),
                                  legal["raise"], legal)  # a 3-bet
            if strength > 0.55 + 0.1 * raises or (to_call <= bb and strength > 0.35):
                return "call", None
            return "fold", None
        odds = to_call / max(1, pot + to_call)
        if strength > 0.85 and rng < 0.3 and legal["raise"] is not None:
            current = max(s["bet"] for s in view["seats"])
            return self.sized("raise_to", current * 2.8, legal["raise"], legal)
        if strength / 2 > odds * 0.9 or rng < 0.05:
            return "call", None
        return "fold", None

    def sized(self, kind: str, amount: float, limits: dict[str, int],
              legal: dict[str, Any]) -> tuple[str, int | None]:
        """Round to a plausible chip amount within the legal limits (all-in at the top)."""
        step = 500 if amount >= 10_000 else 100 if amount >= 1_000 else 25
        total = max(limits["min"], round(amount / step) * step)
        if total >= limits["max"] * 0.8 and legal["all_in"] is not None:
            return "all_in", None
        return kind, min(total, limits["max"])

    async def finish(self, view: dict[str, Any]) -> None:
        number = view["table"]["hand_number"]
        winners = [f"{s['name']} wins {s['won']:,}" for s in view["seats"]
                   if s.get("winner") and s.get("won")]
        tournament = view["tournament"]
        fresh = tournament["eliminated"] - self.reported  # the newest are last (R22 order)
        for out in tournament["eliminations"][max(0, len(tournament["eliminations"]) - fresh):]:
            prize = f" and wins {money(out['prize'])}" if out["prize"] else ""
            winners.append(f"{out['name']} is out in {ordinal(out['place'])}{prize}")
        self.reported = tournament["eliminated"]
        self.hands += 1
        self.out(f"hand {number}: " + ("; ".join(winners) or "over"))
        await self.pause(self.timing.showdown_s)
        self.reader.clear()
        await self.pause(self.timing.street_s, at_least=MIN_CLEAR_S)


# -- running it -----------------------------------------------------------------------------
