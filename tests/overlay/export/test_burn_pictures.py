"""The pictures of a burn-in as this process draws them for ffmpeg (issue 23): a scene is
composited only where it differs from the last one, into one RGBA buffer written to ffmpeg
as it is, from views read from the log once (the second pass reads them back from a spool),
and the drawing primitives cached or drawn from their corners: every picture is still, byte
for byte, the layer the renderer draws for its view."""

from __future__ import annotations

import itertools
import subprocess
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from overlay.export.video.draw import _round_mask, _supersampled_mask, rounded
from overlay.export.video.export import Pictures, _drawn, _ViewSpool, picture_starts
from overlay.export.video.render import FrameCanvas, OverlayRenderer, Scene, bmp_header
from overlay.export.video.timeline import (
    Sync,
    ViewCursor,
    clocks_at,
    drawn_key,
    drawn_view,
    frame_views,
)
from overlay.store import open_store
from tests.overlay.export.session import T0, TABLE_NAME
from tests.system_packages import needs_ffmpeg


def square(colour: tuple[int, int, int, int], size: int = 10) -> Image.Image:
    return Image.new("RGBA", (size, size), colour)


def on_a_clear_frame(scene: Scene) -> np.ndarray:
    """``scene.layer()`` placed on a clear frame, as RGBA."""
    frame = np.zeros((scene.height, scene.width, 4), np.uint8)
    for x0, y0, part in scene.layer().parts:
        frame[y0:y0 + part.shape[0], x0:x0 + part.shape[1]] = cv2.cvtColor(
            part, cv2.COLOR_BGRA2RGBA)
    return frame


def test_the_canvas_shows_each_scene_as_its_layer_redrawing_only_what_changed() -> None:
    red, half, blue = square((255, 0, 0, 255)), square((0, 255, 0, 128)), square((0, 0, 255, 90))
    halo = square((0, 0, 0, 60), 16)  # a shadow under the half-green square, off the frame
    box = (0, 0, 60, 40)
    scenes = [
        Scene(64, 48, (), None),
        Scene(64, 48, ((halo, -3, -3), (half, 0, 0), (red, 20, 5)), box),
        Scene(64, 48, ((halo, -3, -3), (half, 0, 0), (red, 24, 5)), box),  # red moves
        Scene(64, 48, ((halo, -3, -3), (half, 0, 0), (red, 24, 5), (blue, 28, 9)), box),
        Scene(64, 48, ((halo, -3, -3), (half, 0, 0), (blue, 28, 9)), box),  # blue moves up
        Scene(64, 48, ((halo, -3, -3), (half, 0, 0), (blue, 28, 9)), (0, 0, 32, 14)),  # cut
        Scene(64, 48, ((halo, -3, -3), (blue, 50, 40)), (0, 0, 64, 48)),  # half off the frame
        Scene(64, 48, (), None),
    ]
    canvas = FrameCanvas(64, 48)
    redrawn = []
    for scene in scenes:
        before = canvas.redrawn
        assert np.array_equal(canvas.draw(scene), on_a_clear_frame(scene))
        redrawn.append(canvas.redrawn - before)
    assert redrawn[2] == 14 * 10  # where the red square was or is: not the box
    assert redrawn[3] == 10 * 10  # the blue square
    canvas.draw(scenes[2])
    before = canvas.redrawn
    canvas.draw(Scene(64, 48, tuple(scenes[2].items), box))  # the same images, placed alike
    assert canvas.redrawn == before


def test_the_pictures_drawn_from_the_spool_are_the_layers_of_the_log(
        session_dir: Path) -> None:
    """The log the service wrote (a level clock ticking, side pots, a split pot, ...), drawn
    as the burn-in draws it: each picture is the renderer's layer for its frame, walked over
    the log itself; the spool names the same starts and picture count."""
    store = open_store(data_dir=session_dir)
    try:
        entries = list(store.iter_all())
    finally:
        store.close()
    fps = 1.0
    sync = Sync(T0, fps)
    frames = sync.frame_of(entries[-1].time) + 4
    size = (320, 180)
    views = list(frame_views(iter(entries), sync, frames=frames, table_name=TABLE_NAME))
    expected = Pictures(OverlayRenderer(*size), sync)
    walked = ViewCursor(views)
    starts = picture_starts(ViewCursor(views), sync, frames)
    with _ViewSpool(lambda: iter(views), sync, frames) as spool:
        assert spool.starts() == starts
        assert spool.changes == len(views)
        drawn = _drawn(spool.cursor, OverlayRenderer(*size), sync, frames)
        count = 0
        for frame, (header, pixels) in zip(starts, drawn, strict=True):
            layer = expected.at(walked, frame)
            rgba = np.frombuffer(pixels, np.uint8).reshape(size[1], size[0], 4)
            assert header == bmp_header(*size, rgba=True)
            assert np.array_equal(cv2.cvtColor(rgba, cv2.COLOR_RGBA2BGRA), layer.bgra), frame
            count += 1
    assert count == len(starts) > 100


def test_a_views_drawn_part_draws_the_same_picture() -> None:
    from tests.pages.views import flop_view

    view = flop_view()
    now = view["channel"]["as_of"]
    renderer = OverlayRenderer(640, 360)
    called = dict(view, tournament={"action_clock": {"seat": 1, "ends_at": now + 45},
                                    "clock": {"remaining": 95.0, "as_of": now,
                                              "running": True}})
    for shown in (view, called):
        again = drawn_view(drawn_key(shown))
        assert clocks_at(again, now + 3) == clocks_at(shown, now + 3)
        assert np.array_equal(renderer.render(again, clocks_at(again, now)).bgra,
                              renderer.render(shown, clocks_at(shown, now)).bgra)


@pytest.mark.parametrize("radius", [0, 1, 5, 10, 13])
def test_a_round_mask_drawn_from_its_corners_is_the_whole_mask_drawn(radius: int) -> None:
    sizes = [(w, h) for w, h in itertools.product([1, 7, 2 * radius + 8, 2 * radius + 9, 61,
                                                   708], [1, 5, 22, 2 * radius + 9, 56, 96])]
    for w, h in [*sizes, (600, 162), (1416, 192), (40, 400)]:
        assert np.array_equal(np.asarray(_round_mask.__wrapped__(w, h, radius)),
                              np.asarray(_supersampled_mask(w, h, radius))), (w, h)


def test_rounded_gives_a_new_image_each_time() -> None:
    first = rounded((60, 20), 5, (255, 255, 255, 255))
    first.paste((0, 0, 0, 0), (0, 0, 60, 20))  # a caller drawing on its copy
    again = rounded((60, 20), 5, (255, 255, 255, 255))
    assert again is not first and np.asarray(again)[10, 30, 3] == 255


@needs_ffmpeg
def test_an_rgba_bmp_is_read_back_exactly(tmp_path: Path) -> None:
    """The header of the burn-in's pictures: ffmpeg reads RGBA in that byte order, alpha
    included, as it reads the BGRA of :meth:`Layer.bmp`."""
    import shutil

    ffmpeg = shutil.which("ffmpeg")
    assert ffmpeg is not None
    rgba = np.random.default_rng(5).integers(0, 256, (17, 23, 4), np.uint8)
    path = tmp_path / "picture.bmp"
    path.write_bytes(bmp_header(23, 17, rgba=True) + rgba.tobytes())
    done = subprocess.run([ffmpeg, "-v", "error", "-i", str(path), "-f", "rawvideo",
                           "-pix_fmt", "rgba", "-"], capture_output=True, check=True)
    assert np.array_equal(np.frombuffer(done.stdout, np.uint8).reshape(rgba.shape), rgba)
