"""``feltcast export video``: the overlay graphics burned into footage of the final table.

``feltcast export video --video FOOTAGE.mp4 --start 2026-11-30T20:14:03Z --out OUT.mp4``
draws, on every frame, what the browser overlay showed at that moment (full information:
editors cut after the event), from the table log in ``--data-dir`` (or ``--url``). Sync by
the recording's start (``--start``, ISO 8601 or Unix seconds) or by the frame where a hand
starts (``--hand-start 12@4521``). With ffmpeg the output is H.264 with the footage's audio
and one chapter per hand; the clip list is written beside it (``OUT.clips.csv``,
``OUT.chapters.txt``, ``OUT.edl``). ``--alpha`` writes the graphics alone with transparency
(``OUT_frames/*.png``, and ProRes 4444 when OUT ends in .mov).

``feltcast export video --phh HAND.phh --out HAND.mp4`` animates a hand history over a plain
background.

The log is read up to its head at the start, and every file written carries that head (issue
18, :mod:`overlay.export.log_head`): the video's ``comment`` tag, each PNG frame, the CSV's
``log_head`` column, a comment in the chapters and the EDL; stdout prints it too (a replay
carries the head of the PHH file, when it has one).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from overlay.export.log_head import LogHead
    from overlay.export.video.export import SyncSpec


X264_PRESETS = ("ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow",
                "slower", "veryslow")


def _size(text: str) -> tuple[int, int]:
    from engine.errors import InvalidInputError

    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise InvalidInputError(f"--size {text}: write WIDTHxHEIGHT, e.g. 1920x1080") from None
    if not (16 <= width <= 7680 and 16 <= height <= 4320):
        raise InvalidInputError(f"--size {text}: between 16x16 and 7680x4320")
    return width - width % 2, height - height % 2


def add_sync_arguments(parser: argparse.ArgumentParser) -> None:
    """Where the footage sits on the log's clock (``--start`` or ``--hand-start``), for every
    export of footage (this one and ``export timeline``)."""
    sync = parser.add_mutually_exclusive_group()
    sync.add_argument("--start", metavar="TIME",
                      help="when the footage's first frame was filmed: ISO 8601 with a zone "
                           "(2026-11-30T20:14:03Z) or Unix seconds")
    sync.add_argument("--hand-start", metavar="HAND@FRAME",
                      help="the frame where a hand starts, e.g. 12@4521")


def add_log_arguments(parser: argparse.ArgumentParser, *, table_help: str) -> None:
    """Where the log is (``--config``, ``--data-dir``, ``--url``) and the table's name."""
    parser.add_argument("--config", type=Path, default=None,
                        help="feltcast.toml: its data directory, database and table name")
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="the data directory holding feltcast.db (default: data)")
    parser.add_argument("--url", default="", help="a sqlite:/// or postgresql:// URL of the "
                                                  "log instead of the data directory")
    parser.add_argument("--table", "--table-name", dest="table_name", default=None,
                        metavar="NAME", help=table_help)


def apply_config(args: argparse.Namespace, *, table: bool) -> None:
    """Fill ``--data-dir``, ``--url`` and (with ``table``) ``--table`` from ``--config`` where
    not given; ``--data-dir`` defaults to ``data``."""
    if args.config is not None:
        from overlay.config import load_config

        config = load_config(args.config)
        args.data_dir = args.data_dir or config.data_dir
        args.url = args.url or config.database_url
        if table:
            args.table_name = args.table_name or config.table.name
    args.data_dir = args.data_dir or Path("data")


def sync_spec(args: argparse.Namespace) -> SyncSpec:
    """The :class:`SyncSpec` of ``--start`` / ``--hand-start``.

    :raises InvalidInputError: neither given, or either malformed.
    """
    from engine.errors import InvalidInputError
    from overlay.export.video.export import SyncSpec, parse_hand_start, parse_start

    if args.start is not None:
        return SyncSpec(start=parse_start(args.start))
    if args.hand_start is not None:
        hand, frame = parse_hand_start(args.hand_start)
        return SyncSpec(hand=hand, frame=frame)
    raise InvalidInputError("say where the footage sits on the log's clock: --start TIME "
                            "or --hand-start HAND@FRAME")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--video", type=Path, metavar="FOOTAGE",
                      help="the footage to burn the graphics into")
    what.add_argument("--phh", type=Path, metavar="HAND.phh",
                      help="animate this hand history over a plain background instead")
    parser.add_argument("--out", type=Path, required=True, metavar="OUT",
                        help="the video to write (.mp4; with --alpha .mov or a folder)")
    add_sync_arguments(parser)
    add_log_arguments(parser, table_help="the name in the graphics' top bar (default: the "
                                         "configuration's, else 'Final Table'; --phh: the "
                                         "file's event name)")
    parser.add_argument("--alpha", action="store_true",
                        help="write the graphics alone with transparency: PNG frames, and "
                             "ProRes 4444 when OUT ends in .mov")
    parser.add_argument("--via-opencv", action="store_true",
                        help="write with OpenCV first, then re-encode with ffmpeg (slower)")
    parser.add_argument("--ffmpeg", default=None, metavar="PATH",
                        help="the ffmpeg program (default: the one on PATH; 'off': OpenCV's "
                             "MPEG-4 only)")
    parser.add_argument("--preset", default="superfast", choices=X264_PRESETS,
                        metavar="PRESET",
                        help="x264 preset (default superfast: 1080p faster than real time on "
                             "two cores; veryfast: smaller files, slower)")
    parser.add_argument("--crf", type=int, default=18, help="x264 quality, lower is better "
                                                            "(default 18)")
    parser.add_argument("--size", default="1920x1080", help="--phh: the video's size")
    parser.add_argument("--fps", type=float, default=30.0, help="--phh: frames per second")
    parser.add_argument("--pace", type=float, default=1.0,
                        help="--phh: scale every pause (2 = twice as slow)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from engine.errors import InvalidInputError
    from overlay.export.hands import DEFAULT_TABLE
    from overlay.export.video.encode import find_ffmpeg
    from overlay.export.video.export import ExportOptions, export_footage, export_replay
    from overlay.export.video.replay import Pace

    apply_config(args, table=args.video is not None)
    if not 0 <= args.crf <= 51:
        raise InvalidInputError(f"--crf {args.crf}: x264 quality runs from 0 (lossless) to 51")
    ffmpeg = find_ffmpeg(args.ffmpeg)
    if ffmpeg is None and not args.quiet:
        print("ffmpeg not found: writing OpenCV's MPEG-4 (no H.264, audio, chapters, log "
              "head tag or ProRes); install ffmpeg for those", file=sys.stderr)
    options = ExportOptions(
        table_name=args.table_name or DEFAULT_TABLE, ffmpeg=ffmpeg, preset=args.preset,
        crf=args.crf, via_opencv=args.via_opencv, alpha=args.alpha,
        progress=None if args.quiet else sys.stderr)
    if args.phh is not None:
        if args.start or args.hand_start:
            raise InvalidInputError("--start and --hand-start are for footage (--video)")
        if args.fps <= 0 or args.fps > 240 or args.pace <= 0:
            raise InvalidInputError("--fps is between 0 and 240, --pace above 0")
        result = export_replay(args.phh, args.out, options=options, size=_size(args.size),
                               fps=args.fps, pace=Pace(scale=args.pace),
                               title=args.table_name)
        _report(result.files, result.frames, result.fps, result.seconds,
                head=result.log_head)
        return 0
    spec = sync_spec(args)
    import dataclasses

    from overlay.export.log_head import current_head, entries_to
    from overlay.store import open_existing_store

    store = open_existing_store(args.url, args.data_dir)
    try:
        head = current_head(store)  # the export reads the log up to here, and carries it
        result = export_footage(lambda: entries_to(store, head), args.video, args.out, spec,
                                dataclasses.replace(options, log_head=head))
    finally:
        store.close()
    _report(result.files, result.frames, result.fps, result.seconds, len(result.clips),
            head=head)
    return 0


def _report(files: list[Path], frames: int, fps: float, seconds: float,
            hands: int | None = None, *, head: LogHead | None = None) -> None:
    speed = (frames / fps) / seconds if seconds > 0 else 0.0
    line = f"wrote {files[0]}: {frames:,} frames ({frames / fps:.1f} s) in {seconds:.1f} s " \
           f"({speed:.2f}x real time)"
    if hands is not None:
        line += f", {hands} hand{'s' if hands != 1 else ''}"
    print(line)
    for path in files[1:]:
        print(f"wrote {path}")
    if head is not None:
        print(f"log chain head {head} (in the files written: feltcast log verify --export "
              f"FILE checks the log against it later)")
