"""The tournament director's service on a real PostgreSQL: exactly-once answers, refusals a
floor manager understands (4xx, nothing changed), a restart that stands where it stood, and
a table whose director cannot be reached changing nothing."""

from __future__ import annotations

import uuid
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
