"""``feltcast init`` finds a real OBS Studio by its obs-websocket Hello, and writes an ``[obs]``
table the service accepts: enabled with the password given, or disabled with a note saying
where the password is set in OBS."""

from __future__ import annotations

import socket
import tomllib
from pathlib import Path

import pytest

from overlay.cli import main
from overlay.cli.init import probe_obs
from overlay.config import load_config
from tests.overlay.devices.obs.conftest import ObsStudio


def test_init_finds_obs_and_enables_it_with_the_password(
        obs: ObsStudio, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    found = probe_obs("127.0.0.1", obs.port)
    assert found is not None and found.password_required and found.version.startswith("5.")
    path = tmp_path / "with-password.toml"
    assert main(["init", str(path), "--obs", f"127.0.0.1:{obs.port}",
                 f"--obs-password={obs.password}"]) == 0  # a password may start with "-"
    assert f"OBS found at 127.0.0.1:{obs.port} (obs-websocket {found.version})" in \
        capsys.readouterr().out
    config = load_config(path)
    assert config.obs.enabled and config.obs.port == obs.port
    assert config.obs.password == obs.password
    without = tmp_path / "without.toml"
    assert main(["init", str(without), "--obs", f"127.0.0.1:{obs.port}"]) == 0
    text = without.read_text()
    assert "password required" in text and "Tools > WebSocket Server Settings" in text
    assert tomllib.loads(text)["obs"]["enabled"] is False
    assert not load_config(without).obs.enabled


def test_init_says_when_nothing_answers_as_obs(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as plain:  # a port that accepts and says nothing: not OBS
        plain.bind(("127.0.0.1", 0))
        plain.listen()
        port = plain.getsockname()[1]
        assert probe_obs("127.0.0.1", port, timeout=1.0) is None
        assert main(["init", str(tmp_path / "f.toml"), "--obs", f"127.0.0.1:{port}"]) == 0
    assert "no OBS found" in capsys.readouterr().out
    assert "obs" not in tomllib.loads((tmp_path / "f.toml").read_text())
    assert main(["init", str(tmp_path / "g.toml"), "--obs", "nowhere"]) == 2
