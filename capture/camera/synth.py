"""Synthetic table scenes with ground truth, for evaluating the card recogniser.

A scene is a camera frame (1920x1080 or 1280x720) of a poker table seen from above at an
angle: felt, a board row of cards, hole-card pairs (side by side or fanned), chips, the dealer
button and sometimes a face-down card, then what a real camera adds: perspective, rotation,
uneven and changing light, motion and focus blur, sensor noise and JPEG compression. Chips and
fingers cover parts of some cards, away from their index corners (and, in a few scenes, over
one index corner on purpose).

Each face-up card comes with its ground truth (:class:`CardTruth`): the card's code, the quad
of the printed card in image pixels (top-left, top-right, bottom-right, bottom-left of the
printed face, so a card lying upside down has its top-left corner at the bottom right) and
which of its two index corners can be seen.

Everything is drawn from one seed (numpy's ``default_rng``), so a scene is reproducible bit for
bit: ``generate_scene(style, seed)`` returns the same image and truth every time.

>>> from capture.camera.cardart import DEFAULT_STYLE
>>> scene = generate_scene(DEFAULT_STYLE, 7, size=(1280, 720))
>>> scene.image.shape, len(scene.truths) >= 5
((720, 1280, 3), True)
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import cv2
import numpy as np
from numpy.typing import NDArray

from capture.camera.cardart import Faces, card_height
from engine.cards import FULL_DECK, Card

Image = NDArray[np.uint8]
Point = tuple[float, float]
Quad = tuple[Point, Point, Point, Point]
Matrix = NDArray[np.float64]

SIZES: Final[tuple[tuple[int, int], ...]] = ((1920, 1080), (1280, 720))
"""Frame sizes (width, height) the evaluation uses, alternately."""

VISIBLE_FRACTION: Final = 0.95
"""Share of an index corner's pixels that must show the card for it to count as visible."""

_RENDER_WIDTHS: Final = (100, 150, 200, 250, 300, 400)
Group = Literal["board", "hole"]


@dataclass(frozen=True, slots=True)
class _Patch:
    """A mask over part of the frame: ``mask`` placed with its top-left pixel at (x, y)."""

    x: int
    y: int
    mask: NDArray[np.bool_]

    def view(self, image: NDArray[Any]) -> NDArray[Any]:
        """The part of ``image`` under the patch."""
        h, w = self.mask.shape
        return image[self.y:self.y + h, self.x:self.x + w]


IndexMasks = tuple[_Patch, _Patch]


@dataclass(frozen=True, slots=True)
class CardTruth:
    """Ground truth for one face-up card in a scene."""

    code: str
    """The card, e.g. ``"Ah"``."""
    quad: Quad
    """The printed card's top-left, top-right, bottom-right, bottom-left corners (pixels)."""
    corners_visible: tuple[bool, bool]
    """Whether the top-left and the bottom-right index can be seen (inside the frame and at
    least :data:`VISIBLE_FRACTION` of it uncovered)."""
    group: Group
    """``"board"`` (the community cards) or ``"hole"`` (a player's pair)."""

    @property
    def index_visible(self) -> bool:
        """True when at least one index corner can be read: the card counts for recall."""
        return any(self.corners_visible)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "quad": [list(p) for p in self.quad],
                "corners_visible": list(self.corners_visible), "group": self.group}


@dataclass(frozen=True, slots=True)
class Conditions:
    """The ranges scene properties are drawn from (uniformly, per scene)."""

    card_width: tuple[float, float] = (120.0, 190.0)
    """Width of a card in pixels on a 1080-line frame (scaled for other heights)."""
    tilt: tuple[float, float] = (0.0, 0.22)
    """How much narrower the far (top) edge of the table looks than the near edge."""
    board_angle: float = 5.0
    """Board cards lie within +-this many degrees of straight (or turned half a circle)."""
    hole_angle: float = 40.0
    hole_pairs: tuple[int, int] = (1, 3)
    """Fewest and most hole-card pairs around the board (0, 0 for a board camera's view)."""
    gain: tuple[float, float] = (0.6, 1.25)
    """Overall brightness factor."""
    gradient: tuple[float, float] = (0.0, 0.35)
    """Strength of a light falloff across the frame (a spotlight or a window)."""
    colour_cast: float = 0.05
    """Largest per-channel gain difference (white balance)."""
    motion_blur: tuple[float, float] = (0.0, 7.0)
    """Length in pixels (1080 lines) of the motion blur, applied to half of the scenes."""
    focus_blur: tuple[float, float] = (0.0, 1.1)
    """Gaussian sigma of a slightly soft focus, applied to a third of the scenes."""
    noise: tuple[float, float] = (1.0, 6.0)
    """Standard deviation of the sensor noise (8-bit levels)."""
    jpeg_quality: tuple[int, int] = (55, 95)
    occluded_cards: float = 0.3
    """Chance that a card gets a chip or a finger over it (away from its index corners)."""
    corner_occlusion: float = 0.15
    """Chance per scene of one occluder over an index corner of a card."""
    face_down: float = 0.4
    """Chance per scene of a face-down card (nothing to read: any code read there is wrong)."""


DEFAULT_CONDITIONS: Final = Conditions()

CLEAN_CONDITIONS: Final = Conditions(
    tilt=(0.0, 0.0), gain=(1.0, 1.0), gradient=(0.0, 0.0), colour_cast=0.0,
    motion_blur=(0.0, 0.0), focus_blur=(0.0, 0.0), noise=(0.0, 0.0), jpeg_quality=(95, 95),
    occluded_cards=0.0, corner_occlusion=0.0, face_down=0.0)
"""No degradation: sharp, evenly lit, uncovered cards (for debugging a recogniser)."""


@dataclass(frozen=True, slots=True)
class Scene:
    """One synthetic frame and its ground truth."""

    image: Image
    truths: tuple[CardTruth, ...]
    style: str
    seed: int
    applied: dict[str, float] = field(default_factory=dict)
    """What was drawn for this scene (gain, blur length, noise, JPEG quality, ...)."""


@dataclass(frozen=True, slots=True)
class Placement:
    """A card lying on the table: ``card`` None is a face-down card.

    ``center`` is in frame pixels before the table's perspective, ``width`` the card's width
    in pixels, ``angle`` the rotation in degrees (clockwise on screen; 180 is upside down).
    """

    card: Card | None
    center: Point
    width: float
    angle: float
    group: Group = "board"


# --------------------------------------------------------------------------- public API


def generate_scene(style: Faces, seed: int, *, size: tuple[int, int] = (1920, 1080),
                   conditions: Conditions = DEFAULT_CONDITIONS) -> Scene:
    """A random table scene in deck ``style`` (a :class:`~capture.camera.cardart.CardStyle`
    or a real deck's images), fully determined by ``seed``."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(style.name.encode())]))
    scale = size[1] / 1080
    card_w = float(rng.uniform(*conditions.card_width)) * scale
    placements, boxes = _layout(rng, size, card_w, conditions)
    tilt = float(rng.uniform(*conditions.tilt))
    homography = table_homography(size, tilt)
    felt = felt_background(size, rng)
    _table_clutter(felt, boxes, card_w, homography, rng)
    frame, truths, owner, index_masks = _compose(felt, placements, style, homography, rng)
    _occlude(frame, owner, index_masks, truths, placements, homography, rng, conditions)
    truths = _visibility(truths, owner, index_masks)
    image, applied = _degrade(frame, rng, conditions, scale)
    applied |= {"tilt": tilt, "card_width": card_w}
    return Scene(image=image, truths=tuple(t for t in truths if t is not None),
                 style=style.name, seed=seed, applied=applied)


def generate_scenes(style: Faces, count: int, *, seed: int = 0,
                    sizes: Sequence[tuple[int, int]] = SIZES,
                    conditions: Conditions = DEFAULT_CONDITIONS) -> Iterator[Scene]:
    """``count`` scenes, scene ``i`` from seed ``seed * 1_000_003 + i``, sizes in turn."""
    for i in range(count):
        yield generate_scene(style, seed * 1_000_003 + i, size=sizes[i % len(sizes)],
                             conditions=conditions)


def table_homography(size: tuple[int, int], tilt: float) -> Matrix:
    """Frame-plane to image: the far (top) edge ``tilt`` narrower, as a tilted camera sees."""
    width, height = size
    squeeze = tilt * width / 2
    src = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    dst = np.array([[squeeze, tilt * height * 0.3], [width - squeeze, tilt * height * 0.3],
                    [width, height], [0, height]], np.float32)
    return np.asarray(cv2.getPerspectiveTransform(src, dst), np.float64)


def felt_background(size: tuple[int, int], rng: np.random.Generator) -> Image:
    """Table felt: a cloth colour with soft blotches and a fine grain."""
    width, height = size
    hue = rng.choice(np.array([[40, 110, 30], [95, 75, 20], [30, 30, 110], [70, 90, 40]],
                              np.float32))
    hue = hue * np.float32(rng.uniform(0.8, 1.2))
    blotch = rng.standard_normal((9, 16), dtype=np.float32)
    shade = cv2.resize(blotch, (width, height), interpolation=cv2.INTER_CUBIC)
    grain = rng.standard_normal((height, width), dtype=np.float32)
    shade = cv2.addWeighted(shade, 0.06, grain, 0.04, 1.0)
    felt = cv2.merge([shade * hue[0], shade * hue[1], shade * hue[2]])
    return np.asarray(np.clip(felt, 0, 255), np.uint8)


def render_table(size: tuple[int, int], placements: Sequence[Placement], style: Faces, *,
                 seed: int = 0, tilt: float = 0.0) -> tuple[Image, tuple[CardTruth, ...]]:
    """A clean frame of the given cards on felt (no blur, noise or compression).

    For building videos and fixtures card by card; the felt depends on ``seed`` only.
    """
    rng = np.random.default_rng(seed)
    homography = table_homography(size, tilt)
    felt = felt_background(size, rng)
    frame, truths, owner, index_masks = _compose(felt, placements, style, homography,
                                                 np.random.default_rng(seed))
    final = _visibility(truths, owner, index_masks)
    image = np.clip(frame + np.float32(0.5), 0, 255).astype(np.uint8)
    return image, tuple(t for t in final if t is not None)


# --------------------------------------------------------------------------- layout


Box = tuple[float, float, float, float]


def _layout(rng: np.random.Generator, size: tuple[int, int], card_w: float,
            conditions: Conditions) -> tuple[list[Placement], list[Box]]:
    """Where the cards lie (frame-plane pixels) and the boxes they take up."""
    width, height = size
    card_h = card_w * 3.5 / 2.5
    deck = list(FULL_DECK)
    order = rng.permutation(len(deck))
    cards = iter([deck[i] for i in order])
    placements: list[Placement] = []
    boxes: list[Box] = []

    def free(box: Box) -> bool:
        x0, y0, x1, y1 = box
        if x0 < 0.02 * width or y0 < 0.04 * height or x1 > 0.98 * width or y1 > 0.98 * height:
            return False
        return all(x1 < a0 or x0 > a1 or y1 < b0 or y0 > b1 for a0, b0, a1, b1 in boxes)

    # The board: 3 to 5 cards in a row near the middle.
    n_board = int(rng.choice([3, 4, 5, 5]))
    gap = card_w * float(rng.uniform(1.14, 1.3))
    cx = width / 2 + float(rng.uniform(-0.08, 0.08)) * width
    cy = height * float(rng.uniform(0.42, 0.55))
    for i in range(n_board):
        angle = float(rng.uniform(-conditions.board_angle, conditions.board_angle))
        if rng.random() < 0.1:
            angle += 180.0
        x = cx + (i - (n_board - 1) / 2) * gap + float(rng.normal(0, 0.03 * card_w))
        y = cy + float(rng.normal(0, 0.04 * card_h))
        placements.append(Placement(next(cards), (x, y), card_w * float(rng.uniform(0.97, 1.03)),
                                    angle, "board"))
    half = n_board / 2 * gap
    boxes.append((cx - half - 0.1 * card_w, cy - 0.75 * card_h, cx + half + 0.1 * card_w,
                  cy + 0.75 * card_h))

    # Hole-card pairs around the board.
    n_pairs = int(rng.integers(conditions.hole_pairs[0], conditions.hole_pairs[1] + 1))
    for _ in range(n_pairs):
        for _attempt in range(40):
            px = float(rng.uniform(0.12, 0.88)) * width
            py = float(rng.choice([rng.uniform(0.14, 0.3), rng.uniform(0.72, 0.86)])) * height
            angle = float(rng.uniform(-conditions.hole_angle, conditions.hole_angle))
            if rng.random() < 0.25:
                angle += 180.0
            # Side by side with a gap, or fanned: the second card over the first's right side,
            # never reaching the first card's top-left index.
            step = card_w * float(rng.choice([rng.uniform(1.05, 1.2), rng.uniform(0.62, 0.9)]))
            span = step + card_w
            r = math.hypot(span, card_h) / 2 + 4
            box = (px - r, py - r, px + r, py + r)
            if free(box):
                boxes.append(box)
                theta = math.radians(angle)
                ux, uy = math.cos(theta), math.sin(theta)
                w = card_w * float(rng.uniform(0.97, 1.03))
                for k in (-0.5, 0.5):
                    center = (px + k * step * ux, py + k * step * uy)
                    placements.append(Placement(next(cards), center, w,
                                                angle + float(rng.normal(0, 2.0)), "hole"))
                break

    # Sometimes a face-down card (a folded hand or the stub) somewhere free.
    if rng.random() < conditions.face_down:
        for _attempt in range(20):
            px, py = float(rng.uniform(0.1, 0.9)) * width, float(rng.uniform(0.1, 0.9)) * height
            r = math.hypot(card_w, card_h) / 2 + 4
            box = (px - r, py - r, px + r, py + r)
            if free(box):
                boxes.append(box)
                placements.append(Placement(None, (px, py), card_w,
                                            float(rng.uniform(-90, 90)), "hole"))
                break
    return placements, boxes


def _table_clutter(felt: Image, boxes: Sequence[Box], card_w: float, homography: Matrix,
                   rng: np.random.Generator) -> None:
    """Chip stacks and the dealer button on free felt (things that are not cards)."""
    height, width = felt.shape[:2]
    taken = list(boxes)
    count = int(rng.integers(2, 6))
    for number in range(count):
        radius = card_w * (0.32 if number == 0 else float(rng.uniform(0.18, 0.24)))
        for _attempt in range(15):
            x = float(rng.uniform(radius, width - radius))
            y = float(rng.uniform(radius, height - radius))
            box = (x - radius, y - radius, x + radius, y + radius)
            if all(box[2] < a0 or box[0] > a1 or box[3] < b0 or box[1] > b1
                   for a0, b0, a1, b1 in taken):
                taken.append(box)
                break
        else:
            continue
        (px, py), = _apply(homography, [(x, y)])
        centre, r = (round(px), round(py)), max(4, round(radius))
        if number == 0:  # the dealer button: a white puck with a black "D"
            cv2.circle(felt, centre, r, (235, 235, 235), -1, cv2.LINE_AA)
            cv2.circle(felt, centre, r, (120, 120, 120), max(1, r // 12), cv2.LINE_AA)
            scale = r / 22
            (tw, th), _ = cv2.getTextSize("D", cv2.FONT_HERSHEY_DUPLEX, scale, 2)
            cv2.putText(felt, "D", (centre[0] - tw // 2, centre[1] + th // 2),
                        cv2.FONT_HERSHEY_DUPLEX, scale, (20, 20, 20), max(1, r // 8),
                        cv2.LINE_AA)
            continue
        colour = tuple(int(v) for v in rng.choice(
            np.array([[30, 30, 200], [200, 60, 20], [20, 20, 20], [230, 230, 230],
                      [30, 160, 40]], np.int32)))
        cv2.circle(felt, centre, r, colour, -1, cv2.LINE_AA)
        for k in range(8):  # edge spots
            a = k * math.pi / 4
            spot = (round(centre[0] + 0.85 * r * math.cos(a)),
                    round(centre[1] + 0.85 * r * math.sin(a)))
            cv2.circle(felt, spot, max(1, r // 7), (245, 245, 245), -1, cv2.LINE_AA)
        cv2.circle(felt, centre, max(1, int(r * 0.55)), (240, 240, 240), max(1, r // 10),
                   cv2.LINE_AA)


def _card_transform(placement: Placement, render_w: int, homography: Matrix) -> Matrix:
    """Card-image pixels (rendered ``render_w`` wide) to frame pixels."""
    render_h = card_height(render_w)
    s = placement.width / render_w
    theta = math.radians(placement.angle)
    c, si = math.cos(theta) * s, math.sin(theta) * s
    cx, cy = placement.center
    # Pixel centres: the printed card spans -0.5 .. render_w - 0.5.
    ox, oy = (render_w - 1) / 2, (render_h - 1) / 2
    place = np.array([[c, -si, cx - c * ox + si * oy],
                      [si, c, cy - si * ox - c * oy],
                      [0.0, 0.0, 1.0]])
    return homography @ place


def _apply(matrix: Matrix, points: Sequence[Point]) -> list[Point]:
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    out = cv2.perspectiveTransform(pts, matrix).reshape(-1, 2)
    return [(float(x), float(y)) for x, y in out]


def _render_width(on_image: float) -> int:
    for w in _RENDER_WIDTHS:
        if w >= on_image * 1.3:
            return w
    return _RENDER_WIDTHS[-1]


# --------------------------------------------------------------------------- composing


def _compose(felt: Image, placements: Sequence[Placement], style: Faces,
             homography: Matrix, rng: np.random.Generator,
             ) -> tuple[NDArray[np.float32], list[CardTruth | None], NDArray[np.int16],
                        list[IndexMasks | None]]:
    """Cards on felt in painter's order.

    Returns the frame (float32), a truth per placement (None for face-down cards), the
    owner map (which placement each pixel shows, -1 felt) and each card's index-corner masks.
    """
    height, width = felt.shape[:2]
    frame = felt.astype(np.float32)
    owner = np.full((height, width), -1, np.int16)
    truths: list[CardTruth | None] = []
    index_masks: list[IndexMasks | None] = []
    back_colour = tuple(float(v) for v in rng.choice(
        np.array([[150, 40, 30], [30, 30, 150], [40, 40, 40]], np.float32)))
    for number, placement in enumerate(placements):
        render_w = _render_width(placement.width)
        render_h = card_height(render_w)
        matrix = _card_transform(placement, render_w, homography)
        corners = ((-0.5, -0.5), (render_w - 0.5, -0.5), (render_w - 0.5, render_h - 0.5),
                   (-0.5, render_h - 0.5))
        quad = _apply(matrix, corners)
        if placement.card is None:
            face = _card_back(render_w, back_colour)
        else:
            face = style.face(placement.card, render_w)
        alpha = style.outline(render_w)
        _paste(frame, owner, face, alpha, matrix, quad, number)
        if placement.card is None:
            truths.append(None)
            index_masks.append(None)
            continue
        x, y, w, h = style.index_at(render_w)
        tl = ((x - 0.5, y - 0.5), (x + w - 0.5, y - 0.5), (x + w - 0.5, y + h - 0.5),
              (x - 0.5, y + h - 0.5))
        br = tuple((render_w - 1 - px, render_h - 1 - py) for px, py in tl)
        masks = (_polygon_mask((height, width), _apply(matrix, tl)),
                 _polygon_mask((height, width), _apply(matrix, br)))
        index_masks.append(masks)
        truths.append(CardTruth(placement.card.code, (quad[0], quad[1], quad[2], quad[3]),
                                (True, True), placement.group))
    return frame, truths, owner, index_masks


def _paste(frame: NDArray[np.float32], owner: NDArray[np.int16], face: Image,
           alpha: NDArray[np.float32], matrix: Matrix, quad: Sequence[Point],
           number: int) -> None:
    """Warp ``face`` into ``frame`` through ``matrix`` (with a soft shadow), within its box."""
    height, width = frame.shape[:2]
    xs = [p[0] for p in quad]
    ys = [p[1] for p in quad]
    pad = 6
    x0, y0 = max(0, math.floor(min(xs)) - pad), max(0, math.floor(min(ys)) - pad)
    x1, y1 = min(width, math.ceil(max(xs)) + pad + 1), min(height, math.ceil(max(ys)) + pad + 1)
    if x0 >= x1 or y0 >= y1:
        return
    local = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ matrix
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(face, local, size, flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT).astype(np.float32)
    a = cv2.warpPerspective(alpha, local, size, flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT)
    region = frame[y0:y1, x0:x1]
    shadow = cv2.GaussianBlur(np.roll(a, (2, 2), axis=(0, 1)), (0, 0), 2.0)
    region *= (1.0 - 0.35 * shadow)[:, :, None]
    region *= (1.0 - a)[:, :, None]
    region += warped * a[:, :, None]
    owner[y0:y1, x0:x1][a > 0.5] = number


def _polygon_mask(shape: tuple[int, int], points: Sequence[Point]) -> _Patch:
    """The convex polygon ``points`` rasterised, clipped to a frame of ``shape``."""
    height, width = shape
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    x0, y0 = max(0, math.floor(min(xs))), max(0, math.floor(min(ys)))
    x1, y1 = min(width, math.ceil(max(xs)) + 1), min(height, math.ceil(max(ys)) + 1)
    if x0 >= x1 or y0 >= y1:
        return _Patch(0, 0, np.zeros((0, 0), bool))
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    local = (np.asarray(points) - (x0, y0)) * 16
    cv2.fillConvexPoly(mask, np.round(local).astype(np.int32), 1, cv2.LINE_8, 4)
    return _Patch(x0, y0, mask.astype(bool))


def _card_back(width: int, colour: tuple[float, ...]) -> Image:
    """A face-down card: a white margin round a lattice in the deck's back colour."""
    height = card_height(width)
    back = np.full((height, width, 3), 245, np.uint8)
    margin = max(3, width // 14)
    ink = tuple(int(v) for v in colour)
    cv2.rectangle(back, (margin, margin), (width - margin, height - margin), ink, -1)
    step = max(4, width // 12)
    for k in range(-height, width + height, step):
        cv2.line(back, (k, margin), (k + height, margin + height), (235, 235, 235), 1,
                 cv2.LINE_AA)
        cv2.line(back, (k, margin), (k - height, margin + height), (235, 235, 235), 1,
                 cv2.LINE_AA)
    back[:margin], back[-margin:], back[:, :margin], back[:, -margin:] = 245, 245, 245, 245
    return back


# --------------------------------------------------------------------------- occlusion


def _occlude(frame: NDArray[np.float32], owner: NDArray[np.int16],
             index_masks: Sequence[IndexMasks | None],
             truths: Sequence[CardTruth | None], placements: Sequence[Placement],
             homography: Matrix, rng: np.random.Generator, conditions: Conditions) -> None:
    """Chips and fingers over some cards, away from every index corner (and once, maybe, on
    an index corner on purpose)."""
    height, width = frame.shape[:2]
    any_index = np.zeros((height, width), bool)
    for masks in index_masks:
        for patch in masks or ():
            patch.view(any_index)[patch.mask] = True
    faces = [i for i, t in enumerate(truths) if t is not None]
    for number in faces:
        if rng.random() >= conditions.occluded_cards:
            continue
        placement = placements[number]
        for _attempt in range(12):
            # A point on the card's body: the middle band or the middle of a long edge.
            u = float(rng.choice([rng.uniform(0.3, 0.7), rng.choice([0.0, 1.0])]))
            v = float(rng.uniform(0.3, 0.7))
            patch, alpha, colour = _occluder(placement, (u, v), homography, (height, width),
                                             rng)
            if not patch.view(any_index)[patch.mask].any():
                _draw_occluder(frame, owner, patch, alpha, colour)
                break
    if faces and rng.random() < conditions.corner_occlusion:
        number = int(rng.choice(faces))
        corner = (0.12, 0.1) if rng.random() < 0.5 else (0.88, 0.9)
        patch, alpha, colour = _occluder(placements[number], corner, homography,
                                         (height, width), rng)
        _draw_occluder(frame, owner, patch, alpha, colour)


def _occluder(placement: Placement, uv: Point, homography: Matrix, shape: tuple[int, int],
              rng: np.random.Generator,
              ) -> tuple[_Patch, NDArray[np.float32], tuple[float, float, float]]:
    """A chip (a disc) or a fingertip (a rounded bar reaching in) at card position ``uv``.

    Returns where it covers the frame (solid pixels), its soft alpha over the same patch and
    its colour.
    """
    height, width = shape
    w = placement.width
    h = w * 3.5 / 2.5
    theta = math.radians(placement.angle)
    dx, dy = (uv[0] - 0.5) * w, (uv[1] - 0.5) * h
    x = placement.center[0] + dx * math.cos(theta) - dy * math.sin(theta)
    y = placement.center[1] + dx * math.sin(theta) + dy * math.cos(theta)
    (px, py), = _apply(homography, [(x, y)])
    reach = int(w) + 4
    x0, y0 = max(0, int(px) - reach), max(0, int(py) - reach)
    x1, y1 = min(width, int(px) + reach + 1), min(height, int(py) + reach + 1)
    canvas = np.zeros((max(0, y1 - y0), max(0, x1 - x0)), np.uint8)
    tip = (round(px) - x0, round(py) - y0)
    if rng.random() < 0.6:  # a chip
        radius = int(w * float(rng.uniform(0.16, 0.26)))
        colour = tuple(float(v) for v in rng.choice(
            np.array([[30, 30, 200], [200, 60, 20], [20, 20, 20], [230, 230, 230],
                      [30, 160, 40]], np.float32)))
        cv2.circle(canvas, tip, radius, 255, -1, cv2.LINE_AA)
        cv2.circle(canvas, tip, max(1, int(radius * 0.7)), 200, max(1, radius // 6),
                   cv2.LINE_AA)
    else:  # a fingertip reaching in from outside
        phi = float(rng.uniform(0, 2 * math.pi))
        length = w * float(rng.uniform(0.5, 0.9))
        thick = int(w * float(rng.uniform(0.12, 0.18)))
        base = (round(tip[0] + length * math.cos(phi)), round(tip[1] + length * math.sin(phi)))
        cv2.line(canvas, tip, base, 255, thick, cv2.LINE_AA)
        colour = tuple(float(v) for v in rng.uniform([120, 150, 200], [150, 185, 235]))
    alpha = canvas.astype(np.float32) / 255.0
    # Chips have a printed inner ring (alpha 200/255 there): keep it visible as a shade.
    return _Patch(x0, y0, canvas > 100), alpha, (colour[0], colour[1], colour[2])


def _draw_occluder(frame: NDArray[np.float32], owner: NDArray[np.int16], patch: _Patch,
                   alpha: NDArray[np.float32], colour: tuple[float, float, float]) -> None:
    if alpha.size == 0:
        return
    a = alpha[:, :, None]
    region = patch.view(frame)
    ink = np.asarray(colour, np.float32)
    region *= 1.0 - a
    region += a * ink
    patch.view(owner)[patch.mask] = -2


def _visibility(truths: Sequence[CardTruth | None], owner: NDArray[np.int16],
                index_masks: Sequence[IndexMasks | None],
                ) -> list[CardTruth | None]:
    """Each card's index corners: visible when inside the frame and mostly uncovered."""
    height, width = owner.shape
    result: list[CardTruth | None] = []
    for number, (truth, masks) in enumerate(zip(truths, index_masks, strict=True)):
        if truth is None or masks is None:
            result.append(None)
            continue
        inside = _quad_inside(truth.quad, width, height)
        flags = []
        for patch in masks:
            total = int(patch.mask.sum())
            shown = int((patch.view(owner)[patch.mask] == number).sum())
            flags.append(inside and total > 0 and shown >= VISIBLE_FRACTION * total)
        result.append(CardTruth(truth.code, truth.quad, (flags[0], flags[1]), truth.group))
    return result


def _quad_inside(quad: Quad, width: int, height: int) -> bool:
    return all(-0.5 <= x <= width - 0.5 and -0.5 <= y <= height - 0.5 for x, y in quad)


# --------------------------------------------------------------------------- the camera


def _degrade(frame: NDArray[np.float32], rng: np.random.Generator, conditions: Conditions,
             scale: float) -> tuple[Image, dict[str, float]]:
    """Light, blur, noise and JPEG compression, as a camera would add them."""
    height, width = frame.shape[:2]
    applied: dict[str, float] = {}
    gain = float(rng.uniform(*conditions.gain))
    cast = rng.uniform(-conditions.colour_cast, conditions.colour_cast, 3)
    strength = float(rng.uniform(*conditions.gradient))
    phi = float(rng.uniform(0, 2 * math.pi))
    # A linear light ramp across the frame, times a white-balance error per channel.
    across = (np.arange(width, dtype=np.float32) / width - 0.5) * np.float32(math.cos(phi))
    down = (np.arange(height, dtype=np.float32) / height - 0.5) * np.float32(math.sin(phi))
    light = np.float32(gain) * (1 + np.float32(strength) * (down[:, None] + across[None, :]))
    light3 = cv2.merge([light * np.float32(1.0 + c) for c in cast])
    frame = np.asarray(cv2.multiply(frame, light3), np.float32)
    applied |= {"gain": gain, "gradient": strength}

    length = float(rng.uniform(*conditions.motion_blur)) * scale if rng.random() < 0.5 else 0.0
    if length >= 1.5:
        frame = _motion_blur(frame, length, float(rng.uniform(0, 180)))
    applied["motion_blur"] = length if length >= 1.5 else 0.0
    sigma = float(rng.uniform(*conditions.focus_blur)) if rng.random() < 1 / 3 else 0.0
    if sigma > 0.2:
        frame = np.asarray(cv2.GaussianBlur(frame, (0, 0), sigma), np.float32)
    applied["focus_blur"] = sigma if sigma > 0.2 else 0.0
    noise = float(rng.uniform(*conditions.noise))
    if noise > 0:
        grain = rng.standard_normal(frame.shape, dtype=np.float32)
        frame = np.asarray(cv2.scaleAdd(grain, noise, frame), np.float32)
    applied["noise"] = noise
    np.clip(frame + np.float32(0.5), 0, 255, out=frame)
    image = frame.astype(np.uint8)
    quality = int(rng.integers(conditions.jpeg_quality[0], conditions.jpeg_quality[1] + 1))
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:  # pragma: no cover - OpenCV always encodes a uint8 BGR image
        raise RuntimeError("JPEG encoding failed")
    decoded = cv2.imdecode(data, cv2.IMREAD_COLOR)
    applied["jpeg_quality"] = float(quality)
    return np.asarray(decoded, np.uint8), applied


def _motion_blur(frame: NDArray[np.float32], length: float, angle: float) -> NDArray[np.float32]:
    size = math.ceil(length) | 1
    kernel = np.zeros((size, size), np.float32)
    c = (size - 1) / 2
    theta = math.radians(angle)
    dx, dy = math.cos(theta) * length / 2, math.sin(theta) * length / 2
    cv2.line(kernel, (round((c - dx) * 16), round((c - dy) * 16)),
             (round((c + dx) * 16), round((c + dy) * 16)), 1.0, 1, cv2.LINE_AA, 4)
    kernel /= kernel.sum()
    return np.asarray(cv2.filter2D(frame, -1, kernel), np.float32)
