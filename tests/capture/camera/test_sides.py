"""Card quads from the straight stretches of a blob's outline (issue 8, recall): an arm or
a finger stuck to a board card's edge, an arm across a card."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from capture.camera.cardart import STYLES
from capture.camera.evaluate import quad_iou
from capture.camera.geometry import find_card_outlines, find_card_quads
from capture.camera.recognizer import Recognizer
from capture.camera.sides import coverage, sided_quads, straight_lines
from capture.camera.synth import generate_scene
from engine.cards import Card

from .conftest import calibrated, card_corners, same_card_corners, scene

_SKIN = (150, 185, 230)
"""BGR of a bare forearm under studio light: brighter than the felt in every channel."""


def _arm(image: np.ndarray, start: np.ndarray, end: np.ndarray, thickness: float) -> None:
    cv2.line(image, (round(start[0]), round(start[1])), (round(end[0]), round(end[1])),
             _SKIN, round(thickness), cv2.LINE_AA)


def _mask_contour(corners: np.ndarray, size: tuple[int, int] = (400, 400)) -> np.ndarray:
    mask = np.zeros(size, np.uint8)
    cv2.fillPoly(mask, [np.round(corners).astype(np.int32)], 255)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return np.asarray(max(contours, key=cv2.contourArea))


@settings(max_examples=25, deadline=None)
@given(angle=st.floats(-90, 90), width=st.floats(60, 150), x=st.floats(-10, 10),
       y=st.floats(-10, 10))
def test_a_card_alone_is_its_own_straight_sided_quad(angle: float, width: float, x: float,
                                                     y: float) -> None:
    truth = card_corners((200 + x, 200 + y), width, angle)
    quads = sided_quads(_mask_contour(truth))
    assert len(quads) == 1
    quad, covered = quads[0]
    assert covered > 0.93
    assert same_card_corners(quad.tolist(), truth, 1.5)


@settings(max_examples=25, deadline=None)
@given(angle=st.floats(-90, 90), width=st.floats(60, 150))
def test_a_quad_lies_wholly_on_its_own_outline_and_a_smaller_one_does_not(
        angle: float, width: float) -> None:
    truth = card_corners((200, 200), width, angle)
    points = _mask_contour(truth).reshape(-1, 2).astype(np.float64)
    assert coverage(truth, points) > 0.93
    # A card a tenth smaller about the same centre: its sides lie inside the outline.
    smaller = np.asarray((truth - truth.mean(axis=0)) * 0.9 + truth.mean(axis=0), np.float32)
    assert coverage(smaller, points) < 0.2


def test_one_side_interrupted_by_a_notch_is_one_straight_line() -> None:
    truth = card_corners((200, 200), 120, 20.0)
    mask = np.zeros((400, 400), np.uint8)
    cv2.fillPoly(mask, [np.round(truth).astype(np.int32)], 255)
    middle = (truth[0] + truth[1]) / 2.0
    cv2.circle(mask, (round(middle[0]), round(middle[1])), 15, 0, -1)  # a chip's bite
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    lines = straight_lines(max(contours, key=cv2.contourArea), 20.0)
    assert len(lines) == 4  # the bitten side is still one line, not two pieces
    quads = sided_quads(max(contours, key=cv2.contourArea))
    assert quads
    assert same_card_corners(quads[0][0].tolist(), truth, 1.5)


# Derandomized: the same twelve placements every run. Random ones found placements near a
# card's corner where the quad leans 5-6 px (4 of a grid of 3,234 placements): recorded
# below as a known limitation (issue 22), so that CI is not a lottery on them.
@settings(max_examples=12, deadline=None, derandomize=True)
@given(angle=st.floats(-20, 20), side=st.sampled_from(["left", "right", "top"]),
       along=st.floats(0.25, 0.75), lean=st.floats(-40, 40))
def test_an_arm_touching_a_board_cards_edge_leaves_the_card_quad(
        angle: float, side: str, along: float, lean: float) -> None:
    """An arm a fifth of a card wide, reaching from far away to just over a card's edge
    (studio scenes: the hull and its polygon leaned towards the arm, the index corner 60 px
    off, and the card read as nothing)."""
    width = 150.0
    image, (truth,) = scene([(Card("Th"), (640, 360), width, angle)])
    tl, tr, br, bl = truth.astype(np.float64)
    a, b = {"left": (tl, bl), "right": (tr, br), "top": (tl, tr)}[side]
    on_edge = a + along * (b - a)
    outward = on_edge - truth.mean(axis=0)
    outward /= np.linalg.norm(outward)
    turn = math.radians(lean)
    outward = np.array([outward[0] * math.cos(turn) - outward[1] * math.sin(turn),
                        outward[0] * math.sin(turn) + outward[1] * math.cos(turn)])
    _arm(image, on_edge - 0.05 * width * outward, on_edge + 1.5 * width * outward,
         0.2 * width)
    quads = find_card_quads(image)
    assert len(quads) == 1
    assert same_card_corners(quads[0].tolist(), truth, 4.0)


@pytest.mark.xfail(strict=True, reason="known limitation (issue 22): an arm touching a card's "
                   "edge near its corner leans the quad 5-6 px, beyond the 4 px tolerance")
@pytest.mark.parametrize(("angle", "side", "along", "lean"), [
    (12.0, "top", 0.2578125, 2.0), (-12.0, "left", 0.75, -20.0), (12.0, "left", 0.75, -2.0),
    (20.0, "left", 0.75, -2.0), (-20.0, "top", 0.3, -30.0)])
def test_an_arm_near_a_corner_leans_the_quad(angle: float, side: str, along: float,
                                             lean: float) -> None:
    """The placements random testing found (CI on 2026-12-02 and a grid of 3,234): strict, so
    this fails once the detector keeps the quad there too, and the limitation is lifted."""
    inner = test_an_arm_touching_a_board_cards_edge_leaves_the_card_quad.hypothesis.inner_test
    inner(angle=angle, side=side, along=along, lean=lean)


@pytest.mark.parametrize(("angle", "slope"), [(0.0, 0.1), (5.0, -0.2), (-8.0, 0.0)])
def test_an_arm_across_a_board_card_leaves_the_card_quad(angle: float, slope: float) -> None:
    """An arm lying across a card and beyond both its sides cuts the card's outline in two
    pieces, each as card-shaped as a card: the card's straight sides put it together."""
    width = 130.0
    image, (truth,) = scene([(Card("Ac"), (640, 360), width, angle)])
    start = np.array([640 - 1.2 * width, 360 - 1.2 * width * slope])
    end = np.array([640 + 0.8 * width, 360 + 0.8 * width * slope])
    _arm(image, start, end, 0.18 * width)
    quads = find_card_quads(image)
    assert any(same_card_corners(quad.tolist(), truth, 4.0) for quad in quads)


@pytest.mark.parametrize("gap", [0.0, 2.0])
def test_two_board_cards_side_by_side_stay_two_cards(gap: float) -> None:
    """Two cards touching make a card-shaped rectangle together (5 by 3.5 inches): they
    are not taken for one card cut in two."""
    width = 120.0
    image, truths = scene([(Card("7s"), (600, 360), width, 0.0),
                           (Card("Tc"), (600 + width + gap, 360), width, 0.0)])
    quads = find_card_quads(image)
    assert len(quads) == 2
    for truth in truths:
        assert max(quad_iou(quad, truth) for quad in quads) > 0.9


@pytest.mark.parametrize(("style", "seed", "size", "codes"), [
    ("feltcast", 30, (1920, 1080), ("Th",)),  # a fanned pair, a pale chip on the under card
    ("feltcast", 34, (1920, 1080), ("Js", "Td")),  # a fanned pair, two chips on it
])
def test_a_blob_without_a_card_shaped_part_is_read_at_its_ends(
        style: str, seed: int, size: tuple[int, int], codes: tuple[str, ...]) -> None:
    """Development scenes where the edges inside a blob (a court card's frame, a chip's
    rim) cut it into pieces none of which is card-shaped, so the blob had no
    outline at all: its smallest enclosing rectangle is read, as two cards when it shows no
    index, and at the blob's ends. No card is named wrongly."""
    scene_ = generate_scene(STYLES[style], seed, size=size)
    recognizer = Recognizer(calibrated(style))
    detections = recognizer.detect(scene_.image)
    for code in codes:
        (card,) = [t for t in scene_.truths if t.code == code]
        assert any(d.code == code and quad_iou(d.quad, card.quad) >= 0.5 for d in detections)
    for d in detections:
        if d.code is not None:
            assert any(t.code == d.code and quad_iou(d.quad, t.quad) >= 0.5
                       for t in scene_.truths)


@pytest.mark.parametrize("lean", [0.0, 0.15, -0.1])
def test_a_board_card_bridged_to_both_neighbours_by_arms_is_found(lean: float) -> None:
    """Three board cards in a row, an arm from each outer card reaching over the middle
    card's edges: one blob with eleven straight stretches, the middle card's sides among
    the shortest of them."""
    width = 100.0
    step = 1.25 * width
    image, truths = scene([(Card("6h"), (640 - step, 360), width, 1.0),
                           (Card("2s"), (640, 360), width, -2.0),
                           (Card("4d"), (640 + step, 360), width, 0.5)])
    for side in (-1.0, 1.0):
        start = np.array([640 + side * 1.0 * width, 330 + side * lean * width])
        _arm(image, start, start - side * np.array([0.75 * width, -lean * width]),
             0.14 * width)
    quads = find_card_quads(image)
    for truth in truths:
        assert any(same_card_corners(quad.tolist(), truth, 4.0) for quad in quads)


def test_a_card_read_on_a_blobs_enclosing_rectangle_is_named_only_when_nudges_agree() -> None:
    """Development scene (club-classic, seed 7) where a hole pair's blob has no card-shaped
    part: half its enclosing rectangle reads 7c as 7s just above the threshold, and the
    same half a few pixels off reads it as nothing. A guess names no card then."""
    scene_ = generate_scene(STYLES["club-classic"], 7 * 1_000_003 + 17, size=(1280, 720))
    recognizer = Recognizer(calibrated("club-classic"))
    (card,) = [t for t in scene_.truths if t.code == "7c"]
    outlines = find_card_outlines(scene_.image)
    assert any(o.enclosing and quad_iou(o.quad, card.quad) > 0.3 for o in outlines)
    for d in recognizer.detect(scene_.image):
        if d.code is not None:
            assert any(t.code == d.code and quad_iou(d.quad, t.quad) >= 0.5
                       for t in scene_.truths)
