"""Player identity through the real service: set_player, photo upload (token, type, size),
the CSV import over HTTP and with ``feltcast players import`` (a real subprocess against a
real ``feltcast serve``), flags for every country accepted."""

from __future__ import annotations

import io
import json
import struct
import subprocess
import sys
import urllib.request
import uuid
import zlib
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from engine.errors import InvalidInputError
from overlay.app import STATIC_DIR, create_app
from overlay.config import parse_config
from overlay.keys import TOKENS_KEY
from overlay.players import MAX_PHOTO_BYTES, flag_countries, parse_players_csv
from tests.pages.service import ROOT, running_service

PLAYERS = [{"seat": 1, "name": "Ann", "stack": 5000},
           {"seat": 4, "name": "Bo", "stack": 3000},
           {"seat": 7, "name": "Cy", "stack": 2000}]


def png(width: int = 2, height: int = 2) -> bytes:
    """A real PNG image (grey pixels)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8,
                                                             0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 64 + b"\xff\xd9"


@pytest.fixture
async def client(aiohttp_client: Any, tmp_path: Path) -> TestClient:
    config = parse_config({"table": {"seats": 9, "button": 1}, "players": PLAYERS,
                           "data_dir": str(tmp_path / "data")})
    return await aiohttp_client(create_app(config))


def auth(client: TestClient) -> dict[str, str]:
    return {"Authorization": f"Bearer {client.server.app[TOKENS_KEY].tokens.operator}"}


async def command(client: TestClient, kind: str, **fields: Any) -> tuple[int, Any]:
    body = {"id": str(uuid.uuid4()), "type": kind, **fields}
    response = await client.post("/api/commands", json=body, headers=auth(client))
    return response.status, await response.json()


async def players(client: TestClient) -> dict[int, dict[str, Any]]:
    state = await (await client.get("/api/state?channel=venue")).json()
    return {p["seat"]: p for p in state["view"]["tournament"]["players"]}


# --- set_player ------------------------------------------------------------------------------


async def test_set_player_names_a_seat_and_keeps_what_it_does_not_change(
        client: TestClient) -> None:
    status, reply = await command(client, "set_player", seat=1, name="Ann Smith",
                                  display_name="Ann S.", country="gb")
    assert status == 200, reply
    ann = (await players(client))[1]
    assert (ann["name"], ann["display_name"], ann["country"], ann["table_name"]) == (
        "Ann Smith", "Ann S.", "GB", "Ann")
    status, reply = await command(client, "set_player", seat=1, country="IE")
    assert status == 200, reply
    ann = (await players(client))[1]
    assert (ann["name"], ann["display_name"], ann["country"]) == ("Ann Smith", "Ann S.", "IE")
    status, reply = await command(client, "set_player", seat=1, country=None,
                                  display_name=None)
    ann = (await players(client))[1]
    assert (ann["display_name"], ann["country"]) == ("Ann", None)  # back to the table's name


@pytest.mark.parametrize(("fields", "fragment"), [
    ({"country": "XX"}, "not an ISO 3166-1 country code"),
    ({"country": "GER"}, "two-letter"),
    ({"nickname": "Annie"}, "does not know the field 'nickname'"),
    ({"name": 5}, "must be text"),
    ({"name": "A" * 81}, "longer than 80"),
    ({"photo": "/media/players/none.jpg"}, "no uploaded photo"),
])
async def test_set_player_refuses_bad_fields(client: TestClient, fields: dict[str, Any],
                                             fragment: str) -> None:
    status, reply = await command(client, "set_player", seat=1, **fields)
    assert status == 422, reply
    assert fragment in reply["error"]["message"]


async def test_an_empty_seat_needs_a_name(client: TestClient) -> None:
    status, reply = await command(client, "set_player", seat=2, country="DE")
    assert status == 422 and "no player" in reply["error"]["message"]


def test_every_accepted_country_has_a_bundled_flag_and_the_licence_is_there() -> None:
    flags = STATIC_DIR / "flags"
    codes = flag_countries()
    assert len(codes) == 249 and {"DE", "FR", "GB", "US", "BR", "JP"} <= codes
    assert all((flags / f"{code.lower()}.svg").is_file() for code in codes)
    assert "MIT License" in (flags / "LICENSE").read_text()
    assert "flag-icons" in (flags / "SOURCE.txt").read_text()


# --- photos ----------------------------------------------------------------------------------


async def test_a_photo_upload_is_stored_served_and_logged(client: TestClient) -> None:
    image = png()
    response = await client.post("/api/players/4/photo", data=image,
                                 headers={**auth(client), "Content-Type": "image/png"})
    reply = await response.json()
    assert response.status == 200, reply
    url = reply["photo"]
    assert url.startswith("/media/players/seat4-") and url.endswith(".png")
    served = await client.get(url)
    assert served.status == 200 and served.headers["Content-Type"] == "image/png"
    assert await served.read() == image
    assert (await players(client))[4]["photo"] == url
    # The identity keeps the photo when the name changes.
    await command(client, "set_player", seat=4, name="Bo Berg")
    assert (await players(client))[4]["photo"] == url


async def test_photo_upload_refusals(client: TestClient) -> None:
    image = png()
    response = await client.post("/api/players/4/photo", data=image,
                                 headers={"Content-Type": "image/png"})
    assert response.status == 401
    response = await client.post("/api/players/4/photo", data=image, headers={
        "Authorization": "Bearer wrong", "Content-Type": "image/png"})
    assert response.status == 401
    response = await client.post("/api/players/4/photo", data=b"GIF89a....", headers={
        **auth(client), "Content-Type": "image/gif"})
    assert response.status == 415
    assert "image/jpeg" in (await response.json())["error"]["message"]
    response = await client.post("/api/players/4/photo", data=b"<svg onload=alert(1)>",
                                 headers={**auth(client), "Content-Type": "image/png"})
    assert response.status == 422
    assert "JPEG, PNG or WebP" in (await response.json())["error"]["message"]
    response = await client.post("/api/players/4/photo", data=JPEG, headers={
        **auth(client), "Content-Type": "image/png"})
    assert response.status == 422 and "image/jpeg" in (await response.json())["error"][
        "message"]
    big = io.BytesIO(JPEG + b"\x00" * MAX_PHOTO_BYTES)
    response = await client.post("/api/players/4/photo", data=big, headers={
        **auth(client), "Content-Type": "image/jpeg"})
    assert response.status == 413
    response = await client.post("/api/players/12/photo", data=JPEG, headers={
        **auth(client), "Content-Type": "image/jpeg"})
    assert response.status == 422 and "does not exist" in (await response.json())[
        "error"]["message"]
    assert (await players(client))[4]["photo"] is None  # nothing was stored or logged
    for path in ("/media/players/nothing.png", "/media/players/..%2Ftokens.json",
                 "/media/players/seat4.txt"):
        assert (await client.get(path)).status == 404


# --- CSV -------------------------------------------------------------------------------------


def test_csv_problems_are_all_reported_with_their_line_numbers() -> None:
    text = ("seat,name,display_name,country\n"
            "1,Ann Smith,Ann,DE\n"
            "11,Bo,,NO\n"
            "4,,Cy,FR\n"
            "\n"
            "7,Di,,ZZ\n"
            "1,Ed,,GB\n")
    with pytest.raises(InvalidInputError) as caught:
        parse_players_csv(text)
    message = str(caught.value)
    assert "line 3: seat '11' is not a seat number (1-10)" in message
    assert "line 4: the name is empty" in message
    assert "line 6: country: ZZ is not an ISO 3166-1 country code" in message
    assert "line 7: seat 1 is already on line 2" in message
    for header, fragment in (("seat;name;team\n1;Ann;x\n", "unknown column 'team'"),
                             ("name,country\nAnn,DE\n", "'seat' is missing"),
                             ("", "the CSV is empty")):
        with pytest.raises(InvalidInputError, match=fragment):
            parse_players_csv(header)


def test_semicolons_quotes_and_a_byte_order_mark() -> None:
    rows = parse_players_csv('\ufeffseat;name;display_name;country\n'
                             '3;"Smith; Ann";Ann;de\n')
    assert [(r.line, r.seat, r.name, r.display_name, r.country) for r in rows] == [
        (2, 3, "Smith; Ann", "Ann", "DE")]


async def test_csv_import_over_http_is_all_or_nothing(client: TestClient) -> None:
    good = "seat,name,display_name,country\n1,Ann Smith,Ann,DE\n4,Bo Berg,,SE\n"
    response = await client.post("/api/players/import", data=good.encode(),
                                 headers={"Content-Type": "text/csv"})
    assert response.status == 401
    bad = good + "7,Cy,,Narnia\n"
    response = await client.post("/api/players/import", data=bad.encode(),
                                 headers={**auth(client), "Content-Type": "text/csv"})
    assert response.status == 422
    assert "line 4" in (await response.json())["error"]["message"]
    assert (await players(client))[1]["country"] is None  # nothing was imported
    photo = "seat,name,photo\n7,Cy,cy.jpg\n"
    response = await client.post("/api/players/import", data=photo.encode(),
                                 headers={**auth(client), "Content-Type": "text/csv"})
    assert response.status == 422
    assert "feltcast players import" in (await response.json())["error"]["message"]
    response = await client.post("/api/players/import", data=good.encode(),
                                 headers={**auth(client), "Content-Type": "text/csv"})
    assert response.status == 200, await response.text()
    assert (await response.json())["seats"] == [1, 4]
    seen = await players(client)
    assert (seen[1]["name"], seen[1]["display_name"], seen[1]["country"]) == (
        "Ann Smith", "Ann", "DE")
    assert (seen[4]["display_name"], seen[4]["country"]) == ("Bo Berg", "SE")


def test_the_cli_imports_names_and_uploads_photos_to_a_running_service(
        tmp_path: Path) -> None:
    photos = tmp_path / "photos"
    photos.mkdir()
    (photos / "ann.png").write_bytes(png(4, 4))
    csv_file = tmp_path / "players.csv"
    csv_file.write_text("seat,name,display_name,country,photo\n"
                        "1,Ashton Griffin,Ashton,US,photos/ann.png\n"
                        "7,Yuki Tanaka,Yuki,JP,\n", encoding="utf-8")

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "overlay", "players", "import", *args],
                              capture_output=True, text=True, cwd=ROOT, timeout=60)

    bad = tmp_path / "bad.csv"
    bad.write_text("seat,name,country\n1,Ann,DE\n2,Bo,QQ\n")
    result = cli(str(bad), "--check")
    assert result.returncode == 2 and "line 3" in result.stderr
    with running_service(tmp_path / "svc", delay=30) as service:
        result = cli(str(csv_file), "--server", service.base)
        assert result.returncode == 2  # tokens.json keeps only its digest: say where it is
        assert "give --token or set FELTCAST_TOKEN" in result.stderr
        assert "feltcast tokens rotate operator" in result.stderr
        result = cli(str(csv_file), "--server", service.base, "--token", service.operator)
        assert result.returncode == 0, result.stderr
        assert "imported seats 1, 7" in result.stdout
        with urllib.request.urlopen(f"{service.base}/api/state?channel=venue") as reply:
            view = json.loads(reply.read())["view"]
        seen = {p["seat"]: p for p in view["tournament"]["players"]}
        assert (seen[1]["display_name"], seen[1]["country"]) == ("Ashton", "US")
        assert (seen[7]["name"], seen[7]["country"], seen[7]["photo"]) == (
            "Yuki Tanaka", "JP", None)
        with urllib.request.urlopen(service.base + seen[1]["photo"]) as reply:
            assert reply.read() == png(4, 4)
        result = cli(str(csv_file), "--server", service.base, "--token", "wrong")
        assert result.returncode == 1 and "refused the token" in result.stderr
