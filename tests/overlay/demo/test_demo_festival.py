"""``feltcast demo --festival`` as a newcomer runs it: it starts its own PostgreSQL and Redis,
prints where everything is, plays its three tables into hand-for-hand and down to the final
table (saying so), serves the festival's pages meanwhile, and stops cleanly on Ctrl-C with
its servers gone."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

from overlay.demo.servers import redis_installed
from tests.overlay.test_cli_start import Running
from tests.system_packages import unless_installed

ROOT = Path(__file__).resolve().parents[3]


@unless_installed(redis_installed(), "redis-server is not installed (Debian package "
                                     "redis-server)")
def test_the_festival_demo_plays_down_to_its_final_table(tmp_path: Path) -> None:
    demo = Running(subprocess.Popen(
        [sys.executable, "-m", "overlay", "demo", "--festival", "--port", "0", "--speed",
         "1000", "--seed", "5", "--delay", "1", "--data", str(tmp_path)],
        cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
    try:
        servers = demo.until(r"PostgreSQL on 127.0.0.1:(\d+), Redis on 127.0.0.1:(\d+)")
        ports = [int(port) for port in re.findall(r"127\.0\.0\.1:(\d+)", servers)]
        front = demo.until(r"the festival \(every table, the field\): (http://\S+/)$")
        base = re.search(r"(http://\S+)/$", front).group(1)  # type: ignore[union-attr]
        overlays = [demo.until(rf"  {key}: operator http://\S+ +overlay (http://\S+)")
                    for key in ("table-1", "table-2", "table-3")]
        assert all(f"{base}/t/table-" in line for line in overlays)
        director = re.search(r"its data: (http://\S+/api/festival)",  # type: ignore[union-attr]
                             demo.until(r"the director: http://\S+/ \(its data:")).group(1)
        demo.until(r"^hand-for-hand: (10|11) players left at [23] tables \(R24\)$",
                   timeout=300)
        demo.until(r"^the final table: ([2-9]|10) players at table-1 \(R23\)$", timeout=300)
        with urllib.request.urlopen(f"{base}/api/tables", timeout=30) as response:
            tables = json.loads(response.read())["tables"]
        assert [entry["table"] for entry in tables] == ["table-1", "table-2", "table-3"]
        with urllib.request.urlopen(f"{base}/", timeout=30) as response:
            assert "Live tables" in response.read().decode()
        with urllib.request.urlopen(director, timeout=30) as response:
            festival = json.loads(response.read())
        assert [table["name"] for table in festival["tables"]] == ["Final table"]
        assert festival["chips"] == 27 * 20_000
        assert demo.stop(signal.SIGINT) == 0
        assert "demo stopped" in demo.lines
    finally:
        demo.close()
    for port in ports:  # its PostgreSQL and Redis went with it
        with socket.socket() as probe:
            assert probe.connect_ex(("127.0.0.1", port)) != 0, port
