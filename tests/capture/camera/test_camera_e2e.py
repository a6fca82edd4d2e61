"""End to end: a video file of a dealt hand, through the camera source and the card tracker,
gives the right capture events in the right order.

The video (1280x720, 10 fps, MPEG-4 from ``cv2.VideoWriter``) is drawn with the project's
default deck (capture/camera/synth.py): two players' hole cards arrive at their seat regions,
then the flop, turn and river on the board, a dealer's hand passes over the flop for two frames
(fewer than M, so nothing is removed), then seat 1 folds, seat 2 mucks and the board is swept.
Every frame has its own sensor noise and a small flicker of the light."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import pytest

from capture.camera.cardart import DEFAULT_STYLE
from capture.camera.deck import CameraDeck
from capture.camera.recognizer import Recognizer
from capture.camera.source import CameraConfig, FrameSource, Region
from capture.camera.synth import Placement, render_table
from capture.camera.tracker import CardTracker
from engine.capture_events import (
    BOARD,
    BoardCardRead,
    CaptureEvent,
    CardRemoved,
    HoleCardsRead,
    Zone,
)
from engine.cards import Card

SIZE = (1280, 720)
FPS = 10
K, M = 3, 3
CARD_W = 110.0

SEAT1, SEAT2 = Zone.at_seat(1), Zone.at_seat(2)
REGIONS = (
    Region(SEAT1, (40, 420, 420, 300)),
    Region(SEAT2, (820, 420, 420, 300)),
    Region(BOARD, (220, 50, 840, 350)),
)
HOLE1 = (Card("Ah"), Card("Kd"))
HOLE2 = (Card("7c"), Card("7s"))
FLOP = (Card("Qh"), Card("Jh"), Card("2c"))
TURN, RIVER = Card("9s"), Card("3d")

# Frame numbers at which the table changes.
SEAT1_IN, SEAT2_IN, FLOP_IN, HAND_OVER, TURN_IN, RIVER_IN = 5, 11, 18, 24, 30, 38
SEAT1_OUT, SEAT2_OUT, BOARD_OUT, END = 46, 52, 58, 66


def placements_at(frame: int) -> list[Placement]:
    cards: list[Placement] = []
    if SEAT1_IN <= frame < SEAT1_OUT:  # side by side, turned a little
        cards += [Placement(HOLE1[0], (180.0, 575.0), CARD_W, -8.0, "hole"),
                  Placement(HOLE1[1], (305.0, 558.0), CARD_W, -8.0, "hole")]
    if SEAT2_IN <= frame < SEAT2_OUT:  # (fanned, overlapping pairs are the evaluation's)
        cards += [Placement(HOLE2[0], (975.0, 560.0), CARD_W, 10.0, "hole"),
                  Placement(HOLE2[1], (1100.0, 582.0), CARD_W, 10.0, "hole")]
    board: list[Card] = []
    if FLOP_IN <= frame < BOARD_OUT:
        board += FLOP
    if TURN_IN <= frame < BOARD_OUT:
        board.append(TURN)
    if RIVER_IN <= frame < BOARD_OUT:
        board.append(RIVER)
    for i, card in enumerate(board):
        cards.append(Placement(card, (370.0 + 140.0 * i, 225.0), CARD_W, (-1.5, 2.0)[i % 2]))
    return cards


def write_video(path: Path) -> None:
    rng = np.random.default_rng(8)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), FPS, SIZE)
    assert writer.isOpened()
    cache: dict[tuple[Placement, ...], np.ndarray] = {}
    try:
        for frame in range(END):
            layout = tuple(placements_at(frame))
            if layout not in cache:
                cache[layout] = render_table(SIZE, layout, DEFAULT_STYLE, seed=2, tilt=0.05)[0]
            image = cache[layout].astype(np.float32)
            if HAND_OVER <= frame < HAND_OVER + 2:  # a dealer's hand over the first flop cards
                cv2.line(image, (330, 90), (520, 330), (140, 170, 215), 70, cv2.LINE_AA)
            image *= rng.uniform(0.95, 1.05)
            image += rng.normal(0.0, 3.0, image.shape).astype(np.float32)
            writer.write(np.clip(image, 0, 255).astype(np.uint8))
    finally:
        writer.release()


def run_camera(path: Path) -> list[CaptureEvent]:
    config = CameraConfig("board-cam", str(path), REGIONS, confirm_frames=K, drop_frames=M)
    tracker = CardTracker(config, Recognizer(CameraDeck.default(), threshold=config.threshold))
    events: list[CaptureEvent] = []
    with FrameSource(config) as source:
        assert source.size == SIZE
        assert source.fps == pytest.approx(FPS)
        frame = 0
        while True:
            ok, image = source.read()
            if not ok:
                break
            assert image is not None
            events += tracker.update(image, frame / FPS)
            frame += 1
    assert frame == END
    return events


def shape(event: CaptureEvent) -> tuple[object, ...]:
    """What an event says, without its time and confidence."""
    if isinstance(event, HoleCardsRead):
        return ("hole", event.seat, event.cards)
    if isinstance(event, BoardCardRead):
        return ("board", event.card, event.position)
    if isinstance(event, CardRemoved):
        return ("removed", event.zone, event.card)
    return (type(event).__name__,)


def removed(zone: Zone, cards: Sequence[Card]) -> list[tuple[object, ...]]:
    return [("removed", zone, card) for card in sorted(cards, reverse=True)]


@pytest.fixture(scope="module")
def events(tmp_path_factory: pytest.TempPathFactory) -> list[CaptureEvent]:
    path = tmp_path_factory.mktemp("video") / "hand.mp4"
    write_video(path)
    return run_camera(path)


def test_a_dealt_hand_gives_the_capture_events_in_order(events: list[CaptureEvent]) -> None:
    expected = [
        ("hole", 1, (Card("Ah"), Card("Kd"))),  # the higher card first
        ("hole", 2, (Card("7s"), Card("7c"))),
        ("board", Card("Qh"), 1), ("board", Card("Jh"), 2), ("board", Card("2c"), 3),
        ("board", TURN, 4),
        ("board", RIVER, 5),
        *removed(SEAT1, HOLE1),
        *removed(SEAT2, HOLE2),
        *removed(BOARD, [*FLOP, TURN, RIVER]),
    ]
    assert [shape(e) for e in events] == expected


def test_events_come_after_k_frames_and_removals_after_m(events: list[CaptureEvent]) -> None:
    """Each event is stamped with the time of the frame that confirmed it: K frames after the
    cards appeared (M after they went), give or take a frame the recogniser could not read."""
    def window(first_frame: int, frames: int) -> tuple[float, float]:
        return ((first_frame + frames - 1) / FPS, (first_frame + frames + 2) / FPS)

    changes: dict[tuple[object, object], int] = {
        ("hole", 1): SEAT1_IN, ("hole", 2): SEAT2_IN, ("board", 1): FLOP_IN,
        ("board", 2): FLOP_IN, ("board", 3): FLOP_IN, ("board", 4): TURN_IN,
        ("board", 5): RIVER_IN, ("removed", SEAT1): SEAT1_OUT, ("removed", SEAT2): SEAT2_OUT,
        ("removed", BOARD): BOARD_OUT}
    for event in events:
        kind = shape(event)
        frames = M if kind[0] == "removed" else K
        key = (kind[0], kind[1] if kind[0] != "board" else kind[2])
        low, high = window(changes[key], frames)
        assert low - 1e-9 <= event.t <= high + 1e-9, (kind, event.t)
    flop = [e for e in events if isinstance(e, BoardCardRead) and e.position <= 3]
    assert len({e.t for e in flop}) == 1  # the flop's positions come from one picture


def test_every_event_names_the_camera_and_is_confident(events: list[CaptureEvent]) -> None:
    assert {e.source for e in events} == {"board-cam"}
    for event in events:
        if isinstance(event, HoleCardsRead | BoardCardRead):
            assert Recognizer(CameraDeck.default()).threshold <= event.confidence <= 1.0
