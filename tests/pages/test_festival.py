"""A festival worker's pages in Debian's Chromium, against real processes: a redis-server, two
tables' ``feltcast serve`` publishing to it, one ``feltcast worker``. The front page shows
every table's state and the field's chip counts and follows the tables as they play; a
table's overlay is served by the worker, reading its channel beside the page, in the table's
look, which follows the table's producer live. The demo festival's director publishes its
standings: the worker's front page and a table's payouts show the festival's places and
prizes."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from tests.overlay.fanout.test_relay import start_worker
from tests.overlay.test_cli_start import Running
from tests.pages.conftest import Probe, watch
from tests.pages.service import Service, free_port, running_service
from tests.pages.test_themes import put
from tests.pg import PostgresServer
from tests.redis_server import RedisServer

ROOT = Path(__file__).resolve().parents[2]


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


def test_a_tables_look_reaches_its_pages_on_the_worker_live(
        browser: Browser, festival: tuple[str, dict[str, Service]]) -> None:
    """The table's producer changes the look: a page the worker serves follows without a
    reload (the table's theme stylesheet, relayed), and a page opened afterwards has it at
    its first paint; the other table's pages keep theirs."""
    base, tables = festival
    probe = Probe()
    page = watch(browser.new_page(viewport={"width": 1920, "height": 1080}), probe)
    page.goto(f"{base}/t/table-1/leaderboard?channel=delayed")
    root = page.locator("html")
    expect(root).to_have_attribute("data-theme", "dark")
    assert root.get_attribute("data-standings") is None  # no director publishes here
    expect(root).to_have_attribute("data-look", _look(tables["table-1"]))
    page.evaluate("window.__sameDocument = true")
    put(tables["table-1"].base, tables["table-1"].operator, {"theme": "classic"})
    expect(root).to_have_attribute("data-theme", "classic")
    expect(root).to_have_attribute("data-look", _look(tables["table-1"]))
    link = page.locator("#feltcast-theme")
    expect(link).to_have_attribute("href", _starts("/t/table-1/graphics/theme.css?v="))
    accent = page.evaluate("getComputedStyle(document.documentElement)"
                           ".getPropertyValue('--accent').trim()")
    assert accent == "#b00d28"  # static/themes/classic/theme.toml
    assert page.evaluate("window.__sameDocument") is True  # no reload
    with urllib.request.urlopen(f"{base}/t/table-1/payouts", timeout=10) as response:
        assert 'data-theme="classic"' in response.read().decode()
    with urllib.request.urlopen(f"{base}/t/table-2/payouts", timeout=10) as response:
        assert 'data-theme="dark"' in response.read().decode()
    assert probe.page_errors == [] and probe.unexpected_console_errors() == []
    assert probe.foreign_requests() == []
    page.close()


def test_a_tables_view_is_drawn_with_the_festivals_places(
        browser: Browser, festival: tuple[str, dict[str, Service]]) -> None:
    """``withStandings`` (static/js/standings.js): a bust at the table carries its festival
    place and prize once the director ranked it, and none before; the payouts and the
    players left are the festival's."""
    base, _ = festival
    page = browser.new_page()
    page.goto(f"{base}/api/tables")  # the worker's origin, no page of its own to load
    drawn = page.evaluate("""async () => {
        const { withStandings } = await import('/static/js/standings.js');
        const view = { tournament: { field: { remaining: 2, entrants: 3 },
          payouts: { currency: "EUR", places: [] },
          eliminations: [{ name: "Ana Souza", table_name: "Ana", place: 3, prize: 10 },
                         { name: "Ben", table_name: "Ben", place: 2, prize: 20 },
                         { name: "Cy", table_name: "constructor", place: 1, prize: 30 }] } };
        const festival = { name: "Open", entrants: 27, remaining: 11, hand_for_hand: true,
          finishes: { Ana: { place: 12, prize: 0, hand_id: 40, tied: 1 },
                      "Ana Souza": { place: 5, prize: 0, hand_id: 41, tied: 1 } },
          payouts: { "2": { prize: 300, player: null }, "1": { prize: 500, player: null } } };
        return [withStandings(view, festival), withStandings(view, null) === view];
    }""")
    merged, unchanged = drawn
    tournament = merged["tournament"]
    # Matched by the table's name of the player (Ana, whose identity names her Ana Souza),
    # never by his identity's name; Ben is not ranked by the director yet; a player's name
    # that is a property of every object ranks nothing.
    assert [(e["name"], e["place"], e["prize"]) for e in tournament["eliminations"]] == [
        ("Ana Souza", 12, None), ("Ben", None, None), ("Cy", None, None)]
    assert tournament["field"] == {"remaining": 11, "entrants": 27}
    assert tournament["payouts"] == {
        "prize_pool": 800, "currency": "EUR", "paid": 2, "remaining": 11,
        "places": [{"place": 1, "prize": 500, "name": None, "jump": 200},
                   {"place": 2, "prize": 300, "name": None, "jump": 300}]}
    assert unchanged is True
    page.close()


def _look(service: Service) -> str:
    look: str = service.request("/api/graphics")["on_air"]["look"]
    return look


def _starts(prefix: str) -> re.Pattern[str]:
    return re.compile("^" + re.escape(prefix))


def test_the_directors_view_follows_the_festival(browser: Browser, tmp_path: Path) -> None:
    """The director's page of ``feltcast demo --festival`` (real processes: its PostgreSQL,
    Redis, director, three tables, worker) followed down to the winner: the tables with
    their players, the moves the rules made, the places and the prizes; the director's
    orders: hand-for-hand started and stopped by hand, a player moved (done at once or
    ordered for after his table's hand, then listed), and refused once one table is left."""
    demo = Running(subprocess.Popen(
        [sys.executable, "-m", "overlay", "demo", "--festival", "--port", "0", "--speed",
         "1000", "--seed", "5", "--delay", "1", "--data", str(tmp_path)],
        cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
    probe = Probe(allow_rejections=True)  # the refused orders (409)
    try:
        worker = demo.until(r"the festival \(every table, the field\): (http://\S+/)")
        worker = worker.split("the field): ")[1].split()[0]
        line = demo.until(r"the director: (http://\S+/) ")
        director = line.split("the director: ")[1].split()[0]
        line = demo.until(r"the director's orders: (http://\S+)")
        orders = line.split("the director's orders: ")[1].split()[0]
        page = watch(browser.new_page(viewport={"width": 1280, "height": 900}), probe)
        page.goto(orders)  # the token read from the address, which then loses it
        expect(page.locator("#summary")).to_contain_text("players left · ")
        expect(page.locator("#tables .table").first).to_be_visible()
        assert "token" not in page.url
        # The director starts hand-for-hand by hand (27 players left), then stops it.
        toggle, answer = page.locator("#hand-for-hand-toggle"), page.locator("#answer")
        expect(toggle).to_have_text("Start hand-for-hand")
        toggle.click()
        expect(answer).to_have_text("Done: hand-for-hand on.")
        expect(page.locator("#hand-for-hand")).to_be_visible()
        expect(toggle).to_have_text("Stop hand-for-hand")
        toggle.click()
        expect(answer).to_have_text("Done: hand-for-hand off.")
        expect(page.locator("#hand-for-hand")).to_be_hidden()
        # The director moves a player, once the tables allow it (a bust or two in): done at
        # once between hands, or ordered for after his table's hand (as long as that hand
        # takes: the demo's pace on a busy machine), and then listed. The answer to the
        # first move sent is lost on the way back (the venue's network): sent again, the
        # order keeps its id and gets the first answer, never "already moved".
        sent: list[dict[str, Any]] = []

        def lose_the_first_answer(route: Route) -> None:
            sent.append(json.loads(route.request.post_data or "{}"))
            response = route.fetch()  # the director's service does the order ...
            if len(sent) == 1:
                route.abort("connectionreset")  # ... and its answer never arrives
            else:
                route.fulfill(response=response)

        page.route("**/api/festival/move", lose_the_first_answer)
        player = order_a_move(page)
        page.unroute("**/api/festival/move")
        assert len(sent) >= 2 and sent[1] == sent[0], sent
        moved = page.locator("#moves .row").filter(has_text=player).filter(
            has_text="director")
        expect(moved.or_(page.locator("#lapsed .row").filter(has_text=player)).first
               ).to_be_visible(timeout=120_000)
        demo.until("the festival is over", timeout=300)
        expect(page.locator("#summary")).to_have_text(
            "1 player left · 1 table · 540,000 chips in play", timeout=30_000)
        expect(page.locator("#tables .table .name")).to_have_text(["Final table"])
        expect(page.locator("#tables .table .player")).to_have_count(1)
        expect(page.locator("#places .row")).to_have_count(27)
        expect(page.locator("#places .row").first).to_contain_text("1st")
        expect(page.locator("#places .row").first.locator(".stack")).to_have_text("60,000")
        expect(page.locator("#moves .row").first).to_contain_text("final table")
        expect(page.locator("#hand-for-hand")).to_be_hidden()
        # One table left: the director's orders are refused, with the reason.
        toggle.click()
        expect(answer).to_have_text("Refused: one table is left: hand-for-hand is between "
                                    "tables (R24)")
        expect(answer).to_have_attribute("data-state", "refused")
        page.locator("#break").click()
        expect(answer).to_have_text("Refused: one table is left: nobody breaks a table")
        winner = page.locator("#places .row").first.locator(".player-name").inner_text()
        page.close()
        # The worker's pages, with the festival's places and prizes (the director's).
        front = watch(browser.new_page(viewport={"width": 390, "height": 844}), probe)
        front.goto(worker)
        payouts = watch(browser.new_page(viewport={"width": 1920, "height": 1080}), probe)
        payouts.goto(f"{worker}t/table-1/payouts?channel=delayed")
        expect(front.locator("#places .row")).to_have_count(27, timeout=30_000)
        expect(front.locator("#places .row").first).to_contain_text(f"1st{winner}60,000")
        with urllib.request.urlopen(f"{director}api/festival", timeout=10) as response:
            finishes = json.loads(response.read())["finishes"]
        places = sorted(str(finish["place"]) for finish in finishes)  # ties share a place
        assert sorted(row.get_attribute("data-place") or "" for row in
                      front.locator("#places .row").all()) == places
        # The final table's payouts graphic: the festival's paid places and players (a
        # table's own view would rank only the busts of its own players).
        rows = payouts.locator("#places .place-row")
        expect(rows).to_have_count(9)
        expect(rows.first.locator(".who")).to_have_text(winner, timeout=30_000)
        expect(rows.first.locator(".prize")).to_have_text("60,000")
        expect(rows.last.locator(".place")).to_have_text("9th")
        expect(payouts.locator("#remaining")).to_have_text("1 / 27")
        front.close()
        payouts.close()
        assert demo.stop(signal.SIGINT) == 0
    finally:
        demo.close()
    assert probe.page_errors == []
    assert [e for e in probe.unexpected_console_errors()  # the answer lost on purpose
            if "net::ERR_CONNECTION_RESET" not in e] == []
    assert probe.foreign_requests() == []


def test_the_director_withdraws_a_waiting_order_from_his_page(
        browser: Browser, tmp_path: Path, pg_server: PostgresServer) -> None:
    """A ``feltcast festival serve`` process; a table deals a hand and the director orders
    one of its players to another table (it waits for the hand): on the director's page
    the order is listed with a Withdraw button; pressed, the order is gone, the answer says
    so, and when the table reports its hand the player has stayed."""
    token = "director-token-0123456789"
    players = ", ".join(f'"Player {n:02d}"' for n in range(1, 26))
    config = tmp_path / "festival.toml"
    config.write_text(f"""[festival]
name = "Withdraw Festival"
tables = ["table-1", "table-2", "table-3"]
players = [{players}]
stack = 10000
seed = 7
token = "{token}"

[database]
url = "{pg_server.create_database()}"
""")
    director = Running(subprocess.Popen(
        [sys.executable, "-m", "overlay", "festival", "serve", "--config", str(config),
         "--data", str(tmp_path / "data"), "--port", "0"],
        cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
    probe = Probe()
    try:
        line = director.until(r"Feltcast festival director of .* on (http://\S+) ")
        base = line.split(" on ")[1].split()[0]

        def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
            request = urllib.request.Request(
                f"{base}{path}", data=json.dumps(body).encode(), method="POST",
                headers={"Authorization": f"Bearer {token}",
                         "Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=30) as response:
                answer: dict[str, Any] = json.loads(response.read())
                return answer

        with urllib.request.urlopen(f"{base}/api/festival", timeout=30) as response:
            tables = json.loads(response.read())["tables"]
        long = next(t["name"] for t in tables if len(t["seats"]) == 9)
        short = next(t["name"] for t in tables if len(t["seats"]) == 8)
        dealt = post("/api/festival/next_hand", {"id": f"{long}:hand:1", "table": long,
                                                 "table_hand": 1, "stacks": None})
        mover = dealt["seats"][0][1]
        ordered = post("/api/festival/move", {"id": "move-1", "player": mover,
                                              "table": short})
        assert ordered["moves"] == [] and len(ordered["orders"]) == 1
        page = watch(browser.new_page(viewport={"width": 1280, "height": 900}), probe)
        page.goto(f"{base}/?token={token}")
        waiting = page.locator("#orders .row")
        expect(waiting).to_have_count(1)
        expect(waiting).to_contain_text(f"move {mover} to {short}")
        button = waiting.get_by_role("button", name=f"Withdraw: move {mover} to {short}")
        button.click()
        expect(page.locator("#answer")).to_have_text(
            f"Withdrawn: move {mover} to {short}. Nobody moves for it.")
        expect(page.locator("#answer")).to_have_attribute("data-state", "done")
        expect(waiting).to_have_count(0)
        stacks = {player: chips for _, player, chips in dealt["seats"]}
        answer = post("/api/festival/next_hand", {"id": f"{long}:hand:2", "table": long,
                                                  "table_hand": 2, "stacks": stacks})
        assert mover in {player for _, player, _ in answer["seats"]}
        expect(page.locator("#moves .row")).to_have_count(0)
        expect(page.locator(f'#tables .table[data-table="{long}"] .player-name')
               .filter(has_text=mover)).to_have_count(1)
        page.close()
        assert director.stop(signal.SIGINT) == 0
    finally:
        director.close()
    assert probe.page_errors == [] and probe.unexpected_console_errors() == []
    assert probe.foreign_requests() == []


# The first player of a table whose move elsewhere the festival allows, as the page shows
# the tables (the demo's nine seats a table; the tables kept within one player of each
# other; no moves once ten players are left: the final table is due).
A_MOVE = """() => {
  const tables = [...document.querySelectorAll("#tables .table")].map((table) => ({
    name: table.dataset.table,
    players: [...table.querySelectorAll(".player-name")].map((p) => p.textContent) }));
  if (tables.length < 2 || Number(document.documentElement.dataset.remaining) <= 10) return null;
  for (const from of tables) for (const to of tables) {
    if (from === to || !from.players.length) continue;
    const sizes = Object.fromEntries(tables.map((t) => [t.name, t.players.length]));
    sizes[from.name] -= 1;
    sizes[to.name] += 1;
    if (sizes[to.name] <= 9 && sizes[to.name] - Math.min(...Object.values(sizes)) <= 1)
      return [from.players[0], to.name];
  }
  return null;
}"""


def order_a_move(page: Page, attempts: int = 10) -> str:
    """Order a move the page shows as allowed; the player. The page is up to a second
    behind the festival, so a move refused meanwhile (a bust or the rules' own move changed
    the tables) is tried again once the page has shown the tables as they are then."""
    answer = page.locator("#answer")
    for _ in range(attempts):
        player, table = page.wait_for_function(A_MOVE, timeout=60_000).json_value()
        shown = page.locator("#tables .table").first.element_handle()
        page.select_option("#move-player", player)
        page.select_option("#move-table", table)
        answer.evaluate("node => { node.textContent = ''; }")
        page.locator("#move").click()
        expect(answer).to_have_text(re.compile(r"^(Done|Ordered|Refused|The director's "
                                               r"service did not answer)"))
        text = answer.text_content() or ""
        if text.startswith("The director's service did not answer"):
            assert text.endswith(": send it again."), text
            answer.evaluate("node => { node.textContent = ''; }")
            page.locator("#move").click()  # the same order again
            expect(answer).to_have_text(re.compile(r"^(Done|Ordered|Refused): "))
            text = answer.text_content() or ""
        if not text.startswith("Refused"):
            assert text.startswith("Ordered: the move is made once") or \
                (text.startswith(f"Done: {player} ") and f"→ {table} seat " in text), text
            expect(answer).to_have_attribute("data-state", "done")
            return str(player)
        # Refused on tables the page showed before the festival's latest: the next look at
        # the festival draws the tables anew.
        page.wait_for_function("node => !node.isConnected", arg=shown, timeout=30_000)
    raise AssertionError(f"every move was refused: {text}")
