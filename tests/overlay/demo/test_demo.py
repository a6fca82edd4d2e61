"""``feltcast demo`` as a real subprocess: it prints the pages' URLs, plays hands whose cards
come from the simulated RFID table over a real pty, serves the pages, and exits 0."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

from engine.table_events import PlayerSeated
from overlay.store import open_store

ROOT = Path(__file__).resolve().parents[3]


def test_feltcast_demo_plays_hands_and_exits(tmp_path: Path) -> None:
    data = tmp_path / "demo"
    process = subprocess.Popen(
        [sys.executable, "-m", "overlay", "demo", "--hands", "2", "--port", "0",
         "--speed", "40", "--seed", "11", "--data", str(data)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    lines: list[str] = []
    urls: dict[str, str] = {}
    for line in process.stdout:
        lines.append(line)
        match = re.search(r"(http://127\.0\.0\.1:\d+/(\w+)\S*)", line)
        if match and match.group(2) not in urls:
            urls[match.group(2)] = match.group(1)
        if "Ctrl-C stops" in line and "pages" not in urls:
            # Once the list is out, while it runs, the pages are served and the public
            # channel answers.
            urls["pages"] = "checked"
            for page in ("overlay", "commentary", "operator"):
                with urllib.request.urlopen(urls[page], timeout=5) as response:
                    assert response.status == 200
            base = urls["overlay"].split("/overlay")[0]
            with urllib.request.urlopen(f"{base}/api/state?channel=venue", timeout=5) as r:
                view = json.load(r)["view"]
            assert sum(1 for seat in view["seats"] if seat["name"]) == 9
    _, stderr = process.communicate(timeout=90)
    output = "".join(lines)
    assert process.returncode == 0, output + stderr
    assert "token=" in urls["operator"]
    assert len(re.findall(r"^hand \d+: ", output, re.MULTILINE)) == 2
    assert "demo finished: 2 hands played" in output
    assert "refused" not in stderr and "by hand" not in stderr, stderr
    # Every hole card and board card of the three hands came from capture: each deal the
    # engine logged follows the capture record of the same read.
    store = open_store("", data)
    try:
        entries = list(store.iter_all())
    finally:
        store.close()
    kinds = [entry.kind for entry in entries]
    assert kinds.count("hand_ended") == 2
    seated = [e.payload for e in entries if isinstance(e.payload, PlayerSeated)]
    assert len(seated) == 9 and sum(p.stack for p in seated) == 450_000
    # The bridge logs the capture records of a scan right after the commands they caused.
    reads = {("seat", (e.payload.to_dict()["capture"]["seat"],
                       frozenset(e.payload.to_dict()["capture"]["cards"])))
             for e in entries if e.kind == "capture.hole_cards_read"}
    reads |= {("board", e.payload.to_dict()["capture"]["card"])
              for e in entries if e.kind == "capture.board_card_read"}
    dealt = 0
    for entry in entries:
        data = entry.payload.to_dict()
        if entry.kind == "hole_cards_dealt":
            dealt += 1
            assert ("seat", (data["seat"], frozenset(data["cards"]))) in reads, data
        elif entry.kind == "board_dealt":
            for card in data["cards"]:
                assert ("board", card) in reads, data
        assert not entry.kind.startswith("capture.") or "burn" not in entry.kind \
            or entry.kind == "capture.burn_seen"
    assert dealt >= 4


def test_ctrl_c_stops_the_demo_cleanly(tmp_path: Path) -> None:
    # Started as a script's background job is: with SIGINT ignored (POSIX shells do that
    # without job control). Python would keep it ignored, and the demo would not stop; an
    # explicit SIGINT (kill -INT, a test, a supervisor) must stop it all the same.
    process = subprocess.Popen(
        ["sh", "-c", 'trap "" INT; exec "$0" "$@"', sys.executable, "-m", "overlay", "demo",
         "--port", "0", "--data", str(tmp_path)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        if "Ctrl-C stops" in line:
            break
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert "demo stopped" in out
    assert not (tmp_path / "reader.tty").exists()  # the simulated reader is unplugged
