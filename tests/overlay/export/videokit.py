"""Footage and table logs with known times, for the video export tests.

* :func:`scripted_log`: two hands played through the engine (:class:`engine.hand.Hand`) whose
  every event has a time the test knows (:data:`TIMES`: the flop, turn, river and the award);
* :func:`make_footage`: a short video written with ``cv2.VideoWriter`` whose frames carry
  their own number (a strip of black and white blocks along the top edge, where the graphics
  never draw) on a flat grey, optionally with a sine-tone audio track (ffmpeg);
* :func:`frame_number`, :func:`read_frames`, :func:`probe`: reading exports back.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from engine.events import Event
from engine.hand import Hand
from engine.log import TableEvent
from overlay.store import open_store

T0 = 1_796_036_000.0
"""Unix time of the footage's first frame in most tests (2026-11-30T10:53:20Z)."""

BITS = 16
GREY = (96, 96, 96)

#: Seconds after T0 of the steps of hand 1 (hand 2 follows at HAND2).
TIMES = {"start": 0.50, "flop": 1.50, "turn": 2.20, "river": 2.90, "award": 3.40}
HAND2 = 4.0


def _hand_one() -> list[tuple[float, Event]]:
    hand = Hand.start(seats=(1, 4, 7), names=("Ann Smith", "Bo Chen", "Cy Diaz"),
                      stacks=(20_000, 15_000, 9_000), blinds=(100, 200, 0),
                      antes=(0, 0, 0), big_blind=200, button=7, hand_number=1)
    out: list[tuple[float, Event]] = []
    mark = 0

    def take(at: float) -> None:
        nonlocal mark
        out.extend((at, e) for e in hand.events[mark:])
        mark = len(hand.events)

    take(TIMES["start"])
    hand.deal_hole(1, "AhKh")
    hand.deal_hole(4, "QsQd")
    hand.deal_hole(7, "7c2d")
    take(TIMES["start"] + 0.1)
    hand.fold(7)
    hand.call(1)
    hand.check(4)
    take(TIMES["start"] + 0.5)
    hand.burn_card("2s")
    hand.deal_board("Kd9h3c")
    take(TIMES["flop"])
    hand.check(1)
    hand.bet(400, 4)
    hand.call(1)
    take(TIMES["flop"] + 0.3)
    hand.deal_board("5s")
    take(TIMES["turn"])
    hand.check(1)
    hand.check(4)
    take(TIMES["turn"] + 0.3)
    hand.deal_board("Kc")
    take(TIMES["river"])
    hand.check(1)
    hand.check(4)  # the showdown follows at once (R14, R15), the pot is pushed (R16)
    take(TIMES["award"])
    return out


def _hand_two() -> list[tuple[float, Event]]:
    hand = Hand.start(seats=(4, 7, 1), names=("Bo Chen", "Cy Diaz", "Ann Smith"),
                      stacks=(14_400, 9_000, 20_600), blinds=(100, 200, 0),
                      antes=(0, 0, 0), big_blind=200, button=1, hand_number=2)
    hand.deal_hole(1, "JcJs")
    hand.deal_hole(4, "8h8d")
    hand.deal_hole(7, "AcQc")
    hand.fold(1)
    hand.fold(4)
    return [(HAND2 + k * 0.1, e) for k, e in enumerate(hand.events)]


def scripted_log(t0: float = T0) -> list[TableEvent]:
    """Hand 1 (a showdown: flop, turn, river at :data:`TIMES`) and hand 2 (won before the
    flop), as log entries at ``t0`` + the scripted seconds."""
    timed = _hand_one() + _hand_two()
    return [TableEvent.record(seq, t0 + at, event) for seq, (at, event) in enumerate(timed, 1)]


def write_log(entries: list[TableEvent], data_dir: Path) -> Path:
    """``entries`` in a SQLite log in ``data_dir`` (as the service keeps it)."""
    store = open_store(data_dir=data_dir)
    try:
        store.append(entries)
    finally:
        store.close()
    return data_dir


def stamp(frame: np.ndarray, number: int) -> None:
    """Write ``number`` into the frame's top strip: BITS blocks, white for 1, black for 0."""
    width = frame.shape[1]
    block = width // (BITS + 2)
    for bit in range(BITS):
        x = block * (bit + 1)
        value = 255 if number >> bit & 1 else 0
        frame[2:2 + _strip(frame), x + 2:x + block - 2] = value


def _strip(frame: np.ndarray) -> int:
    """The strip's height: above the graphics' top bar (40 px down on a 1080p stage)."""
    return max(6, frame.shape[0] // 60)


def frame_number(frame: np.ndarray) -> int:
    """The number :func:`stamp` wrote (read at each block's centre)."""
    width = frame.shape[1]
    block = width // (BITS + 2)
    number = 0
    for bit in range(BITS):
        x = block * (bit + 1) + block // 2
        if int(frame[2 + _strip(frame) // 2, x].mean()) > 128:
            number |= 1 << bit
    return number


def make_footage(path: Path, *, frames: int, fps: float = 30.0,
                 size: tuple[int, int] = (640, 360), audio: bool = False) -> Path:
    """A numbered grey video (``cv2.VideoWriter``, mp4v); with ``audio`` ffmpeg adds a
    sine tone (AAC) of the same length."""
    target = path if not audio else path.with_name(path.stem + ".silent.mp4")
    writer = cv2.VideoWriter(str(target), cv2.VideoWriter.fourcc(*"mp4v"), fps, size)
    assert writer.isOpened()
    base = np.full((size[1], size[0], 3), GREY, np.uint8)
    for number in range(frames):
        frame = base.copy()
        stamp(frame, number)
        writer.write(frame)
    writer.release()
    if audio:
        ffmpeg = shutil.which("ffmpeg")
        assert ffmpeg is not None
        subprocess.run([ffmpeg, "-v", "error", "-y", "-i", str(target), "-f", "lavfi", "-i",
                        f"sine=frequency=440:sample_rate=48000:duration={frames / fps}",
                        "-map", "0:v", "-map", "1:a", "-c:v", "copy", "-c:a", "aac",
                        "-shortest", str(path)], check=True)
        target.unlink()
    return path


def read_frames(path: Path) -> Iterator[np.ndarray]:
    capture = cv2.VideoCapture(str(path))
    try:
        while True:
            ok, frame = capture.read()
            if not ok:
                return
            yield frame
    finally:
        capture.release()


def probe(path: Path, *, chapters: bool = False) -> dict[str, Any]:
    """ffprobe's streams (and chapters) of ``path`` as JSON."""
    ffprobe = shutil.which("ffprobe")
    assert ffprobe is not None
    args = [ffprobe, "-v", "error", "-count_frames", "-show_streams", "-of", "json"]
    if chapters:
        args.insert(-2, "-show_chapters")
    done = subprocess.run([*args, str(path)], capture_output=True, text=True, check=True)
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def white_pixels(frame: np.ndarray, box: tuple[float, float, float, float]) -> int:
    """Near-white pixels (card faces) in ``box`` (fractions x0, y0, x1, y1 of the frame)."""
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = box
    region = frame[round(y0 * h):round(y1 * h), round(x0 * w):round(x1 * w)]
    return int(np.count_nonzero(region.min(axis=2) > 225))
