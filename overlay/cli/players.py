"""``feltcast players import FILE.csv``: names, display names, countries and photos of the
players, sent to the running service.

The CSV is checked here first (every problem with its line number, nothing sent); then the
identities go to ``POST /api/players/import`` in one request (all or nothing) and each photo
named in the ``photo`` column (a file path relative to the CSV) to
``POST /api/players/{seat}/photo``. The operator token is read from ``--token`` or the
``FELTCAST_TOKEN`` environment variable (``tokens.json`` keeps only its digest).

The format is in ``docs/tournament.md`` ("CSV format")::

    seat,name,display_name,country,photo
    1,Ann Smith,Ann,DE,photos/ann.jpg
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="players_action", metavar="ACTION", required=True)
    load = actions.add_parser("import", help="import players from a CSV file",
                              description="import players from a CSV file (seat, name, "
                                          "display_name, country, photo)")
    load.add_argument("file", type=Path, help="the CSV file")
    load.add_argument("--server", default="http://127.0.0.1:8080", metavar="URL",
                      help="the running service (default: http://127.0.0.1:8080)")
    load.add_argument("--token", default="", help="the operator token (default: "
                      "$FELTCAST_TOKEN)")
    load.add_argument("--check", action="store_true",
                      help="only check the file; send nothing")


def run(args: argparse.Namespace) -> int:
    from engine.errors import InvalidInputError
    from overlay.players import parse_players_csv, photo_type

    path: Path = args.file
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as error:
        raise InvalidInputError(f"cannot read {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise InvalidInputError(f"{path} is not UTF-8 text (save it as 'CSV UTF-8')") from None
    rows = parse_players_csv(text)
    photos: dict[int, tuple[Path, bytes]] = {}
    problems = []
    for row in rows:
        if row.photo is None:
            continue
        photo = (path.parent / row.photo).resolve()
        try:
            data = photo.read_bytes()
        except OSError as error:
            problems.append(f"line {row.line}: cannot read the photo {row.photo}: "
                            f"{error.strerror}")
            continue
        if photo_type(data) is None:
            problems.append(f"line {row.line}: {row.photo} is not a JPEG, PNG or WebP image")
            continue
        photos[row.seat] = (photo, data)
    if problems:
        raise InvalidInputError(f"{path} has problems: " + "; ".join(problems))
    print(f"{path}: {len(rows)} players, {len(photos)} photos")
    if args.check:
        return 0
    token = _token(args)
    base = args.server.rstrip("/")
    header = "seat,name,display_name,country\n"
    body = header + "".join(f"{r.seat},{_cell(r.name)},{_cell(r.display_name)},"
                            f"{r.country or ''}\n" for r in rows)
    reply = _post(f"{base}/api/players/import", body.encode(), "text/csv; charset=utf-8",
                  token)
    print(f"imported seats {', '.join(str(s) for s in reply['seats'])}")
    for seat, (photo, data) in sorted(photos.items()):
        kind = photo_type(data) or "application/octet-stream"
        reply = _post(f"{base}/api/players/{seat}/photo", data, kind, token)
        print(f"seat {seat}: photo {photo.name} -> {reply['photo']}")
    return 0


def _cell(value: str) -> str:
    """A CSV field, quoted when it must be."""
    if any(c in value for c in ',";\n'):
        return '"' + value.replace('"', '""') + '"'
    return value


def _token(args: argparse.Namespace) -> str:
    from engine.errors import InvalidInputError

    token: str = args.token or os.environ.get("FELTCAST_TOKEN", "")
    if token:
        return token
    raise InvalidInputError("no operator token: give --token or set FELTCAST_TOKEN (the "
                            "service printed it on its first start; a lost one is replaced by "
                            "`feltcast tokens rotate operator`)")


def _post(url: str, data: bytes, content_type: str, token: str) -> dict[str, Any]:
    from engine.errors import FeltcastError, InvalidInputError

    request = urllib.request.Request(url, data=data, method="POST", headers={
        "Content-Type": content_type, "Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            reply: dict[str, Any] = json.loads(response.read())
            return reply
    except urllib.error.HTTPError as error:
        try:
            message = json.loads(error.read())["error"]["message"]
        except (ValueError, KeyError, TypeError):
            message = error.reason
        if error.code in (401, 403):
            raise FeltcastError(f"the service refused the token: {message}") from None
        raise InvalidInputError(f"the service refused the import: {message}") from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        print(f"cannot reach the service at {url}: {reason}", file=sys.stderr)
        raise FeltcastError(f"is the service running at {url.split('/api/')[0]}?") from None
