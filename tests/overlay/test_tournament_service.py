"""The tournament through the real service (aiohttp on 127.0.0.1): the [tournament]
configuration, the clock commands (R21), stack corrections, disqualification, eliminations
with places and prizes (R22, R23), restart survival and the delayed channel."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from engine.errors import ConfigError
from engine.tournament_events import PrizeAwarded
from overlay.app import create_app
from overlay.auth import load_or_create_tokens
from overlay.config import parse_config
from overlay.keys import HUBS_KEY, STORE_KEY, TABLE_KEY, TOKENS_KEY

T0 = 1_764_500_000.0
PLAYERS = [{"seat": 1, "name": "Ann", "stack": 5000},
           {"seat": 4, "name": "Bo", "stack": 3000},
           {"seat": 7, "name": "Cy", "stack": 2000}]
TOURNAMENT = {"name": "Main Event", "entrants": 3, "prize_pool": 1000, "currency": "EUR",
              "payouts": {"percentages": [70, 30]}}
LEVELS = [{"small_blind": 25, "big_blind": 50, "minutes": 10},
          {"small_blind": 50, "big_blind": 100, "minutes": 10},
          {"small_blind": 100, "big_blind": 200, "minutes": 10}]


class FakeClock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


def config_for(tmp_path: Path, **tournament: Any) -> Any:
    return parse_config({
        "table": {"name": "Test Final", "seats": 9, "button": 1},
        "players": PLAYERS,
        "delay": {"seconds": 30},
        "tournament": {**TOURNAMENT, "levels": LEVELS,
                       "breaks": [{"after_level": 2, "minutes": 5, "name": "Dinner"}],
                       **tournament},
        "data_dir": str(tmp_path / "data"),
    })


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def client(aiohttp_client: Any, tmp_path: Path, clock: FakeClock) -> TestClient:
    return await aiohttp_client(create_app(config_for(tmp_path), clock=clock))


async def command(client: TestClient, kind: str, **fields: Any) -> tuple[int, Any]:
    token = client.server.app[TOKENS_KEY].tokens.operator
    body = {"id": str(uuid.uuid4()), "type": kind, **fields}
    response = await client.post("/api/commands", json=body,
                                 headers={"Authorization": f"Bearer {token}"})
    return response.status, await response.json()


async def ok(client: TestClient, kind: str, **fields: Any) -> Any:
    status, reply = await command(client, kind, **fields)
    assert status == 200, reply
    return reply


async def tournament(client: TestClient, channel: str = "venue") -> dict[str, Any]:
    state = await (await client.get(f"/api/state?channel={channel}")).json()
    view: dict[str, Any] = state["view"]["tournament"]
    return view


async def fold_around(client: TestClient) -> None:
    """Deal unread cards and fold to the big blind (the hand ends)."""
    service = client.server.app[TABLE_KEY]
    hand = service.hand
    assert hand is not None
    for seat in hand.seats:
        await ok(client, "deal_cards", seat=seat, cards=[None, None])
    while not hand.is_over:
        legal = hand.legal_actions()
        assert legal is not None
        await ok(client, "fold", seat=legal.seat)


# --- configuration ---------------------------------------------------------------------------


@pytest.mark.parametrize(("section", "key", "fragment"), [
    ({"entrants": -1}, "tournament.entrants", "zero or more"),
    ({"entrants": 2}, "tournament.entrants", "3 players are seated"),
    ({"currency": "EURO"}, "tournament.currency", "ISO 4217"),
    ({"payouts": {"percentages": [60, 30]}}, "tournament.payouts", "add up to 90"),
    ({"payouts": {"percentages": [50, 50]}, "prize_pool": 0}, "tournament.prize_pool",
     "needed"),
    ({"payouts": {"amounts": [700, 300]}, "prize_pool": 999}, "tournament.prize_pool",
     "1,000"),
    ({"payouts": {"shares": [1]}}, "tournament.payouts", "unknown key"),
    ({"prize": 5}, "tournament.prize", "unknown key"),
    ({"levels": [{"small_blind": 50}]}, "tournament.levels[0].big_blind", "missing"),
    ({"levels": [{"big_blind": 100}, {"big_blind": 50}]}, "tournament.levels[1].big_blind",
     "smaller"),
    ({"breaks": [{"after_level": 3, "minutes": 5}]}, "tournament.breaks[0].after_level",
     "between two levels"),
    ({"breaks": [{"after_level": 1}]}, "tournament.breaks[0].minutes", "missing"),
])
def test_bad_tournament_configuration_names_the_key(tmp_path: Path, section: dict[str, Any],
                                                    key: str, fragment: str) -> None:
    raw = {"players": PLAYERS, "tournament": {
        "levels": LEVELS, "prize_pool": 1000, **section}}
    with pytest.raises(ConfigError) as caught:
        parse_config(raw)
    assert caught.value.key == key
    assert fragment in str(caught.value)


def test_structure_given_twice_is_refused() -> None:
    with pytest.raises(ConfigError, match="given twice"):
        parse_config({"table": {"levels": [[25, 50]]},
                      "tournament": {"levels": [{"big_blind": 50}]}})


async def test_the_view_carries_name_payouts_and_players(client: TestClient) -> None:
    t = await tournament(client)
    assert t["name"] == "Main Event"
    assert t["payouts"]["places"] == [{"place": 1, "prize": 700, "name": None, "jump": 400},
                                      {"place": 2, "prize": 300, "name": None, "jump": 300}]
    assert t["payouts"]["currency"] == "EUR"
    assert [p["seat"] for p in t["players"]] == [1, 4, 7]
    assert t["field"] == {"entrants": 3, "remaining": 3, "total_chips": 10_000,
                          "average": 3333, "average_bb": 66.7, "chip_leader": 1}
    assert t["clock"]["started"] is False and t["clock"]["remaining"] == 600.0


# --- the clock ---------------------------------------------------------------------------


async def test_clock_commands_and_their_refusals(client: TestClient, clock: FakeClock) -> None:
    status, reply = await command(client, "pause_clock")
    assert status == 409 and "not running" in reply["error"]["message"]
    status, reply = await command(client, "adjust_clock", seconds=30)
    assert status == 409 and "not started" in reply["error"]["message"]
    await ok(client, "start_clock")
    c = (await tournament(client))["clock"]
    assert (c["level"], c["running"], c["remaining"], c["as_of"]) == (1, True, 600.0, T0)
    status, reply = await command(client, "start_clock")
    assert status == 409
    clock.now += 100
    await ok(client, "pause_clock")
    c = (await tournament(client))["clock"]
    assert (c["running"], c["remaining"]) == (False, 500.0)
    await ok(client, "adjust_clock", seconds=-200)
    assert (await tournament(client))["clock"]["remaining"] == 300.0
    for bad in (0, "ten", True):
        status, reply = await command(client, "adjust_clock", seconds=bad)
        assert status == 422, reply
    clock.now += 1000  # paused: nothing runs
    await ok(client, "resume_clock")
    c = (await tournament(client))["clock"]
    assert (c["running"], c["remaining"], c["as_of"]) == (True, 300.0, clock.now)


async def test_a_level_due_during_a_hand_starts_with_the_next_hand_r21(
        client: TestClient, clock: FakeClock) -> None:
    service = client.server.app[TABLE_KEY]
    await ok(client, "start_clock")
    await ok(client, "next_hand")
    hand = service.hand
    assert hand is not None and hand.big_blind == 50
    clock.now += 10 * 60 + 1  # level 1 (10 minutes) is over mid-hand
    await service.cross_boundary()
    t = await tournament(client)
    assert t["clock"]["level"] == 2 and t["clock"]["remaining"] == 600.0
    assert t["clock"]["as_of"] == T0 + 600  # the boundary, not the moment we looked
    assert service.hand is hand and hand.big_blind == 50  # the running hand keeps its level
    await fold_around(client)
    await ok(client, "next_hand")
    assert service.hand is not None and service.hand.big_blind == 100
    # Into the break after level 2: the clock shows it and the level that follows it.
    clock.now = T0 + 20 * 60 + 2
    await service.cross_boundary()
    c = (await tournament(client))["clock"]
    assert (c["is_break"], c["name"], c["level"], c["remaining"]) == (True, "Dinner", 3, 300.0)


async def test_a_hand_started_after_the_level_ended_is_dealt_at_the_new_level(
        client: TestClient, clock: FakeClock) -> None:
    service = client.server.app[TABLE_KEY]
    await ok(client, "start_clock")
    clock.now += 10 * 60 + 5  # no timer fired (the test clock): next_hand catches up (R21)
    await ok(client, "next_hand")
    assert service.hand is not None and service.hand.big_blind == 100


async def test_set_level_moves_a_running_clock(client: TestClient, clock: FakeClock) -> None:
    await ok(client, "start_clock")
    clock.now += 50
    await ok(client, "set_level", level=2)
    c = (await tournament(client))["clock"]
    assert (c["level"], c["remaining"], c["is_break"]) == (2, 600.0, False)
    await ok(client, "set_level", level=3)  # the last level lasts for ever
    c = (await tournament(client))["clock"]
    assert (c["level"], c["remaining"], c["next"]) == (3, None, None)


# --- stacks, eliminations, prizes ------------------------------------------------------------


async def test_stack_corrections_are_events_with_a_reason(client: TestClient) -> None:
    status, reply = await command(client, "correct_stack", seat=4, stack=3500, reason=" ")
    assert status == 409 and "reason" in reply["error"]["message"]
    reply = await ok(client, "correct_stack", seat=4, stack=3500, reason="chip count")
    entry = client.server.app[STORE_KEY].read(reply["seq"] - 1, 1)[0]
    assert entry.payload.to_dict() == {"kind": "stack_corrected", "seat": 4, "stack": 3500,
                                       "previous": 3000, "reason": "chip count"}
    bo = next(p for p in (await tournament(client))["players"] if p["seat"] == 4)
    assert bo["stack"] == 3500
    await ok(client, "next_hand")
    status, reply = await command(client, "correct_stack", seat=4, stack=3000, reason="x")
    assert status == 409  # between hands only


async def all_in_preflop(client: TestClient, cards: dict[int, list[str]],
                         board: list[str]) -> None:
    service = client.server.app[TABLE_KEY]
    await ok(client, "next_hand")
    hand = service.hand
    for seat in hand.seats:
        await ok(client, "deal_cards", seat=seat, cards=cards[seat])
    while (legal := hand.legal_actions()) is not None:
        kind = "call" if legal.max_raise_to is None else "all_in"
        await ok(client, kind, seat=legal.seat)
    for part in (board[:3], board[3:4], board[4:]):
        if not hand.is_over:
            await ok(client, "deal_board", cards=part)
    assert hand.is_over


async def test_busts_are_ranked_and_paid_then_the_winner_r22_r23(
        client: TestClient, clock: FakeClock) -> None:
    # Ann's aces beat both: Bo (3,000 at the start) finishes 2nd, Cy 3rd (R22).
    await all_in_preflop(client, {1: ["Ah", "As"], 4: ["7c", "2d"], 7: ["8c", "3d"]},
                         ["Kd", "Qh", "4s", "5c", "9h"])
    t = await tournament(client)
    out = [(e["place"], e["name"], e["prize"]) for e in t["eliminations"]]
    assert out == [(2, "Bo", 300), (3, "Cy", 0)]
    assert [p["name"] for p in t["payouts"]["places"]] == ["Ann", "Bo"]  # the winner too
    prizes = [e.payload for e in client.server.app[STORE_KEY].read(0)
              if isinstance(e.payload, PrizeAwarded)]
    assert sorted((p.place, p.name, p.prize) for p in prizes) == [
        (1, "Ann", 700), (2, "Bo", 300), (3, "Cy", 0)]
    # The delayed channel (30 s) has shown none of it yet; it does once the delay passes.
    assert (await tournament(client, "delayed"))["eliminations"] == []
    clock.now += 31
    client.server.app[HUBS_KEY]["delayed"].release_due()
    shown = (await tournament(client, "delayed"))["eliminations"]
    assert [e["name"] for e in shown] == ["Bo", "Cy"]


async def test_a_disqualified_player_leaves_and_forfeits(client: TestClient) -> None:
    status, reply = await command(client, "disqualify", seat=4, reason="")
    assert status == 409 and "reason" in reply["error"]["message"]
    await ok(client, "disqualify", seat=4, reason="collusion")
    t = await tournament(client)
    assert [p["seat"] for p in t["players"]] == [1, 7]
    assert t["field"]["total_chips"] == 7000
    assert t["eliminations"] == []  # a disqualified player has no place


# --- a restart -------------------------------------------------------------------------------


async def test_clock_prizes_and_identities_survive_a_restart(
        aiohttp_client: Any, tmp_path: Path, clock: FakeClock) -> None:
    config = config_for(tmp_path)
    tokens = load_or_create_tokens(config.data_dir)  # printed once: the restart keeps them
    first = await aiohttp_client(create_app(config, clock=clock, tokens=tokens))
    await ok(first, "start_clock")
    clock.now += 120
    await ok(first, "pause_clock")
    await ok(first, "adjust_clock", seconds=45)
    await ok(first, "set_player", seat=1, name="Ann Smith", display_name="Ann", country="de")
    await all_in_preflop(first, {1: ["Ah", "As"], 4: ["7c", "2d"], 7: ["8c", "3d"]},
                         ["Kd", "Qh", "4s", "5c", "9h"])
    before = await tournament(first)
    await first.close()
    clock.now += 3600  # the service was down for an hour: a paused clock stays paused
    second = await aiohttp_client(create_app(config, clock=clock, tokens=tokens))
    after = await tournament(second)
    assert after["clock"] == before["clock"]
    assert (after["clock"]["remaining"], after["clock"]["running"]) == (525.0, False)
    assert after["eliminations"] == before["eliminations"]
    assert after["players"] == before["players"]
    ann = after["players"][0]
    assert (ann["name"], ann["display_name"], ann["country"]) == ("Ann Smith", "Ann", "DE")
    # The desk came back too: the clock resumes where it stood.
    await ok(second, "resume_clock")
    assert (await tournament(second))["clock"]["remaining"] == 525.0


async def test_a_level_that_ended_while_the_service_was_down_is_logged_at_the_start(
        aiohttp_client: Any, tmp_path: Path, clock: FakeClock) -> None:
    config = config_for(tmp_path)
    tokens = load_or_create_tokens(config.data_dir)  # printed once: the restart keeps them
    first = await aiohttp_client(create_app(config, clock=clock, tokens=tokens))
    await ok(first, "start_clock")
    await first.close()
    clock.now += 10 * 60 + 30  # level 1 ended while nothing ran
    second = await aiohttp_client(create_app(config, clock=clock, tokens=tokens))
    c = (await tournament(second))["clock"]
    assert (c["level"], c["running"], c["remaining"], c["as_of"]) == (2, True, 600.0, T0 + 600)
    await ok(second, "next_hand")
    assert second.server.app[TABLE_KEY].hand.big_blind == 100


async def test_hand_events_do_not_patch_the_clock(client: TestClient, clock: FakeClock) -> None:
    await ok(client, "start_clock")
    subscription = client.server.app[HUBS_KEY]["venue"].subscribe()
    snapshot = await subscription.get()
    assert snapshot.type == "snapshot"
    clock.now += 5
    await ok(client, "next_hand")
    clock.now += 5
    await fold_around(client)
    patches = []
    while (message := subscription.get_nowait()) is not None:
        patches.append(message.data["patch"])
    subscription.close()
    assert len(patches) > 5
    assert all("clock" not in (p.get("tournament") or {}) for p in patches)


async def test_the_boundary_timer_logs_the_new_level_by_itself(
        client: TestClient, clock: FakeClock) -> None:
    await ok(client, "start_clock")
    clock.now = T0 + 600 - 0.1  # a tenth of a second before level 2
    await ok(client, "set_player", seat=1, country="DE")  # any command re-arms the timer
    clock.now = T0 + 600 + 0.2
    for _ in range(50):  # the timer fires about 0.15 s after the command
        await asyncio.sleep(0.02)
        if (await tournament(client))["clock"]["level"] == 2:
            break
    c = (await tournament(client))["clock"]
    assert (c["level"], c["remaining"], c["as_of"]) == (2, 600.0, T0 + 600)
    kinds = [e.kind for e in client.server.app[STORE_KEY].read(0)]
    assert kinds.count("level_started") == 2  # the seed's level 1, then level 2 once


async def test_a_player_who_leaves_his_seat_takes_no_place(client: TestClient) -> None:
    await ok(client, "empty_seat", seat=7)  # Cy moves to another table: not out, not in
    await all_in_preflop(client, {1: ["Ah", "As"], 4: ["7c", "2d"]},
                         ["Kd", "Qh", "4s", "5c", "9h"])
    t = await tournament(client)
    assert [(e["place"], e["name"], e["prize"]) for e in t["eliminations"]] == [
        (2, "Bo", 300)]
    assert [p["name"] for p in t["payouts"]["places"]] == ["Ann", "Bo"]


async def test_the_structure_and_prizes_are_in_the_public_config(client: TestClient) -> None:
    config = (await (await client.get("/api/config")).json())["tournament"]
    assert config["name"] == "Main Event" and config["currency"] == "EUR"
    assert config["prizes"] == [700, 300] and config["entrants"] == 3
    assert [lv["big_blind"] for lv in config["levels"]] == [50, 100, 200]
    assert config["levels"][0] == {"level": 1, "small_blind": 25, "big_blind": 50, "ante": 0,
                                   "minutes": 10}
    assert config["breaks"] == [{"after_level": 2, "minutes": 5, "name": "Dinner"}]
