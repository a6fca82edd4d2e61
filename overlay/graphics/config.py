"""The ``[graphics]`` section of the configuration, read once into :class:`GraphicsConfig`::

    [graphics]
    theme = "classic"          # a bundled theme (dark, classic, contrast) or a theme folder
    logo = "art/logo.png"      # the show's logo (instead of the theme's); optional
    sponsors = ["art/a.png", "art/b.svg"]   # the show's sponsors (instead of the theme's)
    sponsor_period = 15        # seconds per sponsor (default: the theme's)
    layout = "column-left"     # where each graphic goes: column-left | column-right
    safe_area = false          # true: everything inside the title-safe area (EBU R 95)

Paths are relative to the configuration file. Every file is read and checked here: a missing
or unreadable one is refused at start with its key (``docs/graphics.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from engine.errors import ConfigError
from overlay.graphics.layouts import DEFAULT_LAYOUT, OFFERED
from overlay.graphics.themes import Media, Theme, load_theme, media_of

__all__ = ["DEFAULT_THEME", "GraphicsConfig", "bundled_theme_folders", "bundled_themes",
           "default_graphics", "parse_graphics"]

DEFAULT_THEME = "dark"
_KEYS = frozenset({"theme", "logo", "sponsors", "sponsor_period", "layout", "safe_area"})


def bundled_theme_folders() -> dict[str, Path]:
    """The themes installed with Feltcast (``static/themes/<name>/``), by name."""
    from overlay.assets import static_dir

    root = static_dir() / "themes"
    return {path.name: path for path in sorted(root.iterdir())
            if (path / "theme.toml").is_file()}


@cache
def bundled_themes() -> tuple[Theme, ...]:
    """The bundled themes, read and checked (once per process: they are part of the install)."""
    return tuple(load_theme(folder, name=name) for name, folder in bundled_theme_folders().items())


@dataclass(frozen=True, slots=True)
class GraphicsConfig:
    """The ``[graphics]`` section with every file already checked."""

    theme: Theme
    """The theme on air until the producer picks another."""
    themes: tuple[Theme, ...] = ()
    """Every theme the Graphics panel offers: the bundled ones and the configured one."""
    theme_source: str = DEFAULT_THEME
    """``theme`` as written: a bundled name, or the folder (absolute)."""
    logo: Media | None = None
    logo_path: str = ""
    sponsors: tuple[Media, ...] = ()
    sponsor_paths: tuple[str, ...] = ()
    sponsor_period: float | None = None
    """Seconds per sponsor; ``None``: the theme's."""
    layout: str = DEFAULT_LAYOUT
    """Where each graphic goes (:data:`overlay.graphics.layouts.LAYOUTS`)."""
    safe_area: bool = False
    """Every graphic inside the title-safe area (EBU R 95)."""

    def to_raw(self) -> dict[str, Any]:
        """The section as TOML values (``feltcast serve --print-config``)."""
        raw: dict[str, Any] = {"theme": self.theme_source}
        if self.logo_path:
            raw["logo"] = self.logo_path
        if self.sponsor_paths:
            raw["sponsors"] = list(self.sponsor_paths)
        if self.sponsor_period is not None:
            raw["sponsor_period"] = self.sponsor_period
        raw["layout"] = self.layout
        raw["safe_area"] = self.safe_area
        return raw


def default_graphics() -> GraphicsConfig:
    themes = bundled_themes()
    return GraphicsConfig(theme=next(t for t in themes if t.name == DEFAULT_THEME),
                          themes=themes)


def _path(value: object, key: str, base_dir: Path | None) -> Path:
    if not isinstance(value, str) or not value:
        raise ConfigError(key, f"expected a file name, got {value!r}")
    path = Path(value).expanduser()
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    return path.resolve()


def _image(value: object, key: str, base_dir: Path | None) -> tuple[Media, str]:
    path = _path(value, key, base_dir)
    try:
        media = media_of(path, kind="image", name=str(path))
    except ValueError as error:
        raise ConfigError(key, str(error)) from None
    return replace(media, name=path.name), str(path)


def parse_graphics(section: Mapping[str, Any], *, base_dir: Path | None = None
                   ) -> GraphicsConfig:
    """The ``[graphics]`` table.

    :raises ConfigError: naming the first bad key (a broken theme: its file and key too).
    """
    for key in section:
        if key not in _KEYS:
            raise ConfigError(f"graphics.{key}", f"unknown key (known: {', '.join(sorted(_KEYS))})")
    bundled = {theme.name: theme for theme in bundled_themes()}
    source = section.get("theme", DEFAULT_THEME)
    if not isinstance(source, str) or not source:
        raise ConfigError("graphics.theme", f"expected a theme's name or folder, got {source!r}")
    if source in bundled:
        theme = bundled[source]
    elif "/" in source or source.startswith(".") or (base_dir and (base_dir / source).is_dir()):
        folder = _path(source, "graphics.theme", base_dir)
        if not folder.is_dir():
            raise ConfigError("graphics.theme", f"{folder} is not a folder (a theme is a "
                              "folder with a theme.toml)")
        if folder.name in bundled and folder != bundled[folder.name].folder:
            raise ConfigError("graphics.theme", f"the folder {folder} has the name of the "
                              f"bundled theme {folder.name!r}: rename it")
        theme = load_theme(folder)
        source = str(folder)
    else:
        raise ConfigError("graphics.theme", f"no bundled theme is called {source!r} (bundled: "
                          f"{', '.join(sorted(bundled))}); a theme of your own is given as its "
                          "folder, e.g. theme = \"./themes/mine\"")
    themes = tuple(bundled.values()) + (() if theme.name in bundled else (theme,))
    logo, logo_path = (None, "")
    if "logo" in section:
        logo, logo_path = _image(section["logo"], "graphics.logo", base_dir)
    raw_sponsors = section.get("sponsors", [])
    if not isinstance(raw_sponsors, list):
        raise ConfigError("graphics.sponsors", "expected a list of image files")
    sponsors = [_image(value, f"graphics.sponsors[{i}]", base_dir)
                for i, value in enumerate(raw_sponsors)]
    period = section.get("sponsor_period")
    if period is not None and (isinstance(period, bool) or not isinstance(period, int | float)
                               or not 3 <= period <= 600):
        raise ConfigError("graphics.sponsor_period", f"expected seconds from 3 to 600, got "
                          f"{period!r}")
    layout = section.get("layout", DEFAULT_LAYOUT)
    if layout not in OFFERED:
        raise ConfigError("graphics.layout", f"expected one of {', '.join(OFFERED)}, got "
                          f"{layout!r} (the venue's screens pin theirs: ?layout=venue)")
    safe = section.get("safe_area", False)
    if not isinstance(safe, bool):
        raise ConfigError("graphics.safe_area", f"expected true or false, got {safe!r}")
    return GraphicsConfig(theme=theme, themes=themes, theme_source=source, logo=logo,
                          logo_path=logo_path, sponsors=tuple(m for m, _ in sponsors),
                          sponsor_paths=tuple(p for _, p in sponsors),
                          sponsor_period=None if period is None else float(period),
                          layout=layout, safe_area=safe)
