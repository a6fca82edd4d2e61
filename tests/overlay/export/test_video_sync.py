"""Sync of a video export: log times to frames, the views frame by frame, and the errors a
user gets for a sync that cannot be right."""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import InvalidInputError
from engine.log import TableEvent
from engine.table_events import LevelStarted
from overlay.export.video.draw import COLORS
from overlay.export.video.encode import FootageInfo
from overlay.export.video.export import (
    SyncSpec,
    parse_hand_start,
    parse_start,
    resolve_sync,
)
from overlay.export.video.timeline import Sync, ViewCursor, frame_views
from tests.overlay.export.videokit import HAND2, T0, TIMES, scripted_log

FPS = 30.0


def footage(frames: int, fps: float = FPS) -> FootageInfo:
    return FootageInfo(Path("footage.mp4"), 640, 360, fps, frames)


@given(st.integers(-10**6, 10**7), st.sampled_from([24.0, 25.0, 30000 / 1001, 30.0, 60.0]),
       st.floats(0, 2e9, allow_nan=False))
def test_a_frame_time_maps_back_to_its_frame(frame: int, fps: float, start: float) -> None:
    sync = Sync(start, fps)
    assert sync.frame_of(sync.time_of(frame)) == frame


@given(st.floats(-1e4, 1e4, allow_nan=False), st.sampled_from([25.0, 30000 / 1001, 60.0]))
def test_an_event_shows_at_the_nearest_frame(offset: float, fps: float) -> None:
    sync = Sync(T0, fps)
    frame = sync.frame_of(T0 + offset)
    assert abs(frame - offset * fps) <= 0.5 + 1e-6


def test_sync_refuses_nonsense() -> None:
    with pytest.raises(InvalidInputError, match="positive"):
        Sync(T0, 0)
    with pytest.raises(InvalidInputError, match="not a time"):
        Sync(math.nan, 30)


def views_by_frame(entries: list[TableEvent], sync: Sync, frames: int | None = None,
                   ) -> dict[int, dict[str, object]]:
    return {v.frame: v.view for v in frame_views(entries, sync, frames=frames)}


def test_views_change_exactly_at_the_event_frames() -> None:
    sync = Sync(T0, FPS)
    views = views_by_frame(scripted_log(), sync)
    assert min(views) == 0 and views[0]["table"]["hand_number"] is None  # type: ignore[index]
    flop = round(TIMES["flop"] * FPS)
    board = {frame: view["table"]["board"] for frame, view in views.items()}  # type: ignore[index]
    before = max(f for f in board if f < flop)
    assert board[flop] == ["Kd", "9h", "3c"] and board[before] == []
    assert board[round(TIMES["turn"] * FPS)][3:] == ["5s"]
    assert board[round(TIMES["river"] * FPS)][4:] == ["Kc"]
    award = views[round(TIMES["award"] * FPS)]
    winners = [s["name"] for s in award["seats"] if s["winner"]]  # type: ignore[index]
    assert winners == ["Ann Smith"]


def test_views_show_full_information_and_never_the_burn_card() -> None:
    views = list(frame_views(scripted_log(), Sync(T0, FPS)))
    dealt = next(v.view for v in views if v.view["table"]["hand_number"] == 1
                 and v.view["seats"][0]["cards"])
    assert dealt["seats"][0]["cards"] == ["Ah", "Kh"]  # hole cards: editors see everything
    flop = next(v.view for v in views if len(v.view["table"]["board"]) == 3)
    assert flop["seats"][0]["equity"] is not None
    assert all('"2s"' not in v.key and "2s" not in json.dumps(v.view) for v in views)  # R19


def test_each_picture_is_emitted_once() -> None:
    views = list(frame_views(scripted_log(), Sync(T0, FPS)))
    keys = [v.key for v in views]
    assert all(a != b for a, b in itertools.pairwise(keys))
    frames = [v.frame for v in views]
    assert frames == sorted(set(frames))


def test_events_before_the_footage_are_the_first_picture() -> None:
    sync = Sync(T0 + TIMES["flop"] + 0.1, FPS)  # filming starts after the flop
    views = views_by_frame(scripted_log(), sync)
    assert views[0]["table"]["board"] == ["Kd", "9h", "3c"]  # type: ignore[index]


def test_reading_stops_at_the_end_of_the_footage() -> None:
    entries = scripted_log()
    read: list[int] = []

    def log() -> Iterator[TableEvent]:
        for entry in entries:
            read.append(entry.seq)
            yield entry

    frames = round(TIMES["turn"] * FPS)  # the footage ends at the turn
    views = list(frame_views(log(), Sync(T0, FPS), frames=frames))
    assert all(v.frame < frames for v in views)
    assert max(len(v.view["table"]["board"]) for v in views) == 3
    first_after = next(e.seq for e in entries if e.time >= T0 + TIMES["turn"])
    assert max(read) == first_after  # one look past the end, then no more


def test_cursor_returns_changes_once() -> None:
    cursor = ViewCursor(frame_views(scripted_log(), Sync(T0, FPS)))
    seen = [cursor.at(k) for k in range(200)]
    changed = [k for k, (_, c) in enumerate(seen) if c]
    assert changed[0] == 0 and cursor.changes == len(changed)
    flop = round(TIMES["flop"] * FPS)
    assert flop in changed and seen[flop][0] is not None
    assert seen[flop - 1][0] is not None and seen[flop - 1][0].view["table"]["board"] == []


# --- resolving the user's sync -----------------------------------------------------------


def source() -> Iterator[TableEvent]:
    return iter(scripted_log())


def test_start_sync() -> None:
    sync = resolve_sync(source, SyncSpec(start=T0 - 2), footage(300))
    assert sync == Sync(T0 - 2, FPS)


def test_hand_start_sync_puts_the_hand_at_its_frame() -> None:
    sync = resolve_sync(source, SyncSpec(hand=2, frame=60), footage(300))
    assert sync.frame_of(T0 + HAND2) == 60
    sync = resolve_sync(source, SyncSpec(hand=1, frame=0), footage(300))
    assert sync.start == T0 + TIMES["start"]


@pytest.mark.parametrize(("spec", "message"), [
    (SyncSpec(start=T0 + 3600), "do not overlap"),
    (SyncSpec(start=T0 - 3600), "do not overlap"),
    (SyncSpec(hand=7, frame=10), "hand 7 is not in the log"),
    (SyncSpec(hand=1, frame=300), "frames 0-299"),
    (SyncSpec(), "--start TIME or --hand-start"),
])
def test_a_sync_that_cannot_be_right_says_why(spec: SyncSpec, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        resolve_sync(source, spec, footage(300))


def test_an_empty_log_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="log is empty"):
        resolve_sync(lambda: iter(()), SyncSpec(start=T0), footage(300))


def test_footage_between_hands_has_no_hands(tmp_path: Path) -> None:
    from overlay.export.video.encode import find_ffmpeg
    from overlay.export.video.export import ExportOptions, export_footage
    from tests.overlay.export.videokit import make_footage

    entries = scripted_log()
    late = TableEvent.record(len(entries) + 1, T0 + 60, LevelStarted(2, 200, 400))
    clip = make_footage(tmp_path / "break.mp4", frames=30)
    with pytest.raises(InvalidInputError, match="no hand of the log is in the footage"):
        export_footage(lambda: iter([*entries, late]), clip, tmp_path / "out.mp4",
                       SyncSpec(start=T0 + 59.5), ExportOptions(ffmpeg=find_ffmpeg()))
    assert not (tmp_path / "out.mp4").exists()


@pytest.mark.parametrize(("text", "expected"), [
    ("2026-11-30T10:53:20Z", T0),
    ("2026-11-30T10:53:20.250Z", T0 + 0.25),
    ("2026-11-30T11:53:20+01:00", T0),
    ("1796036000", T0),
    ("1796036000.5", T0 + 0.5),
])
def test_start_times(text: str, expected: float) -> None:
    assert parse_start(text) == pytest.approx(expected)
    assert datetime.fromtimestamp(T0, UTC).isoformat() == "2026-11-30T10:53:20+00:00"


@pytest.mark.parametrize(("text", "message"), [
    ("2026-11-30T10:53:20", "time zone"),
    ("yesterday", "2026-11-30T20:14:03Z"),
    ("-5", "not a time"),
])
def test_bad_start_times(text: str, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        parse_start(text)


def test_hand_start_text() -> None:
    assert parse_hand_start("12@4521") == (12, 4521)
    assert parse_hand_start(" 3 @ 0 ") == (3, 0)
    for bad in ("12", "12@", "@5", "a@b", "12@-1"):
        with pytest.raises(InvalidInputError, match="HAND@FRAME"):
            parse_hand_start(bad)


# --- the level clock ticks in the video as on the page -------------------------------------


def test_level_clock_from_the_tournament_clock_or_the_table_level() -> None:
    from overlay.export.video.timeline import level_clock

    running = {"tournament": {"clock": {"remaining": 125.0, "as_of": T0, "running": True}}}
    assert level_clock(running, T0) == ("2:05", False)
    assert level_clock(running, T0 + 0.5) == ("2:05", False)  # rounded up, as the page does
    assert level_clock(running, T0 + 5.0) == ("2:00", False)
    assert level_clock(running, T0 + 999) == ("0:00", False)
    paused = {"tournament": {"clock": {"remaining": 125.0, "as_of": T0, "running": False}}}
    assert level_clock(paused, T0 + 60) == ("2:05", True)
    table = {"table": {"level": {"ends_at": T0 + 61}},
             "tournament": {"clock": {"remaining": 9.0, "started": False}}}
    assert level_clock(table, T0) == ("1:01", False)  # a clock not started is not on air
    assert level_clock({"table": {"level": {"ends_at": None}}}, T0) is None
    assert level_clock(None, T0) is None


def test_the_clock_redraws_once_a_second_and_only_then(tmp_path: Path) -> None:
    from overlay.export.video.encode import find_ffmpeg
    from overlay.export.video.export import ExportOptions, export_footage
    from tests.overlay.export.videokit import make_footage

    level = TableEvent.record(1, T0, LevelStarted(2, 100, 200, ends_at=T0 + 65.5))
    later = [TableEvent.record(e.seq + 1, e.time, e.payload) for e in scripted_log(T0 + 1.2)]
    footage = make_footage(tmp_path / "f.mp4", frames=60, fps=FPS)
    export_footage(lambda: iter([level, *later]), footage, tmp_path / "g.mov",
                   SyncSpec(start=T0), ExportOptions(ffmpeg=find_ffmpeg(), alpha=True))
    pngs = [p.read_bytes() for p in sorted((tmp_path / "g_frames").glob("*.png"))]
    assert len(pngs) == 60
    changes = [k for k in range(1, 60) if pngs[k] != pngs[k - 1]]
    # 1:06 until 65 s are left (0.5 s in: frame 15), 1:05 until frame 45; hand 1 from 1.7 s.
    assert [k for k in changes if k < 51] == [15, 45]
    assert round((T0 + TIMES["start"] + 1.2 - T0) * FPS) in changes


def test_action_clock_runs_a_minute_then_counts_the_final_ten_seconds() -> None:
    from overlay.export.video.timeline import Clocks, clocks_at

    view = {"tournament": {"action_clock": {"seat": 4, "ends_at": T0 + 70.0}}}
    assert clocks_at(view, T0) == Clocks(None, 4, "1:10", False)
    assert clocks_at(view, T0 + 59.5) == Clocks(None, 4, "0:11", False)
    assert clocks_at(view, T0 + 60.0) == Clocks(None, 4, "10", True)
    assert clocks_at(view, T0 + 62.2) == Clocks(None, 4, "8", True)
    assert clocks_at(view, T0 + 99) == Clocks(None, 4, "0", True)
    early = {"tournament": {"action_clock": {"seat": 4, "ends_at": T0 + 70.0,
                                             "countdown_at": T0 + 50.0}}}
    assert clocks_at(early, T0 + 50.0).final
    assert clocks_at({"tournament": {"action_clock": None}}, T0) == Clocks()


def test_the_action_clock_is_drawn_beside_the_bar_and_on_the_player() -> None:
    import numpy as np

    from overlay.export.video.render import OverlayRenderer
    from overlay.export.video.timeline import clocks_at
    from tests.pages.views import flop_view

    view = flop_view()
    now = view["channel"]["as_of"]
    renderer = OverlayRenderer(1920, 1080)
    plain = renderer.render(view, clocks_at(view, now)).bgra
    view["tournament"] = {"action_clock": {"seat": 1, "ends_at": now + 45}}
    called = renderer.render(view, clocks_at(view, now)).bgra

    def red(image: np.ndarray, box: tuple[int, int, int, int]) -> int:
        x0, y0, x1, y1 = box
        part = image[y0:y1, x0:x1].astype(int)  # BGRA of the all-in red (draw.COLORS)
        r, g, b = COLORS["allin"][:3]
        return int(np.count_nonzero((abs(part[..., 0] - b) < 20) & (abs(part[..., 1] - g)
                                     < 20) & (part[..., 2] > r - 20) & (part[..., 3] > 200)))

    bar_right = int(np.flatnonzero(plain[60, :, 3] > 200).max())
    assert red(plain, (bar_right, 40, 1920, 96)) == 0
    assert red(called, (bar_right, 40, 1920, 96)) > 2000  # the red CLOCK box
    seat_one = (40, 124, 800, 204)  # the first player box (seat 1, the player on the clock)
    assert red(called, seat_one) > red(plain, seat_one) + 100  # its red edge
