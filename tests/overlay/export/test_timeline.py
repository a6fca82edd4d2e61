"""``feltcast export timeline``: every file written is read back by OpenTimelineIO and its
markers checked against the log; MLT's ``melt`` renders the MLT project, whose frames show the
graphics where the burn-in export shows them."""

from __future__ import annotations

import dataclasses
import itertools
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import opentimelineio as otio
import pytest

from engine.errors import InvalidInputError
from overlay.cli import main
from overlay.export.hands import read_hands
from overlay.export.video.encode import probe_footage
from overlay.export.video.export import ExportOptions, SyncSpec, export_footage
from overlay.export.video.project import (
    StillFiles,
    TimelineResult,
    export_timeline,
    otio_timeline,
)
from overlay.export.video.timeline import Sync
from overlay.store import open_store
from tests.overlay.export.videokit import (
    T0,
    TIMES,
    frame_number,
    make_footage,
    read_frames,
    scripted_log,
    write_log,
)
from tests.system_packages import needs_ffmpeg, unless_installed

ROOT = Path(__file__).resolve().parents[3]
FFMPEG = shutil.which("ffmpeg")
FPS = 30.0
FRAMES = 180
LEAD = 0.37
"""The footage starts this long before T0: event frames are not whole seconds."""
HOUR = 3600 * 30
"""01:00:00:00 at 30 fps, in frames."""
ADAPTERS = {".otio": "otio_json", ".xml": "fcp_xml", ".fcpxml": "fcpx_xml"}
needs_melt = unless_installed(shutil.which("melt") is not None,
                              "MLT's melt is not installed (make test installs Debian's melt)")


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[TimelineResult, Path, Path]:
    folder = tmp_path_factory.mktemp("timeline")
    data = write_log(scripted_log(), folder / "data")
    footage = make_footage(folder / "footage.mp4", frames=FRAMES, fps=FPS,
                           audio=FFMPEG is not None)
    store = open_store(data_dir=data)
    try:
        result = export_timeline(store.iter_all, footage, folder / "show", SyncSpec(
            start=T0 - LEAD), ExportOptions(table_name="Main Event Final Table",
                                            ffmpeg=FFMPEG), start_timecode="01:00:00:00")
    finally:
        store.close()
    return result, data, footage


def logged_hands(data: Path) -> dict[int, tuple[int, int]]:
    """Each hand's first and last frame, from the log alone (not the export's own clips)."""
    sync = Sync(T0 - LEAD, FPS)
    store = open_store(data_dir=data)
    try:
        return {r.number: (sync.frame_of(r.started_at), min(FRAMES - 1,
                                                            sync.frame_of(r.ended_at)))
                for r in read_hands(store.iter_all())}
    finally:
        store.close()


def footage_clip(timeline: Any) -> Any:
    (clip,) = [c for track in timeline.tracks for c in track
               if isinstance(c, otio.schema.Clip) and c.markers]
    return clip


@needs_ffmpeg
@pytest.mark.parametrize("suffix", list(ADAPTERS))
def test_every_file_reads_back_with_a_marker_on_each_hands_frames(
        made: tuple[TimelineResult, Path, Path], suffix: str) -> None:
    result, data, footage = made
    path = result.files[0].with_suffix(suffix)
    assert path in result.files
    timeline = otio.adapters.read_from_file(str(path), adapter_name=ADAPTERS[suffix])
    clip = footage_clip(timeline)
    assert clip.source_range.start_time.to_frames() == HOUR  # the start time code kept
    assert clip.source_range.duration.to_frames() == FRAMES
    assert clip.source_range.start_time.rate == FPS
    assert Path(clip.media_reference.target_url.removeprefix("file://")).name == footage.name
    if suffix != ".fcpxml":  # (FCPXML keeps it on the clip, as read above)
        assert timeline.global_start_time.to_frames() == HOUR
    found = {}
    for marker in clip.markers:
        number = int(marker.name.split(":")[0].removeprefix("Hand "))
        first = marker.marked_range.start_time.to_frames() - HOUR
        found[number] = (first, first + marker.marked_range.duration.to_frames() - 1)
    assert found == logged_hands(data)
    # The graphics track: still clips that cover the footage exactly, each a PNG on disk.
    graphics = [t for t in timeline.tracks if t.kind == otio.schema.TrackKind.Video
                and all(isinstance(c, otio.schema.Clip) and c.name.endswith(".png")
                        for c in t)]
    assert len(graphics) == 1
    stills = list(graphics[0])
    assert sum(c.source_range.duration.to_frames() for c in stills) == FRAMES
    assert len(stills) == len(result.stills) > 3
    for clip_, still in zip(stills, result.stills, strict=True):
        assert Path(clip_.media_reference.target_url.removeprefix("file://")) == \
            still.image.resolve()


@needs_ffmpeg
def test_the_otio_file_carries_what_each_marker_says_and_the_log_head(
        made: tuple[TimelineResult, Path, Path]) -> None:
    result, _, _ = made
    timeline = otio.adapters.read_from_file(str(result.files[0]))
    markers = footage_clip(timeline).markers
    first = markers[0]
    assert first.name == "Hand 1: Ann Smith wins 1,200"
    assert first.comment == "players: Ann Smith, Bo Chen, Cy Diaz; pot 1,200; won by Ann Smith"
    assert first.metadata["feltcast"]["hand"] == 1
    assert list(first.metadata["feltcast"]["winners"]) == ["Ann Smith"]
    assert first.color == otio.schema.MarkerColor.GREEN  # untagged
    assert [t.kind for t in timeline.tracks] == ["Video", "Video", "Audio"]
    fcp = result.files[0].with_suffix(".xml").read_text(encoding="utf-8")
    assert "<comment>players: Ann Smith, Bo Chen, Cy Diaz; pot 1,200" in fcp


def test_a_still_holds_the_graphics_of_every_frame_it_covers(
        made: tuple[TimelineResult, Path, Path], tmp_path: Path) -> None:
    """Each still is the picture the alpha export draws at each of its frames (checked at
    both ends): the graphics change only where a new still begins."""
    result, data, footage = made
    store = open_store(data_dir=data)
    try:
        export_footage(store.iter_all, footage, tmp_path / "alpha", SyncSpec(start=T0 - LEAD),
                       ExportOptions(table_name="Main Event Final Table", ffmpeg=None,
                                     alpha=True, clips=False))
    finally:
        store.close()
    frames = sorted((tmp_path / "alpha").iterdir())
    assert len(frames) == FRAMES
    for still in result.stills:
        picture = cv2.imread(str(still.image), cv2.IMREAD_UNCHANGED)
        assert picture.shape[2] == 4  # transparency
        for frame in (still.first, still.end - 1):
            drawn = cv2.imread(str(frames[frame]), cv2.IMREAD_UNCHANGED)
            assert np.array_equal(picture, drawn), (still, frame)
    assert all(a.image != b.image for a, b in itertools.pairwise(result.stills))
    assert result.images == len({s.image for s in result.stills})


@needs_ffmpeg
@needs_melt
def test_melt_renders_the_graphics_where_the_burn_in_export_has_them(
        made: tuple[TimelineResult, Path, Path], tmp_path: Path) -> None:
    result, data, footage = made
    rendered = tmp_path / "melt"
    rendered.mkdir()
    done = subprocess.run(["melt", "-quiet", str(result.files[0].with_suffix(".mlt")),
                           "-consumer", f"avformat:{rendered}/%05d.png", "vcodec=png"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    melted = sorted(rendered.iterdir())
    assert len(melted) == FRAMES
    store = open_store(data_dir=data)
    try:
        burned = export_footage(store.iter_all, footage, tmp_path / "burn.mp4",
                                SyncSpec(start=T0 - LEAD), ExportOptions(
                                    table_name="Main Event Final Table", ffmpeg=FFMPEG, crf=0,
                                    clips=False))
    finally:
        store.close()
    burn = list(read_frames(burned.out))
    plain = list(read_frames(footage))
    hands = logged_hands(data)
    checks = [hands[1][0] + 3, round((TIMES["flop"] + LEAD) * FPS) + 3,
              round((TIMES["award"] + LEAD) * FPS) + 3, hands[2][0] + 3]
    for frame in checks:
        still = next(s for s in result.stills if s.first <= frame < s.end)
        drawn = cv2.imread(str(still.image), cv2.IMREAD_UNCHANGED)[:, :, 3] > 128
        assert drawn.sum() > 500, frame
        picture = cv2.imread(str(melted[frame])).astype(np.int16)
        assert frame_number(picture.astype(np.uint8)) == frame  # the same footage frame
        off_burn = np.abs(picture - burn[frame]).mean(axis=2)[drawn].mean()
        off_plain = np.abs(picture - plain[frame]).mean(axis=2)[drawn].mean()
        assert off_burn < 12 < 30 < off_plain, (frame, off_burn, off_plain)


@needs_ffmpeg
def test_the_footages_own_start_timecode_is_used(tmp_path: Path) -> None:
    assert FFMPEG is not None
    data = write_log(scripted_log(), tmp_path / "data")
    footage = tmp_path / "tc.mov"  # a camera's file: NTSC rate, its own time code
    subprocess.run([FFMPEG, "-v", "error", "-y", "-f", "lavfi", "-i",
                    "testsrc=size=320x180:rate=30000/1001", "-frames:v", str(FRAMES),
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                    "-timecode", "10:00:00:12", str(footage)], check=True)
    store = open_store(data_dir=data)
    try:
        result = export_timeline(store.iter_all, footage, tmp_path / "tc", SyncSpec(
            start=T0 - LEAD), ExportOptions(ffmpeg=FFMPEG), formats=["otio"])
    finally:
        store.close()
    assert result.start_frame == 10 * HOUR + 12  # (non-drop-frame at the nominal 30)
    timeline = otio.adapters.read_from_file(str(tmp_path / "tc.otio"))
    assert timeline.global_start_time.to_frames() == 10 * HOUR + 12
    assert footage_clip(timeline).source_range.start_time.rate == pytest.approx(30000 / 1001,
                                                                                abs=1e-9)
    assert [p.suffix for p in result.files] == [".otio", ""]


def test_bad_input_is_refused_with_what_to_write(
        made: tuple[TimelineResult, Path, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    _, data, footage = made
    store = open_store(data_dir=data)
    try:
        for kwargs, message in (
                ({"start_timecode": "1:00"}, r"write HH:MM:SS:FF"),
                ({"start_timecode": "01:00:00:30"}, r"frames to 29 at 30 fps"),
                ({"formats": ["avid"]}, r"--format avid: choose from otio, fcp7, fcpxml, mlt")):
            with pytest.raises(InvalidInputError, match=message):
                export_timeline(store.iter_all, footage, tmp_path / "x",
                                SyncSpec(start=T0 - LEAD), **kwargs)  # type: ignore[arg-type]
        with pytest.raises(InvalidInputError, match="do not overlap"):
            export_timeline(store.iter_all, footage, tmp_path / "x", SyncSpec(start=T0 + 9e5))
    finally:
        store.close()
    assert main(["export", "timeline", "--video", str(footage), "--data-dir", str(data),
                 "--out", str(tmp_path / "y")]) == 2
    assert capsys.readouterr().err.startswith("feltcast export: error: say where the footage "
                                              "sits on the log's clock")
    assert not (tmp_path / "x.otio").exists() and not (tmp_path / "y.otio").exists()


@needs_ffmpeg
def test_the_command_as_an_editor_runs_it(made: tuple[TimelineResult, Path, Path],
                                          tmp_path: Path) -> None:
    _, data, footage = made
    done = subprocess.run([sys.executable, "-m", "overlay", "export", "timeline", "--video",
                           str(footage), "--hand-start", f"1@{logged_hands(data)[1][0]}",
                           "--data-dir", str(data), "--out", str(tmp_path / "cut"), "-q"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"wrote the timeline of {footage} ({FRAMES} frames at 30 fps, "
                               "2 hand marker(s), ")
    assert lines[1:6] == [f"  {tmp_path / 'cut'}{suffix}" for suffix in
                          (".otio", ".xml", ".fcpxml", ".mlt", "_graphics")]
    assert lines[6].startswith("log chain head ")
    assert done.stderr == ""


def test_a_picture_shown_again_is_the_same_file(tmp_path: Path) -> None:
    files = StillFiles(tmp_path)
    first, second = b"\x89PNG first", b"\x89PNG second"
    paths = [files.path_for(png) for png in (first, second, first)]
    assert paths[0] == paths[2] != paths[1]
    assert len(files) == 2 and sorted(p.name for p in tmp_path.iterdir()) == [
        "graphics-00001.png", "graphics-00002.png"]
    assert paths[0].read_bytes() == first


def test_a_tagged_hands_marker_is_red_and_names_its_tags(
        made: tuple[TimelineResult, Path, Path]) -> None:
    result, _, footage = made
    tagged = dataclasses.replace(result.markers[1], clip=dataclasses.replace(
        result.markers[1].clip, tags=("bluff of the day", "")))
    again = dataclasses.replace(result, markers=[result.markers[0], tagged])
    info = probe_footage(footage, FFMPEG)
    timeline = otio_timeline(info, HOUR, again, "Main Event Final Table")
    markers = footage_clip(timeline).markers
    assert [m.color for m in markers] == [otio.schema.MarkerColor.GREEN,
                                          otio.schema.MarkerColor.RED]
    assert markers[1].comment.endswith("; tags: bluff of the day | (tagged)")
    assert list(markers[1].metadata["feltcast"]["tags"]) == ["bluff of the day", ""]
