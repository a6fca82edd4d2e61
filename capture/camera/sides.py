"""Card quads from the straight stretches of a blob's outline.

A card is a rectangle seen at a modest tilt: its outline is four straight sides, two pairs
of nearly parallel ones. Something stuck to a card's edge (a fingertip, an arm, a chip half
over it) makes the blob's convex hull, and any polygon fitted to it, lean towards the
protrusion; the card's own sides are still there, straight, along most of their length.
:func:`straight_lines` finds the straight stretches of an outline (pieces of one side
interrupted by a protrusion are joined again), and :func:`sided_quads` the card-shaped quad
among them whose sides the outline follows along the largest part of their length
(:func:`sided_quads`).

Everything here is in the pixels of the image the outline was found in (the search image of
:mod:`.geometry`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from .geometry import Contour, Quad, clockwise, quad_iou, side_lengths

BAND = 2.0
"""Pixels either side of a quad's side within which an outline point lies on it."""
MIN_COVERAGE = 0.7
"""Least part of a quad's perimeter the outline must follow for :func:`sided_quads`."""
_MOST_LINES = 12
"""Longest straight stretches combined into quads."""
_PARALLEL = np.sin(np.radians(15.0))
"""Sine of the largest angle between a card's opposite sides as seen (perspective)."""
_SQUARE = np.cos(np.radians(65.0))
"""Cosine of the smallest angle between a card's adjacent sides as seen."""
_STEP = 2.0
"""Pixels of the steps in which an outline's length along a line is counted: an outline
traced through every pixel moves 1 to 1.4 pixels a point, whatever its slope."""
_SAME_ANGLE = np.sin(np.radians(4.0))
_SAME_OFFSET = 2.5
"""Two stretches this close in angle and offset are one side interrupted."""


@dataclass(frozen=True, slots=True)
class Line:
    """A straight stretch of an outline: a point on it, its unit direction, and how many
    pixels of outline lie along it."""

    through: npt.NDArray[np.float64]
    direction: npt.NDArray[np.float64]
    support: float

    def offset(self, point: npt.NDArray[np.float64]) -> float:
        """Signed distance of ``point`` from the line."""
        d = point - self.through
        return float(d[0] * self.direction[1] - d[1] * self.direction[0])


def straight_lines(contour: Contour, min_length: float) -> list[Line]:
    """The straight stretches of ``contour`` (``cv2.findContours`` points, every pixel)
    at least ``min_length`` pixels long, pieces of one line joined, longest first."""
    points = contour.reshape(-1, 2).astype(np.float64)
    n = len(points)
    if n < 8:
        return []
    perimeter = cv2.arcLength(contour, True)
    polygon = cv2.approxPolyDP(contour, max(1.5, 0.006 * perimeter), True).reshape(-1, 2)
    # Where each polygon vertex lies on the outline (approxPolyDP keeps outline points).
    lookup = {(int(x), int(y)): i for i, (x, y) in enumerate(contour.reshape(-1, 2))}
    indices = sorted(lookup[(int(x), int(y))] for x, y in polygon
                     if (int(x), int(y)) in lookup)
    pieces: list[npt.NDArray[np.float64]] = []
    for a, b in zip(indices, [*indices[1:], indices[0] + n], strict=True):
        run = points[np.arange(a, b + 1) % n]
        if float(np.hypot(*(run[-1] - run[0]))) < 0.5 * min_length:
            continue
        trim = len(run) // 10  # the ends bend into the card's rounded corners
        pieces.append(run[trim:len(run) - trim] if len(run) > 10 else run)
    lines = [_fit(piece) for piece in pieces]
    # Join the pieces of one side (a fingertip over a card's edge cuts it in two).
    merged = True
    while merged:
        merged = False
        for i, j in itertools.combinations(range(len(lines)), 2):
            if _same(lines[i], lines[j]):
                pieces[i] = np.vstack([pieces[i], pieces[j]])
                lines[i] = _fit(pieces[i])
                del pieces[j], lines[j]
                merged = True
                break
    kept = [line for line in lines if line.support >= min_length]
    return sorted(kept, key=lambda line: -line.support)


def _fit(points: npt.NDArray[np.float64]) -> Line:
    """The least-squares line through ``points`` and the length they span along it."""
    vx, vy, x, y = cv2.fitLine(points.astype(np.float32), cv2.DIST_L2, 0, 0.01,
                               0.01).reshape(-1)
    direction = np.array([vx, vy], dtype=np.float64)
    through = np.array([x, y], dtype=np.float64)
    along = (points - through) @ direction
    # Support: the length of outline along the line (a gap does not count).
    support = _STEP * float(len(np.unique(np.floor(along / _STEP))))
    return Line(through, direction, support)


def _same(a: Line, b: Line) -> bool:
    cross = abs(float(a.direction[0] * b.direction[1] - a.direction[1] * b.direction[0]))
    return (cross < _SAME_ANGLE and abs(a.offset(b.through)) < _SAME_OFFSET
            and abs(b.offset(a.through)) < _SAME_OFFSET)


def _meet(a: Line, b: Line) -> npt.NDArray[np.float64] | None:
    """Where two lines cross (``None`` when they are parallel)."""
    det = float(b.direction[0] * a.direction[1] - a.direction[0] * b.direction[1])
    if abs(det) < 1e-6:
        return None
    r = b.through - a.through
    t = float(b.direction[0] * r[1] - r[0] * b.direction[1]) / det
    return a.through + t * a.direction


def coverage(quad: Quad, points: npt.NDArray[np.float64], band: float = BAND) -> float:
    """The part (0-1) of ``quad``'s perimeter along which ``points`` (an outline, every
    pixel) lie within ``band`` pixels of it."""
    q = quad.astype(np.float64)
    covered = 0.0
    perimeter = 0.0
    for i in range(4):
        a, b = q[i], q[(i + 1) % 4]
        length = float(np.hypot(*(b - a)))
        if length < 1.0:
            return 0.0
        unit = (b - a) / length
        rel = points - a
        along = rel @ unit
        across = np.abs(rel[:, 0] * unit[1] - rel[:, 1] * unit[0])
        near = (across <= band) & (along >= 0.0) & (along < length)
        covered += _STEP * len(np.unique(np.floor(along[near] / _STEP)))
        perimeter += length
    return min(1.0, covered / perimeter)


def _along(line: Line, points: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The steps (:data:`_STEP` pixels) along ``line`` where ``points`` lie within
    :data:`BAND` of it, sorted, each once."""
    rel = points - line.through
    across = np.abs(rel[:, 0] * line.direction[1] - rel[:, 1] * line.direction[0])
    return np.unique(np.floor(rel[across <= BAND] @ line.direction / _STEP))


def sided_quads(contour: Contour, min_aspect: float = 1.2, max_aspect: float = 1.65
                ) -> list[tuple[Quad, float]]:
    """The card-shaped quads (long over short side in ``min_aspect``-``max_aspect``, sides
    in two nearly parallel pairs) whose sides ``contour``'s straight stretches make, each
    with the part of its perimeter the outline follows (at least :data:`MIN_COVERAGE`),
    the best first and each apart from those before it (several cards can share a blob).
    Quads are clockwise from a corner that starts a short side, as :mod:`.geometry`
    orders them."""
    area = float(cv2.contourArea(contour))
    if area <= 0:
        return []
    short_guess = float(np.sqrt(area / 1.4))
    lines = straight_lines(contour, 0.25 * short_guess)[:_MOST_LINES]
    if len(lines) < 4:
        return []
    points = contour.reshape(-1, 2).astype(np.float64)
    on_line = [_along(line, points) for line in lines]
    pairs = []
    for i, j in itertools.combinations(range(len(lines)), 2):
        a, b = lines[i], lines[j]
        cross = abs(float(a.direction[0] * b.direction[1] - a.direction[1] * b.direction[0]))
        if cross < _PARALLEL and abs(a.offset(b.through)) >= 0.4 * short_guess:
            pairs.append((i, j))
    found: list[tuple[Quad, float]] = []
    for (i, j), (k, m) in itertools.combinations(pairs, 2):
        if len({i, j, k, m}) < 4:
            continue
        if abs(float(lines[i].direction @ lines[k].direction)) > _SQUARE:
            continue
        order = (i, k, j, m)  # around the quad: each side meets the next
        corners = []
        for n in range(4):
            corner = _meet(lines[order[n]], lines[order[(n + 1) % 4]])
            if corner is None:
                break
            corners.append(corner)
        if len(corners) < 4:
            continue
        covered = 0.0
        perimeter = 0.0
        for n in range(4):
            # Side n lies on line order[n], from corner n - 1 to corner n.
            line = lines[order[n]]
            ends = sorted(float((corner - line.through) @ line.direction) / _STEP
                          for corner in (corners[n - 1], corners[n]))
            values = on_line[order[n]]
            covered += float(np.searchsorted(values, ends[1]) - np.searchsorted(values, ends[0]))
            perimeter += ends[1] - ends[0]
        if perimeter <= 0 or min(1.0, covered / perimeter) < MIN_COVERAGE:
            continue
        quad = clockwise(np.array(corners, dtype=np.float32))
        if not cv2.isContourConvex(quad.reshape(-1, 1, 2)):
            continue
        sides = side_lengths(quad)
        short, long_ = (sides[0] + sides[2]) / 2.0, (sides[1] + sides[3]) / 2.0
        if short > long_:
            quad = np.asarray(np.roll(quad, -1, axis=0), dtype=np.float32)
            short, long_ = long_, short
        if short <= 0 or not min_aspect <= long_ / short <= max_aspect:
            continue
        found.append((quad, min(1.0, covered / perimeter)))
    found.sort(key=lambda pair: -pair[1])
    kept: list[tuple[Quad, float]] = []
    for quad, covered in found:
        if all(quad_iou(quad, other) < 0.2 for other, _ in kept):
            kept.append((quad, covered))
    return kept
