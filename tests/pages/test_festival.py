"""A festival worker's pages in Debian's Chromium, against real processes: a redis-server, two
tables' ``feltcast serve`` publishing to it, one ``feltcast worker``. The front page shows
every table's state and the field's chip counts and follows the tables as they play; a
table's overlay is served by the worker, reading its channel beside the page."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import ExitStack

import pytest
from playwright.sync_api import Browser, expect

from tests.overlay.fanout.test_relay import start_worker
from tests.pages.conftest import Probe, watch
from tests.pages.service import Service, free_port, running_service
from tests.redis_server import RedisServer


@pytest.fixture(scope="module")
def festival(tmp_path_factory: pytest.TempPathFactory,
             ) -> Iterator[tuple[str, dict[str, Service]]]:
    root = tmp_path_factory.mktemp("festival")
    with ExitStack() as stack:
        redis = stack.enter_context(RedisServer())
        tables = {key: stack.enter_context(running_service(
            root / key, 2.0, extra_config=f'\n[fanout]\nurl = "{redis.url}"\n'
                                          f'table = "{key}"\n'))
            for key in ("table-1", "table-2")}
        port = free_port()
        worker: subprocess.Popen[bytes] = start_worker(redis.url, port, root / "worker.log")
        stack.callback(worker.wait, 30)
        stack.callback(worker.terminate)
        yield f"http://127.0.0.1:{port}", tables


def test_the_front_page_follows_every_table_and_the_field(
        browser: Browser, festival: tuple[str, dict[str, Service]]) -> None:
    base, tables = festival
    probe = Probe()
    page = watch(browser.new_page(viewport={"width": 390, "height": 844}), probe)  # a phone
    page.goto(f"{base}/")
    cards = page.locator("#tables .table")
    expect(cards).to_have_count(2)
    expect(page.locator("#summary")).to_have_text(
        "2 tables · 6 players · 2,460,000 chips in play")
    first = cards.nth(0)
    expect(first.locator(".name")).to_have_text("Main Event Final Table")
    expect(first.locator(".status")).to_have_text("live")
    expect(first.locator(".player .player-name")).to_have_text(
        ["Ashton Griffin", "Rast", "Yuki Tanaka"])
    expect(first.locator(".player .stack")).to_have_text(["500,000", "420,000", "310,000"])
    # The field: every player of both tables by stack, with his table.
    expect(page.locator("#field .row .stack")).to_have_text(
        ["500,000", "500,000", "420,000", "420,000", "310,000", "310,000"])
    # A hand starts at table 2: its card follows live (the venue channel), the other stays.
    tables["table-2"].command("next_hand")
    second = cards.nth(1)
    expect(second.locator(".hand")).to_contain_text("Hand 1")
    expect(first.locator(".hand")).not_to_contain_text("Hand 1")
    expect(second.locator(".name")).to_have_attribute(
        "href", "/t/table-2/overlay?channel=delayed")
    assert probe.page_errors == [] and probe.unexpected_console_errors() == []
    assert probe.foreign_requests() == []
    page.close()


def test_a_tables_overlay_is_served_by_the_worker(
        browser: Browser, festival: tuple[str, dict[str, Service]]) -> None:
    base, _ = festival
    probe = Probe()
    page = watch(browser.new_page(viewport={"width": 1920, "height": 1080}), probe)
    sockets: list[str] = []
    page.on("websocket", lambda socket: sockets.append(socket.url))
    page.goto(f"{base}/t/table-1/overlay?channel=delayed")
    expect(page.locator(".player .name")).to_have_text(
        ["Ashton Griffin", "Rast", "Yuki Tanaka"])
    assert sockets == [f"{base.replace('http', 'ws')}/t/table-1/ws/delayed?page=overlay"]
    assert probe.page_errors == [] and probe.unexpected_console_errors() == []
    page.close()
