"""Where each graphic goes: a layout is data, one region per graphic (``docs/graphics.md``).

Every on-air page draws its graphic inside its region of the layout on air, scaled down to fit
when the region is smaller than the graphic (``static/js/regions.js``): the overlay's event bar,
players, board and pots, logo and sponsor, the lower third, the elimination graphic, the
level clock and the ticker each have their own, and no two of them overlap (the all-in
"versus" graphic shares the elimination graphic's: :data:`TIME_SHARED`), so the pages
stacked in OBS never collide. The chip counts and the payouts are full-frame panels, shown
instead of the table (a break, a bubble): their region is the whole frame and they are not
counted.

A region is ``(x, y, width, height, anchor)`` in stage pixels (1920x1080; 1080x1920 for a
portrait source). ``anchor`` says where in the region a graphic smaller than it sits
(``top-left``, ``top-right``, ``top``, ``bottom``, ``bottom-left``, ``bottom-right``).
With ``safe``, every region is mapped into the title-safe area (EBU R 95: 5 % of the width
and of the height on each side), so nothing is drawn outside it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["ANCHORS", "EXCLUSIVE", "LAYOUTS", "OFFERED", "TIME_SHARED", "Layout", "Region",
           "regions_of"]

Anchor = Literal["top-left", "top-right", "top", "bottom", "bottom-left", "bottom-right"]
ANCHORS: tuple[str, ...] = ("top-left", "top-right", "top", "bottom", "bottom-left",
                            "bottom-right")
STAGE = {"landscape": (1920, 1080), "portrait": (1080, 1920)}
SAFE_MARGIN = 0.05
"""EBU R 95's graphics-safe area: 5 % of the frame on each side."""


@dataclass(frozen=True, slots=True)
class Region:
    x: float
    y: float
    width: float
    height: float
    anchor: Anchor = "top-left"
    grow: bool = False
    """Scale the graphic up to fill the region too (the venue's screens), not only down."""

    def overlaps(self, other: Region) -> bool:
        return (self.x < other.x + other.width and other.x < self.x + self.width
                and self.y < other.y + other.height and other.y < self.y + self.height)

    def inside(self, width: float, height: float) -> bool:
        return (self.x >= 0 and self.y >= 0 and self.x + self.width <= width
                and self.y + self.height <= height)

    def mirrored(self, width: float) -> Region:
        flip = {"top-left": "top-right", "top-right": "top-left",
                "bottom-left": "bottom-right", "bottom-right": "bottom-left"}
        anchor: Any = flip.get(self.anchor, self.anchor)
        return Region(width - self.x - self.width, self.y, self.width, self.height, anchor,
                      self.grow)

    def into(self, frame: tuple[float, float], safe: tuple[float, float, float, float]
             ) -> Region:
        """This region mapped from the whole ``frame`` into the ``safe`` rectangle."""
        sx, sy, sw, sh = safe
        fx, fy = sw / frame[0], sh / frame[1]
        return Region(sx + self.x * fx, sy + self.y * fy, self.width * fx, self.height * fy,
                      self.anchor, self.grow)

    def to_json(self) -> dict[str, Any]:
        return {"x": round(self.x, 2), "y": round(self.y, 2), "width": round(self.width, 2),
                "height": round(self.height, 2), "anchor": self.anchor, "grow": self.grow}


EXCLUSIVE = ("event", "logo", "sponsor", "players", "table", "lowerthird", "elimination",
             "clock", "ticker")
"""The graphics that never overlap in any layout that has them
(``tests/overlay/test_layouts.py``); a layout may leave some out (the venue's screen has no
lower third: its page then draws where the page's CSS puts it)."""

TIME_SHARED = {"versus": "elimination"}
"""Graphics that take another's region because the two are never on air at once: the all-in
"versus" graphic shows only while the cards run out of an all-in (the view's
``tournament.allin``), the elimination graphic only once the hand is over, and it gives way
when a new all-in comes (``static/elimination.js``)."""


@dataclass(frozen=True, slots=True)
class Layout:
    name: str
    title: str
    landscape: Mapping[str, Region]
    portrait: Mapping[str, Region]
    opaque: bool = False
    """A full-screen picture of its own (the in-room TVs), not graphics over the camera."""
    offered: bool = True
    """In the Graphics panel's choice for the stream (the venue's is pinned by its URL)."""


_FULL_LANDSCAPE = Region(48, 40, 1824, 1000, "top")
_FULL_PORTRAIT = Region(40, 40, 1000, 1840, "top")

_COLUMN_LEFT = {
    "event": Region(48, 40, 1060, 64, "top-left"),
    "sponsor": Region(1130, 40, 360, 72, "top-right"),
    "logo": Region(1512, 40, 360, 72, "top-right"),
    "players": Region(48, 124, 730, 860, "top-left"),
    "lowerthird": Region(800, 124, 1072, 176, "top-right"),
    "elimination": Region(800, 312, 1072, 230, "top-right"),
    # tall enough for the winner banner, the board and the pots at their own size: the board
    # never shrinks when the banner comes; the clock beside it
    "table": Region(800, 650, 730, 334, "bottom-left"),
    "clock": Region(1546, 554, 326, 430, "bottom-right"),
    "ticker": Region(48, 1000, 1824, 44, "bottom"),
    "leaderboard": _FULL_LANDSCAPE,
    "payouts": _FULL_LANDSCAPE,
}

_PORTRAIT = {
    "logo": Region(40, 40, 480, 64, "top-left"),
    "sponsor": Region(560, 40, 480, 64, "top-right"),
    "event": Region(40, 128, 1000, 120, "top-left"),
    "players": Region(40, 260, 1000, 880, "top-left"),
    "lowerthird": Region(40, 1152, 1000, 180, "bottom-left"),
    "elimination": Region(40, 1344, 1000, 200, "bottom"),
    "table": Region(40, 1556, 640, 272, "bottom"),
    "clock": Region(700, 1556, 340, 272, "bottom-right"),
    "ticker": Region(40, 1840, 1000, 44, "bottom"),
    "leaderboard": _FULL_PORTRAIT,
    "payouts": _FULL_PORTRAIT,
}

# Players in a bar along the bottom (each a card: hole cards on top, name, stack, chance):
# the lower third and the elimination graphic on the left above it, the clock and the board
# with the pots on the right.
_BOTTOM_BAR = {
    "event": Region(48, 40, 1060, 64, "top-left"),
    "sponsor": Region(1130, 40, 360, 72, "top-right"),
    "logo": Region(1512, 40, 360, 72, "top-right"),
    "lowerthird": Region(48, 124, 1072, 176, "top-left"),
    "elimination": Region(48, 312, 1072, 230, "top-left"),
    "clock": Region(1546, 124, 326, 294, "top-right"),
    "table": Region(1150, 430, 722, 318, "bottom-right"),
    "players": Region(48, 760, 1824, 228, "bottom"),
    "ticker": Region(48, 1000, 1824, 44, "bottom"),
    "leaderboard": _FULL_LANDSCAPE,
    "payouts": _FULL_LANDSCAPE,
}

# The venue's screens (in-room TVs on the venue channel, ?layout=venue): an opaque full-screen
# picture, the players and the board as large as the frame allows, readable across the room.
_VENUE = {
    "event": Region(40, 30, 1840, 90, "top", grow=True),
    "players": Region(40, 150, 900, 900, "top-left", grow=True),
    "table": Region(980, 150, 900, 520, "bottom", grow=True),
    "clock": Region(980, 700, 900, 250, "top", grow=True),
    "sponsor": Region(980, 970, 440, 80, "bottom-left", grow=True),
    "logo": Region(1440, 970, 440, 80, "bottom-right", grow=True),
}

def _shared(regions: Mapping[str, Region]) -> dict[str, Region]:
    return {**regions, **{name: regions[host] for name, host in TIME_SHARED.items()
                          if host in regions}}


_COLUMN_LEFT = _shared(_COLUMN_LEFT)
_BOTTOM_BAR = _shared(_BOTTOM_BAR)
_PORTRAIT = _shared(_PORTRAIT)

LAYOUTS: Mapping[str, Layout] = {
    "column-left": Layout("column-left", "Players on the left", _COLUMN_LEFT, _PORTRAIT),
    "column-right": Layout("column-right", "Players on the right",
                           {name: region.mirrored(1920) for name, region in _COLUMN_LEFT.items()},
                           _PORTRAIT),
    "bottom-bar": Layout("bottom-bar", "Players in a bar at the bottom", _BOTTOM_BAR,
                         _PORTRAIT),
    "venue": Layout("venue", "Venue screen (full screen, opaque)", _VENUE, _PORTRAIT,
                    opaque=True, offered=False),
}
DEFAULT_LAYOUT = "column-left"
OFFERED: tuple[str, ...] = tuple(name for name, item in LAYOUTS.items() if item.offered)
"""The layouts the stream may use (the venue's screens pin theirs by URL)."""


def regions_of(name: str, *, safe: bool = False) -> dict[str, Any]:
    """The regions of layout ``name`` as the pages get them: ``{"name", "landscape": {graphic:
    region}, "portrait": {...}, "opaque": bool}``, mapped into the title-safe area with
    ``safe``.

    :raises KeyError: for a layout that does not exist.
    """
    layout = LAYOUTS[name]
    result: dict[str, Any] = {"name": layout.name, "opaque": layout.opaque}
    for orientation in ("landscape", "portrait"):
        regions: Mapping[str, Region] = getattr(layout, orientation)
        width, height = STAGE[orientation]
        if safe:
            box = (width * SAFE_MARGIN, height * SAFE_MARGIN, width * (1 - 2 * SAFE_MARGIN),
                   height * (1 - 2 * SAFE_MARGIN))
            regions = {key: region.into((width, height), box) for key, region in regions.items()}
        result[orientation] = {key: region.to_json() for key, region in regions.items()}
    return result
