"""Every export carries the log's chain head in its files (issue 18), and ``feltcast log verify
--export FILE`` checks a log against the head a file carries.

The exports run as a user runs them (a real process) on a log the TableService wrote
(tests/overlay/export/session.py) and on the video tests' scripted log with generated footage. Each
file is read back by readers nobody here wrote: PokerKit (PHH, PokerStars text), the OHH JSON
Schema, ffprobe (mp4, ProRes mov), PIL and OpenCV (PNG frames), Python's csv module; the head is
found where the format keeps it. Then rows of a copy of the log are edited directly in SQLite,
as someone with access to the database would, and the same command names the entry.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path

import cv2
import pokerkit
import pytest
import sqlalchemy as sa
from PIL import Image

from engine.log import TableEvent
from engine.table_events import LevelStarted
from overlay.cli import main
from overlay.export.hands import HandRecord
from overlay.export.log_head import current_head, entries_to
from overlay.export.ohh import ohh_text
from overlay.export.phh import phh_text
from overlay.export.video.clips import CSV_FIELDS, csv_text, edl, ffmetadata
from overlay.store import GENESIS, create_db_engine, entry_hash, open_existing_store, open_store
from tests.overlay.export.conftest import chip_divmod
from tests.overlay.export.test_ohh import VALIDATOR
from tests.overlay.export.videokit import T0, make_footage, probe, scripted_log, write_log
from tests.system_packages import needs_ffmpeg

ROOT = Path(__file__).resolve().parents[3]
HEAD_LINE = re.compile(r"^log chain head (\d+):([0-9a-f]{64}) \(", re.MULTILINE)
SENTENCE = re.compile(r"Feltcast log head (\d+:[0-9a-f]{64}) \(log ([0-9a-f]{32})\)")


def feltcast(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The command in its own process, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "overlay", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=240, check=False)


def in_process(capsys: pytest.CaptureFixture[str], *args: str | Path,
               ) -> subprocess.CompletedProcess[str]:
    """The same command line through ``overlay.cli.main`` (no interpreter start-up)."""
    status = main([str(a) for a in args])
    captured = capsys.readouterr()
    return subprocess.CompletedProcess(args, status, captured.out, captured.err)


def verify(capsys: pytest.CaptureFixture[str], data: Path, path: Path,
           ) -> subprocess.CompletedProcess[str]:
    return in_process(capsys, "log", "verify", "--data-dir", data, "--export", path)


def printed_head(stdout: str) -> tuple[int, str]:
    match = HEAD_LINE.search(stdout)
    assert match, stdout
    return int(match.group(1)), match.group(2)


def execute(data: Path, sql: str, **params: object) -> None:
    """Edit the log's rows directly, as someone with access to the database would."""
    engine = create_db_engine(f"sqlite:///{data / 'feltcast.db'}")
    with engine.begin() as conn:
        conn.execute(sa.text(sql), params)
    engine.dispose()


def seq_of(data: Path, kind: str, contains: str) -> int:
    engine = create_db_engine(f"sqlite:///{data / 'feltcast.db'}")
    with engine.connect() as conn:
        seq = conn.execute(sa.text("SELECT min(seq) FROM table_event WHERE kind = :k AND "
                                   "payload LIKE :p"), {"k": kind, "p": f"%{contains}%"}).scalar()
    engine.dispose()
    assert isinstance(seq, int)
    return seq


def rechain(data: Path) -> None:
    """What a forger does after an edit: recompute every hash after it."""
    engine = create_db_engine(f"sqlite:///{data / 'feltcast.db'}")
    with engine.begin() as conn:
        previous = GENESIS
        for seq, *columns in conn.execute(sa.text(
                "SELECT seq, time, secrecy, source, kind, payload FROM table_event "
                "ORDER BY seq")).all():
            previous = entry_hash(previous, seq, *columns)
            conn.execute(sa.text("UPDATE table_event SET hash = :h WHERE seq = :s"),
                         {"h": previous, "s": seq})
    engine.dispose()


def log_id(data: Path) -> str:
    store = open_existing_store("", data)
    try:
        return store.log_id
    finally:
        store.close()


def entries_in(data: Path) -> int:
    store = open_existing_store("", data)
    try:
        return store.last_seq
    finally:
        store.close()


def copy_log(data: Path, to: Path) -> Path:
    """A copy of the data directory (the same log: its id and entries)."""
    return Path(shutil.copytree(data, to))


# --- hand histories --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def hands(session_dir: Path, tmp_path_factory: pytest.TempPathFactory,
          ) -> dict[str, tuple[tuple[int, str], list[Path]]]:
    """Each hand history format exported by ``feltcast export hands``: the head it printed
    and the files it wrote."""
    out = tmp_path_factory.mktemp("hands")
    exported = {}
    for kind in ("phh", "pokerstars", "ohh"):
        done = feltcast("export", "hands", "--format", kind, "--data-dir", session_dir,
                        "--out", out / kind)
        assert done.returncode == 0, done.stderr
        exported[kind] = (printed_head(done.stdout), sorted((out / kind).iterdir()))
    return exported


def test_phh_files_carry_the_head_as_user_fields(
        hands: dict[str, tuple[tuple[int, str], list[Path]]], session_dir: Path) -> None:
    (seq, hash_), files = hands["phh"]
    assert seq == entries_in(session_dir) and len(files) == 4  # 5 hands, a misdeal skipped
    for path in files:
        text = path.read_text(encoding="utf-8")
        fields = tomllib.loads(text)
        assert fields["_feltcast_log_head"] == f"{seq}:{hash_}"
        assert fields["_feltcast_log_id"] == log_id(session_dir)
        history = pokerkit.HandHistory.loads(text, divmod=chip_divmod(fields["_chip_unit"]))
        assert history.user_defined_fields["_feltcast_log_head"] == f"{seq}:{hash_}"
        *_, last = history  # PokerKit still plays the file to its finishing stacks
        assert list(last.stacks) == fields["finishing_stacks"]


def test_ohh_hands_carry_the_head_in_their_flags(
        hands: dict[str, tuple[tuple[int, str], list[Path]]], session_dir: Path) -> None:
    (seq, hash_), (path,) = hands["ohh"]
    blocks = path.read_text(encoding="utf-8").strip().split("\n\n")
    assert len(blocks) == 4
    for block in blocks:
        data = json.loads(block)
        VALIDATOR.validate(data)  # OHH 1.4.7's structure: the flags are free strings
        assert data["ohh"]["flags"] == [f"feltcast_log_head={seq}:{hash_}",
                                        f"feltcast_log_id={log_id(session_dir)}"]


def test_pokerstars_text_keeps_the_head_in_a_sidecar(
        hands: dict[str, tuple[tuple[int, str], list[Path]]], session_dir: Path) -> None:
    (seq, hash_), files = hands["pokerstars"]
    text_file, sidecar = files
    assert sidecar.name == text_file.name + ".feltcast.json"
    text = text_file.read_text(encoding="utf-8")
    assert "feltcast" not in text.lower()  # the text is PokerStars' own layout, nothing added
    with warnings.catch_warnings():  # PokerKit's parser warns about its own time zone field
        warnings.simplefilter("ignore", UserWarning)
        parsed = list(pokerkit.HandHistory.from_pokerstars(text, error_status=True))
    assert len(parsed) == 4
    facts = json.loads(sidecar.read_text(encoding="utf-8"))
    assert facts == {"feltcast_log_head": f"{seq}:{hash_}", "log_id": log_id(session_dir),
                     "file": text_file.name,
                     "sha256": hashlib.sha256(text_file.read_bytes()).hexdigest()}


@pytest.mark.parametrize("kind", ["phh", "pokerstars", "ohh"])
def test_verify_export_holds_the_head_then_names_the_changed_entry(
        kind: str, hands: dict[str, tuple[tuple[int, str], list[Path]]], session_dir: Path,
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (seq, hash_), files = hands[kind]
    path = files[0]  # PHH: hand 1; PokerStars: the text (its sidecar is found beside it)
    data = copy_log(session_dir, tmp_path / "data")
    done = verify(capsys, data, path)
    assert done.returncode == 0, done.stdout + done.stderr
    carried, intact, holds = done.stdout.splitlines()
    assert carried.startswith(f"{path} carries the Feltcast log head {seq}:{hash_} (log "
                              f"{log_id(data)}, in ")
    assert f"intact: {seq} entries" in intact
    assert holds == f"the log holds this export's head {seq}: entries 1-{seq} are as the " \
                    f"export read them"
    # Ann's hole cards in hand 1 rewritten in the database.
    changed = seq_of(data, "hole_cards_dealt", '"Ah","Kh"')
    execute(data, "UPDATE table_event SET payload = replace(payload, '\"Ah\",\"Kh\"', "
                  "'\"As\",\"Ks\"') WHERE seq = :s", s=changed)
    done = verify(capsys, data, path)
    assert done.returncode == 1
    assert f"NOT INTACT: entry {changed} was changed" in done.stdout
    assert done.stdout.splitlines()[-1] == \
        f"the log no longer holds the head this export recorded: entry {changed} differs"


@pytest.mark.parametrize(("tamper", "intact", "says"), [
    ("DELETE FROM table_event WHERE seq = 100", False, "entry 100 is missing"),
    ("DELETE FROM table_event WHERE seq > 160", True,
     "entry {last} is not there (the log ends at entry 160)"),
    # A forger recomputes the chain after his edit: the chain alone looks intact (this short
    # log has no signed checkpoint yet), the head the export recorded does not match.
    ("UPDATE table_event SET time = time + 60 WHERE seq = 50; rechain", True,
     "entry {last} differs"),
])
def test_each_kind_of_tampering_is_named(
        tamper: str, intact: bool, says: str, hands: dict[str, tuple[tuple[int, str], list[Path]]],
        session_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (seq, _), files = hands["phh"]
    data = copy_log(session_dir, tmp_path / "data")
    for statement in tamper.split("; "):
        if statement == "rechain":
            rechain(data)
        else:
            execute(data, statement)
    done = verify(capsys, data, files[-1])
    assert done.returncode == 1
    assert ("NOT INTACT" not in done.stdout) is intact, done.stdout
    assert done.stdout.splitlines()[-1] == \
        f"the log no longer holds the head this export recorded: {says.format(last=seq)}"


def test_entries_logged_after_the_export_are_not_part_of_it(
        hands: dict[str, tuple[tuple[int, str], list[Path]]], session_dir: Path,
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (seq, _), files = hands["ohh"]
    data = copy_log(session_dir, tmp_path / "data")
    store = open_store(data_dir=data)
    try:
        head = current_head(store)
        assert (head.seq, head.log_id) == (seq, store.log_id)
        store.append([TableEvent.record(seq + k, T0 + 10_000 + k, LevelStarted(3, 400, 800))
                      for k in (1, 2)])  # the service goes on while an export reads
        assert [e.seq for e in entries_to(store, head)] == list(range(1, seq + 1))
    finally:
        store.close()
    done = verify(capsys, data, files[0])
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines()[-1].endswith("; 2 entries were logged after them")
    execute(data, "UPDATE table_event SET time = time + 1 WHERE seq = :s", s=seq + 1)
    done = verify(capsys, data, files[0])
    assert done.returncode == 1 and f"NOT INTACT: entry {seq + 1} was changed" in done.stdout
    assert done.stdout.splitlines()[-1] == (
        f"the log holds this export's head {seq}: entries 1-{seq} are as the export read "
        f"them; the problem above is not in them")


def test_a_changed_pokerstars_file_or_a_lost_sidecar_is_said(
        hands: dict[str, tuple[tuple[int, str], list[Path]]], session_dir: Path,
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (seq, _), (text_file, sidecar) = hands["pokerstars"]
    text = tmp_path / text_file.name
    text.write_text(text_file.read_text(encoding="utf-8").replace("collected", "collected 1"),
                    encoding="utf-8")
    done = verify(capsys, session_dir, text)
    assert done.returncode == 2  # no sidecar beside this copy
    assert done.stderr.strip() == (
        f"feltcast log: error: {text} carries no Feltcast log head (PokerStars text has no "
        f"place for one: it is in the sidecar {sidecar.name}, which is not beside it)")
    shutil.copy(sidecar, tmp_path / sidecar.name)
    done = verify(capsys, session_dir, text)
    assert done.returncode == 1, done.stdout
    assert f"the log holds this export's head {seq}:" in done.stdout
    assert done.stdout.splitlines()[-1] == (
        f"but {text.name} was changed after the export: its SHA-256 is not the one the "
        f"sidecar recorded")


@needs_ffmpeg
def test_a_file_without_a_head_is_named(session_hands: list[HandRecord], session_dir: Path,
                                        tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    record = session_hands[0]
    old = {  # files as exports wrote them before the head, and footage straight from a camera
        "hand.phh": (phh_text(record), "no _feltcast_log_head field"),
        "hands.ohh": (ohh_text(record), "no feltcast_log_head flag in its 1 hand(s)"),
        "out.clips.csv": (csv_text([], 30.0), "no log_head column"),
        "out.edl": (edl([], 30.0, title="Final Table"), ""),
        "out.chapters.txt": (ffmetadata([], 30.0), ""),
    }
    for name, (text, why) in old.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        done = verify(capsys, session_dir, path)
        assert done.returncode == 2
        assert done.stderr.strip() == (f"feltcast log: error: {path} carries no Feltcast log "
                                       f"head" + (f" ({why})" if why else ""))
    footage = make_footage(tmp_path / "camera.mp4", frames=5)
    done = verify(capsys, session_dir, footage)
    assert done.returncode == 2 and done.stderr.strip() == (
        f"feltcast log: error: {footage} carries no Feltcast log head (no comment tag with one)")
    done = verify(capsys, session_dir, tmp_path)
    assert done.returncode == 2 and "is a folder: name one of the files it holds" in done.stderr
    with pytest.raises(SystemExit):  # one head or the other
        in_process(capsys, "log", "verify", "--data-dir", session_dir, "--export",
                   tmp_path / "hand.phh", "--head", f"1:{GENESIS}")
    assert "not allowed with argument" in capsys.readouterr().err


# --- video -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def videos(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, tuple[int, str], Path]:
    """The log (a data directory), the head ``feltcast export video`` printed, and the folder
    with its footage burn-in (``out.mp4`` and its clip list) and graphics alone
    (``graphics.mov``, ``graphics_frames/``)."""
    folder = tmp_path_factory.mktemp("video")
    data = write_log(scripted_log(), folder / "data")
    footage = make_footage(folder / "footage.mp4", frames=150, audio=True)
    heads = set()
    for out, extra in ((folder / "out.mp4", ()), (folder / "graphics.mov", ("--alpha",))):
        done = feltcast("export", "video", "--video", footage, "--start", str(T0),
                        "--data-dir", data, "--out", out, "--quiet", *extra)
        assert done.returncode == 0, done.stderr
        heads.add(printed_head(done.stdout))
    (head,) = heads
    return data, head, folder


def format_tags(path: Path) -> dict[str, str]:
    done = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format_tags", "-of",
                           "json", str(path)], capture_output=True, text=True, check=True)
    tags: dict[str, str] = json.loads(done.stdout)["format"]["tags"]
    return tags


@needs_ffmpeg
def test_video_files_carry_the_head(videos: tuple[Path, tuple[int, str], Path]) -> None:
    data, (seq, hash_), folder = videos
    sentence = f"Feltcast log head {seq}:{hash_} (log {log_id(data)})"
    assert seq == len(scripted_log())
    for video in (folder / "out.mp4", folder / "graphics.mov"):  # the container's comment
        assert format_tags(video)["comment"] == sentence
    streams = probe(folder / "out.mp4", chapters=True)
    assert [s["codec_name"] for s in streams["streams"]][:2] == ["h264", "aac"]
    assert len(streams["chapters"]) == 4  # still muxed: before, hand 1, between, hand 2
    assert probe(folder / "graphics.mov")["streams"][0]["profile"] == "4444"
    frames = sorted((folder / "graphics_frames").glob("*.png"))
    assert len(frames) == 150
    for frame in (frames[0], frames[-1]):  # a PNG text chunk, read by PIL; OpenCV decodes it
        with Image.open(frame) as image:
            assert image.text["Comment"] == sentence and image.mode == "RGBA"
        decoded = cv2.imread(str(frame), cv2.IMREAD_UNCHANGED)
        assert decoded is not None and decoded.shape == (360, 640, 4)
    rows = list(csv.DictReader((folder / "out.clips.csv").read_text().splitlines()))
    header = (folder / "out.clips.csv").read_text().splitlines()[0].split(",")
    assert header == [*CSV_FIELDS, "log_head", "log_id"]  # the columns before stay in place
    assert [(r["hand"], r["log_head"], r["log_id"]) for r in rows] == [
        (str(n), f"{seq}:{hash_}", log_id(data)) for n in (1, 2)]
    chapters = (folder / "out.chapters.txt").read_text().splitlines()
    assert chapters[:2] == [";FFMETADATA1", f"; {sentence}"]
    lines = (folder / "out.edl").read_text().splitlines()
    events = [k for k, line in enumerate(lines) if line[:3].isdigit()]
    assert len(events) == 2 and not any(line.startswith("*") for line in lines[:events[0]])
    for start, end in zip(events, [*events[1:], len(lines)], strict=True):
        assert f"* {sentence}" in lines[start:end]  # a comment of each event


@needs_ffmpeg
@pytest.mark.parametrize("name", ["out.mp4", "graphics.mov", "graphics_frames/frame_000030.png",
                                  "out.clips.csv", "out.chapters.txt", "out.edl"])
def test_verify_export_of_each_video_file(name: str, videos: tuple[Path, tuple[int, str], Path],
                                          tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    data, (seq, hash_), folder = videos
    path = folder / name
    data = copy_log(data, tmp_path / "data")
    done = verify(capsys, data, path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(f"{path} carries the Feltcast log head {seq}:{hash_} (log ")
    assert done.stdout.splitlines()[-1].startswith(f"the log holds this export's head {seq}:")
    flop = seq_of(data, "board_dealt", '"flop"')  # hand 1's flop, rewritten
    execute(data, "UPDATE table_event SET payload = replace(payload, '\"Kd\"', '\"Ad\"') "
                  "WHERE seq = :s", s=flop)
    done = verify(capsys, data, path)
    assert done.returncode == 1 and f"NOT INTACT: entry {flop} was changed" in done.stdout
    assert done.stdout.splitlines()[-1] == \
        f"the log no longer holds the head this export recorded: entry {flop} differs"


@needs_ffmpeg
def test_a_replay_of_an_exported_hand_carries_its_head(
        hands: dict[str, tuple[tuple[int, str], list[Path]]], session_dir: Path,
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (seq, hash_), files = hands["phh"]
    out = tmp_path / "replay.mp4"
    done = in_process(capsys, "export", "video", "--phh", files[0], "--out", out, "--size",
                      "160x90", "--fps", "5", "--pace", "0.05", "--quiet")
    assert done.returncode == 0, done.stderr
    assert printed_head(done.stdout) == (seq, hash_)
    match = SENTENCE.fullmatch(format_tags(out)["comment"])
    assert match and match.groups() == (f"{seq}:{hash_}", log_id(session_dir))
    assert verify(capsys, session_dir, out).returncode == 0
