"""Reading footage and writing video: OpenCV, and ffmpeg when it is installed.

* :func:`probe_footage`: size, frame rate, frame count and audio of a video file (OpenCV,
  refined by ``ffprobe`` when present);
* :class:`FfmpegWriter`: frames piped straight into ffmpeg's H.264 encoder (libx264, yuv420p,
  ``+faststart``, preset :data:`DEFAULT_PRESET`), with the footage's audio and the hand
  chapters muxed in: one pass;
* :class:`OpenCVWriter`: ``cv2.VideoWriter`` (MPEG-4 Part 2 in mp4), used when ffmpeg is
  missing, or with :func:`reencode_h264` afterwards (``--via-opencv``: the two-pass way);
* :class:`AlphaWriter`: the graphics alone with transparency: a PNG sequence, then ProRes 4444
  (``yuva444p10le``) through ffmpeg;
* :class:`Progress`: the progress bar on stderr (frames, fps, ETA).

Each ffmpeg writer takes a ``comment`` for the container's ``comment`` tag (the log's chain
head, issue 18); :class:`AlphaWriter` also puts it in every PNG frame (a ``tEXt`` chunk).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
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
    "FfmpegWriter",
    "FootageError",
    "FootageInfo",
    "FrameSink",
    "OpenCVWriter",
    "Progress",
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


def probe_footage(path: Path, ffmpeg: str | None = None) -> FootageInfo:
    """Open ``path`` as video.

    :raises FootageError: no such file, or not a video OpenCV can decode.
    """
    if not path.is_file():
        raise FootageError(f"footage {path}: no such file")
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
    rate, audio, timecode = "", None, ""
    probe = _ffprobe(ffmpeg)
    if probe is not None:
        stats = _probe_streams(probe, path)
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


def _probe_streams(probe: str, path: Path) -> list[dict[str, Any]]:
    """The file's streams as ffprobe reports them; the file's own (format) tags come last,
    as a pseudo-stream of ``codec_type`` ``"format"``."""
    done = subprocess.run(
        [probe, "-v", "error", "-count_packets", "-show_entries",
         "stream=codec_type,codec_name,r_frame_rate,avg_frame_rate,nb_frames,nb_read_packets"
         ":stream_tags=timecode:format_tags=timecode",
         "-of", "json", str(path)], capture_output=True, text=True, check=False, timeout=300)
    if done.returncode != 0:
        return []
    report = json.loads(done.stdout or "{}")
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


def _h264_args(preset: str, crf: int, size: tuple[int, int] | None = None) -> list[str]:
    # yuv420p needs even sides: footage of odd size gets one black row or column.
    pad = ["-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2"] if size is None or size[0] % 2 \
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


class FfmpegWriter:
    """Frames piped into ffmpeg, encoded to H.264 in an mp4 in one pass; the audio of
    ``audio_from`` (the footage) and the chapters of ``chapters`` (an FFMETADATA file) are
    muxed in.

    The frames go as raw I420 (YUV 4:2:0), converted here by OpenCV (BT.601, limited range:
    within one level of ffmpeg's own conversion, in a fraction of its time): half the bytes
    of BGR through the pipe, and no conversion left to the encoder's process. Footage with an
    odd side goes as BGR (4:2:0 needs even sides; ffmpeg pads it)."""

    def __init__(self, ffmpeg: str, path: Path, fps: float, size: tuple[int, int], *,
                 rate: str = "", audio_from: Path | None = None, audio: str | None = None,
                 chapters: Path | None = None, preset: str = DEFAULT_PRESET,
                 crf: int = 18, comment: str | None = None) -> None:
        self.path = path
        self.frames = 0
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - ffmpeg's stderr, read on failure
        self.i420 = size[0] % 2 == 0 and size[1] % 2 == 0
        self._yuv: np.ndarray | None = None
        command = [ffmpeg, "-hide_banner", "-loglevel", "error", "-y",
                   "-f", "rawvideo", "-pix_fmt", "yuv420p" if self.i420 else "bgr24",
                   "-s", f"{size[0]}x{size[1]}", "-framerate", rate or repr(fps),
                   "-i", "pipe:0"]
        command += [*_muxed_inputs(audio_from, audio, chapters),
                    *_h264_args(preset, crf, size), *_metadata_args(comment), str(path)]
        self.command = command
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                        stderr=self._log)

    def write(self, frame: np.ndarray) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        if self.i420:
            self._yuv = cv2.cvtColor(frame, cv2.COLOR_BGR2YUV_I420, dst=self._yuv)
            frame = self._yuv
        try:
            stdin.write(np.ascontiguousarray(frame).tobytes() if not frame.flags.c_contiguous
                        else frame.data)
        except BrokenPipeError:
            raise EncodeError(f"ffmpeg stopped while writing {self.path}: "
                              f"{self._error()}") from None
        self.frames += 1

    def close(self) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        with contextlib.suppress(BrokenPipeError):
            stdin.close()
        status = self.process.wait()
        try:
            if status != 0:
                raise EncodeError(f"ffmpeg could not write {self.path}: {self._error()}")
        finally:
            self._log.close()

    def abort(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        if self.process.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                self.process.stdin.close()
        self._log.close()
        self.path.unlink(missing_ok=True)

    def _error(self) -> str:
        self._log.seek(0)
        text = self._log.read().decode("utf-8", "replace").strip()
        return text.splitlines()[-1] if text else f"exit status {self.process.poll()}"


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

    Graphics change only at events: :meth:`write_png` takes the layer's encoded PNG, which
    the caller encodes once per picture. A ``comment`` goes into every PNG (a ``tEXt`` chunk
    ``Comment``) and the mov's ``comment`` tag."""

    def __init__(self, folder: Path, fps: float, *, rate: str = "", mov: Path | None = None,
                 ffmpeg: str | None = None, comment: str | None = None) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.fps, self.rate = fps, rate
        self.mov = mov
        self.ffmpeg = ffmpeg
        self.comment = comment
        self.frames = 0
        self._tagged: tuple[bytes, bytes] | None = None  # the last PNG and its tagged copy

    def write_png(self, png: bytes) -> None:
        if self.comment:
            if self._tagged is None or self._tagged[0] is not png:
                self._tagged = (png, png_with_comment(png, self.comment))
            png = self._tagged[1]
        (self.folder / f"frame_{self.frames:06d}.png").write_bytes(png)
        self.frames += 1

    def close(self) -> None:
        if self.mov is None or self.ffmpeg is None:
            return
        command = [self.ffmpeg, "-hide_banner", "-loglevel", "error", "-y",
                   "-framerate", self.rate or repr(self.fps), "-start_number", "0",
                   "-i", str(self.folder / "frame_%06d.png"),
                   # prores_aw: ProRes 4444 (ap4h) with its alpha, ~4x faster than prores_ks
                   "-c:v", "prores_aw", "-profile:v", "4", "-pix_fmt", "yuva444p10le",
                   "-vendor", "apl0", *_metadata_args(self.comment), str(self.mov)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            lines = done.stderr.strip().splitlines()
            raise EncodeError(f"ffmpeg could not write ProRes 4444 {self.mov}: "
                              f"{lines[-1] if lines else done.returncode}")

    def abort(self) -> None:
        if self.mov is not None:
            self.mov.unlink(missing_ok=True)


class Progress:
    """A progress bar on ``stream`` (stderr): frames done, frames per second and time left.
    Redrawn in place on a terminal (at most 4 times a second), one line every 5 s
    otherwise."""

    def __init__(self, total: int, *, stream: IO[str] | None = None, label: str = "export",
                 enabled: bool = True) -> None:
        self.total = max(1, total)
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
        line = (f"{self.label} [{bar}] {done:,}/{self.total:,} frames  {rate:5.1f} fps  "
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
