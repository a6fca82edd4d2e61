"""What is on air: :class:`GraphicsDesk` holds the themes, the show's logo and sponsors, and the
producer's choice among them; every connected page is told of each change.

The choice (theme, logo on or off, which sponsors, their period) is made in the console's
Graphics panel (``PUT /api/graphics``) and kept in ``<data_dir>/graphics.json``, so a restart
keeps the look on air. Only checked themes are ever offered (:func:`load_theme`): a theme folder
edited into a broken state is refused by :meth:`GraphicsDesk.reload` with the file and the key,
and the pages keep the last good look.

Pages learn the look from their channel socket: :meth:`GraphicsDesk.attach` gives a
subscription the current look at once (an out-of-band ``{"type": "theme"}`` message,
:meth:`overlay.hub.Subscription.notice`) and every later one. :attr:`GraphicsDesk.changed`
tells the festival's publisher (:mod:`overlay.fanout.publisher`), which carries the look,
with :meth:`GraphicsDesk.on_air_files`, to the web workers.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import unicodedata
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from engine.errors import InvalidInputError
from overlay.graphics.config import GraphicsConfig
from overlay.graphics.layouts import LAYOUTS, OFFERED, regions_of
from overlay.graphics.themes import Media, Theme, load_theme
from overlay.hub import ChannelMessage, Subscription
from overlay.signals import Signal

__all__ = ["Choice", "GraphicsDesk", "cued_seat", "ticker_messages"]

_log = logging.getLogger(__name__)

STATE_FILE = "graphics.json"


@dataclass(frozen=True, slots=True)
class Choice:
    """The producer's choice (``graphics.json``)."""

    theme: str
    logo: bool = True
    sponsors: tuple[str, ...] | None = None
    """The ids of the sponsors shown, in order; ``None``: all of them."""
    sponsor_period: float | None = None
    layout: str | None = None
    """``None``: the configured layout."""
    safe_area: bool | None = None
    """``None``: as configured."""
    messages: tuple[str, ...] = ()
    """The operator's lines in the on-air ticker (the crawl), in order."""
    lowerthird: int | None = None
    """The seat whose lower third is cued (``/lowerthird?seat=cue``, the program); ``None``:
    none on air."""

    def to_json(self) -> dict[str, Any]:
        return {"theme": self.theme, "logo": self.logo,
                "sponsors": None if self.sponsors is None else list(self.sponsors),
                "sponsor_period": self.sponsor_period, "layout": self.layout,
                "safe_area": self.safe_area, "messages": list(self.messages),
                "lowerthird": self.lowerthird}


_CHOICE_KEYS = frozenset({"theme", "logo", "sponsors", "sponsor_period", "layout",
                          "safe_area", "messages", "lowerthird"})
MAX_SEAT = 10
"""The highest seat number a table has (``engine.table``: 2 to 10 seats)."""
MAX_MESSAGES = 10
"""The most operator lines the ticker crawls at once."""
MAX_MESSAGE_CHARS = 200
"""The longest operator line (a crawl's line is read in passing)."""


def ticker_messages(value: Any) -> tuple[str, ...]:
    """The operator's ticker lines from the Graphics panel: a list of at most
    :data:`MAX_MESSAGES` lines of 1 to :data:`MAX_MESSAGE_CHARS` characters each (spaces at
    either end dropped, inner runs of white space made one space).

    :raises InvalidInputError: naming the line and what is wrong with it.

    >>> ticker_messages(["  Welcome to the  final table ", "Play resumes at 20:00"])
    ('Welcome to the final table', 'Play resumes at 20:00')
    """
    if not isinstance(value, list) or not all(isinstance(line, str) for line in value):
        raise InvalidInputError("messages: expected a list of lines of text")
    if len(value) > MAX_MESSAGES:
        raise InvalidInputError(f"messages: at most {MAX_MESSAGES} lines at once (got "
                                f"{len(value)})")
    lines = []
    for number, raw in enumerate(value, 1):
        if any(unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn")
               and not char.isspace() for char in raw):
            raise InvalidInputError(f"messages: line {number} holds a control character")
        line = " ".join(raw.split())
        if not line:
            raise InvalidInputError(f"messages: line {number} is empty")
        if len(line) > MAX_MESSAGE_CHARS:
            raise InvalidInputError(f"messages: line {number} has {len(line)} characters "
                                    f"(at most {MAX_MESSAGE_CHARS})")
        lines.append(line)
    return tuple(lines)


def cued_seat(value: Any) -> int | None:
    """The seat whose lower third the operator cues: 1 to :data:`MAX_SEAT`, or ``None``.

    :raises InvalidInputError: for anything else.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_SEAT:
        raise InvalidInputError(f"lowerthird: expected a seat from 1 to {MAX_SEAT}, or null "
                                "for none")
    return value


class GraphicsDesk:
    """The look on air (see the module docstring)."""

    def __init__(self, config: GraphicsConfig, data_dir: Path | None = None) -> None:
        self._config = config
        self._themes: dict[str, Theme] = {t.name: t for t in (*config.themes, config.theme)}
        self._path = data_dir / STATE_FILE if data_dir is not None else None
        self._choice = self._saved() or Choice(config.theme.name)
        self._state: dict[str, Any] | None = None
        self._message: ChannelMessage | None = None
        self._media = self._index()
        self._attached: weakref.WeakSet[Subscription] = weakref.WeakSet()
        self.changed = Signal("graphics")
        """Emitted when the look on air changed (after the pages were told)."""

    # --- reading -------------------------------------------------------------------------

    @property
    def choice(self) -> Choice:
        return self._choice

    @property
    def themes(self) -> Mapping[str, Theme]:
        return self._themes

    def theme(self, name: str | None = None) -> Theme:
        """The theme on air, or the one named ``name``.

        :raises InvalidInputError: for a name no theme has, listing those there are.
        """
        key = self._choice.theme if name is None else name
        try:
            return self._themes[key]
        except KeyError:
            raise InvalidInputError(f"there is no theme {key!r} (themes: "
                                    f"{', '.join(sorted(self._themes))})") from None

    def _sponsor_pool(self, theme: Theme) -> tuple[Media, ...]:
        return self._config.sponsors or theme.sponsors

    def _logo(self, theme: Theme) -> Media | None:
        return self._config.logo or theme.logo

    def state(self) -> dict[str, Any]:
        """The look on air as the pages get it (``docs/graphics.md``); made once per change
        (every page's hello compares its ``look``)."""
        if self._state is None:
            self._state = self._make_state()
        return self._state

    def _make_state(self) -> dict[str, Any]:
        theme = self.theme()
        logo = self._logo(theme) if self._choice.logo else None
        pool = {media.digest: media for media in self._sponsor_pool(theme)}
        order = list(pool) if self._choice.sponsors is None else \
            [key for key in self._choice.sponsors if key in pool]
        period = self._choice.sponsor_period or self._config.sponsor_period \
            or theme.sponsor_period
        layout, safe = self.layout()
        state = {"name": theme.name, "title": theme.title or theme.name,
                 "css": theme.css_url, "logo": logo.url if logo else None,
                 "sponsors": [pool[key].url for key in order], "sponsor_period": period,
                 "layout": layout, "safe_area": safe, "regions": regions_of(layout, safe=safe),
                 "messages": list(self._choice.messages), "lowerthird": self._choice.lowerthird}
        digest = hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()[:16]
        return {"look": digest, **state}

    def layout(self) -> tuple[str, bool]:
        """The layout on air and whether it keeps to the title-safe area."""
        layout = self._choice.layout or self._config.layout
        safe = self._config.safe_area if self._choice.safe_area is None \
            else self._choice.safe_area
        return layout, safe

    def panel(self) -> dict[str, Any]:
        """What the console's Graphics panel shows: the look on air, the choice, the options."""
        theme = self.theme()
        logo = self._logo(theme)
        return {"on_air": self.state(), "choice": self._choice.to_json(),
                "themes": [t.summary() for t in sorted(self._themes.values(),
                                                      key=lambda t: t.name)],
                "layouts": [{"name": name, "title": LAYOUTS[name].title} for name in OFFERED],
                "logo": {"url": logo.url, "name": logo.name} if logo else None,
                "sponsors": [{"id": m.digest, "url": m.url, "name": m.name}
                             for m in self._sponsor_pool(theme)]}

    def media(self, file_name: str) -> Media | None:
        """A font, logo or sponsor of any offered theme (or of the show) by its served name."""
        return self._media.get(file_name)

    def _index(self) -> dict[str, Media]:
        index = {media.file_name: media for media in (self._config.logo, *self._config.sponsors)
                 if media is not None}
        for theme in self._themes.values():
            index.update(theme.media())
        return index

    def on_air_files(self) -> tuple[str, tuple[Media, ...]]:
        """The stylesheet of the theme on air and every file the look on air loads (its
        fonts, the logo and sponsors shown): what a festival's worker needs to serve it."""
        theme = self.theme()
        state = self.state()
        shown = {state["logo"], *state["sponsors"]}
        files = [font for *_, font in theme.fonts]
        files += [media for media in self._media.values() if media.url in shown]
        return theme.css, tuple({media.file_name: media for media in files}.values())

    def message(self) -> ChannelMessage:
        """The ``{"type": "theme"}`` message of the look on air (made once per change)."""
        if self._message is None:
            self._message = ChannelMessage.out_of_band({"type": "theme", "theme": self.state()})
        return self._message

    # --- pages ---------------------------------------------------------------------------

    def attach(self, subscription: Subscription, *, shown: object = None) -> None:
        """Tell ``subscription`` of every change of the look, and of the look now unless
        ``shown`` (what the page's hello says it shows) is already it."""
        self._attached.add(subscription)
        if shown != self.state()["look"]:
            subscription.notice(self.message())

    @property
    def attached(self) -> int:
        return sum(1 for sub in self._attached if not sub.closed)

    def _changed(self) -> None:
        self._state = self._message = None
        message = self.message()
        for subscription in list(self._attached):
            if not subscription.closed:
                subscription.notice(message)
        self.changed.emit()

    # --- changing ------------------------------------------------------------------------

    def choose(self, changes: Mapping[str, Any]) -> Choice:
        """Apply the Graphics panel's ``changes`` (any of theme, logo, sponsors,
        sponsor_period, layout, safe_area, messages, lowerthird); all or nothing. Returns the
        new choice (:meth:`save` keeps it).

        :raises InvalidInputError: naming the key and what is expected.
        """
        unknown = set(changes) - _CHOICE_KEYS
        if unknown:
            raise InvalidInputError(f"unknown graphics setting {sorted(unknown)[0]!r} "
                                    f"(settings: {', '.join(sorted(_CHOICE_KEYS))})")
        choice = self._choice
        if "theme" in changes:
            name = changes["theme"]
            if not isinstance(name, str):
                raise InvalidInputError("theme: expected a theme's name")
            choice = replace(choice, theme=self.theme(name).name)
        if "logo" in changes:
            if not isinstance(changes["logo"], bool):
                raise InvalidInputError("logo: expected true (shown) or false (hidden)")
            choice = replace(choice, logo=changes["logo"])
        if "sponsors" in changes:
            choice = replace(choice, sponsors=self._sponsor_ids(changes["sponsors"],
                                                                self.theme(choice.theme)))
        if "layout" in changes:
            if changes["layout"] not in OFFERED:
                raise InvalidInputError(f"layout: expected one of {', '.join(OFFERED)}")
            choice = replace(choice, layout=changes["layout"])
        if "safe_area" in changes:
            if not isinstance(changes["safe_area"], bool):
                raise InvalidInputError("safe_area: expected true (inside the title-safe "
                                        "area) or false")
            choice = replace(choice, safe_area=changes["safe_area"])
        if "messages" in changes:
            choice = replace(choice, messages=ticker_messages(changes["messages"]))
        if "lowerthird" in changes:
            choice = replace(choice, lowerthird=cued_seat(changes["lowerthird"]))
        if "sponsor_period" in changes:
            period = changes["sponsor_period"]
            if period is not None and (isinstance(period, bool)
                                       or not isinstance(period, int | float)
                                       or not 3 <= period <= 600):
                raise InvalidInputError("sponsor_period: expected seconds from 3 to 600, or "
                                        "null for the theme's")
            choice = replace(choice, sponsor_period=None if period is None else float(period))
        if choice != self._choice:
            self._choice = choice
            self._changed()
        return choice

    def _sponsor_ids(self, value: Any, theme: Theme) -> tuple[str, ...] | None:
        if value is None:
            return None
        known = {media.digest for media in self._sponsor_pool(theme)}
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InvalidInputError("sponsors: expected a list of sponsor ids, or null for all")
        missing = [v for v in value if v not in known]
        if missing:
            raise InvalidInputError(f"sponsors: no sponsor has the id {missing[0]!r} (ids: "
                                    f"{', '.join(sorted(known)) or 'none'})")
        return tuple(dict.fromkeys(value))

    def read_themes(self) -> dict[str, Theme]:
        """Every offered theme read again from its folder (after the producer edited one);
        blocking file reads, for a worker thread. :meth:`use_themes` puts them on air.

        :raises ThemeError: for the first broken one.
        """
        return {name: load_theme(theme.folder, name=name) for name, theme in self._themes.items()}

    def use_themes(self, fresh: Mapping[str, Theme]) -> list[str]:
        """Offer ``fresh`` (from :meth:`read_themes`); the pages follow if the theme on air
        changed. Returns the names of the themes that changed."""
        changed = [name for name, theme in fresh.items() if theme != self._themes.get(name)]
        self._themes = dict(fresh)
        self._media = self._index()
        if self._choice.theme in changed:
            self._changed()
        return changed

    def reload(self) -> list[str]:
        """:meth:`read_themes` then :meth:`use_themes`: all or nothing."""
        return self.use_themes(self.read_themes())

    # --- keeping the choice --------------------------------------------------------------

    def _saved(self) -> Choice | None:
        if self._path is None or not self._path.is_file():
            return None
        try:
            raw = json.loads(self._path.read_text(encoding="utf-8"))
            saved = Choice(theme=str(raw["theme"]), logo=bool(raw.get("logo", True)),
                           sponsors=None if raw.get("sponsors") is None
                           else tuple(str(s) for s in raw["sponsors"]),
                           sponsor_period=raw.get("sponsor_period"),
                           layout=raw.get("layout") if raw.get("layout") in LAYOUTS else None,
                           safe_area=raw.get("safe_area")
                           if isinstance(raw.get("safe_area"), bool) else None,
                           messages=ticker_messages(raw.get("messages", [])),
                           lowerthird=cued_seat(raw.get("lowerthird")))
        except (OSError, ValueError, KeyError, TypeError) as error:
            _log.warning("%s is unreadable (%s): the configured look goes on air", self._path,
                         error)
            return None
        if saved.theme not in self._themes:
            _log.warning("the saved theme %r is no longer offered: %r goes on air",
                         saved.theme, self._config.theme.name)
            return None
        return saved

    def save(self) -> None:
        """Write the choice (atomically: a crash leaves the old file or the new)."""
        if self._path is None:
            return
        self._path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self._path.with_suffix(".json.tmp")
        temporary.write_text(json.dumps(self._choice.to_json(), indent=2) + "\n",
                             encoding="utf-8")
        os.replace(temporary, self._path)

