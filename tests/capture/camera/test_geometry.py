"""Card outlines: found where the cards lie, corners in the printed card's order."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from capture.camera.cardart import DEFAULT_STYLE, render_card
from capture.camera.geometry import (
    CARD_ASPECT,
    anchored_cards,
    clockwise,
    find_card_quads,
    grow,
    nudged,
    parallelograms,
    portrait_orders,
    quad_area,
    quad_iou,
    rectify,
    side_lengths,
)
from engine.cards import Card

from .conftest import card_corners, felt, same_card_corners, scene


def test_a_card_on_felt_is_found_to_within_four_pixels() -> None:
    image, (truth,) = scene([(Card("Ah"), (400, 300), 160, 12)])
    (quad,) = find_card_quads(image)
    assert same_card_corners(quad, truth, 4.0)  # a dark printed border may be left out


def test_felt_alone_and_a_blank_frame_hold_no_card() -> None:
    assert find_card_quads(felt()) == []
    assert find_card_quads(np.full((480, 640, 3), 255, np.uint8)) == []


def test_cards_lying_side_by_side_are_two_cards_not_one() -> None:
    # Touching along a long side: together they are card-shaped (2 x 2.5 : 3.5 is about 1.4).
    image, truths = scene([(Card("9c"), (500, 360), 150, 0), (Card("4h"), (650, 360), 150, 0)])
    quads = find_card_quads(image)
    assert len(quads) == 2
    for truth in truths:
        assert max(quad_iou(q, truth) for q in quads) > 0.9


def test_small_specks_and_long_strips_are_not_cards() -> None:
    image = felt()
    image[100:110, 100:112] = 250  # a reflection
    image[300:320, 200:700] = 250  # a strip of paper
    assert find_card_quads(image) == []


@settings(max_examples=25)
@given(angle=st.floats(-180, 180), x=st.integers(250, 1030), y=st.integers(240, 480),
       width=st.integers(110, 200))
def test_quad_order_is_printed_order_under_any_rotation(angle: float, x: int, y: int,
                                                        width: int) -> None:
    """Clockwise from the printed top-left (or its half-turn: the index corners look alike),
    the first side a short side, whatever the card's rotation."""
    image, (truth,) = scene([(Card("Qs"), (x, y), width, angle)])
    (quad,) = find_card_quads(image)
    assert same_card_corners(quad, truth, 4.0)
    sides = side_lengths(quad)
    assert sides[0] < sides[1] and sides[2] < sides[3]
    # Clockwise on screen (y down): positive signed area in image coordinates.
    xs, ys = quad[:, 0], quad[:, 1]
    assert float(np.dot(xs, np.roll(ys, -1)) - np.dot(ys, np.roll(xs, -1))) > 0


def test_clockwise_orders_any_permutation_from_the_top_left() -> None:
    square = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], dtype=np.float32)
    for permutation in ([2, 0, 3, 1], [3, 2, 1, 0], [1, 3, 0, 2]):
        assert np.array_equal(clockwise(square[permutation]), square)


def test_portrait_orders_are_the_quad_and_its_half_turn() -> None:
    quad = card_corners((100, 100), 50, 0)
    same, turned = portrait_orders(quad)
    assert np.array_equal(same, quad)
    assert np.array_equal(turned, quad[[2, 3, 0, 1]])


def test_grow_moves_every_side_outwards_by_the_distance() -> None:
    quad = np.array([[10, 10], [30, 10], [30, 40], [10, 40]], dtype=np.float32)
    grown = grow(quad, 2.0)
    assert np.allclose(grown, [[8, 8], [32, 8], [32, 42], [8, 42]])
    assert quad_area(grown) == 24 * 34


def test_iou_of_a_quad_with_itself_with_its_half_and_with_a_far_one() -> None:
    quad = card_corners((100, 100), 50)
    assert quad_iou(quad, quad) == 1.0
    half = quad.copy()
    half[1:3, 0] = 100  # the left half of the card
    assert abs(quad_iou(quad, half) - 0.5) < 0.01
    assert quad_iou(quad, card_corners((500, 500), 50)) == 0.0


def test_rectify_brings_a_turned_card_back_upright() -> None:
    image, (truth,) = scene([(Card("Kd"), (500, 350), 200, 33)])
    upright = rectify(image, truth, 250)
    assert upright.shape == (round(250 * CARD_ASPECT), 250, 3)
    original = render_card(Card("Kd"), DEFAULT_STYLE).astype(np.float32)
    # Inside the card (away from the rounded corners), the two agree to a few grey levels.
    inner = (slice(30, 320), slice(30, 220))
    assert float(np.abs(upright[inner].astype(np.float32) - original[inner]).mean()) < 12


def test_parallelograms_put_back_the_one_wrong_corner_of_a_card_outline() -> None:
    card = np.array([[100, 50], [200, 60], [186, 199], [86, 189]], dtype=np.float32)
    for wrong in range(4):
        outline = card.copy()
        outline[wrong] += (22.0, 9.0)  # the cut inside a fanned pair moved this corner
        guesses = parallelograms(outline)
        assert any(np.abs(guess - card).max() < 1e-3 for guess in guesses)
        assert all(len(guess) == 4 and 1.2 <= side_lengths(guess)[1] / side_lengths(guess)[0]
                   <= 1.65 for guess in guesses)


def test_a_true_parallelogram_has_no_other_guess_and_a_sliver_gives_none() -> None:
    card = np.array([[100, 50], [200, 60], [186, 199], [86, 189]], dtype=np.float32)
    assert parallelograms(card) == []
    sliver = np.array([[0, 0], [30, 0], [35, 140], [0, 140]], dtype=np.float32)
    assert parallelograms(sliver) == []


def test_anchored_cards_rebuild_a_card_from_its_one_right_side() -> None:
    card = np.array([[100, 50], [200, 50], [200, 190], [100, 190]], dtype=np.float32)
    # A chip over the card's lower half: only the top side of the outline is right.
    outline = np.array([[100, 50], [200, 50], [188, 150], [108, 140]], dtype=np.float32)
    guesses = anchored_cards(outline)
    assert any(np.abs(guess - card).max() < 1e-3 for guess in guesses)
    for guess in guesses:
        sides = side_lengths(guess)
        assert sides[0] < sides[1]  # a short side first, like every quad of the module
        assert abs(sides[1] / sides[0] - CARD_ASPECT) < 1e-3
    assert anchored_cards(card) == []  # a whole card outline suggests nothing else


def test_nudged_guesses_keep_the_card_where_it_is_and_its_corner_order() -> None:
    card = np.array([[100, 50], [200, 60], [186, 199], [86, 189]], dtype=np.float32)
    guesses = nudged(card)
    assert len(guesses) >= 4
    for guess in guesses:
        assert np.allclose(guess.mean(axis=0), card.mean(axis=0), atol=1e-3)
        assert 0.0 < float(np.abs(guess - card).max()) < 12.0
        assert quad_iou(guess, card) > 0.85
        assert side_lengths(guess)[0] < side_lengths(guess)[1]
