"""Drawing primitives of the burned-in graphics: the overlay's fonts, colours and cards.

Everything is drawn with Pillow into RGBA images, in the look of ``static/overlay.css`` and
``static/css/base.css`` (the bundled Inter font, the same colour tokens, the same card faces),
and cached: a card, a badge or a shadow is drawn once per size and reused for every scene.
The caches are bounded (a few tens of MB at 1080p, filled within the first hands), so memory
does not grow with the length of the footage.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw, ImageFilter, ImageFont

from overlay.assets import fonts_dir

__all__ = [
    "COLORS",
    "FONT_DIR",
    "RGBA",
    "card_image",
    "font",
    "rounded",
    "shadow",
    "text_width",
    "tracked_text",
    "with_opacity",
]

RGBA = tuple[int, int, int, int]

FONT_DIR = fonts_dir()
"""The Inter font shipped with the pages (SIL OFL 1.1)."""

_WEIGHTS = {400: "Inter-Regular.otf", 600: "Inter-SemiBold.otf", 700: "Inter-Bold.otf",
            800: "Inter-ExtraBold.otf"}


def _hex(code: str, alpha: float = 1.0) -> RGBA:
    code = code.lstrip("#")
    return (int(code[0:2], 16), int(code[2:4], 16), int(code[4:6], 16), round(alpha * 255))


#: The colour tokens of static/css/base.css (RGBA).
COLORS: dict[str, RGBA] = {
    "ink": _hex("f4f6fb"),
    "ink-dim": _hex("a9b2c6"),
    "panel": (11, 15, 25, round(0.94 * 255)),
    "panel-2": (20, 26, 40, round(0.96 * 255)),
    "folded": (11, 15, 25, round(0.78 * 255)),
    "line": (255, 255, 255, round(0.09 * 255)),
    "accent": _hex("ffc23d"),
    "accent-ink": _hex("1b1405"),
    "win": _hex("3ddc97"),
    "win-ink": _hex("04150d"),
    "win-hand": _hex("bff5dc"),
    "allin": _hex("ff6b6b"),
    "equity": _hex("35b8ff"),
    "equity-from": _hex("1a8fd6"),
    "break-ink": _hex("04121c"),
    "badge": (255, 255, 255, round(0.12 * 255)),
    "raise": _hex("e9eef8"),
    "dark-ink": _hex("0b0f19"),
    "white": _hex("ffffff"),
    "s": _hex("16181d"),
    "h": _hex("d6212f"),
    "d": _hex("1f63d6"),
    "c": _hex("137a41"),
    "banner-edge": _hex("0e3a29"),
    "banner-mid": _hex("145c3f"),
    "back": _hex("731626"),
    "back-dark": _hex("5a0f1b"),
}


@lru_cache(maxsize=128)
def font(weight: int, size: int) -> ImageFont.FreeTypeFont:
    """Inter at ``weight`` (400, 600, 700, 800) and ``size`` pixels."""
    # Basic layout: Latin names and numbers need no shaping, and it is several times faster.
    return ImageFont.truetype(str(FONT_DIR / _WEIGHTS[weight]), max(1, size),
                              layout_engine=ImageFont.Layout.BASIC)


@lru_cache(maxsize=8192)
def _length(face: ImageFont.FreeTypeFont, text: str) -> float:
    return float(face.getlength(text))


def text_width(text: str, face: ImageFont.FreeTypeFont, tracking: float = 0.0) -> float:
    """The drawn width of ``text``; ``tracking`` is extra space between letters (pixels)."""
    if not text:
        return 0.0
    if not tracking:
        return _length(face, text)
    return sum(_length(face, ch) for ch in text) + tracking * (len(text) - 1)


def tracked_text(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str,
                 face: ImageFont.FreeTypeFont, fill: RGBA, tracking: float = 0.0,
                 anchor: str = "ls") -> None:
    """Draw ``text`` at ``xy`` (``anchor`` as Pillow's, left edge) with letter spacing."""
    if not tracking:
        draw.text(xy, text, font=face, fill=fill, anchor=anchor)
        return
    x, y = xy
    for ch in text:
        draw.text((x, y), ch, font=face, fill=fill, anchor=anchor)
        x += _length(face, ch) + tracking


def fit_text(text: str, face: ImageFont.FreeTypeFont, width: float) -> str:
    """``text`` shortened with an ellipsis to fit ``width`` (CSS text-overflow: ellipsis)."""
    if width <= 0:
        return ""
    if text_width(text, face) <= width:
        return text
    while text and text_width(text + "…", face) > width:
        text = text[:-1]
    return text.rstrip() + "…" if text else ""


def rounded(size: tuple[int, int], radius: float, fill: RGBA | None = None, *,
            gradient: tuple[RGBA, ...] | None = None, outline: RGBA | None = None,
            outline_width: int = 0) -> Image.Image:
    """A rounded rectangle of ``size``: a flat ``fill`` or a horizontal ``gradient``, with an
    inset ``outline`` (CSS ``inset 0 0 0 Npx``). A new image (callers draw on it), copied
    from the one drawn before for the same arguments: player boxes, badges and their rings
    come back with every event."""
    return _rounded((max(1, size[0]), max(1, size[1])), radius, fill, gradient, outline,
                    outline_width).copy()


@lru_cache(maxsize=64)
def _rounded(size: tuple[int, int], radius: float, fill: RGBA | None,
             gradient: tuple[RGBA, ...] | None, outline: RGBA | None,
             outline_width: int) -> Image.Image:
    """:func:`rounded`, drawn (never handed out: it stays as drawn)."""
    w, h = size
    mask = _round_mask(w, h, max(0, round(radius)))
    if gradient is not None:
        body = _gradient(w, h, gradient)
    else:
        body = Image.new("RGBA", (w, h), fill or (0, 0, 0, 0))
    if outline is not None and outline_width > 0:
        ring = Image.new("RGBA", (w, h), (0, 0, 0, 0))
        inner = _round_mask(max(1, w - 2 * outline_width), max(1, h - 2 * outline_width),
                            max(0, round(radius) - outline_width))
        edge = mask.copy()
        hole = Image.new("L", (w, h), 0)
        hole.paste(inner, (outline_width, outline_width))
        edge.paste(0, mask=hole)
        ring.paste(Image.new("RGBA", (w, h), outline), mask=edge)
        body = Image.alpha_composite(body, ring)
    out = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    out.paste(body, mask=_combine(mask, body))
    return out


def _combine(mask: Image.Image, body: Image.Image) -> Image.Image:
    """The shape's mask times the body's own alpha."""
    from PIL import ImageChops

    return ImageChops.multiply(mask, body.getchannel("A"))


@lru_cache(maxsize=64)
def _round_mask(w: int, h: int, radius: int) -> Image.Image:
    """An anti-aliased rounded-rectangle mask (drawn at 4x, then reduced): opaque but in its
    four corners, which are those of the mask of this radius at most ``2 * radius + 8``
    pixels a side (a pixel's Lanczos window at 4x reaches 3 pixels on: a corner of that mask
    sees neither the next corner nor the box's length). Drawing that small mask and copying
    its corners gives every pixel of the whole mask drawn at 4x (tested), in a fraction of
    its time. Only for a mask at least as wide as it is tall: Pillow reduces those, and the
    small one, row by row first (a much taller one column by column first, which rounds
    differently), so both round alike."""
    side = 2 * radius + 8
    sw, sh = min(w, side), min(h, side)
    if (sw, sh) == (w, h) or h > w:
        return _supersampled_mask(w, h, radius)
    small = _supersampled_mask(sw, sh, radius)
    out = Image.new("L", (w, h), 255)
    kx, ky = sw // 2, sh // 2
    for x0, x1, dx in ((0, kx, 0), (kx, sw, w - sw)):
        for y0, y1, dy in ((0, ky, 0), (ky, sh, h - sh)):
            out.paste(small.crop((x0, y0, x1, y1)), (x0 + dx, y0 + dy))
    return out


def _supersampled_mask(w: int, h: int, radius: int) -> Image.Image:
    """The mask of :func:`_round_mask`, drawn whole at 4x and reduced."""
    k = 4
    big = Image.new("L", (w * k, h * k), 0)
    ImageDraw.Draw(big).rounded_rectangle((0, 0, w * k - 1, h * k - 1), radius=radius * k,
                                          fill=255)
    return big.resize((w, h), Image.Resampling.LANCZOS)


def _gradient(w: int, h: int, stops: tuple[RGBA, ...]) -> Image.Image:
    """A horizontal gradient through evenly spaced ``stops``."""
    strip = Image.new("RGBA", (len(stops), 1))
    for k, colour in enumerate(stops):
        strip.putpixel((k, 0), colour)
    return strip.resize((w, h), Image.Resampling.BILINEAR)


@lru_cache(maxsize=32)
def shadow(size: tuple[int, int], radius: int, blur: int, alpha: float) -> Image.Image:
    """A soft drop shadow of a rounded box (``box-shadow: 0 y blur rgba(0,0,0,alpha)``), with
    ``blur`` pixels of margin on every side."""
    w, h = size
    pad = max(1, blur)
    base = Image.new("L", (w + 2 * pad, h + 2 * pad), 0)
    base.paste(_round_mask(max(1, w), max(1, h), radius).point(lambda v: round(v * alpha)),
               (pad, pad))
    blurred = base.filter(ImageFilter.GaussianBlur(blur / 2))
    out = Image.new("RGBA", blurred.size, (0, 0, 0, 0))
    out.putalpha(blurred)
    return out


def with_opacity(image: Image.Image, opacity: float, *, desaturate: float = 0.0,
                 ) -> Image.Image:
    """``image`` at ``opacity`` (and partly greyed: CSS ``saturate(1 - desaturate)``)."""
    out = image
    if desaturate:
        grey = image.convert("LA").convert("RGBA")
        out = Image.blend(image, grey, desaturate)
        out.putalpha(image.getchannel("A"))
    alpha = out.getchannel("A").point(lambda v: round(v * opacity))
    out = out.copy()
    out.putalpha(alpha)
    return out


# --- cards ---------------------------------------------------------------------------------

_RANKS = {"T": "10"}
_SS = 3  # cards are drawn at 3x and reduced: smooth pips and corners


def _suit(draw: ImageDraw.ImageDraw, suit: str, x: float, y: float, size: float,
          fill: RGBA) -> None:
    """A suit shape in the box (x, y, size, size), on the overlay's 100 x 100 grid."""

    def p(u: float, v: float) -> tuple[float, float]:
        return x + u * size / 100, y + v * size / 100

    def circle(u: float, v: float, r: float) -> None:
        (x0, y0), (x1, y1) = p(u - r, v - r), p(u + r, v + r)
        draw.ellipse((x0, y0, x1, y1), fill=fill)

    if suit == "d":
        draw.polygon([p(50, 3), p(88, 50), p(50, 97), p(12, 50)], fill=fill)
    elif suit == "h":
        circle(28, 30, 24)
        circle(72, 30, 24)
        draw.polygon([p(5.5, 37), p(50, 91), p(94.5, 37), p(50, 22)], fill=fill)
    elif suit == "s":
        circle(29, 60, 22)
        circle(71, 60, 22)
        draw.polygon([p(8.5, 54), p(50, 4), p(91.5, 54), p(50, 70)], fill=fill)
        draw.polygon([p(47, 66), p(31, 96), p(69, 96), p(53, 66)], fill=fill)
    else:  # clubs
        circle(50, 25, 19)
        circle(30, 55, 19)
        circle(70, 55, 19)
        draw.polygon([p(40, 35), p(60, 35), p(62, 60), p(38, 60)], fill=fill)
        draw.polygon([p(47, 58), p(31, 94), p(69, 94), p(53, 58)], fill=fill)


@lru_cache(maxsize=160)
def card_image(code: str | None, width: int, *, slot: bool = False, best: bool = False,
               muted: bool = False) -> Image.Image:
    """One playing card ``width`` pixels wide (height 1.4 x width), as static/js/cards.js
    draws it: a face for a card code, a back for ``None``, an empty dashed place for ``slot``.
    ``best`` adds the winning cards' gold ring, ``muted`` darkens (showdown highlight)."""
    w, h = width * _SS, round(width * 1.4) * _SS
    ring = max(1, round(3 * width / 64)) * _SS if best else 0
    img = Image.new("RGBA", (w + 2 * ring, h + 2 * ring), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    radius = round(0.1 * w)
    box = (ring, ring, ring + w - 1, ring + h - 1)
    if ring:
        draw.rounded_rectangle((0, 0, w + 2 * ring - 1, h + 2 * ring - 1),
                               radius=radius + ring, fill=COLORS["accent"])
    if slot:
        line = max(1, round(2 * width / 64 * _SS))
        draw.rounded_rectangle(box, radius=radius, fill=(255, 255, 255, 8),
                               outline=(255, 255, 255, 41), width=line)
    elif code is None or len(code) != 2:
        draw.rounded_rectangle(box, radius=radius, fill=COLORS["back"],
                               outline=(255, 255, 255, 217), width=max(1, w // 28))
        inset = round(0.18 * w)
        draw.ellipse((ring + inset, ring + (h - (w - 2 * inset)) // 2, ring + w - inset,
                      ring + (h + (w - 2 * inset)) // 2),
                     outline=(255, 255, 255, 56), width=max(1, w // 32))
    else:
        draw.rounded_rectangle(box, radius=radius, fill=(246, 247, 250, 255),
                               outline=(0, 0, 0, 31), width=max(1, _SS))
        rank, suit = code[0], code[1]
        colour = COLORS.get(suit, COLORS["s"])
        face = font(800, round(0.56 * w))
        label = _RANKS.get(rank, rank)
        tracking = -0.06 * 0.56 * w
        tracked_text(draw, (ring + 0.09 * w, ring + 0.03 * h), label, face, colour, tracking,
                     anchor="lt")
        _suit(draw, suit, ring + 0.10 * w, ring + 0.40 * h, 0.28 * w, colour)
        _suit(draw, suit, ring + w - 0.07 * w - 0.52 * w, ring + h - 0.06 * h - 0.52 * w,
              0.52 * w, colour)
    out = img.resize((img.width // _SS, img.height // _SS), Image.Resampling.LANCZOS)
    if muted:
        rgb = out.convert("RGB").point(lambda v: round(v * 0.45))
        dark = rgb.convert("RGBA")
        dark.putalpha(out.getchannel("A"))
        out = dark
    return out
