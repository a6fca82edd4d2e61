"""Video export: the graphics burned into real footage, read back frame by frame.

The footage is written in the test (``cv2.VideoWriter``, each frame carrying its number), the
log is hand 1 and 2 of :mod:`tests.overlay.export.videokit` with known times, and the export is read
back with ``cv2.VideoCapture`` and ``ffprobe``: every frame is there once and in order, the
codec is H.264 (with the footage's audio), and pixel checks find the burned-in graphics
(board cards, winner banner, equity) exactly at the frames of their events.
"""

from __future__ import annotations

import itertools
import shutil
import subprocess
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from overlay.export.video.encode import FootageError, probe_footage
from overlay.export.video.export import ExportOptions, ExportResult, SyncSpec, export_footage
from overlay.export.video.render import Layer, OverlayRenderer
from overlay.export.video.timeline import Sync, frame_views
from overlay.store import open_store
from tests.overlay.export.videokit import (
    GREY,
    T0,
    TIMES,
    frame_number,
    make_footage,
    probe,
    read_frames,
    scripted_log,
    white_pixels,
    write_log,
)
from tests.system_packages import needs_ffmpeg

FFMPEG = shutil.which("ffmpeg")

FPS = 30.0
FRAMES = 120
LEAD = 0.37
"""The footage starts this long before T0: event frames are not whole seconds."""
BOARD = (0.45, 0.6, 0.85, 0.97)
"""Where the board sits (fractions of the frame): bottom centre-right, as in the page."""


def frame_at(seconds_after_t0: float) -> int:
    return round((seconds_after_t0 + LEAD) * FPS)


@pytest.fixture(scope="module")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_log(scripted_log(), tmp_path_factory.mktemp("log") / "data")


def run_export(log_dir: Path, footage: Path, out: Path, **options: object) -> ExportResult:
    store = open_store(data_dir=log_dir)
    try:
        settings: dict[str, object] = {"table_name": "Main Event Final Table",
                                       "ffmpeg": FFMPEG, **options}
        return export_footage(store.iter_all, footage, out, SyncSpec(start=T0 - LEAD),
                              ExportOptions(**settings))  # type: ignore[arg-type]
    finally:
        store.close()


@pytest.fixture(scope="module")
def burned(log_dir: Path, tmp_path_factory: pytest.TempPathFactory,
           ) -> tuple[ExportResult, list[np.ndarray]]:
    folder = tmp_path_factory.mktemp("burn")
    footage = make_footage(folder / "footage.mp4", frames=FRAMES, fps=FPS,
                           audio=FFMPEG is not None)
    result = run_export(log_dir, footage, folder / "out.mp4")
    return result, list(read_frames(result.out))


def first_frame_where(frames: list[np.ndarray], test: object) -> int:
    return next(k for k, frame in enumerate(frames) if test(frame))  # type: ignore[operator]


def test_every_footage_frame_is_written_once_in_order(
        burned: tuple[ExportResult, list[np.ndarray]]) -> None:
    result, frames = burned
    assert result.frames == FRAMES
    assert [frame_number(f) for f in frames] == list(range(FRAMES))


@needs_ffmpeg
def test_output_is_h264_with_the_footage_audio_and_length(
        burned: tuple[ExportResult, list[np.ndarray]]) -> None:
    result, _ = burned
    streams = probe(result.out)["streams"]
    video = next(s for s in streams if s["codec_type"] == "video")
    audio = [s for s in streams if s["codec_type"] == "audio"]
    assert result.h264
    assert video["codec_name"] == "h264" and video["pix_fmt"] == "yuv420p"
    assert int(video["nb_read_frames"]) == FRAMES
    assert float(video["duration"]) == pytest.approx(FRAMES / FPS, abs=0.5 / FPS)
    assert (video["width"], video["height"]) == (640, 360)
    assert len(audio) == 1 and audio[0]["codec_name"] == "aac"


def test_board_cards_appear_at_the_frames_of_their_events(
        burned: tuple[ExportResult, list[np.ndarray]]) -> None:
    _, frames = burned
    white = [white_pixels(f, BOARD) for f in frames]
    flop = first_frame_where(frames, lambda f: white_pixels(f, BOARD) > 0)
    assert abs(flop - frame_at(TIMES["flop"])) <= 1
    # Each new card adds a card face: the count steps up at the turn and at the river.
    turn = next(k for k in range(flop, FRAMES) if white[k] > white[flop] * 1.2)
    assert abs(turn - frame_at(TIMES["turn"])) <= 1
    river = next(k for k in range(turn, FRAMES) if white[k] > white[turn] * 1.15)
    assert abs(river - frame_at(TIMES["river"])) <= 1
    assert white[: frame_at(TIMES["flop"]) - 1] == [0] * (frame_at(TIMES["flop"]) - 1)


def _green(frame: np.ndarray) -> int:
    """Pixels of the winner colour (#3ddc97: the banner edge and the winner's box)."""
    b, g, r = (frame[:, :, k].astype(np.int16) for k in range(3))
    return int(np.count_nonzero((abs(b - 0x97) < 30) & (abs(g - 0xDC) < 30)
                                & (abs(r - 0x3D) < 30)))


def test_winner_banner_appears_at_the_award(
        burned: tuple[ExportResult, list[np.ndarray]]) -> None:
    _, frames = burned
    # (some 180 pixels of a 640x360 frame after it; before it, at most a few 4:2:0 colour
    # fringes: the edge of a green clubs index can fall in the winner colour's range)
    assert all(_green(f) < 10 for f in frames[: frame_at(TIMES["award"]) - 1])
    award = first_frame_where(frames, lambda f: _green(f) > 100)
    assert abs(award - frame_at(TIMES["award"])) <= 1


def _equity_blue(frame: np.ndarray) -> int:
    """Pixels of the equity bar's blue (#35b8ff), give or take 50 levels: at 640x360 the bar
    is two rows high, and 4:2:0 chroma mixes it with the box behind it (ffmpeg's own
    conversion of the composited BGR frame leaves fewer than 30 pixels within 40 levels)."""
    b, g, r = (frame[:, :, k].astype(np.int16) for k in range(3))
    return int(np.count_nonzero((abs(b - 0xFF) < 50) & (abs(g - 0xB8) < 50)
                                & (abs(r - 0x35) < 50)))


def test_hole_cards_and_equity_show_full_information(
        burned: tuple[ExportResult, list[np.ndarray]]) -> None:
    _, frames = burned
    # Before the deal: no card faces in the player column, no equity; after: both.
    players = (0.0, 0.1, 0.45, 0.4)
    before, after = frames[frame_at(TIMES["start"]) - 2], frames[frame_at(TIMES["flop"]) + 2]
    assert white_pixels(before, players) == 0
    assert white_pixels(after, players) > 300
    assert _equity_blue(before) == 0 and _equity_blue(after) > 20


def test_frames_outside_the_graphics_are_the_footage(
        burned: tuple[ExportResult, list[np.ndarray]]) -> None:
    _, frames = burned
    for frame in frames[::10]:
        middle = frame[120:200, 380:620]  # between the player column and the board
        assert np.abs(middle.astype(int) - np.array(GREY)).max() <= 8


@needs_ffmpeg
def test_1080p_footage(log_dir: Path, tmp_path: Path) -> None:
    footage = make_footage(tmp_path / "hd.mp4", frames=30, fps=FPS, size=(1920, 1080))
    store = open_store(data_dir=log_dir)
    try:  # frame 0 is 1.2 s after T0: the flop (1.5 s) falls on frame 9
        result = export_footage(store.iter_all, footage, tmp_path / "hd-out.mp4",
                                SyncSpec(start=T0 + 1.2), ExportOptions(ffmpeg=FFMPEG))
    finally:
        store.close()
    frames = list(read_frames(result.out))
    assert len(frames) == 30 and frames[0].shape == (1080, 1920, 3)
    assert [frame_number(f) for f in frames] == list(range(30))
    flop = first_frame_where(frames, lambda f: white_pixels(f, BOARD) > 0)
    assert abs(flop - round(0.3 * FPS)) <= 1
    video = probe(result.out)["streams"][0]
    assert video["codec_name"] == "h264" and int(video["nb_read_frames"]) == 30


def test_without_ffmpeg_opencv_writes_the_mp4(log_dir: Path, tmp_path: Path) -> None:
    footage = make_footage(tmp_path / "f.mp4", frames=60, fps=FPS)
    store = open_store(data_dir=log_dir)
    try:
        result = export_footage(store.iter_all, footage, tmp_path / "cv.mp4",
                                SyncSpec(start=T0 - LEAD), ExportOptions(ffmpeg=None))
    finally:
        store.close()
    frames = list(read_frames(result.out))
    assert not result.h264
    assert [frame_number(f) for f in frames] == list(range(60))
    flop = first_frame_where(frames, lambda f: white_pixels(f, BOARD) > 0)
    assert abs(flop - frame_at(TIMES["flop"])) <= 1
    capture = cv2.VideoCapture(str(result.out))
    fourcc = int(capture.get(cv2.CAP_PROP_FOURCC)).to_bytes(4, "little")
    capture.release()
    assert fourcc in (b"mp4v", b"FMP4")  # MPEG-4 Part 2 (as written, as decoded)
    assert result.files[1:] == [tmp_path / "cv.clips.csv", tmp_path / "cv.chapters.txt",
                                tmp_path / "cv.edl"]
    if shutil.which("ffprobe"):
        assert probe(result.out, chapters=True)["streams"][0]["codec_name"] == "mpeg4"


@needs_ffmpeg
def test_via_opencv_then_ffmpeg_gives_the_same_frames(log_dir: Path, tmp_path: Path) -> None:
    footage = make_footage(tmp_path / "f.mp4", frames=60, fps=FPS)
    result = run_export(log_dir, footage, tmp_path / "two-pass.mp4", via_opencv=True)
    frames = list(read_frames(result.out))
    assert result.h264 and probe(result.out)["streams"][0]["codec_name"] == "h264"
    assert [frame_number(f) for f in frames] == list(range(60))
    flop = first_frame_where(frames, lambda f: white_pixels(f, BOARD) > 0)
    assert abs(flop - frame_at(TIMES["flop"])) <= 1
    assert not list(tmp_path.glob("feltcast-video-*"))  # the intermediate file is gone


@needs_ffmpeg
def test_alpha_writes_png_frames_and_prores_4444(log_dir: Path, tmp_path: Path) -> None:
    footage = make_footage(tmp_path / "f.mp4", frames=60, fps=FPS)
    result = run_export(log_dir, footage, tmp_path / "graphics.mov", alpha=True)
    folder = tmp_path / "graphics_frames"
    pngs = sorted(folder.glob("frame_*.png"))
    assert result.files[:2] == [tmp_path / "graphics.mov", folder]
    assert len(pngs) == 60
    flop = cv2.imread(str(pngs[frame_at(TIMES["flop"]) + 1]), cv2.IMREAD_UNCHANGED)
    assert flop.shape == (360, 640, 4)
    assert flop[180, 320, 3] == 0 and flop[5, 635, 3] == 0  # no graphics: transparent
    assert flop[:, :, 3].max() == 255  # the card faces are opaque
    assert white_pixels(flop[:, :, :3] * (flop[:, :, 3:] > 0), BOARD) > 0
    early = cv2.imread(str(pngs[0]), cv2.IMREAD_UNCHANGED)
    assert white_pixels(early[:, :, :3], BOARD) == 0
    # The ProRes file keeps the transparency: decode one frame back to RGBA.
    back = tmp_path / "back.png"
    subprocess.run([str(FFMPEG), "-v", "error", "-y", "-i", str(tmp_path / "graphics.mov"),
                    "-vf", f"select=eq(n\\,{frame_at(TIMES['flop']) + 1})", "-frames:v", "1",
                    "-pix_fmt", "rgba", str(back)], check=True)
    decoded = cv2.imread(str(back), cv2.IMREAD_UNCHANGED)
    assert decoded.shape == (360, 640, 4)
    assert decoded[180, 320, 3] == 0 and decoded[:, :, 3].max() >= 250
    assert np.array_equal(decoded[:, :, 3] > 128, flop[:, :, 3] > 128) or \
        np.mean((decoded[:, :, 3] > 128) != (flop[:, :, 3] > 128)) < 0.001
    video = probe(tmp_path / "graphics.mov")["streams"][0]
    # Written as yuva444p10le; ffmpeg's decoder reports ProRes 4444 as 10 or 12 bits.
    assert video["codec_name"] == "prores" and video["pix_fmt"].startswith("yuva444p")
    assert video["profile"] == "4444" and int(video["nb_read_frames"]) == 60


@needs_ffmpeg
def test_alpha_prores_matches_the_png_of_every_frame_and_repeats_are_links(
        log_dir: Path, tmp_path: Path) -> None:
    """Each picture is encoded once and its packet repeated for its frames: every ProRes
    frame is the PNG of the same frame, changes included, at the footage's exact rate (29.97);
    the mov holds one distinct packet a picture; a picture's later frames are hard links to
    its first file; a folder named with a space and a quote is no problem, and nothing is
    left beside the mov."""
    assert FFMPEG is not None
    folder = tmp_path / "Day 3 'final'"
    folder.mkdir()
    footage = make_footage(folder / "f.mp4", frames=60, fps=30000 / 1001)
    result = run_export(log_dir, footage, folder / "graphics.mov", alpha=True)
    pngs = sorted((folder / "graphics_frames").glob("frame_*.png"))
    assert len(pngs) == 60
    alphas = [cv2.imread(str(p), cv2.IMREAD_UNCHANGED)[:, :, 3] for p in pngs]
    files = {p.stat().st_ino for p in pngs}
    changes = 1 + sum(not np.array_equal(a, b) for a, b in itertools.pairwise(alphas))
    assert 2 <= len(files) <= result.frames and len(files) >= changes
    assert all(p.stat().st_nlink == sum(q.stat().st_ino == p.stat().st_ino for q in pngs)
               for p in pngs)
    done = subprocess.run([FFMPEG, "-v", "error", "-i", str(folder / "graphics.mov"),
                           "-f", "rawvideo", "-pix_fmt", "rgba", "-"], capture_output=True,
                          check=True)
    decoded = np.frombuffer(done.stdout, np.uint8).reshape(-1, 360, 640, 4)
    assert len(decoded) == 60
    for number, (png, mov) in enumerate(zip(alphas, decoded[:, :, :, 3], strict=True)):
        assert np.mean((png > 128) != (mov > 128)) < 0.001, number
    packets = subprocess.run([FFMPEG, "-v", "error", "-i", str(folder / "graphics.mov"),
                              "-c", "copy", "-f", "framemd5", "-"], capture_output=True,
                             text=True, check=True).stdout
    sums = [line.split(",")[-1].strip() for line in packets.splitlines()
            if line and not line.startswith("#")]
    assert len(sums) == 60 and len(set(sums)) == len(files)
    video = probe(folder / "graphics.mov")["streams"][0]
    rate = probe(footage)["streams"][0]["r_frame_rate"]  # OpenCV's 29.97: 2997/100
    assert video["r_frame_rate"] == rate != "30/1" and video["profile"] == "4444"
    assert not [p.name for p in folder.iterdir()  # the clip lists aside
                if not p.name.startswith(("f.mp4", "graphics.", "graphics_frames"))]
    assert not list(folder.glob("*.ffconcat"))


def test_unreadable_footage_is_a_clear_error(tmp_path: Path) -> None:
    fake = tmp_path / "broken.mp4"
    fake.write_text("not a video")
    with pytest.raises(FootageError, match="not a video"):
        probe_footage(fake)
    with pytest.raises(FootageError, match="no such file"):
        probe_footage(tmp_path / "missing.mp4")


# --- the layer blend ---------------------------------------------------------------------


@settings(max_examples=30)
@given(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255))
def test_blend_matches_alpha_compositing(alpha: int, colour: int, under: int) -> None:
    from PIL import Image

    image = Image.new("RGBA", (8, 4), (0, 0, 0, 0))
    image.paste(Image.new("RGBA", (4, 4), (colour, colour, colour, alpha)), (4, 0))
    layer = Layer.from_rgba(image, [(0, 0, 8, 4)])
    frame = np.full((4, 8, 3), under, np.uint8)
    layer.composite(frame)
    expected = (colour * alpha + under * (255 - alpha)) / 255
    assert np.all(np.abs(frame[:, 4:].astype(float) - expected) <= 1.0)
    assert np.all(frame[:, :4] == under)  # no graphics: the footage untouched


def test_renderer_draws_only_inside_its_tiles() -> None:
    renderer = OverlayRenderer(640, 360)
    views = list(frame_views(scripted_log(), Sync(T0, FPS), table_name="T"))
    layer = renderer.render(views[-1].view)
    frame = np.random.default_rng(1).integers(0, 256, (360, 640, 3), dtype=np.uint8)
    before = frame.copy()
    layer.composite(frame)
    changed = np.any(frame != before, axis=2)
    alpha = layer.bgra[:, :, 3] > 0
    assert not np.any(changed & ~alpha)
    assert np.count_nonzero(changed) > 1000


@needs_ffmpeg
def test_footage_of_odd_size_is_padded_for_h264(log_dir: Path, tmp_path: Path) -> None:
    footage = tmp_path / "odd.mkv"  # FFV1 keeps odd sides (OpenCV's mp4v would round down)
    subprocess.run([str(FFMPEG), "-v", "error", "-f", "lavfi", "-i",
                    f"testsrc=size=323x181:rate={FPS:g}", "-frames:v", "36", "-c:v", "ffv1",
                    str(footage)], check=True)
    assert (probe_footage(footage).width, probe_footage(footage).height) == (323, 181)
    result = run_export(log_dir, footage, tmp_path / "odd-out.mp4")
    video = probe(result.out)["streams"][0]
    assert (video["width"], video["height"]) == (324, 182)  # yuv420p needs even sides
    assert int(video["nb_read_frames"]) == 36


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (640, 360)])
def test_every_pixel_is_blended_exactly_once(size: tuple[int, int]) -> None:
    # The event bar and player column reach over the board panel's box at some sizes: a
    # pixel blended by two tiles would come out darker than alpha compositing says.
    from tests.pages.views import showdown_view, ten_handed_preflop_view

    width, height = size
    for view in (showdown_view(), ten_handed_preflop_view()):
        layer = OverlayRenderer(width, height).render(view)
        frame = np.random.default_rng(7).integers(0, 256, (height, width, 3), dtype=np.uint8)
        expected = frame.astype(float)
        alpha = layer.bgra[:, :, 3:4] / 255.0
        expected = layer.bgra[:, :, :3] * alpha + expected * (1 - alpha)
        layer.composite(frame)
        assert np.abs(frame - expected).max() <= 1.0


def test_a_log_the_service_wrote_exports_every_hand(tmp_path: Path) -> None:
    # TableService's own log (tests/overlay/export/session.py): an undone raise, a misdeal, unread
    # hole cards, side and split pots, eliminations, names in several scripts; 230 s of play.
    from tests.overlay.export.session import T0 as SESSION_T0
    from tests.overlay.export.session import record_session

    data = record_session(tmp_path / "session")
    fps = 4.0
    footage = make_footage(tmp_path / "long.mp4", frames=960, fps=fps, size=(320, 180))
    store = open_store(data_dir=data)
    try:
        result = export_footage(store.iter_all, footage, tmp_path / "session.mp4",
                                SyncSpec(start=SESSION_T0 - 5), ExportOptions(ffmpeg=FFMPEG))
    finally:
        store.close()
    assert result.frames == 960
    assert [c.hand for c in result.clips] == [1, 2, 3, 4, 5]
    assert result.clips[1].title == "Hand 2 (misdeal)"
    assert all(" win" in c.title for c in result.clips if c.hand != 2)
    frames = list(read_frames(result.out))
    assert [frame_number(f) for f in frames] == list(range(960))
    for clip in result.clips:  # each hand that was played to its end shows its winner banner
        if clip.hand != 2:
            assert _green(frames[clip.first]) == 0 and _green(frames[clip.last]) > 20, clip


def _ffmpeg_failing_when(tmp_path: Path, word: str, message: str) -> Path:
    """An ffmpeg that prints ``message`` and fails when its arguments hold ``word``, and is
    the real ffmpeg otherwise."""
    assert FFMPEG is not None
    broken = tmp_path / "ffmpeg"
    broken.write_text(f"#!/bin/sh\ncase \" $* \" in *'{word}'*) echo '{message}' >&2; "
                      f"exit 1;; esac\nexec {FFMPEG} \"$@\"\n")
    broken.chmod(0o755)
    return broken


@needs_ffmpeg
def test_a_failing_encoder_is_reported_and_leaves_no_files(log_dir: Path,
                                                            tmp_path: Path) -> None:
    from overlay.export.video.encode import EncodeError

    broken = _ffmpeg_failing_when(tmp_path, "libx264", "Unknown encoder libx264")
    footage = make_footage(tmp_path / "f.mp4", frames=60, fps=FPS)
    with pytest.raises(EncodeError, match="Unknown encoder libx264"):
        run_export(log_dir, footage, tmp_path / "out.mp4", ffmpeg=str(broken))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.mp4", "ffmpeg"]


@needs_ffmpeg
def test_footage_ffmpeg_cannot_decode_is_reported_and_leaves_no_files(
        log_dir: Path, tmp_path: Path) -> None:
    # The footage is decoded by the ffmpeg that burns the graphics in: when it refuses the
    # file (its message starts with the file's name), the error is the footage's.
    footage = make_footage(tmp_path / "f.mp4", frames=60, fps=FPS)
    broken = _ffmpeg_failing_when(tmp_path, "overlay=", f"{footage}: Invalid data found when "
                                  "processing input")
    with pytest.raises(FootageError, match=r"f\.mp4: ffmpeg could not decode it: Invalid data"):
        run_export(log_dir, footage, tmp_path / "out.mp4", ffmpeg=str(broken))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.mp4", "ffmpeg"]
