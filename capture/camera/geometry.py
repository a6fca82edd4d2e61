"""Card outlines in camera images: finding them, ordering their corners, rectifying them.

A playing card is a 2.5 x 3.5 inch rectangle: seen by a camera it is a convex quadrilateral
(perspective), bright against the felt. :func:`find_card_quads` finds such quadrilaterals on
a downscaled copy of the image (outline search is the expensive step, so it runs on at most
:data:`SEARCH_WIDTH` pixels across) and refines each corner by fitting straight lines to the
outline, so the corners are good to about a pixel of the search image.

Corner order. Every quad this module returns is ``(4, 2)`` float32 in the image's pixel
coordinates, **clockwise on screen** (y grows downwards), starting with the printed card's
top-left corner: top-left, top-right, bottom-right, bottom-left, so the first side is a short
side of the card. A card looks the same turned by 180 degrees except for its centre, so
geometry alone leaves two candidates (:func:`portrait_orders`); the recognizer picks the one
whose top-left index corner reads best.

Card coordinates: ``(u, v)`` with ``u`` across the card's width and ``v`` down its height,
both 0-1 from the printed top-left corner (:func:`card_to_image`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias

import cv2
import numpy as np
import numpy.typing as npt

CARD_ASPECT = 3.5 / 2.5
"""Height over width of a poker-size card."""

SEARCH_WIDTH = 960
"""Outlines are searched on an image at most this wide (a 1080p frame at half size)."""

Image: TypeAlias = npt.NDArray[np.uint8]
Quad: TypeAlias = npt.NDArray[np.float32]
"""Four corners, shape ``(4, 2)``, float32, image pixels."""
Contour: TypeAlias = npt.NDArray[Any]
"""An outline as ``cv2.findContours`` gives it: ``(n, 1, 2)`` int32."""

_UNIT = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], dtype=np.float32)


@dataclass(frozen=True, slots=True)
class OutlineParams:
    """Limits on what counts as a card outline (areas in full-image pixels)."""

    min_area: float = 1500.0
    """Smallest card, about 33 x 46 pixels: smaller indices are unreadable anyway."""
    max_fraction: float = 0.6
    """Largest card as a fraction of the searched area."""
    min_solidity: float = 0.85
    """Outline area over its convex hull's area: a card is convex; occlusion lowers it."""
    min_aspect: float = 1.1
    max_aspect: float = 2.0
    """Long side over short side of the quad (1.4 for a card seen square on)."""
    min_contrast: float = 40.0
    """Grey levels between felt and cards below which the image holds no card."""
    canny_low: int = 40
    canny_high: int = 110
    """Hysteresis thresholds of the edges that separate touching cards."""
    max_roundness: float = 0.88
    """Roundness (4 pi area / perimeter squared of the convex hull: 1 for a disc, 0.76 for a
    card, less for several) from which a blob is a chip or the dealer button, not cards:
    on the development scenes, blobs with a card are at most 0.81, discs at least 0.9."""


DEFAULT_OUTLINE = OutlineParams()


def to_search_scale(width: int) -> float:
    """The factor (<= 1) applied to an image ``width`` wide for the outline search."""
    return min(1.0, SEARCH_WIDTH / float(width))


def card_mask(image: Image, params: OutlineParams = DEFAULT_OUTLINE) -> Image | None:
    """White where a card may be: pixels brighter than the felt in *every* channel.

    Card stock is light and unsaturated; felt (green, blue, red) has at least one dark
    channel, so the per-pixel minimum of B, G and R separates them under any felt colour.
    The threshold is Otsu's on that minimum; ``None`` when the image has no such contrast
    (all felt, or all card).
    """
    if image.ndim == 3:
        blue, green, red = cv2.split(image)
        lowest = cv2.min(cv2.min(blue, green), red)
    else:
        lowest = image
    lowest = cv2.GaussianBlur(lowest, (5, 5), 0)
    _, mask = cv2.threshold(lowest, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    bright = cv2.countNonZero(mask)
    if bright == 0 or bright == mask.size:
        return None
    above = cv2.mean(lowest, mask=mask)[0]
    below = cv2.mean(lowest, mask=cv2.bitwise_not(mask))[0]
    if above - below < params.min_contrast:
        return None
    # No opening: it would eat the thin strip of card stock between an index printed close
    # to the edge and the felt, and with it the card's corner. Specks fail the area test.
    return np.asarray(mask, dtype=np.uint8)


@dataclass(frozen=True, slots=True)
class Outline:
    """A card quad found in an image and the outline of the blob it came from."""

    quad: Quad
    """Full-image pixels, clockwise from a corner that starts a short side."""
    blob: npt.NDArray[np.float32]
    """The blob's outline points, ``(n, 2)``, in search-image pixels (see :attr:`scale`):
    several cards can share one blob (a fanned pair, cards touching)."""
    scale: float
    """Search-image pixels per full-image pixel."""
    enclosing: bool = False
    """Whether :attr:`quad` is only the blob's smallest enclosing rectangle (no card-shaped
    part was found in it): what reads on it is a guess."""

    def snap(self, guess: Quad, reach: float = 0.06) -> Quad:
        """``guess`` (a card quad in full-image pixels, corners in any fixed order) with
        every side that runs along the blob's outline fitted to it (the outline within
        ``reach`` times the side's length of it); sides across the blob (where one card
        ends under another) stay where they are."""
        fitted = _refine(np.asarray(guess * self.scale, dtype=np.float32), self.blob,
                         tolerance=reach)
        return np.asarray(fitted / self.scale, dtype=np.float32)

    def clean(self) -> bool:
        """Whether the quad is its blob's outline (IoU >= :data:`_CLEAN_FIT`): a card alone,
        nothing on its edges, so no other quad guessed for it can be truer."""
        blob = self.blob.reshape(-1, 1, 2).astype(np.int32)
        return _blob_overlap(self.quad * self.scale, blob) >= _CLEAN_FIT

    def shared(self) -> bool:
        """Whether the blob holds more than this card (its quad covers under 3/4 of it)."""
        blob_area = float(cv2.contourArea(self.blob.reshape(-1, 1, 2)))
        return quad_area(self.quad * self.scale) < 0.75 * blob_area

    def ends(self) -> list[Quad]:
        """The blob taken as a row of cards (for a blob that holds several, :meth:`shared`):
        the cards at either end of its smallest enclosing rectangle, each as wide as a card
        as high as the rectangle's short side, snapped to the outline. There lie the two
        cards of a fanned pair (the blob is the top card's step longer than a card is
        wide), or the end cards of a row joined by chips or fingers. Empty when the blob is
        not wider than a card is high."""
        box = clockwise(cv2.boxPoints(cv2.minAreaRect(self.blob.reshape(-1, 1, 2))))
        sides = side_lengths(box)
        if sides[0] > sides[1]:
            box = np.asarray(np.roll(box, -1, axis=0), dtype=np.float32)
            sides = side_lengths(box)
        if float(sides[1]) < 1.1 * float(sides[0]):
            return []
        box = np.asarray(box / self.scale, dtype=np.float32)
        return [self._end(box[[0, 1, 2, 3]]), self._end(box[[2, 3, 0, 1]])]

    def _end(self, box: Quad) -> Quad:
        """The card standing on ``box``'s side 0-1 (a card's long side: the blob is a row
        of cards), reaching towards side 2-3: sized by that side, snapped to the outline,
        then sized again by the side as snapped (the enclosing rectangle of two cards
        turned a little against each other is higher than either)."""
        card = box.astype(np.float64)
        # The cards of a row each lie at their own angle, a few degrees off the
        # rectangle's: the first snap reaches further.
        for reach in (0.12, 0.06):
            height = float(np.hypot(*(card[1] - card[0])))
            for near, far in ((1, 2), (0, 3)):
                along = card[far] - card[near]
                along = along / max(1e-6, float(np.hypot(*along)))
                card[far] = card[near] + along * height / CARD_ASPECT
            card = self.snap(np.asarray(card, dtype=np.float32), reach).astype(np.float64)
        ordered = clockwise(card)
        if side_lengths(ordered)[0] > side_lengths(ordered)[1]:
            ordered = np.asarray(np.roll(ordered, -1, axis=0), dtype=np.float32)
        return ordered


def find_card_quads(image: Image, params: OutlineParams = DEFAULT_OUTLINE) -> list[Quad]:
    """Card-shaped outlines in ``image`` (BGR or grey), each ordered clockwise from a corner
    that starts a short side (see :func:`portrait_orders` for the two printed orders)."""
    return [outline.quad for outline in find_card_outlines(image, params)]


def find_card_outlines(image: Image, params: OutlineParams = DEFAULT_OUTLINE
                       ) -> list[Outline]:
    """What :func:`find_card_quads` finds, each quad with its blob's outline."""
    height, width = image.shape[:2]
    scale = to_search_scale(width)
    small: Image = image if scale >= 1.0 else np.asarray(cv2.resize(
        image, (round(width * scale), round(height * scale)), interpolation=cv2.INTER_AREA),
        dtype=np.uint8)
    mask = card_mask(small, params)
    if mask is None:
        return []
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    min_area = params.min_area * scale * scale
    max_area = params.max_fraction * small.shape[0] * small.shape[1]
    outlines: list[Outline] = []
    for contour in contours:
        area = cv2.contourArea(contour)
        if not min_area <= area <= max_area * 3 or _roundness(contour) >= params.max_roundness:
            continue
        # Two cards side by side make a card-shaped blob too: look inside every blob. The
        # parts count when at least two of them are cards, or when the blob as a whole is
        # not one (edges inside one card, such as a court card's frame, can cut it up).
        parts = [part for part in _split(small, mask, contour, params)
                 if max(min_area, 0.2 * area) <= cv2.contourArea(part) <= max_area]
        found = []
        for part in parts if len(parts) >= 2 else []:
            quad = quad_from_contour(part, params)
            if quad is None:
                quad = _covered_card(part, params)  # the card underneath a fanned pair
            if quad is not None:
                # Sides on the blob's own outline are fitted to it (the cut frays the
                # part's outline near the index); the others stay where the cut is.
                found.append(_refine(grow(quad, _CUT_GROWTH),
                                     contour.reshape(-1, 2).astype(np.float32),
                                     tolerance=0.1))
        if len(found) == 1 and area > 1.3 * quad_area(found[0]):
            # A fanned pair whose top card came out whole: the rest of the blob is the card
            # underneath.
            under = _card_under(found[0], contour, params)
            whole = quad_from_contour(contour, params) if area <= max_area else None
            if whole is not None:
                # The blob's far end, a card wide, is the card underneath.
                far = min(split_ends(whole), key=lambda half: quad_iou(half, found[0]))
                if quad_iou(far, found[0]) < 0.3:
                    under = far
            if under is not None:
                found.append(under)
        # One part that is a card stays, unless the blob as it is is one too.
        if len(found) < 2 and area <= max_area:
            plain = quad_from_contour(contour, params)
            if not found or plain is not None:
                found = _card_quads(contour, plain, params) or found
        found = _straightened(contour, found, min_area)
        enclosing = not found
        if enclosing:
            found = _enclosing(contour)
        blob = contour.reshape(-1, 2).astype(np.float32)
        outlines.extend(Outline(np.asarray(quad / scale, dtype=np.float32), blob, scale,
                                enclosing) for quad in found)
    return outlines


SURE_SIDES = 0.8
"""Part of a quad's perimeter along the blob's outline from which :func:`_straightened`
takes the quad its straight stretches make."""
_BETTER_SIDES = 0.05
"""How much more of its perimeter that quad must have on the outline than the one found."""


def _straightened(contour: Contour, found: list[Quad], min_area: float) -> list[Quad]:
    """``found`` (the card quads of one blob) corrected by the card quads the blob's
    straight stretches make (:func:`.sides.sided_quads`): a fingertip, an arm or a chip
    stuck to a card's edge leans the hull, and a quad fitted to it, towards the
    protrusion, or hides the card altogether; the card's sides stay straight along most of
    their length. A quad made of them replaces a found quad it overlaps when more of its
    perimeter lies on the outline, and is added where no quad was found. Not for a blob
    that is one card alone, as most are."""
    if len(found) == 1 and _blob_overlap(found[0], contour) >= _CLEAN_FIT:
        return found
    from .sides import coverage, sided_quads  # sides builds on this module

    points = contour.reshape(-1, 2).astype(np.float64)
    result = list(found)
    for quad, covered in sided_quads(contour):
        if covered < SURE_SIDES or quad_area(quad) < min_area:
            continue
        overlaps = [i for i, other in enumerate(result) if quad_iou(quad, other) >= 0.2]
        if not overlaps:
            result.append(quad)
        elif len(overlaps) == 1 and quad_iou(quad, result[overlaps[0]]) >= 0.5 and (
                covered > coverage(result[overlaps[0]], points) + _BETTER_SIDES):
            result[overlaps[0]] = quad
        elif (len(overlaps) >= 2 and all(_piece_of(result[i], quad) for i in overlaps)
              and _sticks_out(quad, contour)):
            # An arm across the card cut it in pieces (each as card-shaped as a card: half
            # a card is 1.75 by 2.5 inches), each well inside the quad and much smaller; the
            # arm shows beyond the card. (Two cards side by side make such a quad too, but
            # nothing of their blob lies outside it.)
            result = [other for i, other in enumerate(result) if i not in overlaps]
            result.append(quad)
    return result


def _enclosing(contour: Contour) -> list[Quad]:
    """The smallest rectangle around a blob in which no card quad was found, when it may
    hold cards: a fanned pair with a chip on it, cut to pieces by the edges inside it. Its
    cards are found at its ends (:meth:`Outline.ends`) once the rectangle reads as none."""
    (_, _), (w, h), _ = cv2.minAreaRect(contour)
    short, long_ = sorted((float(w), float(h)))
    if short <= 0 or long_ / short > 2.2 or cv2.contourArea(contour) < 0.8 * w * h:
        return []
    box = clockwise(cv2.boxPoints(cv2.minAreaRect(contour)))
    if side_lengths(box)[0] > side_lengths(box)[1]:
        box = np.asarray(np.roll(box, -1, axis=0), dtype=np.float32)
    return [box]


def _piece_of(piece: Quad, card: Quad) -> bool:
    """Whether ``piece`` lies inside ``card`` (4/5 of it) and is at most 3/5 its size: a
    piece of a card that something on it cut off, not a card overlapping it."""
    inside, _ = cv2.intersectConvexConvex(piece.astype(np.float32), card.astype(np.float32))
    area = quad_area(piece)
    return float(inside) >= 0.8 * area and area <= 0.6 * quad_area(card)


def _roundness(contour: Contour) -> float:
    """4 pi area over the squared perimeter of the outline's convex hull (1 for a disc)."""
    perimeter = cv2.arcLength(cv2.convexHull(contour), True)
    return 0.0 if perimeter <= 0 else 4.0 * np.pi * cv2.contourArea(contour) / perimeter ** 2


def _split(image: Image, mask: Image, contour: Contour,
           params: OutlineParams) -> list[Contour]:
    """The parts of a blob that is not one card (cards touching or overlapping, a chip
    bridging two cards), cut apart along the edges inside it."""
    x, y, w, h = cv2.boundingRect(contour)
    pad = 2
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(mask.shape[1], x + w + pad), min(mask.shape[0], y + h + pad)
    blob = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(blob, [contour], -1, 255, cv2.FILLED, offset=(-x0, -y0))
    blob = cv2.bitwise_and(blob, mask[y0:y1, x0:x1])
    region = image[y0:y1, x0:x1]
    grey = cv2.cvtColor(region, cv2.COLOR_BGR2GRAY) if region.ndim == 3 else region
    edges = cv2.Canny(grey, params.canny_low, params.canny_high)
    edges = cv2.dilate(edges, cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3)))
    blob = cv2.bitwise_and(blob, cv2.bitwise_not(edges))
    parts, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE,
                                offset=(x0, y0))
    return [np.asarray(part) for part in parts]


def _card_under(top: Quad, contour: Contour, params: OutlineParams) -> Quad | None:
    """The card partly under ``top`` in one blob: a card-shaped rectangle around the blob's
    outline outside ``top``, extended under ``top`` to a card's proportions."""
    points = contour.reshape(-1, 2).astype(np.float32)
    polygon = grow(top, 4.0).reshape(-1, 1, 2)
    outside = np.array([cv2.pointPolygonTest(polygon, (float(x), float(y)), False) < 0
                        for x, y in points])
    if int(outside.sum()) < 20:
        return None
    (cx, cy), (w, h), angle = cv2.minAreaRect(points[outside])
    if min(w, h) <= 2:
        return None
    box = clockwise(cv2.boxPoints(((cx, cy), (w, h), angle)))
    sides = side_lengths(box)
    if sides[0] > sides[1]:
        box = np.asarray(np.roll(box, -1, axis=0), dtype=np.float32)
        sides = side_lengths(box)
    short, long_ = float(sides[0]), float(sides[1])
    towards = top.mean(axis=0) - box.mean(axis=0)
    if long_ / short > CARD_ASPECT:
        # The short sides are cut off by the top card: extend across, towards it.
        axis = (box[1] - box[0]) / short
        extra = long_ / CARD_ASPECT - short
    else:
        axis = (box[2] - box[1]) / long_
        extra = short * CARD_ASPECT - long_
    if float(np.dot(axis, towards)) < 0:
        axis = -axis
    if extra > 0.8 * short:
        return None  # too little of it shows to tell where it lies
    moved = box.copy()
    for i in range(4):
        if float(np.dot(box[i] - box.mean(axis=0), axis)) > 0:
            moved[i] = box[i] + axis * extra
    quad = clockwise(moved)
    if side_lengths(quad)[0] > side_lengths(quad)[1]:
        quad = np.asarray(np.roll(quad, -1, axis=0), dtype=np.float32)
    if quad_iou(quad, top) > 0.5:
        return None
    return quad


def _covered_card(part: Contour, params: OutlineParams) -> Quad | None:
    """A card partly under another: the smallest rectangle around what shows of it, when
    that is card-shaped and mostly filled (a covered corner or strip, not a sliver)."""
    rect = cv2.minAreaRect(part)
    (w, h) = rect[1]
    if min(w, h) <= 0:
        return None
    if not 1.2 <= max(w, h) / min(w, h) <= 1.65:
        return None
    if cv2.contourArea(part) < 0.55 * w * h:
        return None
    quad = clockwise(cv2.boxPoints(rect))
    sides = side_lengths(quad)
    if sides[0] > sides[1]:
        quad = np.asarray(np.roll(quad, -1, axis=0), dtype=np.float32)
    return quad


def _card_quads(contour: Contour, plain: Quad | None, params: OutlineParams) -> list[Quad]:
    """The card quads of an outline that may have something thin stuck to it: a fingertip
    over a card's edge (of the quads of the outline as it is and with the fingertip cut
    off, the one that fits the blob better), or a finger bridging two cards (each card's
    own quad). ``plain`` is the outline's own quad (:func:`quad_from_contour`)."""
    plain_fit = 0.0 if plain is None else _blob_overlap(plain, contour)
    if plain is not None and plain_fit >= _CLEAN_FIT:
        return [plain]  # nothing sticks out (most cards): spare the cutting
    pieces = _without_protrusions(contour)
    if len(pieces) >= 2:
        bridged = [quad for quad in (quad_from_contour(piece, params) for piece in pieces)
                   if quad is not None]
        if len(bridged) >= 2:
            return bridged
    better = quad_from_contour(pieces[0], params) if pieces else None
    if better is None or (plain is not None and plain_fit >= _blob_overlap(better, contour)):
        return [] if plain is None else [plain]
    return [better]


_CLEAN_FIT = 0.97
"""Overlap of an outline's own quad with its blob above which nothing sticks out of it."""


def _blob_overlap(quad: Quad, contour: Contour) -> float:
    """Intersection over union of ``quad`` and the blob inside ``contour``, in pixels."""
    inter, blob, card = _overlap_areas(quad, contour)
    union = blob + card - inter
    return 0.0 if union == 0 else inter / union


def _sticks_out(quad: Quad, contour: Contour, part: float = 0.03) -> bool:
    """Whether more of the blob inside ``contour`` than ``part`` of ``quad``'s area lies
    outside ``quad``."""
    inter, blob, card = _overlap_areas(quad, contour)
    return blob - inter > part * card


def _overlap_areas(quad: Quad, contour: Contour) -> tuple[int, int, int]:
    """Pixels in both ``quad`` and the blob inside ``contour``, in the blob, in ``quad``."""
    corners = np.round(quad).astype(np.int32)
    points = np.vstack([contour.reshape(-1, 2), corners])
    x, y, w, h = cv2.boundingRect(points)
    blob = np.zeros((h, w), np.uint8)
    cv2.drawContours(blob, [contour], -1, 1, cv2.FILLED, offset=(-x, -y))
    card = np.zeros((h, w), np.uint8)
    cv2.fillPoly(card, [corners - np.array([x, y], np.int32)], 1)
    return (cv2.countNonZero(cv2.bitwise_and(blob, card)), cv2.countNonZero(blob),
            cv2.countNonZero(card))


def _without_protrusions(contour: Contour) -> list[Contour]:
    """The outlines of a blob with what sticks out of it thinner than a fifth of its width
    removed (a fingertip reaching over a card's edge; a finger from one card to the next,
    which leaves two pieces), largest first; pieces under a sixth of the blob are dropped."""
    (_, _), (w, h), _ = cv2.minAreaRect(contour)
    size = round(0.2 * min(w, h)) | 1
    if size < 5:
        return []
    x, y, bw, bh = cv2.boundingRect(contour)
    pad = 2
    blob = np.zeros((bh + 2 * pad, bw + 2 * pad), np.uint8)
    cv2.drawContours(blob, [contour], -1, 255, cv2.FILLED, offset=(pad - x, pad - y))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    opened = cv2.morphologyEx(blob, cv2.MORPH_OPEN, kernel)
    # The opening rounds the card's corners off too: give them back (what lies within a
    # little more than (sqrt 2 - 1) times the disc's radius of the opened blob).
    back = (int(0.25 * size) + 2) * 2 + 1
    kept = cv2.bitwise_and(blob, cv2.dilate(opened, cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (back, back))))
    parts, _ = cv2.findContours(kept, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE,
                                offset=(x - pad, y - pad))
    whole = cv2.contourArea(contour)
    pieces = sorted((np.asarray(part) for part in parts), key=cv2.contourArea, reverse=True)
    return [piece for piece in pieces if cv2.contourArea(piece) >= whole / 6.0]


def quad_from_contour(contour: Contour,
                      params: OutlineParams = DEFAULT_OUTLINE) -> Quad | None:
    """The card quad of one outline, or ``None`` when the outline is not card-shaped."""
    hull = cv2.convexHull(contour)
    hull_area = cv2.contourArea(hull)
    if hull_area <= 0 or cv2.contourArea(contour) / hull_area < params.min_solidity:
        return None
    perimeter = cv2.arcLength(hull, True)
    corners = None
    for epsilon in (0.02, 0.03, 0.045, 0.06, 0.08):
        approx = cv2.approxPolyDP(hull, epsilon * perimeter, True)
        if len(approx) == 4:
            corners = approx.reshape(4, 2).astype(np.float32)
            break
        if len(approx) < 4:
            break
    if corners is None:
        box = cv2.boxPoints(cv2.minAreaRect(hull))
        corners = np.asarray(box, dtype=np.float32)
    if not cv2.isContourConvex(corners.reshape(-1, 1, 2)):
        return None
    corners = _refine(corners, contour.reshape(-1, 2).astype(np.float32))
    quad = clockwise(corners)
    sides = side_lengths(quad)
    short = (sides[0] + sides[2]) / 2.0
    long_ = (sides[1] + sides[3]) / 2.0
    if short > long_:
        quad = np.roll(quad, -1, axis=0)
        short, long_ = long_, short
    if short <= 0 or not params.min_aspect <= long_ / short <= params.max_aspect:
        return None
    return quad


_CUT_GROWTH = 1.5
"""Pixels (search scale) the edge cut takes off every blob's outline."""


def grow(quad: Quad, distance: float) -> Quad:
    """``quad`` with every side moved ``distance`` pixels outwards."""
    centre = quad.mean(axis=0)
    out = np.empty_like(quad)
    lines = []
    for i in range(4):
        a, b = quad[i].astype(np.float64), quad[(i + 1) % 4].astype(np.float64)
        unit = (b - a) / max(1e-6, float(np.hypot(*(b - a))))
        normal = np.array([-unit[1], unit[0]])
        if float(np.dot(normal, a - centre)) < 0:
            normal = -normal
        lines.append((a + distance * normal, unit))
    for i in range(4):
        p, d = lines[(i - 1) % 4]
        q, e = lines[i]
        matrix = np.array([[d[0], -e[0]], [d[1], -e[1]]])
        if abs(float(np.linalg.det(matrix))) < 1e-9:
            return quad
        out[i] = p + np.linalg.solve(matrix, q - p)[0] * d
    return out


def _refine(corners: Quad, points: npt.NDArray[np.float32], *, tolerance: float = 0.02
            ) -> Quad:
    """Corners at the intersections of lines fitted to the outline along each side.

    Only outline points close to a side count, so a thumb over one side moves nothing. The
    fit runs twice: first with the points up to :data:`_WIDE_BAND` pixels off each side (the
    polygon's corners can sit a few pixels inside a card's rounded corners; a side close to
    the image axes then runs beside its outline and has few points within a narrow band),
    then within a narrow band of the side found.
    """
    # The first fit only brings the sides close: least squares, which costs a hundredth of
    # the robust fit's time. The second looks only at the points the first one used.
    close, used = _refine_once(corners, points.astype(np.float64), _WIDE_BAND, tolerance,
                               cv2.DIST_L2)
    if used is None:
        return close
    return _refine_once(close, used, 2.0, tolerance, cv2.DIST_HUBER)[0]


def _refine_once(corners: Quad, points: npt.NDArray[np.float64], band: float,
                 tolerance: float, distance: int
                 ) -> tuple[Quad, npt.NDArray[np.float64] | None]:
    """One fit of :func:`_refine`: outline points within ``band`` pixels (or ``tolerance``
    times the side's length) of each side, fitted with ``cv2.fitLine``'s ``distance``; the
    corners and the points used (``None`` when the corners stay as they were)."""
    starts = corners.astype(np.float64)
    directions = np.roll(starts, -1, axis=0) - starts
    lengths = np.hypot(directions[:, 0], directions[:, 1])
    if float(lengths.min()) < 4:
        return corners, None
    units = directions / lengths[:, None]
    normals = np.stack([-units[:, 1], units[:, 0]], axis=1)
    # All four sides at once: (n, 4) distances along and across each side.
    along = points @ units.T - np.einsum("ij,ij->i", starts, units)
    across = np.abs(points @ normals.T - np.einsum("ij,ij->i", starts, normals))
    near_all = ((across < np.maximum(band, tolerance * lengths))
                & (along > 0.1 * lengths) & (along < 0.9 * lengths))
    lines: list[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]] = []
    for i in range(4):
        near = near_all[:, i]
        if int(near.sum()) < 5:
            lines.append((starts[i], units[i]))
            continue
        fitted = cv2.fitLine(points[near].astype(np.float32), distance, 0, 0.01,
                             0.01).reshape(-1).astype(np.float64)
        direction, through = fitted[:2], fitted[2:]
        middle = starts[i] + 0.5 * directions[i]
        if (abs(float(direction[0] * units[i, 1] - direction[1] * units[i, 0])) > _MAX_TURN
                or abs(float(np.dot(middle - through, normals[i]))) > 2.0 * max(
                    band, tolerance * float(lengths[i]))):
            # Something else along this side (a chip's rim): keep the side as it was.
            lines.append((starts[i], units[i]))
            continue
        lines.append((through, direction))
    refined = np.empty((4, 2), dtype=np.float32)
    for i in range(4):
        p, d = lines[(i - 1) % 4]
        q, e = lines[i]
        # p + s d = q + t e, by Cramer's rule.
        det = float(e[0] * d[1] - d[0] * e[1])
        if abs(det) < 1e-6:
            return corners, None
        r = q - p
        point = p + float(e[0] * r[1] - r[0] * e[1]) / det * d
        if float(np.hypot(*(point - corners[i]))) > 0.1 * float(
                np.hypot(*(corners[(i + 2) % 4] - corners[i]))):
            return corners, None  # a wild intersection: keep the polygon's own corners
        refined[i] = point
    return refined, points[near_all.any(axis=1)]


_MAX_TURN = 0.2
"""Sine of the largest angle (about 11.5 degrees) between a side and the line fitted to
the outline beside it; beyond it the fit is of something else."""

_WIDE_BAND = 4.0
"""Pixels (search scale) either side of a polygon side whose outline points the first fit
of :func:`_refine` uses."""


def clockwise(points: npt.ArrayLike) -> Quad:
    """The four points in clockwise order on screen (y down), starting from the one nearest
    the top-left of the image (smallest x + y)."""
    quad = np.asarray(points, dtype=np.float32).reshape(4, 2)
    centre = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    quad = quad[np.argsort(angles)]  # increasing angle = clockwise when y points down
    start = int(np.argmin(quad.sum(axis=1)))
    return np.asarray(np.roll(quad, -start, axis=0), dtype=np.float32)


def side_lengths(quad: Quad) -> npt.NDArray[np.float64]:
    """Lengths of the sides 0-1, 1-2, 2-3 and 3-0."""
    q = quad.astype(np.float64)
    return np.asarray(np.hypot(*(np.roll(q, -1, axis=0) - q).T), dtype=np.float64)


def portrait_orders(quad: Quad) -> tuple[Quad, Quad]:
    """The two printed-card orders of a card quad (TL, TR, BR, BL): ``quad`` itself (a
    clockwise quad starting at a short side, as :func:`find_card_quads` returns) and the same
    card turned by 180 degrees."""
    return quad, np.asarray(np.roll(quad, 2, axis=0), dtype=np.float32)


def parallelograms(quad: Quad) -> list[Quad]:
    """``quad`` with each corner in turn replaced by the one that completes a parallelogram
    with the other three (a card seen at a modest tilt), when that keeps a card's shape:
    guesses for an outline with one corner wrong."""
    guesses: list[Quad] = []
    for i in range(4):
        guess = quad.astype(np.float32, copy=True)
        guess[i] = quad[(i - 1) % 4] + quad[(i + 1) % 4] - quad[(i + 2) % 4]
        if float(np.abs(guess[i] - quad[i]).max()) < 1.5:
            continue  # the corner was right already
        sides = side_lengths(guess)
        short, long_ = (sides[0] + sides[2]) / 2.0, (sides[1] + sides[3]) / 2.0
        if short > 0 and 1.2 <= long_ / short <= 1.65 and cv2.isContourConvex(
                guess.reshape(-1, 1, 2)):
            guesses.append(guess)
    return guesses


def anchored_cards(quad: Quad) -> list[Quad]:
    """Card-shaped rectangles standing on each side of ``quad`` in turn, on its inner side:
    guesses for an outline of which only one side is right (the others cut by an occluder
    or by the edge between two overlapping cards)."""
    centre = quad.mean(axis=0)
    guesses: list[Quad] = []
    for i in range(4):
        a, b = quad[i].astype(np.float64), quad[(i + 1) % 4].astype(np.float64)
        length = float(np.hypot(*(b - a)))
        if length < 8.0:
            continue
        unit = (b - a) / length
        normal = np.array([-unit[1], unit[0]])
        if float(np.dot(normal, centre - a)) < 0:
            normal = -normal
        # Side 0 (and 2) of a quad from this module is a short side of the card.
        depth = length * CARD_ASPECT if i % 2 == 0 else length / CARD_ASPECT
        corners = [a, b, b + depth * normal, a + depth * normal]
        guess = clockwise(np.array(corners, dtype=np.float32))
        if side_lengths(guess)[0] > side_lengths(guess)[1]:
            guess = np.asarray(np.roll(guess, -1, axis=0), dtype=np.float32)
        if min(float(np.abs(guess - np.roll(quad, k, axis=0)).max()) for k in range(4)) >= 1.5:
            guesses.append(guess)
    return guesses


NUDGES = ((-3.0, 1.0), (3.0, 1.0), (0.0, 0.94), (0.0, 1.06))
"""(Degrees turned, scale) of the guesses :func:`nudged` makes."""


def nudged(quad: Quad) -> list[Quad]:
    """``quad`` turned a little either way about its centre, and a little smaller and
    larger: guesses for an outline whose corners are each a few pixels off."""
    centre = quad.mean(axis=0)
    guesses: list[Quad] = []
    for degrees, scale in NUDGES:
        turn = np.radians(degrees)
        matrix = scale * np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
        guesses.append(np.asarray((quad - centre) @ matrix.T + centre, dtype=np.float32))
    return guesses


def split_ends(quad: Quad) -> tuple[Quad, Quad]:
    """Two overlapping cards taken for one (a fanned pair side by side is about as high as
    a card and wider): the two cards at either end of ``quad``'s long sides, each as wide as
    ``quad``'s short side allows a card to be, in the usual corner order."""
    q = quad.astype(np.float64)
    width = float(np.hypot(*(q[1] - q[0]))) / CARD_ASPECT
    along_right = (q[2] - q[1]) / max(1e-6, float(np.hypot(*(q[2] - q[1]))))
    along_left = (q[3] - q[0]) / max(1e-6, float(np.hypot(*(q[3] - q[0]))))
    first = np.array([q[0], q[1], q[1] + width * along_right, q[0] + width * along_left])
    second = np.array([q[3] - width * along_left, q[2] - width * along_right, q[2], q[3]])
    result = []
    for card in (first, second):
        ordered = clockwise(card)
        if side_lengths(ordered)[0] > side_lengths(ordered)[1]:
            ordered = np.asarray(np.roll(ordered, -1, axis=0), dtype=np.float32)
        result.append(ordered)
    return result[0], result[1]


def card_to_image(quad: Quad) -> npt.NDArray[np.float64]:
    """The homography from card coordinates (u, v in 0-1, printed top-left at 0, 0) to image
    pixels, for a quad in printed order."""
    return np.asarray(cv2.getPerspectiveTransform(_UNIT, quad.astype(np.float32)),
                      dtype=np.float64)


def warp_region(image: Image, quad: Quad, box: tuple[float, float, float, float],
                size: tuple[int, int]) -> Image:
    """The part ``box`` = (u0, v0, u1, v1) of the card ``quad``, resampled to ``size`` =
    (width, height) pixels. Only the output's pixels are computed, so this is cheap."""
    u0, v0, u1, v1 = box
    width, height = size
    to_card = np.array([[(u1 - u0) / width, 0.0, u0],
                        [0.0, (v1 - v0) / height, v0],
                        [0.0, 0.0, 1.0]])
    # Pixel centres: output pixel (x, y) covers card point (x + 0.5) * step.
    shift = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [0.0, 0.0, 1.0]])
    matrix = card_to_image(quad) @ to_card @ shift
    warped = cv2.warpPerspective(image, matrix, (width, height),
                                 flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                 borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(warped, dtype=np.uint8)


def rectify(image: Image, quad: Quad, width: int = 250) -> Image:
    """The whole card upright, ``width`` pixels wide and ``width * 1.4`` high."""
    return warp_region(image, quad, (0.0, 0.0, 1.0, 1.0),
                       (width, round(width * CARD_ASPECT)))


def quad_area(quad: Quad) -> float:
    return float(abs(cv2.contourArea(quad.reshape(-1, 1, 2).astype(np.float32))))


def quad_iou(a: Quad, b: Quad) -> float:
    """Intersection over union of two convex quads (0 when apart)."""
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    union = quad_area(a) + quad_area(b) - float(inter)
    return 0.0 if union <= 0 else float(inter) / union
