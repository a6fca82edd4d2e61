"""``feltcast import hands``: hand histories recorded elsewhere (PHH files nobody here wrote,
PokerStars text) into a log of their own, which every export then reads. The files written
from the imported log are read back by PokerKit."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path

import pokerkit
import pytest

from engine import phh
from engine.errors import InvalidInputError
from engine.log import TableEvent
from engine.table_events import PlayerSeated
from overlay import phh_files
from overlay.cli import main
from overlay.export.hands import read_hands
from overlay.export.phh import phh_text
from overlay.export.pokerstars import pokerstars_text
from overlay.importing import Imported, Skipped, import_hands
from overlay.startup import StartupError, open_service_store
from overlay.store import open_store
from tests.overlay.export.conftest import DATA, needs_data
from tests.overlay.export.session import record_session

ROOT = Path(__file__).resolve().parents[2]


def imported_log(data: Path) -> list:  # type: ignore[type-arg]
    store = open_store(data_dir=data)
    try:
        return list(read_hands(store.iter_all()))
    finally:
        store.close()


def run(data: Path, *paths: Path) -> list[Imported | Skipped]:
    store = open_store(data_dir=data)
    try:
        return list(import_hands(store, paths, now=1_800_000_000.0))
    finally:
        store.close()


@needs_data
def test_real_phh_hands_are_imported_and_exported_as_pokerkit_reads_them(
        tmp_path: Path) -> None:
    files = [*sorted((DATA / "wsop-2023-43-day5").glob("*.phh"))[:40],
             *sorted((DATA / "famous").glob("*.phh"))]
    results = run(tmp_path / "data", *files)
    assert [type(r) for r in results] == [Imported] * len(files), [
        r for r in results if isinstance(r, Skipped)]
    records = imported_log(tmp_path / "data")
    assert len(records) == len(files)
    for path, record in zip(files, records, strict=True):
        original = phh_files.load(path)
        if original.finishing_stacks is not None:
            assert record.finishing_stacks == original.finishing_stacks, path
        text = phh_text(record)
        *_, last = pokerkit.HandHistory.loads(text)
        assert list(last.stacks) == tomllib.loads(text)["finishing_stacks"], path
        assert record.names == (original.players or record.names)


def test_pokerstars_text_is_read_with_pokerkits_parser(tmp_path: Path) -> None:
    session = record_session(tmp_path / "session")
    played = [r for r in imported_log(session) if r.hand.is_over and not r.is_void]
    text = "\n\n\n".join(pokerstars_text(r) for r in played) + "\n"
    (tmp_path / "in").mkdir()
    source = tmp_path / "in" / "stars.txt"
    source.write_text(text, encoding="utf-8")
    (tmp_path / "in" / "README.txt").write_text("not hands\n")  # never read from a folder
    results = run(tmp_path / "data", tmp_path / "in")
    done = [r for r in results if isinstance(r, Imported)]
    left = [r for r in results if isinstance(r, Skipped)]
    assert len(done) + len(left) == len(played) and len(done) >= 2, left
    assert all("PokerStars hand #" in r.source for r in results)
    assert all("README" not in r.source for r in results)
    # Every hand PokerKit's parser reads whole is imported; one with antes is left out,
    # named: the parser takes the ante off the starting stack and leaves it out of the pot.
    with_antes = [r for r in played if r.ante]
    assert len(left) >= len(with_antes) > 0
    assert all("drops the antes" in r.reason or "PokerKit cannot read" in r.reason
               for r in left), left
    records = {r.number: r for r in imported_log(tmp_path / "data")}
    for result in done:
        number = int(result.source.rsplit("#", 1)[1].rstrip(")")) % 10_000
        (original,) = [r for r in played if r.number == number]
        imported = records[result.number]
        assert dict(zip(imported.names, imported.finishing_stacks, strict=True)) == dict(
            zip(original.names, original.finishing_stacks, strict=True))
    # A text file named directly that holds no PokerStars hands is said to be none.
    (result,) = run(tmp_path / "data", tmp_path / "in" / "README.txt")
    assert isinstance(result, Skipped) and "not a PokerStars hand history" in result.reason


HAND = """variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [1000, 1000, 1000]
actions = ["d dh p1 AhAs", "d dh p2 KdKc", "d dh p3 7c2d", "p3 f", "p1 cbr 300", "p2 f"]
players = ["Ann", "Bo", "Cy"]
hand = {number}
finishing_stacks = [1100, 900, 1000]
"""


def test_numbers_times_repeats_and_refusals(tmp_path: Path) -> None:
    folder = tmp_path / "hands"
    folder.mkdir()
    (folder / "a.phh").write_text(HAND.format(number=7) + "_start_unix = 1800000100.0\n"
                                  "_end_unix = 1800000110.0\n")
    (folder / "b.phh").write_text(HAND.format(number=7).replace("p2 f", "p2 cc") +
                                  "year = 2027\nmonth = 1\nday = 2\ntime = 03:04:05\n")
    (folder / "c.phh").write_text(HAND.format(number=9).replace('"p2 f"', '"p3 f"'))
    (folder / "d.phhs").write_text("[1]\n" + HAND.format(number=123456).replace(
        "[1000, 1000, 1000]", "[1000, 1000, 1500]", 1).replace(
        "finishing_stacks = [1100, 900, 1000]", "finishing_stacks = [1100, 900, 1500]"))
    data = tmp_path / "data"
    results = run(data, folder)
    assert [(type(r).__name__, getattr(r, "number", None)) for r in results] == [
        ("Imported", 7), ("Skipped", None), ("Skipped", None), ("Imported", 8)]
    # b.phh is not over after its last action; c.phh is refused by the engine, named.
    assert results[1].reason.startswith("the hand is not over")  # type: ignore[union-attr]
    assert "action 6 'p3 f'" in results[2].reason  # type: ignore[union-attr]
    records = imported_log(data)
    assert [r.number for r in records] == [7, 8]  # 123456 is no table's hand number
    assert records[0].started_at == 1_800_000_100.0 and records[0].ended_at == pytest.approx(
        1_800_000_110.0)
    assert records[1].started_at >= records[0].ended_at + 30  # no time given: after it
    assert records[1].ended_at - records[1].started_at == pytest.approx(  # 2 s an event
        2.0 * (len(records[1].entries) - 1))
    # Again: nothing new, each hand named as already there; the log is as it was.
    store = open_store(data_dir=data)
    before = store.last_seq
    store.close()
    again = run(data, folder)
    assert [r.duplicate_of for r in again if isinstance(r, Skipped)] == [7, None, None, 8]
    store = open_store(data_dir=data)
    assert store.last_seq == before
    # A file with a PHH date starts then.
    fixed = folder / "b.phh"
    fixed.write_text(fixed.read_text().replace('"p2 cc"', '"p2 f"').replace(
        'hand = 7', 'hand = 3').replace('"p1 cbr 300"', '"p1 cbr 400"'))
    (imported,) = [r for r in import_hands(store, [fixed]) if isinstance(r, Imported)]
    store.close()
    assert imported.number == 3
    (third,) = [r for r in imported_log(data) if r.number == 3]
    assert third.started_at == 1_798_859_045.0  # 2027-01-02T03:04:05Z


def test_a_shows_own_log_is_refused_and_an_import_is_never_served(tmp_path: Path) -> None:
    show = tmp_path / "show"
    store = open_store(data_dir=show)
    store.append([TableEvent.record(1, 1.0, PlayerSeated(1, "Ann", 1000))])
    store.close()
    (tmp_path / "a.phh").write_text(HAND.format(number=1))
    with pytest.raises(InvalidInputError, match="holds a table's own log"):
        run(show, tmp_path / "a.phh")
    store = open_store(data_dir=show)
    assert store.last_seq == 1  # nothing was added
    store.close()
    run(tmp_path / "imported", tmp_path / "a.phh")
    with pytest.raises(StartupError, match=r"holds imported hand histories \(feltcast import "
                                           r"hands\), not a table's log"):
        open_service_store("", tmp_path / "imported")
    open_service_store("", show).close()  # a show's log is served as before


def test_the_command_as_a_user_runs_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                       ) -> None:
    (tmp_path / "a.phh").write_text(HAND.format(number=1))
    (tmp_path / "b.phh").write_text(HAND.format(number=2).replace('"p2 f"', '"p3 f"'))
    data = tmp_path / "data"
    done = subprocess.run([sys.executable, "-m", "overlay", "import", "hands",
                           str(tmp_path / "a.phh"), str(tmp_path / "b.phh"), "--data",
                           str(data)], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"imported 1 hand(s) into {data / 'feltcast.db'} as hands 1; 1 left out (see above)",
        f"export them: feltcast export hands --format phh|pokerstars|ohh --data-dir {data} "
        "--out DIR"]
    assert done.stderr.splitlines() == [
        f"[1] {tmp_path / 'a.phh'}: hand 1",
        f"{tmp_path / 'b.phh'} skipped: action 6 'p3 f': Seat 3 (Cy) cannot fold: it is Bo's "
        "turn (seat 2) (R9)"]
    # The export reads it like any log.
    assert main(["export", "hands", "--format", "pokerstars", "--data-dir", str(data),
                 "--out", str(tmp_path / "out")]) == 0
    assert "exported 1 hand(s) as pokerstars" in capsys.readouterr().out
    # Again: nothing new, and it says so; then what cannot be imported at all.
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "notes.txt").write_text("no hands here\n")
    assert main(["import", "hands", str(tmp_path / "a.phh"), "--data", str(data)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        f"imported 0 hand(s) into {data / 'feltcast.db'}; 1 already there")
    for args, message in (
            ([str(tmp_path / "nope.phh")], "no such file or folder"),
            ([str(tmp_path / "b.phh")], r"no hand could be imported \(1 left out"),
            ([str(tmp_path / "in")], "no hand-history files there")):
        assert main(["import", "hands", *args, "--data", str(tmp_path / "other")]) == 2
        error = capsys.readouterr().err.splitlines()[-1]
        assert re.match(f"feltcast import: error: {message}", error), error


def test_pokerkits_own_files_of_random_hands_are_imported(tmp_path: Path) -> None:
    """PHH as PokerKit writes it, closing no-op checks included (engine/phh.py)."""
    import random

    from tests.engine.randomhands import play, random_setup
    from tests.engine.test_pokerkit_diff import Mirror

    folder = tmp_path / "pk"
    folder.mkdir()
    for seed in range(60):
        rng = random.Random(seed)
        setup = random_setup(rng)
        mirror = Mirror(setup, seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            play(setup, rng, mirror, fold=0.4, call=0.35)
        history = pokerkit.HandHistory.from_game_state(
            mirror.game, mirror.state, ante_trimming_status=setup.live_antes)
        (folder / f"{seed:03d}.phh").write_text(history.dumps())
    results = run(tmp_path / "data", folder)
    assert all(isinstance(r, Imported) for r in results), [
        r for r in results if isinstance(r, Skipped)]
    assert len(results) == 60
    for path, record in zip(sorted(folder.iterdir()), imported_log(tmp_path / "data"),
                            strict=True):
        assert record.hand.stacks == phh.replay(phh_files.load(path)).stacks
