"""Clubs or spades: a second opinion, learnt from one deck's own club and spade indexes.

In a two-colour deck a club and a spade are both black, and both a round top on a stem: on a
small or blurred index their templates correlate almost as well with the patch (the only wrong
reads left on the development scenes were clubs read as spades and back). The template match
(:mod:`capture.camera.recognizer`) asks which card's template a patch looks most like; this
module asks the one question that matters there, club or spade, with weights chosen for it.

At calibration (:func:`learn_clubs_spades`) the suit rows of every club and every spade index
of the deck are resampled many times as a camera would show them: a pixel or so off, a few per
cent larger or smaller, out of focus or smeared by motion in any direction, seen from a small
card (few pixels, enlarged), under tinted light, with sensor noise. A regularised linear
discriminant (Fisher's, with the within-class scatter shrunk towards its mean variance) is fitted
to those features, normalised as the recogniser normalises a patch. Its weights are zero-mean
per channel, so on any patch window the recogniser's plain product with the weights, times the
window's normalising factor, is the discriminant of the normalised window: reading it costs one
more column of a product (:func:`clubs_spades`).

The value is scaled so that the jittered clubs average +1 and the spades -1; the recogniser
turns it into a third margin beside the rank's and the suit's (``docs/camera.md``): a card the
templates read as a club while this says spade, or that this cannot place, is unknown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from capture.camera.learnt import normalised

CLUBS, SPADES = 0, 3
"""Suit numbers (``engine.cards.SUITS``: clubs first, spades last)."""
SAMPLES = 40
"""Jittered views of each club and spade index (13 ranks x 2 suits x 40 = 1,040)."""
SHRINK = 0.15
"""Share of the within-class scatter replaced by its mean variance (regularisation)."""
SEED = 20261130
"""The jitter's random numbers are seeded: a deck calibrates the same every time."""


@dataclass(frozen=True, slots=True)
class Jitter:
    """How far each view is off a clear calibration image."""

    shift: float = 1.2
    """Largest offset of the index, in template pixels, across and down."""
    scale: float = 0.08
    """Largest relative error of the index's size (an outline a little large or small)."""
    blur: float = 3.0
    """Largest extra Gaussian sigma (a camera out of focus), template pixels."""
    streak: float = 11.0
    """Longest motion streak (a card moving), template pixels."""
    small: float = 0.3
    """Smallest share of the template's size at which the index is seen (a small card far
    from the camera, enlarged to the template's size)."""
    tint: float = 0.25
    """Largest change of each colour channel's gain (venue lights)."""
    noise: float = 4.0
    """Largest sensor noise (standard deviation, grey levels)."""
    turn: float = 0.0
    """Largest turn, in degrees, and (as a share) shear and change of shape of the index: a
    tilted camera, an outline's corner a little off (0: none, and no random numbers drawn)."""
    jpeg: tuple[int, int] | None = None
    """JPEG quality range the view is compressed at, as a camera's stream is (None: none)."""


def streak_kernel(length: float, angle: float, *, soften: float = 0.0,
                  ) -> npt.NDArray[np.float32]:
    """A motion-blur kernel: a line ``length`` pixels long at ``angle`` degrees, normalised,
    softened by a Gaussian of ``soften`` pixels if given (a camera's streak has no hard
    ends)."""
    size = int(np.ceil(length)) | 1
    middle = size // 2
    dx = np.cos(np.radians(angle)) * length / 2
    dy = np.sin(np.radians(angle)) * length / 2
    kernel: npt.NDArray[Any] = np.zeros((size, size), np.float32)
    cv2.line(kernel, (round(middle - dx), round(middle - dy)),
             (round(middle + dx), round(middle + dy)), 1.0, 1, cv2.LINE_AA)
    if soften > 0:
        kernel = cv2.GaussianBlur(kernel, (0, 0), soften)
    return np.asarray(kernel / max(float(kernel.sum()), 1e-6), dtype=np.float32)


def camera_views(patch: npt.NDArray[np.uint8], rng: np.random.Generator, count: int, *,
                 margin: int, jitter: Jitter = Jitter()) -> list[npt.NDArray[np.uint8]]:
    """``count`` views of a BGR index ``patch`` resampled ``margin`` pixels larger on every
    side than the template, as a camera might show it, each the template's size."""
    height, width = patch.shape[:2]
    out_w, out_h = width - 2 * margin, height - 2 * margin
    views: list[npt.NDArray[np.uint8]] = []
    for _ in range(count):
        scale = 1.0 + rng.uniform(-jitter.scale, jitter.scale)
        dx, dy = rng.uniform(-jitter.shift, jitter.shift, 2)
        # Output pixel (x, y) samples patch point margin + (x - cx) * scale + cx + d.
        cx, cy = out_w / 2.0, out_h / 2.0
        matrix = np.array([[scale, 0.0, margin + cx * (1 - scale) + dx],
                           [0.0, scale, margin + cy * (1 - scale) + dy]], dtype=np.float64)
        if jitter.turn > 0:
            angle = np.radians(rng.uniform(-jitter.turn, jitter.turn))
            shear, stretch = rng.uniform(-1.0, 1.0, 2) * np.radians(jitter.turn)
            linear = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
            linear = linear @ np.array([[1.0 + stretch, shear], [0.0, 1.0]]) * scale
            matrix[:, :2] = linear
            matrix[:, 2] = np.array([margin + cx + dx, margin + cy + dy]) - linear @ (cx, cy)
        view: npt.NDArray[Any] = cv2.warpAffine(
            patch, matrix, (out_w, out_h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        kind = rng.integers(3)
        if kind == 1:
            view = cv2.GaussianBlur(view, (0, 0), rng.uniform(0.3, jitter.blur))
        elif kind == 2:
            view = cv2.filter2D(view, -1, streak_kernel(rng.uniform(2.0, jitter.streak),
                                                  rng.uniform(0.0, 180.0)),
                                borderType=cv2.BORDER_REPLICATE)
        small: tuple[int, int] | None = None
        if rng.random() < 0.5:
            share = rng.uniform(jitter.small, 1.0)
            small = (max(3, round(out_w * share)), max(3, round(out_h * share)))
        if small is not None:
            view = cv2.resize(view, small, interpolation=cv2.INTER_AREA)
            if jitter.jpeg is None:
                view = cv2.resize(view, (out_w, out_h), interpolation=cv2.INTER_LINEAR)
        view = view * (1.0 + rng.uniform(-jitter.tint, jitter.tint, 3)).astype(np.float32)
        view = view + rng.normal(0.0, rng.uniform(0.0, jitter.noise), view.shape)
        done = np.clip(view, 0, 255).astype(np.uint8)
        if jitter.jpeg is not None:
            # Noise and compression at the size the camera saw, then enlarged.
            done = _jpeg(done, int(rng.integers(jitter.jpeg[0], jitter.jpeg[1] + 1)))
            if small is not None:
                done = np.asarray(cv2.resize(done, (out_w, out_h),
                                             interpolation=cv2.INTER_LINEAR), np.uint8)
        views.append(done)
    return views


def _jpeg(view: npt.NDArray[np.uint8], quality: int) -> npt.NDArray[np.uint8]:
    """``view`` compressed at JPEG ``quality`` and decoded again."""
    ok, data = cv2.imencode(".jpg", view, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), np.uint8) if ok else view


def learn_clubs_spades(clubs: npt.NDArray[np.float32], spades: npt.NDArray[np.float32],
                       ) -> tuple[npt.NDArray[np.float32], float]:
    """The discriminant's weights (the shape of one view, zero-mean per channel) and bias from
    ``(n, channels, h, w)`` normalisable features of club views and of spade views: clubs
    average +1, spades -1."""
    n_c, n_s = len(clubs), len(spades)
    x_c = normalised(clubs).astype(np.float64)
    x_s = normalised(spades).astype(np.float64)
    mean_c, mean_s = x_c.mean(axis=0), x_s.mean(axis=0)
    centred = np.concatenate([x_c - mean_c, x_s - mean_s])
    dims = centred.shape[1]
    if dims > len(centred):
        # Fewer views than dimensions: solve in the views' span (the same weights).
        gram = centred @ centred.T / len(centred)
        ridge = SHRINK * float(np.trace(gram)) / dims
        diff = mean_c - mean_s
        # (S + r I)^-1 d with S = C^T C / n: Woodbury through the n x n Gram matrix.
        inner = np.linalg.solve((1 - SHRINK) * gram + ridge * np.eye(len(centred)),
                                centred @ diff / len(centred))
        weights = (diff - (1 - SHRINK) * centred.T @ inner) / ridge
    else:
        scatter = centred.T @ centred / len(centred)
        ridge = SHRINK * float(np.trace(scatter)) / dims
        weights = np.linalg.solve((1 - SHRINK) * scatter + ridge * np.eye(dims),
                                  mean_c - mean_s)
    shape = clubs.shape[1:]
    grid = weights.reshape(shape[0], -1)
    grid = grid - grid.mean(axis=1, keepdims=True)
    weights = grid.reshape(-1)
    middle = float(weights @ (mean_c + mean_s)) / 2.0
    half = float(weights @ (mean_c - mean_s)) / 2.0
    if half <= 1e-9 or not n_c or not n_s:
        raise ValueError("clubs and spades cannot be told apart")
    return (weights / half).reshape(shape).astype(np.float32), -middle / half


def clubs_spades(windows: npt.NDArray[np.float32], scales: npt.NDArray[np.float32],
                 weights: npt.NDArray[np.float32], bias: float) -> npt.NDArray[np.float32]:
    """The discriminant of patch windows given as rows and their normalising factors (as the
    recogniser keeps them): > 0 leans club, < 0 spade, +-1 as sure as the average view."""
    return np.asarray((windows @ weights.reshape(-1)) * scales + bias, dtype=np.float32)
