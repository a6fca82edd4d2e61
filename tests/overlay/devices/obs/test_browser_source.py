"""The Browser-source path of setup and of the delay guard, against a scripted v5 peer.

Debian's OBS has no obs-browser (see tests/overlay/devices/obs/test_setup.py for everything
the real OBS can show); :mod:`tests.overlay.devices.obs.scripted_obs` speaks the same
protocol with a Browser source.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from overlay.devices.obs.client import ObsClient
from overlay.devices.obs.delay_guard import check_obs, secure_browser_sources
from overlay.devices.obs.errors import DelayViolationError, ObsError
from overlay.devices.obs.settings import ObsSettings
from overlay.devices.obs.setup import TRANSPARENT_CSS, StandIn, setup_final_table, stand_in_names
from tests.overlay.devices.obs.scripted_obs import ScriptedObs


@pytest.fixture
async def scripted(aiohttp_server: Any) -> AsyncIterator[tuple[ScriptedObs, ObsClient]]:
    peer = ScriptedObs()
    server = await aiohttp_server(peer.app(), host="127.0.0.1")
    settings = ObsSettings(port=server.port, password=peer.password, connect_timeout=2,
                           request_timeout=2)
    async with ObsClient(settings) as client:
        await client.wait_connected(5)
        yield peer, client


async def test_setup_builds_one_transparent_full_hd_browser_source_for_three_scenes(
        scripted: tuple[ScriptedObs, ObsClient]) -> None:
    peer, client = scripted
    settings = client.settings.replace(base_url="http://10.1.1.4:8080", overlay_channel="venue")
    report = await setup_final_table(client, settings)

    overlay = peer.inputs[settings.overlay_source]
    assert overlay.kind == "browser_source"
    assert overlay.settings["url"] == "http://10.1.1.4:8080/overlay?channel=venue"
    assert (overlay.settings["width"], overlay.settings["height"]) == (1920, 1080)
    assert overlay.settings["css"] == TRANSPARENT_CSS
    assert "rgba(0, 0, 0, 0)" in TRANSPARENT_CSS
    assert overlay.settings["shutdown"] is False  # keeps running off program: no reload gap
    for scene in settings.scenes:
        assert [item["sourceName"] for item in peer.scenes[scene]] == [settings.overlay_source]
    assert not any(name in peer.inputs for name in stand_in_names(settings))
    assert report.notes == ()

    again = await setup_final_table(client, settings)
    assert not again.changed

    moved = await setup_final_table(client, settings.replace(overlay_channel="delayed"))
    assert moved.updated == (f"source {settings.overlay_source!r}",)
    assert peer.inputs[settings.overlay_source].settings["url"].endswith("channel=delayed")
    assert all(len(peer.scenes[scene]) == 1 for scene in settings.scenes)


@pytest.mark.parametrize(("canvas", "vertical"), [((3840, 2160), False), ((1280, 720), False),
                                                ((1080, 1920), True)])
async def test_the_browser_source_takes_the_canvas_size(
        scripted: tuple[ScriptedObs, ObsClient], canvas: tuple[int, int],
        vertical: bool) -> None:
    """Issue 19: the pages scale their stage to any source, so the source is made at the
    canvas's own size (sharp, not a 1920x1080 picture scaled), and brought to it later."""
    peer, client = scripted
    peer.canvas = canvas
    report = await setup_final_table(client, client.settings)
    overlay = peer.inputs[client.settings.overlay_source]
    assert (overlay.settings["width"], overlay.settings["height"]) == canvas
    note = f"OBS's canvas is {canvas[0]}x{canvas[1]}: the overlay source is " \
           f"{canvas[0]}x{canvas[1]} too"
    assert any(line.startswith(note) for line in report.notes), report.notes
    assert any("vertical layout" in line for line in report.notes) == vertical
    peer.canvas = (1920, 1080)
    again = await setup_final_table(client, client.settings)
    assert again.updated == (f"source {client.settings.overlay_source!r}",)
    assert (peer.inputs[client.settings.overlay_source].settings["width"],
            peer.inputs[client.settings.overlay_source].settings["height"]) == (1920, 1080)


async def test_a_browser_source_replaces_nothing_and_points_at_old_stand_ins(
        scripted: tuple[ScriptedObs, ObsClient]) -> None:
    peer, client = scripted
    settings = client.settings
    text_name, _ = stand_in_names(settings)
    peer.add_input("Scene", text_name, "text_ft2_source_v2", {"text": "old stand-in"})
    report = await setup_final_table(client, settings, stand_in=StandIn())
    assert peer.inputs[settings.overlay_source].kind == "browser_source"
    assert peer.inputs[text_name].settings == {"text": "old stand-in"}
    assert any(repr(text_name) in note and "delete" in note for note in report.notes)


async def test_a_source_of_another_kind_under_the_overlays_name_stops_the_setup(
        scripted: tuple[ScriptedObs, ObsClient]) -> None:
    peer, client = scripted
    peer.add_input("Scene", client.settings.overlay_source, "image_source", {})
    with pytest.raises(ObsError, match="is wanted as a browser_source source but is a "
                                       "image_source"):
        await setup_final_table(client, client.settings)
    assert list(peer.scenes) == ["Scene"]


async def test_the_guard_finds_a_browser_source_a_producer_pointed_at_secure(
        scripted: tuple[ScriptedObs, ObsClient]) -> None:
    peer, client = scripted
    peer.add_input("Scene", "Producer Browser", "browser_source",
                   {"url": "http://127.0.0.1:8080/overlay?channel=secure&token=t"})
    peer.add_input("Scene", "Sponsor Browser", "browser_source",
                   {"url": "http://127.0.0.1:8080/sponsor"})
    assert await secure_browser_sources(client) == ("Producer Browser",)
    settings = client.settings.replace(overlay_channel="delayed", security_delay_seconds=600)
    with pytest.raises(DelayViolationError,
                       match="'Producer Browser' reads a live channel with hole cards"):
        await check_obs(client, settings)
    peer.profile |= {"DelayEnable": "true", "DelaySec": "600"}
    delay = await check_obs(client, settings)
    assert delay is not None and delay.seconds == 600
