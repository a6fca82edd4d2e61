"""Cameras: where frames come from and which part of the picture watches which zone.

A :class:`CameraConfig` names one camera, its source (a device index such as ``0``, a video
file, or an ``rtsp://`` / ``http://`` URL) and its :class:`Region` s: rectangles of the frame,
each watching one table zone (the board, a seat, the muck). Never the burn/stub pile: cards
there are never read (R19).

:class:`FrameSource` wraps ``cv2.VideoCapture``. Its calls block (opening a network stream
can take seconds), so the service runs it in a thread. Errors name the camera and the source,
so a floor manager knows which cable to check.

>>> config = CameraConfig.from_dict({"name": "board-cam", "source": "0",
...     "regions": [{"zone": "board", "rect": [400, 300, 1100, 400]}]})
>>> config.source, config.regions[0]
(0, Region(zone=Zone.parse('board'), rect=(400, 300, 1100, 400)))
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from capture.errors import CameraError
from engine.capture_events import Zone, ZoneKind
from engine.errors import ConfigError

from . import defaults
from .geometry import Image

OPEN_TIMEOUT_MS = 5000
"""How long opening a network stream may take before it counts as unreachable."""
READ_TIMEOUT_MS = 5000
"""How long a network stream may stay silent before a read fails."""


@dataclass(frozen=True, slots=True)
class Region:
    """A rectangle ``rect`` = (x, y, width, height) of the frame that watches ``zone``."""

    zone: Zone
    rect: tuple[int, int, int, int]

    def __post_init__(self) -> None:
        if self.zone.kind is ZoneKind.BURN:
            raise ConfigError("regions.zone", "a camera never watches the burn pile (R19)")
        if (len(self.rect) != 4 or not all(isinstance(v, int) and not isinstance(v, bool)
                                           for v in self.rect)):
            raise ConfigError("regions.rect", f"{self.rect!r} is not four whole numbers "
                                              "x, y, width, height")
        x, y, w, h = self.rect
        if x < 0 or y < 0 or w < 16 or h < 16:
            raise ConfigError("regions.rect", f"{self.rect!r} is not a rectangle inside the "
                                              "frame (x, y >= 0; width, height >= 16)")


@dataclass(frozen=True, slots=True)
class CameraConfig:
    """One camera: what it is called, where its frames come from, what it watches."""

    name: str
    source: int | str
    """A device index (``0``), a video file path, or an ``rtsp://`` / ``http(s)://`` URL."""
    regions: tuple[Region, ...] = ()
    """Where to look; no regions means the whole frame watches the board."""
    confirm_frames: int = defaults.CONFIRM_FRAMES
    """K: frames in a row a card must be read the same before it is reported."""
    drop_frames: int = defaults.DROP_FRAMES
    """M: frames in a row without a card before it counts as removed."""
    threshold: float = defaults.THRESHOLD
    """Recognition score below which a card is unknown."""
    deck: str = defaults.DECK
    """The camera deck: ``default``, a registered deck's name or a ``.npz`` file."""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ConfigError("camera.name", "every camera needs a name")
        if isinstance(self.source, bool) or not isinstance(self.source, int | str):
            raise ConfigError(f"camera {self.name}.source",
                              f"{self.source!r} is not a device index, file or URL")
        if isinstance(self.source, int) and self.source < 0:
            raise ConfigError(f"camera {self.name}.source", "a device index is 0 or more")
        if isinstance(self.source, str) and not self.source.strip():
            raise ConfigError(f"camera {self.name}.source", "the source is empty")
        if self.confirm_frames < 1 or self.drop_frames < 1:
            raise ConfigError(f"camera {self.name}",
                              "confirm_frames and drop_frames must be at least 1")
        if not 0.0 < self.threshold <= 1.0:
            raise ConfigError(f"camera {self.name}.threshold", "must be above 0 and at most 1")
        zones = [region.zone for region in self.regions]
        if len(set(zones)) != len(zones):
            raise ConfigError(f"camera {self.name}.regions", "two regions watch the same zone")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CameraConfig:
        """From a config file's camera table, e.g.
        ``{"name": "board-cam", "source": "rtsp://10.0.0.5/stream",
        "regions": [{"zone": "board", "rect": [x, y, w, h]}], "confirm_frames": 3}``.

        :raises ConfigError: naming the key that is wrong.
        """
        if not isinstance(data, Mapping):
            raise ConfigError("camera", "expected a table with name, source and regions")
        name = data.get("name")
        if not isinstance(name, str):
            raise ConfigError("camera.name", "every camera needs a name")
        regions = []
        for i, entry in enumerate(data.get("regions", []) or []):
            if not isinstance(entry, Mapping) or "zone" not in entry or "rect" not in entry:
                raise ConfigError(f"camera {name}.regions[{i}]", "needs a zone and a rect")
            rect = entry["rect"]
            if not isinstance(rect, list | tuple) or len(rect) != 4:
                raise ConfigError(f"camera {name}.regions[{i}].rect",
                                  "must be [x, y, width, height]")
            regions.append(Region(Zone.parse(str(entry["zone"])),
                                  (rect[0], rect[1], rect[2], rect[3])))
        kwargs: dict[str, Any] = {}
        for key, kind in (("confirm_frames", int), ("drop_frames", int),
                          ("threshold", (int, float)), ("deck", str)):
            if key in data:
                value = data[key]
                if isinstance(value, bool) or not isinstance(value, kind):
                    raise ConfigError(f"camera {name}.{key}", f"bad value {value!r}")
                kwargs[key] = float(value) if key == "threshold" else value
        return cls(name, parse_source(data.get("source", "")), tuple(regions), **kwargs)


def parse_source(value: object) -> int | str:
    """``0`` / ``"0"`` -> device 0; anything else is a file path or URL (kept as text)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, str):
        return value.strip()
    raise ConfigError("camera.source", f"{value!r} is not a device index, file or URL")


def is_url(source: int | str) -> bool:
    return isinstance(source, str) and "://" in source


class FrameSource:
    """Frames from one camera (blocking calls; use from a worker thread).

    >>> source = FrameSource(CameraConfig("nowhere", "/no/such/video.mp4"))
    >>> source.open()
    Traceback (most recent call last):
    ...
    capture.errors.CameraError: camera 'nowhere': there is no video file '/no/such/video.mp4'
    """

    def __init__(self, config: CameraConfig) -> None:
        self.config = config
        self._capture: cv2.VideoCapture | None = None
        self.frames_read = 0

    @property
    def is_open(self) -> bool:
        return self._capture is not None

    def describe(self) -> str:
        source = self.config.source
        if isinstance(source, int):
            return f"camera device {source}"
        if is_url(source):
            return f"stream {source}"
        return f"video file {source!r}"

    def open(self) -> None:
        """Connect to the source.

        :raises CameraError: the device, file or stream cannot be opened (the message names
            the camera and the source).
        """
        self.close()
        source = self.config.source
        name = self.config.name
        if isinstance(source, str) and not is_url(source) and not Path(source).is_file():
            raise CameraError(f"camera {name!r}: there is no video file {source!r}")
        if is_url(source):
            capture = cv2.VideoCapture(str(source), cv2.CAP_FFMPEG,
                                       [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, OPEN_TIMEOUT_MS,
                                        cv2.CAP_PROP_READ_TIMEOUT_MSEC, READ_TIMEOUT_MS])
        elif isinstance(source, int):
            capture = cv2.VideoCapture(source)
        else:
            capture = cv2.VideoCapture(str(source))
        if not capture.isOpened():
            capture.release()
            if isinstance(source, int):
                raise CameraError(f"camera {name!r}: camera device {source} cannot be opened "
                                  "(unplugged, in use by another program, or no permission)")
            if is_url(source):
                raise CameraError(f"camera {name!r}: the stream {source} cannot be opened "
                                  "(wrong address, camera offline or not reachable)")
            raise CameraError(f"camera {name!r}: the video file {source!r} cannot be read "
                              "(not a video, or a format this build cannot decode)")
        self._capture = capture
        self.frames_read = 0

    def read(self) -> tuple[bool, Image | None]:
        """The next frame: ``(True, BGR image)``, or ``(False, None)`` at the end of a file or
        when a device or stream stops delivering.

        :raises CameraError: when the source was never opened.
        """
        if self._capture is None:
            raise CameraError(f"camera {self.config.name!r} is not open")
        ok, frame = self._capture.read()
        if not ok or frame is None:
            return False, None
        self.frames_read += 1
        return True, np.asarray(frame, dtype=np.uint8)

    @property
    def fps(self) -> float:
        """Frames per second the source reports (0 when it does not say)."""
        if self._capture is None:
            return 0.0
        return float(self._capture.get(cv2.CAP_PROP_FPS) or 0.0)

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the frames (0, 0 when closed)."""
        if self._capture is None:
            return 0, 0
        return (int(self._capture.get(cv2.CAP_PROP_FRAME_WIDTH)),
                int(self._capture.get(cv2.CAP_PROP_FRAME_HEIGHT)))

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None

    def __enter__(self) -> FrameSource:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
