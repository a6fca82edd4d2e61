"""House rules of static/, checked on the files (no browser needed)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.pages.harness import STATIC

TEXT_SUFFIXES = {".html", ".js", ".css", ".svg"}
# XML namespaces name things, they are never fetched.
NAMESPACES = {"http://www.w3.org/2000/svg"}


def text_files() -> list[Path]:
    return sorted(p for p in STATIC.rglob("*") if p.suffix in TEXT_SUFFIXES)


def test_there_are_pages_to_check() -> None:
    names = {p.name for p in text_files()}
    assert {"overlay.html", "commentary.html", "operator.html", "channel.js"} <= names


def test_no_markup_is_ever_built_from_strings() -> None:
    pattern = re.compile(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(")
    offenders = [f"{p.name}:{n}" for p in text_files() if p.suffix == ".js"
                 for n, line in enumerate(p.read_text().splitlines(), 1)
                 if pattern.search(line) and not line.lstrip().startswith("//")]
    assert offenders == []


def test_nothing_is_loaded_from_outside() -> None:
    url = re.compile(r"(?:https?:)?//[A-Za-z0-9.-]+\.[A-Za-z]{2,}[^\s\"')]*")
    offenders = []
    for path in text_files():
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if line.lstrip().startswith(("//", "/*", "*")):
                continue  # comments
            offenders += [f"{path.name}:{n}: {m}" for m in url.findall(line)
                          if m not in NAMESPACES]
    assert offenders == []


def test_bundled_fonts_carry_their_licence() -> None:
    fonts = sorted((STATIC / "fonts").glob("*.otf"))
    assert fonts, "no bundled fonts"
    licence = (STATIC / "fonts" / "LICENSE-Inter.txt").read_text()
    assert "License: OFL-1.1" in licence and "The Inter Project Authors" in licence
    assert "Reserved Font Name" in licence  # the licence text itself, not only its name
    css = (STATIC / "css" / "base.css").read_text()
    for font in fonts:
        assert f"/static/fonts/{font.name}" in css, f"{font.name} is shipped but never used"


def test_every_page_loads_only_local_modules_and_styles() -> None:
    for page in ("overlay", "commentary", "operator"):
        html = (STATIC / f"{page}.html").read_text()
        sources = re.findall(r'(?:src|href)="([^"]+)"', html)
        assert sources, page
        for source in sources:
            if source == "/graphics/theme.css":  # the theme on air, served from memory
                continue
            assert source.startswith("/static/"), (page, source)
            assert (STATIC / source.removeprefix("/static/")).is_file(), (page, source)
