"""Card outlines the simple search gets wrong: a light object over a card's edge, fanned
pairs (issue 8, recall)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from capture.camera.cardart import DEFAULT_STYLE, STYLES
from capture.camera.evaluate import quad_iou
from capture.camera.geometry import find_card_outlines, find_card_quads
from capture.camera.recognizer import Recognizer
from capture.camera.synth import CardTruth, Placement, generate_scene, render_table
from engine.cards import Card

from .conftest import calibrated, same_card_corners, scene

_FINGERTIP = (138, 170, 222)
"""BGR of a light fingertip: brighter than felt in every channel, darker than card stock."""


def _pale_bar(image: np.ndarray, start: tuple[float, float], end: tuple[float, float],
              thickness: int, colour: tuple[int, ...]) -> None:
    """A pale rounded bar (a light fingertip, a sleeve) from ``start`` to ``end``: bright
    enough to join the card's outline."""
    cv2.line(image, (round(start[0]), round(start[1])), (round(end[0]), round(end[1])),
             colour, thickness, cv2.LINE_AA)


@settings(max_examples=12, deadline=None)
@given(angle=st.floats(-30, 30), side=st.sampled_from(["left", "right", "top", "bottom"]),
       along=st.floats(0.3, 0.7))
def test_a_pale_bar_reaching_over_a_card_edge_leaves_the_card_outline_alone(
        angle: float, side: str, along: float) -> None:
    width = 150.0
    image, (truth,) = scene([(Card("7c"), (640, 360), width, angle)])
    tl, tr, br, bl = truth.astype(np.float64)
    a, b = {"left": (tl, bl), "right": (tr, br), "top": (tl, tr), "bottom": (bl, br)}[side]
    on_edge = a + along * (b - a)
    centre = truth.mean(axis=0)
    outward = (on_edge - centre) / np.linalg.norm(on_edge - centre)
    # Half on the card, half sticking out over the felt, 14 % of the card wide.
    _pale_bar(image, tuple(on_edge - 0.3 * width * outward),
              tuple(on_edge + 0.35 * width * outward), round(0.14 * width), _FINGERTIP)
    quads = find_card_quads(image)
    assert len(quads) == 1
    assert same_card_corners(quads[0].tolist(), truth, 4.0)


@pytest.mark.parametrize(("angle", "x", "y", "width"), [
    (0.0, 250, 243, 125), (-88.5, 250, 257, 181), (90.0, 640, 360, 150),
    (1.0, 500, 300, 200), (179.5, 800, 400, 110)])
def test_a_card_square_to_the_image_axes_is_fitted_to_its_whole_side(
        angle: float, x: int, y: int, width: int) -> None:
    """A side close to the image axes runs beside the outline's pixel rows, not across
    them: its fit must still find the card's edge, not the polygon's corner cut inside the
    card's rounded corner (both cases were 4.4-5 px off)."""
    image, (truth,) = scene([(Card("Qs"), (x, y), width, angle)])
    (quad,) = find_card_quads(image)
    assert same_card_corners(quad.tolist(), truth, 3.0)


def test_a_guess_snaps_to_the_sides_of_its_blob_and_keeps_its_corner_order() -> None:
    width = 150.0
    image, (truth,) = scene([(Card("Jd"), (640, 360), width, 17.0)])
    (outline,) = find_card_outlines(image)
    turned = np.roll(truth, 2, axis=0)  # any fixed corner order is kept
    for corners in (truth, turned):
        # Every corner 6 px off, the whole card turned a little: a guess near the card.
        guess = np.asarray(corners + np.array([[6, -5], [5, 6], [-6, 5], [-5, -6]]),
                           dtype=np.float32)
        snapped = outline.snap(guess)
        assert float(np.abs(snapped - corners).max()) < 3.0


def test_snap_leaves_a_side_that_runs_across_the_blob_where_it_is() -> None:
    """The side where a guessed card ends under another lies inside the blob: nothing to
    fit it to, so it stays (the card's other three sides still snap)."""
    width = 150.0
    image, truths = scene([(Card("3s"), (560, 360), width, 0.0),
                           (Card("9h"), (560 + 0.7 * width, 360), width, 0.0)])
    outlines = find_card_outlines(image)
    assert outlines
    under = truths[0]
    guess = np.asarray(under + np.array([[-4, -4], [0, -4], [0, 4], [-4, 4]]), np.float32)
    snapped = outlines[0].snap(guess)
    # Left, top and bottom sides come onto the card's; the right side (under the 9h) stays.
    assert abs(float(snapped[0, 0]) - float(under[0, 0])) < 2.5
    assert abs(float(snapped[0, 1]) - float(under[0, 1])) < 2.5
    assert abs(float(snapped[3, 1]) - float(under[3, 1])) < 2.5
    assert abs(float(snapped[1, 0]) - float(guess[1, 0])) < 1.0


def _fanned_pair(width: float, step: float, angle: float, turns: tuple[float, float],
                 seed: int = 0) -> tuple[np.ndarray, tuple[CardTruth, ...]]:
    """Two hole cards the way a player leaves them: the second over the first's right
    side, ``step`` card widths further along, each turned a little on its own."""
    theta = math.radians(angle)
    placements = [Placement(card, (960 + k * step * width * math.cos(theta),
                                   540 + k * step * width * math.sin(theta)),
                            width, angle + turn, "hole")
                  for card, k, turn in zip((Card("Kd"), Card("7s")), (-0.5, 0.5), turns,
                                           strict=True)]
    return render_table((1920, 1080), placements, DEFAULT_STYLE, seed=seed)


@settings(max_examples=10, deadline=None)
@given(width=st.floats(120, 190), step=st.floats(0.62, 0.9),
       angle=st.floats(-40, 40) | st.floats(140, 220),
       turns=st.tuples(st.floats(-3, 3), st.floats(-3, 3)))
def test_the_ends_of_a_fanned_pairs_blob_are_its_two_cards(
        width: float, step: float, angle: float, turns: tuple[float, float]) -> None:
    image, truths = _fanned_pair(width, step, angle, turns)
    outlines = find_card_outlines(image)
    assert outlines
    ends = outlines[0].ends()
    assert len(ends) == 2
    for truth in truths:
        corners = np.asarray(truth.quad, np.float32)
        assert any(same_card_corners(end.tolist(), corners, 0.05 * width) for end in ends)


def test_a_card_alone_in_its_blob_does_not_share_it() -> None:
    image, _ = scene([(Card("Qs"), (640, 360), 150, 25.0)])
    (outline,) = find_card_outlines(image)
    assert not outline.shared()


@pytest.mark.parametrize(("seed", "size", "code"), [
    (18, (1920, 1080), "6s"),  # the top card of a fanned pair
    (7, (1280, 720), "Ad"),  # a board card joined to the next by a pale chip
])
def test_a_card_whose_outline_the_cut_got_wrong_is_read_at_its_blobs_end(
        seed: int, size: tuple[int, int], code: str) -> None:
    """Development scenes (feltcast) where the edge cut inside a blob of several cards gave
    a card an outline that reads as nothing: the blob's end is the card (and, for the
    board card, each card of a row lies at its own angle: the end's sides must turn to the
    card's)."""
    scene_ = generate_scene(STYLES["feltcast"], seed, size=size)
    recognizer = Recognizer(calibrated("feltcast"))
    detections = recognizer.detect(scene_.image)
    (card,) = [t for t in scene_.truths if t.code == code]
    assert any(d.code == code and quad_iou(d.quad, card.quad) >= 0.8 for d in detections)
    named = [d.code for d in detections if d.code is not None]
    assert len(named) == len(set(named))  # no card named twice
    for d in detections:
        if d.code is not None:
            assert any(t.code == d.code and quad_iou(d.quad, t.quad) >= 0.5
                       for t in scene_.truths)


@pytest.mark.parametrize("turns", [(-4.0, 4.0), (3.0, -2.0), (0.0, 5.0)])
def test_the_ends_of_two_board_cards_joined_by_a_chip_are_the_cards(
        turns: tuple[float, float]) -> None:
    """Each card of a row lies at its own angle, a few degrees off the row's rectangle,
    and the chip between them bulges the outline: the ends still land on the cards."""
    width = 110.0
    image, truths = scene([(Card("8s"), (560, 360), width, turns[0]),
                           (Card("Ad"), (560 + 1.16 * width, 360), width, turns[1])])
    cv2.circle(image, (round(560 + 0.58 * width), 360), round(0.2 * width), (236, 236, 232),
               -1, cv2.LINE_AA)
    outlines = find_card_outlines(image)
    assert outlines
    ends = outlines[0].ends()  # the blob of both cards and the chip
    for truth in truths:
        assert any(same_card_corners(end.tolist(), truth, 0.04 * width) for end in ends)


def test_guesses_that_repeat_the_outline_or_each_other_are_read_once() -> None:
    from capture.camera.recognizer import _distinct

    quad = np.array([[100, 100], [200, 100], [200, 240], [100, 240]], np.float32)
    again = np.roll(quad, 1, axis=0) + np.float32(0.4)  # the same quad, another start
    moved = quad + np.float32(3.0)
    kept = _distinct([again, moved, moved + np.float32(0.2), quad], quad)
    assert len(kept) == 1 and np.array_equal(kept[0], moved)


def test_a_dealer_button_and_a_chip_are_no_card_outlines() -> None:
    """Round things on the felt: the white dealer button (a dark letter on it, so the edge
    cut splits it into card-sized parts) and a chip with a white ring."""
    image, (truth,) = scene([(Card("5h"), (400, 360), 150, 10.0)])
    cv2.circle(image, (800, 300), 70, (235, 235, 235), -1, cv2.LINE_AA)
    cv2.circle(image, (800, 300), 70, (120, 120, 120), 6, cv2.LINE_AA)
    cv2.putText(image, "D", (760, 335), cv2.FONT_HERSHEY_DUPLEX, 3.0, (20, 20, 20), 9,
                cv2.LINE_AA)
    cv2.circle(image, (1000, 500), 55, (230, 230, 232), -1, cv2.LINE_AA)
    cv2.circle(image, (1000, 500), 32, (40, 40, 200), 10, cv2.LINE_AA)
    quads = find_card_quads(image)
    assert len(quads) == 1 and same_card_corners(quads[0].tolist(), truth, 4.0)


@settings(max_examples=30, deadline=None)
@given(aspect=st.floats(1.1, 2.0), width=st.floats(25, 200), angle=st.floats(0, 180),
       radius=st.integers(12, 150))
def test_roundness_tells_discs_from_cards(aspect: float, width: float, angle: float,
                                          radius: int) -> None:
    from capture.camera.geometry import DEFAULT_OUTLINE, _roundness

    card = np.zeros((500, 500), np.uint8)
    box = cv2.boxPoints(((250.0, 250.0), (width, width * aspect), angle))
    cv2.fillPoly(card, [np.round(box).astype(np.int32)], 255)
    disc = np.zeros((320, 320), np.uint8)
    cv2.circle(disc, (160, 160), radius, 255, -1)
    for blob, round_ in ((card, False), (disc, True)):
        (outline,), _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        assert (_roundness(outline) >= DEFAULT_OUTLINE.max_roundness) == round_


def test_an_outline_is_clean_only_when_it_is_its_blobs_whole_outline() -> None:
    image, _ = scene([(Card("Qs"), (400, 360), 150, 12.0)])
    (alone,) = find_card_outlines(image)
    assert alone.clean() and not alone.shared()
    # Two cards touching along a long side: one blob, cut into two cards.
    image, _ = scene([(Card("9c"), (500, 360), 150, 0), (Card("4h"), (650, 360), 150, 0)])
    pair = find_card_outlines(image)
    assert len(pair) == 2
    assert all(o.shared() and not o.clean() for o in pair)
