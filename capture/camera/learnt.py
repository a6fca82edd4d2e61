"""The deck's own index reader, learnt at calibration: which rank, which suit.

The templates (:mod:`capture.camera.recognizer`) ask which card's clear index a patch looks
most like, and how well it fits it. A real deck's thin or small index, blurred, small and
compressed by a camera, fits its own template far less well than a bold one does, while a
look-alike fits it almost as well; so a fixed rule for "fits well enough" is either too strict
for a thin index or too loose for a bold one. This module asks the question the way the deck
itself answers it: at calibration (:func:`learn_index`) every card's index is resampled many
times as a camera might show it (:func:`.suitcheck.camera_views`: a pixel or so off, larger or
smaller, turned and sheared a little as a tilted camera shows it, out of focus or smeared by
motion, seen small, under tinted light, with sensor noise and JPEG compression; seeded), and a
linear discriminant of the 13 ranks (on the rank rows) and one of the 4 suits (on the suit
rows) is fitted to those views: Fisher's, the within-class scatter shrunk towards its mean
variance (:data:`SHRINK`), the features normalised as the recogniser normalises a patch.

The weights are zero-mean per channel, so on any patch window the plain product with them,
times the window's normalising factor, is the discriminant of the normalised window: reading
it costs one more product of 17 columns (:meth:`Discriminant.values`).

A read's *lean* (:meth:`Discriminant.lean`) is how far the patch lies from the boundary with
the nearest other class, towards the class the templates chose, in units of the calibration
views: +1 on the average view of that class, 0 on the boundary, -1 on the average view of the
other class. The recogniser turns the rank's and the suit's leans into two more margins: the
templates and the deck's own discriminants must agree, else the card is unknown.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

SHRINK = 0.15
"""Share of the within-class scatter replaced by its mean variance (regularisation)."""
SAMPLES = 40
"""Camera views of each card's index (52 x 40 = 2,080)."""
SEED = 20261207
"""The views' random numbers are seeded: a deck calibrates the same every time."""


@dataclass(frozen=True, slots=True, eq=False)
class Discriminant:
    """A linear discriminant of ``k`` classes on ``(channels, h, w)`` normalised features."""

    weights: npt.NDArray[np.float32]
    """``(k, channels, h, w)``, zero-mean per channel."""
    bias: npt.NDArray[np.float32]
    """``(k,)``."""
    half: npt.NDArray[np.float32]
    """``(k, k)``: half the squared Mahalanobis distance of two classes' means (the value
    of one class's discriminant over the other's on its own average view); 1 on the
    diagonal."""

    def __post_init__(self) -> None:
        k = self.weights.shape[0]
        if self.weights.ndim != 4 or self.bias.shape != (k,) or self.half.shape != (k, k):
            raise ValueError(f"a discriminant needs (k, c, h, w) weights, (k,) bias and (k, k) "
                             f"distances; got {self.weights.shape}, {self.bias.shape}, "
                             f"{self.half.shape}")

    @property
    def classes(self) -> int:
        return int(self.weights.shape[0])

    def columns(self) -> npt.NDArray[np.float32]:
        """The weights as ``(features, k)`` columns for a product with window rows."""
        return np.ascontiguousarray(self.weights.reshape(self.classes, -1).T)

    def values(self, rows: npt.NDArray[np.float32], scales: npt.NDArray[np.float32],
               columns: npt.NDArray[np.float32] | None = None) -> npt.NDArray[np.float32]:
        """``(n, k)`` discriminant values of window ``rows`` ``(n, features)`` whose
        normalising factors are ``scales`` (as the recogniser keeps them)."""
        matrix = self.columns() if columns is None else columns
        return np.asarray((rows @ matrix) * scales[:, None] + self.bias[None, :], np.float32)

    def lean(self, values: npt.NDArray[np.float32], chosen: int) -> float:
        """How far ``values`` (one read's ``(k,)``) lie towards ``chosen`` from the nearest
        boundary with another class: +1 on ``chosen``'s average calibration view, 0 on the
        boundary, below 0 on another class's side."""
        others = np.arange(self.classes) != chosen
        ratios = (values[chosen] - values[others]) / self.half[chosen, others]
        return float(ratios.min())


def learn_discriminant(features: npt.NDArray[np.float32], labels: npt.NDArray[np.int_],
                       classes: int) -> Discriminant:
    """A :class:`Discriminant` of ``classes`` classes from ``(n, channels, h, w)`` features
    (made zero-mean per channel and unit length here, as the recogniser normalises a patch)
    and their labels ``0 .. classes - 1``.

    :raises ValueError: a class has no views, or two classes' views average the same.
    """
    n, channels = features.shape[:2]
    x = normalised(features).astype(np.float64)
    counts = np.bincount(labels, minlength=classes)
    if len(counts) != classes or (counts == 0).any():
        raise ValueError("every class needs views")
    means = np.stack([x[labels == c].mean(axis=0) for c in range(classes)])
    centred = x - means[labels]
    dims = x.shape[1]
    if dims > n:
        # Fewer views than dimensions: solve in the views' span (Woodbury; the same weights).
        gram = centred @ centred.T / n
        ridge = max(SHRINK * float(np.trace(gram)) / dims, 1e-9)
        inner = np.linalg.solve((1 - SHRINK) * gram + ridge * np.eye(n), centred @ means.T / n)
        solved = (means.T - (1 - SHRINK) * centred.T @ inner) / ridge
    else:
        scatter = centred.T @ centred / n
        ridge = max(SHRINK * float(np.trace(scatter)) / dims, 1e-9)
        solved = np.linalg.solve((1 - SHRINK) * scatter + ridge * np.eye(dims), means.T)
    weights = solved.T.reshape(classes, channels, -1)
    weights = weights - weights.mean(axis=2, keepdims=True)
    weights = weights.reshape(classes, -1)
    bias = -0.5 * np.einsum("kd,kd->k", weights, means)
    # g_c - g_o on class c's average view: half the squared Mahalanobis distance.
    own = np.einsum("kd,kd->k", weights, means) + bias
    cross = means @ weights.T + bias[None, :]  # [c, o]: g_o on class c's mean
    half = own[:, None] - cross
    np.fill_diagonal(half, 1.0)
    if (half <= 1e-9).any():
        raise ValueError("two classes cannot be told apart")
    return Discriminant(weights.reshape(classes, *features.shape[1:]).astype(np.float32),
                        bias.astype(np.float32), half.astype(np.float32))


def normalised(features: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """``(n, channels, ...)`` features as rows, zero-mean per channel and unit length."""
    n, channels = features.shape[:2]
    flat = features.reshape(n, channels, -1).astype(np.float32)
    flat = flat - flat.mean(axis=2, keepdims=True)
    flat = flat.reshape(n, -1)
    return np.asarray(flat / np.maximum(np.linalg.norm(flat, axis=1, keepdims=True), 1e-3),
                      dtype=np.float32)


@dataclass(frozen=True, slots=True, eq=False)
class LearntIndex:
    """The deck's rank and suit discriminants (:func:`learn_index`)."""

    rank: Discriminant
    """On the rank rows: 13 classes, ``engine.cards`` rank order (2 first)."""
    suit: Discriminant
    """On the suit rows: 4 classes, ``engine.cards`` suit order (clubs first)."""
