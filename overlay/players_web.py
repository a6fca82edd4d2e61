"""HTTP endpoints of player identity (``docs/tournament.md``, "In the service").

* ``POST /api/players/{seat}/photo``: the photo's bytes as the body (``Content-Type``
  ``image/jpeg``, ``image/png`` or ``image/webp``), operator token. The file is stored in the
  data directory and the seat's identity is logged with the new photo.
* ``POST /api/players/import``: a players CSV as the body (``text/csv``), operator token. Every
  row becomes one identity event, all in one log append (all or nothing); problems come back
  with their line numbers.
* ``GET /media/players/{file}``: the stored photos (public, like the graphics that show them).
"""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from engine.errors import InvalidInputError
from overlay.auth import require_operator
from overlay.keys import CONFIG_KEY, TABLE_KEY
from overlay.players import MAX_PHOTO_BYTES, PHOTO_TYPES, parse_players_csv
from overlay.web_errors import json_error
from overlay.web_json import read_body

__all__ = ["MAX_CSV_BYTES", "add_player_routes"]

MAX_CSV_BYTES = 256 * 1024


def add_player_routes(app: web.Application) -> None:
    app.add_routes([
        web.post("/api/players/{seat}/photo", upload_photo),
        web.post("/api/players/import", import_players),
        web.get("/media/players/{name}", serve_photo),
    ])


def _unsupported(message: str) -> web.HTTPException:
    """415 with the standard JSON error body."""
    body = web.json_response({"error": {"code": "unsupported_media_type",
                                        "message": message}}).text
    return web.HTTPUnsupportedMediaType(text=body, content_type="application/json")


async def upload_photo(request: web.Request) -> web.Response:

    require_operator(request)
    try:
        seat = int(request.match_info["seat"])
    except ValueError:
        raise json_error(404, "not_found", "seats are numbers, e.g. /api/players/3/photo") \
            from None
    service = request.app[TABLE_KEY]
    desk = service.tournament
    desk.check_seat(seat)
    declared = request.headers.get("Content-Type", "").split(";")[0].strip().lower()
    if declared and declared not in PHOTO_TYPES and declared != "application/octet-stream":
        raise _unsupported("a photo is sent as image/jpeg, "
                         f"image/png or image/webp, not {declared}")
    data = await read_body(request, MAX_PHOTO_BYTES, "photo")
    url = desk.photos.save(seat, data, declared)
    event = desk.players.identify(seat, {"photo": url}, photos=desk.photos,
                                  table_name=service.table.names.get(seat))
    entries = await service.append_events([event], source="operator")
    return web.json_response({"ok": True, "seat": seat, "photo": url,
                              "seq": entries[-1].seq})


async def import_players(request: web.Request) -> web.Response:

    require_operator(request)
    raw = await read_body(request, MAX_CSV_BYTES, "CSV file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInputError("the CSV is not UTF-8 text (save it as 'CSV UTF-8')") from None
    service = request.app[TABLE_KEY]
    desk = service.tournament
    rows = parse_players_csv(text, max_seat=service.table.rules.max_seats, photos=False)
    events = desk.import_rows(desk.players.from_csv(rows))
    entries = await service.append_events(events, source="operator")
    return web.json_response({"ok": True, "players": len(events),
                              "seats": [e.seat for e in events], "seq": entries[-1].seq})


async def serve_photo(request: web.Request) -> web.FileResponse:
    name = request.match_info["name"]
    directory: Path = request.app[CONFIG_KEY].data_dir / "media" / "players"
    suffix = Path(name).suffix.lower()
    if "/" in name or name.startswith(".") or suffix not in PHOTO_TYPES.values():
        raise web.HTTPNotFound()
    path = directory / name
    if not path.is_file():
        raise web.HTTPNotFound()
    content_type = next(t for t, s in PHOTO_TYPES.items() if s == suffix)
    return web.FileResponse(path, headers={
        "Content-Type": content_type, "Cache-Control": "public, max-age=31536000, immutable"})
