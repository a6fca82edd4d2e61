"""Camera sources: video files, HTTP streams, devices; configs and their errors."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from capture.camera.source import CameraConfig, FrameSource, Region, parse_source
from capture.errors import CameraError
from engine.capture_events import Zone
from engine.errors import ConfigError

from .conftest import write_video


def frames(count: int = 12) -> list[np.ndarray]:
    """Frames whose brightness counts up, so the order can be checked after compression."""
    return [np.full((120, 160, 3), 20 * i, np.uint8) for i in range(count)]


def test_a_video_file_plays_every_frame_in_order(tmp_path: Path) -> None:
    video = write_video(tmp_path / "hand.avi", frames(), fps=10)
    source = FrameSource(CameraConfig("board-cam", str(video)))
    with source:
        assert source.is_open and source.size == (160, 120)
        assert source.fps == pytest.approx(10, abs=0.1)
        levels = []
        while True:
            ok, frame = source.read()
            if not ok:
                break
            assert frame is not None and frame.shape == (120, 160, 3)
            levels.append(float(frame.mean()))
        assert ok is False and frame is None
    assert not source.is_open
    assert source.frames_read == 12
    assert levels == sorted(levels) and abs(levels[-1] - 220) < 4


@pytest.fixture
def http_root(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A real HTTP server on 127.0.0.1 serving ``tmp_path`` (an IP camera's file stream)."""

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(tmp_path)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", tmp_path
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_an_http_stream_is_read_through_ffmpeg(http_root: tuple[str, Path]) -> None:
    url, root = http_root
    write_video(root / "cam.avi", frames(6))
    with FrameSource(CameraConfig("seat-cam", f"{url}/cam.avi")) as source:
        count = 0
        while source.read()[0]:
            count += 1
    assert count == 6


def test_an_unreachable_stream_names_the_camera(http_root: tuple[str, Path]) -> None:
    url, _ = http_root
    source = FrameSource(CameraConfig("seat-cam", f"{url}/missing.avi"))
    with pytest.raises(CameraError, match=r"camera 'seat-cam': the stream http://127\.0\.0\.1"):
        source.open()
    assert not source.is_open


def test_missing_and_unreadable_files_name_the_camera(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="camera 'board': there is no video file"):
        FrameSource(CameraConfig("board", str(tmp_path / "none.avi"))).open()
    text = tmp_path / "notes.avi"
    text.write_text("not a video")
    with pytest.raises(CameraError, match=r"camera 'board': the video file .* cannot be read"):
        FrameSource(CameraConfig("board", str(text))).open()


def test_a_device_that_is_not_there_names_the_camera() -> None:
    with pytest.raises(CameraError, match="camera 'seat 4': camera device 63 cannot be opened"):
        FrameSource(CameraConfig("seat 4", 63)).open()


def test_reading_a_closed_source_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="is not open"):
        FrameSource(CameraConfig("board", "x.avi")).read()


def test_config_from_a_config_file_table() -> None:
    config = CameraConfig.from_dict({
        "name": "hole-cams", "source": "rtsp://10.0.0.7/stream1", "deck": "blue",
        "regions": [{"zone": "seat3", "rect": [0, 0, 640, 360]},
                    {"zone": "seat 4", "rect": [640, 0, 640, 360]}],
        "confirm_frames": 4, "drop_frames": 10, "threshold": 0.8})
    assert config.source == "rtsp://10.0.0.7/stream1"
    assert [r.zone for r in config.regions] == [Zone.at_seat(3), Zone.at_seat(4)]
    assert (config.confirm_frames, config.drop_frames, config.threshold, config.deck) == (
        4, 10, 0.8, "blue")
    assert parse_source(" 2 ") == 2 and parse_source(1) == 1


@pytest.mark.parametrize(("data", "message"), [
    ({"source": 0}, "every camera needs a name"),
    ({"name": "c", "source": ""}, "the source is empty"),
    ({"name": "c", "source": -1}, "device index is 0 or more"),
    ({"name": "c", "source": 0, "regions": [{"zone": "burn", "rect": [0, 0, 50, 50]}]},
     "never watches the burn pile"),
    ({"name": "c", "source": 0, "regions": [{"zone": "board"}]}, "needs a zone and a rect"),
    ({"name": "c", "source": 0, "regions": [{"zone": "board", "rect": [0, 0, 5]}]},
     r"\[x, y, width, height\]"),
    ({"name": "c", "source": 0, "regions": [{"zone": "board", "rect": [0, 0, 8, 8]}]},
     "not a rectangle inside the frame"),
    ({"name": "c", "source": 0, "regions": [{"zone": "board", "rect": [0, 0, 50, 50]},
                                            {"zone": "board", "rect": [60, 0, 50, 50]}]},
     "two regions watch the same zone"),
    ({"name": "c", "source": 0, "confirm_frames": 0}, "at least 1"),
    ({"name": "c", "source": 0, "threshold": 1.5}, "at most 1"),
    ({"name": "c", "source": 0, "drop_frames": "many"}, "bad value"),
])
def test_bad_configs_are_refused_naming_the_key(data: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        CameraConfig.from_dict(data)


def test_a_region_is_a_zone_and_a_rectangle() -> None:
    region = Region(Zone.parse("muck"), (10, 20, 300, 200))
    assert region.rect == (10, 20, 300, 200)
    with pytest.raises(ConfigError, match="whole numbers"):
        Region(Zone.parse("board"), (10.5, 20, 300, 200))  # type: ignore[arg-type]
