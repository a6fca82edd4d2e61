"""Reading footage and writing video: OpenCV, and ffmpeg when it is installed.

* :func:`probe_footage`: size, frame rate, frame count and audio of a video file (OpenCV,
  refined by ``ffprobe`` when present);
* :class:`OverlayEncoder`: the burn-in in one ffmpeg process (decoding, its ``overlay``
  filter, H.264 with libx264, yuv420p, ``+faststart``, preset :data:`DEFAULT_PRESET`), the
  pictures drawn here fed to it only when they change, the footage's audio and the hand
  chapters muxed in: one pass;
* :class:`OpenCVWriter`: ``cv2.VideoWriter`` (MPEG-4 Part 2 in mp4), used when ffmpeg is
  missing, or with :func:`reencode_h264` afterwards (``--via-opencv``: the two-pass way);
* :class:`AlphaWriter`: the graphics alone with transparency: a PNG sequence, then ProRes 4444
  (``yuva444p10le``) through ffmpeg, each picture encoded once;
* :class:`Progress`: the progress bar on stderr (frames, fps, ETA).

Each ffmpeg writer takes a ``comment`` for the container's ``comment`` tag (the log's chain
head, issue 18); :class:`AlphaWriter` also puts it in every PNG frame (a ``tEXt`` chunk).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import IO, Any, Protocol

import cv2
import numpy as np

from engine.errors import FeltcastError, InvalidInputError
from overlay.export.log_head import png_with_comment

__all__ = [
    "DEFAULT_PRESET",
    "AlphaWriter",
    "EncodeError",
    "FootageError",
    "FootageInfo",
    "FrameSink",
    "OpenCVWriter",
    "OverlayEncoder",
    "Progress",
    "exact_rate",
    "find_ffmpeg",
    "probe_footage",
    "reencode_h264",
]

DEFAULT_PRESET = "superfast"
"""x264 preset: 1080p30 faster than real time on two cores (``veryfast`` costs ~1.7x the CPU
for ~15% smaller files; see bench/bench_video.py)."""

#: Audio codecs an mp4 carries as they are (anything else is re-encoded to AAC).
MP4_AUDIO = frozenset({"aac", "mp3", "ac3", "eac3", "alac", "opus", "flac"})


class FootageError(InvalidInputError):
    """A footage file that cannot be read as video (the message names the file and why)."""

    code = "footage_unreadable"


class EncodeError(FeltcastError, RuntimeError):
    """Writing the video failed (ffmpeg or OpenCV refused; the message quotes why)."""

    code = "encode_failed"


def find_ffmpeg(choice: str | None = None) -> str | None:
    """The ffmpeg to use: ``choice`` (a path; ``"off"`` for none), else the one on PATH."""
    if choice is not None and choice.lower() in ("off", "none", "no"):
        return None
    if choice:
        if not (os.path.isfile(choice) and os.access(choice, os.X_OK)):
            raise InvalidInputError(f"--ffmpeg {choice}: no such program")
        return choice
    return shutil.which("ffmpeg")


def _ffprobe(ffmpeg: str | None) -> str | None:
    if ffmpeg is None:
        return None
    beside = Path(ffmpeg).with_name("ffprobe")
    return str(beside) if beside.is_file() else shutil.which("ffprobe")


@dataclass(frozen=True, slots=True)
class FootageInfo:
    """What an export needs to know of a video file."""

    path: Path
    width: int
    height: int
    fps: float
    frames: int
    """Frames in the file (ffprobe's count when available, else OpenCV's estimate)."""
    rate: str = ""
    """The exact frame rate as ffmpeg writes it (``30000/1001``); ``""`` without ffprobe."""
    audio: str | None = None
    """The first audio stream's codec (None: no audio, or unknown without ffprobe)."""
    timecode: str = ""
    """The start time code the file carries (``01:00:00:00``), ``""``: none or no ffprobe."""

    @property
    def duration(self) -> float:
        return self.frames / self.fps

    @property
    def exact_rate(self) -> Fraction:
        """The frame rate as a fraction (``30000/1001``): :func:`exact_rate`."""
        return exact_rate(self.rate, self.fps)


def exact_rate(rate: str, fps: float) -> Fraction:
    """``rate`` as ffmpeg writes it (``30000/1001``) when it is one, else ``fps`` made a
    fraction."""
    if rate:
        with contextlib.suppress(ValueError, ZeroDivisionError):
            exact = Fraction(rate)
            if exact > 0:
                return exact
    return Fraction(fps).limit_denominator(1001000)


def probe_footage(path: Path, ffmpeg: str | None = None) -> FootageInfo:
    """Open ``path`` as video.

    :raises FootageError: no such file, or not a video OpenCV can decode.
    """
    if not path.is_file():
        raise FootageError(f"footage {path}: no such file")
    probe = _ffprobe(ffmpeg)
    # ffprobe runs while OpenCV opens the file (each takes its own process's start-up)
    probing = _start_probe(probe, path) if probe is not None else None
    try:
        capture = cv2.VideoCapture(str(path))
        try:
            ok, frame = capture.read() if capture.isOpened() else (False, None)
            if not ok or frame is None:
                raise FootageError(f"footage {path}: not a video this machine can decode "
                                   f"(OpenCV could not read its first frame)")
            height, width = frame.shape[:2]
            fps = float(capture.get(cv2.CAP_PROP_FPS) or 0.0)
            frames = int(capture.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        finally:
            capture.release()
    except BaseException:
        if probing is not None:
            probing.kill()
            probing.communicate()
        raise
    rate, audio, timecode = "", None, ""
    if probing is not None:
        stats = _probe_streams(probing)
        video = next((s for s in stats if s.get("codec_type") == "video"), None)
        sound = next((s for s in stats if s.get("codec_type") == "audio"), None)
        timecode = next((str(s["tags"]["timecode"]) for s in stats
                         if isinstance(s.get("tags"), dict) and s["tags"].get("timecode")), "")
        audio = str(sound.get("codec_name")) if sound is not None else None
        if video is not None:
            rate = str(video.get("r_frame_rate") or video.get("avg_frame_rate") or "")
            try:
                exact = Fraction(rate)
                fps = float(exact) if exact > 0 else fps
            except (ValueError, ZeroDivisionError):
                rate = ""
            counted = video.get("nb_read_packets") or video.get("nb_frames")
            if counted and str(counted).isdigit() and int(counted) > 0:
                frames = int(counted)
    if not fps or fps <= 0 or fps > 1000:
        raise FootageError(f"footage {path}: no usable frame rate ({fps!r})")
    if frames <= 0:
        raise FootageError(f"footage {path}: no frames")
    return FootageInfo(path, width, height, fps, frames, rate, audio, timecode)


def _start_probe(probe: str, path: Path) -> subprocess.Popen[str]:
    """ffprobe started on ``path`` (its report: :func:`_probe_streams`)."""
    return subprocess.Popen(
        [probe, "-v", "error", "-count_packets", "-show_entries",
         "stream=codec_type,codec_name,r_frame_rate,avg_frame_rate,nb_frames,nb_read_packets"
         ":stream_tags=timecode:format_tags=timecode",
         "-of", "json", str(path)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True)


def _probe_streams(probing: subprocess.Popen[str]) -> list[dict[str, Any]]:
    """The file's streams as ffprobe reports them; the file's own (format) tags come last,
    as a pseudo-stream of ``codec_type`` ``"format"``."""
    try:
        stdout, _ = probing.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        probing.kill()
        probing.communicate()
        return []
    if probing.returncode != 0:
        return []
    report = json.loads(stdout or "{}")
    streams = [s for s in report.get("streams", []) if isinstance(s, dict)]
    form = report.get("format")
    if isinstance(form, dict):
        streams.append({"codec_type": "format", "tags": form.get("tags") or {}})
    return streams


class FrameSink(Protocol):
    """Where composited frames go, in order."""

    def write(self, frame: np.ndarray) -> None: ...

    def close(self) -> None: ...

    def abort(self) -> None: ...


class OpenCVWriter:
    """``cv2.VideoWriter``: MPEG-4 Part 2 video in an mp4 (no audio, no chapters)."""

    def __init__(self, path: Path, fps: float, size: tuple[int, int]) -> None:
        self.path = path
        self.writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), fps, size)
        if not self.writer.isOpened():
            raise EncodeError(f"OpenCV cannot write {path} (mp4v, {size[0]}x{size[1]})")
        self.frames = 0

    def write(self, frame: np.ndarray) -> None:
        self.writer.write(frame)
        self.frames += 1

    def close(self) -> None:
        self.writer.release()

    def abort(self) -> None:
        self.writer.release()
        self.path.unlink(missing_ok=True)


def _audio_args(audio: str | None, stream: str) -> list[str]:
    if audio is None:
        return []
    codec = ["-c:a", "copy"] if audio in MP4_AUDIO else ["-c:a", "aac", "-b:a", "192k"]
    return ["-map", f"{stream}:a:0?", *codec]


EVEN_SIDES = "pad=ceil(iw/2)*2:ceil(ih/2)*2"
"""yuv420p needs even sides: footage of odd size gets one black row or column."""


def _h264_args(preset: str, crf: int, size: tuple[int, int] | None = None) -> list[str]:
    pad = ["-vf", EVEN_SIDES] if size is None or size[0] % 2 \
        or size[1] % 2 else []
    return [*pad, "-c:v", "libx264", "-preset", preset, "-crf", str(crf), "-pix_fmt", "yuv420p",
            "-movflags", "+faststart"]


def _metadata_args(comment: str | None) -> list[str]:
    """The output's ``comment`` tag (mp4 and mov: the ``©cmt`` atom every player shows)."""
    return ["-metadata", f"comment={comment}"] if comment else []


def _muxed_inputs(audio_from: Path | None, audio: str | None,
                  chapters: Path | None) -> list[str]:
    """The inputs after the video (input 0): the footage's audio and the chapters file, then
    the mapping of the video, that audio and those chapters into the output."""
    inputs: list[str] = []
    mapping = ["-map", "0:v:0"]
    count = 1
    if audio_from is not None and audio is not None:
        inputs += ["-i", str(audio_from)]
        mapping += _audio_args(audio, str(count))
        count += 1
    if chapters is not None:
        inputs += ["-f", "ffmetadata", "-i", str(chapters)]
        mapping += ["-map_chapters", str(count)]
    return [*inputs, *mapping]


def ffconcat(names: list[str], starts: list[int], frames: int, rate: Fraction, *,
             lead: Fraction = Fraction(0)) -> str:
    """An ffconcat script showing file ``names[k]`` from frame ``starts[k]`` to the next start
    (the last to ``frames``) at ``rate``: each change ``lead`` frames early, on a clock of
    ``1/(rate * den(lead))`` for the images (the image demuxers' own is 1/25 s, which would
    move changes by up to half a frame), durations in microseconds rounded from exact times
    so that no rounding adds up."""
    clock = rate * lead.denominator if lead else rate
    bounds = [0] + [round((s - lead) / rate * 1_000_000) for s in starts[1:]]
    bounds.append(round((frames + 1 - lead) / rate * 1_000_000))
    lines = ["ffconcat version 1.0"]
    for name, (begin, end) in zip(names, itertools.pairwise(bounds), strict=True):
        quoted = name.replace("'", "'\\''")  # ffconcat's quoting: 'it'\''s'
        lines += [f"file '{quoted}'", f"option framerate {clock.numerator}/{clock.denominator}",
                  f"duration {end - begin}us"]
    return "\n".join(lines) + "\n"


class FfmpegRun:
    """One ffmpeg process with its progress reports (``-progress pipe:1``) read for a
    :class:`Progress`, and its stderr kept for the message of a failure."""

    def __init__(self, command: list[str], progress: Progress | None = None) -> None:
        self.progress = progress
        self.frames = 0
        """Frames ffmpeg reported done."""
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - closed by __exit__
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=self._log)

    def __enter__(self) -> FfmpegRun:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self._log.close()

    def follow(self) -> int:
        """Read the progress reports until ffmpeg closes them; then its exit status."""
        stdout = self.process.stdout
        assert stdout is not None
        for line in stdout:
            if line.startswith(b"frame="):
                with contextlib.suppress(ValueError):
                    self.frames = int(line[6:])
                    if self.progress is not None:
                        self.progress.update(self.frames)
        return self.process.wait()

    def last_line(self) -> str:
        """ffmpeg's last message (its reason, when it failed)."""
        self._log.seek(0)
        lines = self._log.read().decode("utf-8", "replace").strip().splitlines()
        return lines[-1] if lines else f"exit status {self.process.poll()}"


Picture = bytes | tuple[bytes | memoryview, ...]
"""An image file for :class:`OverlayEncoder`: its bytes, or its pieces in order (a header and
pixels kept elsewhere, written as they are)."""


class OverlayEncoder:
    """The burn-in in one ffmpeg process: ffmpeg decodes the footage, lays the graphics over
    it with its ``overlay`` filter and encodes H.264 (libx264, yuv420p, ``+faststart``), the
    footage's audio and the hand chapters muxed in. Python only draws the pictures.

    The graphics change at events, not at every frame: each picture is a full-frame image
    with transparency (a 32-bit BMP, uncompressed: written and read in a fraction of a PNG's
    time), shown from its first frame (``starts``) until the next one's. The pictures reach
    ffmpeg through named pipes listed in an ffconcat script (:func:`ffconcat`: one pipe a
    picture, its duration beside it), written by a thread as ffmpeg opens them: nothing is
    stored whatever the footage's length, ffmpeg reads one image a change (not one a frame),
    and drawing the next picture runs beside the encoding. Each change is placed half a frame
    before its frame, on a clock of half frames, so that it lands on exactly that frame.
    ``starts`` may be a function that finds them: it is then called once ffmpeg is started,
    in that thread, and the script reaches ffmpeg through a named pipe too, so that finding
    the starts runs beside ffmpeg's own start (loading, opening the footage).

    The footage's frames are numbered as they come (``setpts=N``, as the frame-by-frame
    lookup of the pictures counts them): frame ``k`` of the output is frame ``k`` of the file.
    With ``still``, the main input is one image repeated ``frames`` times (a replay's
    backdrop). Needs ffmpeg 5.1 or newer (``-fps_mode``, the ffconcat ``option`` directive).
    """

    def __init__(self, ffmpeg: str, main: Path, out: Path, *, size: tuple[int, int],
                 rate: Fraction, frames: int, starts: list[int] | Callable[[], list[int]],
                 still: bool = False, audio: str | None = None, chapters: Path | None = None,
                 preset: str = DEFAULT_PRESET, crf: int = 18,
                 comment: str | None = None) -> None:
        if not callable(starts):
            _check_starts(starts)
        if rate <= 0 or frames <= 0:
            raise ValueError(f"no frames to write ({frames} at {rate} fps)")
        self.ffmpeg, self.main, self.out = ffmpeg, main, out
        self.size, self.rate, self.total, self.starts = size, rate, frames, starts
        self.still, self.audio, self.chapters = still, audio, chapters
        self.preset, self.crf, self.comment = preset, crf, comment
        self.frames = 0
        """Frames encoded (ffmpeg's count, read from its progress reports)."""

    def command(self, script: Path) -> list[str]:
        tick = 1 / self.rate
        main = (f"[0:v:0]loop=loop={self.total - 1}:size=1:start=0," if self.still
                else "[0:v:0]")
        graph = (f"{main}settb={tick.numerator}/{tick.denominator},setpts=N[main];"
                 f"[1:v:0]format=yuva420p[graphics];"
                 f"[main][graphics]overlay=eof_action=repeat:format=yuv420")
        if self.size[0] % 2 or self.size[1] % 2:  # yuv420p needs even sides
            graph += "," + EVEN_SIDES
        command = [self.ffmpeg, "-hide_banner", "-loglevel", "error", "-nostats", "-nostdin",
                   "-y", "-progress", "pipe:1", "-i", str(self.main),
                   "-f", "concat", "-safe", "0", "-i", str(script)]
        if self.chapters is not None:
            command += ["-f", "ffmetadata", "-i", str(self.chapters), "-map_chapters", "2"]
        command += ["-filter_complex", graph + "[video]", "-map", "[video]"]
        if not self.still:
            command += _audio_args(self.audio, "0")
        command += ["-frames:v", str(self.total), "-fps_mode", "passthrough",
                    "-r", f"{self.rate.numerator}/{self.rate.denominator}",
                    "-c:v", "libx264", "-preset", self.preset, "-crf", str(self.crf),
                    "-pix_fmt", "yuv420p", "-movflags", "+faststart",
                    *_metadata_args(self.comment), str(self.out)]
        return command

    def run(self, pictures: Iterable[Picture], progress: Progress | None = None) -> int:
        """Encode, drawing ``pictures`` (one image file per start, in order: its bytes, or
        its pieces in order) as ffmpeg asks for them; returns the frames written.

        :raises FootageError: ffmpeg could not decode the footage (its message quoted).
        :raises EncodeError: ffmpeg failed otherwise (its message quoted); the output is
            removed.
        """
        with tempfile.TemporaryDirectory(prefix="feltcast-graphics-") as folder:
            script = Path(folder, "graphics.ffconcat")
            os.mkfifo(script)
            try:
                with FfmpegRun(self.command(script), progress) as run:
                    feeder = _PictureFeeder(run.process, script, self._script, pictures)
                    try:
                        run.follow()
                    finally:
                        code = run.process.wait()
                        feeder.stop()
                    self.frames = run.frames
                    if feeder.error is not None:
                        raise feeder.error
                    if code != 0:
                        raise self._failure(run.last_line())
                if not feeder.done:
                    raise EncodeError(f"ffmpeg stopped before the last picture "
                                      f"({feeder.written - 1} of {len(feeder.pipes) - 1}) "
                                      f"was drawn")
            except BaseException:
                self.out.unlink(missing_ok=True)
                raise
        return self.frames

    def _script(self, folder: Path) -> tuple[bytes, list[Path]]:
        """The ffconcat script and the named pipes it lists (made in ``folder``), one a
        picture (finding the starts first, if that is still to do)."""
        starts = self.starts() if callable(self.starts) else self.starts
        _check_starts(starts)
        names = [f"picture-{k:06d}" for k in range(len(starts))]
        for name in names:
            os.mkfifo(folder / name)
        text = ffconcat(names, starts, self.total, self.rate, lead=Fraction(1, 2))
        return text.encode("utf-8"), [folder / name for name in names]

    def _failure(self, last: str) -> FeltcastError:
        if not self.still and last.startswith(str(self.main)):
            return FootageError(f"footage {self.main}: ffmpeg could not decode it: "
                                f"{last[len(str(self.main)):].lstrip(': ')}")
        return EncodeError(f"ffmpeg could not write {self.out}: {last}")


def _check_starts(starts: list[int]) -> None:
    if not starts or starts[0] != 0 or any(b <= a for a, b in itertools.pairwise(starts)):
        raise ValueError(f"picture starts must rise from frame 0: {starts[:5]}…")


class _PictureFeeder:
    """Writes the script, then each picture into its named pipe, in order, in a thread:
    opening a pipe waits until ffmpeg opens it, so drawing runs one picture ahead of what
    ffmpeg shows."""

    def __init__(self, process: subprocess.Popen[bytes], script: Path,
                 schedule: Callable[[Path], tuple[bytes, list[Path]]],
                 pictures: Iterable[Picture]) -> None:
        import threading

        self.process = process
        self.pipes = [script]
        """The script's pipe, then (once scheduled) each picture's."""
        self.written = 0
        """Files written (the script first)."""
        self.done = False
        """All were written."""
        self.error: BaseException | None = None
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._feed, args=(schedule, iter(pictures)),
                                        name="feltcast-graphics", daemon=True)
        self._thread.start()

    def _feed(self, schedule: Callable[[Path], tuple[bytes, list[Path]]],
              pictures: Iterator[Picture]) -> None:
        try:
            script, pipes = schedule(self.pipes[0].parent)
            self.pipes += pipes
            for k, pipe in enumerate(self.pipes):
                picture = next(pictures, None) if k else script
                if picture is None:
                    raise RuntimeError(f"{len(self.pipes) - 1} pictures were scheduled and "
                                       f"only {self.written - 1} drawn")
                fd = os.open(pipe, os.O_WRONLY)  # until ffmpeg opens it (or stop() does)
                if self._stopping.is_set():
                    os.close(fd)
                    return
                with open(fd, "wb") as stream:
                    for piece in (picture,) if isinstance(picture, bytes) else picture:
                        stream.write(piece)
                self.written += 1
            self.done = True
        except BrokenPipeError:  # ffmpeg went away: its exit status says why
            pass
        except BaseException as error:  # a drawing failed: stop ffmpeg, report it
            self.error = error
            self.process.kill()

    def stop(self) -> None:
        """After ffmpeg has exited: release a write waiting for it, and wait for the
        thread."""
        self._stopping.set()
        while self._thread.is_alive():
            if self.written < len(self.pipes):  # a reader that comes and goes wakes the open
                with contextlib.suppress(OSError):
                    os.close(os.open(self.pipes[self.written], os.O_RDONLY | os.O_NONBLOCK))
            self._thread.join(0.05)


def reencode_h264(ffmpeg: str, source: Path, out: Path, *, audio_from: Path | None = None,
                  audio: str | None = None, chapters: Path | None = None,
                  preset: str = DEFAULT_PRESET, crf: int = 18,
                  comment: str | None = None) -> None:
    """Re-encode ``source`` (e.g. OpenCV's mp4) to H.264 at ``out``, with the footage's audio
    and the chapters muxed in."""
    command = [ffmpeg, "-hide_banner", "-loglevel", "error", "-y", "-i", str(source)]
    command += [*_muxed_inputs(audio_from, audio, chapters), *_h264_args(preset, crf),
                *_metadata_args(comment), str(out)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        raise EncodeError(f"ffmpeg could not re-encode {source} to H.264: "
                          f"{lines[-1] if lines else done.returncode}")


class AlphaWriter:
    """The graphics alone: one PNG with transparency per frame in ``folder``
    (``frame_000000.png`` ...), then, with ffmpeg, ProRes 4444 with alpha at ``mov``.

    Graphics change only at events: :meth:`write_png` takes the layer's encoded PNG (the
    same bytes object while the picture stays). A picture is written once; its later frames
    are hard links to that file where the file system has them (copies elsewhere).

    ProRes is intra-only: a frame's packet depends on its picture alone, so each picture is
    encoded once (:meth:`close`: ffmpeg's ``prores_aw``, profile 4444, ``yuva444p10le``, one
    packet a picture) and the mov is muxed from those packets, each repeated for its frames
    (stream copy at the footage's exact rate): the encoding costs one frame a change, not
    one a frame, and the file is the same as encoding every frame. A ``comment`` goes into
    every PNG (a ``tEXt`` chunk ``Comment``) and the mov's ``comment`` tag."""

    def __init__(self, folder: Path, rate: Fraction, *, mov: Path | None = None,
                 ffmpeg: str | None = None, comment: str | None = None) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.rate = rate
        self.mov = mov
        self.ffmpeg = ffmpeg
        self.comment = comment
        self.frames = 0
        self._last: bytes | None = None  # the last picture's PNG, as given
        self._pictures: list[tuple[int, Path]] = []  # each picture's first frame and file

    def write_png(self, png: bytes) -> None:
        path = self.folder / f"frame_{self.frames:06d}.png"
        if png is not self._last or not self._pictures:
            self._last = png
            path.write_bytes(png_with_comment(png, self.comment) if self.comment else png)
            self._pictures.append((self.frames, path))
        else:
            _link(self._pictures[-1][1], path)
        self.frames += 1

    def close(self, progress: Progress | None = None) -> None:
        """Write the ProRes file (with ffmpeg and a ``mov``), reporting to ``progress``: the
        pictures encoded, then the frames muxed."""
        if self.mov is None or self.ffmpeg is None or not self._pictures:
            return
        rate = self.rate
        every = f"{rate.numerator}/{rate.denominator}"
        with tempfile.TemporaryDirectory(prefix="feltcast-prores-",
                                         dir=self.mov.parent) as name:
            packets, frames = Path(name, "pictures"), Path(name, "frames")
            packets.mkdir()
            frames.mkdir()
            script = Path(name, "pictures.ffconcat")  # one frame each, in order
            count = len(self._pictures)
            script.write_text(ffconcat([str(path.resolve()) for _, path in self._pictures],
                                       list(range(count)), count, rate), encoding="utf-8")
            self._ffmpeg(["-f", "concat", "-safe", "0", "-i", str(script),
                          "-fps_mode", "passthrough", "-frames:v", str(count),
                          # prores_aw: ProRes 4444 (ap4h) with its alpha, ~4x faster than
                          # prores_ks; the image2 muxer writes each packet to its own file
                          "-c:v", "prores_aw", "-profile:v", "4", "-pix_fmt", "yuva444p10le",
                          "-f", "image2", "-start_number", "0", str(packets / "%06d.prores")],
                         _sub_progress(progress, count, "ProRes 4444 pictures"))
            encoded = sorted(packets.iterdir())
            if len(encoded) != count:
                raise EncodeError(f"ffmpeg could not write ProRes 4444 {self.mov}: "
                                  f"{len(encoded)} of {count} pictures encoded")
            ends = [first for first, _ in self._pictures[1:]] + [self.frames]
            begin = 0
            for packet, end in zip(encoded, ends, strict=True):
                for frame in range(begin, end):
                    _link(packet, frames / f"{frame:06d}.prores")
                begin = end
            self._ffmpeg(["-framerate", every, "-c:v", "prores", "-f", "image2",
                          "-start_number", "0", "-i", str(frames / "%06d.prores"),
                          "-frames:v", str(self.frames), "-c:v", "copy", "-tag:v", "ap4h",
                          *_metadata_args(self.comment), str(self.mov)], progress)

    def _ffmpeg(self, arguments: list[str], progress: Progress | None) -> None:
        assert self.ffmpeg is not None
        command = [self.ffmpeg, "-hide_banner", "-loglevel", "error", "-nostats", "-nostdin",
                   "-y", "-progress", "pipe:1", *arguments]
        with FfmpegRun(command, progress) as run:
            if run.follow() != 0:
                raise EncodeError(f"ffmpeg could not write ProRes 4444 {self.mov}: "
                                  f"{run.last_line()}")
            if progress is not None:
                progress.update(run.frames, final=True)

    def abort(self) -> None:
        if self.mov is not None:
            self.mov.unlink(missing_ok=True)


def _link(first: Path, path: Path) -> None:
    """``path`` the same file as ``first``: a hard link, or a copy where the file system has
    none (FAT, some network shares)."""
    try:
        path.unlink(missing_ok=True)
        os.link(first, path)
    except OSError:
        shutil.copyfile(first, path)


def _sub_progress(progress: Progress | None, total: int, label: str) -> Progress | None:
    """A bar for a first step of ``total`` items, where ``progress`` reports (None: none)."""
    if progress is None:
        return None
    return Progress(total, stream=progress.stream, label=label, enabled=progress.enabled,
                    unit="pictures")


class Progress:
    """A progress bar on ``stream`` (stderr): frames (or another ``unit``) done, their rate
    and the time left.
    Redrawn in place on a terminal (at most 4 times a second), one line every 5 s
    otherwise."""

    def __init__(self, total: int, *, stream: IO[str] | None = None, label: str = "export",
                 enabled: bool = True, unit: str = "frames") -> None:
        self.total = max(1, total)
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        self.label = label
        self.enabled = enabled
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.started = time.monotonic()
        self._shown = 0.0

    def update(self, done: int, *, final: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not final and now - self._shown < (0.25 if self.tty else 5.0):
            return
        self._shown = now
        elapsed = max(now - self.started, 1e-9)
        rate = done / elapsed
        left = (self.total - done) / rate if rate > 0 else 0.0
        share = min(1.0, done / self.total)
        bar = "#" * round(share * 24) + "-" * (24 - round(share * 24))
        per = "fps" if self.unit == "frames" else f"{self.unit}/s"
        line = (f"{self.label} [{bar}] {done:,}/{self.total:,} {self.unit}  {rate:5.1f} {per}  "
                f"{'done in' if final else 'ETA'} "
                f"{_clock(elapsed if final else left)}")
        if self.tty:
            self.stream.write("\r" + line + ("\n" if final else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def _clock(seconds: float) -> str:
    whole = max(0, round(seconds))
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else \
        f"{rest // 60}:{rest % 60:02d}"
