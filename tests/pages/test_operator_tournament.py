"""The operator console's Tournament panel against the real service (``feltcast serve`` as a
subprocess, Debian's Chromium): the level clock (R21) started, paused, resumed and adjusted by
clicks; a stack correction between hands reaching the view's leaderboard numbers and refused
during a hand; a disqualification's confirm step (R23); a player's identity with flag and
photo upload; a players CSV whose problems are listed by line.

Every test also asserts: no page error, no console error (but the 4xx the server answers on
purpose), no request that leaves 127.0.0.1. The tests share one service and run in order.
"""

from __future__ import annotations

import re
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, FilePayload, Page, expect

from tests.pages.conftest import Probe
from tests.pages.service import Service, running_service

DELAY = 2.0
TOURNAMENT = """
[tournament]
name = "Main Event"
entrants = 4
prize_pool = 10000
currency = "EUR"

[[players]]
seat = 9
name = "Lena Fischer"
stack = 100000
"""


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """The service's usual three players, a fourth, and a 10,000 EUR prize pool."""
    with running_service(tmp_path_factory.mktemp("serve"), DELAY,
                         extra_config=TOURNAMENT) as running:
        yield running


def tournament_of(service: Service, channel: str = "operator") -> dict[str, Any]:
    view: dict[str, Any] = service.request(f"/api/state?channel={channel}")["view"]
    return dict(view["tournament"])


def player(service: Service, seat: int) -> dict[str, Any] | None:
    return next((p for p in tournament_of(service)["players"] if p["seat"] == seat), None)


def known(service: Service, seat: int) -> dict[str, Any]:
    found = player(service, seat)
    assert found is not None, f"seat {seat} is not in the tournament's players"
    return found


def upload(name: str, mime: str, data: bytes) -> list[FilePayload]:
    return [FilePayload(name=name, mimeType=mime, buffer=data)]


@pytest.fixture
def probe() -> Probe:
    return Probe(allow_rejections=True)  # the refusals below are provoked on purpose


@pytest.fixture
def console(browser: Browser, service: Service, probe: Probe) -> Iterator[Page]:
    """The console on a laptop-sized screen, token given once in the address."""
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    page.on("console", lambda m: probe.console_errors.append(m.text)
            if m.type == "error" else None)
    page.on("pageerror", lambda error: probe.page_errors.append(str(error)))
    page.on("request", lambda r: probe.requests.append(r.url))
    page.goto(f"{service.base}/operator?token={service.operator}")
    expect(page.locator("html")).to_have_attribute("data-connection", "live")
    expect(page.locator("#tournament")).to_be_visible()
    yield page
    context.close()
    assert probe.page_errors == []
    assert probe.unexpected_console_errors() == []
    assert probe.foreign_requests() == []


def seconds(text: str) -> int:
    minutes, _, secs = text.rpartition(":")
    return int(minutes or 0) * 60 + int(secs)


def time_left(page: Page) -> int:
    return seconds(page.locator("#t-time").inner_text())


def expect_time_between(page: Page, low: int, high: int) -> None:
    """The panel's clock shows, within the usual wait, a time from low to high seconds (the
    command's acknowledgement can come before the view's patch)."""
    shown = "|".join(f"{t // 60}:{t % 60:02d}" for t in range(max(0, low), high + 1))
    expect(page.locator("#t-time")).to_have_text(re.compile(f"^({shown})$"))


def settle(page: Page) -> None:
    expect(page.locator("body")).not_to_have_class(re.compile(r"\bbusy\b"))


def feedback(page: Page, text: str | re.Pattern[str]) -> None:
    expect(page.locator("#t-feedback")).to_have_text(text)


def png(width: int = 8, height: int = 8) -> bytes:
    """A small valid PNG (solid colour), made here so the test needs no image library."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    rows = b"".join(b"\x00" + b"\xc0\x30\x30" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def test_the_level_clock_by_clicks(console: Page, service: Service, artifacts: Path) -> None:
    page = console
    expect(page.locator("#t-name")).to_have_text("Main Event")
    expect(page.locator("#t-state")).to_have_text("Not started")
    expect(page.locator("#t-level")).to_have_text("Level 1")
    expect(page.locator("#t-blinds")).to_have_text("25 / 50")
    expect(page.locator("#t-next")).to_have_text("Next: level 2, 50 / 100")
    expect(page.locator("#t-time")).to_have_text("20:00")  # the level's full time, standing
    for button in ("#btn-clock-pause", "#btn-clock-resume", "#btn-clock-plus",
                   "#btn-clock-minus", "#btn-clock-adjust"):
        expect(page.locator(button)).to_be_disabled()
    page.click("#btn-clock-start")
    feedback(page, "Clock started")
    expect(page.locator("#t-state")).to_have_text("Running")
    assert tournament_of(service)["clock"]["running"] is True
    expect(page.locator("#btn-clock-start")).to_be_disabled()
    first = time_left(page)
    page.wait_for_timeout(1300)
    assert 1 <= first - time_left(page) <= 5  # counts down in the page
    # +1 min, then -1 min, then a typed amount (keyboard: type and Enter).
    before = time_left(page)
    page.click("#btn-clock-plus")
    feedback(page, "Added 1:00")
    expect_time_between(page, before + 54, before + 60)
    before = time_left(page)
    page.click("#btn-clock-minus")
    feedback(page, "Took away 1:00")
    expect_time_between(page, before - 66, before - 59)
    before = time_left(page)
    page.fill("#clock-adjust", "-2:30")
    page.press("#clock-adjust", "Enter")
    feedback(page, "Took away 2:30")
    expect_time_between(page, before - 156, before - 149)
    expect(page.locator("#clock-adjust")).to_have_value("")
    # A typo is caught in the page: nothing is sent, the operator is told what to type.
    adjusted = tournament_of(service)["clock"]["remaining"]
    page.fill("#clock-adjust", "two minutes")
    page.click("#btn-clock-adjust")
    feedback(page, re.compile(r"^Type the time to add or take away"))
    assert tournament_of(service)["clock"]["remaining"] == adjusted
    # Pause: the time stands still, in the page and in the view; resume runs it again.
    page.click("#btn-clock-pause")
    expect(page.locator("#t-state")).to_have_text("Paused")
    stopped = page.locator("#t-time").inner_text()
    clock = tournament_of(service)["clock"]
    assert clock["running"] is False and clock["started"] is True
    page.wait_for_timeout(1200)
    expect(page.locator("#t-time")).to_have_text(stopped)
    expect(page.locator("#btn-clock-pause")).to_be_disabled()
    page.screenshot(path=str(artifacts / "operator-tournament-clock.png"), full_page=True)
    page.locator("#btn-clock-resume").focus()  # keyboard-friendly: Enter on a focused button
    page.keyboard.press("Enter")
    expect(page.locator("#t-state")).to_have_text("Running")
    assert tournament_of(service)["clock"]["running"] is True
    # The server's refusal reaches the operator verbatim (pausing twice over the API first).
    service.command("pause_clock")
    expect(page.locator("#t-state")).to_have_text("Paused")
    page.evaluate("window.feltcast.sendCommand('pause_clock')")
    expect(page.locator("#error")).to_be_visible()
    expect(page.locator("#error-detail")).to_contain_text("illegal_action")
    message = page.locator("#error-message").inner_text()
    assert message and page.locator("#t-feedback").inner_text() in ("", "Clock running again")
    page.click("#btn-clock-resume")
    expect(page.locator("#error")).to_be_hidden()


def test_identity_flag_and_photo_upload(console: Page, service: Service,
                                        artifacts: Path) -> None:
    page = console
    page.select_option("#t-seat", "4")
    expect(page.locator("#t-stack")).to_have_text("Stack 420,000")
    expect(page.locator("#id-name")).to_have_value("Rast")
    expect(page.locator("#id-photo .initials")).to_have_text("RA")
    page.fill("#id-name", "Rast Andersson")
    page.fill("#id-display", "Rast")
    page.locator("#id-country").press_sequentially("se")
    expect(page.locator("#id-country")).to_have_value("SE")  # written in any case
    expect(page.locator("#id-flag img")).to_have_attribute("src", "/static/flags/se.svg")
    page.wait_for_function("() => document.querySelector('#id-flag img').naturalWidth > 0")
    page.click("#btn-identity")
    feedback(page, "Identity of seat 4 saved")
    rast = player(service, 4)
    assert rast is not None
    assert (rast["name"], rast["display_name"], rast["country"]) == ("Rast Andersson", "Rast",
                                                                     "SE")
    # A country code without a flag: the preview shows the code, the server says why.
    page.fill("#id-country", "ZZ")
    expect(page.locator("#id-flag")).to_have_class(re.compile(r"\bmissing\b"))
    expect(page.locator("#id-flag .flag-code")).to_have_text("ZZ")
    page.click("#btn-identity")
    expect(page.locator("#t-feedback")).to_have_class(re.compile(r"\bbad\b"))
    expect(page.locator("#t-feedback")).to_contain_text("ZZ")
    expect(page.locator("#error-message")).to_contain_text("ZZ")
    assert known(service, 4)["country"] == "SE"
    page.fill("#id-country", "SE")
    # Photos: a wrong type and a file too large are caught before sending; a file that only
    # claims to be a JPEG is refused by the server (it checks the content); a PNG is taken.
    page.set_input_files("#photo-file", files=upload("rast.gif", "image/gif", b"GIF89a"))
    feedback(page, "rast.gif is image/gif: a photo must be a JPEG, PNG or WebP image")
    page.click("#btn-photo")
    feedback(page, re.compile(r"^rast\.gif is image/gif: "))
    page.set_input_files("#photo-file", files=upload("huge.jpg", "image/jpeg",
                                                     b"\xff" * (5 * 1024 * 1024)))
    page.click("#btn-photo")
    feedback(page, "huge.jpg is 5.0 MB; the limit is 4 MB")
    page.set_input_files("#photo-file", files=upload("fake.jpg", "image/jpeg",
                                                     b"not an image at all"))
    page.click("#btn-photo")
    feedback(page, "a photo must be a JPEG, PNG or WebP image")
    expect(page.locator("#error-detail")).to_contain_text("invalid_input")
    assert known(service, 4)["photo"] is None
    page.set_input_files("#photo-file", files=upload("rast.png", "image/png", png(48, 48)))
    page.click("#btn-photo")
    feedback(page, "Photo of Rast uploaded")
    expect(page.locator("#error")).to_be_hidden()
    photo = known(service, 4)["photo"]
    assert re.fullmatch(r"/media/players/seat4-[0-9a-f]+\.png", photo)
    expect(page.locator("#id-photo img")).to_have_attribute("src", photo)
    page.wait_for_function("() => document.querySelector('#id-photo img').naturalWidth === 48")
    # The identity reaches the graphics: the venue lower third shows name, flag and photo.
    third = page.context.new_page()
    third.goto(f"{service.base}/lowerthird?seat=4&channel=venue")
    expect(third.locator("#full-name")).to_have_text("Rast Andersson")
    expect(third.locator("#flag img")).to_have_attribute("src", "/static/flags/se.svg")
    expect(third.locator("#photo img")).to_have_attribute("src", photo)
    third.close()
    page.screenshot(path=str(artifacts / "operator-tournament-identity.png"), full_page=True)


def test_players_csv_import(console: Page, service: Service, artifacts: Path) -> None:
    page = console
    bad = (b"seat,name,display_name,country\n"
           b"1,Ashton Griffin,Ashton,US\n"
           b"11,Nobody,,DE\n"
           b"7,Yuki Tanaka,Yuki,ZZ\n"
           b"1,Ashton Again,,US\n")
    page.set_input_files("#csv-file", files=upload("players.csv", "text/csv", bad))
    page.click("#btn-csv")
    feedback(page, "Nothing was imported from players.csv: 3 problems")
    lines = page.locator("#csv-errors li")
    expect(lines).to_have_count(3)
    texts = lines.all_inner_texts()
    assert [text.split(":")[0] for text in texts] == ["line 3", "line 4", "line 5"]
    assert "ZZ" in texts[1] and "line 2" in texts[2]
    page.screenshot(path=str(artifacts / "operator-tournament-csv-errors.png"), full_page=True)
    assert known(service, 1)["name"] == "Ashton Griffin"
    assert known(service, 7)["display_name"] == "Yuki Tanaka"  # nothing changed
    good = ("seat;name;display_name;country\n"
            "1;Ashton Griffin;Ashton;US\n"
            "7;\"Tanaka, Yūki\";Yūki;JP\n").encode()  # UTF-8, as spreadsheets save it
    page.set_input_files("#csv-file", files=upload("players-eu.csv", "text/csv", good))
    page.click("#btn-csv")
    feedback(page, "Imported 2 players from players-eu.csv (seats 1, 7)")
    expect(lines).to_have_count(0)
    yuki = player(service, 7)
    assert yuki is not None and (yuki["name"], yuki["country"]) == ("Tanaka, Yūki", "JP")
    page.select_option("#t-seat", "7")
    expect(page.locator("#id-name")).to_have_value("Tanaka, Yūki")
    expect(page.locator("#id-flag img")).to_have_attribute("src", "/static/flags/jp.svg")


def test_stack_correction_between_hands_and_refused_during_one(
        console: Page, service: Service, artifacts: Path) -> None:
    page = console
    page.select_option("#t-seat", "9")
    expect(page.locator("#t-between")).to_have_text("Between hands")
    page.fill("#correct-stack", "150,000")
    page.click("#btn-correct")  # no reason: asked for one, nothing sent
    feedback(page, "A stack correction needs a reason (it is kept in the log)")
    expect(page.locator("#correct-reason")).to_be_focused()
    assert known(service, 9)["stack"] == 100000
    page.keyboard.type("chips found under the rack")
    page.keyboard.press("Enter")
    feedback(page, "Stack of Lena Fischer corrected to 150,000")
    # The leaderboard's numbers in every channel's view: stack, field total, average, share.
    lena = player(service, 9)
    assert lena is not None and lena["stack"] == 150000
    field = tournament_of(service)["field"]
    assert field["total_chips"] == 500000 + 420000 + 310000 + 150000
    assert field["average"] == field["total_chips"] // 4
    assert lena["share"] == pytest.approx(150000 / field["total_chips"], abs=1e-4)
    expect(page.locator("#t-stack")).to_have_text("Stack 150,000")
    expect(page.locator(".seat[data-seat='9'] .stack")).to_have_text("150,000")
    board = page.context.new_page()
    board.goto(f"{service.base}/leaderboard?channel=venue")
    expect(board.locator(".row[data-seat='9'] .stack")).to_have_text("150,000")
    board.close()
    # During a hand the server refuses; the console says so, in the panel and the banner.
    page.click("#btn-next-hand")
    expect(page.locator("#t-between")).to_contain_text("A hand is running")
    page.fill("#correct-stack", "200000")
    page.fill("#correct-reason", "recount")
    page.click("#btn-correct")
    feedback(page, "cannot correct a stack during a hand")
    expect(page.locator("#error-message")).to_have_text("cannot correct a stack during a hand")
    expect(page.locator("#error-detail")).to_contain_text("illegal_action")
    assert known(service, 9)["stack"] == 150000
    page.screenshot(path=str(artifacts / "operator-tournament-refused.png"), full_page=True)
    cards = iter(["Ah", "As", "Kd", "Kc", "7s", "2d", "8c", "8d"])
    for seat in (1, 4, 7, 9):
        service.command("deal_cards", seat=seat, cards=[next(cards), next(cards)])
    while True:  # everyone folds to the big blind
        seats = service.request("/api/state?channel=operator")["view"]["seats"]
        to_act = [s["seat"] for s in seats if s["to_act"]]
        if not to_act:
            break
        service.command("fold", seat=to_act[0])
    expect(page.locator("#t-between")).to_have_text("Between hands")


def test_disqualification_needs_a_reason_and_a_confirmation(
        console: Page, service: Service) -> None:
    page = console
    page.select_option("#t-seat", "9")
    page.click("#btn-dq")
    feedback(page, "A disqualification needs a reason (it is kept in the log)")
    page.fill("#dq-reason", "abusive behaviour")
    page.click("#btn-dq")  # the first press only arms it
    expect(page.locator("#btn-dq")).to_have_text("Confirm: disqualify Lena Fischer")
    expect(page.locator("#btn-dq-cancel")).to_be_visible()
    page.click("#btn-dq-cancel")
    expect(page.locator("#btn-dq")).to_have_text("Disqualify…")
    page.press("#dq-reason", "Enter")  # the keyboard arms it too; Escape disarms
    expect(page.locator("#btn-dq")).to_have_text("Confirm: disqualify Lena Fischer")
    expect(page.locator("#btn-dq")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#btn-dq")).to_have_text("Disqualify…")
    expect(page.locator("#btn-dq-cancel")).to_be_hidden()
    assert player(service, 9) is not None
    page.click("#btn-dq")
    page.click("#btn-dq")
    feedback(page, "Lena Fischer is disqualified")
    assert player(service, 9) is None
    assert tournament_of(service)["field"]["remaining"] == 3
    expect(page.locator("#t-seat option")).to_have_count(3)
