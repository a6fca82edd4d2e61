"""Fixtures of the page tests: one harness server and one Chromium per test module.

Chromium is Debian's (/usr/bin/chromium), driven by Playwright's Python package; Playwright's
own browser download is never used.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Frame, Page, Request, sync_playwright

from tests.pages.harness import Harness
from tests.system_packages import missing_system_package

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",  # the suite runs as root
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
]
# What Chromium itself logs (not the page): a socket or a request it could not open while the
# harness was down, and a command the server rejected with a 4xx. Tests that provoke them
# allow them.
WEBSOCKET_REFUSED = "WebSocket connection to"
CONNECTION_REFUSED = "net::ERR_CONNECTION_REFUSED"
HTTP_REJECTED = "Failed to load resource: the server responded with a status of 4"


@dataclass
class Probe:
    """Everything a page did that a test may want to assert on."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    allow_websocket_errors: bool = False
    allow_rejections: bool = False

    def unexpected_console_errors(self) -> list[str]:
        return [text for text in self.console_errors
                if not (self.allow_websocket_errors
                        and (WEBSOCKET_REFUSED in text or CONNECTION_REFUSED in text))
                and not (self.allow_rejections and text.startswith(HTTP_REJECTED))]

    def foreign_requests(self) -> list[str]:
        """Every request that would leave 127.0.0.1 (data: and blob: URLs never leave)."""
        foreign = []
        for url in self.requests:
            parts = urlsplit(url)
            if parts.scheme in ("data", "blob", "about"):
                continue
            if parts.hostname != "127.0.0.1":
                foreign.append(url)
        return foreign


def watch(page: Page, probe: Probe) -> Page:
    """Record what ``page`` does into ``probe``: console errors, page errors, requests."""
    page.on("console", lambda m: probe.console_errors.append(m.text)
            if m.type == "error" else None)
    page.on("pageerror", lambda error: probe.page_errors.append(str(error)))
    page.on("request", lambda r: probe.requests.append(r.url))
    return page


# Resolves once every finite animation and transition of the page has finished (entrances,
# slides); a crawl moving behind its clip ([data-clip]) and endless ones (a pulse) are not
# waited for. Asked twice: an animation may start from a render that another one triggered.
_SETTLED = """async () => {
  for (let round = 0; round < 2; round += 1) {
    await new Promise((resolve) => requestAnimationFrame(() => resolve()));
    const running = document.getAnimations().filter((animation) => {
      const effect = animation.effect;
      const target = effect && effect.target;
      if (target && target.closest && target.closest("[data-clip]")) return false;
      return effect && effect.getComputedTiming().endTime !== Infinity;
    });
    await Promise.all(running.map((animation) => animation.finished.catch(() => null)));
  }
}"""


def settle(page: Page | Frame) -> None:
    """Wait until ``page``'s entrances and other finite animations have finished (an event,
    not a time)."""
    page.evaluate(_SETTLED)


def _skip_reason() -> str | None:
    if not CHROMIUM.exists():
        return "Debian's chromium is not installed: `make system-deps` installs it"
    return None


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    server = Harness()
    server.start()
    yield server
    server.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One Chromium per module. Not wider: Playwright's sync API keeps an event loop running
    while it is open, and a module elsewhere that imports this fixture (the video look test)
    would keep it open through every asyncio test after it."""
    reason = _skip_reason()
    if reason:
        missing_system_package(reason)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def probe() -> Probe:
    return Probe()


@pytest.fixture
def page(browser: Browser, harness: Harness, probe: Probe) -> Iterator[Page]:
    """A fresh 1920x1080 page; after the test: no page errors, no console errors, no request
    that leaves 127.0.0.1."""
    harness.reset()
    context = browser.new_context(viewport={"width": 1920, "height": 1080},
                                  device_scale_factor=1)
    tab = context.new_page()

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            probe.console_errors.append(message.text)

    def on_request(request: Request) -> None:
        probe.requests.append(request.url)

    tab.on("console", on_console)
    tab.on("pageerror", lambda error: probe.page_errors.append(str(error)))
    tab.on("request", on_request)
    yield tab
    context.close()
    assert probe.page_errors == []
    assert probe.unexpected_console_errors() == []
    assert probe.foreign_requests() == []


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
