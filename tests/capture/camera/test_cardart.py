"""The project's own card art (capture/camera/cardart.py): every style draws 52 distinct,
correctly sized, deterministic faces with the index in the corners the contract names."""

from __future__ import annotations

import hashlib

import cv2
import numpy as np
import pytest

from capture.camera.cardart import (
    DEFAULT_STYLE,
    DEV_STYLES,
    EVALUATION_ONLY,
    HELDOUT_STYLES,
    STYLES,
    WIDE_STYLES,
    CardStyle,
    card_height,
    card_mask,
    card_stock,
    index_box,
    render_card,
)
from engine.cards import FULL_DECK, Card


def test_style_sets_partition_the_styles() -> None:
    assert len(STYLES) >= 6
    assert set(DEV_STYLES).isdisjoint(EVALUATION_ONLY)
    assert set(HELDOUT_STYLES).isdisjoint(WIDE_STYLES)
    assert EVALUATION_ONLY == HELDOUT_STYLES + WIDE_STYLES
    assert set(DEV_STYLES) | set(EVALUATION_ONLY) == set(STYLES)
    assert DEFAULT_STYLE.name in DEV_STYLES
    assert len(HELDOUT_STYLES) >= 3
    # Held-out decks must differ from the development ones in more than the name: at least
    # one font and one two-/four-colour deck the recogniser was never tuned on.
    dev_fonts = {STYLES[name].font for name in DEV_STYLES}
    assert any(STYLES[name].font not in dev_fonts for name in HELDOUT_STYLES)
    assert {STYLES[name].four_colour for name in HELDOUT_STYLES} == {True, False}


@pytest.mark.parametrize("name", sorted(STYLES))
def test_fifty_two_distinct_faces_and_index_corners(name: str) -> None:
    """52 different faces, and what a recogniser reads (the top-left index) alone tells the
    52 cards apart."""
    style = STYLES[name]
    x, y, w, h = index_box(style, width=140)
    digests = set()
    corners = []
    for card in FULL_DECK:
        image = render_card(card, style, width=140)
        assert image.dtype == np.uint8 and image.shape == (196, 140, 3)
        digests.add(hashlib.sha256(image.tobytes()).hexdigest())
        corners.append(image[y:y + h, x:x + w].astype(np.int16))
    assert len(digests) == 52
    for i, a in enumerate(corners):
        for b in corners[i + 1:]:
            assert np.abs(a - b).mean() > 2.0


@pytest.mark.parametrize("width", [40, 101, 250, 333])
def test_size_follows_the_poker_aspect(width: int) -> None:
    image = render_card(Card("Qs"), DEFAULT_STYLE, width=width)
    assert image.shape == (round(width * 3.5 / 2.5), width, 3) == (card_height(width), width, 3)
    assert card_mask(DEFAULT_STYLE, width=width).shape == image.shape[:2]


def test_too_small_is_refused() -> None:
    with pytest.raises(ValueError, match="too small"):
        render_card(Card("2c"), DEFAULT_STYLE, width=39)


def test_deterministic_and_not_shared() -> None:
    first = render_card(Card("7d"), STYLES["jumbo-4c"])
    first[:] = 0  # the caller owns its copy: scribbling on it changes no later render
    again = render_card(Card("7d"), STYLES["jumbo-4c"])
    assert again.any()
    assert np.array_equal(again, render_card(Card("7d"), STYLES["jumbo-4c"]))


@pytest.mark.parametrize("name", sorted(STYLES))
def test_index_in_top_left_and_bottom_right(name: str) -> None:
    """The bottom-right index is the top-left one turned half a circle, in the suit's ink."""
    style = STYLES[name]
    card = Card("Kh")
    image = render_card(card, style)
    x, y, w, h = index_box(style)
    top_left = image[y:y + h, x:x + w].astype(np.int16)
    bottom_right = image[::-1, ::-1][y:y + h, x:x + w].astype(np.int16)
    assert np.abs(top_left - bottom_right).mean() < 3.0
    # The index has ink of the suit's colour (hearts) and nothing of another suit's.
    ink = np.asarray(style.suit_colours[2], np.int16)
    distance = np.abs(top_left - ink).sum(axis=2)
    assert (distance < 60).sum() > 0.05 * w * h
    # And it lies inside the box: the box's outer rows/columns hold only card stock.
    x0, y0 = x + w, y + h
    outside = image[y0:y0 + 4, x:x0].astype(np.int16)
    stock = card_stock(style)[y0:y0 + 4, x:x0].astype(np.int16)
    assert np.abs(outside - stock).max() < 40


def test_four_corner_layout_prints_all_four_indexes() -> None:
    four = [STYLES[name] for name in STYLES if STYLES[name].corner_layout == "four"]
    diagonal = [STYLES[name] for name in STYLES if STYLES[name].corner_layout == "diagonal"]
    assert four and diagonal
    for style in four + diagonal:
        image = render_card(Card("Ad"), style)
        x, y, w, h = index_box(style)
        top_left = image[y:y + h, x:x + w].astype(np.int16)
        top_right = image[:, ::-1][y:y + h, x:x + w][:, ::-1].astype(np.int16)
        stock = card_stock(style)[:, ::-1][y:y + h, x:x + w][:, ::-1].astype(np.int16)
        ink = np.abs(top_right - stock).max()
        if style.corner_layout == "four":  # top-right reads like top-left (not mirrored)
            shift = _best_shift(top_left, top_right)
            assert shift < 12.0, style.name
        else:
            assert ink < 40, style.name


def _best_shift(a: np.ndarray, b: np.ndarray) -> float:
    """Mean difference of ``a`` and ``b`` at the best small horizontal shift (the right-hand
    index sits against the right edge, the left one against the left)."""
    gray_a = cv2.cvtColor(a.astype(np.uint8), cv2.COLOR_BGR2GRAY).astype(np.float32)
    gray_b = cv2.cvtColor(b.astype(np.uint8), cv2.COLOR_BGR2GRAY).astype(np.float32)
    width = gray_a.shape[1]
    best = float("inf")
    for dx in range(-8, 9):
        lo, hi = max(0, dx), min(width, width + dx)
        diff = np.abs(gray_a[:, lo:hi] - gray_b[:, lo - dx:hi - dx]).mean()
        best = min(best, float(diff))
    return best


def test_mask_is_the_rounded_card() -> None:
    mask = card_mask(DEFAULT_STYLE, width=250)
    assert mask.dtype == np.float32
    assert mask[0, 0] == 0.0 and mask[175, 125] == 1.0 and mask[0, 125] > 0.4
    assert mask.min() >= 0.0 and mask.max() <= 1.0


def test_unknown_font_file_is_a_clear_error() -> None:
    style = CardStyle(name="x", font="NoSuch.otf", stroke=600, index_scale=0.15,
                      suit_colours=DEFAULT_STYLE.suit_colours, background=(255, 255, 255),
                      border=(0, 0, 0), border_width=0.0, corner_radius=0.05)
    with pytest.raises(ValueError, match=r"NoSuch\.otf"):
        render_card(Card("As"), style)


def test_a_graded_face_darkens_away_from_the_centre() -> None:
    """``shade``: the card stock darker with the distance from the centre (a real deck's
    graded face), alike at both ends; the flat styles untouched."""
    style = STYLES["thin-graded"]
    graded = render_card(Card("2c"), style).astype(float)
    height, width = graded.shape[:2]
    centre, corner = graded[height // 2, width // 4], graded[height - 6, width - 30]
    assert centre.mean() > corner.mean() + 0.15 * np.mean(style.background)
    assert abs(graded[6, 30].mean() - corner.mean()) < 3  # the two ends alike
    flat = render_card(Card("2c"), STYLES["feltcast"]).astype(float)
    assert abs(flat[height // 2, width // 4].mean() - flat[height - 6, width - 30].mean()) < 2
