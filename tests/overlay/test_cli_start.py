"""``feltcast init`` and ``feltcast serve`` as a new user meets them, as real processes: the file
``init`` writes is one ``serve`` accepts; the first start prints the real port, every page with
the channel it reads and the tokens; whatever stops a start is one line and exit status 2; a
closed pipe is no traceback; ``feltcast log backup`` copies a data directory while the service
writes to it."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from overlay.store import open_store
from tests.hands import random_log
from tests.pages.service import printed_tokens

ROOT = Path(__file__).resolve().parents[2]
FIRST_LINE = re.compile(r"^Feltcast \S+ serving '.*' on (http://127\.0\.0\.1:(\d+)) ")
PAGE_LINE = re.compile(r"^  (\S.*?) +(http://127\.0\.0\.1:\d+/\S+)  +(\S.*)$")
CSV = "seat,name,display_name,country\n1,Tomasz Nowak,Tomek,PL\n4,Lena Moreau,,FR\n"


def feltcast(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "overlay", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=timeout,
                          env={**os.environ, "PYTHONUNBUFFERED": "1"})


@dataclass
class Running:
    """A ``feltcast serve`` process and the lines it printed so far."""

    process: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)
    _queue: queue.Queue[str | None] = field(default_factory=queue.Queue)

    def __post_init__(self) -> None:
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def until(self, pattern: str, timeout: float = 60) -> str:
        """Wait for a printed line matching ``pattern``; the line."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no line like {pattern!r} in:\n" + "\n".join(self.lines))
            try:
                line = self._queue.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError(f"the service ended before {pattern!r}:\n"
                                     + "\n".join(self.lines))
            self.lines.append(line)
            if re.search(pattern, line):
                return line

    def stop(self, signum: int = signal.SIGTERM) -> int:
        self.process.send_signal(signum)
        status = self.process.wait(timeout=60)
        while (line := self._queue.get(timeout=10)) is not None:
            self.lines.append(line)
        return status

    def close(self) -> None:
        """Whatever happened: the process killed if it still runs, its output pipe closed
        (an open pipe is a ResourceWarning later)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


@contextmanager
def serving(*args: str, cwd: Path) -> Iterator[Running]:
    process = subprocess.Popen([sys.executable, "-m", "overlay", "serve", *args], cwd=cwd,
                               text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    running = Running(process)
    try:
        yield running
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        assert process.stdout is not None
        process.stdout.close()


def get(url: str, token: str | None = None) -> tuple[int, bytes]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                timeout=30) as response:
        return response.status, response.read()


def post_command(base: str, token: str, kind: str, **fields: Any) -> Any:
    body = json.dumps({"id": str(uuid.uuid4()), "type": kind, **fields}).encode()
    request = urllib.request.Request(f"{base}/api/commands", data=body, headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def write_show(tmp_path: Path, *extra: str) -> Path:
    (tmp_path / "players.csv").write_text(CSV, encoding="utf-8")
    done = feltcast("init", "--no-scan", "--name", "Main Event", "--players", "players.csv",
                    "--stack", "250000", "--delay", "600", *extra, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "wrote feltcast.toml: 9 seats, 2 players" in done.stdout
    return tmp_path / "feltcast.toml"


def test_init_writes_a_commented_file_that_serve_accepts(tmp_path: Path) -> None:
    config = write_show(tmp_path)
    text = config.read_text(encoding="utf-8")
    assert text.count("\n#") >= 10  # commented for the person who edits it
    assert 'name = "Tomasz Nowak"' in text and "stack = 250000" in text
    printed = feltcast("serve", "--config", "feltcast.toml", "--print-config", cwd=tmp_path)
    assert printed.returncode == 0, printed.stderr
    assert "seconds = 600.0" in printed.stdout and 'name = "Main Event"' in printed.stdout
    again = feltcast("init", "--no-scan", cwd=tmp_path)  # never overwritten by accident
    assert again.returncode == 2 and "--force" in again.stderr
    assert config.read_text(encoding="utf-8") == text
    (tmp_path / "bad.csv").write_text("seat,name,stack\n1,Ann,100\n")
    refused = feltcast("init", "--no-scan", "--players", "bad.csv", "other.toml", cwd=tmp_path)
    assert refused.returncode == 2 and "unknown column 'stack'" in refused.stderr
    assert not (tmp_path / "other.toml").exists()


def test_the_first_start_explains_itself(tmp_path: Path) -> None:
    config = write_show(tmp_path)
    config.write_text(config.read_text() + "\n[channels.secure]\nenabled = true\n")
    with serving("--config", "feltcast.toml", "--port", "0", cwd=tmp_path) as service:
        first = service.until(r"^Feltcast .* serving")
        match = FIRST_LINE.match(first)
        assert match, first
        base, port = match.group(1), int(match.group(2))
        assert port != 0  # the real port, not the one asked for
        service.until(r"^  obs  ")
        tokens = printed_tokens(service.lines)
        kept = (tmp_path / "data" / "tokens.json").read_text()
        assert tokens["operator"] not in kept and tokens["secure"] not in kept
        pages = {m.group(1): (m.group(2), m.group(3))
                 for m in map(PAGE_LINE.match, service.lines) if m}
        assert pages["operator console"][0] == f"{base}/operator?token={tokens['operator']}"
        overlay_url, reads = pages["OBS overlay (the stream)"]
        assert overlay_url == f"{base}/overlay?channel=delayed"
        assert reads == "delayed: 600 s late, hole cards"
        assert pages["venue screens"][1] == "venue: live, public only"
        assert pages["production room"] == (
            f"{base}/overlay?channel=secure&token={tokens['secure']}",
            "secure: live, hole cards, token")
        assert {"commentary", "chip counts (leaderboard)", "level clock", "payouts",
                "elimination graphic", "lower third (?seat=N)", "ticker (crawl)",
                "all-in versus"} <= set(pages)
        for url, _ in pages.values():
            status, body = get(url)
            assert status == 200 and b"<html" in body.lower(), url
        assert service.stop() == 0
        assert service.lines[-1] == "Feltcast stopped"
    with serving("--config", "feltcast.toml", "--port", "0", cwd=tmp_path) as service:
        service.until(r"^Tokens: shown on the first start only \(lost one\? feltcast tokens "
                      r"rotate operator\|secure\|obs --data-dir .*\)")
        assert not any(tokens["operator"] in line for line in service.lines)
        assert service.stop(signal.SIGINT) == 0  # Ctrl-C stops it as SIGTERM does
        assert service.lines[-1] == "Feltcast stopped"


def one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr + done.stdout, done.stderr
    return lines[0]


def test_a_busy_port_is_one_line_and_status_2(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = feltcast("serve", "--data", "data", "--port", str(port), cwd=tmp_path)
    line = one_line_error(done)
    assert f"cannot listen on 127.0.0.1:{port}: the port is already in use" in line
    assert "--port" in line
    assert done.stdout == "" and not (tmp_path / "data").exists()  # nothing started


def test_a_data_directory_that_cannot_be_written(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("not a directory")
    for data in ("a-file", "a-file/data"):
        line = one_line_error(feltcast("serve", "--data", data, "--port", "0", cwd=tmp_path))
        assert line.startswith(f"feltcast serve: error: the data directory {data} cannot be "
                               "written (")
        assert "--data" in line


def test_a_database_that_cannot_be_opened(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "feltcast.db").write_bytes(b"this is no database " * 400)
    line = one_line_error(feltcast("serve", "--data", "data", "--port", "0", cwd=tmp_path))
    assert line == (f"feltcast serve: error: cannot open the database sqlite:///"
                    f"{tmp_path / 'data' / 'feltcast.db'}: file is not a database")
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        nobody = free.getsockname()[1]  # closed again below: nothing listens there
    (tmp_path / "pg.toml").write_text(
        f'[database]\nurl = "postgresql://show:s3cret@127.0.0.1:{nobody}/feltcast"\n')
    line = one_line_error(feltcast("serve", "--config", "pg.toml", "--port", "0",
                                   cwd=tmp_path))
    assert f"cannot open the database postgresql://show:***@127.0.0.1:{nobody}" \
           "/feltcast: connection to server" in line
    assert "s3cret" not in line


def test_a_closed_pipe_is_no_traceback(tmp_path: Path) -> None:
    store = open_store("", tmp_path)
    # Far more than a pipe holds (64 KiB): the command is still writing when the pipe closes,
    # however fast it runs (a smaller log could be written whole before, on a busy machine).
    store.append(random_log(60, 120))
    store.close()
    process = subprocess.Popen([sys.executable, "-m", "overlay", "log", "show", "--data-dir",
                                str(tmp_path), "--channel", "secure"], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    with process.stderr:
        assert process.stdout.readline().startswith(b'{"event"')
        process.stdout.close()  # as `| head -1` does
        assert process.wait(timeout=60) == 141
        assert process.stderr.read() == b""


def test_version(tmp_path: Path) -> None:
    from overlay import __version__

    done = feltcast("--version", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout == f"feltcast {__version__}\n"


def test_a_command_imports_only_its_own_module(tmp_path: Path) -> None:
    # Every subcommand is listed in the help, but `feltcast init` does not pay for the
    # video export's OpenCV or the evaluator's tables (each test's subprocess did).
    probe = ("import sys\nfrom overlay.cli import main\n"
             "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in sys.modules if m.startswith('overlay.cli.') or "
             "m in ('cv2', 'engine._tables')))")
    helped = subprocess.run([sys.executable, "-c", probe, "--help"], cwd=tmp_path, text=True,
                            capture_output=True, timeout=120)
    assert "serve     run the service" in helped.stdout and "worker " in helped.stdout
    assert helped.stdout.splitlines()[-1] == "[]"
    init = subprocess.run([sys.executable, "-c", probe, "init", "--help"], cwd=tmp_path,
                          text=True, capture_output=True, timeout=120)
    assert "--players" in init.stdout
    assert init.stdout.splitlines()[-1] == "['overlay.cli.init']"
    wrong = feltcast("serv", cwd=tmp_path)
    assert wrong.returncode == 2 and "invalid choice: 'serv'" in wrong.stderr


def test_a_backup_while_the_service_writes(tmp_path: Path) -> None:
    write_show(tmp_path)
    photos = tmp_path / "data" / "media" / "players"
    with serving("--config", "feltcast.toml", "--port", "0", cwd=tmp_path) as service:
        match = FIRST_LINE.match(service.until(r"^Feltcast .* serving"))
        assert match
        base = match.group(1)
        service.until(r"^  obs  ")
        token = printed_tokens(service.lines)["operator"]
        photos.mkdir(parents=True, exist_ok=True)
        (photos / "1-abc.png").write_bytes(b"\x89PNG photo")
        stop = threading.Event()
        acknowledged: list[bool] = []
        assert post_command(base, token, "start_clock")["ok"]

        def operate() -> None:  # the table goes on during the backup
            while not stop.is_set():
                for kind in ("pause_clock", "resume_clock"):
                    acknowledged.append(post_command(base, token, kind)["ok"])

        writer = threading.Thread(target=operate)
        writer.start()
        try:
            while len(acknowledged) < 20:
                time.sleep(0.05)
            done = feltcast("log", "backup", "--data-dir", "data", "--to", "copy",
                            cwd=tmp_path)
            during = len(acknowledged)
            while len(acknowledged) < during + 10:  # still writing after it
                time.sleep(0.05)
        finally:
            stop.set()
            writer.join(timeout=60)
        assert service.stop() == 0
    assert done.returncode == 0, done.stderr
    match = re.search(r"backup done in \S+ s: (\d+) log entries \(last sequence number "
                      r"(\d+)\), integrity ok, (\d+) other files", done.stdout)
    assert match, done.stdout
    entries, last, others = map(int, match.groups())
    assert entries == last and last >= 20 and others == 3  # tokens, the signing key, the photo
    copy = tmp_path / "copy"
    assert (copy / "log-signing.key").read_bytes() == (
        tmp_path / "data" / "log-signing.key").read_bytes()  # the copy can go on signing
    assert (copy / "media" / "players" / "1-abc.png").read_bytes() == b"\x89PNG photo"
    assert oct((copy / "tokens.json").stat().st_mode & 0o777) == "0o600"
    assert not list(copy.glob("*-wal")) and not list(copy.glob("*-shm"))
    info = feltcast("log", "info", "--data-dir", "copy", cwd=tmp_path)
    assert f" {entries} events " in info.stdout
    # Another machine starts from the copy: the same table, the same tokens.
    with serving("--config", "feltcast.toml", "--data", "copy", "--port", "0",
                 cwd=tmp_path) as service:
        service.until(r"^Tokens: shown on the first start only .*--data-dir copy\)")
        assert service.stop() == 0
    assert json.loads((copy / "tokens.json").read_text()) == json.loads(
        (tmp_path / "data" / "tokens.json").read_text())
    for target, says in (("copy", "exists already"), ("data/inside", "copied into itself")):
        refused = feltcast("log", "backup", "--data-dir", "data", "--to", target, cwd=tmp_path)
        assert refused.returncode == 2 and says in refused.stderr, refused.stderr
    assert not (tmp_path / "data" / "inside").exists()
    postgres = feltcast("log", "backup", "--url", "postgresql://127.0.0.1/show", cwd=tmp_path)
    assert postgres.returncode == 2 and "pg_dump" in postgres.stderr


def test_the_startup_objects_leave_the_garbage_collectors_view() -> None:
    """settle_heap (called by serve, worker and festival once they are up): what startup made
    is frozen, so a full collection no longer walks it; cycles made later are still
    collected."""
    code = """
import gc, json
from overlay.startup import settle_heap
import overlay.fanout.worker, overlay.app
settle_heap()
frozen = gc.get_freeze_count()
class Cycle:
    pass
a, b = Cycle(), Cycle()
a.other, b.other = b, a
del a, b
print(json.dumps({"frozen": frozen, "tracked": len(gc.get_objects()),
                  "collected": gc.collect()}))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout
    result = json.loads(out)
    assert result["frozen"] > 50_000  # the modules, classes and functions of a service
    assert result["tracked"] < result["frozen"] / 10
    assert result["collected"] >= 2  # a cycle made later
    import overlay.cli.festival
    import overlay.cli.serve
    import overlay.cli.worker
    for module in (overlay.cli.serve, overlay.cli.worker, overlay.cli.festival):
        assert "settle_heap()" in Path(module.__file__ or "").read_text()
