"""``feltcast demo``'s options are checked before anything starts; a busy port is a message."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from overlay.cli import main


@pytest.mark.parametrize(("option", "value", "message"), [
    ("--speed", "0", "--speed"), ("--hands", "0", "--hands"), ("--delay", "-1", "--delay"),
    ("--port", "70000", "--port"),
])
def test_bad_options_exit_2_with_a_message(option: str, value: str, message: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", option, value]) == 2
    assert message in capsys.readouterr().err


def test_a_busy_port_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        status = main(["demo", "--port", str(port), "--hands", "1", "--data",
                       str(tmp_path / "demo")])
    assert status == 2
    err = capsys.readouterr().err
    assert "--port" in err and str(port) in err
