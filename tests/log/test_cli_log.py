"""``feltcast log``: info and what a channel had released at a moment, on a real log file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.events import Secrecy
from overlay.cli import main
from overlay.store import open_store
from tests.log.hands import random_log

ENTRIES = random_log(5, 4, gaps=(1.0,))


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    store = open_store("", tmp_path)
    store.append(ENTRIES)
    store.close()
    return tmp_path


def test_info(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["log", "info", "--data-dir", str(data_dir)]) == 0
    line = capsys.readouterr().out
    counts = {s: sum(1 for e in ENTRIES if e.secrecy is s) for s in Secrecy}
    assert f"{len(ENTRIES)} events ({counts[Secrecy.PUBLIC]} public, " \
           f"{counts[Secrecy.SECRET]} secret, {counts[Secrecy.NEVER]} never)" in line
    assert "schema version 1" in line


def test_show_what_each_channel_had_released(data_dir: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    middle = ENTRIES[len(ENTRIES) // 2].time
    assert main(["log", "show", "--data-dir", str(data_dir), "--channel", "venue",
                 "--at", str(middle)]) == 0
    venue = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert venue and all(item["event"]["time"] <= middle for item in venue)
    assert all(item["event"]["secrecy"] == "public" for item in venue)
    assert main(["log", "show", "--data-dir", str(data_dir), "--channel", "delayed",
                 "--delay", "30", "--at", str(middle)]) == 0
    delayed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert delayed and all(item["release"] <= middle for item in delayed)
    assert len(delayed) < len(venue)  # 30 s behind
    assert {item["event"]["secrecy"] for item in delayed} == {"public", "secret"}
    assert main(["log", "show", "--data-dir", str(data_dir), "--channel", "secure",
                 "--at", "1e12", "--view"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["hand"]["number"] == 4


@pytest.mark.parametrize("argv, message", [
    (["log", "info", "--data-dir", "/nonexistent/feltcast"], "no log at"),
    (["log", "show", "--channel", "backstage"], "no channel 'backstage'"),
])
def test_bad_input_is_exit_status_2(argv: list[str], message: str, data_dir: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    if "--data-dir" not in argv:
        argv = [*argv, "--data-dir", str(data_dir)]
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert not Path("/nonexistent/feltcast").exists()
