"""The look on air through the service (issue 19, docs/graphics.md, docs/http-api.md): the
Graphics panel's routes with the operator token, the pages told on their channel sockets, the
theme named in every page, a broken theme refused with the last good look kept, and the choice
kept across a restart."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from overlay.app import create_app
from overlay.assets import static_dir
from overlay.config import parse_config
from overlay.keys import TOKENS_KEY

SAMPLES = static_dir() / "samples"


def config_for(tmp_path: Path) -> Any:
    studio = tmp_path / "themes" / "studio"
    studio.mkdir(parents=True, exist_ok=True)
    if not (studio / "theme.toml").exists():
        (studio / "theme.toml").write_text('[theme]\ntitle = "Studio"\n[colors]\n'
                                           'accent = "#00a0ff"\n')
    shutil.copy(SAMPLES / "logo.svg", tmp_path / "logo.svg")
    shutil.copy(SAMPLES / "sponsor-a.svg", tmp_path / "a.svg")
    shutil.copy(SAMPLES / "sponsor-b.svg", tmp_path / "b.svg")
    return parse_config({
        "table": {"name": "Test Final", "seats": 9, "button": 1},
        "players": [{"seat": 1, "name": "Ann", "stack": 1000},
                    {"seat": 4, "name": "Bo", "stack": 1000}],
        "delay": {"seconds": 30},
        "graphics": {"theme": "./themes/studio", "logo": "logo.svg",
                     "sponsors": ["a.svg", "b.svg"]},
        "data_dir": str(tmp_path / "data"),
    }, base_dir=tmp_path)


@pytest.fixture
async def client(aiohttp_client: Any, tmp_path: Path) -> TestClient:
    return await aiohttp_client(create_app(config_for(tmp_path)))


def operator(client: TestClient) -> dict[str, str]:
    return {"Authorization": f"Bearer {client.server.app[TOKENS_KEY].tokens.operator}"}


async def panel(client: TestClient) -> dict[str, Any]:
    response = await client.get("/api/graphics", headers=operator(client))
    assert response.status == 200
    body: dict[str, Any] = await response.json()
    return body


async def linked_theme(client: TestClient, path: str) -> str:
    response = await client.get(path)
    assert response.status == 200
    html = await response.text()
    start = html.index('<link id="feltcast-theme"')
    return html[start:html.index(">", start) + 1]


async def test_the_panel_needs_the_operator_token_and_a_refused_change_changes_nothing(
        client: TestClient) -> None:
    assert (await client.get("/api/graphics")).status == 401
    response = await client.put("/api/graphics", json={"theme": "classic"})
    assert response.status == 401
    wrong = await client.put("/api/graphics", json={"theme": "classic"},
                             headers={"Authorization": "Bearer nope"})
    assert wrong.status == 401
    body = await panel(client)
    assert body["on_air"]["name"] == "studio"
    assert {t["name"] for t in body["themes"]} == {"dark", "classic", "contrast", "studio"}
    assert body["logo"]["name"] == "logo.svg"
    assert [s["name"] for s in body["sponsors"]] == ["a.svg", "b.svg"]
    for bad, status, message in (
            ({"theme": "neon"}, 422, "there is no theme 'neon'"),
            ({"sponsor_period": 0.5}, 422, "from 3 to 600"),
            (["theme"], 422, "changed with an object"),
            ({"colour": 1}, 422, "unknown graphics setting 'colour'")):
        response = await client.put("/api/graphics", json=bad, headers=operator(client))
        assert response.status == status
        assert message in (await response.json())["error"]["message"]
    broken = await client.put("/api/graphics", data=b"{not json", headers={
        **operator(client), "Content-Type": "application/json"})
    assert 400 <= broken.status < 500
    assert (await panel(client))["on_air"] == body["on_air"]


async def test_a_change_reaches_every_page_socket_at_once_and_pages_name_the_theme(
        client: TestClient) -> None:
    page = await client.ws_connect("/ws/venue?page=overlay")
    await page.send_json({"type": "hello", "page": "overlay", "version": "x", "resume": None,
                          "look": None})
    tool = await client.ws_connect("/ws/venue")  # a tool that does not follow the look
    await tool.send_json({"type": "hello", "page": "tool", "version": "x", "resume": None})
    first = [await page.receive_json(timeout=5), await page.receive_json(timeout=5)]
    assert sorted(m["type"] for m in first) == ["snapshot", "theme"]
    look = next(m["theme"] for m in first if m["type"] == "theme")
    assert look["name"] == "studio" and look["logo"].startswith("/graphics/media/")
    assert len(look["sponsors"]) == 2 and "revision" not in next(
        m for m in first if m["type"] == "theme")
    assert (await tool.receive_json(timeout=5))["type"] == "snapshot"
    assert 'data-theme="studio"' in await linked_theme(client, "/overlay")

    response = await client.put("/api/graphics", json={"theme": "classic", "logo": False},
                                headers=operator(client))
    assert response.status == 200 and (await response.json())["ok"] is True
    changed = await page.receive_json(timeout=5)
    assert changed["type"] == "theme" and changed["theme"]["name"] == "classic"
    assert changed["theme"]["logo"] is None and changed["theme"]["look"] != look["look"]
    for path in ("/overlay", "/leaderboard", "/clock", "/commentary", "/lowerthird?seat=1"):
        link = await linked_theme(client, path)
        assert 'data-theme="classic"' in link and "/graphics/theme/classic.css?v=" in link
    assert 'data-theme="contrast"' in await linked_theme(client, "/overlay?theme=contrast")
    missing = await client.get("/overlay?theme=neon")
    assert missing.status == 404 and "there is no theme 'neon'" in await missing.text()
    missing = await client.get("/overlay?layout=diagonal")
    assert missing.status == 404 and "there is no layout 'diagonal'" in await missing.text()
    assert (await client.get("/clock?safe=2")).status == 404
    pinned = await linked_theme(client, "/clock?layout=column-right&safe=1")
    assert 'data-layout="column-right"' in pinned and 'data-layout-pinned="1"' in pinned
    assert "&quot;players&quot;" in pinned  # the regions, as escaped JSON

    # The tool hears nothing of it: its next message is the table's own.
    command = await client.post("/api/commands", json={
        "id": str(uuid.uuid4()), "type": "hide_graphics"}, headers=operator(client))
    assert command.status == 200
    assert (await tool.receive_json(timeout=5))["type"] == "patch"
    # A page that says hello again with the look it shows is not told it again.
    await page.send_json({"type": "hello", "page": "overlay", "version": "x", "resume": None,
                          "look": changed["theme"]["look"]})
    assert (await page.receive_json(timeout=5))["type"] in ("patch", "snapshot")
    await page.close()
    await tool.close()


async def test_stylesheets_and_files_are_served_from_what_was_checked(
        client: TestClient) -> None:
    body = await panel(client)
    css = await client.get("/graphics/theme/classic.css")
    assert css.status == 200 and css.content_type == "text/css"
    assert "--panel: rgba(250, 251, 253, 0.97);" in await css.text()
    on_air = await client.get("/graphics/theme.css")
    assert "--accent: #00a0ff;" in await on_air.text()  # studio
    assert (await client.get("/graphics/theme/neon.css")).status == 404
    logo = await client.get(body["logo"]["url"])
    assert logo.status == 200 and logo.content_type == "image/svg+xml"
    assert "immutable" in logo.headers["Cache-Control"]
    assert "sandbox" in logo.headers["Content-Security-Policy"]
    assert await logo.read() == (SAMPLES / "logo.svg").read_bytes()
    classic = next(t for t in body["themes"] if t["name"] == "classic")
    assert classic["title"] == "Classic TV" and classic["colors"]["accent"] == "#b00d28"
    font = (await (await client.get("/graphics/theme/classic.css")).text()).split(
        'src: url("')[1].split('"')[0]
    served = await client.get(font)
    assert served.status == 200 and served.content_type == "font/ttf"
    assert (await client.get("/graphics/media/0000000000000000.png")).status == 404


async def test_a_theme_broken_on_disk_is_refused_on_reload_and_the_look_stays(
        client: TestClient, tmp_path: Path) -> None:
    before = await panel(client)
    manifest = tmp_path / "themes" / "studio" / "theme.toml"
    manifest.write_text('[theme]\ntitle = "Studio"\n[colors]\naccent = "#00a0ff"\n'
                        'glow = "#fff"\n')
    response = await client.post("/api/graphics/reload", headers=operator(client))
    assert response.status == 422
    error = (await response.json())["error"]
    assert error["code"] == "theme_error"
    assert str(manifest) in error["message"] and "'colors.glow'" in error["message"]
    assert (await panel(client))["on_air"] == before["on_air"]
    css = await client.get("/graphics/theme/studio.css")
    assert "--accent: #00a0ff;" in await css.text()  # the last good one is what pages load

    manifest.write_text('[theme]\ntitle = "Studio"\n[colors]\naccent = "#ff00a0"\n')
    response = await client.post("/api/graphics/reload", headers=operator(client))
    assert response.status == 200
    assert (await response.json())["reloaded"] == ["studio"]
    assert "--accent: #ff00a0;" in await (await client.get("/graphics/theme.css")).text()
    assert (await client.post("/api/graphics/reload")).status == 401


async def test_the_choice_is_kept_across_a_restart(aiohttp_client: Any, tmp_path: Path) -> None:
    first = await aiohttp_client(create_app(config_for(tmp_path)))
    ids = [s["id"] for s in (await panel(first))["sponsors"]]
    response = await first.put("/api/graphics", json={
        "theme": "contrast", "sponsors": ids[1:], "sponsor_period": 5},
        headers=operator(first))
    assert response.status == 200
    on_air = (await response.json())["on_air"]
    tokens = first.server.app[TOKENS_KEY].tokens
    await first.close()
    second = await aiohttp_client(create_app(config_for(tmp_path), tokens=tokens))
    assert (await panel(second))["on_air"] == on_air
    assert on_air["name"] == "contrast" and len(on_air["sponsors"]) == 1


async def test_the_operators_ticker_lines_reach_every_page_and_bad_ones_are_refused(
        aiohttp_client: Any, tmp_path: Path) -> None:
    """The ticker's operator lines (issue 19): put on air with PUT /api/graphics, told to
    every page socket with the look, on a live public channel too; a bad list is refused
    (422) naming the line, and changes nothing; the lines survive a restart."""
    client = await aiohttp_client(create_app(config_for(tmp_path)))
    page = await client.ws_connect("/ws/venue?page=ticker")
    await page.send_json({"type": "hello", "page": "ticker", "version": "x", "resume": None,
                          "look": None})
    first = [await page.receive_json(timeout=5), await page.receive_json(timeout=5)]
    assert next(m for m in first if m["type"] == "theme")["theme"]["messages"] == []
    for bad, says in (("Welcome", "expected a list of lines"),
                      ([""], "line 1 is empty"),
                      (["ok", "   "], "line 2 is empty"),
                      (["x" * 201], "line 1 has 201 characters (at most 200)"),
                      (["line"] * 11, "at most 10 lines"),
                      (["bell\x07"], "control character"),
                      ([3], "expected a list of lines")):
        response = await client.put("/api/graphics", json={"messages": bad},
                                    headers=operator(client))
        assert response.status == 422, bad
        assert says in (await response.json())["error"]["message"], bad
    assert (await panel(client))["on_air"]["messages"] == []
    unauthorised = await client.put("/api/graphics", json={"messages": ["hi"]})
    assert unauthorised.status == 401

    response = await client.put("/api/graphics", json={
        "messages": ["  Welcome to the   final table ", "Play resumes at 20:00"]},
        headers=operator(client))
    assert response.status == 200
    told = await page.receive_json(timeout=5)
    assert told["type"] == "theme"
    assert told["theme"]["messages"] == ["Welcome to the final table", "Play resumes at 20:00"]
    await page.close()
    tokens = client.server.app[TOKENS_KEY].tokens
    await client.close()
    again = await aiohttp_client(create_app(config_for(tmp_path), tokens=tokens))
    assert (await panel(again))["choice"]["messages"] == [
        "Welcome to the final table", "Play resumes at 20:00"]


async def test_a_cued_lower_third_is_a_seat_or_none(client: TestClient) -> None:
    for bad in (0, 11, True, "4", 2.5):
        response = await client.put("/api/graphics", json={"lowerthird": bad},
                                    headers=operator(client))
        assert response.status == 422, bad
        assert "lowerthird: expected a seat from 1 to 10, or null for none" in (
            await response.json())["error"]["message"]
    response = await client.put("/api/graphics", json={"lowerthird": 4},
                                headers=operator(client))
    assert response.status == 200 and (await panel(client))["on_air"]["lowerthird"] == 4
