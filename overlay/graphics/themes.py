"""A theme folder, read and checked: :func:`load_theme` gives a :class:`Theme` or refuses.

A theme is a folder with a manifest, ``theme.toml``::

    [theme]
    title = "Classic TV"
    description = "Light panels, navy titles, square corners."

    [colors]            # CSS colours of the tokens in COLOR_TOKENS (any left out: the default)
    ink = "#0d1b2a"
    panel = "rgba(255, 255, 255, 0.96)"

    [style]             # the tokens in STYLE_TOKENS
    font = "DejaVu Sans Condensed"
    radius = 3

    [[fonts]]           # font files in the folder, for [style] font
    family = "DejaVu Sans Condensed"
    file = "fonts/DejaVuSansCondensed-Bold.ttf"
    weight = 700

    [logo]
    file = "logo.svg"

    [sponsors]
    files = ["sponsors/one.svg", "sponsors/two.svg"]
    period = 20         # seconds each sponsor stays on screen

Every value is checked when the folder is read (an unknown key, a colour CSS would not draw, a
file that is missing, outside the folder or not an image or a font): :class:`ThemeError` names
the file and the key. The files are read into memory then, so the pages are served what was
checked, whatever happens to the folder afterwards; :attr:`Theme.css` is the stylesheet the
pages load after their own (custom properties on ``:root`` and the ``@font-face`` rules).
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from engine.errors import ConfigError
from overlay.players import photo_type

__all__ = ["COLOR_TOKENS", "STYLE_TOKENS", "Media", "Theme", "ThemeError", "check_color",
           "load_theme", "media_of", "parse_color"]

MANIFEST = "theme.toml"
MAX_FILE_BYTES = 5 * 1024 * 1024
"""The largest image or font a theme may hold (a logo, a sponsor, a font file)."""

COLOR_TOKENS: Mapping[str, str] = {
    "ink": "text on panels",
    "ink-dim": "secondary text on panels (labels, big blinds)",
    "panel": "panel background (top or left end of its gradient)",
    "panel-2": "panel background (bottom or right end)",
    "line": "hairlines and panel outlines",
    "tint": "a faint fill on a panel (rows, bars, empty card slots)",
    "screen": "the background of the opaque screens (commentary)",
    "accent": "whose turn it is, the pot, title bars",
    "accent-ink": "text on the accent colour",
    "badge": "light badges (position, level clock, bets)",
    "badge-ink": "text on badges",
    "win": "the winner",
    "win-ink": "text on the winner colour",
    "winner-panel": "the winner banner's background",
    "allin": "all-in, the action clock",
    "allin-ink": "text on the all-in colour",
    "equity": "equity figures and bars",
    "break": "the break badge",
    "break-ink": "text on the break badge",
    "card-face": "a card's face",
    "card-edge": "a card's outline",
    "spades": "spades (and the card text)",
    "hearts": "hearts",
    "diamonds": "diamonds",
    "clubs": "clubs",
    "card-back": "a card's back",
    "shadow": "drop shadows",
}
"""The colour tokens a theme may set (``[colors]``), each a CSS custom property ``--<name>``;
the default of each is the dark theme's, in ``static/css/base.css``."""

STYLE_TOKENS: Mapping[str, str] = {
    "font": "the type family (a [[fonts]] family of the theme, or Inter, bundled)",
    "radius": "corner radius of panels, px (0-40)",
    "panel_border": "width of the panels' outline, px (0-8)",
    "title_transform": "case of titles and names: uppercase, none or capitalize",
    "title_weight": "weight of titles and names: 400-900",
}
"""The other tokens (``[style]``)."""

_HEX = re.compile(r"#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
_RGB = re.compile(r"rgba?\(\s*([^)]*)\)")
_FONT_FAMILY = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _-]{0,62}")
_FILE_NAME = re.compile(r"[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*")

IMAGE_SUFFIXES = {"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp",
                  "image/svg+xml": ".svg"}
FONT_SUFFIXES = {"font/otf": ".otf", "font/ttf": ".ttf", "font/woff": ".woff",
                 "font/woff2": ".woff2"}


class ThemeError(ConfigError):
    """A theme that cannot go on air: the file and the key, and what is wrong."""

    code = "theme_error"

    def __init__(self, file: Path | str, key: str, problem: str) -> None:
        where = f"{file}: {key}" if key else str(file)
        super().__init__(where, problem)
        self.file = str(file)
        self.theme_key = key
        self.args = (f"theme {file}{f' at {key!r}' if key else ''}: {problem}",)

    def __str__(self) -> str:
        return str(self.args[0])


def parse_color(text: str) -> tuple[float, float, float, float]:
    """``(r, g, b, alpha)`` of a CSS colour in the forms themes use: ``#rgb``, ``#rgba``,
    ``#rrggbb``, ``#rrggbbaa``, ``rgb(r, g, b)``, ``rgba(r, g, b, a)`` (channels 0-255, alpha
    0-1).

    >>> parse_color("#fc0")
    (255.0, 204.0, 0.0, 1.0)
    >>> parse_color("rgba(11, 15, 25, 0.9)")
    (11.0, 15.0, 25.0, 0.9)

    :raises ValueError: for anything else, saying what is expected.
    """
    value = text.strip()
    if _HEX.fullmatch(value):
        digits = value[1:]
        if len(digits) in (3, 4):
            digits = "".join(d * 2 for d in digits)
        channels = [int(digits[i:i + 2], 16) for i in range(0, len(digits), 2)]
        alpha = channels[3] / 255 if len(channels) == 4 else 1.0
        return float(channels[0]), float(channels[1]), float(channels[2]), round(alpha, 4)
    match = _RGB.fullmatch(value)
    if match:
        parts = [p.strip() for p in match.group(1).split(",")]
        if len(parts) in (3, 4):
            try:
                numbers = [float(p) for p in parts]
            except ValueError:
                numbers = []
            if numbers and all(0 <= n <= 255 for n in numbers[:3]) \
                    and (len(numbers) == 3 or 0 <= numbers[3] <= 1):
                alpha = numbers[3] if len(numbers) == 4 else 1.0
                return numbers[0], numbers[1], numbers[2], alpha
    raise ValueError(f"{text!r} is not a colour (expected #rrggbb, #rgb, #rrggbbaa, "
                     "rgb(r, g, b) or rgba(r, g, b, alpha) with r, g, b 0-255 and alpha 0-1)")


def check_color(text: str) -> str:
    """``text`` if it is a colour :func:`parse_color` reads, else :class:`ValueError`."""
    parse_color(text)
    return text.strip()


# --- the manifest, as pydantic models: unknown keys and wrong types are refused by name -----


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class _About(_Strict):
    title: str = ""
    description: str = ""


class _Style(_Strict):
    font: str | None = None
    radius: Annotated[int, Field(ge=0, le=40)] | None = None
    panel_border: Annotated[int, Field(ge=0, le=8)] | None = None
    title_transform: Literal["uppercase", "none", "capitalize"] | None = None
    title_weight: Annotated[int, Field(ge=400, le=900, multiple_of=100)] | None = None

    @field_validator("font")
    @classmethod
    def _family(cls, value: str | None) -> str | None:
        if value is not None and not _FONT_FAMILY.fullmatch(value):
            raise ValueError("a font family is letters, digits, spaces, '-' and '_'")
        return value


class _Font(_Strict):
    family: str
    file: str
    weight: Annotated[int, Field(ge=100, le=900, multiple_of=100)] = 400
    style: Literal["normal", "italic"] = "normal"

    @field_validator("family")
    @classmethod
    def _family(cls, value: str) -> str:
        if not _FONT_FAMILY.fullmatch(value):
            raise ValueError("a font family is letters, digits, spaces, '-' and '_'")
        return value


class _Logo(_Strict):
    file: str


class _Sponsors(_Strict):
    files: list[str] = Field(default_factory=list)
    period: Annotated[float, Field(ge=3, le=600)] = 20.0


class _Manifest(_Strict):
    theme: _About = _About()
    colors: dict[str, str] = Field(default_factory=dict)
    style: _Style = _Style()
    fonts: list[_Font] = Field(default_factory=list)
    logo: _Logo | None = None
    sponsors: _Sponsors | None = None

    @field_validator("colors")
    @classmethod
    def _colors(cls, value: dict[str, str]) -> dict[str, str]:
        for key, text in value.items():
            if key not in COLOR_TOKENS:
                raise ValueError(f"colors.{key}: unknown colour (known: "
                                 f"{', '.join(COLOR_TOKENS)})")
            try:
                check_color(text)
            except ValueError as error:
                raise ValueError(f"colors.{key}: {error}") from None
        return value


# --- the files it names ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Media:
    """A file a page loads (a logo, a sponsor, a font), served by its content's hash."""

    data: bytes = field(repr=False)
    content_type: str
    name: str
    """Where it came from, for the console ("sponsors/one.svg")."""
    digest: str = field(init=False, repr=False, compare=False)
    """The content's hash: its id and its served name (hashed once, not per request)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "digest", _digest(self.data))

    @property
    def file_name(self) -> str:
        suffix = IMAGE_SUFFIXES.get(self.content_type) or FONT_SUFFIXES[self.content_type]
        return f"{self.digest}{suffix}"

    @property
    def url(self) -> str:
        """Immutable: a changed file is another URL (served by :mod:`overlay.graphics.web`)."""
        return f"/graphics/media/{self.file_name}"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _font_type(data: bytes) -> str | None:
    if data.startswith(b"OTTO"):
        return "font/otf"
    if data.startswith((b"\x00\x01\x00\x00", b"true")):
        return "font/ttf"
    if data.startswith(b"wOFF"):
        return "font/woff"
    if data.startswith(b"wOF2"):
        return "font/woff2"
    return None


def _image_type(data: bytes) -> str | None:
    kind = photo_type(data)
    if kind:
        return kind
    head = data[:2048].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith(b"<svg") or (head.startswith(b"<?xml") and b"<svg" in head):
        if b"<script" in data.lower() or b"<foreignobject" in data.lower():
            raise ValueError("an SVG with scripts or embedded HTML is refused")
        return "image/svg+xml"
    return None


def media_of(path: Path, *, kind: Literal["image", "font"], name: str = "") -> Media:
    """The checked file at ``path`` (an image: PNG, JPEG, WebP or SVG; a font: OTF, TTF, WOFF,
    WOFF2).

    :raises ValueError: saying what is wrong with it.
    """
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise ValueError(f"{name or path}: no such file") from None
    except OSError as error:
        raise ValueError(f"{name or path}: cannot read it ({error.strerror})") from None
    if not path.is_file():
        raise ValueError(f"{name or path}: not a file")
    if size > MAX_FILE_BYTES:
        raise ValueError(f"{name or path}: {size:,} bytes, more than the "
                         f"{MAX_FILE_BYTES // (1024 * 1024)} MiB a theme file may have")
    data = path.read_bytes()
    try:
        content_type = _image_type(data) if kind == "image" else _font_type(data)
    except ValueError as error:
        raise ValueError(f"{name or path}: {error}") from None
    if content_type is None:
        expected = "a PNG, JPEG, WebP or SVG image" if kind == "image" \
            else "an OTF, TTF, WOFF or WOFF2 font"
        raise ValueError(f"{name or path}: not {expected}")
    return Media(data, content_type, name or path.name)


@dataclass(frozen=True, slots=True)
class Theme:
    """A checked theme, its files in memory (see the module docstring)."""

    name: str
    folder: Path
    title: str
    description: str
    colors: Mapping[str, str]
    style: Mapping[str, str]
    """The ``[style]`` tokens as CSS values (``radius`` as ``"3px"``)."""
    fonts: tuple[tuple[str, int, str, Media], ...]
    """(family, weight, style, file) of each ``[[fonts]]`` entry."""
    logo: Media | None
    sponsors: tuple[Media, ...]
    sponsor_period: float
    css: str = field(repr=False)
    css_url: str = field(init=False, repr=False, compare=False)
    """Where pages load :attr:`css`; its version is the stylesheet's hash."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "css_url", f"/graphics/theme/{self.name}.css"
                                            f"?v={_digest(self.css.encode())}")

    def media(self) -> dict[str, Media]:
        """Every file of the theme by its served file name."""
        files = [font for *_, font in self.fonts] + list(self.sponsors)
        if self.logo is not None:
            files.append(self.logo)
        return {media.file_name: media for media in files}

    def summary(self) -> dict[str, Any]:
        """What the console's Graphics panel lists."""
        return {"name": self.name, "title": self.title or self.name,
                "description": self.description, "folder": str(self.folder),
                "colors": dict(self.colors), "style": dict(self.style),
                "logo": self.logo.url if self.logo else None,
                "sponsors": [{"id": m.digest, "url": m.url, "name": m.name}
                             for m in self.sponsors],
                "sponsor_period": self.sponsor_period}


_STYLE_CSS = {"font": "font", "radius": "radius", "panel_border": "panel-border",
              "title_transform": "title-transform", "title_weight": "title-weight"}


def _style_css(style: _Style) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in style.model_dump(exclude_none=True).items():
        token = _STYLE_CSS[key]
        if key == "font":
            out[token] = f'"{value}", "Inter", "DejaVu Sans", sans-serif'
        elif key in ("radius", "panel_border"):
            out[token] = f"{value}px"
        else:
            out[token] = str(value)
    return out


def _stylesheet(name: str, colors: Mapping[str, str], style: Mapping[str, str],
                fonts: tuple[tuple[str, int, str, Media], ...]) -> str:
    lines = [f"/* Feltcast theme {name!r}: generated from its theme.toml */"]
    for family, weight, font_style, media in fonts:
        lines.append(f'@font-face {{ font-family: "{family}"; font-weight: {weight}; '
                     f"font-style: {font_style}; font-display: block; "
                     f'src: url("{media.url}"); }}')
    tokens = [f"  --{key}: {value};" for key, value in colors.items()]
    tokens += [f"  --{key}: {value};" for key, value in style.items()]
    lines.append(":root {" + ("\n" + "\n".join(tokens) + "\n" if tokens else "") + "}")
    return "\n".join(lines) + "\n"


def _inside(folder: Path, relative: str, manifest: Path, key: str) -> Path:
    if not _FILE_NAME.fullmatch(relative) or ".." in relative.split("/"):
        raise ThemeError(manifest, key, f"{relative!r} is not a file name inside the theme "
                         "folder (letters, digits, '.', '_', '-' and '/' between folders)")
    return folder / relative


def _field_error(manifest: Path, error: ValidationError) -> ThemeError:
    first = error.errors()[0]
    location = ".".join(str(part) for part in first["loc"])
    message = str(first["msg"]).removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        return ThemeError(manifest, location, "unknown key")
    if message.startswith("colors.") and ":" in message:
        key, _, problem = message.partition(": ")
        return ThemeError(manifest, key, problem)
    return ThemeError(manifest, location, f"{message} (got {first.get('input')!r})")


def load_theme(folder: Path, *, name: str | None = None) -> Theme:
    """The theme in ``folder`` (named ``name``, else by the folder).

    :raises ThemeError: naming the file and the key of the first problem.
    """
    folder = folder.resolve()
    manifest = folder / MANIFEST
    try:
        raw = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ThemeError(manifest, "", "no such file (a theme folder holds a theme.toml)") \
            from None
    except OSError as error:
        raise ThemeError(manifest, "", f"cannot read it ({error.strerror})") from None
    except UnicodeDecodeError:
        raise ThemeError(manifest, "", "not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        raise ThemeError(manifest, "", f"not valid TOML: {error}") from None
    try:
        parsed = _Manifest.model_validate(raw)
    except ValidationError as error:
        raise _field_error(manifest, error) from None

    def read(relative: str, key: str, kind: Literal["image", "font"]) -> Media:
        try:
            return media_of(_inside(folder, relative, manifest, key), kind=kind, name=relative)
        except ValueError as error:
            raise ThemeError(manifest, key, str(error)) from None

    fonts = tuple((font.family, font.weight, font.style,
                   read(font.file, f"fonts[{index}].file", "font"))
                  for index, font in enumerate(parsed.fonts))
    families = {font[0] for font in fonts} | {"Inter"}
    if parsed.style.font is not None and parsed.style.font not in families:
        raise ThemeError(manifest, "style.font", f"{parsed.style.font!r} is neither a "
                         f"[[fonts]] family of this theme nor Inter (families: "
                         f"{', '.join(sorted(families))})")
    logo = read(parsed.logo.file, "logo.file", "image") if parsed.logo else None
    sponsors = parsed.sponsors or _Sponsors()
    sponsor_files = tuple(read(file, f"sponsors.files[{index}]", "image")
                          for index, file in enumerate(sponsors.files))
    colors = {key: check_color(value) for key, value in parsed.colors.items()}
    style = _style_css(parsed.style)
    theme_name = name or folder.name
    return Theme(name=theme_name, folder=folder, title=parsed.theme.title,
                 description=parsed.theme.description, colors=colors, style=style,
                 fonts=fonts, logo=logo, sponsors=sponsor_files,
                 sponsor_period=float(sponsors.period),
                 css=_stylesheet(theme_name, colors, style, fonts))
