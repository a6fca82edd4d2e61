"""Camera decks: what the index corner of every card of one physical deck looks like.

A camera reads a card by its *index*, the rank above the suit in the top-left corner (and,
turned half a circle, the bottom-right). Decks differ in fonts, index sizes and positions and
suit colours, so each deck in use is calibrated once from one clear, face-up image per card
(:meth:`CameraDeck.calibrate`). Calibration learns:

- where the index lies on the card (:attr:`CameraDeck.box`, in card coordinates 0-1): the
  part of the top-left corner that differs from card to card (borders and card stock do not);
- one template per card: that box resampled to :attr:`CameraDeck.patch` pixels, as three
  feature channels (brightness and two colour-opponent channels, so red hearts and black
  spades, or a four-colour deck's green clubs, differ in colour as well as shape);
- how alike the two most similar cards are (:attr:`CameraDeck.separation`), and for each card
  its nearest neighbour (:func:`nearest_cards`: a weak deck is visible before the show); two
  images of one card under two names are refused, judged by the whole card (:func:`same_card`:
  a 5 and a 6 whose indexes look alike still differ by a pip), never by the index alone;
- weights that tell the deck's clubs from its spades (:attr:`CameraDeck.clubs_spades`, learnt
  from its club and spade indexes seen as a camera might see them:
  :mod:`capture.camera.suitcheck`), the second opinion a club or a spade must pass.

A deck is saved as one ``.npz`` file (:meth:`CameraDeck.save`, no pickles) or stored by name in
the service's database next to the RFID decks (:class:`CameraDeckRegistry`).
:meth:`CameraDeck.default` is the project's own deck, drawn by
:func:`capture.camera.cardart.render_card` in its ``DEFAULT_STYLE``.

>>> deck = CameraDeck.default()
>>> deck.name, deck.templates.shape[0]
('default', 52)
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.orm import registry
from sqlmodel import Field, Session, SQLModel, select

from capture.errors import CameraDeckError
from capture.storage import create_tables, write_session
from engine.cards import Card

from . import learnt
from .geometry import (
    CARD_ASPECT,
    Image,
    OutlineParams,
    Quad,
    find_card_quads,
    quad_area,
    rectify,
    warp_region,
)
from .learnt import Discriminant, LearntIndex, learn_discriminant
from .suitcheck import CLUBS, SAMPLES, SEED, SPADES, Jitter, camera_views, learn_clubs_spades

FORMAT_VERSION = 4
"""2: templates white-balanced on the card stock (:func:`paper_gains`); 3: the clubs-or-spades
discriminant (:mod:`capture.camera.suitcheck`); 4: the deck's rank and suit discriminants
(:mod:`capture.camera.learnt`)."""
PATCH_HEIGHT = 48
"""Height in pixels of an index template (the width follows from the index's shape)."""
CHROMA_WEIGHT = 0.8
"""Weight of each colour channel against brightness in a template."""
_STUDY_WIDTH = 200
"""Card width in pixels at which calibration looks for the index."""
_SAME_CARD = 0.995
"""Two whole cards at least this alike (normalised correlation of the grey cards, corners,
pips and court figures) are two images of one card: a 5 and a 6 whose indexes look alike still
differ by a pip."""
_SAME_INDEX = 0.985
"""Two indexes at least this alike (:func:`index_alike`) may be one card's."""
WEAK = 0.97
"""A card whose index is at least this alike its nearest neighbour's (rank and suit both) is
one the camera may leave unknown: ``feltcast camera calibrate`` names it."""

Features = npt.NDArray[np.float32]


PAPER_PERCENTILE = 90
"""Per colour channel, the share of an index patch's pixels darker than its card stock: an
index patch is mostly card stock, its ink is dark."""


def paper_gains(patch: Image) -> npt.NDArray[np.float32]:
    """The gain per BGR channel that shows ``patch`` as under white light: its card stock
    grey at its own brightness. Under tinted light (a venue's coloured stage lights, a warm
    lamp over the table) the card stock is tinted and dark ink is not, so the ink shows the
    opposite tint: a four-colour deck's black spade looks green or a green club black, and
    every club and spade read as the other suit, surely."""
    pixels = patch.reshape(-1, 3)[::2]  # every other pixel tells the stock's colour as well
    rank = (len(pixels) - 1) * PAPER_PERCENTILE // 100
    paper = np.partition(pixels, rank, axis=0)[rank].astype(np.float32)
    return (float(paper.mean()) / np.maximum(paper, 8.0)).astype(np.float32)


_FEATURES = np.array([[0.114, 0.587, 0.299],                               # brightness
                      [0.0, -CHROMA_WEIGHT, CHROMA_WEIGHT],                 # red - green
                      [-CHROMA_WEIGHT, CHROMA_WEIGHT / 2, CHROMA_WEIGHT / 2]],  # yellow - blue
                     dtype=np.float32)
"""Rows: the feature channels as weights of B, G and R."""


def index_features(patch: Image) -> Features:
    """The three feature channels ``(3, h, w)`` of a BGR patch, white-balanced on its card
    stock (:func:`paper_gains`): brightness, red-green and yellow-blue."""
    weights = _FEATURES * paper_gains(patch)[None, :]
    features = cv2.transform(patch.astype(np.float32), weights)
    return np.ascontiguousarray(features.transpose(2, 0, 1))


TEMPLATE_BLUR = 1.0
"""Gaussian sigma, in template pixels, that makes a calibration image look like a camera's
view (a clear image is sharper than any frame; matching sharp templates to soft frames pulls
a club towards a spade)."""


def camera_blur(patch: Image) -> Image:
    return np.asarray(cv2.GaussianBlur(patch, (0, 0), TEMPLATE_BLUR), dtype=np.uint8)


def normalise(features: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Rows of ``(n, channels, ...)`` features made zero-mean per channel and unit length,
    so that a dot product is the normalised cross-correlation (light-level independent)."""
    n, channels = features.shape[:2]
    flat = features.reshape(n, channels, -1).astype(np.float32)
    flat = flat - flat.mean(axis=2, keepdims=True)
    flat = flat.reshape(n, -1)
    norms = np.linalg.norm(flat, axis=1, keepdims=True)
    return np.asarray(flat / np.maximum(norms, 1e-3), dtype=np.float32)


@dataclass(frozen=True, slots=True, eq=False)
class CameraDeck:
    """The index templates of one deck, in card order ``Card.from_index(0..51)``."""

    name: str
    box: tuple[float, float, float, float]
    """The index in card coordinates: (u0, v0, u1, v1), 0-1 from the printed top-left."""
    templates: Features
    """``(52, 3, h, w)`` feature channels of each card's index (see :func:`index_features`)."""
    split: int
    """The template row where the suit begins (the rank is above it)."""
    separation: float
    """How alike the two most alike cards are (lower is easier to tell apart): the smaller
    of their ranks' and their suits' normalised correlations."""
    clubs_spades: Features
    """``(3, h - split, w)`` weights of the clubs-or-spades discriminant on the suit rows
    (:func:`.suitcheck.clubs_spades`: > 0 club, < 0 spade)."""
    clubs_spades_bias: float
    """Its bias."""
    learnt: LearntIndex | None = None
    """The deck's rank and suit discriminants, learnt from its calibration images seen as a
    camera might see them (:mod:`.learnt`); a calibrated or saved deck always has them (a
    deck put together without them is read by its templates alone)."""
    created: float = 0.0
    """Wall-clock time of the calibration (seconds since the epoch)."""
    sources: tuple[str, ...] = ()
    """Where the calibration images came from (file names), for the record."""

    def __post_init__(self) -> None:
        if self.templates.ndim != 4 or self.templates.shape[:2] != (52, 3):
            raise CameraDeckError(f"deck {self.name!r}: templates must be 52 x 3 channels, "
                                  f"got shape {self.templates.shape}")
        u0, v0, u1, v1 = self.box
        if not 0.0 <= u0 < u1 <= 1.0 or not 0.0 <= v0 < v1 <= 1.0:
            raise CameraDeckError(f"deck {self.name!r}: index box {self.box} is not inside "
                                  "the card")
        if not 4 <= self.split <= self.templates.shape[2] - 4:
            raise CameraDeckError(f"deck {self.name!r}: rank/suit split {self.split} is outside "
                                  "the index")
        suit_rows = (3, self.templates.shape[2] - self.split, self.templates.shape[3])
        if self.clubs_spades.shape != suit_rows:
            raise CameraDeckError(f"deck {self.name!r}: clubs-or-spades weights must be "
                                  f"{suit_rows}, got {self.clubs_spades.shape}")
        if self.learnt is not None and (
                self.learnt.rank.weights.shape != (13, 3, self.split, suit_rows[2])
                or self.learnt.suit.weights.shape != (4, *suit_rows)):
            raise CameraDeckError(f"deck {self.name!r}: its rank and suit discriminants do "
                                  "not fit its templates")

    def __repr__(self) -> str:
        return f"<CameraDeck {self.name!r} index {self.patch[0]}x{self.patch[1]} px>"

    @property
    def patch(self) -> tuple[int, int]:
        """Template size in pixels: (width, height)."""
        return int(self.templates.shape[3]), int(self.templates.shape[2])

    # -- calibration ---------------------------------------------------------------------

    @classmethod
    def calibrate(cls, images: Mapping[Card, Image], name: str, *,
                  sources: Mapping[Card, str] | None = None) -> CameraDeck:
        """Learn a deck from one clear, face-up, upright image of each of the 52 cards.

        An image may be the card alone (a scan or a tight crop) or a photo of the card lying on
        a darker surface; the card is found, rectified and studied.

        :raises CameraDeckError: a card missing, an image in which no card is found, an index
            corner that cannot be located, or two images of one card (the whole card alike,
            naming them, by file name when ``sources`` gives them).
        """
        if not name.strip():
            raise CameraDeckError("a camera deck needs a name")
        where = dict(sources or {})

        def label(card: Card) -> str:
            return f"{card} ({where[card]})" if card in where else str(card)

        missing = [Card.from_index(i) for i in range(52) if Card.from_index(i) not in images]
        if missing:
            shown = ", ".join(card.code for card in sorted(missing, reverse=True)[:8])
            more = "…" if len(missing) > 8 else ""
            raise CameraDeckError(f"deck {name!r}: no image for {len(missing)} of the 52 cards "
                                  f"({shown}{more})")
        quads: dict[Card, Quad] = {}
        for card, image in images.items():
            if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3:
                raise CameraDeckError(f"deck {name!r}: the image of {label(card)} is not a "
                                      "colour image")
            quads[card] = card_in_image(image)
        order = [Card.from_index(i) for i in range(52)]
        study = np.stack([
            cv2.cvtColor(rectify(images[card], quads[card], _STUDY_WIDTH), cv2.COLOR_BGR2GRAY)
            for card in order]).astype(np.float32)
        box = locate_index(study)
        if box is None:
            raise CameraDeckError(
                f"deck {name!r}: no index (rank above suit) found in the cards' top-left "
                "corners; the images must show each card face up and upright")
        width, height = patch_size(box)
        templates = np.stack([
            index_features(camera_blur(
                warp_region(images[card], quads[card], box, (width, height))))
            for card in order])
        split = split_row(templates)
        duplicate = same_card(study, index_alike(templates, split))
        if duplicate is not None:
            a, b = order[duplicate[0]], order[duplicate[1]]
            raise CameraDeckError(
                f"deck {name!r}: the images of {label(a)} and {label(b)} show the same card "
                "(a duplicate file?)")
        separation = float(index_alike(templates, split).max())
        weights, bias = _clubs_spades(images, quads, box, (width, height), split)
        reader = _learn_index(images, quads, box, (width, height), split)
        return cls(name.strip(), box, templates, split, separation, weights, bias,
                   learnt=reader, created=time.time(),
                   sources=tuple(where.get(card, "") for card in order) if where else ())

    @classmethod
    def default(cls) -> CameraDeck:
        """The project's own deck (``cardart.DEFAULT_STYLE``), calibrated from its renders."""
        return _default_deck()

    # -- files ---------------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        meta = {"format": FORMAT_VERSION, "name": self.name, "box": list(self.box),
                "split": self.split, "separation": self.separation, "created": self.created,
                "sources": list(self.sources), "clubs_spades_bias": self.clubs_spades_bias}
        learnt_arrays: dict[str, Any] = {}
        if self.learnt is not None:
            for part, found in (("rank", self.learnt.rank), ("suit", self.learnt.suit)):
                learnt_arrays |= {f"{part}_weights": found.weights, f"{part}_bias": found.bias,
                                  f"{part}_half": found.half}
        buffer = io.BytesIO()
        np.savez_compressed(buffer, templates=self.templates, clubs_spades=self.clubs_spades,
                            meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
                            **learnt_arrays)
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes, *, what: str = "camera deck") -> CameraDeck:
        """A deck from :meth:`to_bytes` output; ``what`` names it in errors."""
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
                templates = np.asarray(arrays["templates"], dtype=np.float32)
                meta = json.loads(bytes(arrays["meta"]).decode())
                weights = (np.asarray(arrays["clubs_spades"], dtype=np.float32)
                           if "clubs_spades" in arrays.files else None)
                parts = {key: np.asarray(arrays[key], dtype=np.float32) for key in arrays.files
                         if key.startswith(("rank_", "suit_"))}
        except (OSError, ValueError, KeyError, UnicodeDecodeError, EOFError) as error:
            raise CameraDeckError(f"{what} is not a Feltcast camera deck ({error})") from None
        if isinstance(meta, dict) and isinstance(meta.get("format"), int) \
                and 0 < meta["format"] < FORMAT_VERSION:
            raise CameraDeckError(f"{what} was calibrated by an earlier Feltcast (deck format "
                                  f"{meta['format']}; this version reads format "
                                  f"{FORMAT_VERSION}): calibrate the deck again with "
                                  "`feltcast camera calibrate`")
        if not isinstance(meta, dict) or meta.get("format") != FORMAT_VERSION:
            raise CameraDeckError(f"{what} has an unknown deck format "
                                  f"{meta.get('format') if isinstance(meta, dict) else meta!r}")
        try:
            box = tuple(float(x) for x in meta["box"])
            if len(box) != 4:
                raise ValueError(f"bad index box {meta['box']!r}")
            if weights is None:
                raise KeyError("clubs_spades")
            reader = LearntIndex(*(Discriminant(parts[f"{part}_weights"], parts[f"{part}_bias"],
                                                parts[f"{part}_half"])
                                   for part in ("rank", "suit")))
            return cls(str(meta["name"]), (box[0], box[1], box[2], box[3]), templates,
                       int(meta["split"]), float(meta["separation"]), weights,
                       float(meta["clubs_spades_bias"]), learnt=reader,
                       created=float(meta.get("created", 0.0)),
                       sources=tuple(str(s) for s in meta.get("sources", [])))
        except (KeyError, TypeError, ValueError) as error:
            if isinstance(error, CameraDeckError):
                raise
            raise CameraDeckError(f"{what} is a damaged camera deck ({error})") from None

    def save(self, path: str | Path) -> Path:
        """Write the deck to ``path`` (``.npz``; the suffix is added when missing)."""
        target = Path(path)
        if target.suffix != ".npz":
            target = target.with_name(target.name + ".npz")
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".part")
        partial.write_bytes(self.to_bytes())
        partial.replace(target)
        return target

    @classmethod
    def load(cls, path: str | Path) -> CameraDeck:
        """Read a deck written by :meth:`save`.

        :raises CameraDeckError: no such file, or not a camera deck.
        """
        source = Path(path)
        try:
            data = source.read_bytes()
        except FileNotFoundError:
            raise CameraDeckError(f"there is no camera deck file {str(source)!r}") from None
        except OSError as error:
            raise CameraDeckError(f"cannot read the camera deck {str(source)!r}: "
                                  f"{error.strerror}") from None
        return cls.from_bytes(data, what=f"the file {str(source)!r}")


@lru_cache(maxsize=1)
def _default_deck() -> CameraDeck:
    from .cardart import DEFAULT_STYLE, render_card

    images = {Card.from_index(i): render_card(Card.from_index(i), DEFAULT_STYLE)
              for i in range(52)}
    deck = CameraDeck.calibrate(images, "default")
    return CameraDeck(deck.name, deck.box, deck.templates, deck.split, deck.separation,
                      deck.clubs_spades, deck.clubs_spades_bias, learnt=deck.learnt, created=0.0)


_WHOLE_IMAGE = OutlineParams(max_fraction=0.98)
"""A calibration image may be little more than the card."""


def card_in_image(image: Image) -> Quad:
    """The printed-order quad of the one card in a calibration image: the largest card
    outline when the card lies on a darker surface, else the whole image (a scan or crop),
    turned upright when it is wider than high."""
    height, width = image.shape[:2]
    quads = [quad for quad in find_card_quads(image, _WHOLE_IMAGE)
             if quad_area(quad) > 0.15 * width * height]
    if quads:
        return max(quads, key=quad_area)
    corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float32)
    if width > height:
        corners = np.roll(corners, -1, axis=0)  # landscape: its right side is the top
    return corners


def locate_index(study: npt.NDArray[np.float32]) -> tuple[float, float, float, float] | None:
    """The index box (u0, v0, u1, v1) from the 52 rectified grey cards ``(52, H, W)``.

    Two readings. The blob of card-to-card differences nearest the corner
    (:func:`_spread_index`, rank and suit merged) is right when the pips keep their distance;
    a narrow classic index stands a few pixels from the first pip, and the blob takes the pip
    in. So the index is also read on each card (:func:`card_index`: the ink nearest the
    top-left corner, its rank and the suit under it), and the union of the cards' boxes (a
    card whose box is far wider or taller than the others' left out) is taken when the blob
    is half as large again or does not hold it. Where fewer than 40 cards show such an
    index, the blob alone."""
    _, height, width = study.shape
    blob = _spread_index(study)
    boxes = [box for box in (card_index(card) for card in study) if box is not None]
    if len(boxes) < 40:
        return blob
    wide = float(np.median([x1 - x0 for x0, _, x1, _ in boxes]))
    tall = float(np.median([y1 - y0 for _, y0, _, y1 in boxes]))
    kept = [box for box in boxes  # a 10 is wider than the rest; art that crept in, more so
            if box[2] - box[0] <= 2.0 * wide and box[3] - box[1] <= 1.4 * tall]
    x0, y0 = min(b[0] for b in kept), min(b[1] for b in kept)
    x1, y1 = max(b[2] for b in kept), max(b[3] for b in kept)
    inked = _padded(x0, y0, x1 - x0, y1 - y0, width, height)
    if blob is None or inked is None:
        return blob or inked
    area = (inked[2] - inked[0]) * (inked[3] - inked[1])
    holds = blob[0] <= inked[0] + 0.02 and blob[1] <= inked[1] + 0.02 \
        and blob[2] >= inked[2] - 0.02 and blob[3] >= inked[3] - 0.02
    if holds and (blob[2] - blob[0]) * (blob[3] - blob[1]) <= 1.5 * area:
        return blob
    return inked


def card_index(card: npt.NDArray[np.float32]) -> tuple[int, int, int, int] | None:
    """The index of one rectified grey card as pixels (x0, y0, x1, y1), or None: the ink of
    the top-left corner (darker than the card stock around it, so a tinted or graded face
    is no matter) in pieces; the piece nearest the corner (the rank, or its first digit),
    the pieces beside it of its height (the 0 of a 10), and the one under it (the suit)."""
    height, width = card.shape
    corner = card[:int(0.45 * height), :int(0.45 * width)]
    size = max(3, round(0.08 * width)) | 1
    stock = cv2.dilate(corner, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)))
    stock = cv2.GaussianBlur(stock, (size, size), 0)
    depth = stock - corner
    if float(depth.max()) < 30.0:
        return None
    ink = (depth > max(25.0, 0.35 * float(np.percentile(depth, 99.5)))).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    pieces = [tuple(int(v) for v in stats[k][:4]) for k in range(1, count)
              if stats[k][4] >= 0.0004 * width * height  # not specks
              and stats[k][2] < 0.3 * width and stats[k][3] < 0.25 * height  # not frames
              and (stats[k][0] > 1 or stats[k][1] > 1)]  # not the table past a round corner
    if not pieces:
        return None
    seed = min(pieces, key=lambda p: np.hypot(p[0] + p[2] / 2, p[1] + p[3] / 2))
    x0, y0, x1, y1 = seed[0], seed[1], seed[0] + seed[2], seed[1] + seed[3]
    glyph = seed[3]
    if seed[2] <= 0.6 * glyph:  # a narrow 1: the 0 of its 10 beside it (not a court's art)
        for x, y, w, h in sorted(pieces, key=lambda p: p[0]):
            if (x, y, w, h) != seed and abs(h - glyph) <= 0.2 * glyph \
                    and abs(y - seed[1]) <= 0.2 * glyph and 0 <= x - x1 <= 0.4 * glyph:
                x1 = max(x1, x + w)
                y0, y1 = min(y0, y), max(y1, y + h)
    below = [p for p in pieces if p[1] >= y1 - 0.1 * glyph and p[1] - y1 <= 0.8 * glyph
             and min(x1, p[0] + p[2]) - max(x0, p[0]) >= 0.3 * min(p[2], x1 - x0)
             and p[3] <= 1.1 * glyph and p[2] <= 1.5 * glyph]
    if below:  # the suit: the nearest piece under the rank, overlapping its columns
        x, y, w, h = min(below, key=lambda p: p[1])
        x0, x1, y1 = min(x0, x), max(x1, x + w), max(y1, y + h)
    if y1 - y0 < 0.05 * height or x1 - x0 < 0.02 * width:
        return None
    return x0, y0, x1, y1


def _padded(x: float, y: float, w: float, h: float, width: int,
            height: int) -> tuple[float, float, float, float] | None:
    pad_x, pad_y = 0.015 * width, 0.012 * height
    u0 = max(0.0, (x - pad_x) / width)
    v0 = max(0.0, (y - pad_y) / height)
    u1 = min(1.0, (x + w + pad_x) / width)
    v1 = min(1.0, (y + h + pad_y) / height)
    if u1 - u0 < 0.03 or v1 - v0 < 0.05:
        return None
    return (u0, v0, u1, v1)


def _spread_index(study: npt.NDArray[np.float32]) -> tuple[float, float, float, float] | None:
    """The blob of card-to-card differences nearest the top-left corner (rank and suit
    merged)."""
    _, height, width = study.shape
    spread = study.std(axis=0)
    # Only the top-left corner: the index is within the first 40 % across and 35 % down.
    corner_w, corner_h = int(0.4 * width), int(0.35 * height)
    spread = spread[:corner_h, :corner_w]
    peak = float(np.percentile(spread, 99.5))
    if peak < 10.0:
        return None
    mask = (spread > 0.3 * peak).astype(np.uint8)
    # Merge rank and suit (stacked with a small gap) and the glyphs of "10", not the pips.
    kernel = cv2.getStructuringElement(
        cv2.MORPH_RECT, (max(3, round(0.03 * width)), max(3, round(0.045 * height))))
    merged = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)
    count, _, stats, _ = cv2.connectedComponentsWithStats(merged)
    best: tuple[float, int] | None = None
    for label in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[label])
        if area < 0.002 * width * height:
            continue
        distance = float(np.hypot(x, y))
        if best is None or distance < best[0]:
            best = (distance, label)
    if best is None:
        return None
    x, y, w, h, _ = (int(v) for v in stats[best[1]])
    return _padded(x, y, w, h, width, height)


def same_card(study: npt.NDArray[np.float32],
              alike: npt.NDArray[np.float32]) -> tuple[int, int] | None:
    """The first two of the rectified grey cards ``(52, H, W)`` that are one card, or None:
    alike as whole cards (to :data:`_SAME_CARD`, the border trimmed: a 5 and a 6 whose
    indexes look alike still differ by a pip) and by their indexes (``alike``, to
    :data:`_SAME_INDEX`: a king of hearts and one of diamonds drawn alike differ by the
    suit)."""
    height, width = study.shape[1:]
    inner = study[:, height // 20:height - height // 20, width // 20:width - width // 20]
    flat = inner.reshape(len(inner), -1).astype(np.float64)
    flat -= flat.mean(axis=1, keepdims=True)
    flat /= np.linalg.norm(flat, axis=1, keepdims=True) + 1e-9
    whole = flat @ flat.T
    np.fill_diagonal(whole, -1.0)
    pairs = np.argwhere(np.triu((whole >= _SAME_CARD) & (alike >= _SAME_INDEX)))
    return (int(pairs[0][0]), int(pairs[0][1])) if len(pairs) else None


def index_alike(templates: Features, split: int) -> npt.NDArray[np.float32]:
    """``(52, 52)``: how alike two cards' indexes are, the smaller of their ranks' and their
    suits' normalised correlations (1.0: the camera cannot tell them apart by the index; the
    diagonal is -1)."""
    rank, suit = normalise(templates[:, :, :split]), normalise(templates[:, :, split:])
    similarity = np.minimum(rank @ rank.T, suit @ suit.T)
    np.fill_diagonal(similarity, -1.0)
    return similarity


def nearest_cards(deck: CameraDeck) -> list[tuple[Card, Card, float]]:
    """Each card, its nearest neighbour by the index, and how alike they are
    (:func:`index_alike`), most alike first: the distinctness report of a calibration."""
    similarity = index_alike(deck.templates, deck.split)
    rows = [(Card.from_index(i), Card.from_index(int(np.argmax(similarity[i]))),
             float(similarity[i].max())) for i in range(52)]
    return sorted(rows, key=lambda row: -row[2])


def split_row(templates: Features) -> int:
    """The row between rank and suit: the emptiest row of the middle of the index, over all
    cards (ink is darker than the card stock)."""
    grey = templates[:, 0]
    ink = np.clip(np.median(grey, axis=(1, 2), keepdims=True) - grey, 0, None)
    profile = ink.sum(axis=(0, 2))
    height = grey.shape[1]
    low, high = round(0.35 * height), round(0.75 * height)
    return low + int(np.argmin(profile[low:high]))


def _clubs_spades(images: Mapping[Card, Image], quads: Mapping[Card, Quad],
                  box: tuple[float, float, float, float], size: tuple[int, int],
                  split: int) -> tuple[Features, float]:
    """The clubs-or-spades discriminant (:mod:`.suitcheck`) from the deck's club and spade
    images: each index seen :data:`.suitcheck.SAMPLES` times as a camera might (seeded)."""
    width, height = size
    margin = 8
    u0, v0, u1, v1 = box
    du, dv = (u1 - u0) / width, (v1 - v0) / height
    wide = (u0 - margin * du, v0 - margin * dv, u1 + margin * du, v1 + margin * dv)
    rng = np.random.default_rng(SEED)
    views: dict[int, list[Features]] = {CLUBS: [], SPADES: []}
    for suit in (CLUBS, SPADES):
        for rank in range(13):
            card = Card.from_index(4 * rank + suit)
            patch = camera_blur(warp_region(images[card], quads[card], wide,
                                            (width + 2 * margin, height + 2 * margin)))
            views[suit] += [index_features(view)[:, split:]
                            for view in camera_views(patch, rng, SAMPLES, margin=margin)]
    try:
        return learn_clubs_spades(np.stack(views[CLUBS]), np.stack(views[SPADES]))
    except ValueError:
        raise CameraDeckError("the deck's clubs and spades look the same; calibrate from "
                              "clearer images") from None


LEARNT_JITTER = Jitter(turn=3.0, jpeg=(50, 95))
"""How the views the rank and suit discriminants learn from are degraded: as the clubs-or-spades
check's, and also turned and sheared a few degrees (a tilted camera, a corner a little off) and
compressed as a camera's stream is."""


def _learn_index(images: Mapping[Card, Image], quads: Mapping[Card, Quad],
                 box: tuple[float, float, float, float], size: tuple[int, int],
                 split: int) -> LearntIndex:
    """The deck's rank and suit discriminants (:mod:`.learnt`) from its 52 images: each index
    seen :data:`.learnt.SAMPLES` times as a camera might (seeded)."""
    width, height = size
    margin = 8
    u0, v0, u1, v1 = box
    du, dv = (u1 - u0) / width, (v1 - v0) / height
    wide = (u0 - margin * du, v0 - margin * dv, u1 + margin * du, v1 + margin * dv)
    rng = np.random.default_rng(learnt.SEED)
    views: list[Features] = []
    for index in range(52):
        card = Card.from_index(index)
        patch = camera_blur(warp_region(images[card], quads[card], wide,
                                        (width + 2 * margin, height + 2 * margin)))
        views += [index_features(view) for view in
                  camera_views(patch, rng, learnt.SAMPLES, margin=margin, jitter=LEARNT_JITTER)]
    features = np.stack(views)
    labels = np.repeat(np.arange(52), learnt.SAMPLES)
    try:
        return LearntIndex(learn_discriminant(features[:, :, :split], labels >> 2, 13),
                           learn_discriminant(features[:, :, split:], labels & 3, 4))
    except ValueError:
        raise CameraDeckError("two ranks or two suits of the deck look the same; calibrate "
                              "from clearer images") from None


def patch_size(box: tuple[float, float, float, float]) -> tuple[int, int]:
    """Template (width, height) in pixels for an index box: :data:`PATCH_HEIGHT` high, the
    width keeping the box's true shape on a 2.5 x 3.5 card."""
    u0, v0, u1, v1 = box
    ratio = (u1 - u0) / ((v1 - v0) * CARD_ASPECT)
    return max(8, round(PATCH_HEIGHT * ratio)), PATCH_HEIGHT


# -- the registry -----------------------------------------------------------------------------

class _CameraDeckBase(SQLModel, registry=registry()):
    """Camera deck tables have their own metadata (created by the registry)."""


class CameraDeckRow(_CameraDeckBase, table=True):
    __tablename__ = "camera_deck"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=64, unique=True)
    retired: bool = Field(default=False)
    registered_at: float
    data: bytes = Field(sa_column=sa.Column(sa.LargeBinary, nullable=False))


@dataclass(frozen=True, slots=True)
class CameraDeckInfo:
    name: str
    retired: bool
    registered_at: float


class CameraDeckRegistry:
    """Camera decks stored by name in the service's database (SQLite or PostgreSQL), like the
    RFID decks of :class:`capture.rfid.decks.DeckRegistry`; ``"default"`` is always there."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        create_tables(_CameraDeckBase.metadata, engine)

    def save(self, deck: CameraDeck, *, replace: bool = False) -> CameraDeckInfo:
        """Store ``deck`` under its name.

        :raises CameraDeckError: the name is ``default`` or taken (unless ``replace``).
        """
        if deck.name == "default":
            raise CameraDeckError("'default' is the project's own deck; choose another name")
        with write_session(self.engine) as session:
            row = session.exec(select(CameraDeckRow).where(
                CameraDeckRow.name == deck.name)).first()
            if row is not None and not replace:
                raise CameraDeckError(f"a camera deck called {deck.name!r} already exists")
            if row is None:
                row = CameraDeckRow(name=deck.name, registered_at=time.time(),
                                    data=deck.to_bytes())
            else:
                row.data, row.registered_at, row.retired = deck.to_bytes(), time.time(), False
            session.add(row)
            session.commit()
            return CameraDeckInfo(row.name, row.retired, row.registered_at)

    def load(self, name: str) -> CameraDeck:
        """The deck called ``name`` (``"default"``: the project's own).

        :raises CameraDeckError: no such deck, or it is retired.
        """
        if name == "default":
            return CameraDeck.default()
        with Session(self.engine) as session:
            row = session.exec(select(CameraDeckRow).where(CameraDeckRow.name == name)).first()
            if row is None:
                raise CameraDeckError(f"there is no camera deck called {name!r}")
            if row.retired:
                raise CameraDeckError(f"camera deck {name!r} is retired")
            return CameraDeck.from_bytes(row.data, what=f"camera deck {name!r}")

    def decks(self) -> list[CameraDeckInfo]:
        with Session(self.engine) as session:
            rows = session.exec(select(CameraDeckRow).order_by(sa.column("id")))
            return [CameraDeckInfo(row.name, row.retired, row.registered_at) for row in rows]

    def retire(self, name: str) -> CameraDeckInfo:
        """Take a deck out of service for good (it stays in the database)."""
        with write_session(self.engine) as session:
            row = session.exec(select(CameraDeckRow).where(CameraDeckRow.name == name)).first()
            if row is None:
                raise CameraDeckError(f"there is no camera deck called {name!r}")
            row.retired = True
            session.add(row)
            session.commit()
            return CameraDeckInfo(row.name, row.retired, row.registered_at)


def is_deck_file(spec: str) -> bool:
    """A deck named as a file (a ``.npz`` name or a path) rather than a registered name."""
    return spec.endswith(".npz") or "/" in spec or "\\" in spec


def open_deck(spec: str, engine: Callable[[], Engine]) -> CameraDeck:
    """The deck ``spec`` names: ``default`` (the project's own), a saved deck file
    (:func:`is_deck_file`, or an existing file with a suffix), or else a deck registered in
    the database ``engine()`` opens (called only then). Blocking.

    :raises CameraDeckError: no such deck (the message says where it looked).
    """
    if spec == "default":
        return CameraDeck.default()
    path = Path(spec).expanduser()
    if is_deck_file(spec) or (path.suffix and path.is_file()):
        return CameraDeck.load(path)
    return CameraDeckRegistry(engine()).load(spec)
