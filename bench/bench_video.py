"""``python -m bench.bench_video``: video export speed and memory (issue 9), side by side with
what an editor would do instead.

Footage: 1080p30 test footage made by ffmpeg (``testsrc2``, moving, H.264 with an AAC tone,
like a camera file), ``--seconds`` long and four times that. Log: televised hands from
``../shared/data/phh`` replayed at a broadcast's pace (:mod:`overlay.export.video.replay`),
back to back over the whole footage (a picture change every 1-2 s, as at a real table).

Measured, each export in a fresh interpreter (peak memory is the process's own):

* ``feltcast``: ``export_footage`` as ``feltcast export video`` runs it (one ffmpeg process
  decoding the footage, laying the pictures drawn here over it with its ``overlay`` filter
  and encoding H.264, audio and chapters muxed): seconds, x real time, peak RSS of the
  Python process (ffmpeg's own is bounded by x264's lookahead, whatever the length) and the
  tracemalloc peak, RSS sampled through the run (the second half's peak against the first
  half's), CPU seconds (Python and ffmpeg; ``realtime_if_idle_estimate`` spreads
  them over two cores, for a machine busy with other work); short and 4x long footage.
  Targets: at least real time, and memory that does not grow with the length (long peak RSS
  within 10% + 20 MB of the short one), at least twice real time (issue 23);
* ``feltcast --alpha``: the graphics alone, a PNG sequence and ProRes 4444 (each picture
  encoded once, its packet repeated): at least real time;
* ``feltcast --via-opencv``: ``cv2.VideoWriter`` then an ffmpeg re-encode (two passes);
* ``ffmpeg overlay of a PNG sequence``: what an editor does with a browser capture of the
  overlay: ``ffmpeg -i footage -i frames/%06d.png -filter_complex overlay``, H.264 with the
  same settings. The capture itself is not timed (our ``--alpha`` PNGs stand in for it), so
  the ratio flatters the alternative;
* ``ffmpeg drawtext``: text-only graphics (hand, board, pot as one line per picture, timed
  with ``enable``): no cards, no player boxes, and still a filter graph per picture;
* ``ffmpeg encode, no graphics``: the footage re-encoded with the same x264 settings, the
  limit a burn-in approaches (its ratio to ours is the graphics' overhead). The overhead
  check (at most 1.15x) runs the two ``--pairs`` times more, back to back, and compares the
  medians: a slow spell of a shared machine falls on both. Those exports run without
  tracemalloc, as ``feltcast export video`` runs (the plain encode has no tracer either;
  tracing every allocation costs the drawing about half its CPU again): the memory figures
  are the short and long runs', traced;
* ``feltcast export timeline``: the editors' timeline (:mod:`overlay.export.video.project`):
  no frame is encoded, a PNG is written per change of the graphics.

Results go to ``bench/results/video-<UTC time>.json`` (``--no-save``: stdout only); the exit
status is 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
PHH_DATA = ROOT.parent / "shared" / "data" / "phh"
PRESET = "superfast"
"""Feltcast's default x264 preset; the alternatives encode with the same settings."""
FASTSTART = ["-movflags", "+faststart"]
"""As Feltcast writes its mp4 (the index first: an editor's file opens before it is all
read); the alternatives write theirs the same way."""

_CHILD = """
import json, resource, sys, time, tracemalloc
from pathlib import Path
sys.path.insert(0, {root!r})
from bench.bench_video import log_entries
from overlay.export.video.export import ExportOptions, SyncSpec, export_footage
entries = log_entries({seconds!r})
def cpu():
    return sum(getattr(resource.getrusage(who), f) for who in
               (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN) for f in ("ru_utime", "ru_stime"))
samples = []  # (seconds into the export, RSS MB), every 0.25 s
def sample():
    import os, threading
    page = os.sysconf("SC_PAGE_SIZE")
    def run():
        while not done.is_set():
            take()
            done.wait(0.25)
    def take():
        with open("/proc/self/statm") as f:
            rss = int(f.read().split()[1]) * page / 2**20
        samples.append((time.perf_counter() - start, rss))
    done = threading.Event()
    threading.Thread(target=run, daemon=True).start()
    return done, take
if {trace!r}:  # Python's allocations traced for their peak (costs the drawing CPU)
    tracemalloc.start()
cpu_before = cpu()
start = time.perf_counter()
stop, take = sample()
options = ExportOptions(ffmpeg={ffmpeg!r}, via_opencv={via_opencv!r}, alpha={alpha!r},
                        clips=False)
if {timeline!r}:
    from overlay.export.video.project import export_timeline
    result = export_timeline(lambda: iter(entries), Path({footage!r}), Path({out!r}),
                             SyncSpec(start=0.0), options)
    pictures = result.images
else:
    result = export_footage(lambda: iter(entries), Path({footage!r}), Path({out!r}),
                            SyncSpec(start=0.0), options)
    pictures = result.pictures
take()  # the RSS at the end: short runs on a busy machine may get no sample in their 2nd half
seconds = time.perf_counter() - start
stop.set()
_, peak = tracemalloc.get_traced_memory()
half = [m for t, m in samples if t < seconds / 2] or [0.0]
rest = [m for t, m in samples if t >= seconds / 2] or [0.0]
print(json.dumps({{"seconds": seconds, "frames": result.frames, "pictures": pictures,
                  "tracemalloc_peak_mb": peak / 2**20,
                  "rss_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "cpu_seconds": cpu() - cpu_before,
                  "rss_first_half_max_mb": max(half), "rss_second_half_max_mb": max(rest)}}))
"""


def log_entries(seconds: float) -> list[Any]:
    """Televised hands back to back from t=0, covering ``seconds`` (renumbered 1, 2, ...)."""
    from dataclasses import replace

    from engine.events import HandStarted
    from engine.log import TableEvent
    from overlay import phh_files
    from overlay.export.video.replay import phh_entries

    files = sorted(phh_files.iter_files([PHH_DATA / "wsop-2023-43-day5", PHH_DATA / "pluribus"]))
    if not files:
        raise SystemExit(f"no PHH hands under {PHH_DATA}")
    out: list[TableEvent] = []
    now, number = min(0.5, seconds / 4), 0
    while not out or now < seconds:
        history = phh_files.load(files[number % len(files)])
        number += 1
        for entry in phh_entries(history, t0=now):
            payload = entry.payload
            if isinstance(payload, HandStarted):
                payload = replace(payload, hand_number=number)
            out.append(TableEvent.record(len(out) + 1, entry.time, payload))
        now = out[-1].time + 3.0
    return out


def make_footage(path: Path, seconds: float, size: str, ffmpeg: str) -> Path:
    subprocess.run([ffmpeg, "-v", "error", "-y", "-f", "lavfi", "-i",
                    f"testsrc2=size={size}:rate=30", "-f", "lavfi", "-i",
                    "sine=frequency=440:sample_rate=48000", "-t", str(seconds),
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                    "-c:a", "aac", str(path)], check=True)
    return path


def run_feltcast(footage: Path, out: Path, seconds: float, ffmpeg: str, *,
                 via_opencv: bool = False, alpha: bool = False,
                 timeline: bool = False, trace: bool = True) -> dict[str, Any]:
    """One export in a fresh interpreter; ``trace``: with tracemalloc on (its peak is one of
    the memory figures; tracing every allocation adds to the drawing's CPU)."""
    code = _CHILD.format(root=str(ROOT), seconds=seconds, footage=str(footage),
                         out=str(out), ffmpeg=ffmpeg, via_opencv=via_opencv, alpha=alpha,
                         timeline=timeline, trace=trace)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"export failed:\n{done.stderr}")
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    figures["realtime"] = seconds / figures["seconds"]
    return figures


def timed(command: list[str]) -> dict[str, Any]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"seconds": wall, "cpu_seconds": (after.ru_utime - before.ru_utime)
            + (after.ru_stime - before.ru_stime)}


def run_plain_encode(ffmpeg: str, footage: Path, out: Path, seconds: float) -> dict[str, Any]:
    """The footage re-encoded with the same settings and no graphics: the limit a burn-in
    can approach (decoding and encoding are the same work)."""
    figures = timed([ffmpeg, "-v", "error", "-y", "-i", str(footage), "-c:v", "libx264",
                     "-preset", PRESET, "-crf", "18", "-pix_fmt", "yuv420p", "-c:a", "copy",
                     *FASTSTART, str(out)])
    figures["realtime"] = seconds / figures["seconds"]
    return figures


def run_png_overlay(ffmpeg: str, footage: Path, frames_dir: Path, out: Path,
                    seconds: float) -> dict[str, Any]:
    figures = timed([ffmpeg, "-v", "error", "-y", "-i", str(footage), "-framerate", "30",
                     "-start_number", "0", "-i", str(frames_dir / "frame_%06d.png"),
                     "-filter_complex", "[0:v][1:v]overlay=0:0:shortest=1[v]", "-map", "[v]",
                     "-map", "0:a?", "-c:v", "libx264", "-preset", PRESET, "-crf", "18",
                     "-pix_fmt", "yuv420p", "-c:a", "copy", *FASTSTART, str(out)])
    figures["realtime"] = seconds / figures["seconds"]
    return figures


def drawtext_script(entries: list[Any], seconds: float, folder: Path) -> Path:
    """One drawtext per picture (hand, street, board and pot as a line), as a filter script."""
    from engine.channels import ChannelItem
    from engine.view import TableViewReducer
    from overlay.export.video.timeline import EXPORT_CHANNEL

    reducer = TableViewReducer(EXPORT_CHANNEL)
    state = reducer.initial()
    lines: list[tuple[float, str]] = []
    for entry in entries:
        if entry.time >= seconds:
            break
        state = reducer.apply(state, ChannelItem(entry, entry.time))
        view = reducer.snapshot(state)
        table = view["table"]
        pot = sum(p["amount"] for p in table["pots"]) + sum(s["bet"] for s in view["seats"])
        text = (f"Hand {table['hand_number']}  {table['street'] or ''}  "
                f"{' '.join(table['board'])}  Pot {pot}")
        if not lines or lines[-1][1] != text:
            lines.append((entry.time, text))
    font = ROOT / "static" / "fonts" / "Inter-Bold.otf"
    filters = []
    for k, (at, text) in enumerate(lines):
        until = lines[k + 1][0] if k + 1 < len(lines) else seconds
        safe = text.replace(":", "\\:").replace("'", "")
        filters.append(f"drawtext=fontfile={font}:text='{safe}':x=60:y=980:fontsize=48:"
                       f"fontcolor=white:box=1:boxcolor=black@0.7:"
                       f"enable='between(t,{at:.3f},{until:.3f})'")
    script = folder / "drawtext.txt"
    script.write_text(",\n".join(filters) + "\n")
    return script


def run_drawtext(ffmpeg: str, footage: Path, script: Path, out: Path,
                 seconds: float) -> dict[str, Any]:
    figures = timed([ffmpeg, "-v", "error", "-y", "-i", str(footage), "-filter_script:v",
                     str(script), "-map", "0:v", "-map", "0:a?", "-c:v", "libx264",
                     "-preset", PRESET, "-crf", "18", "-pix_fmt", "yuv420p", "-c:a",
                     "copy", *FASTSTART, str(out)])
    figures["realtime"] = seconds / figures["seconds"]
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_video",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="the short footage's length (the long one is 4x)")
    parser.add_argument("--size", default="1920x1080", help="footage size (default 1080p)")
    parser.add_argument("--skip-baselines", action="store_true",
                        help="only Feltcast (no two-pass, PNG overlay or drawtext runs)")
    parser.add_argument("--pairs", type=int, default=5,
                        help="burn-in and plain encode run alternately this many times more "
                             "for the overhead check (medians; default 5)")
    parser.add_argument("--no-save", action="store_true", help="print JSON, write no file")
    args = parser.parse_args(argv)
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        print("ffmpeg is needed for this benchmark (make test installs it)", file=sys.stderr)
        return 2
    load_before = os.getloadavg()
    short, long = args.seconds, args.seconds * 4
    report: dict[str, Any] = {"size": args.size, "fps": 30, "short_s": short, "long_s": long}
    with tempfile.TemporaryDirectory(prefix="bench-video-") as name:
        folder = Path(name)
        footage = {short: make_footage(folder / "short.mp4", short, args.size, ffmpeg),
                   long: make_footage(folder / "long.mp4", long, args.size, ffmpeg)}
        runs: dict[str, Any] = {}
        for label, seconds in (("short", short), ("long", long)):
            runs[f"feltcast_{label}"] = run_feltcast(footage[seconds], folder / f"{label}-out.mp4",
                                                     seconds, ffmpeg)
            _line(f"feltcast {label}", runs[f"feltcast_{label}"])
        if not args.skip_baselines:
            runs["feltcast_via_opencv_short"] = run_feltcast(
                footage[short], folder / "two-pass.mp4", short, ffmpeg, via_opencv=True)
            _line("feltcast --via-opencv", runs["feltcast_via_opencv_short"])
            alpha = run_feltcast(footage[short], folder / "graphics.mov", short, ffmpeg,
                                 alpha=True)
            runs["feltcast_alpha_short"] = alpha
            _line("feltcast --alpha (PNG+ProRes)", alpha)
            runs["feltcast_timeline_short"] = run_feltcast(
                footage[short], folder / "timeline", short, ffmpeg, timeline=True)
            _line("feltcast export timeline", runs["feltcast_timeline_short"])
            runs["ffmpeg_plain_encode_short"] = run_plain_encode(
                ffmpeg, footage[short], folder / "plain.mp4", short)
            _line("ffmpeg encode, no graphics", runs["ffmpeg_plain_encode_short"])
            runs["ffmpeg_png_overlay_short"] = run_png_overlay(
                ffmpeg, footage[short], folder / "graphics_frames", folder / "png.mp4", short)
            _line("ffmpeg overlay of PNGs", runs["ffmpeg_png_overlay_short"])
            script = drawtext_script(log_entries(short), short, folder)
            runs["ffmpeg_drawtext_short"] = run_drawtext(ffmpeg, footage[short], script,
                                                         folder / "text.mp4", short)
            _line("ffmpeg drawtext (text only)", runs["ffmpeg_drawtext_short"])
            # The overhead of the graphics, paired: the same two runs back to back, so that
            # a slow spell of a shared machine falls on both (medians of --pairs).
            # Untraced, as an editor runs it: the plain encode has no tracer either (the
            # memory figures are the short and long runs').
            pairs = [(run_feltcast(footage[short], folder / "pair.mp4", short, ffmpeg,
                                   trace=False),
                      run_plain_encode(ffmpeg, footage[short], folder / "plain.mp4", short))
                     for _ in range(max(1, args.pairs))]
            report["overhead"] = {
                "feltcast_traced": False,
                "feltcast_seconds": [ours["seconds"] for ours, _ in pairs],
                "plain_seconds": [plain["seconds"] for _, plain in pairs],
                "ratio_of_medians": statistics.median(o["seconds"] for o, _ in pairs)
                / statistics.median(p["seconds"] for _, p in pairs)}
            print(f"  overhead of the graphics: {report['overhead']['ratio_of_medians']:.2f}x "
                  f"the plain encode (medians of {len(pairs)} pairs)", file=sys.stderr)
    report["runs"] = runs
    ours = runs["feltcast_short"]["seconds"]
    report["ratios"] = {name: run["seconds"] / ours for name, run in runs.items()
                        if name != "feltcast_short" and "long" not in name}
    # CPU seconds (ours: Python and ffmpeg) are steadier than wall time on a shared machine.
    ours_cpu = runs["feltcast_short"]["cpu_seconds"]
    report["cpu_ratios"] = {name: run["cpu_seconds"] / ours_cpu for name, run in runs.items()
                            if name != "feltcast_short" and "long" not in name}
    s_rss, l_rss = runs["feltcast_short"]["rss_peak_mb"], runs["feltcast_long"]["rss_peak_mb"]
    # What the load of other processes hides: the CPU an export needs, spread over the cores
    # (an export keeps two busy: Python decoding and blending, ffmpeg encoding).
    cores = min(2, os.cpu_count() or 1)
    for name in ("feltcast_short", "feltcast_long"):
        run = runs[name]
        run["realtime_if_idle_estimate"] = run["frames"] / 30 / (run["cpu_seconds"] / cores)
    report["checks"] = {
        "realtime>=1 (short)": runs["feltcast_short"]["realtime"] >= 1.0,
        "realtime>=1 (long)": runs["feltcast_long"]["realtime"] >= 1.0,
        "realtime>=2 (short, issue 23)": runs["feltcast_short"]["realtime"] >= 2.0,
        "memory_flat (long rss <= short*1.1+20MB)": l_rss <= s_rss * 1.1 + 20,
        "memory_flat (long: 2nd half max rss <= 1st half max*1.05+10MB)":
            runs["feltcast_long"]["rss_second_half_max_mb"]
            <= runs["feltcast_long"]["rss_first_half_max_mb"] * 1.05 + 10,
    }
    if not args.skip_baselines:
        report["checks"]["time<=1.15x the plain encode (short, paired, issue 23)"] = \
            report["overhead"]["ratio_of_medians"] <= 1.15
        report["checks"]["alpha realtime>=1 (short, issue 23)"] = \
            runs["feltcast_alpha_short"]["realtime"] >= 1.0
    report["machine"] = {"python": platform.python_version(), "cpus": os.cpu_count(),
                         "load_before": load_before, "load_after": os.getloadavg()}
    for name, ratio in report["ratios"].items():
        print(f"  {name}: {ratio:.2f}x Feltcast's time, {report['cpu_ratios'][name]:.2f}x its "
              f"CPU", file=sys.stderr)
    for name in ("feltcast_short", "feltcast_long"):
        print(f"  {name}: {runs[name]['realtime_if_idle_estimate']:.2f}x real time on two idle "
              f"cores (estimate from CPU seconds)", file=sys.stderr)
    for name, ok in report["checks"].items():
        print(f"{'ok  ' if ok else 'MISS'} {name}", file=sys.stderr)
    text = json.dumps(report, indent=2)
    if args.no_save:
        print(text)
    else:
        when = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        RESULTS.mkdir(parents=True, exist_ok=True)
        path = RESULTS / f"video-{when}.json"
        path.write_text(text + "\n")
        print(f"wrote {path.relative_to(ROOT)}", file=sys.stderr)
    return 0 if all(report["checks"].values()) else 1


def _line(label: str, run: dict[str, Any]) -> None:
    memory = ""
    if "rss_peak_mb" in run:
        memory = (f", peak RSS {run['rss_peak_mb']:.0f} MB, tracemalloc "
                  f"{run['tracemalloc_peak_mb']:.1f} MB, {run['pictures']} pictures")
    cpu = run.get("cpu_seconds")
    if cpu:
        run["cpu_ms_per_frame"] = 1e3 * cpu / run["frames"] if run.get("frames") else None
        memory += f", CPU {cpu:.1f} s (with ffmpeg)"
    print(f"{label:<32} {run['seconds']:7.2f} s  {run['realtime']:5.2f}x real time{memory}",
          file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
