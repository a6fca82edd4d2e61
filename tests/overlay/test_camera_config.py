"""``[[capture.cameras]]`` in feltcast.toml: defaults, paths, and errors that name the key."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from capture.camera.fusion import FusionPolicy
from engine.capture_events import BOARD, Zone
from engine.errors import ConfigError
from overlay.config import parse_config


def cameras(*entries: dict[str, Any], base_dir: Path | None = None) -> Any:
    return parse_config({"table": {"seats": 9}, "capture": {"cameras": list(entries)}},
                        base_dir=base_dir).cameras


BOARD_CAM = {"name": "board", "source": 0,
             "regions": [{"zone": "board", "rect": [100, 200, 800, 300]}]}


def test_a_camera_with_defaults_and_a_file_relative_to_the_config(tmp_path: Path) -> None:
    [board] = cameras(BOARD_CAM)
    assert board.source == 0 and board.deck == "default" and board.fusion is FusionPolicy.RFID
    assert board.zones == (BOARD,) and board.regions[0].rect == (100, 200, 800, 300)
    assert (board.confirm_frames, board.drop_frames, board.threshold) == (3, 5, 0.55)
    assert not board.is_file
    [seats] = cameras({"name": "seats", "source": "videos/hand.mp4", "fusion": "agree",
                       "deck": "Blue 1", "confirm_frames": 3, "drop_frames": 9,
                       "threshold": 0.8,
                       "regions": [{"zone": "seat 1", "rect": [0, 0, 640, 360]},
                                   {"zone": "seat9", "rect": [640, 0, 640, 360]}]},
                      base_dir=tmp_path)
    assert seats.source == str(tmp_path / "videos/hand.mp4") and seats.is_file
    assert seats.zones == (Zone.at_seat(1), Zone.at_seat(9))
    assert seats.fusion is FusionPolicy.AGREE and seats.deck == "Blue 1"
    assert board.fallback and not cameras({**BOARD_CAM, "fallback": False})[0].fallback
    [stream] = cameras({**BOARD_CAM, "source": "rtsp://127.0.0.1/board"})
    assert stream.source == "rtsp://127.0.0.1/board" and not stream.is_file
    assert parse_config({}).cameras == ()


@pytest.mark.parametrize(("change", "key", "problem"), [
    ({"name": ""}, "capture.cameras[0].name", "non-empty"),
    ({"source": -1}, "capture.cameras[0].source", "0 or more"),
    ({"source": "ftp://x/y"}, "capture.cameras[0].source", "rtsp, http"),
    ({"source": True}, "capture.cameras[0].source", "device index"),
    ({"regions": []}, "capture.cameras[0].regions", "at least one"),
    ({"regions": [{"zone": "burn", "rect": [0, 0, 1, 1]}]},
     "capture.cameras[0].regions[0].zone", "never read (R19)"),
    ({"regions": [{"zone": "seat 10", "rect": [0, 0, 1, 1]}]},
     "capture.cameras[0].regions[0].zone", "seats 1-9"),
    ({"regions": [{"zone": "the rail", "rect": [0, 0, 1, 1]}]},
     "capture.cameras[0].regions[0].zone", "not a zone"),
    ({"regions": [{"zone": "board", "rect": [0, 0, 0, 10]}]},
     "capture.cameras[0].regions[0].rect", "positive"),
    ({"regions": [{"zone": "board", "rect": [0, 0, 10]}]},
     "capture.cameras[0].regions[0].rect", "[x, y, width, height]"),
    ({"regions": [{"zone": "board"}]}, "capture.cameras[0].regions[0].rect", "missing"),
    ({"confirm_frames": 0}, "capture.cameras[0].confirm_frames", "at least 1"),
    ({"drop_frames": 2.5}, "capture.cameras[0].drop_frames", "whole number"),
    ({"threshold": 0}, "capture.cameras[0].threshold", "more than 0"),
    ({"threshold": 1.5}, "capture.cameras[0].threshold", "at most 1"),
    ({"fusion": "both"}, "capture.cameras[0].fusion", "rfid, camera or agree"),
    ({"fallback": "yes"}, "capture.cameras[0].fallback", "true or false"),
    ({"deck": ""}, "capture.cameras[0].deck", "deck name"),
    ({"fps": 30}, "capture.cameras[0].fps", "unknown key"),
])
def test_a_bad_camera_names_the_key(change: dict[str, Any], key: str, problem: str) -> None:
    with pytest.raises(ConfigError) as error:
        cameras({**BOARD_CAM, **change})
    assert error.value.key == key
    assert problem in str(error.value)


def test_two_cameras_may_not_share_a_name_or_a_zone() -> None:
    with pytest.raises(ConfigError, match=r"capture\.cameras\[1\]\.name.*used twice"):
        cameras(BOARD_CAM, {**BOARD_CAM, "regions": [{"zone": "seat 1",
                                                      "rect": [0, 0, 9, 9]}]})
    with pytest.raises(ConfigError, match=r"capture\.cameras\[1\]\.regions\[0\]\.zone.*"
                                          r"board is already read by camera 'board'"):
        cameras(BOARD_CAM, {**BOARD_CAM, "name": "other"})
    with pytest.raises(ConfigError, match=r"capture\.cameras.*list"):
        parse_config({"capture": {"cameras": {"name": "x"}}})


def test_the_service_defaults_are_the_trackers() -> None:
    from capture.camera.source import CameraConfig  # (OpenCV: only this test loads it)

    tracker = CameraConfig("any", 0)
    [board] = cameras(BOARD_CAM)
    assert (board.confirm_frames, board.drop_frames, board.threshold, board.deck) == (
        tracker.confirm_frames, tracker.drop_frames, tracker.threshold, tracker.deck)


def test_the_configuration_has_the_pipelines_defaults_without_loading_opencv() -> None:
    """One set of defaults (``capture.camera.defaults``): the camera a configuration
    describes and the camera the pipeline builds by default agree, and reading the
    configuration does not load cv2 (a service without cameras never loads it)."""
    code = ("import sys; from overlay.devices.camera_config import DEFAULT_THRESHOLD as t; "
            "assert 'cv2' not in sys.modules, 'cv2 loaded'; "
            "from capture.camera.source import CameraConfig; "
            "c = CameraConfig('cam', 0); "
            "from capture.camera.recognizer import DEFAULT_THRESHOLD as r; "
            "print(t == c.threshold == r)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"
