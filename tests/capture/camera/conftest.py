"""Shared helpers for the camera tests: cards the project renders, laid on felt.

Scenes here are deliberately simple (flat felt, known corners) so that a failing test points
at one step; the realistic scenes and the precision/recall figures are the evaluation's
(``capture/camera/synth.py``, ``feltcast camera eval``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from pathlib import Path

import cv2
import numpy as np
import pytest

from capture.camera.cardart import DEFAULT_STYLE, STYLES, CardStyle, card_mask, render_card
from capture.camera.deck import CameraDeck
from engine.cards import Card

FELT = (40, 105, 30)
"""BGR of the test felt (green)."""

Point = tuple[float, float]


def felt(width: int = 1280, height: int = 720, *, seed: int = 0) -> np.ndarray:
    """A green felt with a little deterministic grain."""
    rng = np.random.default_rng(seed)
    image = np.empty((height, width, 3), np.uint8)
    image[:] = FELT
    grain = rng.normal(0, 3, (height, width, 1))
    return np.clip(image.astype(np.float32) + grain, 0, 255).astype(np.uint8)


def card_corners(center: Point, width: float, angle: float = 0.0) -> np.ndarray:
    """The printed corners (TL, TR, BR, BL) of a card ``width`` px wide centred at ``center``,
    turned ``angle`` degrees clockwise on screen."""
    height = width * 3.5 / 2.5
    local = np.array([[-width / 2, -height / 2], [width / 2, -height / 2],
                      [width / 2, height / 2], [-width / 2, height / 2]])
    a = math.radians(angle)
    rotation = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return np.asarray(local @ rotation.T + np.array(center), dtype=np.float32)


def place(canvas: np.ndarray, card: Card | None, corners: np.ndarray,
          style: CardStyle = DEFAULT_STYLE, *, face: np.ndarray | None = None) -> np.ndarray:
    """Draw ``card`` (``None``: a plain red back; ``face``: that image of it, the style's
    shape) with its printed corners at ``corners``."""
    if face is None:
        face = render_card(card, style) if card is not None else _back()
    height, width = face.shape[:2]
    source = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(source, np.asarray(corners, dtype=np.float32))
    size = (canvas.shape[1], canvas.shape[0])
    warped = cv2.warpPerspective(face, matrix, size, flags=cv2.INTER_AREA)
    alpha = cv2.warpPerspective(card_mask(style, width=width), matrix, size,
                                flags=cv2.INTER_LINEAR)[:, :, None]
    blended = canvas * (1 - alpha) + warped * alpha
    canvas[:] = np.clip(np.rint(blended), 0, 255).astype(np.uint8)
    return canvas


def _back() -> np.ndarray:
    back = np.empty((350, 250, 3), np.uint8)
    back[:] = (40, 40, 170)
    cv2.rectangle(back, (12, 12), (237, 337), (235, 235, 235), 6)
    for x in range(20, 240, 16):
        cv2.line(back, (x, 20), (x, 330), (60, 60, 200), 3)
    return back


def scene(cards: Iterable[tuple[Card | None, Point, float, float]], *,
          size: tuple[int, int] = (1280, 720), style: CardStyle = DEFAULT_STYLE
          ) -> tuple[np.ndarray, list[np.ndarray]]:
    """Felt with ``(card, centre, width, angle)`` laid on it; the image and each card's
    printed corners."""
    image = felt(*size)
    corners = []
    for card, center, width, angle in cards:
        quad = card_corners(center, width, angle)
        place(image, card, quad, style)
        corners.append(quad)
    return image, corners


def same_corners(found: Sequence[Sequence[float]], truth: np.ndarray, tolerance: float) -> bool:
    """``found`` is ``truth`` in printed order, every corner within ``tolerance`` px."""
    return bool(np.abs(np.asarray(found, dtype=np.float32) - truth).max() <= tolerance)


def same_card_corners(found: Sequence[Sequence[float]], truth: np.ndarray,
                      tolerance: float) -> bool:
    """``found`` is ``truth`` or ``truth`` turned half a circle (a card's index corners look
    alike, so both are the printed order)."""
    return (same_corners(found, truth, tolerance)
            or same_corners(found, np.roll(truth, 2, axis=0), tolerance))


def write_video(path: Path, frames: Sequence[np.ndarray], fps: float = 10.0) -> Path:
    """An MJPEG ``.avi`` of ``frames`` (what a capture card or an IP camera delivers)."""
    height, width = frames[0].shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (width, height))
    assert writer.isOpened(), "OpenCV cannot write MJPEG here"
    for frame in frames:
        writer.write(frame)
    writer.release()
    return path


@pytest.fixture(scope="session")
def default_deck() -> CameraDeck:
    return CameraDeck.default()


@functools.cache
def calibrated(style_name: str) -> CameraDeck:
    """The deck learnt from one clean render of each card of a development style, once for
    the whole session: a calibration takes seconds of CPU, and a deck is immutable."""
    from capture.camera.evaluate import calibrate_style

    return calibrate_style(STYLES[style_name])


def wearing_index_of(face: np.ndarray, donor: np.ndarray, style: CardStyle) -> np.ndarray:
    """``face`` with ``donor``'s index in both corners (a deck whose two cards differ only
    away from their indexes, as a heavy serif 5 and 6 nearly do)."""
    from capture.camera.cardart import index_box

    out = face.copy()
    x, y, w, h = index_box(style, width=face.shape[1])
    height, width = face.shape[:2]
    out[y:y + h, x:x + w] = donor[y:y + h, x:x + w]
    out[height - y - h:height - y, width - x - w:width - x] = \
        donor[height - y - h:height - y, width - x - w:width - x]
    return out

