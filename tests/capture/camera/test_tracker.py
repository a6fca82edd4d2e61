"""The card tracker: a dealt hand on video in, the right capture events out."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from capture.camera.deck import CameraDeck
from capture.camera.recognizer import Recognizer
from capture.camera.source import CameraConfig, FrameSource, Region
from capture.camera.tracker import CardTracker
from engine.capture_events import (
    BOARD,
    BoardCardRead,
    CaptureEvent,
    CaptureFault,
    CardMucked,
    CardRemoved,
    FaultKind,
    HoleCardsRead,
    Zone,
    event_from_dict,
)
from engine.cards import Card

from .conftest import scene, write_video

SEAT1, SEAT2 = Zone.at_seat(1), Zone.at_seat(2)
REGIONS = (Region(BOARD, (200, 40, 880, 300)), Region(SEAT1, (20, 380, 500, 330)),
           Region(SEAT2, (760, 380, 500, 330)))
HOLE = {1: [("Ah", 180), ("Kd", 340)], 2: [("7c", 940), ("7d", 1100)]}
BOARD_CARDS = [("Qs", 300), ("Jh", 460), ("2c", 620), ("9s", 780), ("3d", 940)]


def table(seats: dict[int, list[tuple[str, int]]], board: list[tuple[str, int]]
          ) -> np.ndarray:
    cards = [(Card(code), (x, 545), 130, 4.0) for pairs in seats.values() for code, x in pairs]
    cards += [(Card(code), (x, 190), 130, -3.0) for code, x in board]
    image, _ = scene(cards, size=(1280, 720))
    return image


def hand_frames() -> list[np.ndarray]:
    """A dealt hand: empty table, hole cards, flop, turn, river, seat 2 folds, all gone."""
    phases = [({}, [], 3), (HOLE, [], 5), (HOLE, BOARD_CARDS[:3], 5),
              (HOLE, BOARD_CARDS[:4], 5), (HOLE, BOARD_CARDS, 5),
              ({1: HOLE[1]}, BOARD_CARDS, 6), ({}, [], 6)]
    frames = []
    for seats, board, count in phases:
        image = table(seats, board)
        frames.extend([image] * count)
    return frames


def camera(video: Path | str, **options: int) -> CameraConfig:
    return CameraConfig("table-cam", str(video), REGIONS, confirm_frames=options.get("k", 3),
                        drop_frames=options.get("m", 4))


def test_a_dealt_hand_on_video_gives_the_capture_events(tmp_path: Path,
                                                        default_deck: CameraDeck) -> None:
    video = write_video(tmp_path / "hand.avi", hand_frames(), fps=10)
    config = camera(video)
    tracker = CardTracker(config, Recognizer(default_deck, threshold=config.threshold))
    events: list[tuple[int, CaptureEvent]] = []
    with FrameSource(config) as source:
        index = 0
        while True:
            ok, frame = source.read()
            if not ok or frame is None:
                break
            events.extend((index, e) for e in tracker.update(frame, index / 10.0))
            index += 1
    assert index == 35
    simple = [(i, type(e).__name__, getattr(e, "seat", None) or str(getattr(e, "zone", "")),
               [c.code for c in getattr(e, "cards", ())] or e.card.code  # type: ignore[union-attr]
               if not isinstance(e, CaptureFault) else e.kind,
               getattr(e, "position", None)) for i, e in events]
    # K = 3: hole cards appear in frame 3, reported in frame 5; the flop in frame 8 -> 10 ...
    assert simple == [
        (5, "HoleCardsRead", 1, ["Ah", "Kd"], None),
        (5, "HoleCardsRead", 2, ["7d", "7c"], None),
        (10, "BoardCardRead", "", "Qs", 1),
        (10, "BoardCardRead", "", "Jh", 2),
        (10, "BoardCardRead", "", "2c", 3),
        (15, "BoardCardRead", "", "9s", 4),
        (20, "BoardCardRead", "", "3d", 5),
        # M = 4: seat 2's cards leave in frame 23, removed in frame 26; the rest 29 -> 32.
        (26, "CardRemoved", "seat2", "7d", None),
        (26, "CardRemoved", "seat2", "7c", None),
        (32, "CardRemoved", "board", "Qs", None),
        (32, "CardRemoved", "board", "Jh", None),
        (32, "CardRemoved", "board", "9s", None),
        (32, "CardRemoved", "board", "3d", None),
        (32, "CardRemoved", "board", "2c", None),
        (32, "CardRemoved", "seat1", "Ah", None),
        (32, "CardRemoved", "seat1", "Kd", None),
    ]
    for _, event in events:
        assert event.source == "table-cam"
        assert event_from_dict(event.to_dict()) == event
        if isinstance(event, HoleCardsRead | BoardCardRead):
            assert config.threshold <= event.confidence <= 1.0
    assert events[0][1].t == pytest.approx(0.5)


@cache
def _frames() -> dict[str, np.ndarray]:
    small = {"empty": table({}, []), "card": table({}, [("Th", 640)])}
    covered = small["card"].copy()
    # Both index corners taped over with card-white: the outline stays, the code goes.
    covered[108:160, 582:612] = (250, 250, 250)
    covered[222:276, 668:698] = (250, 250, 250)
    small["covered"] = covered
    return small


@settings(max_examples=25)
@given(sequence=st.lists(st.sampled_from(["empty", "card"]), min_size=1, max_size=12),
       k=st.integers(1, 4), m=st.integers(1, 4))
def test_never_reported_before_k_frames_nor_removed_before_m(
        sequence: list[str], k: int, m: int) -> None:
    config = CameraConfig("cam", 0, (Region(BOARD, (200, 40, 880, 300)),),
                          confirm_frames=k, drop_frames=m)
    tracker = CardTracker(config, Recognizer(CameraDeck.default()))
    shown = False
    for i, name in enumerate(sequence):
        events = tracker.update(_frames()[name], float(i))
        recent = sequence[max(0, i - k + 1):i + 1]
        for event in events:
            if isinstance(event, BoardCardRead):
                assert len(recent) == k and set(recent) == {"card"}
                assert event.card == Card("Th") and event.position == 1
                shown = True
            else:
                assert isinstance(event, CardRemoved)
                gone = sequence[max(0, i - m + 1):i + 1]
                assert shown and len(gone) == m and set(gone) == {"empty"}
                shown = False
        if not events and i >= k - 1 and set(sequence[i - k + 1:i + 1]) == {"card"}:
            assert shown  # K frames in a row: it must have been reported by now


def test_a_covered_index_does_not_remove_a_card(default_deck: CameraDeck) -> None:
    config = CameraConfig("cam", 0, (Region(BOARD, (200, 40, 880, 300)),),
                          confirm_frames=2, drop_frames=2)
    tracker = CardTracker(config, Recognizer(default_deck))
    frames = _frames()
    assert Recognizer(default_deck).detect(frames["covered"])[0].code is None
    seen = [tracker.update(frames[name], float(i)) for i, name in
            enumerate(["card", "card", "covered", "covered", "covered", "card", "empty",
                       "empty"])]
    assert [type(e).__name__ for events in seen for e in events] == [
        "BoardCardRead", "CardRemoved"]
    assert isinstance(seen[1][0], BoardCardRead) and isinstance(seen[7][0], CardRemoved)


def test_three_cards_at_a_seat_are_a_misdeal_not_a_hand(default_deck: CameraDeck) -> None:
    config = CameraConfig("cam", 0, (Region(SEAT1, (20, 380, 1240, 330)),), confirm_frames=1)
    tracker = CardTracker(config, Recognizer(default_deck))
    image = table({1: [("Ah", 180), ("Kd", 340), ("5s", 500)]}, [])
    (fault,) = tracker.update(image, 1.0)
    assert isinstance(fault, CaptureFault) and fault.kind is FaultKind.TOO_MANY_CARDS
    assert fault.misdeal and fault.zones == (SEAT1,) and len(fault.cards) == 3
    assert tracker.update(image, 2.0) == []  # reported once while it lasts


def test_one_card_in_two_zones_is_a_duplicate(default_deck: CameraDeck) -> None:
    config = CameraConfig("cam", 0, REGIONS, confirm_frames=1)
    tracker = CardTracker(config, Recognizer(default_deck))
    image = table({1: [("Ah", 180), ("Kd", 340)]}, [("Kd", 640)])
    events = tracker.update(image, 1.0)
    faults = [e for e in events if isinstance(e, CaptureFault)]
    assert [f.kind for f in faults] == [FaultKind.DUPLICATE_CARD]
    assert faults[0].cards == (Card("Kd"),) and set(faults[0].zones) == {BOARD, SEAT1}
    assert not any(isinstance(e, HoleCardsRead | BoardCardRead) for e in events)


def test_a_muck_region_reports_dead_cards(default_deck: CameraDeck) -> None:
    config = CameraConfig("cam", 0, (Region(Zone.parse("muck"), (200, 40, 880, 300)),),
                          confirm_frames=1, drop_frames=1)
    tracker = CardTracker(config, Recognizer(default_deck))
    (mucked,) = tracker.update(table({}, [("6h", 640)]), 1.0)
    assert mucked == CardMucked(Card("6h"), 1.0, "cam")
    assert tracker.cards_in(config.regions[0]) == {Card("6h")}
    (removed,) = tracker.update(table({}, []), 2.0)
    assert removed == CardRemoved(Zone.parse("muck"), Card("6h"), 2.0, "cam")


def test_confidence_is_written_and_optional_in_old_logs() -> None:
    event = BoardCardRead(Card("Ah"), 2, 1.5, "cam", 0.83)
    data = event.to_dict()
    assert data["confidence"] == 0.83 and event_from_dict(data) == event
    del data["confidence"]
    assert event_from_dict(data).confidence == 1.0  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="confidence"):
        HoleCardsRead(3, (Card("Ah"), Card("Kd")), 1.0, "cam", 1.5)
