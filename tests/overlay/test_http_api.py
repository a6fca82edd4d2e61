"""docs/http-api.md lists every route the service answers, and nothing it does not have."""

from __future__ import annotations

import re
from pathlib import Path

from aiohttp import web

from overlay.app import create_app
from tests.overlay.test_service import config_for

DOC = Path(__file__).resolve().parents[2] / "docs" / "http-api.md"


def documented_routes(text: str) -> set[tuple[str, str]]:
    """(method, path) of every row of the doc's route table (several paths in one cell are
    comma-separated; query strings are examples, not part of the path)."""
    routes = set()
    for method, cell in re.findall(r"^\| (GET|POST|PUT|PATCH|DELETE) \| ([^|]+) \|", text,
                                   flags=re.MULTILINE):
        for path in re.findall(r"`([^`]+)`", cell):
            routes.add((method, path.split("?")[0]))
    return routes


def app_routes(app: web.Application) -> set[tuple[str, str]]:
    routes = set()
    for route in app.router.routes():
        if route.method == "HEAD":  # aiohttp answers HEAD for every GET
            continue
        resource = route.resource
        assert resource is not None
        path = resource.canonical
        if isinstance(resource, web.StaticResource):
            path += "/{path}"
        routes.add((route.method, path))
    return routes


def test_every_route_is_documented_and_every_documented_route_exists(tmp_path: Path) -> None:
    app = create_app(config_for(tmp_path))
    served, documented = app_routes(app), documented_routes(DOC.read_text())
    assert ("GET", "/api/hands") in served  # the parsing sees the table
    assert sorted(served - documented) == [], "routes missing from docs/http-api.md"
    assert sorted(documented - served) == [], "docs/http-api.md lists routes the app lacks"


def test_the_checker_sees_a_missing_row() -> None:
    text = DOC.read_text().replace("| GET | `/api/hands?channel=delayed` |", "| GET | |")
    assert ("GET", "/api/hands") not in documented_routes(text)
