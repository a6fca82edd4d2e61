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
>>> image[40:240, 60:203] = 235
>>> quad = np.array([[64, 44], [207, 47], [205, 244], [62, 241]], np.float32)
>>> refine_corner(lowest_channel(image), quad).round().tolist()[0]
[60.0, 40.0]
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from .geometry import CARD_ASPECT, Image, Quad

Grey = npt.NDArray[np.float32]

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


def refine_corner(lowest: Grey, quad: Quad) -> Quad:
    """``quad`` (printed order: top-left first) standing on the measured edges at its top-left
    corner, or ``quad`` itself when either edge cannot be measured surely. ``lowest`` is the
    image's darkest channel per pixel (:func:`lowest_channel`)."""
    q = quad.astype(np.float64)
    across, down = q[1] - q[0], q[3] - q[0]
    width, height = float(np.hypot(*across)), float(np.hypot(*down))
    if width < 8.0 or height < 8.0:
        return quad
    u, v = across / width, down / height
    reach = max(MIN_REACH, REACH * width)
    top = _edge(lowest, q[0], u, _inward(u, v), width, ALONG_TOP, reach)
    side = _edge(lowest, q[0], v, _inward(v, u), height, ALONG_SIDE, reach)
    if top is None or side is None:
        return quad
    (p, d), (r, e) = top, side
    if float(np.dot(d, u)) < 0:
        d = -d
    if float(np.dot(e, v)) < 0:
        e = -e
    if float(np.dot(d, u)) < np.cos(MAX_TURN) or float(np.dot(e, v)) < np.cos(MAX_TURN):
        return quad
    matrix = np.array([[d[0], -e[0]], [d[1], -e[1]]])
    if abs(float(np.linalg.det(matrix))) < 0.5:
        return quad  # the two edges are far from square: not a card's corner
    corner = p + np.linalg.solve(matrix, r - p)[0] * d
    if float(np.hypot(*(corner - q[0]))) > reach + MIN_REACH:
        return quad
    refined = np.array([corner, corner + d * width, corner + d * width + e * height,
                        corner + e * height], dtype=np.float32)
    return refined


def _inward(along: npt.NDArray[np.float64], towards: npt.NDArray[np.float64]
            ) -> npt.NDArray[np.float64]:
    """The unit normal of a side running ``along``, pointing into the card (``towards``)."""
    normal = np.array([-along[1], along[0]])
    return normal if float(np.dot(normal, towards)) > 0 else -normal


def lowest_channel(image: Image) -> Grey:
    """The darkest of B, G and R per pixel (card stock is bright in all three, felt is not),
    as float32 for sub-pixel sampling."""
    if image.ndim == 2:
        return image.astype(np.float32)
    blue, green, red = cv2.split(image)
    return np.asarray(cv2.min(cv2.min(blue, green), red), dtype=np.float32)


def _edge(lowest: Grey, corner: npt.NDArray[np.float64],
          along: npt.NDArray[np.float64], inward: npt.NDArray[np.float64], length: float,
          stretch: tuple[float, float], reach: float
          ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | None:
    """A point on and the direction of the felt-to-card edge near the side from ``corner``
    ``along`` its length, or None when it does not show as one straight step."""
    steps = np.arange(-reach, reach + 0.25, 0.5)
    starts = np.linspace(stretch[0], stretch[1], PROFILES) * length
    # (profiles, steps, 2): sample points; x, y maps for cv2.remap
    points = (corner + starts[:, None, None] * along
              + steps[None, :, None] * inward).astype(np.float32)
    sampled = cv2.remap(lowest, points[..., 0], points[..., 1], cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE)
    rise = np.diff(cv2.GaussianBlur(sampled, (3, 1), 0.7), axis=1)
    found = []
    for i in range(PROFILES):
        peak, span = float(rise[i].max()), float(np.ptp(sampled[i]))
        if span < MIN_STEP or peak < span / 16.0:  # a step, not a slow shading
            continue
        # The outermost strong rise is the felt-to-card edge (further in, the dark index's
        # far side rises too), when there is felt outside it.
        j = int(np.flatnonzero(rise[i] >= 0.6 * peak)[0])
        if j < 2 or float(sampled[i, :j].max()) > float(sampled[i].min()) + span / 2.0:
            continue
        while j + 1 < rise.shape[1] and rise[i, j + 1] > rise[i, j]:
            j += 1  # to the top of that rise
        offset = 0.0
        if 0 < j < rise.shape[1] - 1:
            a, b, c = float(rise[i, j - 1]), float(rise[i, j]), float(rise[i, j + 1])
            if a - 2 * b + c < 0:
                offset = float(np.clip(0.5 * (a - c) / (a - 2 * b + c), -0.5, 0.5))
        found.append(corner + starts[i] * along + (steps[j] + 0.25 + offset * 0.5) * inward)
    if len(found) < max(4, PROFILES // 2 + 1):
        return None
    pts = np.asarray(found, dtype=np.float32)
    line = cv2.fitLine(pts, cv2.DIST_HUBER, 0, 0.01, 0.01).reshape(-1).astype(np.float64)
    direction, point = line[:2], line[2:]
    normal = np.array([-direction[1], direction[0]])
    residual = np.abs((pts.astype(np.float64) - point) @ normal)
    if float(np.median(residual)) > MAX_RESIDUAL:
        return None
    keep = residual <= max(1.5, 2.0 * float(np.median(residual)))
    if int(keep.sum()) < 4:
        return None
    line = cv2.fitLine(pts[keep], cv2.DIST_L2, 0, 0.01, 0.01).reshape(-1).astype(np.float64)
    return line[2:], line[:2]


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
