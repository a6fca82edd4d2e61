"""The broadcast's commands through the real HTTP stack (issue 20): hide graphics, tag the
hand, the demo's automatic operator (``engine.production_events``, docs/commands.md).

What each channel carries is read as a page reads it (``/api/state``); the exports read the
log as ``feltcast export`` does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient

from overlay.app import create_app
from overlay.export.hands import read_hands
from overlay.export.ohh import ohh_object
from overlay.export.phh import phh_text
from overlay.keys import HUBS_KEY, STORE_KEY, TABLE_KEY, TOKENS_KEY

from .test_service import command, config_for, operator

CARDS = (["Ah", "As"], ["Kd", "Kc"], ["7s", "2d"])
NOTE = "Ashton's aces vs Tong's kings"
"""A note that names hole cards: it must reach no audience channel."""


async def view_of(client: TestClient, channel: str) -> dict[str, Any]:
    response = await client.get(f"/api/state?channel={channel}", headers=operator(client))
    assert response.status == 200
    view: dict[str, Any] = (await response.json())["view"]
    return view


async def start_hand(client: TestClient) -> None:
    status, reply = await command(client, "next_hand")
    assert status == 200, reply
    hand = client.server.app[TABLE_KEY].hand
    assert hand is not None
    for seat, cards in zip(hand.seats, CARDS, strict=True):
        status, reply = await command(client, "deal_cards", seat=seat, cards=cards)
        assert status == 200, reply


async def play_out(client: TestClient) -> None:
    """Everyone folds to the last player: the hand ends."""
    hand = client.server.app[TABLE_KEY].hand
    assert hand is not None
    while (legal := hand.legal_actions()) is not None:
        status, reply = await command(client, "check" if legal.can_check else "fold",
                                      seat=legal.seat)
        assert status == 200, reply
    assert hand.is_over


async def test_hide_and_show_graphics_reach_every_channel(aiohttp_client: Any,
                                                          tmp_path: Path) -> None:
    config = config_for(tmp_path, secure={"enabled": True})
    client = await aiohttp_client(create_app(config))
    for channel in ("venue", "secure", "operator", "delayed"):
        assert (await view_of(client, channel))["graphics"] == {"hidden": False}
    status, reply = await command(client, "hide_graphics")
    assert status == 200 and reply["ok"], reply
    for channel in ("venue", "secure", "operator"):  # the live ones at once
        assert (await view_of(client, channel))["graphics"] == {"hidden": True}
    # The delayed channel shows it with the pictures, 30 s later (docs/channels.md).
    assert (await view_of(client, "delayed"))["graphics"] == {"hidden": False}
    status, reply = await command(client, "hide_graphics")
    assert status == 409 and reply["error"]["code"] == "illegal_action"
    assert reply["error"]["message"] == "the graphics are already off air"
    status, reply = await command(client, "show_graphics")
    assert status == 200
    assert (await view_of(client, "venue"))["graphics"] == {"hidden": False}
    status, reply = await command(client, "show_graphics")
    assert status == 409 and reply["error"]["message"] == "the graphics are already on air"
    # Kept across a restart (the log, or a checkpoint and its tail).
    await command(client, "hide_graphics")
    await client.close()
    again = await aiohttp_client(create_app(config, tokens=client.server.app[TOKENS_KEY].tokens))
    assert (await view_of(again, "venue"))["graphics"] == {"hidden": True}
    status, reply = await command(again, "hide_graphics")
    assert status == 409, reply


async def test_graphics_and_tags_make_no_command_stale(aiohttp_client: Any,
                                                       tmp_path: Path) -> None:
    """A second device hiding the graphics or tagging the hand changes no decision: a fold
    built on the view from before is applied (only table changes make a command stale)."""
    client = await aiohttp_client(create_app(config_for(tmp_path)))
    await start_hand(client)
    seen = client.server.app[HUBS_KEY]["operator"].revision
    assert (await command(client, "hide_graphics"))[0] == 200
    assert (await command(client, "tag_hand", note="cooler"))[0] == 200
    legal = client.server.app[TABLE_KEY].hand.legal_actions()
    status, reply = await command(client, "fold", seat=legal.seat, revision=seen)
    assert status == 200, reply


async def test_a_tag_marks_the_hand_for_the_editors_and_no_audience(
        aiohttp_client: Any, tmp_path: Path) -> None:
    config = config_for(tmp_path, secure={"enabled": True})
    client = await aiohttp_client(create_app(config))
    status, reply = await command(client, "tag_hand", note="too early")
    assert status == 409 and "no hand to tag yet" in reply["error"]["message"]
    await start_hand(client)
    status, reply = await command(client, "tag_hand", note=f"  {NOTE}\n ")
    assert status == 200, reply
    operator_view = await view_of(client, "operator")
    assert operator_view["operator"]["tags"] == [NOTE]  # trimmed to one line
    await play_out(client)
    status, reply = await command(client, "tag_hand", note="", hand=1)  # after it ended
    assert status == 200, reply
    assert (await view_of(client, "operator"))["operator"]["tags"] == [NOTE, ""]
    status, reply = await command(client, "tag_hand", note="x" * 201)
    assert status == 422 and "at most 200 characters" in reply["error"]["message"]
    await start_hand(client)
    status, reply = await command(client, "tag_hand", note="late", hand=1)
    assert status == 409 and "hand 2 has started since" in reply["error"]["message"]
    status, reply = await command(client, "tag_hand", note="late", hand="1")
    assert status == 422 and "'hand' must be a hand number" in reply["error"]["message"]
    assert (await view_of(client, "operator"))["operator"]["tags"] == []  # hand 2 has none
    # No audience channel carries a tag, its note or its moment, live or delayed.
    for channel in ("venue", "secure", "delayed"):
        text = json.dumps(await view_of(client, channel))
        assert "aces vs" not in text and "tags" not in text, channel
    # The exports read it from the log: PHH, OHH and (tests/export) the clip list.
    records = list(read_hands(client.server.app[STORE_KEY].iter_all()))
    assert [(r.number, r.tags) for r in records] == [(1, (NOTE, "")), (2, ())]
    assert f'_tags = ["{NOTE}", ""]' in phh_text(records[0])
    flags = ohh_object(records[0])["ohh"]["flags"]
    assert flags == [f"feltcast_tag={NOTE}", "feltcast_tag="]


async def test_the_automatic_operator_is_paused_and_resumed(aiohttp_client: Any,
                                                            tmp_path: Path) -> None:
    config = config_for(tmp_path, secure={"enabled": True})
    client = await aiohttp_client(create_app(config))
    assert (await view_of(client, "operator"))["operator"]["auto_operator"] is None
    status, reply = await command(client, "pause_auto_operator")
    assert status == 409 and "no automatic operator plays this table" in \
        reply["error"]["message"]
    status, reply = await command(client, "resume_auto_operator")  # the demo announces it
    assert status == 200, reply
    assert (await view_of(client, "operator"))["operator"]["auto_operator"] == "playing"
    assert (await command(client, "pause_auto_operator"))[0] == 200
    assert (await view_of(client, "operator"))["operator"]["auto_operator"] == "paused"
    status, reply = await command(client, "pause_auto_operator")
    assert status == 409 and reply["error"]["message"] == \
        "the automatic operator is already paused"
    for channel in ("venue", "secure", "delayed"):  # the operator's business only
        assert "auto_operator" not in json.dumps(await view_of(client, channel))
    await client.close()
    again = await aiohttp_client(create_app(config, tokens=client.server.app[TOKENS_KEY].tokens))
    assert (await view_of(again, "operator"))["operator"]["auto_operator"] == "paused"
