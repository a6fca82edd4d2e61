"""``docs/show-day.md``'s systemd unit is one systemd accepts, and the service behaves as the
unit expects: the command in ``ExecStart`` runs the service, ``KillSignal`` stops it with status
0, and a start-up problem exits with the status named in ``RestartPreventExitStatus``."""

from __future__ import annotations

import configparser
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

from tests.system_packages import missing_system_package

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "show-day.md"


def unit_text() -> str:
    (block,) = re.findall(r"^```ini\n(.*?)^```", DOC.read_text(), re.MULTILINE | re.DOTALL)
    return block


def local_unit(tmp_path: Path) -> str:
    """The documented unit for this test's directory and environment (no user to switch to)."""
    feltcast = Path(sys.executable).parent / "feltcast"
    text = unit_text().replace("/srv/feltcast/venv/bin/feltcast", str(feltcast))
    text = text.replace("/srv/feltcast", str(tmp_path))
    return "\n".join(line for line in text.splitlines() if not line.startswith("User="))


def service_section(text: str) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(text)
    return parser["Service"]


def test_systemd_accepts_the_documented_unit(tmp_path: Path) -> None:
    if shutil.which("systemd-analyze") is None:
        missing_system_package("systemd-analyze (Debian's systemd) is not installed")
    unit = tmp_path / "feltcast.service"
    unit.write_text(local_unit(tmp_path))
    done = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_the_unit_starts_stops_and_gives_up_as_documented(tmp_path: Path) -> None:
    service = service_section(local_unit(tmp_path))
    assert service["KillSignal"] == "SIGTERM" and service["Restart"] == "on-failure"
    command = shlex.split(service["ExecStart"])
    (tmp_path / "feltcast.toml").write_text('[table]\nname = "Show Day"\n')
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with socket.socket() as busy:  # a start-up problem: the status that stops the restarts
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        refused = subprocess.run([*command, "--port", port], cwd=service["WorkingDirectory"],
                                 capture_output=True, text=True, env=env, timeout=120)
    assert str(refused.returncode) == service["RestartPreventExitStatus"], refused.stderr
    process = subprocess.Popen([*command, "--port", "0"], cwd=service["WorkingDirectory"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               env=env)
    assert process.stdout is not None
    try:
        lines = []
        for line in process.stdout:
            lines.append(line)
            if line.startswith("  obs  "):  # the whole address list is out: it runs
                break
        assert any("serving 'Show Day'" in line for line in lines), lines
        process.send_signal(getattr(signal, service["KillSignal"]))
        assert process.wait(timeout=float(service["TimeoutStopSec"])) == 0
        assert process.stdout.read().strip().endswith("Feltcast stopped")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
