"""The console's Devices panel against the real service (``feltcast serve`` as a subprocess,
Debian's Chromium): a device token made by clicks opens what its role allows and nothing more,
a refusal shows the server's own message, and a revocation by the two-step button closes the
device's open socket (4003) and refuses its token from then on (docs/show-day.md, "A token per
device")."""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.pages.conftest import HTTP_REJECTED, Probe
from tests.pages.service import Service, running_service

WAIT_S = 15.0
# Whether a string is anywhere on the page: in its text or in the value of an input.
ON_PAGE = """(secret) => document.documentElement.textContent.includes(secret)
    || [...document.querySelectorAll('input')].some((input) => input.value.includes(secret))"""


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    with running_service(tmp_path_factory.mktemp("serve"), 2.0) as running:
        yield running


class HeldSocket:
    """A page's websocket held open in a thread of its own (Playwright's sync API owns this
    thread's event loop): the first message it got, or the status that refused it, and the
    close code once the server closes it."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.first: dict[str, Any] | None = None
        self.refused: int | None = None
        self.close_code: int | None = None
        self.opened = threading.Event()
        self.closed = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)
        self._thread.start()

    async def _run(self) -> None:
        try:
            async with aiohttp.ClientSession() as session:
                try:
                    ws = await session.ws_connect(self.url)
                except aiohttp.WSServerHandshakeError as error:
                    self.refused = error.status
                    return
                await ws.send_json({"type": "hello", "page": "overlay", "version": "test",
                                    "resume": None})
                async for message in ws:
                    if message.type is aiohttp.WSMsgType.TEXT and self.first is None:
                        self.first = json.loads(message.data)
                        self.opened.set()
                self.close_code = ws.close_code
        finally:
            self.opened.set()
            self.closed.set()

    def join(self) -> None:
        self._thread.join(timeout=WAIT_S)


def status_of(service: Service, path: str, token: str) -> int:
    """The HTTP status of GET ``path`` with ``token`` in the Authorization header."""
    request = urllib.request.Request(f"{service.base}{path}",
                                     headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status: int = response.status
            return status
    except urllib.error.HTTPError as error:
        return error.code


def server_error(service: Service, body: dict[str, str]) -> str:
    """The server's own message refusing ``POST /api/devices`` with ``body``."""
    with pytest.raises(urllib.error.HTTPError) as refused:
        service.request("/api/devices", body)
    assert refused.value.code == 422
    message: str = json.loads(refused.value.read())["error"]["message"]
    return message


def listed(service: Service) -> dict[str, tuple[str, bool]]:
    """The server's list: name -> (role, live)."""
    return {d["name"]: (d["role"], d["revoked"] is None)
            for d in service.request("/api/devices")["devices"]}


def watch(browser: Browser, probe: Probe, service: Service) -> Page:
    context = browser.new_context(viewport={"width": 1366, "height": 1024})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=service.base)
    page = context.new_page()
    page.on("console", lambda m: probe.console_errors.append(m.text)
            if m.type == "error" else None)
    page.on("pageerror", lambda error: probe.page_errors.append(str(error)))
    page.on("request", lambda request: probe.requests.append(request.url))
    return page


def make_device(console: Page, name: str, role: str) -> str:
    """Make a device in the panel; the token it shows."""
    console.fill("#device-name", name)
    console.select_option("#device-role", role)
    console.click("#btn-device-create")
    box = console.locator("#device-token")
    expect(box).to_be_visible()
    expect(console.locator("#device-token-title")).to_have_text(f"Token for {name} ({role})")
    token: str = console.locator("[data-field=token]").input_value()
    assert len(token) >= 24
    expect(console.locator(f"#device-list li[data-device='{name}']")).to_have_attribute(
        "data-state", "live")
    return token


def test_a_device_made_in_the_console_opens_its_role_until_revoked_there(
        browser: Browser, service: Service, artifacts: Path) -> None:
    probe = Probe()
    console = watch(browser, probe, service)
    try:
        console.goto(f"{service.base}/operator?token={service.operator}")
        expect(console.locator("html")).to_have_attribute("data-connection", "live")
        panel = console.locator("#devices")
        expect(panel).to_be_visible()
        expect(console.locator("#devices-body")).to_be_hidden()  # closed until asked for
        console.click("#btn-devices-toggle")
        expect(console.locator("#btn-devices-toggle")).to_have_attribute("aria-expanded",
                                                                         "true")
        expect(console.locator("#device-empty")).to_be_visible()
        # The role select is filled from the server's roles.
        roles = service.request("/api/devices")["roles"]
        assert {"operator", "secure", "obs"} <= set(roles)
        assert console.locator("#device-role option").evaluate_all(
            "options => options.map(o => o.value)") == roles

        # A secure device, made by clicks: its token is shown once, with its page URL.
        token = make_device(console, "booth 2", "secure")
        overlay_url = f"{service.base}/overlay?channel=secure&token={token}"
        expect(console.locator("[data-field='url-0']")).to_have_value(overlay_url)
        expect(console.locator(".device-token-note")).to_contain_text("Shown this once")
        expect(console.locator("#device-name")).to_have_value("")
        console.click("[data-copy=token]")
        expect(console.locator("[data-copy=token]")).to_have_text("Copied")
        assert console.evaluate("navigator.clipboard.readText()") == token
        row = console.locator("#device-list li[data-device='booth 2']")
        expect(row.locator(".device-role")).to_have_text("secure")
        expect(row.locator(".device-state")).to_have_text("live")
        expect(row.locator(".device-created")).to_contain_text("made 20")
        assert listed(service) == {"booth 2": ("secure", True)}

        # The token opens what secure allows: the secure channel, in a page and a socket...
        overlay = console.context.new_page()
        overlay.on("pageerror", lambda error: probe.page_errors.append(str(error)))
        overlay.goto(overlay_url)
        expect(overlay.locator("html")).to_have_attribute("data-connection", "live")
        overlay.close()  # before the revocation: a refused page retries (and is throttled)
        held = HeldSocket(f"{service.base.replace('http', 'ws', 1)}/ws/secure?token={token}")
        assert held.opened.wait(WAIT_S)
        assert held.refused is None and held.first is not None
        assert held.first["type"] == "snapshot" and held.first["channel"] == "secure"
        # ... and nothing an operator may: neither the device list nor the operator channel.
        assert status_of(service, "/api/devices", token) == 401
        assert status_of(service, "/api/state?channel=operator", token) == 403

        # An operator device: its token is an operator's, its URL the console's.
        spare = make_device(console, "tablet 9", "operator")
        expect(console.locator("[data-field='url-0']")).to_have_value(
            f"{service.base}/operator?token={spare}")
        assert status_of(service, "/api/devices", spare) == 200

        # A refusal shows the server's message in the panel; what was typed stays.
        console.fill("#device-name", "booth 2")
        console.select_option("#device-role", "obs")
        console.click("#btn-device-create")
        duplicate = server_error(service, {"name": "booth 2", "role": "obs"})
        expect(console.locator("#device-message")).to_have_text(duplicate)
        expect(console.locator("#device-message")).to_have_class("device-message bad")
        expect(console.locator("#device-name")).to_have_value("booth 2")
        expect(console.locator("#device-role")).to_have_value("obs")
        console.fill("#device-name", "booth/3")
        console.click("#btn-device-create")
        bad_name = server_error(service, {"name": "booth/3", "role": "obs"})
        expect(console.locator("#device-message")).to_have_text(bad_name)
        expect(console.locator("#device-name")).to_have_value("booth/3")
        # The rest of the console is untouched: still live, its banner says the same.
        expect(console.locator("html")).to_have_attribute("data-connection", "live")
        expect(console.locator("#error-message")).to_have_text(bad_name)
        console.click("#dismiss-error")
        assert set(listed(service)) == {"booth 2", "tablet 9"}

        # Done: the token leaves the page for good.
        console.click("#btn-device-token-done")
        expect(console.locator("#device-token")).to_be_hidden()
        for secret in (token, spare):
            assert not console.evaluate(ON_PAGE, secret)

        # Revoking takes two taps; one left alone disarms itself and sends nothing.
        spare_revoke = console.locator(
            "#device-list li[data-device='tablet 9'] [data-action=revoke]")
        spare_revoke.click()
        expect(spare_revoke).to_have_text("Really revoke tablet 9?")
        expect(spare_revoke).to_have_text("Revoke", timeout=8000)
        assert listed(service)["tablet 9"] == ("operator", True)

        revoke = row.locator("[data-action=revoke]")
        revoke.click()
        expect(revoke).to_have_text("Really revoke booth 2?")
        assert not held.closed.is_set() and listed(service)["booth 2"] == ("secure", True)
        console.screenshot(path=str(artifacts / "console-devices-armed.png"), full_page=True)
        revoke.click()
        expect(row).to_have_attribute("data-state", "revoked")
        expect(row.locator(".device-state")).to_contain_text("revoked")
        expect(revoke).to_be_hidden()
        expect(console.locator("#device-message")).to_contain_text("booth 2 is revoked")
        expect(console.locator("#devices-summary")).to_have_text("1 live · 1 revoked")
        assert held.closed.wait(WAIT_S)
        held.join()
        assert held.close_code == 4003
        assert listed(service) == {"booth 2": ("secure", False), "tablet 9": ("operator", True)}
        again = HeldSocket(f"{service.base.replace('http', 'ws', 1)}/ws/secure?token={token}")
        assert again.closed.wait(WAIT_S)
        assert again.refused == 403
        assert status_of(service, "/api/state?channel=secure", token) == 403
        assert status_of(service, "/api/devices", spare) == 200  # the other one lives on
        console.screenshot(path=str(artifacts / "console-devices.png"), full_page=True)
    finally:
        console.context.close()
    assert probe.page_errors == []
    # The only console errors: Chromium's lines for the two refusals (422) asked for.
    assert len(probe.console_errors) == 2, probe.console_errors
    assert all(text.startswith(HTTP_REJECTED) and "422" in text
               for text in probe.console_errors), probe.console_errors
    assert probe.foreign_requests() == []
