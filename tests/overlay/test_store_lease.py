"""One writer per table on a real PostgreSQL (overlay/store.py, "One writer per table"): the
lease is held on the append connection, a second service waits or is refused, a dead
writer's lease passes on, and a writer that lost its lease can never write again; tables
share a database, each in its own schema."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from engine.errors import ConfigError
from engine.log import TableEvent
from overlay.config import parse_config
from overlay.store import (
    LeaseLostError,
    StoreError,
    create_db_engine,
    open_store,
    schema_of,
    with_schema,
)
from tests.overlay.sample_events import sample_events
from tests.overlay.test_cli_start import Running, get, post_command
from tests.pg import PostgresServer

ROOT = Path(__file__).resolve().parents[2]


def entries(first: int, count: int) -> list[TableEvent]:
    return [TableEvent.record(first + i, 1_764_500_000.0 + first + i, event)
            for i, event in enumerate(sample_events(count, seed=first))]


def backend_of(store: Any) -> int:
    """The server process of the store's append connection (the lease's session)."""
    conn = store._writer_connection()
    with conn.begin():
        return int(conn.exec_driver_sql("SELECT pg_backend_pid()").scalar())


def terminate(url: str, pid: int) -> None:
    engine = create_db_engine(url)
    with engine.connect() as conn:
        conn.exec_driver_sql(f"SELECT pg_terminate_backend({pid})")
        conn.commit()
    engine.dispose()


def lease_taken(store: Any) -> None:
    """Ask for the lease as a standby does until it is free (the killed session's server
    process ends a moment after it was told to)."""
    deadline = time.monotonic() + 60
    while not store.take_lease():
        assert time.monotonic() < deadline, "the lease was never free"
        time.sleep(0.05)


def test_one_writer_per_table_and_tables_in_schemas_of_their_own(
        pg_server: PostgresServer) -> None:
    database = pg_server.create_database()
    first, second = with_schema(database, "table_1"), with_schema(database, "table_2")
    assert schema_of(first) == "table_1" and schema_of(database) == ""
    a, b, other = open_store(first), open_store(first), open_store(second)
    try:
        assert a.take_lease()
        assert not b.take_lease()  # the same table: one writer
        assert other.take_lease()  # another table in the same database
        a.append(entries(1, 5))
        other.append(entries(1, 2))
        assert (a.last_seq, other.last_seq) == (5, 2)  # two logs, one database
        a.close()  # the writer stops: its lease is free
        lease_taken(b)
        assert b.last_seq == 5  # what the first wrote, read at the takeover
        b.append(entries(6, 3))
        assert [e.seq for e in b.read()] == list(range(1, 9))
    finally:
        for store in (a, b, other):
            store.close()


def test_a_writer_whose_lease_passed_on_never_writes_again(pg_server: PostgresServer) -> None:
    url = with_schema(pg_server.create_database(), "final")
    old, new = open_store(url), open_store(url)
    try:
        assert old.take_lease()
        old.append(entries(1, 3))
        terminate(url, backend_of(old))  # its session dies (a network cut, say)
        lease_taken(new)  # a standby takes over, and writes
        new.append(entries(4, 2))
        with pytest.raises(StoreError, match="did not take"):  # its connection was cut
            old.append(entries(4, 1))
        with pytest.raises(LeaseLostError, match="took over"):  # and the lease is gone
            old.append(entries(4, 1))
        new.close()  # the new writer stops too: the lease is free again, but the log moved
        with pytest.raises(LeaseLostError, match="wrote to this table's log"):
            old.append(entries(4, 1))
        reader = open_store(url)
        assert [e.seq for e in reader.read()] == [1, 2, 3, 4, 5]  # nothing doubled or lost
        reader.close()
    finally:
        old.close()
        new.close()


def test_a_writer_keeps_its_lease_through_a_database_restart(
        pg_server: PostgresServer) -> None:
    url = with_schema(pg_server.create_database(), "final")
    store = open_store(url)
    try:
        assert store.take_lease()
        store.append(entries(1, 3))
        terminate(url, backend_of(store))  # as a server restart does to every session
        with pytest.raises(StoreError, match="did not take"):  # this connection was cut
            store.append(entries(4, 1))
        store.append(entries(4, 1))  # reconnected, the lease taken again
        assert store.last_seq == 4
        rival = open_store(url)
        assert not rival.take_lease()
        rival.close()
    finally:
        store.close()


def test_a_schema_needs_postgresql_and_a_plain_name() -> None:
    with pytest.raises(ConfigError, match=r"database\.schema"):
        parse_config({"database": {"url": "sqlite:///x.db", "schema": "table_1"}})
    with pytest.raises(ConfigError, match="not a schema name"):
        parse_config({"database": {"url": "postgresql://db/f", "schema": "Table 1;"}})
    config = parse_config({"database": {"url": "postgresql://db/f", "schema": "table_1"}})
    assert schema_of(config.database_url) == "table_1"


def show_config(tmp: Path, url: str) -> Path:
    path = tmp / "feltcast.toml"
    path.write_text(f'''
[table]
name = "Feature Table 1"
seats = 9
button = 1

[[players]]
seat = 1
name = "Ashton"
stack = 50000

[[players]]
seat = 4
name = "Tong"
stack = 50000

[[players]]
seat = 7
name = "Rast"
stack = 50000

[delay]
seconds = 30

[database]
url = "{url}"
schema = "table_1"
''')
    return path


def serve(tmp: Path, *extra: str) -> Running:
    return Running(subprocess.Popen(
        [sys.executable, "-m", "overlay", "serve", "--config", "feltcast.toml", "--data",
         "data", "--port", "0", *extra], cwd=tmp, text=True, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"}))


def end(*services: Running | None) -> None:
    """Kill what still runs of ``services`` and close their output."""
    for running in services:
        if running is not None and running.process.poll() is None:
            running.process.kill()
            running.process.wait()
        if running is not None and running.process.stdout is not None:
            running.process.stdout.close()


def operator_state(base: str, token: str) -> dict[str, Any]:
    status, body = get(f"{base}/api/state?channel=operator", token)
    assert status == 200
    view: dict[str, Any] = json.loads(body)["view"]
    return {"hand": view["table"]["hand_number"], "street": view["table"]["street"],
            "pot": view["table"].get("pot"),
            "stacks": [(s["seat"], s.get("stack")) for s in view["seats"] if s.get("name")],
            "to_act": (view["operator"].get("legal") or {}).get("seat")}


def test_a_standby_takes_over_a_killed_writer_mid_hand(tmp_path: Path,
                                                        pg_server: PostgresServer) -> None:
    show_config(tmp_path, pg_server.create_database())
    writer = serve(tmp_path)
    standby = None
    try:
        base = re.search(r"on (http://\S+) ", writer.until(r"serving '")).group(1)  # type: ignore[union-attr]
        token = writer.until(r"^  operator  ").split()[-1]
        standby = serve(tmp_path, "--standby")
        standby.until("standing by: another service writes this table's log")
        refused = subprocess.run(
            [sys.executable, "-m", "overlay", "serve", "--config", "feltcast.toml", "--data",
             "data", "--port", "0"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert refused.returncode == 2
        assert "another Feltcast service writes this table's log" in refused.stderr
        # Mid-hand on the writer: blinds posted, hole cards dealt, a raise and a call.
        post_command(base, token, "next_hand")
        for seat, cards in ((1, ["Ah", "As"]), (4, ["Kd", "Kc"]), (7, ["7s", "2d"])):
            post_command(base, token, "deal_cards", seat=seat, cards=cards)
        seat = operator_state(base, token)["to_act"]
        post_command(base, token, "raise_to", seat=seat, amount=300)
        body = {"id": "the-last-call", "type": "call",
                "seat": operator_state(base, token)["to_act"]}
        request = urllib.request.Request(f"{base}/api/commands", data=json.dumps(body).encode(),
                                         headers={"Authorization": f"Bearer {token}",
                                                  "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            first_answer = json.loads(response.read())
        before = operator_state(base, token)
        writer.process.kill()  # kill -9, in the middle of the hand
        writer.process.wait(timeout=60)
        standby.until("took over this table's log")
        taken = re.search(r"on (http://\S+) ",  # type: ignore[union-attr]
                          standby.until(r"serving '")).group(1)
        assert operator_state(taken, token) == before  # every acknowledged command is there
        with urllib.request.urlopen(urllib.request.Request(
                f"{taken}/api/commands", data=json.dumps(body).encode(),
                headers={"Authorization": f"Bearer {token}",
                         "Content-Type": "application/json"}), timeout=30) as response:
            again = json.loads(response.read())
        # A retry gets the first answer (the operator channel's revision now beside it).
        assert {**again, "revision": None} == {**first_answer, "revision": None}
        assert operator_state(taken, token) == before  # ... and it was applied once
        post_command(taken, token, "fold", seat=operator_state(taken, token)["to_act"])
        verified = subprocess.run(
            [sys.executable, "-m", "overlay", "log", "verify", "--config", "feltcast.toml",
             "--data-dir", "data"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert verified.returncode == 0, verified.stdout + verified.stderr
    finally:
        end(writer, standby)


def send(base: str, token: str, kind: str, **fields: Any) -> tuple[int, dict[str, Any]]:
    """A command; its HTTP status and JSON answer (errors included)."""
    import urllib.error

    request = urllib.request.Request(
        f"{base}/api/commands", data=json.dumps({"id": f"{kind}-{time.monotonic_ns()}",
                                                 "type": kind, **fields}).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())
    except OSError as error:
        return 0, {"error": {"code": repr(error)}}


def test_a_writer_that_lost_its_lease_stops_by_itself(tmp_path: Path,
                                                      pg_server: PostgresServer) -> None:
    database = pg_server.create_database()
    show_config(tmp_path, database)
    writer = serve(tmp_path)
    standby = None
    try:
        base = re.search(r"on (http://\S+) ", writer.until(r"serving '")).group(1)  # type: ignore[union-attr]
        token = writer.until(r"^  operator  ").split()[-1]
        assert send(base, token, "next_hand")[0] == 200
        standby = serve(tmp_path, "--standby")
        standby.until("standing by")
        # The writer's sessions are cut (a network cut between it and the database): the
        # standby takes the lease over while the writer still runs.
        url = with_schema(database, "table_1")
        engine = create_db_engine(url)
        with engine.connect() as conn:
            conn.exec_driver_sql(
                "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' "
                "AND granted")
            conn.commit()
        engine.dispose()
        standby.until("took over this table's log")
        statuses: list[tuple[int, str]] = []
        while (503, "lease_lost") not in statuses and len(statuses) < 10:
            status, answer = send(base, token, "tag_hand", note="cooler")
            statuses.append((status, answer["error"]["code"] if status != 200 else "ok"))
        # Refused (the first on the cut connection), never written: then it stops itself.
        assert statuses[-1] == (503, "lease_lost"), statuses
        assert all(status == 503 for status, _ in statuses), statuses
        assert writer.process.wait(timeout=60) == 3
        writer.until("Feltcast stops: another service took over writing this table's log")
    finally:
        end(writer, standby)


def feature_table(url: str, tmp_path: Path) -> Any:
    """Three players at a feature table whose log is schema ``table_1`` of PostgreSQL ``url``."""
    return parse_config({
        "table": {"name": "Feature", "seats": 9, "button": 1},
        "players": [{"seat": 1, "name": "Ashton", "stack": 50_000},
                    {"seat": 4, "name": "Tong", "stack": 50_000},
                    {"seat": 7, "name": "Rast", "stack": 50_000}],
        "delay": {"seconds": 30},
        "database": {"url": url, "schema": "table_1"},
        "data_dir": str(tmp_path / "data")})


async def test_a_postgresql_restart_mid_hand_loses_nothing(aiohttp_client: Any,
                                                           tmp_path: Path) -> None:
    """The database restarted (every session cut) in the middle of a hand: commands sent
    meanwhile are refused (503, sent again by the console), every acknowledged one is in the
    log, the hand goes on, and the service still holds its table's lease."""
    from overlay.app import create_app
    from overlay.keys import STORE_KEY, TABLE_KEY, TOKENS_KEY

    with PostgresServer() as server:
        url = server.create_database()
        client = await aiohttp_client(create_app(feature_table(url, tmp_path)))
        app = client.server.app
        headers = {"Authorization": f"Bearer {app[TOKENS_KEY].tokens.operator}"}
        acknowledged: list[str] = []

        async def send(kind: str, **fields: Any) -> int:
            command_id = f"{kind}-{len(acknowledged)}-{time.monotonic_ns()}"
            response = await client.post("/api/commands", headers=headers, json={
                "id": command_id, "type": kind, **fields})
            if response.status == 200:
                acknowledged.append(command_id)
            else:
                assert response.status == 503, await response.text()  # never a 5xx else
            return response.status

        assert await send("next_hand") == 200
        assert await send("deal_cards", seat=1, cards=["Ah", "As"]) == 200
        await asyncio.to_thread(server.restart)  # mid-hand: every session cut
        statuses = []
        for seat, cards in ((4, ["Kd", "Kc"]), (7, ["7s", "2d"])):
            while (status := await send("deal_cards", seat=seat, cards=cards)) != 200:
                statuses.append(status)  # the console sends it again
        hand = app[TABLE_KEY].table.hand
        assert hand is not None and all(hand.hole_cards(s) for s in (1, 4, 7))
        legal = hand.legal_actions()
        assert legal is not None
        assert await send("fold", seat=legal.seat) == 200
        store = app[STORE_KEY]
        entries = list(store.iter_all())
        assert [e.seq for e in entries] == list(range(1, len(entries) + 1))
        for command_id in acknowledged:
            assert store.answer(command_id) is not None
        rival = open_store(with_schema(url, "table_1"))
        assert not rival.take_lease()  # it kept its table
        rival.close()
        assert statuses == [503], statuses  # the first, on the cut connection; never again


async def test_a_database_down_longer_than_a_command_refuses_until_the_table_is_rebuilt(
        aiohttp_client: Any, tmp_path: Path) -> None:
    """PostgreSQL down (not just restarted) in the middle of a hand: a write fails and so
    does reading the log to rebuild the table. Commands are refused with a 503 (never
    a 500) while it is down; once it is back the table is rebuilt from the log and the hand
    goes on where the log has it. (Before, the table was left reset: every later command of
    that hand was refused, 'no hand is running'.)"""
    from engine.production_events import HandTagged
    from overlay.app import create_app
    from overlay.keys import TABLE_KEY, TOKENS_KEY

    with PostgresServer() as server:
        client = await aiohttp_client(create_app(feature_table(server.create_database(),
                                                               tmp_path)))
        app = client.server.app
        headers = {"Authorization": f"Bearer {app[TOKENS_KEY].tokens.operator}"}

        async def send(kind: str, **fields: Any) -> tuple[int, dict[str, Any]]:
            response = await client.post("/api/commands", headers=headers, json={
                "id": f"{kind}-{time.monotonic_ns()}", "type": kind, **fields})
            return response.status, await response.json()

        assert (await send("next_hand"))[0] == 200
        assert (await send("deal_cards", seat=1, cards=["Ah", "As"]))[0] == 200
        await asyncio.to_thread(server.down)
        try:
            # Something logged outside a command meanwhile (a device's report, an upload):
            # its write fails, and so does reading the log to rebuild the table.
            with pytest.raises(StoreError):
                await app[TABLE_KEY].append_events([HandTagged(1, "while down")],
                                                   source="operator")
            for _ in range(3):  # each command refused, 503: sent again by the console
                status, answer = await send("deal_cards", seat=4, cards=["Kd", "Kc"])
                assert status == 503, answer
                assert answer["error"]["code"] in ("store_error", "store_unreachable"), answer
        finally:
            await asyncio.to_thread(server.up)
        # Back: the append connection cut by the stop fails once (503), as after a restart;
        # the console sends it again.
        status, answer = await send("deal_cards", seat=4, cards=["Kd", "Kc"])
        if status == 503:
            status, answer = await send("deal_cards", seat=4, cards=["Kd", "Kc"])
        assert status == 200, answer
        hand = app[TABLE_KEY].table.hand
        assert hand is not None and hand.hole_cards(1) is not None  # as the log has it
        assert (await send("deal_cards", seat=7, cards=["7s", "2d"]))[0] == 200
        assert all(hand.hole_cards(s) for s in (1, 4, 7))


async def test_a_standby_waits_through_a_database_restart(
        caplog: pytest.LogCaptureFixture) -> None:
    """A standby asking for the lease while PostgreSQL is down (restarted) waits on and
    takes over once it is back, instead of dying with the connection's error."""
    from overlay.app import take_lease

    with PostgresServer() as server:
        url = with_schema(server.create_database(), "table_1")
        writer, standby = open_store(url), open_store(url)
        try:
            assert writer.take_lease()
            writer.append(entries(1, 3))
            caplog.set_level("WARNING", logger="overlay.app")
            waiting = asyncio.create_task(take_lease(standby, standby=True))

            async def logged(text: str) -> None:
                deadline = time.monotonic() + 60
                while text not in caplog.text:
                    assert not waiting.done(), waiting
                    assert time.monotonic() < deadline, caplog.text
                    await asyncio.sleep(0.05)
            await logged("standing by: another service writes")
            await asyncio.to_thread(server._pg_ctl, "stop", "-m", "immediate")
            await logged("standing by: the database cannot be reached")
            await asyncio.to_thread(server._pg_ctl, "start")
            await asyncio.wait_for(waiting, 60)  # the writer's session died with the server
            assert standby.last_seq == 3
            with pytest.raises(StoreError, match="did not take"):  # its connection was cut
                writer.append(entries(4, 1))
            with pytest.raises(LeaseLostError, match="took over"):  # and it never writes
                writer.append(entries(4, 1))
        finally:
            writer.close()
            standby.close()
