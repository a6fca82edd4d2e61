"""Scoring the card recogniser on synthetic scenes (issue 8's proof).

**The scorer.** A detection *matches* a ground-truth card when the quads overlap with an
intersection over union of at least 0.5 and the codes are the same (each truth matches at most
one detection, the best-overlapping one). Then, per deck style:

* **precision** = matched detections / detections with a code. A code on a card that is not
  that card (a wrong read, a read of a face-down card, of a chip, a second read of one card)
  is a false positive: the thing a broadcast must not show.
* **recall** = matched cards / cards whose index corners can be seen (at least one of the two:
  :attr:`~capture.camera.synth.CardTruth.index_visible`). Cards with both indexes covered
  are left out of recall; a correct read of one still counts for precision.
* **unknown** detections (``code`` None: the recogniser saw a card but would not guess) count
  as neither a true nor a false positive; they are reported on their own.

**The protocol.** For each style a :class:`~capture.camera.deck.CameraDeck` is calibrated from
one clean render per card (what ``feltcast camera calibrate`` does with photographs), then a
:class:`~capture.camera.recognizer.Recognizer` with its default threshold reads N seeded
scenes, alternately 1920x1080 and 1280x720. The targets, precision >= 99.5 % and recall >= 95 %,
must hold for every style, the held-out styles included (the recogniser was never tuned on
those).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Protocol

import cv2
import numpy as np

from capture.camera.cardart import EVALUATION_ONLY, STYLES, CardStyle, Faces, render_card
from capture.camera.synth import (
    DEFAULT_CONDITIONS,
    SIZES,
    CardTruth,
    Conditions,
    Scene,
    generate_scenes,
)
from engine.cards import FULL_DECK, Card

if TYPE_CHECKING:
    from capture.camera.deck import CameraDeck
    from capture.camera.geometry import Image

PRECISION_TARGET: Final = 0.995
RECALL_TARGET: Final = 0.95
IOU_MATCH: Final = 0.5

QuadLike = Sequence[Sequence[float]]


class Detection(Protocol):
    """What the scorer needs of a detection (:class:`capture.camera.recognizer.Detection`)."""

    @property
    def code(self) -> str | None: ...

    @property
    def quad(self) -> tuple[tuple[float, float], ...]: ...

    @property
    def score(self) -> float: ...


# --------------------------------------------------------------------------- the scorer


def quad_area(quad: QuadLike) -> float:
    """The area of a quadrilateral (absolute, whatever the corner order's orientation)."""
    pts = np.asarray(quad, np.float32).reshape(-1, 2)
    return float(abs(cv2.contourArea(pts)))


def quad_iou(a: QuadLike, b: QuadLike) -> float:
    """Intersection over union of two quads (their convex hulls), 0..1.

    The corner order does not matter: a card read upside down covers the same pixels.
    (Clipped exactly in Python: ``cv2.intersectConvexConvex`` misreports polygons whose edges
    nearly coincide, which is the normal case for a good detection.)
    """
    pa = _convex(a)
    pb = _convex(b)
    area_a, area_b = _area(pa), _area(pb)
    if area_a <= 0.0 or area_b <= 0.0:
        return 0.0
    inter = _area(_clip(pa, pb))
    union = area_a + area_b - inter
    return min(1.0, max(0.0, inter / union)) if union > 0 else 0.0


Polygon = list[tuple[float, float]]


def _convex(quad: QuadLike) -> Polygon:
    """The convex hull, counter-clockwise in the maths sense (x right, y up)."""
    pts = sorted({(float(p[0]), float(p[1])) for p in quad})
    if len(pts) < 3:
        return []

    def cross(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: Polygon = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: Polygon = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def _area(poly: Polygon) -> float:
    n = len(poly)
    if n < 3:
        return 0.0
    twice = sum(poly[i][0] * poly[(i + 1) % n][1] - poly[(i + 1) % n][0] * poly[i][1]
                for i in range(n))
    return abs(twice) / 2.0


def _clip(subject: Polygon, clip: Polygon) -> Polygon:
    """Sutherland-Hodgman: ``subject`` clipped to the convex, counter-clockwise ``clip``."""
    output = subject
    n = len(clip)
    for i in range(n):
        if not output:
            break
        (x1, y1), (x2, y2) = clip[i], clip[(i + 1) % n]

        def side(p: tuple[float, float], x1: float = x1, y1: float = y1, x2: float = x2,
                 y2: float = y2) -> float:
            return (x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1)

        points, output = output, []
        for j, current in enumerate(points):
            previous = points[j - 1]
            s_cur, s_prev = side(current), side(previous)
            if s_cur >= 0:
                if s_prev < 0:
                    output.append(_cross_point(previous, current, s_prev, s_cur))
                output.append(current)
            elif s_prev >= 0:
                output.append(_cross_point(previous, current, s_prev, s_cur))
    return output


def _cross_point(p: tuple[float, float], q: tuple[float, float], sp: float,
                 sq: float) -> tuple[float, float]:
    t = sp / (sp - sq)
    return (p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1]))


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one scene's detections compare with its truth."""

    matched: tuple[tuple[int, int], ...]
    """(detection index, truth index) pairs that agree (same code, IoU >= 0.5)."""
    false_positives: tuple[int, ...]
    """Detections with a code that matches no truth."""
    unknown: tuple[int, ...]
    """Detections without a code."""
    missed: tuple[int, ...]
    """Index-visible truths that no detection matched."""
    missed_as_unknown: tuple[int, ...]
    """Of ``missed``: those an unknown detection overlaps (seen but not named)."""


def match(detections: Sequence[Detection], truths: Sequence[CardTruth], *,
          iou: float = IOU_MATCH) -> Outcome:
    """Pair detections with truths: same code, IoU >= ``iou``, best overlap first."""
    pairs: list[tuple[float, int, int]] = []
    for d, detection in enumerate(detections):
        if detection.code is None:
            continue
        for t, truth in enumerate(truths):
            if truth.code == detection.code:
                overlap = quad_iou(detection.quad, truth.quad)
                if overlap >= iou:
                    pairs.append((overlap, d, t))
    pairs.sort(key=lambda p: (-p[0], p[1], p[2]))
    used_d: set[int] = set()
    used_t: set[int] = set()
    matched: list[tuple[int, int]] = []
    for _overlap, d, t in pairs:
        if d not in used_d and t not in used_t:
            used_d.add(d)
            used_t.add(t)
            matched.append((d, t))
    unknown = tuple(d for d, det in enumerate(detections) if det.code is None)
    false_positives = tuple(d for d, det in enumerate(detections)
                            if det.code is not None and d not in used_d)
    missed = tuple(t for t, truth in enumerate(truths)
                   if truth.index_visible and t not in used_t)
    missed_as_unknown = tuple(
        t for t in missed
        if any(quad_iou(detections[d].quad, truths[t].quad) >= iou for d in unknown))
    return Outcome(tuple(sorted(matched)), false_positives, unknown, missed, missed_as_unknown)


@dataclass(frozen=True, slots=True)
class Score:
    """Counts for precision and recall; add scores to pool scenes."""

    true_positives: int = 0
    false_positives: int = 0
    unknown: int = 0
    visible: int = 0
    """Truths whose index corners can be seen (the recall denominator)."""
    found: int = 0
    """Of ``visible``: matched ones."""
    missed_as_unknown: int = 0
    hidden: int = 0
    """Truths with both index corners covered (outside recall)."""

    @classmethod
    def of(cls, outcome: Outcome, truths: Sequence[CardTruth]) -> Score:
        visible = sum(1 for t in truths if t.index_visible)
        return cls(
            true_positives=len(outcome.matched), false_positives=len(outcome.false_positives),
            unknown=len(outcome.unknown), visible=visible, found=visible - len(outcome.missed),
            missed_as_unknown=len(outcome.missed_as_unknown), hidden=len(truths) - visible)

    def __add__(self, other: Score) -> Score:
        return Score(*(a + b for a, b in zip(_fields(self), _fields(other), strict=True)))

    @property
    def detections(self) -> int:
        """Detections with a code (the precision denominator)."""
        return self.true_positives + self.false_positives

    @property
    def precision(self) -> float:
        """Matched / coded detections; 1.0 when nothing was named (nothing wrong on air)."""
        return self.true_positives / self.detections if self.detections else 1.0

    @property
    def recall(self) -> float:
        """Found / index-visible cards; 1.0 when there were none."""
        return self.found / self.visible if self.visible else 1.0

    def meets_targets(self) -> bool:
        return self.precision >= PRECISION_TARGET and self.recall >= RECALL_TARGET

    def to_dict(self) -> dict[str, Any]:
        return {"precision": self.precision, "recall": self.recall,
                "true_positives": self.true_positives, "false_positives": self.false_positives,
                "unknown": self.unknown, "visible": self.visible, "found": self.found,
                "missed_as_unknown": self.missed_as_unknown, "hidden": self.hidden}


def _fields(score: Score) -> tuple[int, ...]:
    return (score.true_positives, score.false_positives, score.unknown, score.visible,
            score.found, score.missed_as_unknown, score.hidden)


def score_scene(detections: Sequence[Detection], truths: Sequence[CardTruth]) -> Score:
    return Score.of(match(detections, truths), truths)


# --------------------------------------------------------------------------- the protocol


@dataclass(frozen=True, slots=True)
class Mistake:
    """One false positive or miss, for the report and for debugging."""

    scene_seed: int
    size: tuple[int, int]
    kind: str
    """``"false-positive"`` or ``"missed"`` (``"missed-unknown"`` when read as unknown)."""
    code: str | None
    """The code read (false positive) or the card missed."""
    truth: str | None
    """For a false positive: the card under the detection, if any (IoU >= 0.5)."""
    card: CardTruth | None = None
    """The card concerned (missed, or under a false positive), for where and how it lay."""
    score: float | None = None
    """The detection's score (false positives, misses read as unknown)."""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"scene_seed": self.scene_seed, "size": list(self.size),
                                "kind": self.kind, "code": self.code, "truth": self.truth}
        if self.score is not None:
            data["score"] = round(self.score, 3)
        if self.card is not None:
            (x0, y0), (x1, y1) = self.card.quad[0], self.card.quad[1]
            data |= {"group": self.card.group,
                     "corners_visible": list(self.card.corners_visible),
                     "width_px": round(math.hypot(x1 - x0, y1 - y0), 1),
                     "angle": round(math.degrees(math.atan2(y1 - y0, x1 - x0)), 1)}
        return data


@dataclass(frozen=True, slots=True)
class StyleResult:
    style: str
    heldout: bool
    scenes: int
    score: Score
    seconds: float
    """Time spent in the recogniser (not in drawing scenes)."""
    mistakes: tuple[Mistake, ...] = ()
    by_size: tuple[tuple[str, Score], ...] = ()
    """The score split by frame size (``"1920x1080"``, ``"1280x720"``)."""
    kind: str = ""
    """``dev``, ``heldout`` (the project's drawn styles) or ``images`` (a real deck's)."""

    @property
    def passed(self) -> bool:
        return self.score.meets_targets()

    def to_dict(self) -> dict[str, Any]:
        return {"style": self.style, "heldout": self.heldout,
                "set": self.kind or ("heldout" if self.heldout else "dev"),
                "scenes": self.scenes,
                **self.score.to_dict(), "passed": self.passed,
                "recognizer_seconds": round(self.seconds, 3),
                "by_size": {size: score.to_dict() for size, score in self.by_size},
                "mistakes": [m.to_dict() for m in self.mistakes]}


@dataclass(frozen=True, slots=True)
class Report:
    results: tuple[StyleResult, ...]
    seed: int
    scenes: int
    targets: dict[str, float] = field(default_factory=lambda: {
        "precision": PRECISION_TARGET, "recall": RECALL_TARGET})

    @property
    def passed(self) -> bool:
        """Every style meets both targets."""
        return all(r.passed for r in self.results)

    @property
    def total(self) -> Score:
        return sum((r.score for r in self.results), Score())

    def to_dict(self) -> dict[str, Any]:
        return {"seed": self.seed, "scenes_per_style": self.scenes, "targets": self.targets,
                "passed": self.passed, "total": self.total.to_dict(),
                "styles": [r.to_dict() for r in self.results]}


Progress = Callable[[str, int, int], None]
"""Called as ``progress(style, scenes_done, scenes_total)``."""

DetectHook = Callable[[Scene, Sequence[Detection], Outcome], None]


def calibrate_style(style: CardStyle, *, width: int = 250) -> CameraDeck:
    """A camera deck learnt from one clean render of each card in ``style``."""
    from capture.camera.deck import CameraDeck

    images = {card: render_card(card, style, width=width) for card in FULL_DECK}
    return CameraDeck.calibrate(images, f"synthetic-{style.name}")


def evaluate_style(style: CardStyle, scenes: int, *, seed: int = 0,
                   conditions: Conditions = DEFAULT_CONDITIONS,
                   sizes: Sequence[tuple[int, int]] = SIZES,
                   threshold: float | None = None, progress: Progress | None = None,
                   on_scene: DetectHook | None = None) -> StyleResult:
    """Calibrate on ``style``'s clean renders, then read ``scenes`` seeded scenes."""
    return evaluate_faces(style, calibrate_style(style), scenes, seed=seed,
                          conditions=conditions, sizes=sizes, threshold=threshold,
                          progress=progress, on_scene=on_scene,
                          kind="heldout" if style.name in EVALUATION_ONLY else "dev")


def evaluate_images(images: Mapping[Card, Image], name: str, scenes: int, *, seed: int = 0,
                    sources: Mapping[Card, str] | None = None,
                    conditions: Conditions = DEFAULT_CONDITIONS,
                    sizes: Sequence[tuple[int, int]] = SIZES,
                    threshold: float | None = None, progress: Progress | None = None,
                    on_scene: DetectHook | None = None) -> StyleResult:
    """A real deck: calibrate from ``images`` (one per card, as ``feltcast camera calibrate
    --images`` takes them), then read ``scenes`` seeded scenes of those same faces
    (:class:`~capture.camera.imagefaces.ImageFaces`).

    :raises CameraDeckError: the images do not calibrate (naming the card and why).
    """
    from capture.camera.deck import CameraDeck
    from capture.camera.imagefaces import ImageFaces

    deck = CameraDeck.calibrate(images, name, sources=sources)
    return evaluate_faces(ImageFaces.of(images, deck), deck, scenes, seed=seed,
                          conditions=conditions, sizes=sizes, threshold=threshold,
                          progress=progress, on_scene=on_scene, kind="images")


def evaluate_faces(faces: Faces, deck: CameraDeck, scenes: int, *, seed: int = 0,
                   conditions: Conditions = DEFAULT_CONDITIONS,
                   sizes: Sequence[tuple[int, int]] = SIZES,
                   threshold: float | None = None, progress: Progress | None = None,
                   on_scene: DetectHook | None = None, kind: str = "dev") -> StyleResult:
    """Read ``scenes`` seeded scenes of ``faces`` with a recogniser of ``deck``."""
    from capture.camera.recognizer import Recognizer

    recognizer = Recognizer(deck) if threshold is None else Recognizer(deck, threshold=threshold)
    total = Score()
    by_size: dict[str, Score] = {}
    mistakes: list[Mistake] = []
    seconds = 0.0
    for done, scene in enumerate(generate_scenes(faces, scenes, seed=seed, sizes=sizes,
                                                 conditions=conditions), start=1):
        started = time.perf_counter()
        detections: list[Detection] = list(recognizer.detect(scene.image))
        seconds += time.perf_counter() - started
        outcome = match(detections, scene.truths)
        score = Score.of(outcome, scene.truths)
        total = total + score
        size = f"{scene.image.shape[1]}x{scene.image.shape[0]}"
        by_size[size] = by_size.get(size, Score()) + score
        mistakes.extend(mistakes_in(scene, detections, outcome))
        if on_scene is not None:
            on_scene(scene, detections, outcome)
        if progress is not None:
            progress(faces.name, done, scenes)
    return StyleResult(faces.name, kind == "heldout", scenes, total, seconds,
                       tuple(mistakes), tuple(sorted(by_size.items(), reverse=True)), kind)


def evaluate(styles: Iterable[str], scenes: int, *, seed: int = 0,
             conditions: Conditions = DEFAULT_CONDITIONS,
             sizes: Sequence[tuple[int, int]] = SIZES, threshold: float | None = None,
             progress: Progress | None = None,
             on_scene: DetectHook | None = None) -> Report:
    """The whole protocol over ``styles`` (names in :data:`~capture.camera.cardart.STYLES`)."""
    results = tuple(
        evaluate_style(STYLES[name], scenes, seed=seed, conditions=conditions, sizes=sizes,
                       threshold=threshold, progress=progress, on_scene=on_scene)
        for name in styles)
    return Report(results, seed, scenes)


def mistakes_in(scene: Scene, detections: Sequence[Detection],
              outcome: Outcome) -> list[Mistake]:
    """The false positives and misses of one scored scene, with the cards concerned."""
    size = (scene.image.shape[1], scene.image.shape[0])
    found: list[Mistake] = []
    for d in outcome.false_positives:
        under = [t for t in scene.truths if quad_iou(detections[d].quad, t.quad) >= IOU_MATCH]
        found.append(Mistake(scene.seed, size, "false-positive", detections[d].code,
                             under[0].code if under else None, under[0] if under else None,
                             detections[d].score))
    for t in outcome.missed:
        truth = scene.truths[t]
        scores = [detections[d].score for d in outcome.unknown
                  if quad_iou(detections[d].quad, truth.quad) >= IOU_MATCH]
        kind = "missed-unknown" if scores else "missed"
        found.append(Mistake(scene.seed, size, kind, truth.code, None, truth,
                             max(scores) if scores else None))
    return found


def annotate(scene: Scene, detections: Sequence[Detection], outcome: Outcome) -> np.ndarray:
    """The scene with truth (thin yellow; red when missed) and detections drawn on it:
    green matched, magenta false positive, grey unknown."""
    image = scene.image.copy()
    for t, truth in enumerate(scene.truths):
        colour = (0, 0, 255) if t in outcome.missed else (0, 220, 220)
        cv2.polylines(image, [np.round(np.asarray(truth.quad)).astype(np.int32)], True,
                      colour, 1, cv2.LINE_AA)
    matched = {d for d, _ in outcome.matched}
    for d, detection in enumerate(detections):
        if d in matched:
            colour = (0, 200, 0)
        elif detection.code is None:
            colour = (160, 160, 160)
        else:
            colour = (255, 0, 255)
        pts = np.round(np.asarray(detection.quad)).astype(np.int32)
        cv2.polylines(image, [pts], True, colour, 2, cv2.LINE_AA)
        label = f"{detection.code or '?'} {detection.score:.2f}"
        x, y = int(pts[:, 0].min()), int(pts[:, 1].min()) - 6
        cv2.putText(image, label, (x, max(12, y)), cv2.FONT_HERSHEY_SIMPLEX, 0.6, colour, 2,
                    cv2.LINE_AA)
    return image
