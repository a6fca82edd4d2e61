"""The tournament director's service on a real PostgreSQL: exactly-once answers, refusals a
floor manager understands (4xx, nothing changed), a restart that stands where it stood, and
a table whose director cannot be reached changing nothing."""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from engine.errors import ConfigError
from engine.festival_events import FestivalHandDealt
from overlay.app import create_app
from overlay.fanout import FanoutSettings
from overlay.festival.app import create_festival_app
from overlay.festival.settings import parse_festival
from overlay.keys import TABLE_KEY, TOKENS_KEY
from overlay.store import open_store, with_schema
from tests.overlay.festival.test_festival_play import (
    PLAYERS,
    STACK,
    TABLES,
    TOKEN,
    festival_settings,
    table_config,
)
from tests.pg import PostgresServer, free_port


async def ask(director: TestClient, body: dict[str, Any], token: str = TOKEN,
              ) -> tuple[int, dict[str, Any]]:
    response = await director.post("/api/festival/next_hand", json=body,
                                   headers={"Authorization": f"Bearer {token}"})
    return response.status, await response.json()


async def test_a_question_asked_again_gets_the_first_answer_and_logs_nothing(
        aiohttp_client: Any, tmp_path: Path, pg_server: PostgresServer) -> None:
    url = pg_server.create_database()
    settings = festival_settings(url)
    director = await aiohttp_client(create_festival_app(settings, tmp_path / "d"))
    body = {"id": "table-1:hand:1", "table": "table-1", "table_hand": 1, "stacks": None}
    first = await ask(director, body)
    assert first[0] == 200 and first[1]["table"] == "table-1"
    assert len(first[1]["seats"]) == 8 and isinstance(first[1]["button"], int)
    assert {seat[2] for seat in first[1]["seats"]} == {STACK}
    assert await ask(director, body) == first
    # The festival stands where it stood after a restart (its log replayed).
    state = await (await director.get("/api/festival")).json()
    await director.close()
    again = await aiohttp_client(create_festival_app(settings, tmp_path / "d"))
    assert await (await again.get("/api/festival")).json() == state
    assert await ask(again, body) == first
    log = open_store(with_schema(url, "festival"))
    dealt = [e.payload for e in log.iter_all() if isinstance(e.payload, FestivalHandDealt)]
    log.close()
    assert len(dealt) == 1


async def test_refusals_say_why_and_change_nothing(aiohttp_client: Any, tmp_path: Path,
                                                   pg_server: PostgresServer) -> None:
    director = await aiohttp_client(create_festival_app(
        festival_settings(pg_server.create_database()), tmp_path / "d"))
    body = {"id": "table-2:hand:1", "table": "table-2", "table_hand": 1, "stacks": None}
    assert (await ask(director, body, token="wrong"))[0] == 401
    status, answer = await ask(director, {**body, "table": "table-9"})
    assert status == 409 and "there is no table 'table-9'" in answer["error"]["message"]
    status, answer = await ask(director, {**body, "stacks": {"Player 01": -5}})
    assert status == 422 and "stacks" in answer["error"]["message"]
    status, answer = await ask(director, {**body, "table_hand": 0})
    assert status == 422
    assert (await ask(director, body))[0] == 200
    # Playing: it must report the hand's stacks before it deals again.
    status, answer = await ask(director, {**body, "id": "again", "table_hand": 2})
    assert status == 409 and "report its stacks" in answer["error"]["message"]
    # Chips that appeared are refused, and nothing is recorded.
    seats = (await (await director.get("/api/festival")).json())["tables"][1]["seats"]
    stacks = {player: chips for _, player, chips in seats}
    stacks[next(iter(stacks))] += 1
    status, answer = await ask(director, {**body, "id": "more", "table_hand": 2,
                                          "stacks": stacks})
    assert status == 409 and "are not those before it" in answer["error"]["message"]
    state = await (await director.get("/api/festival")).json()
    assert state["tables"][1]["playing"] and state["chips"] == 24 * STACK


async def test_a_table_whose_director_is_away_changes_nothing(
        aiohttp_client: Any, tmp_path: Path, pg_server: PostgresServer) -> None:
    nowhere = f"http://127.0.0.1:{free_port()}"
    client = await aiohttp_client(create_app(table_config(
        tmp_path, TABLES[0], pg_server.create_database(), nowhere)))
    token = client.server.app[TOKENS_KEY].tokens.operator
    response = await client.post("/api/commands", json={
        "id": str(uuid.uuid4()), "type": "next_hand"},
        headers={"Authorization": f"Bearer {token}"})
    assert response.status == 503
    error = (await response.json())["error"]
    assert error["code"] == "director_unreachable"
    assert "did not answer" in error["message"] and "send it again" in error["message"]
    table = client.server.app[TABLE_KEY].table
    assert table.hand is None and table.names == {}


async def order(director: TestClient, kind: str, body: dict[str, Any], token: str = TOKEN,
                ) -> tuple[int, dict[str, Any]]:
    response = await director.post(f"/api/festival/{kind}", json=body,
                                   headers={"Authorization": f"Bearer {token}"})
    return response.status, await response.json()


async def test_the_directors_orders_are_logged_answered_and_seat_the_tables(
        aiohttp_client: Any, tmp_path: Path, pg_server: PostgresServer) -> None:
    """A move ordered while the player's table plays waits for its hand, then seats him at
    the other table's next hand; a break and moves the floor refuses say why (409, nothing
    logged); hand-for-hand switched on makes a table wait (R24), off lets it deal; a retry
    gets the first answer; a restart stands where it stood."""
    url = pg_server.create_database()
    settings = replace(festival_settings(url), players=(*PLAYERS, "Player 25"))
    director = await aiohttp_client(create_festival_app(settings, tmp_path / "d"))
    state = await (await director.get("/api/festival")).json()
    sizes = {t["name"]: len(t["seats"]) for t in state["tables"]}
    long = next(name for name, n in sizes.items() if n == 9)
    short, other = (name for name, n in sizes.items() if n == 8)
    hands = {key: 0 for key in TABLES}
    stacks: dict[str, dict[str, int]] = {}

    async def next_hand(key: str, expect: int = 200) -> dict[str, Any]:
        hand = hands[key] + 1
        status, answer = await ask(director, {
            "id": f"{key}:hand:{hand}", "table": key, "table_hand": hand,
            "stacks": stacks.get(key)})
        assert status == expect, answer
        if status == 200:
            hands[key] = hand
            stacks[key] = {player: chips for _, player, chips in answer["seats"]}
        return answer

    await next_hand(long)
    await next_hand(short)
    mover = next(p for p in stacks[long])
    # Refusals: the token, bad input (422), and what the floor refuses (409, with why).
    body = {"id": "move-1", "player": mover, "table": other}
    assert (await order(director, "move", body, token="wrong"))[0] == 401
    assert (await order(director, "move", {**body, "seat": "x"}))[0] == 422
    assert (await order(director, "hand_for_hand", {"id": "h", "on": "yes"}))[0] == 422
    refused = {("move", "nobody", other): "there is no player 'nobody'",
               ("move", mover, "table-9"): "there is no table 'table-9'",
               ("move", next(iter(stacks[short])), long): f"{long} is full",
               ("move", next(iter(stacks[short])), other): "the tables are kept within one",
               ("break", "", other): "do not fit at the 2 other tables"}
    for (kind, player, table), why in refused.items():
        status, answer = await order(director, kind, {"id": f"no-{why}", "player": player,
                                                      "table": table})
        assert status == 409 and why in answer["error"]["message"], answer
    # The move waits for the hand at his table; asked again, the first answer.
    status, first = await order(director, "move", body)
    assert status == 200 and first["moves"] == []
    assert [o["player"] for o in first["orders"]] == [mover]
    assert await order(director, "move", body) == (200, first)
    state = await (await director.get("/api/festival")).json()
    assert state["orders"][0]["order"] == f"move {mover} to {other}"
    # His table reports its hand: he leaves it; the other table's next hand seats him.
    answer = await next_hand(long)
    assert mover not in {player for _, player, _ in answer["seats"]}
    answer = await next_hand(other)
    assert [mover, 10_000] in [seat[1:] for seat in answer["seats"]]
    state = await (await director.get("/api/festival")).json()
    seat = next(seat for seat, player, _ in answer["seats"] if player == mover)
    moved = state["moves"][0]
    assert (moved["player"], moved["from_table"], moved["to_table"], moved["to_seat"],
            moved["reason"], moved["after"]) == (mover, long, other, seat, "director",
                                                 f"{long} hand 1")
    assert state["orders"] == []
    # Hand-for-hand by hand: a table that finished the round's hand waits (R24).
    status, switched = await order(director, "hand_for_hand", {"id": "h4h-on", "on": True})
    assert status == 200 and switched["hand_for_hand"] is True
    await next_hand(short)  # its first hand over, it deals the round's hand
    answer = await next_hand(short, expect=409)
    assert answer["error"]["rule"] == "R24" and "waits" in answer["error"]["message"]
    state = await (await director.get("/api/festival")).json()
    assert state["hand_for_hand"] and state["hand_for_hand_ordered"] is True
    assert (await order(director, "hand_for_hand", {"id": "h4h-off", "on": False}))[0] == 200
    await next_hand(short)  # hand-for-hand off: it deals at once
    state = await (await director.get("/api/festival")).json()
    assert state["chips"] == 25 * STACK and not state["hand_for_hand"]
    # A restart stands where it stood; an order asked again gets its first answer.
    await director.close()
    again = await aiohttp_client(create_festival_app(settings, tmp_path / "d"))
    assert await (await again.get("/api/festival")).json() == state
    assert await order(again, "move", body) == (200, first)
    log = open_store(with_schema(url, "festival"))
    kinds = Counter(e.payload.kind for e in log.iter_all())
    log.close()
    assert kinds["festival_move_ordered"] == 1 and kinds["festival_break_ordered"] == 0
    assert kinds["festival_hand_for_hand_ordered"] == 2


async def a_move_ordered_during_a_hand(
        aiohttp_client: Any, tmp_path: Path, url: str,
) -> tuple[TestClient, Any, str, str, dict[str, int], str, str]:
    """25 players (9, 8, 8): a table of nine deals its first hand and the director orders
    its first player to a table of eight (the order waits for the hand). The director,
    its settings, the two tables, the hand's stacks, the mover and the table's second
    player."""
    settings = replace(festival_settings(url), players=(*PLAYERS, "Player 25"))
    director = await aiohttp_client(create_festival_app(settings, tmp_path / "d"))
    state = await (await director.get("/api/festival")).json()
    sizes = {t["name"]: len(t["seats"]) for t in state["tables"]}  # 9, 8, 8
    long = next(name for name, n in sizes.items() if n == 9)
    short = next(name for name, n in sizes.items() if n == 8)
    status, dealt = await ask(director, {"id": f"{long}:hand:1", "table": long,
                                         "table_hand": 1, "stacks": None})
    assert status == 200
    stacks = {player: chips for _, player, chips in dealt["seats"]}
    mover, second = list(stacks)[:2]
    status, answer = await order(director, "move", {"id": "move-1", "player": mover,
                                                    "table": short})
    assert status == 200 and answer["moves"] == [] and len(answer["orders"]) == 1
    return director, settings, long, short, stacks, mover, second


async def test_a_waiting_order_is_withdrawn_and_hand_for_hand_off_makes_its_moves(
        aiohttp_client: Any, tmp_path: Path, pg_server: PostgresServer) -> None:
    """An order still waiting is withdrawn (refusals say why; a retry gets the first
    answer; nobody moves for it, after a restart too); a move that waits for the end of a
    hand-for-hand round is made when hand-for-hand is switched off, and that answer and the
    director's list of moves show it."""
    url = pg_server.create_database()
    director, settings, long, short, stacks, mover, stayer = \
        await a_move_ordered_during_a_hand(aiohttp_client, tmp_path, url)
    withdraw = {"id": "w1", "player": mover}
    assert (await order(director, "withdraw", withdraw, token="wrong"))[0] == 401
    for bad in ({"id": "w0"}, {"id": "w0", "player": mover, "table": short},
                {"id": "w0", "player": 5}):
        status, answer = await order(director, "withdraw", bad)
        assert status == 422, (bad, answer)
    status, answer = await order(director, "withdraw", {"id": "w2", "player": stayer})
    assert status == 409
    assert answer["error"]["message"] == (f"no order to move {stayer} waits: it was "
                                          "carried out, or never given")
    status, first = await order(director, "withdraw", withdraw)
    assert status == 200 and first["orders"] == [] and first["moves"] == []
    assert await order(director, "withdraw", withdraw) == (200, first)
    # His table finishes its hand: he stays.
    status, answer = await ask(director, {"id": f"{long}:hand:2", "table": long,
                                          "table_hand": 2, "stacks": stacks})
    assert status == 200 and mover in {player for _, player, _ in answer["seats"]}
    stacks = {player: chips for _, player, chips in answer["seats"]}
    state = await (await director.get("/api/festival")).json()
    assert state["orders"] == [] and state["moves"] == [] and state["lapsed"] == []
    # Hand-for-hand on; long finishes the round's hand, the short table has not dealt it:
    # a move from long to short waits for the round (R24) until hand-for-hand is off.
    assert (await order(director, "hand_for_hand", {"id": "h-on", "on": True}))[0] == 200
    status, answer = await ask(director, {"id": f"{long}:hand:3", "table": long,
                                          "table_hand": 3, "stacks": stacks})
    assert status == 200
    stacks = {player: chips for _, player, chips in answer["seats"]}
    status, answer = await ask(director, {"id": f"{long}:hand:4", "table": long,
                                          "table_hand": 4, "stacks": stacks})
    assert status == 409 and answer["error"]["rule"] == "R24"
    status, answer = await order(director, "move", {"id": "m2", "player": mover,
                                                    "table": short})
    assert status == 200 and answer["moves"] == [] and len(answer["orders"]) == 1
    status, answer = await order(director, "hand_for_hand", {"id": "h-off", "on": False})
    assert status == 200 and [(m["player"], m["from_table"], m["to_table"], m["reason"])
                              for m in answer["moves"]] == [(mover, long, short, "director")]
    state = await (await director.get("/api/festival")).json()
    assert state["orders"] == [] and [(m["player"], m["after"]) for m in state["moves"]] \
        == [(mover, "the director's order")]
    seats = {t["name"]: {p for _, p, _ in t["seats"]} for t in state["tables"]}
    assert mover in seats[short] and mover not in seats[long]
    await director.close()
    again = await aiohttp_client(create_festival_app(settings, tmp_path / "d"))
    assert await (await again.get("/api/festival")).json() == state
    log = open_store(with_schema(url, "festival"))
    kinds = Counter(e.payload.kind for e in log.iter_all())
    log.close()
    assert kinds["festival_order_withdrawn"] == 1 and kinds["festival_move_ordered"] == 2


async def test_an_order_whose_player_busts_is_listed_as_lapsed_with_the_reason(
        aiohttp_client: Any, tmp_path: Path, pg_server: PostgresServer) -> None:
    """A move ordered while the player's table plays; he busts in that hand: the order
    lapses, nothing moves, and ``GET /api/festival`` lists it under ``lapsed`` with the
    reason, after a restart too (the log replayed)."""
    url = pg_server.create_database()
    director, settings, key, other, stacks, mover, winner = \
        await a_move_ordered_during_a_hand(aiohttp_client, tmp_path, url)
    # His table reports the hand: he is not in it (busted), his chips went to the winner.
    stacks[winner] += stacks.pop(mover)
    status, answer = await ask(director, {"id": f"{key}:hand:2", "table": key,
                                          "table_hand": 2, "stacks": stacks})
    assert status == 200 and mover not in {player for _, player, _ in answer["seats"]}
    state = await (await director.get("/api/festival")).json()
    assert state["orders"] == [] and state["moves"] == []
    assert state["lapsed"] == [{"order": f"move {mover} to {other}",
                                "reason": f"{mover} is out of the festival: he busted"}]
    assert [bust["player"] for bust in state["busts"]] == [mover]
    await director.close()
    again = await aiohttp_client(create_festival_app(settings, tmp_path / "d"))
    assert (await (await again.get("/api/festival")).json())["lapsed"] == state["lapsed"]


@pytest.mark.parametrize(("change", "key"), [
    ({"fanout": {"url": "http://127.0.0.1:6379"}}, "fanout.url"),
    ({"fanout": {"delay": -1}}, "fanout.delay"),
    ({"fanout": {"delay": True}}, "fanout.delay"),
    ({"fanout": {"url": "redis://127.0.0.1:6379/0", "seconds": 9}}, "fanout"),
])
def test_the_standings_settings_are_checked(change: dict[str, Any], key: str) -> None:
    raw = {"festival": {"tables": ["table-1"], "players": ["A", "B"], "token": TOKEN},
           "database": {"url": "postgresql://x@127.0.0.1/f"}}
    assert parse_festival(raw).fanout_url == ""
    with pytest.raises(ConfigError) as refused:
        parse_festival({**raw, **change})
    assert refused.value.args[0].startswith(key) or key in str(refused.value)


def test_no_table_takes_the_festivals_key() -> None:
    with pytest.raises(ConfigError, match="the festival's own key"):
        FanoutSettings(table="festival")
