"""Where exactly a card's index corner lies: the two card edges that meet there, measured.

An outline's far corners can be well off (cut where a second card lies on top, a chip on an
edge, a small card's outline a pixel or two out at search scale), and a card's index is small:
a few pixels of error in the quad skew the index patch enough to read a spade as a club. But a
card whose index can be seen also shows the corner the index sits in, and the two edges that
meet there run straight from felt to card stock. :func:`refine_corner` finds those two edges
near the corner (the brightest-in-every-channel step along short profiles across each edge,
as :func:`.geometry.card_mask` separates card from felt), fits a line to each, and returns the
card quad standing on them: the corner where the lines meet, the sides along them, and the
card's size kept from the outline. The rest of the card does not matter to the read.

>>> import numpy as np
>>> image = np.full((300, 300, 3), (30, 110, 40), np.uint8)
>>> image[40:240, 60:203] = 235  # a card: its edges lie half a pixel outside these pixels
>>> quad = np.array([[64, 44], [207, 47], [205, 244], [62, 241]], np.float32)
>>> refined = refine_corner(image, quad)
>>> corners = np.array([(59.5, 39.5), (202.5, 39.5)])  # top-left, top-right
>>> bool(np.abs(refined[:2] - corners).max() < 0.6)
True
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

from .geometry import CARD_ASPECT, Image, Quad

ALONG_TOP = (0.14, 0.62)
"""Stretch of the top side, in card widths from the corner, whose edge is measured (past the
rounded corner; the index lies below it)."""
ALONG_SIDE = (0.10, 0.45)
"""Stretch of the left side, in card heights from the corner, likewise."""
PROFILES = 9
"""Profiles across each edge."""
REACH = 0.09
"""How far, in card widths (at least :data:`MIN_REACH` pixels), each profile looks either side
of where the outline puts the edge."""
MIN_REACH = 3.0
MIN_STEP = 18.0
"""Smallest felt-to-card step, in grey levels, that counts as an edge."""
MAX_RESIDUAL = 1.0
"""Largest median distance, in pixels, of the edge points from their fitted line."""
MAX_TURN = np.radians(12.0)
"""A measured edge turned more than this from the outline's is something else's edge."""


def refine_corner(image: Image, quad: Quad) -> Quad:
    """``quad`` (printed order: top-left first) standing on the measured edges at its top-left
    corner in ``image`` (BGR or grey), or ``quad`` itself when either edge cannot be measured
    surely."""
    return refine_corners(image, [quad])[0]


def refine_corners(image: Image, quads: Sequence[Quad]) -> list[Quad]:
    """:func:`refine_corner` for several quads at once (one sampling pass: both ends of a
    card are read together)."""
    frames = []
    sides: list[Side] = []
    for quad in quads:
        q = quad.astype(np.float64)
        across, down = q[1] - q[0], q[3] - q[0]
        width, height = float(np.hypot(*across)), float(np.hypot(*down))
        u, v = across / max(width, 1e-6), down / max(height, 1e-6)
        frames.append((q[0], u, v, width, height, max(MIN_REACH, REACH * width)))
        sides += [(q[0], u, _inward(u, v), width, ALONG_TOP, frames[-1][5]),
                  (q[0], v, _inward(v, u), height, ALONG_SIDE, frames[-1][5])]
    lines = _edges(image, sides)
    refined = []
    for i, quad in enumerate(quads):
        corner, u, v, width, height, reach = frames[i]
        top, side = lines[2 * i], lines[2 * i + 1]
        if width < 8.0 or height < 8.0 or top is None or side is None:
            refined.append(quad)
            continue
        (p, d), (r, e) = top, side
        d = d if float(np.dot(d, u)) >= 0 else -d
        e = e if float(np.dot(e, v)) >= 0 else -e
        matrix = np.array([[d[0], -e[0]], [d[1], -e[1]]])
        if (float(np.dot(d, u)) < np.cos(MAX_TURN) or float(np.dot(e, v)) < np.cos(MAX_TURN)
                or abs(float(np.linalg.det(matrix))) < 0.5):  # not this card's square corner
            refined.append(quad)
            continue
        point = p + np.linalg.solve(matrix, r - p)[0] * d
        if float(np.hypot(*(point - corner))) > reach + MIN_REACH:
            refined.append(quad)
            continue
        refined.append(np.array([point, point + d * width, point + d * width + e * height,
                                 point + e * height], dtype=np.float32))
    return refined


Vector = npt.NDArray[np.float64]
Line = tuple[Vector, Vector]
"""A point on a line and its unit direction."""
Side = tuple[Vector, Vector, Vector, float, tuple[float, float], float]
"""A side to measure: the corner it starts from, its direction, the normal into the card,
its length, the stretch of it (fractions of the length) to measure, and how far either side
of it to look."""


def _inward(along: Vector, towards: Vector) -> Vector:
    """The unit normal of a side running ``along``, pointing into the card (``towards``)."""
    normal = np.array([-along[1], along[0]])
    return normal if float(np.dot(normal, towards)) > 0 else -normal


def _edges(image: Image, sides: Sequence[Side]) -> list[Line | None]:
    """The felt-to-card edge along each side, or None where it does not show as a straight
    step.

    :data:`PROFILES` profiles run across each side. On each, in the darkest channel (card
    stock is bright in every channel, felt is not), the edge is the outermost strong rise
    with felt outside it (further in, the far side of the dark index rises too), at the top
    of that rise; a line is fitted to each side's edge points.
    """
    width = max(int(np.ceil(2 * reach / 0.5)) + 1 for *_, reach in sides)
    offsets = np.empty((len(sides), width))
    points = np.empty((len(sides) * PROFILES, width, 2), np.float32)
    for index, (corner, along, inward, length, stretch, reach) in enumerate(sides):
        offsets[index] = -reach + 0.5 * np.arange(width)
        points[index * PROFILES:(index + 1) * PROFILES] = (
            corner + (np.linspace(*stretch, PROFILES) * length)[:, None, None] * along
            + offsets[index][None, :, None] * inward)
    sampled = cv2.remap(image, points[..., 0], points[..., 1], cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    if sampled.ndim == 3:
        sampled = sampled.min(axis=2)
    rise = np.diff(cv2.GaussianBlur(sampled, (3, 1), 0.7), axis=1)
    rows = np.arange(len(rise))
    peak, low = rise.max(axis=1), sampled.min(axis=1)
    span = sampled.max(axis=1) - low
    start = np.argmax(rise >= 0.6 * peak[:, None], axis=1)
    outside = np.maximum.accumulate(sampled, axis=1)[rows, np.maximum(start - 1, 0)]
    ok = ((span >= MIN_STEP) & (peak >= span / 16.0)  # a step, not a slow shading
          & (start >= 2) & (outside <= low + span / 2.0))  # felt outside it
    falling = np.diff(rise, axis=1) <= 0
    falling[np.arange(falling.shape[1])[None, :] < start[:, None]] = False
    top = np.where(falling.any(axis=1), np.argmax(falling, axis=1), rise.shape[1] - 1)
    k = np.clip(top, 1, rise.shape[1] - 2)
    a, b, c = rise[rows, k - 1], rise[rows, k], rise[rows, k + 1]
    curve = a - 2 * b + c
    vertex = np.clip(0.5 * (a - c) / np.where(curve < 0, curve, -1.0), -0.5, 0.5)
    depth = (offsets[rows // PROFILES, top] + 0.25
             + 0.5 * np.where((curve < 0) & (k == top), vertex, 0.0))
    lines: list[Line | None] = []
    for index, (corner, along, inward, length, stretch, _) in enumerate(sides):
        part = slice(index * PROFILES, (index + 1) * PROFILES)
        good = np.flatnonzero(ok[part])
        if len(good) < PROFILES // 2 + 1:
            lines.append(None)
            continue
        found = (corner + (np.linspace(*stretch, PROFILES)[good] * length)[:, None] * along
                 + depth[part][good][:, None] * inward).astype(np.float32)
        fitted = cv2.fitLine(found, cv2.DIST_HUBER, 0, 0.01, 0.01).reshape(-1)
        direction, point = fitted[:2].astype(np.float64), fitted[2:].astype(np.float64)
        normal = np.array([-direction[1], direction[0]])
        residual = float(np.median(np.abs((found - point) @ normal)))
        lines.append(None if residual > MAX_RESIDUAL else (point, direction))
    return lines


PROPORTION_SLACK = 0.05
"""A quad whose sides are further than this from a card's proportions gets a second guess."""


def proportioned(quad: Quad) -> list[Quad]:
    """``quad`` (printed order) and, when its sides are not in a card's proportions, the
    same corner and sides with the width set from the height (the height is the longer
    side: an outline cut by a card on top is more often too wide than too short)."""
    q = quad.astype(np.float64)
    across, down = q[1] - q[0], q[3] - q[0]
    width, height = float(np.hypot(*across)), float(np.hypot(*down))
    if width <= 0 or abs(height / width / CARD_ASPECT - 1.0) <= PROPORTION_SLACK:
        return [quad]
    fitted = height / CARD_ASPECT
    corner, across = q[0], across * (fitted / width)
    other = np.array([corner, corner + across, corner + across + down, corner + down],
                     dtype=np.float32)
    return [quad, other]
