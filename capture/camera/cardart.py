"""Card faces the project draws itself, in several deck styles.

The camera recogniser (issue 8) is calibrated from one clear image per card. To prove it on
decks it was *not* tuned on, the project renders its own decks here, in styles that differ the
way real decks differ: the font of the index, its size and position, two- or four-colour
suits, the card stock's colour, borders, rounded corners, and the centre (standard pips, a
jumbo index, a single suit).

* :data:`DEV_STYLES` are the styles the recogniser's author may look at and tune on.
* :data:`HELDOUT_STYLES` are used only by the evaluation (``feltcast camera eval``); the
  recogniser must never be tuned on them.
* :data:`DEFAULT_STYLE` is the project's own deck (a member of :data:`DEV_STYLES`); the
  default camera deck is calibrated from it.

Everything is drawn with OpenCV at twice the target resolution and reduced with area
averaging, so edges are anti-aliased and a render is the same bytes every time. Index fonts are
a cv2 Hershey font id, one of OpenCV's built-in font faces (``"sans"``, ``"italic"``,
``"uni"``) or a font file shipped in the repository's ``static/fonts`` (Inter, SIL Open Font
License 1.1, which allows embedding and redistribution with software), drawn with OpenCV's
own ``cv2.FontFace`` (no FreeType, no Pillow). Suit symbols are filled polygons.

>>> from engine.cards import Card
>>> render_card(Card("Ah"), DEFAULT_STYLE).shape
(350, 250, 3)
"""

from __future__ import annotations

import importlib.resources
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Final, Literal, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.cards import RANKS, Card


def _font_dir() -> Path:
    try:
        root = importlib.resources.files("capture.camera.fonts")
    except ModuleNotFoundError:  # a checkout run without installing (PYTHONPATH=.)
        return Path(__file__).resolve().parents[2] / "static" / "fonts"
    return Path(str(root))

BGR = tuple[int, int, int]
Image = NDArray[np.uint8]
Mask = NDArray[np.float32]

CARD_ASPECT: Final = 3.5 / 2.5
"""Height / width of a poker-size card (2.5 x 3.5 inches)."""

FONT_DIR: Final = _font_dir()
"""Where font files named by a style (``"Inter-Bold.otf"``) are found: the repository's
``static/fonts``, installed by a wheel as the package ``capture.camera.fonts``."""

_BUILTIN_FACES: Final = frozenset({"sans", "italic", "uni"})
_SUPERSAMPLE: Final = 2
_MASK_SIZE: Final = 240  # height in pixels of the cached high-resolution glyph masks

Layout = Literal["pips", "jumbo", "minimal"]
CornerLayout = Literal["diagonal", "four"]


@dataclass(frozen=True, slots=True)
class CardStyle:
    """How one deck looks. Sizes are fractions of the card's width, colours are BGR."""

    name: str
    font: int | str
    """A cv2 Hershey font id, a built-in ``cv2.FontFace`` name (``"sans"``, ``"italic"``,
    ``"uni"``) or the name of a font file in :data:`FONT_DIR` (``"Inter-Bold.otf"``)."""
    stroke: float
    """For Hershey fonts: stroke thickness as a fraction of the glyph height. For font faces:
    the weight, 100 (thin) to 900 (black), used by variable fonts (the built-in faces)."""
    index_scale: float
    """Height of the index rank's glyphs / card width."""
    suit_colours: tuple[BGR, BGR, BGR, BGR]
    """Ink of clubs, diamonds, hearts, spades (a two-colour deck repeats black and red)."""
    background: BGR
    border: BGR
    border_width: float
    """0 for no border line."""
    corner_radius: float
    layout: Layout = "pips"
    """The centre: standard ``pips`` (framed courts), a ``jumbo`` rank and suit, or one suit."""
    corner_layout: CornerLayout = "diagonal"
    """Indexes in the top-left and bottom-right corners, or in all ``four``."""
    index_inset: float = 0.05
    """Distance of the index from the card's left (and top) edge."""
    suit_scale: float = 0.75
    """Height of the index suit / height of the index rank."""
    ten: str = "10"
    """How the ten is printed in the index (``10`` or ``T``)."""
    shade: float = 0.0
    """A graded face: the card stock this much darker (a share of its brightness) in the
    corners than in the centre, in a straight ramp with the distance (0: a flat face)."""

    @property
    def four_colour(self) -> bool:
        """True when all four suits have their own ink."""
        return len(set(self.suit_colours)) == 4

    # The deck's faces as a scene draws them (:class:`Faces`).

    def face(self, card: Card, width: int) -> Image:
        return render_card(card, self, width=width)

    def outline(self, width: int) -> Mask:
        return card_mask(self, width=width)

    def index_at(self, width: int) -> tuple[int, int, int, int]:
        return index_box(self, width=width)


class Faces(Protocol):
    """A deck's faces as a synthetic scene (:mod:`capture.camera.synth`) draws them: a
    :class:`CardStyle`, or the images of a real deck
    (:class:`capture.camera.imagefaces.ImageFaces`)."""

    @property
    def name(self) -> str: ...

    def face(self, card: Card, width: int) -> Image:
        """The card's face, ``width`` wide and :func:`card_height` high (BGR uint8)."""
        ...

    def outline(self, width: int) -> Mask:
        """The card's outline at that width (1 inside, 0 outside; float32)."""
        ...

    def index_at(self, width: int) -> tuple[int, int, int, int]:
        """The top-left index as ``x, y, w, h`` in the face's pixels."""
        ...


_BLACK: Final[BGR] = (20, 20, 20)
_RED: Final[BGR] = (40, 30, 200)
_TWO_COLOUR: Final = (_BLACK, _RED, _RED, _BLACK)

STYLES: Final[dict[str, CardStyle]] = {
    style.name: style
    for style in (
        # --- development styles: the recogniser may be tuned on these ---
        CardStyle(
            name="feltcast", font="Inter-Bold.otf", stroke=700, index_scale=0.16,
            suit_colours=_TWO_COLOUR, background=(250, 250, 250), border=(60, 60, 60),
            border_width=0.008, corner_radius=0.06, layout="pips"),
        CardStyle(
            name="studio-4c", font="sans", stroke=750, index_scale=0.18,
            suit_colours=((40, 130, 20), (200, 90, 10), (30, 30, 210), (15, 15, 15)),
            background=(245, 248, 250), border=(0, 0, 0), border_width=0.0,
            corner_radius=0.07, layout="jumbo", index_inset=0.045),
        CardStyle(
            name="club-classic", font="Inter-SemiBold.otf", stroke=600, index_scale=0.14,
            suit_colours=((30, 25, 25), (50, 40, 180), (50, 40, 180), (30, 25, 25)),
            background=(225, 240, 248), border=(40, 40, 120), border_width=0.012,
            corner_radius=0.05, layout="pips", suit_scale=0.7, index_inset=0.06),
        CardStyle(
            name="tournament-4corner", font=cv2.FONT_HERSHEY_DUPLEX, stroke=0.13,
            index_scale=0.15, suit_colours=((20, 110, 10), (180, 60, 0), (20, 20, 200),
                                            (10, 10, 10)),
            background=(250, 250, 250), border=(90, 90, 90), border_width=0.006,
            corner_radius=0.06, layout="minimal", corner_layout="four"),
        # --- held-out styles: evaluation only, never tuned on ---
        CardStyle(
            name="parlour", font="uni", stroke=500, index_scale=0.13,
            suit_colours=((35, 35, 35), (40, 40, 190), (40, 40, 190), (35, 35, 35)),
            background=(215, 235, 245), border=(30, 30, 30), border_width=0.01,
            corner_radius=0.04, layout="pips", suit_scale=0.8, index_inset=0.065),
        CardStyle(
            name="jumbo-4c", font="Inter-ExtraBold.otf", stroke=800, index_scale=0.2,
            suit_colours=((30, 140, 40), (210, 110, 30), (40, 20, 220), (25, 25, 25)),
            background=(252, 252, 252), border=(0, 0, 0), border_width=0.0,
            corner_radius=0.08, layout="jumbo", index_inset=0.04, suit_scale=0.65),
        CardStyle(
            name="italic-casino", font="italic", stroke=650, index_scale=0.15,
            suit_colours=_TWO_COLOUR,
            background=(240, 244, 246), border=(20, 20, 140), border_width=0.015,
            corner_radius=0.06, layout="pips", index_inset=0.055),
        # --- wider held-out styles (issue 22): what real decks do that the above do not ---
        CardStyle(
            name="serif-classic", font=cv2.FONT_HERSHEY_TRIPLEX, stroke=0.09,
            index_scale=0.12, suit_colours=_TWO_COLOUR, background=(246, 248, 250),
            border=(0, 0, 0), border_width=0.0, corner_radius=0.05, layout="pips",
            index_inset=0.04, suit_scale=0.7),
        CardStyle(
            name="thin-graded", font=cv2.FONT_HERSHEY_COMPLEX, stroke=0.05,
            index_scale=0.11, suit_colours=((60, 60, 60), (60, 60, 170), (60, 60, 170),
                                            (60, 60, 60)),
            background=(236, 236, 236), border=(120, 120, 120), border_width=0.006,
            corner_radius=0.06, layout="pips", index_inset=0.05, shade=0.3),
        CardStyle(
            name="mono-t", font=cv2.FONT_HERSHEY_PLAIN, stroke=0.15, index_scale=0.17,
            suit_colours=((25, 25, 25), (30, 30, 180), (30, 30, 180), (25, 25, 25)),
            background=(238, 238, 238), border=(70, 70, 70), border_width=0.008,
            corner_radius=0.05, layout="minimal", corner_layout="four", ten="T",
            suit_scale=0.8),
    )
}
"""Every deck style the project renders, by name."""

DEV_STYLES: Final[tuple[str, ...]] = (
    "feltcast", "studio-4c", "club-classic", "tournament-4corner")
"""Styles the recogniser may be developed and tuned on."""

HELDOUT_STYLES: Final[tuple[str, ...]] = ("parlour", "jumbo-4c", "italic-casino", "mono-t")
"""Styles used only by the evaluation: the recogniser must never be tuned on these."""

WIDE_STYLES: Final[tuple[str, ...]] = ("serif-classic", "thin-graded")
"""Held out too, added for issue 22: a small serif index set close to the first pip, and a
thin small index on a graded grey face (real decks the recogniser read poorly). Evaluated
with the others (``all``, ``wide``), never tuned on."""

EVALUATION_ONLY: Final[tuple[str, ...]] = HELDOUT_STYLES + WIDE_STYLES
"""Every style the recogniser must never be tuned on."""

DEFAULT_STYLE: Final[CardStyle] = STYLES["feltcast"]
"""The project's own deck, drawn by :func:`render_card` (a development style)."""


def card_height(width: int) -> int:
    """The height in pixels of a card ``width`` pixels wide (poker size, 2.5 x 3.5)."""
    return round(width * CARD_ASPECT)


def render_card(card: Card, style: CardStyle, *, width: int = 250) -> Image:
    """The face of ``card`` in ``style``: a BGR uint8 image ``width`` wide.

    The height is ``round(width * 3.5 / 2.5)``. The index (rank above suit) is in the top-left
    corner and, turned half a circle, in the bottom-right (and, for ``corner_layout="four"``,
    in the other two corners too). The area outside the rounded corners is the card's
    background colour; :func:`card_mask` gives the card's outline for compositing.
    Deterministic: the same arguments give the same bytes.
    """
    if width < 40:
        raise ValueError(f"card width {width} px is too small to draw (at least 40)")
    return _render(card.index, style, width).copy()


def card_stock(style: CardStyle, *, width: int = 250) -> Image:
    """The card without ink: its stock (flat, or graded by ``shade``) and border line, as
    :func:`render_card` draws it under the ink."""
    small = cv2.resize(_blank(style, width), (width, card_height(width)),
                       interpolation=cv2.INTER_AREA)
    return np.clip(np.rint(small), 0, 255).astype(np.uint8)


def card_mask(style: CardStyle, *, width: int = 250) -> Mask:
    """The card's outline (1 inside the rounded rectangle, 0 outside), float32 in [0, 1]."""
    return _outline(style.corner_radius, width).copy()


def index_box(style: CardStyle, *, width: int = 250) -> tuple[int, int, int, int]:
    """The top-left index (rank and suit) as ``x, y, w, h`` in card pixels (with a margin)."""
    rank_h, _, suit_h, gap = _index_metrics(style, width)
    inset = style.index_inset * width
    margin = 0.02 * width
    x0 = max(0, int(inset - margin))
    y0 = max(0, int(inset - margin))
    # The widest rank ("10", squeezed) is at most 0.8 * rank height wide.
    w = int(inset + 0.8 * rank_h + margin) - x0 + 1
    h = int(inset + rank_h + gap + suit_h + margin) - y0 + 1
    return x0, y0, w, h


# --------------------------------------------------------------------------- drawing


@lru_cache(maxsize=64)
def _render(index: int, style: CardStyle, width: int) -> Image:
    card = Card.from_index(index)
    canvas = _blank(style, width).copy()
    colour = style.suit_colours[card.suit]
    _draw_centre(canvas, card, style, colour)
    _draw_index(canvas, card, style, colour)
    turned = canvas[::-1, ::-1]
    _draw_index(turned, card, style, colour)
    if style.corner_layout == "four":
        mirrored = canvas[:, ::-1]
        # A mirrored copy would mirror the glyphs: draw upright into a patch and place it.
        _draw_index(mirrored, card, style, colour, mirror=True)
        # Top-right reads upright; bottom-left is its half-turn: in a top-bottom flipped
        # view, a left-right mirrored glyph comes out turned half a circle.
        _draw_index(canvas[::-1, :], card, style, colour, mirror=True)

    small = cv2.resize(canvas, (width, card_height(width)), interpolation=cv2.INTER_AREA)
    result: Image = np.clip(np.rint(small), 0, 255).astype(np.uint8)
    result.setflags(write=False)
    return result


@lru_cache(maxsize=32)
def _blank(style: CardStyle, width: int) -> NDArray[np.float32]:
    """The supersampled card stock with its border line, before any ink."""
    ss = _SUPERSAMPLE
    big_w, big_h = width * ss, card_height(width) * ss
    canvas = np.empty((big_h, big_w, 3), np.float32)
    canvas[:] = style.background
    if style.shade:  # darker away from the centre, alike at both ends (a turned card)
        x = (np.arange(big_w)[None, :] + 0.5) / big_w - 0.5
        y = (np.arange(big_h)[:, None] + 0.5) / big_h - 0.5
        ramp = np.sqrt(x * x + y * y) / np.sqrt(0.5)
        canvas *= (1.0 - style.shade * ramp).astype(np.float32)[:, :, None]
    if style.border_width > 0:
        line = max(1.0, style.border_width * big_w)
        outline = _rounded_rect(big_w, big_h, style.corner_radius * big_w, 0.0)
        inner = _rounded_rect(big_w, big_h, style.corner_radius * big_w, line)
        _blend(canvas, outline - inner, style.border, 0, 0)
    canvas.setflags(write=False)
    return canvas


def _index_metrics(style: CardStyle, width: int) -> tuple[float, float, float, float]:
    """Rank height, rank max width, suit height and the gap between them, in pixels."""
    rank_h = style.index_scale * width
    suit_h = rank_h * style.suit_scale
    return rank_h, 0.8 * rank_h, suit_h, 0.12 * rank_h


def _draw_index(canvas: NDArray[np.float32], card: Card, style: CardStyle, colour: BGR,
                *, mirror: bool = False) -> None:
    """The rank above the suit in the top-left corner of ``canvas`` (possibly a view).

    ``mirror`` pre-mirrors the glyphs left-right, for views in which they would otherwise
    come out mirrored on the real card.
    """
    width = canvas.shape[1]
    rank_h, rank_w_max, suit_h, gap = _index_metrics(style, width)
    inset = style.index_inset * width
    text = style.ten if card.rank == 8 else RANKS[card.rank]
    glyph = _text_mask(text, style.font, style.stroke)
    aspect = glyph.shape[1] / glyph.shape[0]
    rh = max(2, round(rank_h))
    rw = max(1, min(round(rank_h * aspect), round(rank_w_max)))
    rank = _shrink(glyph, rw, rh)
    suit = _suit_patch(card.suit, suit_h)
    if mirror:
        rank, suit = rank[:, ::-1], suit[:, ::-1]
    # Centre the suit under the rank (both centred on the same column).
    column = inset + rw / 2
    _blend(canvas, rank, colour, round(inset), round(inset))
    _blend(canvas, suit, colour, round(column - suit.shape[1] / 2), round(inset + rh + gap))


def _draw_centre(canvas: NDArray[np.float32], card: Card, style: CardStyle,
                 colour: BGR) -> None:
    height, width = canvas.shape[:2]
    # The centre field leaves the index columns free.
    left = width * (style.index_inset + 0.8 * style.index_scale + 0.06)
    right = width - left
    top = height * 0.1
    bottom = height - top
    field_w, field_h = right - left, bottom - top
    cx, cy = width / 2, height / 2
    if style.layout == "minimal" or (style.layout == "pips" and card.rank == 12):
        size = field_w * (0.55 if style.layout == "minimal" else 0.6)
        _blend_centred(canvas, _suit_patch(card.suit, size), colour, cx, cy)
        return
    if style.layout == "jumbo":
        text = "10" if card.rank == 8 else RANKS[card.rank]
        glyph = _text_mask(text, style.font, style.stroke)
        gh = field_h * 0.38
        gw = min(gh * glyph.shape[1] / glyph.shape[0], field_w * 0.95)
        patch = _shrink(glyph, max(1, round(gw)), max(1, round(gh)))
        _blend_centred(canvas, patch, colour, cx, top + field_h * 0.3)
        _blend_centred(canvas, _suit_patch(card.suit, field_h * 0.3), colour, cx,
                       top + field_h * 0.74)
        return
    if card.rank >= 9:  # a court: a frame, its letter and suit
        thickness = max(2, round(width * 0.012))
        x0, y0 = round(left) - thickness, round(top) - thickness
        frame = np.zeros((round(bottom) + thickness - y0 + 1, round(right) + thickness - x0 + 1),
                         np.float32)
        cv2.rectangle(frame, (thickness, thickness), (round(right) - x0, round(bottom) - y0),
                      1.0, thickness, cv2.LINE_AA)
        _blend(canvas, frame, colour, x0, y0)
        glyph = _text_mask(RANKS[card.rank], style.font, style.stroke)
        gh = field_h * 0.3
        gw = gh * glyph.shape[1] / glyph.shape[0]
        patch = _shrink(glyph, round(gw), round(gh))
        _blend_centred(canvas, patch, colour, cx, top + field_h * 0.3)
        suit = _suit_patch(card.suit, field_h * 0.22)
        _blend_centred(canvas, suit, colour, cx, top + field_h * 0.7)
        return
    pip = _suit_patch(card.suit, min(field_w * 0.28, field_h * 0.16))
    for fx, fy in _PIPS[card.rank + 2]:
        x = left + fx * field_w
        y = top + fy * field_h
        patch = pip[::-1, ::-1] if fy > 0.5 else pip
        _blend_centred(canvas, patch, colour, x, y)


# Standard pip positions (fractions of the centre field), by card value 2-10.
_COLS: Final = (0.18, 0.5, 0.82)
_PIPS: Final[dict[int, tuple[tuple[float, float], ...]]] = {
    2: ((0.5, 0.1), (0.5, 0.9)),
    3: ((0.5, 0.1), (0.5, 0.5), (0.5, 0.9)),
    4: ((0.18, 0.1), (0.82, 0.1), (0.18, 0.9), (0.82, 0.9)),
    5: ((0.18, 0.1), (0.82, 0.1), (0.5, 0.5), (0.18, 0.9), (0.82, 0.9)),
    6: ((0.18, 0.1), (0.82, 0.1), (0.18, 0.5), (0.82, 0.5), (0.18, 0.9), (0.82, 0.9)),
    7: ((0.18, 0.1), (0.82, 0.1), (0.5, 0.3), (0.18, 0.5), (0.82, 0.5), (0.18, 0.9),
        (0.82, 0.9)),
    8: ((0.18, 0.1), (0.82, 0.1), (0.5, 0.3), (0.18, 0.5), (0.82, 0.5), (0.5, 0.7),
        (0.18, 0.9), (0.82, 0.9)),
    9: ((0.18, 0.1), (0.82, 0.1), (0.18, 0.37), (0.82, 0.37), (0.5, 0.5), (0.18, 0.63),
        (0.82, 0.63), (0.18, 0.9), (0.82, 0.9)),
    10: ((0.18, 0.1), (0.82, 0.1), (0.5, 0.23), (0.18, 0.37), (0.82, 0.37), (0.18, 0.63),
         (0.82, 0.63), (0.5, 0.77), (0.18, 0.9), (0.82, 0.9)),
}


def _shrink(mask: Mask, width: int, height: int) -> Mask:
    """``mask`` resized to ``width`` x ``height`` with area averaging."""
    return np.asarray(cv2.resize(mask, (width, height), interpolation=cv2.INTER_AREA),
                      dtype=np.float32)


def _blend(canvas: NDArray[np.float32], alpha: Mask, colour: BGR, x: int, y: int) -> None:
    """Paint ``colour`` into ``canvas`` through ``alpha`` placed at (x, y), clipped."""
    h, w = alpha.shape
    ch, cw = canvas.shape[:2]
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(cw, x + w), min(ch, y + h)
    if x0 >= x1 or y0 >= y1:
        return
    a = alpha[y0 - y:y1 - y, x0 - x:x1 - x, None]
    region = canvas[y0:y1, x0:x1]
    region *= 1.0 - a
    region += a * np.asarray(colour, np.float32)


def _blend_centred(canvas: NDArray[np.float32], alpha: Mask, colour: BGR, cx: float,
                   cy: float) -> None:
    _blend(canvas, alpha, colour, round(cx - alpha.shape[1] / 2), round(cy - alpha.shape[0] / 2))


@lru_cache(maxsize=256)
def _text_mask(text: str, font: int | str, stroke: float) -> Mask:
    """``text`` in ``font``, cropped to its ink, _MASK_SIZE high (float32 alpha)."""
    if isinstance(font, int):
        scale = 6.0
        (_, cap), _ = cv2.getTextSize("H", font, scale, 1)
        thickness = max(1, round(stroke * cap))
        (tw, th), base = cv2.getTextSize(text, font, scale, thickness)
        pad = thickness * 2 + 10
        board = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
        cv2.putText(board, text, (pad, pad + th), font, scale, 255, thickness, cv2.LINE_AA)
    else:
        size = 2 * _MASK_SIZE
        board = np.zeros((3 * size, (len(text) + 2) * size), np.uint8)
        cv2.putText(board, text, (size // 2, 2 * size), 255, _font_face(font), size,
                    round(stroke))
    ys, xs = np.nonzero(board)
    if ys.size == 0:
        raise ValueError(f"font {font!r} draws nothing for {text!r}")
    crop = board[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.float32) / 255.0
    out_w = max(1, round(crop.shape[1] * _MASK_SIZE / crop.shape[0]))
    resized = _shrink(crop, out_w, _MASK_SIZE)
    resized.setflags(write=False)
    return resized


def _font_face(font: str) -> cv2.FontFace:
    if font in _BUILTIN_FACES:
        return cv2.FontFace(font)
    path = FONT_DIR / font
    if not path.is_file():
        raise ValueError(f"font file {font!r} not found in {FONT_DIR}")
    return cv2.FontFace(str(path))


@lru_cache(maxsize=512)
def _suit_patch(suit: int, height: float) -> Mask:
    """The suit symbol ``height`` pixels high (width from the symbol's shape)."""
    mask = _suit_mask(suit)
    h = max(2, round(height))
    w = max(1, round(h * mask.shape[1] / mask.shape[0]))
    patch = _shrink(mask, w, h)
    patch.setflags(write=False)
    return patch


@lru_cache(maxsize=4)
def _suit_mask(suit: int) -> Mask:
    """Clubs (0), diamonds (1), hearts (2), spades (3) as _MASK_SIZE-high alpha masks."""
    s = _MASK_SIZE * 4  # drawn at 4x, reduced for smooth edges
    board = np.zeros((s, s), np.uint8)
    if suit == 1:  # diamond: a rhombus with slightly pinched sides
        pts = []
        for i in range(64):
            t = 2 * math.pi * i / 64
            x, y = math.cos(t), math.sin(t)
            # |x|^p + |y|^p = 1 with p < 1 pinches the sides inwards.
            r = (abs(x) ** 0.85 + abs(y) ** 0.85) ** (-1 / 0.85)
            pts.append((s / 2 + 0.36 * s * r * x, s / 2 + 0.5 * s * r * y))
        cv2.fillPoly(board, [np.round(np.array(pts)).astype(np.int32)], 255, cv2.LINE_AA)
    else:
        heart = _heart_points(s)
        if suit == 2:
            cv2.fillPoly(board, [heart], 255, cv2.LINE_AA)
        elif suit == 3:  # spade: an upside-down heart on a flared stem
            spade = heart.copy()
            spade[:, 1] = int(0.86 * s) - spade[:, 1]
            cv2.fillPoly(board, [spade], 255, cv2.LINE_AA)
            _stem(board, s)
        else:  # club: three circles on a flared stem
            r = int(0.2 * s)
            for cx, cy in ((0.5, 0.22), (0.26, 0.52), (0.74, 0.52)):
                cv2.circle(board, (int(cx * s), int(cy * s)), r, 255, -1, cv2.LINE_AA)
            cv2.fillPoly(board, [np.array([(0.5 * s, 0.3 * s), (0.36 * s, 0.55 * s),
                                           (0.64 * s, 0.55 * s)], np.int32)], 255,
                         cv2.LINE_AA)
            _stem(board, s)
    ys, xs = np.nonzero(board)
    crop = board[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.float32) / 255.0
    out_w = max(1, round(crop.shape[1] * _MASK_SIZE / crop.shape[0]))
    resized = _shrink(crop, out_w, _MASK_SIZE)
    resized.setflags(write=False)
    return resized


def _heart_points(s: int) -> NDArray[np.int32]:
    pts = []
    for i in range(200):
        t = 2 * math.pi * i / 200
        x = 16 * math.sin(t) ** 3
        y = 13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t)
        pts.append((s / 2 + x * s / 36, s * 0.42 - y * s / 36))
    return np.round(np.array(pts)).astype(np.int32)


def _stem(board: np.ndarray, s: int) -> None:
    stem = np.array([(0.5 * s, 0.55 * s), (0.44 * s, 0.9 * s), (0.34 * s, 0.98 * s),
                     (0.66 * s, 0.98 * s), (0.56 * s, 0.9 * s)], np.int32)
    cv2.fillPoly(board, [stem], 255, cv2.LINE_AA)


@lru_cache(maxsize=32)
def _outline(radius: float, width: int) -> Mask:
    return _rounded_rect(width, card_height(width), radius * width, 0.0)


def _rounded_rect(width: int, height: int, radius: float, inset: float) -> Mask:
    """Anti-aliased mask of a rounded rectangle inset by ``inset`` pixels on every side."""
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    xs += 0.5
    ys += 0.5
    r = max(radius - inset, 0.5)
    lo_x, hi_x = inset + r, width - inset - r
    lo_y, hi_y = inset + r, height - inset - r
    dx = np.maximum(np.maximum(lo_x - xs, xs - hi_x), 0.0)
    dy = np.maximum(np.maximum(lo_y - ys, ys - hi_y), 0.0)
    distance = np.sqrt(dx * dx + dy * dy) - r  # signed: < 0 inside the rounded corner
    mask: Mask = np.clip(0.5 - distance, 0.0, 1.0).astype(np.float32)
    mask.setflags(write=False)
    return mask
