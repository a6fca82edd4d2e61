"""Nothing broken on air (issue 19): every page through a whole demo tournament, in Debian's
Chromium, with its rendered text scanned at every change.

The demo plays with a security delay longer than its first hand, so the delayed pages spend
their first seconds before the delay has passed; then every street, showdowns, bust-outs, level
changes and a break; then the service is stopped and started again on the same data and port,
and the pages reconnect on their own. Every page, on ``delayed`` and on ``venue``, watches its
own text (a MutationObserver): it must never show "null", "undefined", "NaN",
"[object Object]" or a label without its value.
"""

from __future__ import annotations

import re
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.pages.conftest import Probe, watch
from tests.pages.service import free_port, start_demo, stop_demo

PAGES = ("overlay", "commentary", "leaderboard", "lowerthird?seat=7", "elimination", "payouts",
         "clock", "ticker", "versus")
CHANNELS = ("delayed", "venue")
SPEED = 48
"""The demo's pace: three levels and a break in about a minute."""
DELAY = 6.0
"""Longer than the demo's first hand: the delayed pages start before anything is released."""

# Installed in each page: scans the rendered text after every change of the DOM.
SCAN = r"""() => {
  window.onAir = {scans: 0, problems: []};
  const BAD = ["null", "undefined", "NaN", "[object Object]", "Infinity"];
  // A label without its value, as these pages would show one: blinds with no figures (a
  // lone "/"), "Level" or "as of" with nothing after it, the commentary's "Pot" alone, "()".
  const EMPTY = [/^\s*\/\s*$/m, /\bLevel *(\/|$)/m, /\bas of *$/im, /^Pot *$/m, /\( *\)/];
  let queued = false;
  const scan = () => {
    queued = false;
    window.onAir.scans += 1;
    const text = document.body ? document.body.innerText : "";
    const found = BAD.filter((bad) => text.includes(bad))
      .concat(EMPTY.filter((pattern) => pattern.test(text)).map(String));
    for (const what of found) {
      if (window.onAir.problems.length < 20) {
        window.onAir.problems.push({what, at: Date.now(), text: text.slice(0, 400)});
      }
    }
  };
  new MutationObserver(() => {
    if (!queued) { queued = true; queueMicrotask(scan); }
  }).observe(document.documentElement, {childList: true, subtree: true, characterData: true,
                                         attributes: true, attributeFilter: ["hidden", "class"]});
  scan();
}"""


def open_page(context: BrowserContext, url: str, probe: Probe) -> Page:
    page = watch(context.new_page(), probe)
    page.goto(url)
    page.evaluate(SCAN)
    return page


@pytest.mark.timeout(480)  # a whole demo tournament and a restart, fourteen pages watching
def test_no_page_ever_shows_a_broken_value(browser: Browser, tmp_path: Path) -> None:
    probe = Probe(allow_websocket_errors=True)  # the restart: sockets refused for a moment
    port = free_port()
    data = tmp_path / "demo"
    demo = start_demo(data, speed=SPEED, delay=DELAY, seed=7, port=port)
    pages: dict[str, Page] = {}
    # One context for all (each page its own tab), at 1280x720 to spare the machine's paint.
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        demo.until(r"^The delayed pages show the table", timeout=120)
        base = f"http://127.0.0.1:{port}"
        for channel in CHANNELS:
            for name in PAGES:
                joiner = "&" if "?" in name else "?"
                pages[f"{name} on {channel}"] = open_page(
                    context, f"{base}/{name}{joiner}channel={channel}", probe)
        # Streets, showdowns, bust-outs, level changes and the break (after three levels).
        demo.until(r"is out in", timeout=300)
        demo.until(r"Break: play resumes", timeout=300)
        demo.until(r"^hand \d+: ", timeout=300)
        # The service goes away and comes back on the same data; the pages reconnect.
        stop_demo(demo, signal.SIGINT)
        demo = start_demo(data, speed=SPEED, delay=DELAY, seed=7, port=port)
        demo.until(r"^The delayed pages show the table", timeout=120)
        for page in pages.values():
            expect(page.locator("html")).to_have_attribute("data-connection", "live",
                                                           timeout=60000)
        demo.until(r"^hand \d+: ", timeout=300)
        demo.until(r"^hand \d+: ", timeout=300)
        # One display name per player on every graphic: the overlay's seats are named as
        # the chip counts name them (on the same channel, in play).
        # Two pages are two sockets: one may draw a patch (a new hand, a player's identity)
        # a moment before the other, so the names are compared until they agree (30 s).
        for channel in CHANNELS:
            overlay = pages[f"overlay on {channel}"]
            board = pages[f"leaderboard on {channel}"]
            deadline = time.monotonic() + 30
            while True:
                # (a name is fitted to its box: its full form is the box's tooltip)
                seated = set(overlay.locator(".player .name").evaluate_all(
                    "nodes => nodes.map((n) => n.title || n.textContent)"))
                listed = set(board.locator(".name").all_inner_texts())
                if (seated and seated <= listed) or time.monotonic() > deadline:
                    break
                overlay.wait_for_timeout(250)
            assert seated and seated <= listed, (channel, seated, listed)
        found: dict[str, Any] = {}
        for label, page in pages.items():
            seen = page.evaluate("window.onAir")
            assert seen["scans"] >= 1, label  # the scanner ran (a quiet graphic changes rarely)
            if seen["problems"]:
                found[label] = seen["problems"][:3]
        assert found == {}, "\n".join(f"{label}: {p['what']} in {p['text']!r}"
                                       for label, problems in found.items() for p in problems)
    finally:
        context.close()
        stop_demo(demo, signal.SIGINT)
    assert probe.page_errors == []
    assert [e for e in probe.unexpected_console_errors()
            if not re.search(r"Failed to load resource", e)] == []
    assert probe.foreign_requests() == []
