"""``feltcast equity`` as a user runs it: a real subprocess, its output and its exit status."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from overlay.cli import main

ROOT = Path(__file__).resolve().parent.parent


def feltcast(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "overlay", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)


def test_table_preflop() -> None:
    done = feltcast("equity", "AhAs", "KdKc")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "Preflop: 1,712,304 boards, exact"
    aces = next(line for line in lines if line.startswith("AhAs"))
    kings = next(line for line in lines if line.startswith("KdKc"))
    # 1,388,072 wins and 6,538 splits of 1,712,304: (1,388,072 + 6,538 / 2) / 1,712,304.
    assert aces.split()[:3] == ["AhAs", "81.26%", "1,388,072"]
    assert "6,538" in aces and "6,538" in kings
    assert kings.split()[:2] == ["KdKc", "18.74%"]
    assert done.stderr == ""


def test_table_on_the_flop_shows_hands_and_outs() -> None:
    done = feltcast("equity", "AsKs", "QhQd", "JcTc", "--board", "Qs9s8c")
    assert done.returncode == 0, done.stderr
    rows = {line[:4]: line for line in done.stdout.splitlines()[3:]}
    assert "High Card, Ace" in rows["AsKs"] and "8 outs: 2s 3s 4s 5s 6s 7s Ts Js" in rows["AsKs"]
    assert "Three of a Kind, Queens" in rows["QhQd"] and "7 outs:" in rows["QhQd"]
    assert "Straight, Queen high" in rows["JcTc"] and "15 cards cost the lead" in rows["JcTc"]


def test_json() -> None:
    done = feltcast("equity", "AcKc", "JhJd", "--dead", "AhKdJs7c2c9c", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["street"] == "preflop" and data["dead"] == "AhKdJs7c2c9c"
    assert data["boards"] == 850_668  # C(42, 5): 52 cards less 4 in hands and 6 dead
    players = data["players"]
    assert [p["hand"] for p in players] == ["AcKc", "JhJd"]
    assert sum(Fraction(p["equity"]) for p in players) == 1
    for p in players:
        assert Fraction(p["win"]) == Fraction(p["wins"], data["boards"])
        assert Fraction(p["tie"]) == Fraction(p["ties"], data["boards"])
        assert Fraction(p["equity"]) == Fraction(2 * p["wins"] + p["ties"], 2 * data["boards"])
        assert p["outs"] is None


def test_ten_for_a_ten_is_accepted() -> None:
    done = feltcast("equity", "10h10d", "AsKs", "--board", "2c7h10s", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["players"][0]["hand"] == "ThTd"


@pytest.mark.parametrize("args, message", [
    (["AhAs"], "equity needs 2 to 10 hands, got 1"),
    (["AhAs", "KdKc", "--board", "2c3c"], "a board has 0, 3, 4 or 5 cards"),
    (["AhAs", "AhKc"], "card Ah appears twice"),
    (["AhAx", "KdKc"], "'x' is not a suit"),
    (["AhAs", "KdKcQc"], "hand 2 ('KdKcQc') has 3 cards"),
    (["AhAs", "KdKc", "--dead", "As"], "card As appears twice"),
    ([f"{r}c{r}d" for r in "23456789TJQ"], "got 11"),
])
def test_bad_input_exits_2_with_one_line(args: list[str], message: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    # In process (the same main() the console script runs), to keep the suite quick.
    assert main(["equity", *args]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.splitlines()) == 1
    assert err.startswith("feltcast equity: error: ")
    assert message in err


def test_bad_input_from_a_real_process() -> None:
    done = feltcast("equity", "AhAs", "KdKc", "--board", "Ah2c3c")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "feltcast equity: error: card Ah appears twice\n"
