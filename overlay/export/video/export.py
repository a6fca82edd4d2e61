"""Video exports: the overlay burned into footage, the graphics alone, a PHH hand replayed.

:func:`export_footage` reads the footage frame by frame (``cv2.VideoCapture``), looks up the
picture of each frame (:class:`~overlay.export.video.timeline.ViewCursor`: views are drawn only
when they change), blends it in and streams the frame to the writer: memory holds one frame
and the current picture, whatever the footage's length. The clip list is written beside the
output (CSV, FFMETADATA chapters, EDL) and the chapters muxed into the mp4.

Sync (:class:`SyncSpec`): the recording's start as Unix time (``--start``), or the frame where
a given hand starts (``--hand-start 12@4521``: hand 12's first log entry is frame 4521).

:attr:`ExportOptions.log_head` (the log's chain head as the export read it, issue 18) goes
into everything written: the video's ``comment`` tag, every PNG frame, the CSV, chapters and
EDL (:mod:`overlay.export.log_head`). A replay of a PHH file carries the head that file
carries, if any.
"""

from __future__ import annotations

import dataclasses
import math
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from pathlib import Path
from typing import IO, Any

import cv2
import numpy as np

from engine.errors import InvalidInputError
from engine.log import TableEvent
from overlay import phh_files
from overlay.export.hands import DEFAULT_TABLE, iso_utc, read_hands
from overlay.export.log_head import LogHead
from overlay.export.video.clips import Clip, clips_for, edl, ffmetadata, write_csv
from overlay.export.video.encode import (
    DEFAULT_PRESET,
    AlphaWriter,
    FootageInfo,
    FrameSink,
    OpenCVWriter,
    OverlayEncoder,
    Progress,
    exact_rate,
    find_ffmpeg,
    probe_footage,
    reencode_h264,
)
from overlay.export.video.render import FrameCanvas, Layer, OverlayRenderer, bmp_header
from overlay.export.video.replay import Pace, phh_entries
from overlay.export.video.timeline import (
    Clocks,
    FrameView,
    Sync,
    ViewCursor,
    clocks_at,
    drawn_view,
    frame_views,
)

__all__ = [
    "ExportOptions",
    "ExportResult",
    "LogSource",
    "SyncSpec",
    "export_footage",
    "export_replay",
    "parse_hand_start",
    "parse_start",
    "resolve_sync",
]

LogSource = Callable[[], Iterable[TableEvent]]
"""The table log, readable more than once (e.g. ``store.iter_all``): each call streams it
from the start."""


@dataclass(frozen=True, slots=True)
class SyncSpec:
    """How the footage sits on the log's clock: ``start`` (Unix seconds of frame 0), or
    ``hand`` starting at ``frame``."""

    start: float | None = None
    hand: int | None = None
    frame: int | None = None


def parse_start(text: str) -> float:
    """``2026-11-30T20:14:03Z`` (ISO 8601, any offset, fractions allowed) or Unix seconds.

    :raises InvalidInputError: anything else (a time without a zone is refused: ambiguous).
    """
    raw = text.strip()
    try:
        value = float(raw)
    except ValueError:
        pass
    else:
        if not math.isfinite(value) or value < 0:
            raise InvalidInputError(f"--start {text}: not a time")
        return value
    try:
        moment = datetime.fromisoformat(raw.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise InvalidInputError(f"--start {text}: write the recording's start as "
                                f"2026-11-30T20:14:03Z or in Unix seconds") from None
    if moment.tzinfo is None:
        raise InvalidInputError(f"--start {text}: give the time zone (e.g. a trailing Z "
                                f"for UTC, or +01:00)")
    return moment.timestamp()


_HAND_AT = re.compile(r"^\s*(\d+)\s*@\s*(\d+)\s*$")


def parse_hand_start(text: str) -> tuple[int, int]:
    """``12@4521`` -> (hand 12, frame 4521)."""
    match = _HAND_AT.match(text)
    if match is None:
        raise InvalidInputError(f"--hand-start {text}: write HAND@FRAME, e.g. 12@4521 "
                                f"(hand 12 starts at frame 4521 of the footage)")
    return int(match.group(1)), int(match.group(2))


@dataclass(frozen=True, slots=True)
class ExportOptions:
    """Choices of an export (the CLI's flags)."""

    table_name: str = DEFAULT_TABLE
    ffmpeg: str | None = None
    """The ffmpeg program, or None: OpenCV's mp4 only, no H.264, no ProRes."""
    preset: str = DEFAULT_PRESET
    crf: int = 18
    via_opencv: bool = False
    """Write with ``cv2.VideoWriter`` first, then re-encode with ffmpeg (two passes)."""
    alpha: bool = False
    """The graphics alone with transparency (PNG sequence, ProRes 4444) instead of burning."""
    progress: IO[str] | None = None
    """Where the progress bar goes (None: no progress bar)."""
    clips: bool = True
    """Write the clip list beside the output."""
    log_head: LogHead | None = None
    """The log's chain head as the export read it: every file written carries it (the
    source given must end there: e.g. ``lambda: entries_to(store, head)``)."""

    @property
    def comment(self) -> str | None:
        """The video's ``comment`` tag."""
        return self.log_head.sentence() if self.log_head is not None else None


@dataclass(slots=True)
class ExportResult:
    """What an export wrote."""

    out: Path
    frames: int
    fps: float
    width: int
    height: int
    sync: Sync
    h264: bool = False
    clips: list[Clip] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    """Everything written (the video first)."""
    pictures: int = 0
    """How many different pictures the graphics showed."""
    seconds: float = 0.0
    log_head: LogHead | None = None
    """The log's chain head the files carry (None: none)."""


def _span(source: LogSource) -> tuple[float, float, int]:
    first = last = math.nan
    count = 0
    for entry in source():
        if count == 0:
            first = entry.time
        last = entry.time
        count += 1
    return first, last, count


def _when(seconds: float) -> str:
    return iso_utc(seconds).replace("T", " ").replace("Z", " UTC")


def resolve_sync(source: LogSource, spec: SyncSpec, info: FootageInfo,
                 table_name: str = DEFAULT_TABLE) -> Sync:
    """The :class:`Sync` of ``spec`` for this footage, checked against the log.

    :raises InvalidInputError: an empty log, a hand not in the log, a frame outside the
        footage, or footage and log that do not overlap.
    """
    first, last, count = _span(source)
    if count == 0:
        raise InvalidInputError("the log is empty: nothing to draw")
    if spec.hand is not None:
        frame = spec.frame or 0
        if not 0 <= frame < info.frames:
            raise InvalidInputError(f"--hand-start {spec.hand}@{frame}: the footage has frames "
                                    f"0-{info.frames - 1}")
        record = next(iter(read_hands(source(), numbers={spec.hand}, table=table_name)), None)
        if record is None:
            raise InvalidInputError(f"--hand-start: hand {spec.hand} is not in the log")
        sync = Sync.from_hand_start(record.started_at, frame, info.fps)
    elif spec.start is not None:
        sync = Sync(spec.start, info.fps)
    else:
        raise InvalidInputError("say where the footage sits on the log's clock: --start TIME "
                                "or --hand-start HAND@FRAME")
    end = sync.time_of(info.frames)
    if last < sync.start or first >= end:
        raise InvalidInputError(
            f"the footage ({_when(sync.start)} to {_when(end)}) and the log ({_when(first)} to "
            f"{_when(last)}) do not overlap: check the sync (--start or --hand-start)")
    return sync


def _clip_files(clips: list[Clip], fps: float, frames: int, out: Path, *, title: str,
                source_name: str, log_head: LogHead | None) -> tuple[list[Path], Path]:
    """Write the CSV, chapters and EDL beside ``out``; returns them and the chapters file."""
    stem = out.with_suffix("")
    csv_path = write_csv(clips, fps, stem.with_name(stem.name + ".clips.csv"),
                         log_head=log_head)
    chapters = stem.with_name(stem.name + ".chapters.txt")
    chapters.write_text(ffmetadata(clips, fps, title=title, frames=frames, log_head=log_head),
                        encoding="utf-8")
    edl_path = stem.with_name(stem.name + ".edl")
    edl_path.write_text(edl(clips, fps, title=title, source_name=source_name,
                            log_head=log_head), encoding="utf-8")
    return [csv_path, chapters, edl_path], chapters


def export_footage(source: LogSource, footage: Path, out: Path, spec: SyncSpec,
                   options: ExportOptions | None = None) -> ExportResult:
    """Burn the graphics into ``footage`` (or, with ``options.alpha``, write them alone).

    :raises InvalidInputError: unreadable footage, bad sync, no hands in the footage.
    :raises EncodeError: the writer failed.
    """
    options = options or ExportOptions()
    if out.resolve() == footage.resolve():
        raise InvalidInputError(f"--out {out} is the footage itself: write somewhere else")
    info = probe_footage(footage, options.ffmpeg)
    sync = resolve_sync(source, spec, info, options.table_name)
    # Streamed: one hand in memory at a time, whatever the log's length.
    clips = clips_for(read_hands(source(), table=options.table_name), sync, info.frames)
    if not clips:
        raise InvalidInputError(
            f"no hand of the log is in the footage ({_when(sync.start)} to "
            f"{_when(sync.time_of(info.frames))}): check the sync")
    result = ExportResult(out, 0, info.fps, info.width, info.height, sync, clips=clips,
                          log_head=options.log_head)
    out.parent.mkdir(parents=True, exist_ok=True)
    chapters: Path | None = None
    if options.clips:
        written, chapters = _clip_files(clips, info.fps, info.frames, out,
                                        title=options.table_name,
                                        source_name=footage.name, log_head=options.log_head)
        result.files.extend(written)
    def views() -> Iterator[FrameView]:
        return frame_views(source(), sync, frames=info.frames, table_name=options.table_name)

    renderer = OverlayRenderer(info.width, info.height)
    try:
        if options.alpha:
            _alpha(ViewCursor(views()), renderer, info.frames, info.exact_rate, out, options,
                   result)
        else:
            _burn(lambda: _read_frames(footage, info), views, renderer, info, out, options,
                  result, chapters, audio_from=footage)
    except BaseException:  # no clip list beside a video that was not written
        for path in result.files:
            if path.is_file() and path != out:
                path.unlink()
        raise
    return result


def _read_frames(path: Path, info: FootageInfo) -> Iterator[np.ndarray]:
    """The footage's frames, decoded into one buffer again and again (each is used before
    the next is read: no fresh 6 MB a 1080p frame to allocate and fault in)."""
    capture = cv2.VideoCapture(str(path))
    frame: np.ndarray | None = None
    try:
        while True:
            ok, frame = capture.read(frame)
            if not ok:
                return
            if frame.shape[1] != info.width or frame.shape[0] != info.height:
                raise InvalidInputError(f"footage {path}: the frame size changes mid-file")
            yield frame
    finally:
        capture.release()


class Pictures:
    """The layer of each frame: redrawn when the view changes, or when a clock's text does
    (the level clock once a second while it runs; the R12 action clock too). Without a
    renderer it only tells where the redraws fall (:meth:`step`)."""

    def __init__(self, renderer: OverlayRenderer | None, sync: Sync) -> None:
        self.renderer, self.sync = renderer, sync
        self.layer = renderer.render(None) if renderer is not None else Layer.empty(0, 0)
        self.view: dict[str, Any] | None = None
        self.clocks = Clocks()

    def step(self, cursor: ViewCursor, frame: int) -> bool:
        """Move on to ``frame`` (increasing): True if its picture is redrawn."""
        current, changed = cursor.at(frame)
        if changed and current is not None:
            self.view = current.view
        clocks = clocks_at(self.view, self.sync.time_of(frame))
        if changed or clocks != self.clocks:
            self.clocks = clocks
            return True
        return False

    def at(self, cursor: ViewCursor, frame: int) -> Layer:
        if self.step(cursor, frame):
            assert self.renderer is not None
            self.layer = self.renderer.render(self.view, self.clocks)
        return self.layer


def picture_starts(cursor: ViewCursor, sync: Sync, frames: int) -> list[int]:
    """The frames where the graphics are redrawn (frame 0 first), without drawing them."""
    pictures = Pictures(None, sync)
    return [frame for frame in range(frames) if pictures.step(cursor, frame) or frame == 0]


class _ViewSpool:
    """The views of an export, read from the log once: :meth:`starts` (the first pass,
    :func:`picture_starts`) writes each to a temporary file as it goes (a line: its frame and
    its :func:`~overlay.export.video.timeline.drawn_key`), :meth:`cursor` reads them back
    for the drawing (:func:`~overlay.export.video.timeline.drawn_view`): the log is not
    folded into views twice, and memory does not grow with the footage's length."""

    def __init__(self, views: Callable[[], Iterable[FrameView]], sync: Sync,
                 frames: int) -> None:
        self.views, self.sync, self.frames = views, sync, frames
        self.changes = 0
        """How many different pictures the views showed (after :meth:`starts`)."""
        self._file = tempfile.TemporaryFile("w+", encoding="utf-8",  # noqa: SIM115
                                            prefix="feltcast-views-")

    def __enter__(self) -> _ViewSpool:
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.close()

    def starts(self) -> list[int]:
        cursor = ViewCursor(self._written(self.views()))
        starts = picture_starts(cursor, self.sync, self.frames)
        self.changes = cursor.changes
        return starts

    def _written(self, views: Iterable[FrameView]) -> Iterator[FrameView]:
        for view in views:
            self._file.write(f"{view.frame} {view.key}\n")
            yield view

    def cursor(self) -> ViewCursor:
        self._file.seek(0)
        return ViewCursor(self._read())

    def _read(self) -> Iterator[FrameView]:
        for line in self._file:
            frame, key = line.rstrip("\n").split(" ", 1)
            yield FrameView(int(frame), drawn_view(key), key)


def _drawn(cursor: Callable[[], ViewCursor], renderer: OverlayRenderer, sync: Sync,
           frames: int) -> Iterator[tuple[bytes, memoryview]]:
    """Each picture of :func:`picture_starts`, drawn when asked for (``cursor`` made then):
    a BMP (RGBA) as its header and its pixels, those of one :class:`FrameCanvas` redrawn
    where the picture changed (use them before asking for the next)."""
    views = cursor()
    pictures = Pictures(None, sync)
    canvas = FrameCanvas(renderer.width, renderer.height)
    header = bmp_header(renderer.width, renderer.height, rgba=True)
    scene = renderer.scene(None)
    for frame in range(frames):
        if pictures.step(views, frame):
            scene = renderer.scene(pictures.view, pictures.clocks)
        elif frame:
            continue
        yield header, canvas.draw(scene).data.cast("B")


def _burn(frames: Callable[[], Iterable[np.ndarray]], views: Callable[[], Iterable[FrameView]],
          renderer: OverlayRenderer, info: FootageInfo, out: Path, options: ExportOptions,
          result: ExportResult, chapters: Path | None, *, audio_from: Path | None,
          still: Path | None = None) -> None:
    """Burn the graphics in: with ffmpeg, in its own process (:class:`OverlayEncoder`: the
    footage, or the ``still`` image repeated, under the pictures drawn here; where they
    change is found while ffmpeg starts); without, or ``--via-opencv``, frame by frame here
    (``frames``) into OpenCV's writer, then re-encoded by ffmpeg if there is one."""
    import time

    started = time.perf_counter()
    progress = Progress(info.frames, stream=options.progress, enabled=options.progress
                        is not None, label="burning in")
    if options.ffmpeg is not None and not options.via_opencv:
        with _ViewSpool(views, result.sync, info.frames) as spool:
            encoder = OverlayEncoder(
                options.ffmpeg, still or info.path, out, size=(info.width, info.height),
                rate=info.exact_rate, frames=info.frames, starts=spool.starts,
                still=still is not None, audio=info.audio if audio_from is not None else None,
                chapters=chapters, preset=options.preset, crf=options.crf,
                comment=options.comment)
            count = encoder.run(_drawn(spool.cursor, renderer, result.sync, info.frames),
                                progress)
        result.h264 = True
        result.pictures = spool.changes
    else:
        count = _composite(frames(), ViewCursor(views()), renderer, info, out, options,
                           result, chapters, progress, audio_from=audio_from)
    progress.update(count, final=True)
    if count == 0:
        raise InvalidInputError(f"footage {info.path}: no frame could be decoded")
    result.frames = count
    result.files.insert(0, out)
    result.seconds = time.perf_counter() - started


def _composite(frames: Iterable[np.ndarray], cursor: ViewCursor, renderer: OverlayRenderer,
               info: FootageInfo, out: Path, options: ExportOptions, result: ExportResult,
               chapters: Path | None, progress: Progress, *,
               audio_from: Path | None) -> int:
    """Composite and write every frame into OpenCV's writer; then re-encode with ffmpeg."""
    size = (info.width, info.height)
    temp: tempfile.TemporaryDirectory[str] | None = None
    sink: FrameSink
    if options.ffmpeg is not None:
        temp = tempfile.TemporaryDirectory(prefix="feltcast-video-", dir=out.parent)
        sink = OpenCVWriter(Path(temp.name) / "opencv.mp4", info.fps, size)
    else:
        sink = OpenCVWriter(out, info.fps, size)
    pictures = Pictures(renderer, result.sync)
    count = 0
    try:
        for count, frame in enumerate(frames, 1):
            sink.write(pictures.at(cursor, count - 1).composite(frame))
            progress.update(count)
        sink.close()
        if temp is not None and options.ffmpeg is not None:
            assert isinstance(sink, OpenCVWriter)
            if options.progress is not None:
                options.progress.write("re-encoding to H.264 with ffmpeg…\n")
            reencode_h264(options.ffmpeg, sink.path, out, audio_from=audio_from,
                          audio=info.audio, chapters=chapters, preset=options.preset,
                          crf=options.crf, comment=options.comment)
            result.h264 = True
    except BaseException:
        sink.abort()
        raise
    finally:
        if temp is not None:
            temp.cleanup()
    result.pictures = cursor.changes
    return count


def _alpha(cursor: ViewCursor, renderer: OverlayRenderer, frames: int, rate: Fraction,
           out: Path, options: ExportOptions, result: ExportResult) -> None:
    """The graphics alone: PNG frames in ``<out stem>_frames/`` and, with ffmpeg and an
    ``out`` ending in .mov, ProRes 4444 with alpha."""
    import time

    started = time.perf_counter()
    mov = out if out.suffix.lower() == ".mov" else None
    folder = out.with_name(out.stem + "_frames") if out.suffix else out
    writer = AlphaWriter(folder, rate, mov=mov, ffmpeg=options.ffmpeg,
                         comment=options.comment)
    progress = Progress(frames, stream=options.progress, enabled=options.progress is not None,
                        label="graphics")
    pictures = Pictures(renderer, result.sync)
    try:
        for frame in range(frames):
            writer.write_png(pictures.at(cursor, frame).png())
            progress.update(frame + 1)
        progress.update(frames, final=True)
        if mov is not None and options.ffmpeg is not None:
            writer.close(Progress(frames, stream=options.progress,
                                  enabled=options.progress is not None, label="ProRes 4444"))
    except BaseException:
        writer.abort()
        raise
    result.frames = frames
    result.pictures = cursor.changes
    if mov is not None and options.ffmpeg is not None:
        result.files.insert(0, mov)
    result.files.insert(0 if mov is None or options.ffmpeg is None else 1, folder)
    result.seconds = time.perf_counter() - started


def background(width: int, height: int) -> np.ndarray:
    """The plain backdrop of a replay: a dark felt green, lighter in the middle."""
    ys = np.linspace(-1.0, 1.0, height, dtype=np.float32)[:, None]
    xs = np.linspace(-1.0, 1.0, width, dtype=np.float32)[None, :]
    light = np.clip(1.0 - 0.45 * (xs * xs + ys * ys), 0.45, 1.0)
    base = np.array([52, 86, 30], np.float32)  # BGR of #1e5634
    return (light[:, :, None] * base).astype(np.uint8)


def export_replay(path: Path, out: Path, *, options: ExportOptions | None = None,
                  size: tuple[int, int] = (1920, 1080), fps: float = 30.0,
                  pace: Pace | None = None, title: str | None = None) -> ExportResult:
    """An animated replay of the PHH hand at ``path`` over a plain background; the top bar
    shows ``title``, else the history's ``event``, else ``options.table_name``."""
    options = options or ExportOptions()
    if not path.is_file():
        raise InvalidInputError(f"hand history {path}: no such file")
    history = phh_files.load(path)
    if options.log_head is None:  # an exported hand: its replay carries the file's head
        options = dataclasses.replace(options, log_head=LogHead.from_phh(history.extra))
    pace = pace or Pace()
    entries = phh_entries(history, t0=0.0, pace=pace)
    title = title or str(history.extra.get("event") or options.table_name)
    sync = Sync(-1.0, fps)  # one second of the table before the first deal
    frames = sync.frame_of(entries[-1].time + pace.hold * pace.scale)
    width, height = size
    info = FootageInfo(path, width, height, fps, frames)
    result = ExportResult(out, 0, fps, width, height, sync, log_head=options.log_head)
    out.parent.mkdir(parents=True, exist_ok=True)

    def views() -> Iterator[FrameView]:
        return frame_views(entries, sync, frames=frames, table_name=title)

    renderer = OverlayRenderer(width, height)
    if options.alpha:
        _alpha(ViewCursor(views()), renderer, frames, exact_rate("", fps), out, options, result)
        return result
    backdrop = background(width, height)
    with tempfile.TemporaryDirectory(prefix="feltcast-replay-") as folder:
        still = Path(folder, "backdrop.png")
        cv2.imwrite(str(still), backdrop)
        _burn(lambda: (backdrop.copy() for _ in range(frames)), views, renderer, info, out,
              options, result, None, audio_from=None, still=still)
    return result


def default_ffmpeg() -> str | None:
    """The ffmpeg on PATH, if any."""
    return find_ffmpeg()
