"""``feltcast log``: info, what a channel had released at a moment, and the view its pages
had then, on a real log file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.channels import BUILTIN_CHANNELS, due_items, with_delay
from engine.events import Secrecy
from overlay.cli import main
from overlay.store import SCHEMA_VERSION, open_store
from tests.engine.viewkit import Oracle, check_view, codes, shape_errors
from tests.hands import random_log

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
           f"{counts[Secrecy.SECRET]} secret, {counts[Secrecy.NEVER]} never, " \
           "0 internal)" in line
    assert f"schema version {SCHEMA_VERSION}" in line


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


def show_view(data_dir: Path, capsys: pytest.CaptureFixture[str], *argv: str,
              ) -> dict[str, Any]:
    assert main(["log", "show", "--data-dir", str(data_dir), "--view", *argv]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1  # one JSON line
    view: dict[str, Any] = json.loads(out)
    return view


def test_show_view_prints_the_view_the_pages_had(data_dir: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """``--view``: the page view model (docs/view-model.md) of the channel at that moment,
    exact against the log replayed by the engine and secret where the channel is public."""
    oracle = Oracle.of(ENTRIES)
    middle = ENTRIES[len(ENTRIES) // 2]
    cases = [("venue", middle.time, BUILTIN_CHANNELS["venue"], ()),
             ("delayed", middle.time, with_delay(BUILTIN_CHANNELS["delayed"], 30.0),
              ("--delay", "30")),
             ("secure", 1e12, BUILTIN_CHANNELS["secure"], ()),
             ("reveal", 1e12, BUILTIN_CHANNELS["reveal"], ())]
    for name, at, spec, extra in cases:
        view = show_view(data_dir, capsys, "--channel", name, "--at", str(at), *extra)
        assert shape_errors(view) == [], name
        horizon = max(item.event.seq for item in due_items(spec, ENTRIES, at))
        assert view["channel"] == {"name": name, "delay": spec.delay,
                                   "as_of": ENTRIES[horizon - 1].time, "live": spec.delay == 0}
        check_view(spec, view, oracle.truths[horizon])
    # The secure channel at the end: the last hand with every hole card the engine dealt.
    last = oracle.truths[ENTRIES[-1].seq].hand
    seats = {s["seat"]: s for s in view_of(data_dir, capsys, "secure")["seats"]}
    assert all(seats[seat]["cards"] == codes(last.hole_cards(seat)) for seat in last.seats)
    # The operator console's channel has the operator object.
    assert shape_errors(view_of(data_dir, capsys, "operator"), operator=True) == []


def view_of(data_dir: Path, capsys: pytest.CaptureFixture[str], channel: str,
            *argv: str) -> dict[str, Any]:
    return show_view(data_dir, capsys, "--channel", channel, "--at", "1e12", *argv)


def test_show_view_with_the_service_configuration(data_dir: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """``--config``: the table's name and the configured channels, as the service had them
    (and the data directory, when ``--data-dir`` is not given)."""
    config = tmp_path / "feltcast.toml"
    config.write_text(f'''data_dir = "{data_dir}"
[table]
name = "Main Event Final Table"
[channels.backstage]
filter = "public"
delay = 60
''', encoding="utf-8")
    assert main(["log", "show", "--config", str(config), "--channel", "backstage",
                 "--at", "1e12", "--view"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["table"]["name"] == "Main Event Final Table"
    assert view["channel"]["name"] == "backstage" and view["channel"]["delay"] == 60
    assert shape_errors(view) == []


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
