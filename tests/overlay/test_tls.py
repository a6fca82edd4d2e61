"""TLS on the venue network (``overlay/tls.py``): real handshakes from aiohttp and from
Chromium (which trusts the show's generated CA through its own certificate store), and the
plaintext refusal for peers outside the local networks. The tests count only 127.0.0.1/32 as
local and connect from 127.0.0.2, as a tablet on the venue network would."""

from __future__ import annotations

import os
import re
import shutil
import ssl
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from overlay.app import create_app
from overlay.config import parse_config
from overlay.keys import TOKENS_KEY
from overlay.tls import describe, local_files
from tests.pages.service import printed_tokens
from tests.system_packages import missing_system_package

CHROMIUM = Path("/usr/bin/chromium")
VENUE_PEER = ("127.0.0.2", 0)
"""A machine on the venue network, as the service sees it."""
TLS_CONFIG = """
[table]
name = "TLS Final"
seats = 9

[[players]]
seat = 1
name = "Ann"
stack = 5000

[[players]]
seat = 2
name = "Bo"
stack = 5000

[channels.secure]
enabled = true

[server]
tls = true
local_networks = ["127.0.0.1/32"]
"""


@contextmanager
def tls_service(root: Path) -> Iterator[tuple[str, dict[str, str], list[str]]]:
    """``feltcast serve`` with TLS (the local CA made on this first start): its https base
    URL, its tokens and the lines it printed."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "feltcast.toml").write_text(TLS_CONFIG)
    process = subprocess.Popen(
        [sys.executable, "-m", "overlay", "serve", "--config", "feltcast.toml", "--port", "0"],
        cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert process.stdout is not None
    lines: list[str] = []
    try:
        for line in process.stdout:
            lines.append(line.rstrip("\n"))
            if "trust" in line and "ca.pem" in line:
                break
        match = re.match(r"^Feltcast \S+ serving '.*' on (https://127\.0\.0\.1:\d+) ",
                         lines[0])
        assert match, lines
        yield match.group(1), printed_tokens(lines), lines
    finally:
        process.terminate()
        process.wait(timeout=30)
        process.stdout.close()


def trusting(root: Path) -> ssl.SSLContext:
    """A client context that trusts only the show's CA (and checks the host name)."""
    ca = local_files(root / "data").ca
    assert ca is not None
    return ssl.create_default_context(cafile=str(ca))


async def test_https_and_wss_from_the_venue_network(tmp_path: Path) -> None:
    with tls_service(tmp_path) as (base, tokens, lines):
        ca = describe(tmp_path / "data" / "tls" / "ca.pem")
        assert any(ca.sha256 in line for line in lines)  # the fingerprint to check
        connector = aiohttp.TCPConnector(ssl=trusting(tmp_path), local_addr=VENUE_PEER)
        async with aiohttp.ClientSession(connector=connector) as session:
            headers = {"Authorization": f"Bearer {tokens['operator']}"}
            async with session.post(f"{base}/api/commands", headers=headers, json={
                    "id": str(uuid.uuid4()), "type": "next_hand"}) as response:
                assert response.status == 200, await response.text()
            ws = await session.ws_connect(
                f"{base.replace('https', 'wss')}/ws/secure?token={tokens['secure']}")
            await ws.send_json({"type": "hello", "page": "overlay", "version": "x",
                                "resume": None})
            snapshot = await ws.receive_json(timeout=30)
            assert snapshot["type"] == "snapshot" and snapshot["view"]["table"]["hand_number"]
            await ws.close()
        # A client that does not trust the show's CA gets no connection at all.
        async with aiohttp.ClientSession() as stranger:
            with pytest.raises(aiohttp.ClientConnectorCertificateError):
                await stranger.get(f"{base}/api/config")


@asynccontextmanager
async def plain_service(tmp_path: Path, **server: Any) -> AsyncIterator[TestServer]:
    config = parse_config({"table": {"name": "Plain", "seats": 9},
                           "channels": {"secure": {"enabled": True}},
                           "server": {"local_networks": ["127.0.0.1/32"], **server},
                           "data_dir": str(tmp_path / "data")})
    server_ = TestServer(create_app(config), host="127.0.0.1")
    await server_.start_server()
    try:
        yield server_
    finally:
        await server_.close()


async def test_plain_text_from_the_venue_network_gets_only_public_pages(tmp_path: Path) -> None:
    async with plain_service(tmp_path) as server:
        tokens = server.app[TOKENS_KEY].tokens
        base = f"http://127.0.0.1:{server.port}"
        for peer, secret_status in ((VENUE_PEER, 403), (("127.0.0.1", 0), 200)):
            connector = aiohttp.TCPConnector(local_addr=peer)
            async with aiohttp.ClientSession(connector=connector) as session:
                for path in ("/overlay", "/api/state?channel=venue", "/api/config"):
                    async with session.get(base + path) as response:
                        assert response.status == 200, (peer, path)
                async with session.get(f"{base}/api/state?channel=secure", headers={
                        "Authorization": f"Bearer {tokens.secure}"}) as response:
                    assert response.status == secret_status
                    if secret_status == 403:
                        error = (await response.json())["error"]
                        assert error["code"] == "plaintext_refused"
                        assert "127.0.0.2" in error["message"]
                async with session.post(f"{base}/api/commands", json={
                        "id": str(uuid.uuid4()), "type": "start_clock"},
                        headers={"Authorization": f"Bearer {tokens.operator}"}) as response:
                    assert response.status == secret_status, await response.text()
                url = f"{base}/ws/operator?token={tokens.operator}"
                if secret_status == 403:
                    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                        await session.ws_connect(url)
                    assert refused.value.status == 403
                else:
                    await (await session.ws_connect(url)).close()
    async with plain_service(tmp_path / "b", allow_plaintext=True, host="0.0.0.0") as server:
        connector = aiohttp.TCPConnector(local_addr=VENUE_PEER)
        async with aiohttp.ClientSession(connector=connector) as session:
            async with session.get(f"http://127.0.0.1:{server.port}/api/state?channel=secure",
                                   headers={"Authorization":
                                            f"Bearer {server.app[TOKENS_KEY].tokens.secure}"}) as r:
                assert r.status == 200  # said so explicitly
            token = server.app[TOKENS_KEY].tokens.operator
            async with session.get(f"http://127.0.0.1:{server.port}/api/state?channel=operator",
                                   headers={"Authorization": f"Bearer {token}"}) as r:
                alerts = (await r.json())["view"]["alerts"]
        assert any(a["source"] == "security" and a["level"] == "error"
                   and "clear text" in a["message"] for a in alerts)


def test_chromium_trusts_the_show_ca_and_loads_the_pages(tmp_path: Path) -> None:
    if not CHROMIUM.exists() or shutil.which("certutil") is None:
        missing_system_package("Debian's chromium and libnss3-tools (certutil) are needed")
    from playwright.sync_api import sync_playwright

    from tests.pages.conftest import CHROMIUM_ARGS

    home = tmp_path / "home"
    nssdb = home / ".pki" / "nssdb"
    nssdb.mkdir(parents=True)
    subprocess.run(["certutil", "-N", "-d", f"sql:{nssdb}", "--empty-password"], check=True)
    with tls_service(tmp_path / "show") as (base, tokens, _):
        ca = tmp_path / "show" / "data" / "tls" / "ca.pem"
        subprocess.run(["certutil", "-A", "-d", f"sql:{nssdb}", "-n", "Feltcast show CA",
                        "-t", "C,,", "-i", str(ca)], check=True)  # trusted like a tablet's
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=CHROMIUM_ARGS,
                env={**os.environ, "HOME": str(home)})
            try:
                page = browser.new_page()
                errors: list[str] = []
                page.on("pageerror", lambda error: errors.append(str(error)))
                response = page.goto(f"{base}/operator?token={tokens['operator']}")
                assert response is not None and response.status == 200
                assert response.security_details() is not None  # a real TLS connection
                page.wait_for_function(
                    "document.documentElement.dataset.connection === 'live'", timeout=30_000)
                assert errors == []
            finally:
                browser.close()


def test_tls_init_and_show(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "overlay", "tls", "init", "--data",
                           str(tmp_path), "--name", "feltcast.local", "--name", "10.20.0.5"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    server = describe(tmp_path / "tls" / "server.pem")
    assert {"localhost", "127.0.0.1", "feltcast.local", "10.20.0.5"} <= set(server.names)
    assert server.sha256 in done.stdout
    assert oct((tmp_path / "tls" / "ca.key").stat().st_mode & 0o777) == "0o600"
    ca_before = (tmp_path / "tls" / "ca.pem").read_bytes()
    again = subprocess.run([sys.executable, "-m", "overlay", "tls", "init", "--data",
                            str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert again.returncode == 0
    assert (tmp_path / "tls" / "ca.pem").read_bytes() == ca_before  # the CA stays trusted
    shown = subprocess.run([sys.executable, "-m", "overlay", "tls", "show", "--data",
                            str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert describe(tmp_path / "tls" / "server.pem").sha256 in shown.stdout
    missing = subprocess.run([sys.executable, "-m", "overlay", "tls", "show", "--data",
                              str(tmp_path / "none")], capture_output=True, text=True)
    assert missing.returncode == 2 and "feltcast tls init" in missing.stderr
