"""The recognizer: every card of a deck read right, never a guess where it cannot read."""

from __future__ import annotations

import json
from collections.abc import Callable

import cv2
import numpy as np
import pytest

from capture.camera.cardart import STYLES, render_card
from capture.camera.deck import CameraDeck
from capture.camera.recognizer import DEFAULT_THRESHOLD, Detection, Recognizer
from engine.cards import Card

from .conftest import calibrated, felt, same_card_corners, scene

ALL = [Card.from_index(i) for i in range(52)]


def grid(style: str = "feltcast", width: float = 120) -> tuple[np.ndarray, list[np.ndarray]]:
    """All 52 cards on one 1080p frame, alternately upright and upside down, a little
    turned."""
    cards = []
    for i, card in enumerate(ALL):
        row, column = divmod(i, 13)
        angle = (180 if (row + column) % 2 else 0) + (i % 7 - 3) * 2
        cards.append((card, (80 + column * 145, 130 + row * 255), width, angle))
    return scene(cards, size=(1920, 1080), style=STYLES[style])


@pytest.mark.parametrize("style", ["feltcast", "studio-4c"])
def test_every_card_of_a_development_deck_is_read(style: str) -> None:
    """All 52 cards, 120 px wide (a board camera's view), upright and upside down."""
    deck = (CameraDeck.default() if style == "feltcast" else
            calibrated(style))
    image, corners = grid(style)
    detections = Recognizer(deck).detect(image)
    assert len(detections) == 52
    found = {d.code: d for d in detections}
    wrong = [d.code for d in detections if d.code is not None and d.code not in
             {c.code for c in ALL}]
    assert not wrong
    read = [card for card in ALL if card.code in found]
    assert len(read) >= 50, f"unread: {sorted(set(ALL) - set(read))}"
    for card in read:
        detection = found[card.code]
        assert detection.score >= DEFAULT_THRESHOLD
        assert same_card_corners(detection.quad, corners[card.index], 8.0)


def test_a_face_down_card_is_found_but_never_named(default_deck: CameraDeck) -> None:
    image, _ = scene([(None, (400, 300), 160, 20), (Card("Ah"), (800, 300), 160, -10)])
    back, ace = Recognizer(default_deck).detect(image)
    assert back.code is None and back.score < DEFAULT_THRESHOLD
    assert ace.code == "Ah"


def test_a_card_of_another_deck_is_unknown_rather_than_a_guess() -> None:
    """Cards drawn in another style than the deck in use: unknown or right, never wrong."""
    deck = calibrated("studio-4c")
    image, _ = grid("club-classic")
    detections = Recognizer(deck).detect(image)
    truth = {c.code for c in ALL}
    assert all(d.code is None or d.code in truth for d in detections)


BLACK = [c for c in ALL if c.suit in (0, 3)]  # clubs and spades: they differ least


def read_black_cards(style_name: str, width: int, camera: Callable[[np.ndarray], np.ndarray],
                     stretch: float = 1.0) -> dict[str, str | None]:
    """Each club and spade of a style ``width`` pixels wide, alone on felt as ``camera`` sees
    it, read from its true outline made ``stretch`` times as long: what each reads as."""
    style = STYLES[style_name]
    recognizer = Recognizer(calibrated(style_name))
    reads = {}
    for card in BLACK:
        image = render_card(card, style)
        scale = width / image.shape[1]
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        height, width_px = image.shape[:2]
        table = felt(width_px + 80, height + 80)
        table[40:40 + height, 40:40 + width_px] = image
        bottom = 40 + height * stretch
        quad = np.array([[40, 40], [40 + width_px, 40], [40 + width_px, bottom],
                         [40, bottom]], np.float32) - 0.5
        reads[card.code] = recognizer.read(camera(table), quad).code
    return reads


@pytest.mark.parametrize("stretch", [0.96, 1.04])
def test_clubs_and_spades_read_from_an_outline_a_little_short_or_long(stretch: float) -> None:
    """An outline 4 % too short or long (its far corners cut or grown; the index corner
    right) puts a small index's suit a pixel or two off where its rank fits: every club and
    spade of the deck with the smallest index still reads, and as itself (judged at the
    shift where the rank fits, 13 of the 26 read as the other suit at 1.04)."""
    reads = read_black_cards("club-classic", 180, lambda image: image, stretch)
    assert {code: read for code, read in reads.items() if read != code} == {}


@pytest.mark.parametrize("tint", [(0.8, 1.2, 0.8), (1.0, 0.8, 1.2)], ids=["green", "magenta"])
def test_a_four_colour_deck_under_tinted_light(tint: tuple[float, float, float]) -> None:
    """Coloured light (BGR gains) tints the card stock but hardly the dark ink: read as
    photographed, every green club of a four-colour deck read as a spade under green light
    and every black spade as a club under magenta light, surely. Balanced on the card
    stock, each reads as itself."""
    reads = read_black_cards("tournament-4corner", 120, lambda image: np.clip(
        image * np.array(tint) * 0.8, 0, 255).astype(np.uint8))
    assert {code: read for code, read in reads.items() if read != code} == {}


@pytest.mark.parametrize(("length", "angle"), [(5, 0), (7, 0), (7, 90), (12, 90), (15, 0)])
def test_clubs_and_spades_of_a_moving_card_never_read_as_the_other_suit(
        length: int, angle: int) -> None:
    """A card moving under the camera, smeared ``length`` pixels across (0 degrees) or along
    (90) a card 110 pixels wide. Matched against round blur, 12 of the 13 clubs smeared 7
    pixels across read as spades; against templates smeared the same way they read as
    themselves. Smeared further than the reader can tell the suits apart, they are unknown,
    never the other suit."""
    streak = np.zeros((length | 1, length | 1), np.float32)
    middle, half = (length | 1) // 2, length / 2
    dx, dy = half * np.cos(np.radians(angle)), half * np.sin(np.radians(angle))
    cv2.line(streak, (round(middle - dx), round(middle - dy)),
             (round(middle + dx), round(middle + dy)), 1.0, 1, cv2.LINE_AA)
    streak /= streak.sum()
    reads = read_black_cards("club-classic", 110, lambda image: cv2.filter2D(
        image, -1, streak, borderType=cv2.BORDER_REPLICATE))
    assert {code: read for code, read in reads.items() if read not in (None, code)} == {}
    if length <= 5:
        assert sum(read is None for read in reads.values()) <= 2


def test_a_covered_index_gives_no_code(default_deck: CameraDeck) -> None:
    image, (corners,) = scene([(Card("9h"), (500, 350), 200, 0)])
    # Cover both index corners with felt-coloured tape.
    for x, y in (corners[0], corners[2]):
        x0, y0 = int(min(x, corners[1][0] if x < 500 else x) - 5), int(y - 5)
        cx, cy = int(x), int(y)
        image[max(0, cy - 75):cy + 75, max(0, cx - 45):cx + 45] = (40, 105, 30)
        del x0, y0
    detections = Recognizer(default_deck).detect(image)
    assert all(d.code is None for d in detections)


def test_roi_limits_the_search_and_quads_stay_in_full_image_pixels(
        default_deck: CameraDeck) -> None:
    image, corners = scene([(Card("Kd"), (300, 360), 150, 0), (Card("2s"), (900, 360), 150, 5)])
    recognizer = Recognizer(default_deck)
    (only,) = recognizer.detect(image, roi=(700, 150, 450, 420))
    assert only.code == "2s"
    assert same_card_corners(only.quad, corners[1], 4.0)
    assert recognizer.detect(image, roi=(1200, 0, 4, 4)) == []


def test_detections_come_left_to_right(default_deck: CameraDeck) -> None:
    image, _ = scene([(Card(code), (150 + 200 * i, 360), 140, 0)
                      for i, code in enumerate(["Qc", "3d", "Th", "7s", "As"])])
    assert [d.code for d in Recognizer(default_deck).detect(image)] == [
        "Qc", "3d", "Th", "7s", "As"]


def test_empty_felt_has_no_detections(default_deck: CameraDeck) -> None:
    assert Recognizer(default_deck).detect(felt()) == []


def test_to_dict_is_the_cli_json_shape() -> None:
    detection = Detection("Ah", ((1.0, 2.0), (3.04, 2.0), (3.0, 6.0), (1.0, 6.0)), 0.97123)
    data = detection.to_dict()
    assert data == {"code": "Ah", "quad": [[1.0, 2.0], [3.0, 2.0], [3.0, 6.0], [1.0, 6.0]],
                    "score": 0.971}
    assert json.loads(json.dumps(data)) == data
    assert Detection(None, detection.quad, 0.2).to_dict()["code"] is None
    assert detection.card == Card("Ah") and detection.centre == pytest.approx((2.01, 4.0))


def test_bad_arguments_are_refused(default_deck: CameraDeck) -> None:
    with pytest.raises(ValueError, match="threshold"):
        Recognizer(default_deck, threshold=0.0)
    with pytest.raises(ValueError, match="BGR"):
        Recognizer(default_deck).detect(np.zeros((100, 100), np.uint8))


@pytest.mark.parametrize(("offset", "angle"), [(0.55, 0.0), (0.55, 8.0), (0.55, -15.0),
                                               (0.65, 0.0)])
def test_a_fanned_pair_is_two_cards(default_deck: CameraDeck, offset: float,
                                    angle: float) -> None:
    """Hole cards lying one over the other, shifted sideways (the top card's right part
    covers nothing; the card underneath shows its index corner)."""
    image, (_, top) = scene([(Card("Ah"), (400, 360), 150, angle),
                                 (Card("Kd"), (400 + offset * 150, 360), 150, angle)])
    detections = Recognizer(default_deck).detect(image)
    assert [d.code for d in detections] == ["Ah", "Kd"]
    assert same_card_corners(detections[1].quad, top, 15.0)  # split, so less exact


def test_overlapping_cards_never_read_as_a_wrong_card(default_deck: CameraDeck) -> None:
    recognizer = Recognizer(default_deck)
    for offset in (0.3, 0.45, 0.75):
        for angle in (0.0, 20.0):
            image, _ = scene([(Card("9s"), (400, 360), 150, angle),
                              (Card("5c"), (400 + offset * 150, 360 + 20), 150, angle)])
            assert {d.code for d in recognizer.detect(image)} <= {"9s", "5c", None}
