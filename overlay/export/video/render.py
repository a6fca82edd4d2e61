"""The overlay's graphics for one view, as a layer to burn into frames.

:class:`OverlayRenderer` lays a view (``docs/view-model.md``) out like the browser overlay
(``static/overlay.html``/``.css``/``.js`` on its 1920x1080 stage, scaled to the footage): the
event bar (table name, hand, level, blinds, ante), one box per seated player (hole cards, name,
position, last action or winnings, made hand, stack and big blinds, equity and its bar; the
player to act, winners and folded hands marked the same way), and the board with the street,
the pots and the winner banner. Graphics change only at events, so a view is drawn once into
a :class:`Layer`; burning a layer into a frame is then a blend of a few precomputed tiles
(:meth:`Layer.composite`), and its PNG (for ``--alpha``) is encoded once.

A view is first laid out as a :class:`Scene` (the cached images of its boxes, in order, with
their places); the burn-in composites scenes into one :class:`FrameCanvas`, only where one
differs from the last (a new event changes a box or two, not the frame).
"""

from __future__ import annotations

import json
import struct
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from PIL import Image, ImageChops, ImageDraw

from engine.actions import chips as engine_chips
from engine.errors import InvalidInputError
from overlay.export.video.draw import (
    COLORS,
    card_image,
    fit_text,
    font,
    rounded,
    shadow,
    text_width,
    tracked_text,
    with_opacity,
)
from overlay.export.video.timeline import Clocks
from overlay.graphics.layouts import DEFAULT_LAYOUT, LAYOUTS

__all__ = ["STAGE", "FrameCanvas", "Layer", "OverlayRenderer", "Scene", "Tile",
           "bmp_header"]

STAGE = (1920, 1080)
"""The browser overlay's stage (an OBS browser source of 1920x1080)."""

_STREETS = {"preflop": "Pre-flop", "flop": "Flop", "turn": "Turn", "river": "River",
            "showdown": "Showdown", "over": ""}
_ANTES = {"big_blind": "BB ante", "button": "Button ante", "per_player": "Ante"}


def chips(amount: int | None) -> str:
    return "" if amount is None else engine_chips(amount)


def big_blinds(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value:.0f} BB" if abs(value) >= 100 else f"{value:.1f} BB"


@dataclass(slots=True)
class Tile:
    """One rectangle of a layer, ready to blend: ``frame = (frame * inv + pre) >> 8``.
    A fully transparent pixel gives ``(frame * 256 + 128) >> 8 == frame``: untouched."""

    y0: int
    y1: int
    x0: int
    x1: int
    inv: np.ndarray
    """256 - alpha (0-256, uint16, three channels)."""
    pre: np.ndarray
    """Colour times alpha, plus 128 to round (uint16, BGR)."""


@dataclass(slots=True)
class Layer:
    """The graphics of one view at the output size: the drawn regions (straight-alpha BGRA,
    with their top-left corners); the blend tiles of :meth:`composite` are cut when first
    used, the files of :meth:`png` and :meth:`bmp` encoded once."""

    width: int
    height: int
    parts: list[tuple[int, int, np.ndarray]]
    _tiles: list[Tile] | None = field(default=None, repr=False)
    _png: bytes | None = field(default=None, repr=False)

    @classmethod
    def from_rgba(cls, image: Image.Image, groups: Sequence[tuple[int, int, int, int]],
                  ) -> Layer:
        """The layer of ``image`` (RGBA, the output size); only the ``groups`` boxes (x0, y0,
        x1, y1) may hold graphics (they may overlap: one region around them all is read)."""
        width, height = image.size
        boxes = [(max(0, x0), max(0, y0), min(width, x1), min(height, y1))
                 for x0, y0, x1, y1 in groups]
        boxes = [b for b in boxes if b[2] > b[0] and b[3] > b[1]]
        if not boxes:
            return cls(width, height, [])
        x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
        x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
        crop = np.asarray(image.crop((x0, y0, x1, y1)), dtype=np.uint8)
        bgra = cv2.cvtColor(crop, cv2.COLOR_RGBA2BGRA)
        return cls(width, height, [(x0, y0, bgra)])

    @classmethod
    def empty(cls, width: int, height: int) -> Layer:
        return cls(width, height, [])

    @property
    def bgra(self) -> np.ndarray:
        """The whole layer as one straight-alpha BGRA image (transparent where no graphics)."""
        out = np.zeros((self.height, self.width, 4), np.uint8)
        for x0, y0, part in self.parts:
            region = out[y0:y0 + part.shape[0], x0:x0 + part.shape[1]]
            if len(self.parts) == 1:
                region[...] = part
            else:  # overlapping regions: the more opaque pixel wins
                np.copyto(region, part, where=part[:, :, 3:4] > region[:, :, 3:4])
        return out

    @property
    def tiles(self) -> list[Tile]:
        """The blend tiles of :meth:`composite`."""
        if self._tiles is None:
            self._tiles = [tile for x0, y0, part in self.parts for tile in _tiles(part, x0, y0)]
        return self._tiles

    def composite(self, frame: np.ndarray) -> np.ndarray:
        """Burn the graphics into ``frame`` (BGR uint8, the layer's size), in place."""
        for tile in self.tiles:
            roi = frame[tile.y0:tile.y1, tile.x0:tile.x1]
            mixed = roi.astype(np.uint16)
            mixed *= tile.inv
            mixed += tile.pre
            mixed >>= 8
            roi[...] = mixed
        return frame

    def png(self) -> bytes:
        """The layer as a PNG with transparency (encoded once): the editors' files."""
        if self._png is None:
            ok, data = cv2.imencode(".png", self.bgra, [cv2.IMWRITE_PNG_COMPRESSION, 1])
            if not ok:  # pragma: no cover - OpenCV encodes any BGRA array
                raise RuntimeError("PNG encoding failed")
            self._png = data.tobytes()
        return self._png

    def bmp(self) -> bytes:
        """The layer as a 32-bit BMP with its alpha, uncompressed: what ffmpeg reads of each
        picture of a burn-in (:class:`~overlay.export.video.encode.OverlayEncoder`), written
        and read in a fraction of a PNG's time (not kept: one is written per picture). The
        rows go top-down (a negative height), so the pixels are the layer's own bytes."""
        return bmp_header(self.width, self.height) + self.bgra.tobytes()


def bmp_header(width: int, height: int, *, rgba: bool = False) -> bytes:
    """The headers of a top-down 32-bit BMP (a BITMAPV5HEADER: the masks say where the
    alpha is, as OpenCV writes it), for ``width * height * 4`` bytes of pixels after it:
    BGRA, or with ``rgba`` RGBA (the byte order of Pillow's and :class:`FrameCanvas`'s
    pixels; ffmpeg reads both)."""
    pixels = width * height * 4
    red, blue = (0x000000FF, 0x00FF0000) if rgba else (0x00FF0000, 0x000000FF)
    info = struct.pack("<IiiHHIIiiII4I4s", 124, width, -height, 1, 32, 3, pixels, 2835, 2835,
                       0, 0, red, 0x0000FF00, blue, 0xFF000000, b"BGRs")
    info += bytes(124 - len(info))  # no colour end points, gamma, intent or profile
    return struct.pack("<2sIHHI", b"BM", 14 + 124 + pixels, 0, 0, 14 + 124) + info


Box = tuple[int, int, int, int]
"""A rectangle (x0, y0, x1, y1) of a frame, ends excluded."""

Placed = tuple[Image.Image, int, int]
"""An image and where its top-left corner goes on the frame (possibly off it: a shadow)."""


@dataclass(frozen=True, slots=True, eq=False)
class Scene:
    """A view's graphics as :class:`OverlayRenderer` lays them out, before compositing: the
    ``items`` composited in order over a clear frame, the result kept inside ``box`` only
    (clear elsewhere; None: nothing drawn). The images are the renderer's cached ones: an
    item that shows the same thing as before is the same object."""

    width: int
    height: int
    items: tuple[Placed, ...]
    box: Box | None

    def layer(self) -> Layer:
        """The scene composited (its :class:`Layer`: one region, the box)."""
        if self.box is None:
            return Layer.empty(self.width, self.height)
        x0, y0, x1, y1 = self.box
        canvas = Image.new("RGBA", (x1 - x0, y1 - y0), (0, 0, 0, 0))
        _compose(canvas, [(image, x - x0, y - y0) for image, x, y in self.items],
                 (0, 0, x1 - x0, y1 - y0))
        bgra = cv2.cvtColor(np.asarray(canvas, dtype=np.uint8), cv2.COLOR_RGBA2BGRA)
        return Layer(self.width, self.height, [(x0, y0, bgra)])


def _union(boxes: Sequence[Box], frame: Box) -> Box | None:
    """The rectangle around ``boxes`` cut to ``frame`` (None: nothing of them inside)."""
    cut = [b for b in (_meet(box, frame) for box in boxes) if b is not None]
    if not cut:
        return None
    return (min(b[0] for b in cut), min(b[1] for b in cut), max(b[2] for b in cut),
            max(b[3] for b in cut))


def _meet(a: Box, b: Box) -> Box | None:
    """Where ``a`` and ``b`` overlap (None: nowhere)."""
    x0, y0, x1, y1 = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None


def _minus(a: Box | None, b: Box | None) -> list[Box]:
    """``a`` without ``b``, as up to four rectangles."""
    if a is None:
        return []
    both = _meet(a, b) if b is not None else None
    if both is None:
        return [a]
    x0, y0, x1, y1 = both
    parts = [(a[0], a[1], a[2], y0), (a[0], y1, a[2], a[3]), (a[0], y0, x0, y1),
             (x1, y0, a[2], y1)]
    return [p for p in parts if p[2] > p[0] and p[3] > p[1]]


def _extent(item: Placed) -> Box:
    image, x, y = item
    return (x, y, x + image.width, y + image.height)


def _compose(canvas: Image.Image, items: Sequence[Placed], clip: Box) -> None:
    """Composite ``items`` over ``canvas`` in order, inside ``clip`` only. Alpha compositing
    is done pixel by pixel: inside ``clip`` the result is that of compositing them whole."""
    for item in items:
        inside = _meet(_extent(item), clip)
        if inside is not None:
            image, x, y = item
            x0, y0, x1, y1 = inside
            canvas.alpha_composite(image, (x0, y0), (x0 - x, y0 - y, x1 - x, y1 - y))


def _merged(boxes: list[Box]) -> list[Box]:
    """``boxes`` with any two that overlap replaced by the rectangle around them, until none
    overlap (each pixel is then redrawn once)."""
    out: list[Box] = []
    for box in boxes:
        while True:
            hit = next((k for k, other in enumerate(out) if _meet(box, other) is not None),
                       None)
            if hit is None:
                break
            other = out.pop(hit)
            box = (min(box[0], other[0]), min(box[1], other[1]), max(box[2], other[2]),
                   max(box[3], other[3]))
        out.append(box)
    return out


class FrameCanvas:
    """One frame's graphics, kept from one :class:`Scene` to the next: :meth:`draw`
    composites a scene only where it differs from the previous one (an item changed, moved,
    came or went; the box grew or shrank), so a picture that changes one player's box costs
    that box, not the frame. The pixels are straight-alpha RGBA in one array (:attr:`pixels`),
    drawn into by Pillow in place: nothing is copied to hand them on (the burn-in writes them
    to ffmpeg after a :func:`bmp_header` with ``rgba``)."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.pixels = np.zeros((height, width, 4), np.uint8)
        self._image = self._mapped()
        self._items: tuple[Placed, ...] = ()
        self._box: Box | None = None
        self.redrawn = 0
        """Pixels composited again so far (what the incremental drawing saves, for tests)."""

    def _mapped(self) -> Image.Image | None:
        """A Pillow image whose pixels are :attr:`pixels` (frombuffer maps them; marked
        writable, Pillow draws into them instead of copying first), or None if this Pillow
        copies them all the same (checked with one pixel)."""
        image = Image.frombuffer("RGBA", (self.width, self.height), self.pixels, "raw",
                                 "RGBA", 0, 1)
        image.readonly = 0
        image.paste((1, 2, 3, 4), (0, 0, 1, 1))
        mapped = bool(self.pixels[0, 0, 3] == 4)
        image.paste((0, 0, 0, 0), (0, 0, 1, 1))
        self.pixels[0, 0] = 0
        return image if mapped else None

    def draw(self, scene: Scene) -> np.ndarray:
        """:attr:`pixels` showing ``scene`` (the same array each time: use it before the next
        call): equal to ``scene.layer()`` placed on a clear frame, byte for byte."""
        if (scene.width, scene.height) != (self.width, self.height):
            raise ValueError(f"a {scene.width}x{scene.height} scene on a "
                             f"{self.width}x{self.height} canvas")
        old, new = self._items, scene.items
        dirty: list[Box] = []
        for k in range(max(len(old), len(new))):
            was = old[k] if k < len(old) else None
            now = new[k] if k < len(new) else None
            if was is not None and now is not None and was[0] is now[0] \
                    and was[1:] == now[1:]:
                continue  # the same image at the same place and order: the same pixels
            dirty += [_extent(item) for item in (was, now) if item is not None]
        if scene.box != self._box:
            dirty += _minus(self._box, scene.box) + _minus(scene.box, self._box)
        frame = (0, 0, self.width, self.height)
        for box in _merged([b for b in (_meet(d, frame) for d in dirty) if b is not None]):
            x0, y0, x1, y1 = box
            self.pixels[y0:y1, x0:x1] = 0
            self.redrawn += (x1 - x0) * (y1 - y0)
            inside = _meet(box, scene.box) if scene.box is not None else None
            if inside is None:
                continue
            if self._image is not None:
                _compose(self._image, new, inside)
            else:  # pragma: no cover - a Pillow that does not draw into a mapped buffer
                part = Image.new("RGBA", (inside[2] - inside[0], inside[3] - inside[1]))
                _compose(part, [(image, x - inside[0], y - inside[1]) for image, x, y in new],
                         (0, 0, part.width, part.height))
                self.pixels[inside[1]:inside[3], inside[0]:inside[2]] = np.asarray(part)
        self._items, self._box = new, scene.box
        return self.pixels


BAND = 32
"""Height of the horizontal bands a drawn region is cut into (each trimmed to its columns)."""


def _tiles(bgra: np.ndarray, x0: int, y0: int) -> list[Tile]:
    """Blend tiles of one drawn region at (x0, y0): each connected piece of graphics (the
    event bar with the player column, the board panel, ...) cut into bands of :data:`BAND`
    rows, each trimmed to the columns it draws on. A tile carries only its own piece's pixels
    (elsewhere ``inv`` 256, ``pre`` 128: unchanged), so tiles of different pieces may overlap
    and every pixel is still blended once. Transparent parts of a frame are never touched."""
    alpha = bgra[:, :, 3]
    count, labels, stats, _ = cv2.connectedComponentsWithStats(
        (alpha > 0).astype(np.uint8), connectivity=8)
    tiles = []
    for label in range(1, count):
        left, top, width, height = (int(v) for v in stats[label][:4])
        for b0 in range(top, top + height, BAND):
            b1 = min(b0 + BAND, top + height)
            own = labels[b0:b1, left:left + width] == label
            cols = np.flatnonzero(own.any(axis=0))
            if cols.size == 0:
                continue
            c0, c1 = left + int(cols[0]), left + int(cols[-1]) + 1
            mine = own[:, c0 - left:c1 - left, None]
            part = bgra[b0:b1, c0:c1]
            a16 = np.where(mine, part[:, :, 3:4], 0).astype(np.uint16)
            a16 += a16 >> 7  # 0-255 -> 0-256
            inv = np.repeat(256 - a16, 3, axis=2)
            pre = part[:, :, :3].astype(np.uint16) * a16 + 128  # rounds the >> 8 to nearest
            tiles.append(Tile(y0 + b0, y0 + b1, x0 + c0, x0 + c1, inv, pre))
    return tiles


class OverlayRenderer:
    """Draws views at ``width`` x ``height``: the 1920x1080 stage scaled to fit, centred."""

    def __init__(self, width: int, height: int) -> None:
        if width < 16 or height < 16:
            raise InvalidInputError(f"frames of {width}x{height} are too small to draw the "
                                    f"graphics on (16x16 at least)")
        self.width, self.height = width, height
        self.scale = min(width / STAGE[0], height / STAGE[1])
        self.ox = (width - STAGE[0] * self.scale) / 2
        self.oy = (height - STAGE[1] * self.scale) / 2
        self._cache = _ImageCache(40)
        """Player boxes by what they show: a new event redraws only the boxes it changes."""
        self.rendered = 0
        """How many views were drawn (cache misses), for tests and the benchmark."""

    # --- units ---------------------------------------------------------------------------

    def u(self, value: float) -> int:
        """A length on the stage, in output pixels."""
        return max(0, round(value * self.scale))

    def x(self, value: float) -> int:
        return round(self.ox + value * self.scale)

    def y(self, value: float) -> int:
        return round(self.oy + value * self.scale)

    def f(self, weight: int, size: float) -> Any:
        return font(weight, max(1, round(size * self.scale)))

    # --- the view --------------------------------------------------------------------------

    def render(self, view: Mapping[str, Any] | None, clocks: Clocks | None = None) -> Layer:
        """The layer for ``view`` (an empty layer for None: nothing known yet) with the
        ``clocks`` of this frame (:func:`~overlay.export.video.timeline.clocks_at`)."""
        return self.scene(view, clocks).layer()

    def scene(self, view: Mapping[str, Any] | None, clocks: Clocks | None = None) -> Scene:
        """What :meth:`render` composites for ``view``, not yet composited: the images in
        order and the box they are kept in (a :class:`FrameCanvas` composites only what
        changed from one scene to the next)."""
        if view is None:
            return Scene(self.width, self.height, (), None)
        clocks = clocks or Clocks()
        self.rendered += 1
        items: list[Placed] = []
        table = view.get("table") or {}
        seats = [s for s in view.get("seats") or () if s.get("name") is not None]
        best = _best_cards(table, seats)
        tournament = view.get("tournament") or {}
        clock = tournament.get("clock") if isinstance(tournament.get("clock"), dict) else {}
        left = self._event_bar(items, table, clock or {}, clocks.level)
        if clocks.action_seat is not None:
            left = self._action_clock(items, seats, clocks, left)
        bottom = self._players(items, seats, best, clocks.action_seat)
        panel = self._table_panel(items, table, seats, best)
        groups = [(0, 0, max(left + self.u(40), self.x(48 + 708 + 40)),
                   max(bottom, self.y(100) + self.u(40)))]
        if panel is not None:
            groups.append(panel)
        return Scene(self.width, self.height, tuple(items),
                     _union(groups, (0, 0, self.width, self.height)))

    def _paste(self, items: list[Placed], image: Image.Image, x: int, y: int, *,
               shade: tuple[float, float, float] | None = None, radius: float = 10) -> None:
        """Composite ``image`` at (x, y), with a drop shadow ``(offset_y, blur, alpha)``
        (into the scene's ``items``: the shadow, then the image)."""
        if shade is not None:
            dy, blur, alpha = shade
            pad = max(1, self.u(blur))
            halo = shadow(image.size, self.u(radius), pad, alpha)
            items.append((halo, x - pad, y - pad + self.u(dy)))
        items.append((image, x, y))

    def _cached(self, key: Any, draw: Any, *args: Any) -> Image.Image:
        """``draw(*args)``, or the image drawn before for the same ``key``."""
        text = json.dumps(key, sort_keys=True)
        image = self._cache.get(text)
        if image is None:
            image = self._cache.put(text, draw(*args))
        return image

    def _event_bar(self, items: list[Placed], table: Mapping[str, Any],
                   clock: Mapping[str, Any], level_clock: tuple[str, bool] | None) -> int:
        """The bar at the top left (``clock``: the tournament clock's object, for a break and
        the next level); returns where the next thing may go on its right."""
        level = table.get("level") or {}
        on_break = bool(clock.get("is_break")) and not table.get("street")
        upcoming = clock.get("next") if isinstance(clock.get("next"), dict) else None
        key = ["bar", table.get("name"), table.get("hand_number"), level, level_clock,
               on_break and (clock.get("name") or "Break"), upcoming]
        if not table.get("name") and not table.get("hand_number") and not level.get("number") \
                and level.get("big_blind") is None and level_clock is None and not on_break:
            return self.x(48)
        out = self._cached(key, self._draw_event_bar, table, level_clock,
                           str(clock.get("name") or "Break") if on_break else "", upcoming)
        x0, y0 = self.x(48), self.y(40)
        self._paste(items, out, x0, y0, shade=(10, 30, 0.35))
        return x0 + out.width

    def _draw_event_bar(self, table: Mapping[str, Any], clock: tuple[str, bool] | None,
                        on_break: str, upcoming: Mapping[str, Any] | None) -> Image.Image:
        level = table.get("level") or {}
        name = str(table.get("name") or "").upper()
        parts: list[tuple[str, int, str]] = []  # text, weight, colour
        if table.get("hand_number"):
            parts.append((f"Hand {table['hand_number']}", 600, "ink-dim"))
        if on_break:
            parts.append((on_break.upper(), 800, "break"))
        else:
            if level.get("number") is not None:
                parts.append((f"Level {level['number']}", 600, "ink-dim"))
            if level.get("big_blind") is not None:
                parts.append((f"{chips(level.get('small_blind'))} / "
                              f"{chips(level['big_blind'])}", 800, "ink"))
            if level.get("ante"):
                label = _ANTES.get(str(level.get("ante_mode")), "Ante")
                parts.append((f"{label} {chips(level['ante'])}", 600, "ink-dim"))
        h = self.u(56)
        name_face = self.f(800, 21)
        name_w = (round(text_width(name, name_face, 0.04 * 21 * self.scale)) + self.u(44)
                  if name else 0)
        following = ""
        if upcoming is not None and isinstance(upcoming.get("big_blind"), int):
            following = "Next " + " · ".join(filter(None, (
                f"{chips(upcoming.get('small_blind'))} / {chips(upcoming['big_blind'])}",
                f"Ante {chips(upcoming['ante'])}" if upcoming.get("ante") else "")))
        gap = self.u(22)
        chip_face = self.f(800, 21)
        chip_w = round(text_width(clock[0], chip_face)) + self.u(20) if clock else 0
        track = 0.06 * 21 * self.scale
        widths = [round(text_width(t, self.f(w, 21), track if c == "break" else 0.0))
                  + (self.u(20) if c == "break" else 0) for t, w, c in parts]
        if clock:
            widths.append(chip_w)
        next_face = self.f(600, 17)
        if following:
            widths.append(round(text_width(following, next_face)))
        meta_w = (sum(widths) + gap * max(0, len(widths) - 1) + self.u(48)) if widths else 0
        bar = Image.new("RGBA", (name_w + meta_w, h), (0, 0, 0, 0))
        draw = ImageDraw.Draw(bar)
        if name:
            draw.rectangle((0, 0, name_w, h), fill=COLORS["accent"])
            tracked_text(draw, (self.u(22), h / 2), name, name_face, COLORS["accent-ink"],
                         0.04 * 21 * self.scale, anchor="lm")
        if widths:
            draw.rectangle((name_w, 0, name_w + meta_w, h), fill=COLORS["panel"])
            x = name_w + self.u(24)
            for (text, weight, colour), width in zip(parts, widths, strict=False):
                face = self.f(weight, 21)
                if colour == "break":  # a break: a blue chip instead of level and blinds
                    chip = rounded((width, self.u(29)), self.u(6), COLORS["equity"])
                    tracked_text(ImageDraw.Draw(chip), (self.u(10), chip.height / 2), text,
                                 face, COLORS["break-ink"], track, anchor="lm")
                    bar.alpha_composite(chip, (x, (h - chip.height) // 2))
                else:
                    draw.text((x, h / 2), text, font=face, fill=COLORS[colour], anchor="lm")
                x += width + gap
            if clock:  # the level clock: a white chip (grey while the clock stands still)
                chip = rounded((chip_w, self.u(29)), self.u(6),
                               COLORS["ink-dim"] if clock[1] else COLORS["white"])
                ImageDraw.Draw(chip).text((chip_w / 2, chip.height / 2), clock[0],
                                          font=chip_face, fill=COLORS["dark-ink"], anchor="mm")
                bar.alpha_composite(chip, (x, (h - chip.height) // 2))
                x += chip_w + gap
            if following:
                draw.text((x, h / 2), following, font=next_face, fill=COLORS["ink-dim"],
                          anchor="lm")
        return _clip(bar, radius_mask=_mask_of(bar.size, self.u(10)))

    def _action_clock(self, items: list[Placed], seats: Sequence[Mapping[str, Any]],
                      clocks: Clocks, left: int) -> int:
        """The R12 clock box beside the event bar: CLOCK, the player, the time left (white
        with red figures in the final ten seconds)."""
        seat = next((s for s in seats if s.get("seat") == clocks.action_seat), None)
        name = str(seat.get("name")) if seat else f"Seat {clocks.action_seat}"
        box = self._cached(["action-clock", name, clocks.action, clocks.final],
                           self._draw_action_clock, name, clocks.action, clocks.final)
        x = left + self.u(10)
        self._paste(items, box, x, self.y(40), shade=(10, 30, 0.35))
        return x + box.width

    def _draw_action_clock(self, name: str, left: str, final: bool) -> Image.Image:
        label_face, name_face, time_face = self.f(800, 14), self.f(800, 21), self.f(800, 26)
        track = 0.16 * 14 * self.scale
        gap = self.u(12)
        label_w = round(text_width("CLOCK", label_face, track))
        name_w = round(text_width(name, name_face))
        time_w = max(round(text_width(left, time_face)), round(text_width("0:00", time_face)))
        w = self.u(36) + label_w + name_w + time_w + 2 * gap
        h = self.u(56)
        ink = COLORS["allin"] if final else COLORS["white"]
        box = rounded((w, h), self.u(10), COLORS["white"] if final else COLORS["allin"])
        draw = ImageDraw.Draw(box)
        x = self.u(18)
        tracked_text(draw, (x, h / 2), "CLOCK", label_face, ink, track, anchor="lm")
        x += label_w + gap
        draw.text((x, h / 2), name, font=name_face, fill=ink, anchor="lm")
        x += name_w + gap + time_w
        draw.text((x, h / 2), left, font=time_face, fill=ink, anchor="rm")
        return box

    # --- players ---------------------------------------------------------------------------

    def _players(self, items: list[Placed], seats: Sequence[Mapping[str, Any]],
                 best: set[str], on_clock: int | None) -> int:
        """The player boxes down the left; returns the bottom edge."""
        with_equity = any(s.get("equity") and not s.get("folded") for s in seats)
        width = 708 if with_equity else 612
        crowded = len(seats) >= 10  # static/overlay.js CROWDED_FROM: a compact column
        y = 124.0
        for seat in seats:
            clocked = seat.get("seat") == on_clock
            box = self._cached(["seat", seat, width, with_equity, sorted(best), clocked,
                                crowded],
                               self._player, seat, width, with_equity, best, clocked, crowded)
            dx = 14 if seat.get("to_act") else 0
            self._paste(items, box, self.x(48 + dx), self.y(y), shade=(8, 22, 0.35))
            y += 86 if crowded else 102
        return self.y(y) + self.u(40)

    def _player(self, seat: Mapping[str, Any], width: int, with_equity: bool,
                best: set[str], on_clock: bool = False, crowded: bool = False) -> Image.Image:
        w, h = self.u(width), self.u(82 if crowded else 96)
        dy = self.u(1 if crowded else 8)  # the text block, centred in the taller box
        folded = bool(seat.get("folded") or seat.get("sitting_out"))
        if folded:
            body = rounded((w, h), self.u(10), COLORS["folded"])
        else:
            body = rounded((w, h), self.u(10), gradient=(COLORS["panel"], COLORS["panel-2"]))
        content = Image.new("RGBA", (w, h), (0, 0, 0, 0))
        draw = ImageDraw.Draw(content)
        # hole cards (a folded hand's unknown backs are mucked from the graphics)
        cards = list(seat.get("cards") or [])
        if seat.get("folded") and all(c is None for c in cards):
            cards = []
        showdown = bool(best)
        card_w = self.u(54 if crowded else 58)  # the largest thing in the box
        cx = self.u(18)
        for code in cards:
            img = card_image(code, card_w, best=showdown and code in best,
                             muted=showdown and code is not None and code not in best)
            content.alpha_composite(img, (max(0, cx - (img.width - card_w) // 2),
                                          max(0, (h - img.height) // 2)))
            cx += card_w + self.u(5)
        # stack (right), before the name so the name knows its room
        equity_w = self.u(96) if with_equity else 0
        right = w - equity_w - self.u(14)
        all_in_now = bool(seat.get("all_in")) and seat.get("stack") == 0
        chips_text = "ALL IN" if all_in_now else chips(seat.get("stack"))
        chips_face = self.f(800, 27)
        bb_text = "" if all_in_now else big_blinds(seat.get("stack_bb"))
        tracking = 0.04 * 27 * self.scale if all_in_now else 0.0
        chips_w = text_width(chips_text, chips_face, tracking)
        chips_y = h / 2 - (self.u(4) if bb_text else -self.u(10))
        tracked_text(draw, (right - chips_w, chips_y), chips_text, chips_face,
                     COLORS["allin"] if all_in_now else COLORS["ink"], tracking, anchor="ls")
        if bb_text:
            bb_face = self.f(600, 16)
            draw.text((right, h / 2 + self.u(16)), bb_text, font=bb_face,
                      fill=COLORS["ink-dim"], anchor="rs")
        stack_left = right - max(chips_w, text_width(bb_text, self.f(600, 16))) - self.u(12)
        # name and position
        nx = self.u(150 + 6)
        name_face = self.f(700, 27)
        position = str(seat.get("position") or "")
        pos_face = self.f(800, 14)
        pos_w = (round(text_width(position, pos_face, 0.06 * 14 * self.scale)) + self.u(14)
                 if position else 0)
        room = stack_left - nx - (pos_w + self.u(10) if position else 0)
        name = fit_text(str(seat.get("name") or ""), name_face, room)
        name_base = self.u(36) + dy
        draw.text((nx, name_base), name, font=name_face, fill=COLORS["ink"], anchor="ls")
        if position:
            px = nx + round(text_width(name, name_face)) + self.u(10)
            badge = rounded((pos_w, self.u(22)), self.u(5), COLORS["white"])
            bd = ImageDraw.Draw(badge)
            tracked_text(bd, (self.u(7), badge.height / 2), position, pos_face,
                         COLORS["dark-ink"], 0.06 * 14 * self.scale, anchor="lm")
            content.alpha_composite(badge, (px, name_base - self.u(21)))
        # action (or winnings) and made hand
        action = seat.get("last_action")
        if seat.get("winner") and seat.get("won"):
            action = f"Wins {chips(seat['won'])}"
        elif seat.get("sitting_out") and not action:
            action = "Away"
        sy = self.u(45) + dy
        hx = nx
        if action:
            label = str(action).upper()
            verb = str(action).split(" ")[0].lower()
            fill, ink = COLORS["badge"], COLORS["ink"]
            if verb in ("raise", "raises", "bet", "bets"):
                fill, ink = COLORS["raise"], COLORS["dark-ink"]
            elif verb in ("all-in", "all"):
                fill, ink = COLORS["allin"], COLORS["white"]
            elif verb == "wins":
                fill, ink = COLORS["win"], COLORS["win-ink"]
            face = self.f(700, 15)
            track = 0.05 * 15 * self.scale
            bw = round(text_width(label, face, track)) + self.u(16)
            badge = rounded((bw, self.u(22)), self.u(5), fill)
            tracked_text(ImageDraw.Draw(badge), (self.u(8), badge.height / 2), label, face,
                         ink, track, anchor="lm")
            content.alpha_composite(badge, (nx, sy))
            hx = nx + bw + self.u(10)
        made = seat.get("hand")
        if made and not seat.get("folded"):
            face = self.f(400, 16)
            text = fit_text(str(made), face, stack_left - hx)
            draw.text((hx, sy + self.u(11)), text, font=face, fill=COLORS["ink-dim"],
                      anchor="lm")
        if folded:
            content = with_opacity(content, 0.4, desaturate=0.75)
        body.alpha_composite(content)
        # equity column and bar (never dimmed: a folded hand has none)
        equity = (seat.get("equity") or {}).get("equity") if not seat.get("folded") else None
        if with_equity:
            col = Image.new("RGBA", (equity_w, h), (255, 255, 255, 13))
            ImageDraw.Draw(col).line((0, 0, 0, h), fill=COLORS["line"], width=1)
            if equity is not None:
                ImageDraw.Draw(col).text((equity_w / 2, h / 2), f"{equity * 100:.0f}%",
                                         font=self.f(800, 28), fill=COLORS["equity"],
                                         anchor="mm")
            body.alpha_composite(col, (w - equity_w, 0))
        if equity is not None:
            bar_h = max(1, self.u(5))
            bar = Image.new("RGBA", (w, bar_h), (255, 255, 255, 15))
            fill_w = round(w * float(equity))
            if fill_w > 0:
                bar.alpha_composite(rounded((fill_w, bar_h), 0, gradient=(
                    COLORS["equity-from"], COLORS["equity"])))
            body.alpha_composite(bar, (0, h - bar_h))
        edge = None
        if on_clock:  # the R12 clock is on this player (the page's .on-clock wins)
            edge = COLORS["allin"]
        elif seat.get("winner"):
            edge = COLORS["win"]
        elif seat.get("to_act"):
            edge = COLORS["accent"]
        if edge is not None:
            ring = rounded((w, h), self.u(10), (0, 0, 0, 0), outline=edge,
                           outline_width=max(1, self.u(2)))
            ImageDraw.Draw(ring).rectangle((0, 0, max(0, self.u(6) - 1), h), fill=edge)
            body.alpha_composite(ring)
        return _clip(body, radius_mask=_mask_of((w, h), self.u(10)))

    # --- board, pots, winner ---------------------------------------------------------------

    def _table_panel(self, items: list[Placed], table: Mapping[str, Any],
                     seats: Sequence[Mapping[str, Any]], best: set[str],
                     ) -> tuple[int, int, int, int] | None:
        street = table.get("street")
        winners = [s for s in seats if s.get("winner")]
        if not street and not winners:
            return None  # between hands the panel fades out
        parts: list[Image.Image] = []
        if winners:
            parts.append(self._cached(["banner", winners], self._banner, winners))
        board = [c for c in table.get("board") or []]
        label = _STREETS.get(str(street), "") if street else ""
        if board or label:
            parts.append(self._cached(["board", board, label, street, sorted(best)],
                                      self._board, board, label, street, best))
        bets = [s.get("bet") for s in seats]
        parts.append(self._cached(["pots", table.get("pots"), bets], self._pots, table, seats))
        # The overlay's "table" region of its default layout (overlay/graphics/layouts.py):
        # scaled down to fit it, at its bottom, left, right or centred by its anchor, as
        # static/js/regions.js does.
        region = LAYOUTS[DEFAULT_LAYOUT].landscape["table"]
        gap = self.u(10)
        natural_w = max(part.width for part in parts)
        natural_h = sum(part.height for part in parts) + gap * (len(parts) - 1)
        fit = min(1.0, self.u(region.width) / natural_w, self.u(region.height) / natural_h)
        if fit < 1.0:
            parts = [part.resize((max(1, round(part.width * fit)),
                                  max(1, round(part.height * fit))), Image.Resampling.LANCZOS)
                     for part in parts]
            gap = round(gap * fit)
        bottom = self.y(region.y + region.height)
        width = max(part.width for part in parts)
        free = self.u(region.width) - width
        left = self.x(region.x) + (0 if region.anchor.endswith("left") else free
                                   if region.anchor.endswith("right") else free // 2)
        centre = left + width // 2
        y = bottom
        boxes = []
        for part in reversed(parts):
            y -= part.height
            x = centre - part.width // 2
            self._paste(items, part, x, y, shade=(12, 30, 0.4), radius=12)
            boxes.append((x, y, x + part.width, y + part.height))
            y -= gap
        pad = self.u(40)
        return (min(b[0] for b in boxes) - pad, min(b[1] for b in boxes) - pad,
                max(b[2] for b in boxes) + pad, max(b[3] for b in boxes) + pad)

    def _banner(self, winners: Sequence[Mapping[str, Any]]) -> Image.Image:
        names = " & ".join(str(s.get("name")) for s in winners)
        won = sum(int(s.get("won") or 0) for s in winners)
        title = f"{names} {'win' if len(winners) > 1 else 'wins'} {chips(won)}".upper()
        made = next((str(s["hand"]) for s in winners if s.get("hand")), "")
        title_face, hand_face = self.f(800, 30), self.f(600, 20)
        track = 0.03 * 30 * self.scale
        w = round(max(text_width(title, title_face, track), text_width(made, hand_face)))
        w += self.u(56)
        h = self.u(20 + 36 + (26 if made else 0))
        banner = rounded((w, h), self.u(10), gradient=(
            COLORS["banner-edge"], COLORS["banner-mid"], COLORS["banner-edge"]),
            outline=COLORS["win"], outline_width=max(1, self.u(2)))
        draw = ImageDraw.Draw(banner)
        tw = text_width(title, title_face, track)
        tracked_text(draw, ((w - tw) / 2, self.u(10 + 30)), title, title_face, COLORS["ink"],
                     track, anchor="ls")
        if made:
            draw.text((w / 2, self.u(10 + 36 + 20)), made, font=hand_face,
                      fill=COLORS["win-hand"], anchor="ms")
        return banner

    def _board(self, board: Sequence[str], label: str, street: Any,
               best: set[str]) -> Image.Image:
        slots = 5 if street and street != "over" else len(board)
        card_w = self.u(96)
        card_h = round(card_w * 1.4)
        gap = self.u(12)
        label_face = self.f(800, 16)
        track = 0.18 * 16 * self.scale
        label_w = self.u(20) if label else 0
        cards_w = slots * card_w + max(0, slots - 1) * gap
        inner_w = label_w + (self.u(16) if label and slots else 0) + cards_w
        pad_x, pad_y = self.u(18), self.u(14)
        w, h = inner_w + 2 * pad_x, card_h + 2 * pad_y
        row = rounded((w, h), self.u(14), COLORS["panel"], outline=COLORS["line"],
                      outline_width=1)
        if label:
            text = label.upper()
            tw = round(text_width(text, label_face, track)) + 2
            strip = Image.new("RGBA", (tw, label_w), (0, 0, 0, 0))
            tracked_text(ImageDraw.Draw(strip), (0, label_w / 2), text, label_face,
                         COLORS["ink-dim"], track, anchor="lm")
            strip = strip.rotate(90, expand=True)  # reads bottom to top, as in the page
            row.alpha_composite(strip, (pad_x, max(0, (h - strip.height) // 2)))
        x = pad_x + label_w + (self.u(16) if label and slots else 0)
        showdown = bool(best)
        for k in range(slots):
            code = board[k] if k < len(board) else None
            if k < len(board):
                img = card_image(code, card_w, best=showdown and code in best,
                                 muted=showdown and code not in best)
            else:
                img = card_image(None, card_w, slot=True)
            lift = round(0.06 * card_h) if showdown and code in best else 0
            row.alpha_composite(img, (max(0, x - (img.width - card_w) // 2),
                                      max(0, pad_y - (img.height - card_h) // 2 - lift)))
            x += card_w + gap
        return row

    def _pots(self, table: Mapping[str, Any], seats: Sequence[Mapping[str, Any]],
              ) -> Image.Image:
        pots = list(table.get("pots") or [])
        total = sum(int(p.get("amount") or 0) for p in pots)
        total += sum(int(s.get("bet") or 0) for s in seats)
        label_face = self.f(800, 15)
        track = 0.14 * 15 * self.scale
        big = self.f(800, 30)
        h = self.u(56)
        cells: list[Image.Image] = []
        lw = round(text_width("POT", label_face, track))
        amount = chips(total)
        cw = lw + self.u(14) + round(text_width(amount, big)) + self.u(44)
        cell = Image.new("RGBA", (cw, h), COLORS["accent"])
        draw = ImageDraw.Draw(cell)
        base = h / 2 + self.u(11)
        tracked_text(draw, (self.u(22), base), "POT", label_face, COLORS["accent-ink"], track)
        draw.text((self.u(22) + lw + self.u(14), base), amount, font=big,
                  fill=COLORS["accent-ink"], anchor="ls")
        cells.append(cell)
        if len(pots) > 1:
            side_face = self.f(700, 24)
            for pot in pots:
                text = str(pot.get("label") or "").upper()
                value = chips(pot.get("amount"))
                lw = round(text_width(text, label_face, track))
                cw = lw + self.u(10) + round(text_width(value, side_face)) + self.u(36)
                cell = Image.new("RGBA", (cw, h), COLORS["panel"])
                draw = ImageDraw.Draw(cell)
                draw.line((0, 0, 0, h), fill=COLORS["line"], width=1)
                base = h / 2 + self.u(9)
                tracked_text(draw, (self.u(18), base), text, label_face, COLORS["ink-dim"],
                             track)
                draw.text((self.u(18) + lw + self.u(10), base), value, font=side_face,
                          fill=COLORS["ink"], anchor="ls")
                cells.append(cell)
        row = Image.new("RGBA", (sum(c.width for c in cells), h), (0, 0, 0, 0))
        x = 0
        for cell in cells:
            row.alpha_composite(cell, (x, 0))
            x += cell.width
        return _clip(row, radius_mask=_mask_of(row.size, self.u(10)))


class _ImageCache:
    """The last ``size`` images drawn, by key (least recently used dropped first)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._images: OrderedDict[str, Image.Image] = OrderedDict()

    def get(self, key: str) -> Image.Image | None:
        image = self._images.get(key)
        if image is not None:
            self._images.move_to_end(key)
        return image

    def put(self, key: str, image: Image.Image) -> Image.Image:
        self._images[key] = image
        while len(self._images) > self.size:
            self._images.popitem(last=False)
        return image


def _best_cards(table: Mapping[str, Any], seats: Sequence[Mapping[str, Any]]) -> set[str]:
    """The winners' best five at the showdown (highlighted like the page does)."""
    if table.get("street") not in ("showdown", "over"):
        return set()
    best: set[str] = set()
    for seat in seats:
        if seat.get("winner") and isinstance(seat.get("best_five"), list):
            best.update(seat["best_five"])
    return best


def _mask_of(size: tuple[int, int], radius: int) -> Image.Image:
    return rounded(size, radius, (255, 255, 255, 255)).getchannel("A")


def _clip(image: Image.Image, *, radius_mask: Image.Image | None = None) -> Image.Image:
    """``image`` cut to a rounded mask (the parent's ``overflow: hidden``)."""
    if radius_mask is None:
        return image
    out = image.copy()
    out.putalpha(ImageChops.multiply(image.getchannel("A"), radius_mask))
    return out

