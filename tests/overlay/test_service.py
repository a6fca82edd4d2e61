"""The service through its real HTTP and websocket stack (aiohttp test server on 127.0.0.1)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from overlay.app import create_app
from overlay.config import parse_config
from overlay.hub import apply_merge_patch
from overlay.keys import HUBS_KEY, STORE_KEY, TABLE_KEY, TOKENS_KEY

PLAYERS = [{"seat": 1, "name": "Ashton", "stack": 5000},
           {"seat": 4, "name": "Tong", "stack": 5000},
           {"seat": 7, "name": "Rast", "stack": 5000}]


class FakeClock:
    """Wall-clock seconds the test moves by hand (the delayed channel's timer uses the loop's
    own clock, so tests that need a release wait for real, briefly)."""

    def __init__(self) -> None:
        self.now = 1_764_500_000.0

    def __call__(self) -> float:
        return self.now


def config_for(tmp_path: Path, **channels: Any) -> Any:
    return parse_config({
        "table": {"name": "Test Final", "seats": 9, "button": 1},
        "players": PLAYERS,
        "delay": {"seconds": 30},
        "channels": channels,
        "data_dir": str(tmp_path / "data"),
    })


@pytest.fixture
async def client(aiohttp_client: Any, tmp_path: Path) -> TestClient:
    app = create_app(config_for(tmp_path, secure={"enabled": True}))
    return await aiohttp_client(app)


def operator(client: TestClient) -> dict[str, str]:
    return {"Authorization": f"Bearer {client.server.app[TOKENS_KEY].tokens.operator}"}


async def command(client: TestClient, kind: str, **fields: Any) -> Any:
    body = {"id": str(uuid.uuid4()), "type": kind, **fields}
    response = await client.post("/api/commands", json=body, headers=operator(client))
    return response.status, await response.json()


async def test_pages_and_state_are_served(client: TestClient) -> None:
    for page in ("overlay", "commentary", "operator"):
        response = await client.get(f"/{page}")
        assert response.status == 200
        text = await response.text()
        assert 'content="dev"' not in text  # the asset version is stamped in
        assert "default-src 'self'" in response.headers["Content-Security-Policy"]
    state = await (await client.get("/api/state?channel=venue")).json()
    names = [seat["name"] for seat in state["view"]["seats"] if seat["name"]]
    assert names == ["Ashton", "Tong", "Rast"]


async def test_commands_need_the_operator_token(client: TestClient) -> None:
    body = {"id": str(uuid.uuid4()), "type": "next_hand"}
    response = await client.post("/api/commands", json=body)
    assert response.status == 401
    assert (await response.json())["error"]["code"] == "unauthorized"
    response = await client.post("/api/commands", json=body,
                                 headers={"Authorization": "Bearer wrong"})
    assert response.status == 401
    response = await client.post("/api/commands", json=body, headers={
        **operator(client), "Origin": "http://evil.example"})
    assert response.status == 403


async def test_channels_need_tokens_where_configured(client: TestClient) -> None:
    assert (await client.get("/api/state?channel=secure")).status == 401
    response = await client.get("/api/state?channel=secure",
                                headers={"Authorization": "Bearer nope"})
    assert response.status == 403
    secure = client.server.app[TOKENS_KEY].tokens.secure
    response = await client.get("/api/state?channel=secure",
                                headers={"Authorization": f"Bearer {secure}"})
    assert response.status == 200
    assert (await client.get("/api/state?channel=reveal")).status == 404
    assert (await client.get("/api/state?channel=nope")).status == 404
    ws_fail = await client.get(f"/ws/secure?token={secure}x")
    assert ws_fail.status == 403


async def test_a_hand_by_commands_and_what_each_channel_shows(client: TestClient) -> None:
    status, reply = await command(client, "next_hand")
    assert status == 200 and reply["ok"]
    hand = client.server.app[TABLE_KEY].hand
    assert hand is not None
    cards = iter(["Ah", "As", "Kd", "Kc", "7s", "2d"])
    for seat in hand.seats:
        status, reply = await command(client, "deal_cards", seat=seat,
                                      cards=[next(cards), next(cards)])
        assert status == 200, reply
    # An illegal action: the engine's message, nothing changes.
    legal = hand.legal_actions()
    assert legal is not None
    wrong = next(s for s in hand.seats if s != legal.seat)
    status, reply = await command(client, "fold", seat=wrong)
    assert status == 409
    assert reply["error"]["code"] == "illegal_action"
    assert "R9" in reply["error"]["message"] or reply["error"].get("rule") == "R9"
    # A raise, then everyone calls.
    status, reply = await command(client, "raise_to", seat=legal.seat, amount=150)
    assert status == 200, reply
    venue = (await (await client.get("/api/state?channel=venue")).json())["view"]
    secure_token = client.server.app[TOKENS_KEY].tokens.secure
    secure = (await (await client.get(
        "/api/state?channel=secure",
        headers={"Authorization": f"Bearer {secure_token}"})).json())["view"]
    assert all(card is None for seat in venue["seats"] for card in seat["cards"])
    assert all(seat["equity"] is None for seat in venue["seats"])
    known = [seat for seat in secure["seats"] if seat["cards"] and None not in seat["cards"]]
    assert len(known) == 3
    assert abs(sum(seat["equity"]["equity"] for seat in known) - 1) < 1e-3
    # The delayed channel (D = 30 s) has shown nothing of this hand yet.
    delayed = (await (await client.get("/api/state?channel=delayed")).json())["view"]
    assert delayed["table"]["hand_number"] in (None, 0)


async def test_a_short_raise_is_answered_with_the_r8_ruling_to_apply(
        client: TestClient) -> None:
    """R8 in the error: ``legal`` is a JSON list of the actions with their amounts and
    ``ruling`` carries the command that applies it, which the console sends as it is."""
    await command(client, "next_hand")
    hand = client.server.app[TABLE_KEY].hand
    assert hand is not None
    for seat, cards in zip(hand.seats, (["Ah", "As"], ["Kd", "Kc"], ["7s", "2d"]), strict=True):
        await command(client, "deal_cards", seat=seat, cards=cards)
    legal = hand.legal_actions()
    assert legal is not None and legal.min_raise_to is not None
    increment = legal.min_raise_to - legal.call_to
    status, reply = await command(client, "raise_to", seat=legal.seat,
                                  amount=legal.call_to + increment * 3 // 4)
    assert status == 409, reply
    error = reply["error"]
    assert error["code"] == "illegal_action" and error["rule"] == "R8"
    assert error["legal"] == [
        {"type": "call", "amount": legal.call_amount, "to": legal.call_to},
        {"type": "raise_to", "min": legal.min_raise_to, "max": legal.max_raise_to,
         "all_in": False},
        {"type": "fold"}]
    ruling = error["ruling"]
    assert ruling == {"text": f"raise to {legal.min_raise_to:,}", "command": {
        "type": "raise_to", "seat": legal.seat, "amount": legal.min_raise_to}}
    assert hand.legal_actions() == legal  # nothing changed
    # Less than half the increment: the ruling is a call.
    status, reply = await command(client, "raise_to", seat=legal.seat,
                                  amount=legal.call_to + increment // 4)
    assert reply["error"]["ruling"]["command"] == {"type": "call", "seat": legal.seat}
    # One tap: the ruling's command, sent as a new command, is applied.
    applied = dict(ruling["command"])
    status, reply = await command(client, applied.pop("type"), **applied)
    assert status == 200 and reply["ok"], reply
    assert hand.bets[hand.seats.index(legal.seat)] == legal.min_raise_to
    # Errors without a ruling or options say nothing of them (no "()" or "").
    status, reply = await command(client, "stop_clock")
    assert status == 409 and set(reply["error"]) == {"code", "message", "rule"}


async def test_a_command_built_on_a_changed_state_is_refused(client: TestClient) -> None:
    """Two operator devices: a command carries the operator channel's revision it saw; when
    the table changed after it, the command is refused (409), never applied to whoever is to
    act now. Device reports change no decision and refuse nothing."""
    status, reply = await command(client, "next_hand")
    service = client.server.app[TABLE_KEY]
    hand = service.hand
    assert hand is not None
    for seat, cards in zip(hand.seats, (["Ah", "As"], ["Kd", "Kc"], ["7s", "2d"]), strict=True):
        status, reply = await command(client, "deal_cards", seat=seat, cards=cards)
    seen = reply["revision"]
    first = hand.legal_actions()
    assert first is not None
    status, reply = await command(client, "call", seat=first.seat, revision=seen)  # device A
    assert status == 200, reply
    second = hand.legal_actions()
    assert second is not None and second.seat != first.seat
    # Device B still shows the old state: its fold (for the player it saw) and its undo are
    # refused, and nothing changed.
    for kind, fields in (("fold", {"seat": second.seat}), ("undo", {})):
        status, reply = await command(client, kind, revision=seen, **fields)
        assert status == 409, reply
        assert reply["error"]["code"] == "stale_command"
        assert "not applied" in reply["error"]["message"]
        assert hand.legal_actions() == second
    # A device report logs an entry but changes no decision: a view from before it is good.
    hubs = client.server.app[HUBS_KEY]
    current = hubs["operator"].revision
    service.device_report = lambda: {"capture": [{"source": "reader:x", "status": "ok"}]}
    assert await service.report_devices()
    status, reply = await command(client, "fold", seat=second.seat, revision=current)
    assert status == 200, reply
    status, reply = await command(client, "fold", seat=1, revision="41")
    assert status == 422 and "'revision'" in reply["error"]["message"]


async def test_malformed_and_repeated_commands(client: TestClient) -> None:
    response = await client.post("/api/commands", data="{not json", headers=operator(client))
    assert response.status == 422
    status, reply = await command(client, "dance")
    assert status == 422 and "unknown command type" in reply["error"]["message"]
    status, reply = await command(client, "raise_to", seat=1, amount="lots")
    assert status == 422 and "whole number" in reply["error"]["message"]
    body = {"id": str(uuid.uuid4()), "type": "next_hand"}
    first = await client.post("/api/commands", json=body, headers=operator(client))
    again = await client.post("/api/commands", json=body, headers=operator(client))
    assert first.status == again.status == 200
    assert (await first.json())["seq"] == (await again.json())["seq"]  # applied once


async def test_websocket_snapshot_then_patches(client: TestClient) -> None:
    ws = await client.ws_connect("/ws/venue")
    await ws.send_json({"type": "hello", "page": "overlay", "version": "x", "resume": None})
    snapshot = await ws.receive_json(timeout=5)
    assert snapshot["type"] == "snapshot"
    view, revision = snapshot["view"], snapshot["revision"]
    await command(client, "next_hand")
    state = await (await client.get("/api/state?channel=venue")).json()
    while revision < state["revision"]:
        message = await ws.receive_json(timeout=5)
        assert message["type"] == "patch"
        assert message["revision"] == revision + 1
        revision = message["revision"]
        view = apply_merge_patch(view, message["patch"])
    assert view["table"]["hand_number"] == 1
    assert view == state["view"]
    await ws.send_json({"type": "fold", "seat": 1})
    error = await ws.receive_json(timeout=5)
    assert error["type"] == "error" and "POST /api/commands" in error["error"]["message"]
    await ws.close()


async def test_cross_site_websocket_is_refused(client: TestClient) -> None:
    response = await client.get("/ws/venue", headers={"Origin": "http://evil.example"})
    assert response.status == 403


async def test_state_survives_a_restart(aiohttp_client: Any, tmp_path: Path) -> None:
    config = config_for(tmp_path)
    first = await aiohttp_client(create_app(config))
    await command(first, "next_hand")
    hand = first.server.app[TABLE_KEY].hand
    assert hand is not None
    for seat, cards in zip(hand.seats, (["Ah", "As"], ["Kd", "Kc"], ["7s", "2d"]), strict=True):
        await command(first, "deal_cards", seat=seat, cards=cards)
    legal = hand.legal_actions()
    assert legal is not None
    await command(first, "raise_to", seat=legal.seat, amount=200)
    before = (await (await first.get("/api/state?channel=venue")).json())["view"]
    await first.close()
    second = await aiohttp_client(create_app(config))
    after = (await (await second.get("/api/state?channel=venue")).json())["view"]
    assert after["seats"] == before["seats"]
    assert after["table"]["actions"] == before["table"]["actions"]
    replayed = second.server.app[TABLE_KEY].hand
    assert replayed is not None and replayed.legal_actions() == hand.legal_actions()


async def test_hands_lists_what_each_channel_has_released(client: TestClient) -> None:
    await command(client, "next_hand")
    hand = client.server.app[TABLE_KEY].hand
    assert hand is not None
    for seat, cards in zip(hand.seats, (["Ah", "As"], ["Kd", "Kc"], ["7s", "2d"]), strict=True):
        await command(client, "deal_cards", seat=seat, cards=cards)
    while (legal := hand.legal_actions()) is not None:  # folded round to the big blind
        status, reply = await command(client, "fold", seat=legal.seat)
        assert status == 200, reply
    await command(client, "next_hand")
    status, reply = await command(client, "misdeal")
    assert status == 200, reply
    await command(client, "next_hand")
    hands = (await (await client.get("/api/hands?channel=venue")).json())["hands"]
    assert [h["result"] for h in hands] == ["complete", "voided", "running"]
    numbers = [h["hand_number"] for h in hands]
    assert numbers[0] == 1 and numbers[1] < numbers[2]
    assert hands[0]["started"] <= hands[0]["ended"] and hands[2]["ended"] is None
    assert [h["seq"] for h in hands] == sorted(h["seq"] for h in hands)
    # The delayed channel (D = 30 s) has released none of them yet: nor does its list.
    delayed = await (await client.get("/api/hands")).json()
    assert delayed == {"channel": "delayed", "hands": []}
    # A channel behind a token stays behind it, here too.
    assert (await client.get("/api/hands?channel=secure")).status == 401
    secure_token = client.server.app[TOKENS_KEY].tokens.secure
    secure = await (await client.get("/api/hands?channel=secure", headers={
        "Authorization": f"Bearer {secure_token}"})).json()
    assert secure["hands"] == hands


async def test_device_reports_reach_the_operator_channel_only(client: TestClient) -> None:
    """The devices, alerts and connected pages are the operator's: a page that connects changes
    them, and no public, delayed or secure subscriber receives the report (at 2,000 viewers it
    was 93 % of each viewer's bytes)."""
    secure = client.server.app[TOKENS_KEY].tokens.secure
    watchers = {name: await client.ws_connect(f"/ws/{name}{query}") for name, query in (
        ("venue", ""), ("secure", f"?token={secure}"))}
    for ws in watchers.values():
        await ws.send_json({"type": "hello", "page": "overlay", "version": "x", "resume": None})
        assert (await ws.receive_json(timeout=5))["type"] == "snapshot"
    token = client.server.app[TOKENS_KEY].tokens.operator
    console = await client.ws_connect(f"/ws/operator?token={token}")
    await console.send_json({"type": "hello", "page": "operator", "version": "x",
                             "resume": None})
    view = (await console.receive_json(timeout=5))["view"]
    while len(view["operator"]["pages"]) < 3:  # the console sees every connected page
        message = await console.receive_json(timeout=5)
        if message["type"] == "patch":
            view = apply_merge_patch(view, message["patch"])
            assert any(e["kind"] == "devices_reported" for e in message["events"])
    status, _ = await command(client, "next_hand")  # a public event after the reports
    assert status == 200
    for name, ws in watchers.items():
        kinds: list[str] = []
        while "hand_started" not in kinds:
            message = await ws.receive_json(timeout=5)
            kinds += [e["kind"] for e in message.get("events", [])]
            assert "pages" not in str(message.get("patch", "")), name
        assert "devices_reported" not in kinds, name
        await ws.close()
    await console.close()
    store_kinds = [e.kind for e in client.server.app[STORE_KEY].read()]
    assert "devices_reported" in store_kinds  # logged all the same: the operator's view


async def test_a_refused_page_is_named_in_the_console_with_its_reason(
        client: TestClient) -> None:
    """An OBS source with a wrong token or a misspelt channel stays blank on air: its socket is
    refused before it opens, and the console lists it with the reason and its address."""
    assert (await client.get("/ws/secure?token=not-it&page=overlay")).status == 403
    assert (await client.get("/ws/delayd?page=lowerthird")).status == 404
    token = client.server.app[TOKENS_KEY].tokens.operator
    console = await client.ws_connect(f"/ws/operator?token={token}")
    await console.send_json({"type": "hello", "page": "operator", "version": "x",
                             "resume": None})
    view = (await console.receive_json(timeout=5))["view"]
    while len(view["operator"]["refused_pages"]) < 2:  # the next device report
        message = await console.receive_json(timeout=5)
        if message["type"] == "patch":
            view = apply_merge_patch(view, message["patch"])
    refused = {(p["page"], p["channel"]): p for p in view["operator"]["refused_pages"]}
    assert refused[("overlay", "secure")]["reason"] == (
        "that token does not open the secure channel")
    assert refused[("overlay", "secure")]["peer"] == "127.0.0.1"
    assert refused[("lowerthird", "delayd")]["reason"].startswith("there is no channel 'delayd'")
    # Opened at last (the right token): the refusal is over.
    secure = client.server.app[TOKENS_KEY].tokens.secure
    page = await client.ws_connect(f"/ws/secure?token={secure}&page=overlay")
    await page.send_json({"type": "hello", "page": "overlay", "version": "x", "resume": None})
    assert (await page.receive_json(timeout=5))["type"] == "snapshot"
    while ("overlay", "secure") in {(p["page"], p["channel"])
                                    for p in view["operator"]["refused_pages"]}:
        message = await console.receive_json(timeout=5)
        if message["type"] == "patch":
            view = apply_merge_patch(view, message["patch"])
    await page.close()
    await console.close()
