"""The HTTP side of the look on air (``docs/graphics.md``, ``docs/http-api.md``).

* ``GET /api/graphics``: the Graphics panel (look on air, choice, themes, logo, sponsors);
  operator token.
* ``PUT /api/graphics`` ``{"theme"?, "logo"?, "sponsors"?, "sponsor_period"?, "layout"?,
  "safe_area"?, "messages"?}``: change the look or the ticker's operator lines; every page on
  air follows at once, without a reload. Operator token.
* ``POST /api/graphics/reload``: read the theme folders again (after editing one); a broken
  theme is refused with its file and key (422) and the look on air stays. Operator token.
* ``GET /graphics/theme/{name}.css``: a theme's stylesheet (public, like the pages);
  ``/graphics/theme.css``: the one on air.
* ``GET /graphics/media/{file}``: a theme's or the show's font, logo or sponsor, by its
  content's hash (public; immutable, so cached for good).

The look is not a table event: it is neither logged nor delayed (a delayed channel's pages
change their look when the producer does), and it goes to every channel alike, since it
carries nothing of the table.
"""

from __future__ import annotations

import asyncio
import json
from html import escape

from aiohttp import web

from engine.errors import InvalidInputError
from overlay.auth import require_operator
from overlay.graphics.layouts import LAYOUTS, regions_of
from overlay.graphics.themes import Media
from overlay.keys import GRAPHICS_KEY
from overlay.web_errors import json_error
from overlay.web_json import read_json

__all__ = ["add_graphics_routes", "media_response", "theme_link"]

LINK = '<link id="feltcast-theme" rel="stylesheet" href="/graphics/theme.css">'
"""The placeholder each page has; :func:`theme_link` names the page's theme in it."""


def add_graphics_routes(app: web.Application) -> None:
    app.add_routes([
        web.get("/api/graphics", api_graphics),
        web.put("/api/graphics", api_graphics_choose),
        web.post("/api/graphics/reload", api_graphics_reload),
        web.get("/graphics/theme.css", theme_css),
        web.get("/graphics/theme/{name}.css", theme_css),
        web.get("/graphics/media/{file}", media),
    ])


def theme_link(request: web.Request, html: str) -> str:
    """``html`` with its theme link naming the theme on air, or the ``?theme=`` one, and the
    regions of the layout on air (or of ``?layout=`` and ``?safe=``, for a rehearsal).

    :raises HTTPException: 404 for a ``?theme=`` no theme has (a rehearsal URL with a typo is
        an error, not the wrong look).
    """
    desk = request.app[GRAPHICS_KEY]
    pinned = request.query.get("theme")
    try:
        theme = desk.theme(pinned) if pinned else desk.theme()
    except InvalidInputError as error:
        raise json_error(404, "not_found", str(error)) from None
    layout, safe = desk.layout()
    pinned_layout = request.query.get("layout")
    if pinned_layout is not None and pinned_layout not in LAYOUTS:
        raise json_error(404, "not_found", f"there is no layout {pinned_layout!r} (layouts: "
                                           f"{', '.join(LAYOUTS)})")
    pinned_safe = request.query.get("safe")
    if pinned_safe is not None and pinned_safe not in ("0", "1"):
        raise json_error(404, "not_found", "safe is 1 (inside the title-safe area) or 0")
    layout = pinned_layout or layout
    safe = safe if pinned_safe is None else pinned_safe == "1"
    return html.replace(LINK, theme_link_tag(theme.css_url, theme.name, layout,
                                             regions_of(layout, safe=safe),
                                             pinned=bool(pinned_layout or pinned_safe)))


def theme_link_tag(css: str, theme: str, layout: str, regions: object, *,
                   pinned: bool = False) -> str:
    """The page's theme link: its stylesheet, theme, layout and the layout's regions
    (``static/js/regions.js`` reads them), every value escaped."""
    pin = ' data-layout-pinned="1"' if pinned else ""
    return (f'<link id="feltcast-theme" rel="stylesheet" href="{escape(css)}" '
            f'data-theme="{escape(theme)}" data-layout="{escape(layout)}" '
            f'data-regions="{escape(json.dumps(regions, separators=(",", ":")))}"{pin}>')


async def api_graphics(request: web.Request) -> web.Response:
    require_operator(request)
    return web.json_response(request.app[GRAPHICS_KEY].panel())


async def api_graphics_choose(request: web.Request) -> web.Response:
    require_operator(request)
    body = await read_json(request)
    if not isinstance(body, dict):
        raise InvalidInputError('the graphics are changed with an object, e.g. '
                                '{"theme": "classic"}')
    desk = request.app[GRAPHICS_KEY]
    desk.choose(body)
    await asyncio.to_thread(desk.save)
    return web.json_response({"ok": True, **desk.panel()})


async def api_graphics_reload(request: web.Request) -> web.Response:
    require_operator(request)
    desk = request.app[GRAPHICS_KEY]
    changed = desk.use_themes(await asyncio.to_thread(desk.read_themes))
    return web.json_response({"ok": True, **desk.panel(), "reloaded": changed})


async def theme_css(request: web.Request) -> web.Response:
    desk = request.app[GRAPHICS_KEY]
    try:
        theme = desk.theme(request.match_info.get("name"))
    except InvalidInputError as error:
        raise json_error(404, "not_found", str(error)) from None
    return web.Response(text=theme.css, content_type="text/css",
                        headers={"Cache-Control": "no-cache"})


async def media(request: web.Request) -> web.Response:
    found = request.app[GRAPHICS_KEY].media(request.match_info["file"])
    if found is None:
        raise json_error(404, "not_found", "no theme or show file has that name")
    return media_response(found)


def media_response(found: Media) -> web.Response:
    """A theme's or the show's file, as every page loads it."""
    headers = {"Cache-Control": "public, max-age=31536000, immutable"}
    if found.content_type == "image/svg+xml":  # an image, never a document
        headers["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'; " \
                                             "sandbox"
    return web.Response(body=found.data, content_type=found.content_type, headers=headers)
