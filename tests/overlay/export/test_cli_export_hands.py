"""``feltcast export hands`` as a user runs it: a real subprocess on a log the TableService
wrote; the files it leaves are read back by PokerKit and the OHH schema."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pokerkit
import pytest

from engine.log import TableEvent
from engine.table_events import PlayerSeated
from overlay.cli import main
from overlay.store import open_store
from tests.overlay.export.session import TABLE_NAME
from tests.overlay.export.test_ohh import VALIDATOR
from tests.overlay.export.test_phh_export import pokerkit_stacks
from tests.pg import PostgresServer

ROOT = Path(__file__).resolve().parents[3]


def feltcast(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The command in a subprocess, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "overlay", "export", "hands",
                           *map(str, args)], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)


def in_process(capsys: pytest.CaptureFixture[str], *args: str | Path
               ) -> subprocess.CompletedProcess[str]:
    """The same command line through ``overlay.cli.main`` (no interpreter start-up)."""
    status = main(["export", "hands", *map(str, args)])
    captured = capsys.readouterr()
    return subprocess.CompletedProcess(args, status, captured.out, captured.err)


def test_phh_one_file_per_hand(session_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "phh"
    done = feltcast("--format", "phh", "--data-dir", session_dir, "--out", out,
                    "--table", TABLE_NAME)
    assert done.returncode == 0, done.stderr
    files = sorted(out.iterdir())
    assert [f.name for f in files] == [f"main-event-final-table-hand-000{n}.phh"
                                       for n in (1, 3, 4, 5)]
    for path in files:
        text = path.read_text(encoding="utf-8")
        finishing = [int(x) for x in text.split("finishing_stacks = [")[1].split("]")[0]
                     .split(",")]
        assert pokerkit_stacks(text) == finishing
    summary, head = done.stdout.splitlines()
    assert summary == f"exported 4 hand(s) as phh to {out} (4 file(s)); 1 skipped (see above)"
    # The export carries the log's chain head, which log verify checks the log against.
    match = re.fullmatch(r"log chain head (\d+:[0-9a-f]{64}) \(feltcast log verify --head .*",
                         head)
    assert match, head
    verify = subprocess.run([sys.executable, "-m", "overlay", "log", "verify", "--data-dir",
                             str(session_dir), "--head", match.group(1)], capture_output=True,
                            text=True, cwd=ROOT, timeout=120)
    assert verify.returncode == 0 and "intact" in verify.stdout, verify.stdout + verify.stderr
    progress = done.stderr.splitlines()
    assert progress == ["[1/5] hand 1",
                        "hand 2 skipped: void hand (misdeal, R13): nothing was played",
                        "[2/5] hand 2", "[3/5] hand 3", "[4/5] hand 4", "[5/5] hand 5"]


def test_pokerstars_one_file_for_the_session(session_dir: Path, tmp_path: Path) -> None:
    done = feltcast("--format", "pokerstars", "--data-dir", session_dir, "--out", tmp_path,
                    "--hands", "3-5", "--table", TABLE_NAME)
    assert done.returncode == 0, done.stderr
    (path,) = tmp_path.glob("*.txt")
    assert path.name == "main-event-final-table-hands-3-5.txt"
    text = path.read_text(encoding="utf-8")
    assert text.count("PokerStars Hand #") == 3 and "\n\n\n\nPokerStars" not in text
    with warnings.catch_warnings():  # PokerKit's parser warns about its own time zone field
        warnings.simplefilter("ignore", UserWarning)
        parsed = list(pokerkit.HandHistory.from_pokerstars(text, error_status=True))
    assert [int(str(h.hand)[-4:]) for h in parsed] == [3, 4, 5]


def test_ohh_one_file_for_the_session(session_dir: Path, tmp_path: Path) -> None:
    done = feltcast("--format", "ohh", "--data-dir", session_dir, "--out", tmp_path)
    assert done.returncode == 0, done.stderr
    (path,) = tmp_path.glob("*.ohh")
    assert path.name.isascii() and path.name == "final-table-hands-1-5.ohh"
    blocks = path.read_text(encoding="utf-8").strip().split("\n\n")
    assert len(blocks) == 4
    for block in blocks:
        data = json.loads(block)
        VALIDATOR.validate(data)
        assert data["ohh"]["table_name"] == "Final Table"


def test_the_configuration_names_the_table_and_the_log(
        session_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "feltcast.toml"
    config.write_text(f'data_dir = "{session_dir}"\n[table]\nname = "Zoë\'s Final"\n',
                      encoding="utf-8")
    done = in_process(capsys, "--format", "phh", "--config", config, "--out", tmp_path / "o",
                      "--hands", "1", "--event", "Main Event")
    assert done.returncode == 0, done.stderr
    (path,) = (tmp_path / "o").iterdir()
    assert path.name == "zoes-final-hand-0001.phh"
    text = path.read_text(encoding="utf-8")
    assert 'table = "Zoë\'s Final"' in text and 'event = "Main Event"' in text


@pytest.mark.parametrize(("args", "message"), [
    (("--hands", "40-12"), "the range 40-12 runs backwards: write 12-40"),
    (("--hands", "50-60"), "no hand numbered 50-60 in the log (it holds hands 1-5)"),
    (("--hands", "2"), "no hand could be exported (hand 2 skipped: void hand (misdeal, "
                       "R13): nothing was played)"),
])
def test_bad_ranges_are_refused(session_dir: Path, tmp_path: Path, args: tuple[str, ...],
                                message: str, capsys: pytest.CaptureFixture[str]) -> None:
    done = in_process(capsys, "--format", "phh", "--data-dir", session_dir, "--out", tmp_path,
                      *args)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == f"feltcast export: error: {message}"


def test_missing_empty_and_unwritable(session_dir: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    nowhere = feltcast("--format", "phh", "--data-dir", tmp_path / "none", "--out", tmp_path)
    assert nowhere.returncode == 2
    assert f"no log at {tmp_path / 'none' / 'feltcast.db'}" in nowhere.stderr
    empty = tmp_path / "empty"
    store = open_store(data_dir=empty)
    store.append([TableEvent.record(1, 1.0, PlayerSeated(1, "Ann", 100))])
    store.close()
    done = in_process(capsys, "--format", "ohh", "--data-dir", empty, "--out", tmp_path / "o")
    assert done.returncode == 2
    assert "the log holds no hands yet: nothing to export" in done.stderr
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    done = in_process(capsys, "--format", "phh", "--data-dir", session_dir, "--out",
                      blocker / "sub")
    assert done.returncode == 2
    assert f"cannot write to {blocker / 'sub'}" in done.stderr
    assert not list(tmp_path.glob("*.phh"))


def test_export_is_listed_with_its_formats() -> None:
    done = subprocess.run([sys.executable, "-m", "overlay", "export", "hands", "--help"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0
    assert "{phh,pokerstars,ohh}" in done.stdout and "--hands RANGE" in done.stdout


def test_a_postgresql_log_exports_the_same(session_dir: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    source = open_store(data_dir=session_dir)
    with PostgresServer() as server:
        url = server.create_database()
        target = open_store(url)
        try:
            target.append(list(source.iter_all()))
        finally:
            target.close()
            source.close()
        done = in_process(capsys, "--format", "phh", "--url", url, "--out", tmp_path / "pg")
    assert done.returncode == 0, done.stderr
    in_process(capsys, "--format", "phh", "--data-dir", session_dir, "--out", tmp_path / "lite")
    pg = sorted((tmp_path / "pg").iterdir())
    assert len(pg) == 4

    def without_log_id(path: Path) -> list[str]:  # each log has an id of its own
        lines = path.read_text(encoding="utf-8").splitlines()
        return [line for line in lines if not line.startswith("_feltcast_log_id = ")]

    # The same entries make the same chain: the files carry the same head.
    assert [without_log_id(p) for p in pg] == [
        without_log_id(p) for p in sorted((tmp_path / "lite").iterdir())]
    assert all("_feltcast_log_head = " in p.read_text(encoding="utf-8") for p in pg)


def r5_log(data: Path) -> None:
    """A log of two hands: hand 2 is a live R5 ruling PHH cannot express (three players call
    the full big blind over a big blind all-in for 60)."""
    from engine.hand import Hand
    from tests.hands import full_calls_over_a_short_big_blind
    from tests.overlay.export.conftest import log_of

    names = ("Ann", "Bo", "Cy", "Di")
    folded = Hand.start(seats=(1, 2, 3, 4), stacks=(1000,) * 4, blinds=(50, 100, 0, 0),
                        big_blind=100, button=4, names=names)
    for seat, cards in zip((1, 2, 3, 4), ("AhAd", "KhKd", "QcQd", "JcJd"), strict=True):
        folded.deal_hole(seat, cards)
    for _ in range(3):
        folded.fold()
    entries = log_of(folded)
    entries += [TableEvent.record(len(entries) + k + 1, entries[-1].time + 1 + k, e.payload)
                for k, e in enumerate(log_of(full_calls_over_a_short_big_blind(
                    number=2, names=names)))]
    store = open_store(data_dir=data)
    try:
        store.append(entries)
    finally:
        store.close()


def test_the_summary_names_the_hands_phh_cannot_spell(capsys: pytest.CaptureFixture[str],
                                                      tmp_path: Path) -> None:
    data = tmp_path / "data"
    r5_log(data)
    done = in_process(capsys, "--format", "phh", "--data-dir", data, "--out", tmp_path / "phh")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == (
        f"exported 1 hand(s) as phh to {tmp_path / 'phh'} (1 file(s)); 1 skipped (see above); "
        "hand 2 has no PHH spelling (a live ruling of R5; the pokerstars and ohh formats keep "
        "it)")
    assert "hand 2 skipped: this hand has no faithful PHH spelling: " in done.stderr
    kept = in_process(capsys, "--format", "pokerstars", "--data-dir", data, "--out",
                      tmp_path / "ps")
    assert kept.stdout.startswith("exported 2 hand(s) as pokerstars"), kept.stdout
