"""The editors' timeline: footage, the graphics on a track of their own, a marker per hand.

:func:`export_timeline` writes, for footage and the table log (synced as the video export is,
:class:`~overlay.export.video.export.SyncSpec`), one editing timeline in the formats editors
open:

* ``<name>.otio``: OpenTimelineIO's own file (DaVinci Resolve 18+, Kdenlive 25.04+ and every
  OTIO tool read it);
* ``<name>.xml``: Final Cut Pro 7 XML, through OTIO's maintained ``fcp_xml`` adapter
  (Premiere Pro, Resolve);
* ``<name>.fcpxml``: FCPXML, through OTIO's maintained ``fcpx_xml`` adapter (Final Cut Pro,
  Resolve);
* ``<name>.mlt``: an MLT project (Shotcut, Kdenlive, and MLT's ``melt``, which renders it),
  written here: OTIO's Kdenlive adapter says itself that it is no longer maintained.

Every timeline has the same content:

* track **Footage**: the footage file whole, at its own start time code (the file's, or the
  one given), and its audio on an audio track when it has some;
* track **Graphics**: the overlay's graphics alone with transparency, as still PNG clips
  (``<name>_graphics/``), one clip for each time the graphics change and held until the next
  change (a picture shown again later is the same file): an editor moves, trims or hides them
  like any title;
* a **marker at every hand** on the footage clip, over the hand's frames: ``Hand 12: Ann
  wins 4,800``, with the players, the pot, the winner and the operator's tags as its comment
  and as metadata (``feltcast``); a tagged hand's marker is red, the others green.

Graphics are drawn only when they change and written as they come: memory holds the current
picture and the list of changes, whatever the footage's length; progress (frames, speed,
time left) goes to :attr:`ExportOptions.progress`.
"""

from __future__ import annotations

import hashlib
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from engine.errors import InvalidInputError
from overlay.export.hands import HandRecord, read_hands
from overlay.export.log_head import LogHead
from overlay.export.video.clips import (
    Clip,
    after_footage,
    clip_of,
    parse_timecode,
    timecode,
    winnings,
)
from overlay.export.video.encode import FootageInfo, Progress, probe_footage
from overlay.export.video.export import (
    ExportOptions,
    LogSource,
    Pictures,
    SyncSpec,
    resolve_sync,
)
from overlay.export.video.render import OverlayRenderer
from overlay.export.video.timeline import Sync, ViewCursor, frame_views

__all__ = ["FORMATS", "HandMarker", "Still", "StillFiles", "TimelineResult", "export_timeline",
           "otio_timeline"]

#: format -> (OTIO adapter, or None for this module's own writer; file suffix)
FORMATS: dict[str, tuple[str | None, str]] = {
    "otio": ("otio_json", ".otio"),
    "fcp7": ("fcp_xml", ".xml"),
    "fcpxml": ("fcpx_xml", ".fcpxml"),
    "mlt": (None, ".mlt"),
}


@dataclass(frozen=True, slots=True)
class Still:
    """A picture of the graphics shown from frame ``first`` up to (not including) ``end``."""

    first: int
    end: int
    image: Path


@dataclass(frozen=True, slots=True)
class HandMarker:
    """What the marker of a hand says."""

    clip: Clip
    players: tuple[str, ...]
    pot: int
    winners: tuple[str, ...]

    @property
    def comment(self) -> str:
        parts = [f"players: {', '.join(self.players)}", f"pot {self.pot:,}"]
        if self.winners:
            parts.append(f"won by {' & '.join(self.winners)}")
        if self.clip.tags:
            parts.append("tags: " + " | ".join(t or "(tagged)" for t in self.clip.tags))
        return "; ".join(parts)

    def metadata(self) -> dict[str, Any]:
        return {"hand": self.clip.hand, "players": list(self.players), "pot": self.pot,
                "winners": list(self.winners), "tags": list(self.clip.tags),
                "started_at": self.clip.started_at, "ended_at": self.clip.ended_at,
                "first_frame": self.clip.first, "last_frame": self.clip.last}


@dataclass(slots=True)
class TimelineResult:
    """What :func:`export_timeline` wrote."""

    files: list[Path]
    frames: int
    fps: float
    start_frame: int
    """The footage's first frame as a time code, counted in frames (01:00:00:00 at 30 fps
    is 108,000)."""
    sync: Sync
    markers: list[HandMarker] = field(default_factory=list)
    stills: list[Still] = field(default_factory=list)
    images: int = 0
    """Different pictures written (a picture shown again is one file)."""
    seconds: float = 0.0
    log_head: LogHead | None = None


def export_timeline(source: LogSource, footage: Path, out: Path, spec: SyncSpec,
                    options: ExportOptions | None = None, *, start_timecode: str | None = None,
                    formats: Iterable[str] = tuple(FORMATS)) -> TimelineResult:
    """Write the timeline of ``footage`` as ``out`` with each format's suffix (``out``'s own
    suffix is dropped) and its graphics in ``<out>_graphics/``.

    :raises InvalidInputError: unreadable footage, a bad sync or time code, an unknown
        format, no hand in the footage.
    """
    options = options or ExportOptions()
    chosen = list(dict.fromkeys(formats))
    unknown = [f for f in chosen if f not in FORMATS]
    if unknown or not chosen:
        raise InvalidInputError(f"--format {', '.join(unknown) or '(none)'}: choose from "
                                f"{', '.join(FORMATS)}")
    started = time.perf_counter()
    info = probe_footage(footage, options.ffmpeg)
    tc_text = start_timecode or info.timecode or "00:00:00:00"
    start_frame = parse_timecode(tc_text, info.fps)
    sync = resolve_sync(source, spec, info, options.table_name)
    markers = _markers(read_hands(source(), table=options.table_name), sync, info.frames)
    if not markers:
        raise InvalidInputError(
            "no hand of the log is in the footage: check the sync (--start or --hand-start)")
    stem = out.with_suffix("") if out.suffix.lower() in {s for _, s in FORMATS.values()} \
        else out
    stem.parent.mkdir(parents=True, exist_ok=True)
    folder = stem.with_name(stem.name + "_graphics")
    folder.mkdir(exist_ok=True)
    result = TimelineResult([], info.frames, info.fps, start_frame, sync, markers,
                            log_head=options.log_head)
    result.stills, result.images = _stills(source, sync, info, folder, options)
    timeline = otio_timeline(info, start_frame, result, options.table_name)
    for name in chosen:
        adapter, suffix = FORMATS[name]
        path = stem.with_name(stem.name + suffix)
        if adapter is None:
            _write_mlt(path, info, result, options.table_name)
        else:
            import opentimelineio as otio

            otio.adapters.write_to_file(timeline, str(path), adapter_name=adapter)
        result.files.append(path)
    result.files.append(folder)
    result.seconds = time.perf_counter() - started
    return result


def _markers(records: Iterable[HandRecord], sync: Sync, frames: int) -> list[HandMarker]:
    out = []
    for record in records:
        if after_footage(record, sync, frames):
            break
        clip = clip_of(record, sync, frames)
        if clip is not None:
            won = winnings(record)
            out.append(HandMarker(clip, tuple(record.display_names), sum(won.values()),
                                  tuple(record.name_of(seat) for seat in won)))
    return out


def _stills(source: LogSource, sync: Sync, info: FootageInfo, folder: Path,
            options: ExportOptions) -> tuple[list[Still], int]:
    """Walk the footage's frames; write a PNG each time the graphics change."""
    views = frame_views(source(), sync, frames=info.frames, table_name=options.table_name)
    cursor = ViewCursor(views)
    pictures = Pictures(OverlayRenderer(info.width, info.height), sync)
    progress = Progress(info.frames, stream=options.progress,
                        enabled=options.progress is not None, label="graphics")
    files = StillFiles(folder)
    stills: list[Still] = []
    shown = None
    image: Path | None = None
    first = 0
    for frame in range(info.frames):
        layer = pictures.at(cursor, frame)
        if layer is not shown:
            shown = layer
            picture = files.path_for(layer.png())
            if picture != image:  # (a redraw that looks the same continues the still)
                if image is not None:
                    stills.append(Still(first, frame, image))
                image, first = picture, frame
        progress.update(frame + 1)
    assert image is not None  # footage has frames (probe_footage)
    stills.append(Still(first, info.frames, image))
    progress.update(info.frames, final=True)
    return stills, len(files)


class StillFiles:
    """The PNG files of the graphics track: a picture shown again is the file written the
    first time (by the digest of its bytes)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._paths: dict[str, Path] = {}

    def path_for(self, png: bytes) -> Path:
        digest = hashlib.sha256(png).hexdigest()
        path = self._paths.get(digest)
        if path is None:
            path = self.folder / f"graphics-{len(self._paths) + 1:05d}.png"
            path.write_bytes(png)
            self._paths[digest] = path
        return path

    def __len__(self) -> int:
        return len(self._paths)


def _rate(info: FootageInfo) -> Fraction:
    """The footage's exact frame rate (ffprobe's, checked by probe_footage), else OpenCV's."""
    return Fraction(info.rate) if info.rate else Fraction(info.fps).limit_denominator(1001)


def otio_timeline(info: FootageInfo, start_frame: int, result: TimelineResult,
                  title: str) -> Any:
    """The timeline of ``result`` as an OpenTimelineIO ``Timeline`` (every format but MLT is
    written from it)."""
    import opentimelineio as otio

    rate = float(_rate(info))

    def span(first: int, count: int) -> Any:
        return otio.opentime.TimeRange(otio.opentime.RationalTime(first, rate),
                                       otio.opentime.RationalTime(count, rate))

    timeline = otio.schema.Timeline(
        name=title, global_start_time=otio.opentime.RationalTime(start_frame, rate))
    if result.log_head is not None:
        timeline.metadata["feltcast"] = {"log_head": str(result.log_head),
                                         "log_id": result.log_head.log_id}
    whole = span(start_frame, info.frames)
    media = info.path.resolve().as_uri()
    footage = otio.schema.Clip(
        name=info.path.name, source_range=whole,
        media_reference=otio.schema.ExternalReference(target_url=media, available_range=whole))
    for marker in result.markers:
        clip = marker.clip
        color = otio.schema.MarkerColor.RED if clip.tags else otio.schema.MarkerColor.GREEN
        footage.markers.append(otio.schema.Marker(
            name=clip.title, marked_range=span(start_frame + clip.first,
                                               clip.last + 1 - clip.first),
            color=color, comment=marker.comment,
            # (FCP 7 XML writes a marker's <comment> from its adapter's metadata)
            metadata={"feltcast": marker.metadata(), "fcp_xml": {"comment": marker.comment}}))
    video = otio.schema.Track(name="Footage", kind=otio.schema.TrackKind.Video)
    video.append(footage)
    graphics = otio.schema.Track(name="Graphics", kind=otio.schema.TrackKind.Video)
    for still in result.stills:
        length = span(0, still.end - still.first)
        graphics.append(otio.schema.Clip(
            name=still.image.name, source_range=length,
            media_reference=otio.schema.ExternalReference(
                target_url=still.image.resolve().as_uri(), available_range=length)))
    timeline.tracks.append(video)
    timeline.tracks.append(graphics)
    if info.audio is not None:
        sound = otio.schema.Track(name="Footage audio", kind=otio.schema.TrackKind.Audio)
        sound.append(otio.schema.Clip(
            name=info.path.name, source_range=whole,
            media_reference=otio.schema.ExternalReference(target_url=media,
                                                          available_range=whole)))
        timeline.tracks.append(sound)
    return timeline


def _write_mlt(path: Path, info: FootageInfo, result: TimelineResult, title: str) -> None:
    """An MLT XML project: the footage on the first track, the stills composited over it."""
    rate = _rate(info)
    width, height = info.width, info.height
    aspect = Fraction(width, height)
    root = ET.Element("mlt", {"LC_NUMERIC": "C", "version": "7.0.0", "title": title,
                              "producer": "main"})
    ET.SubElement(root, "profile", {
        "description": f"{width}x{height} {float(rate):.3f} fps", "width": str(width),
        "height": str(height), "progressive": "1", "sample_aspect_num": "1",
        "sample_aspect_den": "1", "display_aspect_num": str(aspect.numerator),
        "display_aspect_den": str(aspect.denominator), "frame_rate_num": str(rate.numerator),
        "frame_rate_den": str(rate.denominator), "colorspace": "709"})

    def producer(ident: str, resource: Path, length: int, **props: str) -> None:
        node = ET.SubElement(root, "producer", {"id": ident, "in": "0",
                                                "out": str(length - 1)})
        for name, value in {"resource": str(resource.resolve()), "length": str(length),
                            **props}.items():
            ET.SubElement(node, "property", {"name": name}).text = value

    producer("footage", info.path, info.frames)
    images: dict[Path, str] = {}
    longest: dict[Path, int] = {}
    for still in result.stills:
        longest[still.image] = max(longest.get(still.image, 0), still.end - still.first)
    for image, length in longest.items():
        images[image] = f"still{len(images) + 1}"
        producer(images[image], image, length, ttl="1")
    footage_track = ET.SubElement(root, "playlist", {"id": "footage_track"})
    ET.SubElement(footage_track, "property", {"name": "shotcut:name"}).text = "Footage"
    ET.SubElement(footage_track, "entry", {"producer": "footage", "in": "0",
                                           "out": str(info.frames - 1)})
    graphics_track = ET.SubElement(root, "playlist", {"id": "graphics_track"})
    ET.SubElement(graphics_track, "property", {"name": "shotcut:name"}).text = "Graphics"
    for still in result.stills:
        ET.SubElement(graphics_track, "entry", {"producer": images[still.image], "in": "0",
                                                "out": str(still.end - still.first - 1)})
    tractor = ET.SubElement(root, "tractor", {"id": "main", "in": "0",
                                              "out": str(info.frames - 1)})
    multitrack = ET.SubElement(tractor, "multitrack")
    ET.SubElement(multitrack, "track", {"producer": "footage_track"})
    ET.SubElement(multitrack, "track", {"producer": "graphics_track"})
    transition = ET.SubElement(tractor, "transition", {"id": "graphics_over_footage"})
    for name, value in {"a_track": "0", "b_track": "1", "mlt_service": "composite",
                        "fill": "1", "always_active": "1"}.items():
        ET.SubElement(transition, "property", {"name": name}).text = value
    for marker in result.markers:  # MLT keeps no markers: each hand as a comment
        root.append(ET.Comment(f" {timecode(marker.clip.first, info.fps)} "
                               f"{marker.clip.title.replace('--', '- -')} "))
    ET.indent(root)
    path.write_text('<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(
        root, encoding="unicode") + "\n", encoding="utf-8")
