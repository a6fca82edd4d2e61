"""overlay/channel_views.py builds the view reducers the service's hubs use: for the same log,
the running service's channels (overlay/app.py) and :func:`view_reducers` draw the same views,
so what the leak test (tests/overlay/test_leak.py) and ``feltcast log show --view`` check is what
the pages get."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient

from engine.channels import due_items
from overlay.app import channel_specs, create_app
from overlay.channel_views import view_reducers
from overlay.config import parse_config
from overlay.keys import HUBS_KEY, STORE_KEY, TABLE_KEY, TOKENS_KEY
from tests.engine.viewkit import shape_errors

NOW = 1_764_500_000.0


async def command(client: TestClient, kind: str, **fields: Any) -> None:
    token = client.server.app[TOKENS_KEY].tokens.operator
    response = await client.post("/api/commands", json={"id": str(uuid.uuid4()), "type": kind,
                                                        **fields},
                                 headers={"Authorization": f"Bearer {token}"})
    assert response.status == 200, await response.text()


async def test_the_service_hubs_draw_what_view_reducers_draw(aiohttp_client: Any,
                                                             tmp_path: Path) -> None:
    config = parse_config({
        "table": {"name": "Main Event Final Table", "seats": 9, "button": 1},
        "players": [{"seat": 1, "name": "Ashton", "stack": 5000},
                    {"seat": 4, "name": "Tong", "stack": 3000},
                    {"seat": 7, "name": "Rast", "stack": 8000}],
        "tournament": {"entrants": 9, "prize_pool": 90_000, "currency": "EUR"},
        "channels": {"secure": {"enabled": True}, "reveal": {"enabled": True},
                     "backstage": {"filter": "public", "delay": 0}},
        "delay": {"seconds": 0},
        "data_dir": str(tmp_path / "data"),
    })
    client = await aiohttp_client(create_app(config, clock=lambda: NOW))
    app = client.server.app
    await command(client, "next_hand")
    hand = app[TABLE_KEY].hand
    assert hand is not None
    cards = iter(["Ah", "As", "Kd", "Kc", "7s", "2d"])
    for seat in hand.seats:
        await command(client, "deal_cards", seat=seat, cards=[next(cards), next(cards)])
    first = hand.legal_actions()
    assert first is not None
    await command(client, "all_in", seat=first.seat)  # the others call: an all-in showdown
    while (legal := hand.legal_actions()) is not None:
        await command(client, "call", seat=legal.seat)
    for board in (["Qd", "9c", "3h"], ["5s"], ["Jh"]):
        await command(client, "deal_board", cards=board)
        while (legal := hand.legal_actions()) is not None:
            await command(client, "check", seat=legal.seat)
    assert hand.is_over
    entries = list(app[STORE_KEY].iter_all())
    specs = {name: spec for name, spec in channel_specs(config).items() if spec.enabled}
    hubs = app[HUBS_KEY]
    assert set(hubs) == set(specs) >= {"venue", "delayed", "secure", "reveal", "operator",
                                       "backstage"}
    reducers = view_reducers(config, specs.values())
    for name, spec in specs.items():
        reducer = reducers[name]
        state = reducer.initial()
        for item in due_items(spec, entries, NOW):
            state = reducer.apply(state, item)
        view = hubs[name].snapshot_message().data["view"]
        assert view == reducer.snapshot(state), name
        assert shape_errors(view, operator=name == "operator") == []
        assert view["table"]["name"] == "Main Event Final Table"
        assert view["tournament"]["payouts"] is not None
