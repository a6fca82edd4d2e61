"""``feltcast export timeline``: the editors' timeline of footage and the table log.

``feltcast export timeline --video FOOTAGE.mp4 --start 2026-11-30T20:14:03Z --out show``
writes ``show.otio`` (OpenTimelineIO), ``show.xml`` (Final Cut Pro 7 XML: Premiere, Resolve),
``show.fcpxml`` (Final Cut Pro, Resolve) and ``show.mlt`` (Shotcut, Kdenlive, ``melt``): the
footage on one track, the graphics with transparency on their own (still PNG clips in
``show_graphics/``, one per change), a marker at every hand. Sync as for ``export video``
(``--start`` or ``--hand-start``); the footage's own start time code, or ``--start-timecode``.
See :mod:`overlay.export.video.project` and docs/export.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from overlay.cli.export_video import (
    add_log_arguments,
    add_sync_arguments,
    apply_config,
    sync_spec,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from overlay.export.video.project import FORMATS

    parser.add_argument("--video", type=Path, required=True, metavar="FOOTAGE",
                        help="the footage the timeline is cut from")
    parser.add_argument("--out", type=Path, required=True, metavar="NAME",
                        help="the timeline's files: NAME.otio, NAME.xml, NAME.fcpxml, "
                             "NAME.mlt and NAME_graphics/")
    add_sync_arguments(parser)
    parser.add_argument("--start-timecode", metavar="HH:MM:SS:FF", default=None,
                        help="the footage's first frame as a time code (default: the one the "
                             "file carries, else 00:00:00:00)")
    parser.add_argument("--format", default=",".join(FORMATS), metavar="LIST",
                        help=f"which files, comma-separated (default all: "
                             f"{','.join(FORMATS)})")
    add_log_arguments(parser, table_help="the name in the graphics' top bar")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    import dataclasses

    from overlay.export.hands import DEFAULT_TABLE
    from overlay.export.log_head import current_head, entries_to
    from overlay.export.video.encode import find_ffmpeg
    from overlay.export.video.export import ExportOptions
    from overlay.export.video.project import export_timeline
    from overlay.store import open_existing_store

    apply_config(args, table=True)
    spec = sync_spec(args)
    formats = [f.strip() for f in args.format.split(",") if f.strip()]
    options = ExportOptions(table_name=args.table_name or DEFAULT_TABLE, ffmpeg=find_ffmpeg(),
                            progress=None if args.quiet else sys.stderr)
    store = open_existing_store(args.url, args.data_dir)
    try:
        head = current_head(store)  # the export reads the log up to here, and carries it
        result = export_timeline(lambda: entries_to(store, head), args.video, args.out, spec,
                                 dataclasses.replace(options, log_head=head),
                                 start_timecode=args.start_timecode, formats=formats)
    finally:
        store.close()
    print(f"wrote the timeline of {args.video} ({result.frames:,} frames at "
          f"{result.fps:g} fps, {len(result.markers)} hand marker(s), {result.images} "
          f"graphics picture(s) in {len(result.stills)} clip(s)) in {result.seconds:.1f} s:")
    for path in result.files:
        print(f"  {path}")
    print(f"log chain head {head} (in the .otio file's metadata: feltcast log verify --head "
          f"checks the log against it later)")
    return 0
