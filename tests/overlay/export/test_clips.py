"""The clip list of a video export: each hand's first and last frame in the footage, as CSV,
FFMETADATA chapters (also muxed into the mp4) and a CMX 3600 EDL."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.events import HandStarted
from engine.log import TableEvent
from engine.production_events import HandTagged
from engine.table_events import ButtonSet
from overlay.export.hands import read_hands
from overlay.export.video.clips import (
    Clip,
    clips_for,
    csv_text,
    edl,
    ffmetadata,
    hand_title,
    timecode,
)
from overlay.export.video.encode import find_ffmpeg
from overlay.export.video.export import ExportOptions, SyncSpec, export_footage
from overlay.export.video.timeline import Sync
from tests.overlay.export.videokit import HAND2, T0, TIMES, make_footage, probe, scripted_log
from tests.system_packages import needs_ffmpeg

FPS = 30.0


def clips(start: float = T0, frames: int = 300) -> list[Clip]:
    return clips_for(read_hands(scripted_log()), Sync(start, FPS), frames)


def test_each_hand_spans_its_first_to_last_log_entry() -> None:
    one, two = clips()
    assert (one.hand, one.first, one.last) == (1, round(TIMES["start"] * FPS),
                                               round(TIMES["award"] * FPS))
    assert one.title == "Hand 1: Ann Smith wins 1,200"
    assert two.hand == 2 and two.first == round(HAND2 * FPS)
    assert two.title == "Hand 2: Cy Diaz wins 200"
    assert not one.clipped and not two.clipped


def test_hands_outside_the_footage_are_left_out_and_cut_ones_marked() -> None:
    only_two = clips(start=T0 + 3.5)
    assert [c.hand for c in only_two] == [2]
    cut = clips(start=T0 + 1.0, frames=60)  # 1.0-3.0 s after T0: inside hand 1
    assert [(c.hand, c.first, c.last, c.clipped) for c in cut] == [(1, 0, 59, True)]


def test_timecodes() -> None:
    assert timecode(0, 30) == "00:00:00:00"
    assert timecode(29, 30) == "00:00:00:29"
    assert timecode(30 * 3661 + 7, 30) == "01:01:01:07"
    assert timecode(25, 25) == "00:00:01:00"
    assert timecode(30, 30000 / 1001) == "00:00:01:00"  # NDF at the nominal rate


@given(st.integers(0, 10 * 3600 * 60), st.sampled_from([24.0, 25.0, 30.0, 50.0, 60.0]))
def test_timecodes_count_frames(frame: int, fps: float) -> None:
    hh, mm, ss, ff = (int(p) for p in timecode(frame, fps).split(":"))
    assert ((hh * 60 + mm) * 60 + ss) * fps + ff == frame
    assert 0 <= ff < fps and 0 <= ss < 60 and 0 <= mm < 60


def test_csv_has_one_row_per_hand_with_matching_times() -> None:
    found = clips()
    rows = list(csv.DictReader(csv_text(found, FPS).splitlines()))
    assert [int(r["hand"]) for r in rows] == [1, 2]
    first = rows[0]
    assert first["start_tc"] == timecode(found[0].first, FPS) == "00:00:00:15"
    assert float(first["start_s"]) == pytest.approx(TIMES["start"])
    assert float(first["end_s"]) == pytest.approx((round(TIMES["award"] * FPS) + 1) / FPS,
                                                  abs=1e-3)
    assert first["started_at_utc"] == "2026-11-30T10:53:20.500Z"
    assert first["title"] == "Hand 1: Ann Smith wins 1,200"


def test_ffmetadata_chapters() -> None:
    text = ffmetadata(clips(), FPS, title="Final; Table = #1")
    assert text.startswith(";FFMETADATA1\ntitle=Final\\; Table \\= \\#1\n")
    assert "[CHAPTER]\nTIMEBASE=1/1000\nSTART=500\nEND=3433\ntitle=Hand 1: Ann Smith wins " \
           "1,200" in text
    assert text.count("[CHAPTER]") == 2
    filled = ffmetadata(clips(), FPS, frames=300)  # with the gaps as chapters of their own
    titles = [line[6:] for line in filled.splitlines() if line.startswith("title=")]
    assert titles == ["Before the first hand", "Hand 1: Ann Smith wins 1,200", "Between hands",
                      "Hand 2: Cy Diaz wins 200", "After the last hand"]
    assert "START=0\nEND=500\n" in filled
    assert filled.endswith("END=10000\ntitle=After the last hand\n")


def test_edl_lists_each_hand_back_to_back() -> None:
    text = edl(clips(), FPS, title="Final Table", source_name="footage.mp4")
    events = [line for line in text.splitlines() if line[:3].isdigit()]
    assert text.startswith("TITLE: Final Table\nFCM: NON-DROP FRAME\n")
    assert events[0].split()[:8] == ["001", "AX", "V", "C", "00:00:00:15", "00:00:03:13",
                                     "01:00:00:00", "01:00:02:28"]
    assert events[1].split()[6] == "01:00:02:28"  # the second follows the first
    assert "* COMMENT: Hand 2: Cy Diaz wins 200" in text


def test_a_void_hand_is_titled_as_a_misdeal() -> None:
    from engine.hand import Hand
    from engine.log import TableEvent

    hand = Hand.start(seats=(1, 2), names=("A", "B"), stacks=(100, 100), blinds=(1, 2),
                      big_blind=2, button=2, hand_number=5)
    hand.void()
    entries = [TableEvent.record(k, T0 + k, e) for k, e in enumerate(hand.events, 1)]
    (record,) = read_hands(entries)
    assert hand_title(record) == "Hand 5 (misdeal)"


@needs_ffmpeg
def test_the_export_writes_the_clip_files_and_muxes_the_chapters(tmp_path: Path) -> None:
    footage = make_footage(tmp_path / "f.mp4", frames=150, fps=FPS)
    result = export_footage(lambda: iter(scripted_log()), footage, tmp_path / "out.mp4",
                            SyncSpec(start=T0), ExportOptions(ffmpeg=find_ffmpeg()))
    assert result.files == [tmp_path / "out.mp4", tmp_path / "out.clips.csv",
                            tmp_path / "out.chapters.txt", tmp_path / "out.edl"]
    rows = list(csv.DictReader((tmp_path / "out.clips.csv").read_text().splitlines()))
    assert [(int(r["first_frame"]), int(r["last_frame"])) for r in rows] == \
        [(c.first, c.last) for c in result.clips] == [(15, 102), (120, 149)]
    assert rows[1]["clipped"] == "yes"  # hand 2 runs past the footage's end
    chapters = {c["tags"]["title"]: c for c in probe(result.out, chapters=True)["chapters"]}
    one, two = (chapters[c.title] for c in result.clips)
    assert float(one["start_time"]) == pytest.approx(0.5)
    assert float(one["end_time"]) == pytest.approx(103 / FPS, abs=1e-3)
    assert float(two["start_time"]) == pytest.approx(4.0)
    assert float(two["end_time"]) == pytest.approx(5.0)


def tagged_log() -> list[TableEvent]:
    """:func:`scripted_log` with the operator's tags: one while hand 1 runs, one after it
    (after a between-hands change), one after hand 2."""
    entries = scripted_log()
    second = next(k for k, e in enumerate(entries)
                  if isinstance(e.payload, HandStarted) and e.payload.hand_number == 2)
    timed = [(e.time, e.payload) for e in entries]
    timed.insert(3, (timed[3][0], HandTagged(1, "river hero call")))
    at = timed[second][0]
    timed[second + 1:second + 1] = [(at, ButtonSet(1)), (at, HandTagged(1, ""))]
    timed.append((timed[-1][0], HandTagged(2, "fast fold")))
    return [TableEvent.record(seq, t, event) for seq, (t, event) in enumerate(timed, 1)]


def test_tagged_hands_are_marked_in_the_clip_list() -> None:
    records = list(read_hands(tagged_log()))
    assert [(r.number, r.tags) for r in records] == [(1, ("river hero call", "")),
                                                    (2, ("fast fold",))]
    one, two = clips_for(records, Sync(T0, FPS), 300)
    assert (one.tags, two.tags) == (("river hero call", ""), ("fast fold",))
    # The tags change neither the hands nor their frames.
    assert [(c.first, c.last, c.title) for c in (one, two)] == \
        [(c.first, c.last, c.title) for c in clips()]
    rows = list(csv.DictReader(csv_text([one, two], FPS).splitlines()))
    assert [(r["tagged"], r["tags"]) for r in rows] == [("yes", "river hero call | "),
                                                        ("yes", "fast fold")]
    assert [r["tagged"] for r in csv.DictReader(csv_text(clips(), FPS).splitlines())] == \
        ["no", "no"]
    text = edl([one, two], FPS, title="Final")
    first, second = text.split("\n002  ")
    assert "* TAG: river hero call\n* TAG\n" in first and "* TAG: fast fold" in second
