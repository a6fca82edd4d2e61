"""Playing cards in one camera image: where they lie and which they are.

:meth:`Recognizer.detect` finds card outlines (:func:`.geometry.find_card_quads`, on a
downscaled copy), then reads each card's index corner straight from the full-resolution
image: only the index box of the deck (:attr:`.deck.CameraDeck.box`) is resampled, for both
ends of the card (the index is printed top-left and, turned, bottom-right), from the corner
as the card's own edges place it (:func:`.corner.refine_corner`: an outline's far corners may
be off, the index corner's two edges are measured) and, when the outline is out of a card's
proportions, also at the card's width from its height (:func:`.corner.proportioned`; the
guess the templates fit better is read). Each read
correlates the patch, at every shift of up to :data:`SHIFT` pixels, with the deck's 52
templates, the rank rows and the suit rows separately, against the templates at the blur
that fits the card best: round (:data:`BLUR_BANKS`, a camera out of focus) or smeared
(:data:`MOTION_ANGLES`, a card moving); a card that fits templates smeared
:data:`TOO_SMEARED` best is unknown. An outline with no index at either end is tried
as two cards (:func:`.geometry.split_ends`: a fanned pair, or two cards joined by a finger).

The score. For the best card, its rank is compared with the best card of another rank and its
suit with the best card of another suit. Each margin is measured against how far apart those
two templates are: 1.0 means the patch looks exactly like the winner, 0.5 means it lies halfway
between the winner and the runner-up. The score is the smaller of the two margins, scaled down
when the patch fits no template well (a card back, a thumb over the index). Below the
recognizer's threshold the detection's code is ``None``: a wrong card on air is worse than none.
The two ends of a card must agree: a card whose ends disagree is unknown; two ends that agree
are read as one patch (their correlations averaged). Two ends that each lean only a little
towards the same card do not make it sure: their doubts come from the same blur, light and
deck, not from two independent looks (scored as independent witnesses, one such card in ten
was wrong on the development scenes). An outline that does not
read surely is retried with each corner in turn replaced by the parallelogram's
(:func:`.geometry.parallelograms`: the edge cut inside a fanned pair can move one corner) and,
when an index shows on it, as a card standing on each of its sides
(:func:`.geometry.anchored_cards`: a chip or a thumb on the outline); guesses that name
different cards leave it unknown. (An outline a few pixels or degrees off needs no guess: the
measured corner puts it right.) Each guess has its sides along the blob's outline fitted to it
(:meth:`.geometry.Outline.snap`); an outline that is its blob's whole outline (a card alone)
is not retried, and a guess that repeats the outline or an earlier guess is not read twice.
When a blob of several cards (a fanned pair, a row joined by a chip or a finger) leaves a card
unread, the cards at the blob's two ends are read (:meth:`.geometry.Outline.ends`); an end
names a card only where none is named yet, when it and the same end nudged a little agree,
and when its code is not named elsewhere in the frame (a deck holds each card once).

>>> from capture.camera.cardart import DEFAULT_STYLE, render_card
>>> from engine.cards import Card
>>> import numpy as np
>>> table = np.full((400, 400, 3), (40, 110, 30), np.uint8)
>>> table[20:370, 60:310] = render_card(Card("Qh"), DEFAULT_STYLE)
>>> [(d.code, d.score > 0.8) for d in Recognizer(CameraDeck.default()).detect(table)]
[('Qh', True)]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from engine.cards import Card

from . import defaults
from .corner import proportioned, refine_corners
from .deck import CameraDeck, index_features, normalise
from .geometry import (
    DEFAULT_OUTLINE,
    Image,
    Outline,
    OutlineParams,
    Quad,
    anchored_cards,
    find_card_outlines,
    nudged,
    parallelograms,
    portrait_orders,
    quad_iou,
    side_lengths,
    split_ends,
    warp_region,
)
from .suitcheck import CLUBS, SPADES, clubs_spades, streak_kernel

DEFAULT_THRESHOLD = defaults.THRESHOLD
"""Score below which a card's code is unknown."""
SHIFT = 3
"""Largest shift, in template pixels, between a patch and a template (outline error)."""
FIT_FLOOR = 0.6
"""A best correlation below this is no index at all; the score falls to 0 there ..."""
FIT_FULL = 0.9
"""... and is not reduced above this."""
LEARNT_VOUCH = 0.5
"""When the deck's rank and suit discriminants both lean at least this far towards the
templates' card (+1: as far as their average calibration view), ..."""
FIT_FULL_VOUCHED = 0.75
"""... the fit is not held against the card from this correlation on (not :data:`FIT_FULL`):
a thin index blurred, small and compressed by a camera fits its own clear template about 0.8,
and it is the deck's own discriminants, learnt from such views, that say which card it is."""
LEARNT_SPAN = 1.0
"""The deck's rank and suit discriminants (:mod:`.learnt`) are a sure margin (1.0) when the
patch lies this far towards the templates' rank (suit) from the nearest boundary, in units of
the average calibration view (+1); 0.5 on the boundary."""
CHECK_SPAN = 1.0
"""The clubs-or-spades discriminant (:mod:`.suitcheck`, +-1 on the average camera view of a
club or spade at calibration) is a sure margin (1.0) this far towards the templates' suit."""

_CARDS = tuple(Card.from_index(i) for i in range(52))
_RANK_OF = np.array([i >> 2 for i in range(52)])
_SUIT_OF = np.array([i & 3 for i in range(52)])


@dataclass(frozen=True, slots=True)
class Detection:
    """One card outline in an image and, when the score allows, which card it is."""

    code: str | None
    """``"Ah"``, or ``None`` when the card cannot be read surely (never a guess)."""
    quad: tuple[tuple[float, float], ...]
    """The printed card's top-left, top-right, bottom-right and bottom-left corners, in the
    full image's pixels."""
    score: float
    """0-1: how surely the index reads as ``code`` (or as the best guess, when ``None``)."""

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code,
                "quad": [[round(x, 1), round(y, 1)] for x, y in self.quad],
                "score": round(self.score, 3)}

    @property
    def card(self) -> Card | None:
        return None if self.code is None else Card(self.code)

    @property
    def centre(self) -> tuple[float, float]:
        xs = [p[0] for p in self.quad]
        ys = [p[1] for p in self.quad]
        return sum(xs) / 4.0, sum(ys) / 4.0


BLUR_BANKS = (0.0, 1.6, 2.8)
"""Extra blur (Gaussian sigma, template pixels) of the template sets a patch is matched
against; the set it fits best is used: a camera out of focus or a card moving is read against
templates as soft as it is (sharp templates would pull a soft club towards a spade)."""
TOO_SMEARED = 15.0
"""A card that fits templates smeared this long (template pixels) best moves too fast to be
read surely: it is unknown. (Smeared that far along the card, a spade's point and a club's
leaves are gone and the rank's foot runs into the suit: matched against such templates,
spades read as clubs.)"""
MOTION_BLUR = 9.0
"""Length, in template pixels, of the streak of the motion-blurred template sets ..."""
MOTION_ANGLES = (0.0, 45.0, 90.0, 135.0)
"""... one set per direction across the card (degrees from its top edge). A card moving
under the camera is smeared one way: matched against round blur, a smeared club still looks
more like a spade; matched against the same streak, like itself."""


Blur = Callable[..., npt.NDArray[Any]]
"""A blur of one template channel."""


def _blurs() -> list[Blur]:
    """Each template set's blur of one template channel, sharp first; the last
    ``len(MOTION_ANGLES)`` are :data:`TOO_SMEARED`."""
    blurs: list[Blur] = [np.asarray]
    blurs += [partial(cv2.GaussianBlur, ksize=(0, 0), sigmaX=sigma)
              for sigma in BLUR_BANKS if sigma > 0]
    blurs += [partial(cv2.filter2D, ddepth=-1, kernel=streak_kernel(length, angle, soften=0.6),
                      borderType=cv2.BORDER_REPLICATE)
              for length in (MOTION_BLUR, TOO_SMEARED) for angle in MOTION_ANGLES]
    return blurs


@dataclass(frozen=True, slots=True)
class _Templates:
    """Templates' rank rows and suit rows, transposed for the products: ``(n, cards)``."""

    rank_t: npt.NDArray[np.float32]
    suit_t: npt.NDArray[np.float32]

    @classmethod
    def stacked(cls, banks: list[_Bank]) -> _Templates:
        """Several blurs' templates side by side: one product reads a patch against all."""
        return cls(np.ascontiguousarray(np.concatenate([b.rank_t for b in banks], axis=1)),
                   np.ascontiguousarray(np.concatenate([b.suit_t for b in banks], axis=1)))


@dataclass(frozen=True, slots=True)
class _Bank(_Templates):
    """The deck's templates at one blur: transposed for the products, and how alike."""

    rank_similarity: npt.NDArray[np.float32]
    suit_similarity: npt.NDArray[np.float32]

    @classmethod
    def of(cls, deck: CameraDeck, blur: Blur, step: int = 1) -> _Bank:
        """The deck's templates, each channel through ``blur``, at every ``step`` th pixel
        across and down (as :meth:`_Windows.coarse` samples a patch)."""
        templates = np.stack([np.stack([blur(channel) for channel in card])
                              for card in deck.templates]).astype(np.float32)
        rank = normalise(templates[:, :, :deck.split][:, :, ::step, ::step])
        suit = normalise(templates[:, :, deck.split:][:, :, ::step, ::step])
        return cls(np.ascontiguousarray(rank.T), np.ascontiguousarray(suit.T),
                   rank @ rank.T, suit @ suit.T)


@dataclass(frozen=True, slots=True)
class _Read:
    """The correlations of one index patch with every card's rank and suit rows, ``(52,)``
    each: every card at its best shift within one pixel of the shift where the patch fits
    best (rank and suit apart: the gap between a card's rank and suit scales with the card,
    and an outline a little large or small puts the suit a pixel off where the rank fits; a
    club judged there looks more like a spade than itself). Every card gets the same
    freedom, one pixel: letting a runner-up slide across the whole search flatters it."""

    rank: npt.NDArray[np.float32]
    suit: npt.NDArray[np.float32]
    bank: _Bank
    clubs_spades: float
    """The deck's clubs-or-spades discriminant where the patch fits best (> 0 club)."""
    ranks: npt.NDArray[np.float32] | None = None
    """The deck's rank discriminant (:mod:`.learnt`) where the patch fits best, ``(13,)``."""
    suits: npt.NDArray[np.float32] | None = None
    """Its suit discriminant there, ``(4,)``."""

    @property
    def fit(self) -> float:
        best = int(np.argmax(self.rank + self.suit))
        return float(min(self.rank[best], self.suit[best]))


class Recognizer:
    """Reads cards of one calibrated deck.

    :param threshold: score (0-1) below which a card's code is ``None``.
    """

    def __init__(self, deck: CameraDeck, *, threshold: float = DEFAULT_THRESHOLD,
                 outline: OutlineParams = DEFAULT_OUTLINE) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold {threshold!r} is not in (0, 1]")
        self.deck = deck
        self.threshold = threshold
        self.outline = outline
        width, height = deck.patch
        self._size = (width + 2 * SHIFT, height + 2 * SHIFT)
        u0, v0, u1, v1 = deck.box
        du, dv = (u1 - u0) / width, (v1 - v0) / height
        self._box = (u0 - SHIFT * du, v0 - SHIFT * dv, u1 + SHIFT * du, v1 + SHIFT * dv)
        self._card_width_px = width / (u1 - u0)
        """Card width in template pixels."""
        self._clubs_spades = np.ascontiguousarray(deck.clubs_spades.reshape(-1))
        self._learnt = deck.learnt
        self._learnt_columns = (None if deck.learnt is None else
                                (deck.learnt.rank.columns(), deck.learnt.suit.columns()))
        blurs = _blurs()
        round_ = len(BLUR_BANKS)
        self._banks = [*(_Bank.of(deck, blur) for blur in blurs[:round_]),
                       *(_Bank.of(deck, blur, COARSE) for blur in blurs[round_:])]
        self._readable = len(self._banks) - len(MOTION_ANGLES)
        """Template sets from this one on are :data:`TOO_SMEARED`."""
        # The softer sets, each kind stacked for one product: round blurs at every pixel,
        # smeared ones at every COARSE th.
        self._softer = ((self._banks[1:round_], _Templates.stacked(self._banks[1:round_])),
                        (self._banks[round_:], _Templates.stacked(self._banks[round_:])))

    def detect(self, image: Image, roi: tuple[int, int, int, int] | None = None
               ) -> list[Detection]:
        """Every card outline in ``image`` (BGR) or in its region ``roi`` = (x, y, w, h),
        left to right; quads in the full image's coordinates."""
        if image.ndim != 3 or image.shape[2] != 3:
            raise ValueError("detect needs a BGR colour image")
        x0, y0 = 0, 0
        view = image
        if roi is not None:
            x, y, w, h = roi
            x0, y0 = max(0, int(x)), max(0, int(y))
            x1 = min(image.shape[1], int(x) + int(w))
            y1 = min(image.shape[0], int(y) + int(h))
            if x1 - x0 < 8 or y1 - y0 < 8:
                return []
            view = image[y0:y1, x0:x1]
        detections: list[Detection] = []
        pyramid = _Pyramid(view)
        offset = np.array([x0, y0], dtype=np.float32)
        unread: dict[int, Outline] = {}
        for outline in find_card_outlines(view, self.outline):
            quad = outline.quad
            detection, fit = self._read(pyramid, quad)
            if detection.code is None and not outline.clean():
                # The outline may be wrong in one corner (cut along an edge inside a fanned
                # pair): a card is a parallelogram. When an index shows but reads unsurely,
                # all but one side may be off (a chip or a thumb on the outline): a card
                # also has a known shape. (Not for every unknown outline: chips and card
                # backs would cost the board camera its frame rate. Nor for an outline that
                # is its blob's: guessing around a card that shows whole only finds another
                # reading of an index that is unclear.)
                # Each guess with its sides along the blob's outline fitted to it.
                guesses = [outline.snap(guess) for guess in parallelograms(quad)]
                if fit >= FIT_FLOOR:
                    guesses += [outline.snap(guess) for guess in anchored_cards(quad)]
                named = [(guessed, guessed_fit) for guessed, guessed_fit in
                         (self._read(pyramid, guess) for guess in _distinct(guesses, quad))
                         if guessed.code is not None]
                # Guesses that name different cards surely say the index is ambiguous, not
                # which card it is (of many guesses, one can read surely by chance).
                if len({guessed.code for guessed, _ in named}) == 1:
                    detection, fit = max(named, key=lambda pair: pair[0].score)
            found = [detection]
            if fit < FIT_FLOOR:
                # No index where a card's would be: perhaps two cards taken for one (a
                # fanned pair, or two cards side by side joined by a finger or a chip).
                halves = [self._read(pyramid, outline.snap(half))
                          for half in split_ends(quad)]
                if any(half_fit >= FIT_FLOOR for _, half_fit in halves):
                    found = [half for half, _ in halves]
            if outline.enclosing:
                found = [self._confirmed(pyramid, d) for d in found]
            if all(d.code is None for d in found) and outline.shared():
                unread.setdefault(id(outline.blob), outline)
            detections.extend(found)
        for outline in unread.values():
            detections = self._blob_ends(pyramid, outline, detections)
        detections.sort(key=lambda d: d.centre[0])
        return [Detection(d.code, tuple((float(px), float(py))
                                        for px, py in detection_quad(d) + offset), d.score)
                for d in detections]

    def _confirmed(self, pyramid: _Pyramid, detection: Detection) -> Detection:
        """``detection`` (read on a guess: a blob's enclosing rectangle or half of it) as
        it is when at least half of the same quad nudged a little (a few pixels off, as
        any guess is) name its card and none names another; unknown otherwise."""
        if detection.code is None:
            return detection
        codes = [self._read(pyramid, guess)[0].code
                 for guess in nudged(detection_quad(detection))]
        if (2 * codes.count(detection.code) >= len(codes)
                and all(code in (None, detection.code) for code in codes)):
            return detection
        return Detection(None, detection.quad, detection.score)

    def _blob_ends(self, pyramid: _Pyramid, outline: Outline,
                   detections: list[Detection]) -> list[Detection]:
        """``detections`` with the cards read at either end of ``outline``'s blob (one that
        holds several cards and left one of them unread: the top card of a fanned pair
        whose outline the cut between the cards got wrong), each only where no card was
        named yet and when its code is not named elsewhere (a deck holds each card once);
        the unknown detections it lies on are dropped."""
        for end in outline.ends():
            detection, fit = self._read(pyramid, end)
            if fit < FIT_FLOOR:
                continue
            # An end is a guess: it names a card only when it and the same end nudged a
            # little (a few pixels off, as any outline can be) agree on it.
            reads = [detection, *(self._read(pyramid, guess)[0] for guess in nudged(end))]
            named = [guessed for guessed in reads if guessed.code is not None]
            if len({guessed.code for guessed in named}) != 1:
                continue
            detection = max(named, key=lambda guessed: guessed.score)
            named = [d for d in detections if d.code is not None]
            if any(d.code == detection.code or quad_iou(detection_quad(d), end) >= 0.3
                   for d in named):
                continue
            detections = [d for d in detections
                          if d.code is not None or quad_iou(detection_quad(d), end) < 0.5]
            detections.append(detection)
        return detections

    def read(self, image: Image | _Pyramid, quad: Quad) -> Detection:
        """Which card lies at ``quad`` (clockwise, a short side first)."""
        return self._read(image if isinstance(image, _Pyramid) else _Pyramid(image), quad)[0]

    def _read(self, pyramid: _Pyramid, quad: Quad) -> tuple[Detection, float]:
        """The detection and how well its index fits any template (the better end)."""
        orders = portrait_orders(quad)
        source, scale = pyramid.level_for(
            float(np.min(side_lengths(quad)[::2])) / self._card_width_px)
        banks = [self._read_corner(source, local)
                 for local in refine_corners(source, [order * scale for order in orders])]
        # One blur for the whole card (both ends are as sharp as each other): the one that
        # fits the better end best, counting the other end when it fits at all.
        level = max(range(len(self._banks)), key=lambda i: max(
            banks[0][i].fit + max(banks[1][i].fit, 0.0),
            banks[1][i].fit + max(banks[0][i].fit, 0.0)))
        reads = [banks[0][level], banks[1][level]]
        fits = [read.fit for read in reads]
        good = [read for read in reads if read.fit >= FIT_FLOOR]
        first = 0 if fits[0] >= fits[1] - 0.02 else 1
        printed = orders[first]
        fit = max(fits)
        if level >= self._readable:
            return _detection(None, printed, 0.0), fit  # moving too fast to read surely
        if not good:
            code, score = self._decide(reads[first])
            return _detection(None, printed, score), fit
        codes = [self._decide(read) for read in good]
        if (len(good) == 2 and codes[0][0] != codes[1][0]
                and min(codes[0][1], codes[1][1]) >= self.threshold):
            # Both ends are sure, and disagree: the card is unknown, whatever either says.
            return _detection(None, printed, 0.0), fit
        combined = _Read(np.mean([read.rank for read in good], axis=0, dtype=np.float32),
                         np.mean([read.suit for read in good], axis=0, dtype=np.float32),
                         good[0].bank,
                         float(np.mean([read.clubs_spades for read in good])),
                         *_mean_learnt(good))
        code, score = self._decide(combined)
        return _detection(code if score >= self.threshold else None, printed, score), fit

    def _read_corner(self, source: Image, local: Quad) -> list[_Read]:
        """The index at the top-left of ``local`` (the card on its measured corner, in
        ``source``'s pixels), against every blur's templates."""
        # The sharp templates find the shift; the softer ones only look around it.
        sharp = self._banks[0]
        tries: list[tuple[float, _Windows, npt.NDArray[np.float32],
                          npt.NDArray[np.float32]]] = []
        for guess in proportioned(local):
            windows = self._windows(source, guess)
            rank, suit = windows.correlate(sharp)
            tries.append((float((rank + suit).max()), windows, rank, suit))
            if not 2 * FIT_FLOOR <= tries[-1][0] < 2 * FIT_FULL:
                break  # fits well, or shows no index at all
        # The outline's size may be off where its far corners were cut: the card's own
        # proportions give the other guess; the one the templates fit better is read.
        _, windows, rank, suit = max(tries, key=lambda t: t[0])
        side = 2 * SHIFT + 1
        at = int(np.argmax(rank + suit)) // rank.shape[1]
        row, column = divmod(at, side)
        near = [r * side + c for r in range(max(0, row - 1), min(side, row + 2))
                for c in range(max(0, column - 1), min(side, column + 2))]
        lean = float(clubs_spades(windows.suit[at:at + 1], windows.suit_scale[at:at + 1],
                                  self._clubs_spades, self.deck.clubs_spades_bias)[0])
        ranks = suits = None
        if self._learnt is not None and self._learnt_columns is not None:
            ranks = self._learnt.rank.values(windows.rank[at:at + 1],
                                             windows.rank_scale[at:at + 1],
                                             self._learnt_columns[0])[0]
            suits = self._learnt.suit.values(windows.suit[at:at + 1],
                                             windows.suit_scale[at:at + 1],
                                             self._learnt_columns[1])[0]
        reads = [_Read(rank[near].max(axis=0), suit[near].max(axis=0), sharp, lean,
                       ranks, suits)]
        # Every softer set in one product: (shifts, sets * 52), best shift per card and set.
        (round_banks, round_), (smeared_banks, smeared) = self._softer
        for banks, parts in ((round_banks, windows.correlate(round_, near)),
                             (smeared_banks, windows.coarse(near).correlate(smeared))):
            rank = parts[0].reshape(len(near), len(banks), -1).max(axis=0)
            suit = parts[1].reshape(len(near), len(banks), -1).max(axis=0)
            reads += [_Read(rank[i], suit[i], bank, lean, ranks, suits)
                      for i, bank in enumerate(banks)]
        return reads

    def _windows(self, source: Image, quad: Quad) -> _Windows:
        """The index patch at the top-left of ``quad``, at every shift."""
        features = index_features(warp_region(source, quad, self._box, self._size))
        # Centred, so that the sums of squares below lose no precision to large means.
        features -= features.mean(axis=(1, 2), keepdims=True)
        split = self.deck.split
        return _Windows(*_part_windows(features[:, :split + 2 * SHIFT], self.deck.patch[0]),
                        *_part_windows(features[:, split:], self.deck.patch[0]))

    def _decide(self, read: _Read) -> tuple[str, float]:
        """The card ``read`` fits best and how surely it names it."""
        best = int(np.argmax(read.rank + read.suit))
        # Ranks are compared within the winner's suit, suits within its rank: the rows of
        # one part also hold a little of the other part's ink.
        rank_conf = _margin(read.rank, best,
                            (_SUIT_OF[best] == _SUIT_OF) & (_RANK_OF[best] != _RANK_OF),
                            read.bank.rank_similarity)
        suit_conf = _margin(read.suit, best,
                            (_RANK_OF[best] == _RANK_OF) & (_SUIT_OF[best] != _SUIT_OF),
                            read.bank.suit_similarity)
        fit = min(float(read.rank[best]), float(read.suit[best]))
        margin = min(rank_conf, suit_conf)
        if _SUIT_OF[best] in (CLUBS, SPADES):
            # A club or a spade must also pass the deck's clubs-or-spades discriminant: a
            # third margin, 0.5 on its boundary, 1.0 at CHECK_SPAN towards the templates' suit.
            lean = read.clubs_spades if _SUIT_OF[best] == CLUBS else -read.clubs_spades
            margin = min(margin, float(np.clip(0.5 + 0.5 * lean / CHECK_SPAN, 0.0, 1.0)))
        full = FIT_FULL
        if self._learnt is not None and read.ranks is not None and read.suits is not None:
            # The deck's own rank and suit discriminants must agree with the templates; when
            # both lean clearly their way, a thin or small index that fits its template less
            # well than a bold one does is not marked down as much.
            leans = [self._learnt.rank.lean(read.ranks, int(_RANK_OF[best])),
                     self._learnt.suit.lean(read.suits, int(_SUIT_OF[best]))]
            for lean in leans:
                margin = min(margin, float(np.clip(0.5 + 0.5 * lean / LEARNT_SPAN, 0.0, 1.0)))
            if min(leans) >= LEARNT_VOUCH:
                full = FIT_FULL_VOUCHED
        fit_factor = float(np.clip((fit - FIT_FLOOR) / (full - FIT_FLOOR), 0.0, 1.0))
        return _CARDS[best].code, margin * fit_factor


def _mean_learnt(reads: list[_Read]) -> tuple[npt.NDArray[np.float32] | None,
                                              npt.NDArray[np.float32] | None]:
    """The reads' rank and suit discriminants averaged (None when a read has none)."""
    ranks = [read.ranks for read in reads if read.ranks is not None]
    suits = [read.suits for read in reads if read.suits is not None]
    if len(ranks) != len(reads) or len(suits) != len(reads):
        return None, None
    return (np.asarray(np.mean(ranks, axis=0), np.float32),
            np.asarray(np.mean(suits, axis=0), np.float32))


COARSE = 2
"""The smeared template sets (eight of them) are matched at every second pixel across and
down: the products cost a quarter. (The round blurs are matched at every pixel: at every
second one, a few more small clubs and spades stayed unknown.)"""
_BLOCK = 6
"""Shifts per matrix product: small products stay on one core (BLAS would start threads
for larger ones, which only costs time at this size)."""


@dataclass(frozen=True, slots=True)
class _Windows:
    """An index patch at every shift, ``(shifts, n)`` rows per part as sampled, with the
    factor that normalises each row. The templates are zero-mean per channel, so a row's own
    mean drops out of its product with them: the normalised cross-correlation is the plain
    product times the factor (no normalised copy of the rows is made)."""

    rank: npt.NDArray[np.float32]
    rank_scale: npt.NDArray[np.float32]
    rank_shape: tuple[int, ...]
    suit: npt.NDArray[np.float32]
    suit_scale: npt.NDArray[np.float32]
    suit_shape: tuple[int, ...]

    def coarse(self, shifts: list[int]) -> _Windows:
        """The windows at ``shifts``, sampled at every :data:`COARSE` th pixel (for the
        blurred templates, which hold nothing finer)."""
        rank, rank_scale = _coarse(self.rank[shifts], self.rank_shape)
        suit, suit_scale = _coarse(self.suit[shifts], self.suit_shape)
        return _Windows(rank, rank_scale, (), suit, suit_scale, ())

    def correlate(self, bank: _Templates, shifts: list[int] | None = None
                  ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """The correlations with every template's rank and suit rows, ``(shifts, cards)``
        each."""
        if shifts is None:
            return (_correlate(self.rank, bank.rank_t) * self.rank_scale[:, None],
                    _correlate(self.suit, bank.suit_t) * self.suit_scale[:, None])
        return ((self.rank[shifts] @ bank.rank_t) * self.rank_scale[shifts, None],
                (self.suit[shifts] @ bank.suit_t) * self.suit_scale[shifts, None])


def _part_windows(features: npt.NDArray[np.float32], width: int
                  ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], tuple[int, ...]]:
    """Every ``(height - 2 * SHIFT) x width`` window of ``(3, height, width + 2 * SHIFT)``
    features as rows, each row's normalising factor (see :class:`_Windows`), and the shape
    ``(3, h, w)`` of a window."""
    channels, rows, _ = features.shape
    height = rows - 2 * SHIFT
    windows = np.lib.stride_tricks.sliding_window_view(features, (height, width), axis=(1, 2))
    # (3, 2s+1, 2s+1, h, w) -> (shifts, 3, h * w)
    flat = windows.transpose(1, 2, 0, 3, 4).reshape(-1, channels, height * width)
    return flat.reshape(len(flat), -1), _scales(flat), (channels, height, width)


def _scales(flat: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """The normalising factor of each ``(channels, n)`` window of ``flat``."""
    size = flat.shape[2]
    sums = flat.sum(axis=2)
    squares = np.einsum("scn,scn->s", flat, flat)
    spread = squares - (sums * sums).sum(axis=1) / size
    # A window flatter than one grey level (root mean square) holds no index: kept small.
    return (1.0 / np.sqrt(np.maximum(spread, float(size)))).astype(np.float32)


def _coarse(rows: npt.NDArray[np.float32], shape: tuple[int, ...]
            ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Windows (rows of ``shape``) at every other pixel across and down, and their factors."""
    channels, height, width = shape
    grid = rows.reshape(len(rows), channels, height, width)[:, :, ::COARSE, ::COARSE]
    flat = grid.reshape(len(rows), channels, -1)
    return flat.reshape(len(rows), -1), _scales(flat)


def _correlate(windows: npt.NDArray[np.float32], templates_t: npt.NDArray[np.float32]
               ) -> npt.NDArray[np.float32]:
    """The product of every shifted window with every template: ``(shifts, 52)``."""
    return np.concatenate([windows[start:start + _BLOCK] @ templates_t
                           for start in range(0, windows.shape[0], _BLOCK)])


def _margin(scores: npt.NDArray[np.float32], best: int, others: npt.NDArray[np.bool_],
            similarity: npt.NDArray[np.float32]) -> float:
    """How far the patch lies from the runner-up towards the winner: 1.0 on the winner's
    template, 0.5 halfway, 0 (or less, clipped) at the runner-up."""
    candidates = np.flatnonzero(others)
    runner = int(candidates[np.argmax(scores[candidates])])
    # On the line between the two templates, scores differ by up to (1 - similarity). A
    # patch that fits its best template poorly (1 - score) is that far off the line, and
    # its margin means that much less.
    gap = max(1e-3, 1.0 - float(similarity[best, runner]), 1.0 - float(scores[best]))
    value = 0.5 + 0.5 * (float(scores[best]) - float(scores[runner])) / gap
    return float(np.clip(value, 0.0, 1.0))


def _detection(code: str | None, printed: Quad, score: float) -> Detection:
    return Detection(code, tuple((float(x), float(y)) for x, y in printed),
                     float(np.clip(score, 0.0, 1.0)))


def detection_quad(detection: Detection) -> npt.NDArray[np.float32]:
    """A detection's corners as a ``(4, 2)`` float32 array."""
    return np.asarray(detection.quad, dtype=np.float32).reshape(4, 2)


class _Pyramid:
    """An image and, made on demand, its halvings: a large card is read from a level where
    it is at most twice the template's size (linear resampling aliases beyond that)."""

    def __init__(self, image: Image) -> None:
        self._levels = [image]

    def level_for(self, ratio: float) -> tuple[Image, float]:
        """The image to sample a card ``ratio`` times the template's width, and its scale."""
        level = 0
        while ratio > 2.0 and level < 4:
            ratio /= 2.0
            level += 1
        while len(self._levels) <= level:
            self._levels.append(np.asarray(cv2.pyrDown(self._levels[-1]), dtype=np.uint8))
        return self._levels[level], 0.5 ** level


SAME_QUAD = 1.0
"""Pixels within which two guessed quads (every corner) are the same guess."""


def _distinct(guesses: list[Quad], tried: Quad) -> list[Quad]:
    """``guesses`` without those that are ``tried`` or an earlier guess again, corner for
    corner in any rotation (a guess snapped to the outline often lands back on the
    outline's own quad: the same read twice costs the board camera its frame rate)."""
    kept: list[Quad] = []
    for guess in guesses:
        if all(min(float(np.abs(np.roll(guess, k, axis=0) - other).max()) for k in range(4))
               >= SAME_QUAD for other in [tried, *kept]):
            kept.append(guess)
    return kept
