"""``[[capture.cameras]]``: the table's cameras in ``feltcast.toml`` (``docs/camera.md``).

Parsed by :func:`overlay.config.parse_config` through :func:`parse_cameras`; every problem is a
:class:`engine.errors.ConfigError` naming the key (``capture.cameras[0].regions[1].rect``).
Kept apart from the camera service (``overlay/devices/camera_bridge.py``) so that reading the
configuration does not load OpenCV.

::

    [[capture.cameras]]
    name = "board-cam"
    source = "rtsp://10.0.0.20/stream1"   # or a device index (0) or a video file
    deck = "default"        # the project's own deck, a registered camera deck, or a file
    regions = [{zone = "board", rect = [420, 300, 1080, 330]}]   # or "seat N", "muck"
    confirm_frames = 3      # K: frames a card must be read alike before it is reported
    drop_frames = 5         # M: frames without a card before it counts as gone
    threshold = 0.55        # below this score a card is unknown, never a guess
    fusion = "rfid"         # rfid | camera | agree, where RFID reads the same zone
    fallback = true         # while the source the policy reports from is offline, the other
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from capture.camera import defaults
from capture.camera.fusion import FusionPolicy
from engine.capture_events import Zone, ZoneKind
from engine.errors import ConfigError, InvalidInputError

DEFAULT_CONFIRM_FRAMES = defaults.CONFIRM_FRAMES
DEFAULT_DROP_FRAMES = defaults.DROP_FRAMES
DEFAULT_THRESHOLD = defaults.THRESHOLD
DEFAULT_DECK = defaults.DECK
_KEYS = ("name", "source", "deck", "regions", "confirm_frames", "drop_frames", "threshold",
         "fusion", "fallback")


@dataclass(frozen=True, slots=True)
class CameraRegionConfig:
    """A part of the camera image (``rect`` = x, y, width, height in pixels) that shows one
    zone of the table."""

    zone: Zone
    rect: tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class CameraConfigSection:
    """One ``[[capture.cameras]]`` entry."""

    name: str
    source: int | str
    """A device index, a video file (absolute, or relative to the configuration file) or an
    RTSP/HTTP URL."""
    regions: tuple[CameraRegionConfig, ...]
    deck: str = DEFAULT_DECK
    """``default`` (the deck the project draws), a camera deck registered with ``feltcast
    camera calibrate``, or the path of a saved deck file."""
    confirm_frames: int = DEFAULT_CONFIRM_FRAMES
    drop_frames: int = DEFAULT_DROP_FRAMES
    threshold: float = DEFAULT_THRESHOLD
    fusion: FusionPolicy = FusionPolicy.RFID
    fallback: bool = True
    """Policies rfid and camera: while the source the policy reports from is offline (a
    reader unplugged, a camera down), the other one reports the zone."""

    @property
    def zones(self) -> tuple[Zone, ...]:
        return tuple(region.zone for region in self.regions)

    @property
    def is_file(self) -> bool:
        """The source is a video file (played at its own frame rate), not a live camera."""
        return isinstance(self.source, str) and "://" not in self.source


def _number(value: object, where: str, kind: type, *, low: float, high: float | None = None,
            open_low: bool = False) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float) or (
            kind is int and not isinstance(value, int)):
        raise ConfigError(where, f"expected {'a whole number' if kind is int else 'a number'}, "
                                 f"got {value!r}")
    if value < low or (open_low and value == low) or (high is not None and value > high):
        bound = f"more than {low}" if open_low else f"at least {low}"
        raise ConfigError(where, f"must be {bound}{f' and at most {high}' if high else ''}, "
                                 f"got {value!r}")
    return kind(value)


def _region(entry: object, where: str, seats: int) -> CameraRegionConfig:
    if not isinstance(entry, dict):
        raise ConfigError(where, "expected a table like {zone = \"board\", rect = [x, y, w, h]}")
    for key in entry:
        if key not in ("zone", "rect"):
            raise ConfigError(f"{where}.{key}", "unknown key (known: rect, zone)")
    for key in ("zone", "rect"):
        if key not in entry:
            raise ConfigError(f"{where}.{key}", "is missing")
    try:
        zone = Zone.parse(entry["zone"])
    except InvalidInputError:
        raise ConfigError(f"{where}.zone", f"{entry['zone']!r} is not a zone a camera reads "
                                           "(use 'board', 'seat N' or 'muck')") from None
    if zone.kind is ZoneKind.BURN:
        raise ConfigError(f"{where}.zone", "cards on the burn pile are never read (R19): "
                                           "a camera reads the board, a seat or the muck")
    if zone.kind is ZoneKind.SEAT and zone.seat > seats:
        raise ConfigError(f"{where}.zone", f"seat {zone.seat} does not exist (the table has "
                                           f"seats 1-{seats})")
    rect = entry["rect"]
    if (not isinstance(rect, list) or len(rect) != 4
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in rect)):
        raise ConfigError(f"{where}.rect", f"expected [x, y, width, height] in whole pixels, "
                                           f"got {rect!r}")
    x, y, w, h = rect
    if x < 0 or y < 0 or w <= 0 or h <= 0:
        raise ConfigError(f"{where}.rect", f"x and y must be 0 or more and width and height "
                                           f"positive, got {rect!r}")
    return CameraRegionConfig(zone, (x, y, w, h))


def _source(value: object, where: str, base_dir: Path | None) -> int | str:
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise ConfigError(where, f"a device index is 0 or more, got {value}")
        return value
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(where, "expected a device index (0), a video file or an RTSP/HTTP "
                                 f"URL, got {value!r}")
    text = value.strip()
    if "://" in text:
        if not text.lower().startswith(("rtsp://", "rtsps://", "http://", "https://",
                                        "file://")):
            raise ConfigError(where, f"{text!r}: only rtsp, http and https URLs are cameras")
        return text
    path = Path(text).expanduser()
    if base_dir is not None and not path.is_absolute():
        path = base_dir / path
    return str(path)


def _camera(entry: object, where: str, seats: int,
            base_dir: Path | None) -> CameraConfigSection:
    if not isinstance(entry, dict):
        raise ConfigError(where, "expected a table")
    for key in entry:
        if key not in _KEYS:
            raise ConfigError(f"{where}.{key}", f"unknown key (known: {', '.join(sorted(_KEYS))})")
    for key in ("name", "source", "regions"):
        if key not in entry:
            raise ConfigError(f"{where}.{key}", "is missing")
    name = entry["name"]
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"{where}.name", f"expected a non-empty name, got {name!r}")
    regions = entry["regions"]
    if not isinstance(regions, list) or not regions:
        raise ConfigError(f"{where}.regions", "expected a list of {zone, rect} tables (at "
                                              "least one)")
    parsed = tuple(_region(r, f"{where}.regions[{i}]", seats) for i, r in enumerate(regions))
    deck = entry.get("deck", DEFAULT_DECK)
    if not isinstance(deck, str) or not deck.strip():
        raise ConfigError(f"{where}.deck", f"expected a deck name or file, got {deck!r}")
    fusion = entry.get("fusion", str(FusionPolicy.RFID))
    if not isinstance(fusion, str):
        raise ConfigError(f"{where}.fusion", f"expected rfid, camera or agree, got {fusion!r}")
    fallback = entry.get("fallback", True)
    if not isinstance(fallback, bool):
        raise ConfigError(f"{where}.fallback", f"expected true or false, got {fallback!r}")
    return CameraConfigSection(
        name=name.strip(), fallback=fallback,
        source=_source(entry["source"], f"{where}.source", base_dir),
        regions=parsed, deck=deck.strip(),
        confirm_frames=_number(entry.get("confirm_frames", DEFAULT_CONFIRM_FRAMES),
                               f"{where}.confirm_frames", int, low=1),
        drop_frames=_number(entry.get("drop_frames", DEFAULT_DROP_FRAMES),
                            f"{where}.drop_frames", int, low=1),
        threshold=_number(entry.get("threshold", DEFAULT_THRESHOLD), f"{where}.threshold",
                          float, low=0.0, high=1.0, open_low=True),
        fusion=FusionPolicy.parse(fusion, f"{where}.fusion"))


def parse_cameras(capture: Mapping[str, Any], *, seats: int = 10,
                  base_dir: Path | None = None) -> tuple[CameraConfigSection, ...]:
    """The ``cameras`` list of the ``[capture]`` table.

    :raises ConfigError: naming the first bad key; also for two cameras with one name or two
        cameras reading the same zone.
    """
    cameras = capture.get("cameras", [])
    if not isinstance(cameras, list):
        raise ConfigError("capture.cameras", "expected a list of [[capture.cameras]] tables")
    result: list[CameraConfigSection] = []
    names: dict[str, int] = {}
    zones: dict[Zone, str] = {}
    for i, entry in enumerate(cameras):
        where = f"capture.cameras[{i}]"
        camera = _camera(entry, where, seats, base_dir)
        if camera.name in names:
            raise ConfigError(f"{where}.name", f"camera name {camera.name!r} is used twice")
        names[camera.name] = i
        for j, zone in enumerate(camera.zones):
            if zone in zones:
                raise ConfigError(f"{where}.regions[{j}].zone",
                                  f"{zone} is already read by camera {zones[zone]!r} (one "
                                  "camera per zone)")
            zones[zone] = camera.name
        result.append(camera)
    return tuple(result)
