"""The burn-in's ffmpeg process (:class:`overlay.export.video.encode.OverlayEncoder`), driven
with pictures of plain colours over numbered footage and read back frame by frame: each
picture shows from exactly its first frame, at NTSC's 30000/1001 too (where a change placed on
a coarser clock would land a frame early or late), nothing is stored on disk for them, and a
failing drawing or ffmpeg is reported with no file left behind."""

from __future__ import annotations

import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import cv2
import numpy as np
import pytest

from overlay.export.video.encode import EncodeError, OverlayEncoder, Progress
from overlay.export.video.render import Layer
from tests.overlay.export.videokit import frame_number, make_footage, read_frames
from tests.system_packages import needs_ffmpeg

FFMPEG = shutil.which("ffmpeg")
SIZE = (320, 180)
COLOURS = [(0, 0, 255), (255, 0, 0), (0, 255, 0), (255, 255, 0), (0, 255, 255),
           (255, 0, 255), (0, 128, 255), (255, 255, 255)]
"""BGR of each picture in turn."""


def picture(colour: tuple[int, int, int]) -> bytes:
    """A 32-bit BMP of ``SIZE``: an opaque block of ``colour`` in the lower half, clear
    elsewhere (the footage's frame number, at the top, stays readable)."""
    bgra = np.zeros((SIZE[1], SIZE[0], 4), np.uint8)
    bgra[100:170, 20:300] = (*colour, 255)
    return Layer(SIZE[0], SIZE[1], [(0, 0, bgra)]).bmp()


def shown(frame: np.ndarray) -> int | None:
    """Which of ``COLOURS`` the block shows (None: none within 60 levels)."""
    pixel = frame[135, 160].astype(int)
    near = [k for k, c in enumerate(COLOURS) if np.abs(pixel - c).max() < 60]
    return near[0] if near else None


@needs_ffmpeg
def test_a_layer_bmp_is_read_back_exactly_alpha_included(tmp_path: Path) -> None:
    """The BMP of a layer (written here, top-down) is what ffmpeg and OpenCV decode: every
    byte of its straight-alpha BGRA, half-transparent pixels included."""
    assert FFMPEG is not None
    bgra = np.random.default_rng(7).integers(0, 256, (SIZE[1] - 1, SIZE[0] - 3, 4), np.uint8)
    path = tmp_path / "layer.bmp"
    path.write_bytes(Layer(SIZE[0] - 3, SIZE[1] - 1, [(0, 0, bgra)]).bmp())
    assert np.array_equal(cv2.imread(str(path), cv2.IMREAD_UNCHANGED), bgra)
    done = subprocess.run([FFMPEG, "-v", "error", "-i", str(path), "-f", "rawvideo",
                           "-pix_fmt", "bgra", "-"], capture_output=True, check=True)
    assert np.array_equal(np.frombuffer(done.stdout, np.uint8).reshape(bgra.shape), bgra)


@needs_ffmpeg
@pytest.mark.parametrize("fps", [Fraction(30000, 1001), Fraction(25), Fraction(50)])
def test_each_picture_shows_from_exactly_its_first_frame(tmp_path: Path, fps: Fraction) -> None:
    assert FFMPEG is not None
    frames = 240
    footage = make_footage(tmp_path / "f.mp4", frames=frames, fps=float(fps), size=SIZE)
    # Changes on consecutive frames, late in the file (where rounding would add up), and at
    # frames 7 and 13 (at 30000/1001 and at 50 fps, a change on the image demuxer's own
    # 1/25 s clock lands a frame early there).
    starts = [0, 7, 13, 15, 16, 17, 200, 239]
    encoder = OverlayEncoder(FFMPEG, footage, tmp_path / "out.mp4", size=SIZE, rate=fps,
                             frames=frames, starts=starts)
    written = encoder.run(picture(COLOURS[k]) for k in range(len(starts)))
    assert written == frames
    got = list(read_frames(tmp_path / "out.mp4"))
    assert [frame_number(f) for f in got] == list(range(frames))
    expected = [max(k for k, s in enumerate(starts) if s <= n) for n in range(frames)]
    assert [shown(f) for f in got] == expected


@needs_ffmpeg
def test_the_pictures_go_through_named_pipes_not_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert FFMPEG is not None
    footage = make_footage(tmp_path / "f.mp4", frames=60, size=SIZE)
    # A temporary folder of this test's own: an export running beside it (another test
    # worker) makes its own graphics folder in the system's.
    private = tmp_path / "tmp"
    private.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    before = set(Path(tempfile.gettempdir()).glob("feltcast-graphics-*"))
    assert before == set()
    seen: list[list[str]] = []

    def pictures() -> Iterator[bytes]:
        for k in range(3):
            (folder,) = set(Path(tempfile.gettempdir()).glob("feltcast-graphics-*")) - before
            seen.append(sorted(p.name for p in folder.iterdir()
                               if not stat.S_ISFIFO(p.stat().st_mode)))
            yield picture(COLOURS[k])

    encoder = OverlayEncoder(FFMPEG, footage, tmp_path / "out.mp4", size=SIZE,
                             rate=Fraction(30), frames=60, starts=[0, 20, 40])
    assert encoder.run(pictures()) == 60
    assert seen == [[]] * 3  # every picture's path is a pipe, and the script's too
    assert set(Path(tempfile.gettempdir()).glob("feltcast-graphics-*")) == before


@needs_ffmpeg
def test_a_drawing_that_fails_stops_ffmpeg_and_leaves_no_output(tmp_path: Path) -> None:
    assert FFMPEG is not None
    footage = make_footage(tmp_path / "f.mp4", frames=90, size=SIZE)

    def pictures() -> Iterator[bytes]:
        yield picture(COLOURS[0])
        raise ValueError("the renderer broke")

    encoder = OverlayEncoder(FFMPEG, footage, tmp_path / "out.mp4", size=SIZE,
                             rate=Fraction(30), frames=90, starts=[0, 30, 60])
    with pytest.raises(ValueError, match="the renderer broke"):
        encoder.run(pictures())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.mp4"]


@needs_ffmpeg
def test_fewer_pictures_than_scheduled_is_an_error_not_a_hang(tmp_path: Path) -> None:
    assert FFMPEG is not None
    footage = make_footage(tmp_path / "f.mp4", frames=60, size=SIZE)
    encoder = OverlayEncoder(FFMPEG, footage, tmp_path / "out.mp4", size=SIZE,
                             rate=Fraction(30), frames=60, starts=[0, 30])
    with pytest.raises(RuntimeError, match="2 pictures were scheduled and only 1 drawn"):
        encoder.run(iter([picture(COLOURS[0])]))
    assert not (tmp_path / "out.mp4").exists()


@needs_ffmpeg
def test_an_ffmpeg_that_dies_before_reading_a_picture_is_reported(tmp_path: Path) -> None:
    footage = make_footage(tmp_path / "f.mp4", frames=30, size=SIZE)
    dying = tmp_path / "ffmpeg"
    dying.write_text("#!/bin/sh\necho 'Killed by the test' >&2\nexit 137\n")
    dying.chmod(0o755)
    encoder = OverlayEncoder(str(dying), footage, tmp_path / "out.mp4", size=SIZE,
                             rate=Fraction(30), frames=30, starts=[0])
    with pytest.raises(EncodeError, match="Killed by the test"):
        encoder.run(iter([picture(COLOURS[0])]))


@needs_ffmpeg
def test_progress_counts_the_frames_ffmpeg_encoded(tmp_path: Path) -> None:
    import io

    assert FFMPEG is not None
    footage = make_footage(tmp_path / "f.mp4", frames=45, size=SIZE)
    stream = io.StringIO()
    progress = Progress(45, stream=stream, label="burning in")
    encoder = OverlayEncoder(FFMPEG, footage, tmp_path / "out.mp4", size=SIZE,
                             rate=Fraction(30), frames=45, starts=[0])
    encoder.run(iter([picture(COLOURS[0])]), progress)
    progress.update(encoder.frames, final=True)
    assert "45/45 frames" in stream.getvalue().splitlines()[-1]


@pytest.mark.parametrize("starts", [[], [1, 5], [0, 5, 5], [0, 9, 3]])
def test_starts_must_rise_from_frame_0(starts: list[int]) -> None:
    with pytest.raises(ValueError, match="must rise from frame 0"):
        OverlayEncoder("ffmpeg", Path("f.mp4"), Path("o.mp4"), size=SIZE, rate=Fraction(30),
                       frames=10, starts=starts)


@needs_ffmpeg
def test_starts_found_by_a_function_are_found_while_ffmpeg_starts(tmp_path: Path) -> None:
    """``starts`` as a function (the export's first pass over the log) is called once
    ffmpeg has been started, so that both run at once; the pictures then show from those
    frames as given."""
    import os
    import select

    assert FFMPEG is not None
    footage = make_footage(tmp_path / "f.mp4", frames=60, size=SIZE)
    signal = tmp_path / "started"
    os.mkfifo(signal)
    wrapper = tmp_path / "ffmpeg"  # says it runs, then is ffmpeg
    wrapper.write_text(f"#!/bin/sh\necho started > '{signal}'\nexec '{FFMPEG}' \"$@\"\n")
    wrapper.chmod(0o755)
    reader = os.open(signal, os.O_RDONLY | os.O_NONBLOCK)

    def starts() -> list[int]:
        ready, _, _ = select.select([reader], [], [], 60)  # ffmpeg's word, not a delay
        assert ready and os.read(reader, 64) == b"started\n"
        return [0, 20, 40]

    try:
        encoder = OverlayEncoder(str(wrapper), footage, tmp_path / "out.mp4", size=SIZE,
                                 rate=Fraction(30), frames=60, starts=starts)
        assert encoder.run(picture(COLOURS[k]) for k in range(3)) == 60
    finally:
        os.close(reader)
    got = [shown(f) for f in read_frames(tmp_path / "out.mp4")]
    assert got == [0] * 20 + [1] * 20 + [2] * 20


@needs_ffmpeg
def test_a_schedule_that_fails_stops_ffmpeg_and_leaves_no_output(tmp_path: Path) -> None:
    assert FFMPEG is not None
    footage = make_footage(tmp_path / "f.mp4", frames=30, size=SIZE)

    def broken() -> list[int]:
        raise ValueError("the log broke")

    for starts, message in ((broken, "the log broke"), (lambda: [0, 9, 3], "must rise")):
        encoder = OverlayEncoder(FFMPEG, footage, tmp_path / "out.mp4", size=SIZE,
                                 rate=Fraction(30), frames=30, starts=starts)
        with pytest.raises(ValueError, match=message):
            encoder.run(iter([picture(COLOURS[0])]))
        assert sorted(p.name for p in tmp_path.iterdir()) == ["f.mp4"]
