"""``python -m bench.bench_operator_taps``: the operator console's taps per action and its tap
to painted overlay, side by side with the console before issue 20.

"Today's console" is ``static/`` at :data:`OLD_REVISION` (before issue 20: digits, Min and
Max, a card picker at the bottom of a scrolling page), taken from the repository's history
with ``git archive``; the new one is the installed ``static/``. Both run against the same,
current service (``create_app(..., static_dir=...)`` on 127.0.0.1, in this process) in
Debian's Chromium at 1180x820 with touch, and play one scripted hand each:

* **taps per action type**: each action done for real with the fewest taps that console
  offers (the keys it has), counted, and checked in the operator view (the command landed with
  the amount intended); ``scrolled`` says the operator had to scroll to reach a key;
* **tap to painted overlay** on ``secure``: from the touch on Call (or Undo) in the console (its
  ``touchstart`` event's time) to the animation frame that paints the overlay's new revision (a
  MutationObserver, then the next ``requestAnimationFrame`` callback: the frame rendered with
  the change), both stamps from one browser's clock.

Results go to ``bench/results/operator-taps-<UTC time>.json``; the exit status is 1 if a target
is missed (new console: a 2.5x open in at most 2 taps, p95 <= 50 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aiohttp import web
from playwright.sync_api import Page, sync_playwright

from bench.bench_operator_overlay import percentile
from overlay.app import STATIC_DIR, create_app
from overlay.auth import SHARED_ROLES, rotate_tokens
from overlay.config import load_config
from tests.pages.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.pages.service import Service, config_text, free_port

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
OLD_REVISION = "1eefea9"
"""The last commit before issue 20 changed the console (9095e33's parent)."""
TARGET_OPEN_TAPS = 2
TARGET_P95_MS = 50.0
WARMUP = 6

ACTIONS = ("next_hand", "hole_cards", "raise_2.5x", "call", "fold", "check", "bet_half_pot",
           "raise_to_amount", "r8_ruling", "undo", "all_in", "misdeal")
"""The scripted hand's action types, in the order it plays them."""

_PAINTED = """() => {
    window.painted = [];
    new MutationObserver(() => {
        const revision = Number(document.documentElement.dataset.revision);
        requestAnimationFrame(() => window.painted.push(
            [revision, performance.timeOrigin + performance.now()]));
    }).observe(document.documentElement, {attributes: true, attributeFilter: ['data-revision']});
}"""
_TOUCHES = """() => {
    window.touchedAt = [];
    document.addEventListener('touchstart', (event) => window.touchedAt.push(
        performance.timeOrigin + event.timeStamp), {capture: true});
}"""
_WAIT_PAINT = """(n) => new Promise((resolve) => {
    const check = () => window.painted.length > n ? resolve(window.painted[n][1])
                                                  : setTimeout(check, 2);
    check();
})"""


def old_static(into: Path) -> Path | None:
    """``static/`` at :data:`OLD_REVISION`, or None when git or that commit is not here."""
    try:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", OLD_REVISION, "static"],
                                 capture_output=True, check=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "static"


@contextmanager
def serving(root: Path, static_dir: Path) -> Iterator[Service]:
    """The service on 127.0.0.1 with ``static_dir``'s pages, its loop in a thread."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "feltcast.toml").write_text(config_text(5.0))
    config = load_config(root / "feltcast.toml")
    tokens = rotate_tokens(config.data_dir, SHARED_ROLES)
    loop = asyncio.new_event_loop()
    port = free_port()
    runner = web.AppRunner(create_app(config, tokens=tokens, static_dir=static_dir),
                           access_log=None)

    async def start() -> None:
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()

    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    asyncio.run_coroutine_threadsafe(start(), loop).result(60)
    try:
        yield Service(f"http://127.0.0.1:{port}", tokens.operator, tokens.secure,
                      root / "serve.log", os.getpid())
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(60)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(60)
        loop.close()


class Operator:
    """One console page and the taps it took per action type."""

    def __init__(self, page: Page, service: Service) -> None:
        self.page = page
        self.service = service
        self.taps: dict[str, int] = {}
        self.scrolled: dict[str, bool] = {}
        self._action = ""

    def begin(self, action: str) -> None:
        self._action = action
        self.taps[action] = 0
        self.scrolled[action] = False

    def tap(self, selector: str) -> None:
        page = self.page
        page.wait_for_selector("body:not(.busy)")
        node = page.locator(selector).first
        node.wait_for(state="visible")
        box = node.bounding_box()
        viewport = page.viewport_size
        if box is None or viewport is None or box["y"] < 0 \
                or box["y"] + box["height"] > viewport["height"]:
            self.scrolled[self._action] = True
        node.tap()
        self.taps[self._action] += 1

    def digits(self, amount: int) -> None:
        """Type ``amount`` on the keypad: its digits, a ``000`` key for each trailing three
        zeros."""
        text = str(amount)
        thousands = 0
        while text.endswith("000") and len(text) > 3:
            text, thousands = text[:-3], thousands + 1
        for digit in text:
            self.tap(f"#keypad .key[data-key='{digit}']")
        for _ in range(thousands):
            self.tap("#keypad .key[data-key='000']")

    def view(self) -> dict[str, Any]:
        return self.service.view("operator")

    def settled(self, revision: int) -> dict[str, Any]:
        """The operator view once it is past ``revision`` and the console shows it."""
        self.page.wait_for_function(
            "(r) => Number(document.documentElement.dataset.revision) > r "
            "&& !document.body.classList.contains('busy')", arg=revision)
        return self.view()


def play_hand(op: Operator, new: bool) -> None:
    """The scripted hand (see :data:`ACTIONS`), each action with that console's fewest taps."""
    service, page = op.service, op.page

    def act(action: str, do: Any, check: Any) -> None:
        op.begin(action)
        before = int(service.request("/api/state?channel=operator")["revision"])
        page.wait_for_function(  # the console shows every change before this action
            "(r) => Number(document.documentElement.dataset.revision) >= r", arg=before)
        do()
        view = op.settled(before)
        assert check(view), (action, view["table"]["actions"][-1:], view["operator"])

    def last(view: dict[str, Any]) -> dict[str, Any]:
        action: dict[str, Any] = view["table"]["actions"][-1]
        return action

    act("next_hand", lambda: op.tap("#btn-next-hand"),
        lambda v: not v["operator"]["between_hands"])
    seats = [s["seat"] for s in op.view()["seats"] if s["name"]]
    for seat, cards in zip(seats[1:], (["Js", "Ts"], ["Qd", "Qc"]), strict=True):
        service.command("deal_cards", seat=seat, cards=cards)

    def hole_cards() -> None:
        if new:
            op.tap("#btn-cards")  # the picker opens on the seat missing cards
        else:  # the picker's target starts on the board: a select, two taps on a tablet
            op.tap("#manual-target")
            page.keyboard.press("Escape")
            page.select_option("#manual-target", f"seat:{seats[0]}")
            op.taps["hole_cards"] += 1
        op.tap(".pick[data-card='Ah']")
        op.tap(".pick[data-card='Kd']")
        op.tap("#btn-manual-send")

    act("hole_cards", hole_cards, lambda v: all(
        n["target"] != "seat" for n in v["operator"]["cards_needed"]))
    legal = op.view()["operator"]["legal"]
    open_to = int(legal["call"] + legal["call"] * 1.5)  # 2.5x the big blind (to call)

    def sized(preset: str, amount: int) -> None:
        """A bet size: the new console's preset key, the old one's digits; then submit."""
        if new:
            op.tap(f".preset[data-preset='{preset}']")
        else:
            op.digits(amount)
        op.tap("#btn-amount")

    act("raise_2.5x", lambda: sized("2.5x", open_to), lambda v: last(v)["verb"] == "raise"
        and last(v)["amount"] == open_to)
    act("call", lambda: op.tap("#btn-call"), lambda v: last(v)["verb"] == "call")
    act("fold", lambda: op.tap("#btn-fold"), lambda v: last(v)["verb"] == "fold")
    service.command("deal_board", cards=["2c", "7d", "9h"])
    page.wait_for_function("() => !document.getElementById('btn-check').disabled")
    act("check", lambda: op.tap("#btn-check"), lambda v: last(v)["verb"] == "check")
    view = op.view()
    pot = sum(p["amount"] for p in view["table"]["pots"])
    half = next((p["amount"] for p in view["operator"]["legal"]["presets"]
                 if p["key"] == "half_pot"), pot // 2)

    act("bet_half_pot", lambda: sized("half_pot", half), lambda v: last(v)["verb"] == "bet"
        and last(v)["amount"] == half)
    legal = op.view()["operator"]["legal"]
    amount = legal["raise"]["min"] + 1_375  # an amount no preset offers

    def raise_to() -> None:
        op.digits(amount)
        op.tap("#btn-amount")

    act("raise_to_amount", raise_to, lambda v: last(v)["amount"] == amount)
    legal = op.view()["operator"]["legal"]
    short = legal["raise"]["min"] - 25  # a short raise: R8 completes it

    def r8() -> None:
        op.digits(short)
        op.tap("#btn-amount")
        page.wait_for_selector("#error:not([hidden])")
        op.taps["r8_ruling"] = 0  # counted from the refusal: what the ruling takes
        if page.locator("#apply-ruling").is_visible():
            op.tap("#apply-ruling")
        else:
            op.digits(legal["raise"]["min"])
            op.tap("#btn-amount")

    act("r8_ruling", r8, lambda v: last(v)["amount"] == legal["raise"]["min"])
    act("undo", lambda: op.tap("#btn-undo"), lambda v: last(v)["amount"] == amount)
    act("all_in", lambda: op.tap("#btn-all-in"), lambda v: last(v)["verb"] in (
        "all_in", "raise", "call") and v["seats"] and any(s["all_in"] for s in v["seats"]))

    def misdeal() -> None:
        op.tap("#btn-misdeal")
        op.tap("#btn-confirm-yes" if new else "#btn-misdeal")  # the old one: tap it twice

    act("misdeal", misdeal, lambda v: v["operator"]["between_hands"])


def latency(op: Operator, overlay: Page, actions: int) -> list[float]:
    """Tap Call, then Undo, ``actions`` + :data:`WARMUP` times: tap to painted overlay (ms)."""
    service, page = op.service, op.page
    service.command("next_hand")
    for seat, cards in zip([s["seat"] for s in op.view()["seats"] if s["name"]],
                           (["Ah", "Kd"], ["Js", "Ts"], ["Qd", "Qc"]), strict=True):
        service.command("deal_cards", seat=seat, cards=cards)
    overlay.wait_for_selector(".player .card.face")
    overlay.evaluate(_PAINTED)
    page.evaluate(_TOUCHES)
    samples = []
    for n in range(actions + WARMUP):
        selector = "#btn-call" if n % 2 == 0 else "#btn-undo"
        page.wait_for_selector(f"{selector}:not([disabled])")
        page.wait_for_selector("body:not(.busy)")
        seen = len(overlay.evaluate("window.painted"))
        page.locator(selector).tap()
        painted: float = overlay.evaluate(_WAIT_PAINT, seen)
        touched: float = page.evaluate("() => window.touchedAt[window.touchedAt.length - 1]")
        samples.append(painted - touched)
    return samples[WARMUP:]


def measure(static_dir: Path, root: Path, actions: int, *, new: bool) -> dict[str, Any]:
    with serving(root, static_dir) as service, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1180, "height": 820}, has_touch=True)
        page = context.new_page()
        page.goto(f"{service.base}/operator?token={service.operator}")
        page.wait_for_selector("html[data-connection=live]")
        overlay = browser.new_page(viewport={"width": 1920, "height": 1080})
        overlay.goto(f"{service.base}/overlay?channel=secure&token={service.secure}")
        overlay.wait_for_selector("html[data-connection=live]")
        op = Operator(page, service)
        play_hand(op, new)
        samples = latency(op, overlay, actions)
        browser.close()
    return {"taps": op.taps, "scrolled": op.scrolled,
            "latency_ms": {"p50": statistics.median(samples), "p95": percentile(samples, 0.95),
                           "p99": percentile(samples, 0.99), "max": max(samples),
                           "n": len(samples)}}


def run(actions: int, root: Path) -> dict[str, Any]:
    """Both consoles (the old one when the history is here), one after the other."""
    result: dict[str, Any] = {"new": measure(STATIC_DIR, root / "new", actions, new=True)}
    old = old_static(root / "old-static")
    result["old"] = (measure(old, root / "old", actions, new=False) if old is not None
                     else None)
    new_p95 = result["new"]["latency_ms"]["p95"]
    result.update(
        old_revision=OLD_REVISION, load_average=os.getloadavg(),
        ok=result["new"]["taps"]["raise_2.5x"] <= TARGET_OPEN_TAPS
        and new_p95 <= TARGET_P95_MS,
        p95_ratio_new_to_old=(new_p95 / result["old"]["latency_ms"]["p95"]
                              if result["old"] else None))
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=200,
                        help=f"measured taps for the latency ({WARMUP} more warm up)")
    args = parser.parse_args(argv)
    if not CHROMIUM.exists():
        print("Debian's chromium is needed: apt-get install chromium", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="feltcast-bench-") as tmp:
        result = run(args.actions, Path(tmp))
    result.update(target_open_taps=TARGET_OPEN_TAPS, target_p95_ms=TARGET_P95_MS,
                  python=platform.python_version(), machine=platform.machine(),
                  cpus=os.cpu_count())
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    (RESULTS / f"operator-taps-{stamp}.json").write_text(json.dumps(result, indent=2))
    new, old = result["new"], result["old"]
    if old is None:
        print(f"the console before issue 20 ({OLD_REVISION}) is not in this checkout's "
              "history: the new console alone")
    print(f"{'action':<16} {'new':>5} {'before':>7}")
    for action in ACTIONS:
        before = (f"{old['taps'][action]}{' +scroll' if old['scrolled'][action] else ''}"
                  if old else "-")
        now = f"{new['taps'][action]}{' +scroll' if new['scrolled'][action] else ''}"
        print(f"{action:<16} {now:>5} {before:>7}")
    for name, part in (("new", new), ("before", old)):
        if part:
            m = part["latency_ms"]
            print(f"tap -> painted secure overlay, {name}: p50 {m['p50']:.1f} ms, "
                  f"p95 {m['p95']:.1f} ms, p99 {m['p99']:.1f} ms over {m['n']} taps")
    print(f"load average {result['load_average'][0]:.1f}; targets (new): 2.5x open <= "
          f"{TARGET_OPEN_TAPS} taps, p95 <= {TARGET_P95_MS:.0f} ms: "
          f"{'ok' if result['ok'] else 'MISSED'}")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
