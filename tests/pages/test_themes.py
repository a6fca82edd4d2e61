"""Themes on air, in Debian's Chromium (issue 19, docs/graphics.md): the demo's pages change
their look when the producer does, without a reload; the logo and the sponsors follow; a
rehearsal page keeps its ``?theme=``; a stylesheet that does not load leaves the last good look.
Screenshots of each theme are kept as test artifacts."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from overlay.assets import static_dir
from overlay.graphics.config import bundled_themes
from tests.pages.conftest import Probe, watch
from tests.pages.harness import Harness
from tests.pages.service import free_port, running_service, start_demo, stop_demo
from tests.pages.views import flop_view

PAGES = ("overlay", "leaderboard", "clock", "lowerthird?seat=1", "payouts", "elimination",
         "commentary", "ticker", "versus")
THEMES = {theme.name: theme for theme in bundled_themes()}
# What the page's root says the theme's panel colour is, and the type of a player's name.
PANEL = {"dark": "rgba(11, 15, 25, 0.94)", "classic": THEMES["classic"].colors["panel"],
         "contrast": THEMES["contrast"].colors["panel"]}


def until(check: Callable[[], Any], what: str, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def look_of(page: Page) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate("""() => {
      const root = document.documentElement;
      const logo = document.querySelector('[data-graphics="logo"]');
      const sponsor = document.querySelector('[data-graphics="sponsor"]');
      const img = (slot) => slot && slot.querySelector("img");
      return {
        theme: root.dataset.theme || "", look: root.dataset.look || "",
        panel: getComputedStyle(root).getPropertyValue("--panel").trim(),
        font: getComputedStyle(document.body).fontFamily,
        same: window.__sameDocument === true,
        logo: logo ? !logo.hidden && Boolean(img(logo)) && img(logo).complete
          && img(logo).naturalWidth > 0 : null,
        sponsor: sponsor && !sponsor.hidden && img(sponsor) ? sponsor.dataset.sponsor : null,
      };
    }""")
    return result


def put(base: str, token: str, changes: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(f"{base}/api/graphics", method="PUT",
                                     data=json.dumps(changes).encode(), headers={
                                         "Authorization": f"Bearer {token}",
                                         "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        answer: dict[str, Any] = json.loads(response.read())
        return answer


@pytest.mark.timeout(400)
def test_a_change_of_look_reaches_every_page_on_air_without_a_reload(
        browser: Browser, tmp_path: Path, artifacts: Path) -> None:
    probe = Probe()
    port = free_port()
    demo = start_demo(tmp_path / "demo", speed=8, delay=1, seed=5, port=port)
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        line = demo.until(r"^  operator console ", timeout=120)
        token = re.search(r"token=(\S+)", line).group(1)  # type: ignore[union-attr]
        base = f"http://127.0.0.1:{port}"
        pages: dict[str, Page] = {}
        for name in (*PAGES, "overlay?theme=contrast"):
            joiner = "&" if "?" in name else "?"
            page = watch(context.new_page(), probe)
            page.goto(f"{base}/{name}{joiner}channel=venue")
            page.evaluate("window.__sameDocument = true")  # gone if the page reloads
            pages[name] = page
        overlay, pinned = pages["overlay"], pages["overlay?theme=contrast"]
        for name, page in pages.items():
            until(lambda p=page: look_of(p)["look"], f"{name} to apply the look on air")
        start = look_of(overlay)
        assert start["theme"] == "dark" and start["panel"] == PANEL["dark"]
        until(lambda: look_of(overlay)["logo"], "the demo's logo on the overlay")
        until(lambda: look_of(pages["commentary"])["logo"], "the logo in the commentary's header")
        until(lambda: look_of(overlay)["sponsor"] is not None, "a sponsor on the overlay")
        until(lambda: overlay.locator("#players .player").count() > 0, "a hand on the overlay")
        assert look_of(pinned)["theme"] == "contrast"
        assert look_of(pinned)["panel"] == PANEL["contrast"]
        overlay.screenshot(path=str(artifacts / "theme-dark-overlay.png"))

        for theme in ("classic", "contrast", "dark"):
            answer = put(base, token, {"theme": theme})
            assert answer["on_air"]["name"] == theme
            for name, page in pages.items():
                if name == "overlay?theme=contrast":
                    continue
                until(lambda p=page, t=theme: look_of(p)["theme"] == t
                      and look_of(p)["panel"] == PANEL[t], f"{name} in {theme}")
            for name, page in pages.items():
                assert look_of(page)["same"], f"{name} was reloaded"
            if theme == "classic":
                assert look_of(overlay)["font"].startswith('"DejaVu Sans Condensed"')
                assert overlay.evaluate(
                    """() => document.fonts.check('700 27px "DejaVu Sans Condensed"')""")
            overlay.screenshot(path=str(artifacts / f"theme-{theme}-overlay.png"))
            pages["leaderboard"].screenshot(path=str(artifacts / f"theme-{theme}-leaderboard.png"))
            assert look_of(pinned)["theme"] == "contrast"  # the rehearsal page keeps its own
            assert look_of(pinned)["panel"] == PANEL["contrast"]

        put(base, token, {"logo": False})
        until(lambda: look_of(overlay)["logo"] is False, "the logo to leave the overlay")
        until(lambda: look_of(pages["leaderboard"])["logo"] is False, "the leaderboard's logo")
        until(lambda: look_of(pages["commentary"])["logo"] is False, "the commentary's logo")
        shown = look_of(overlay)["sponsor"]
        put(base, token, {"sponsor_period": 3})
        until(lambda: look_of(overlay)["sponsor"] not in (None, shown), "the next sponsor",
              timeout=30)
        sponsors = put(base, token, {"sponsors": []})["on_air"]["sponsors"]
        assert sponsors == []
        until(lambda: look_of(overlay)["sponsor"] is None, "the sponsors to leave the overlay")
        for name, page in pages.items():
            assert look_of(page)["same"], f"{name} was reloaded"
    finally:
        context.close()
        stop_demo(demo)
    assert probe.page_errors == []
    assert probe.unexpected_console_errors() == []
    assert probe.foreign_requests() == []


def test_a_look_that_overtakes_a_loading_stylesheet_stays_on_air(
        page: Page, harness: Harness) -> None:
    """Two looks back to back (the producer picks a theme, then a layout): the first one's
    stylesheet is still loading when the second arrives. The second must be what stays on
    air, not the first one finishing last (seen in CI on a busy machine)."""
    held: list[Route] = []
    page.route("**/graphics/theme/classic.css*", lambda route: held.append(route))
    harness.set_view("delayed", flop_view())
    page.goto(f"{harness.base}/overlay?all=1")
    page.evaluate("window.__sameDocument = true")
    themes = harness.graphics.themes
    base = {"title": "", "logo": None, "sponsors": [], "sponsor_period": 20}
    first = {**base, "look": "first", "name": "classic", "css": themes["classic"].css_url,
             "regions": {"name": "first", "landscape": {}, "portrait": {}}}
    second = {**base, "look": "second", "name": "dark", "css": themes["dark"].css_url,
              "regions": {"name": "second", "landscape": {}, "portrait": {}}}
    page.evaluate("""() => {  // every look the page puts on, in order
      window.looks = [];
      window.arrived = [];  // and every look the channel brought
      window.feltcast.channel.onTheme((theme) => window.arrived.push(theme.look));
      new MutationObserver(() => window.looks.push(document.documentElement.dataset.look))
        .observe(document.documentElement, {attributes: true, attributeFilter: ["data-look"]});
    }""")
    harness.push_raw("delayed", {"type": "theme", "theme": first})
    until(lambda: look_of(page) is not None and bool(held), "the classic stylesheet asked for")
    harness.push_raw("delayed", {"type": "theme", "theme": second})
    until(lambda: page.evaluate("window.arrived") == ["first", "second"], "the second look")
    held[0].continue_()  # the first look's stylesheet arrives now, after the second look
    until(lambda: len(page.evaluate("window.looks")) >= 2, "both looks applied")
    assert page.evaluate("window.looks")[-1] == "second"  # in the order they came
    layout = page.evaluate("document.documentElement.dataset.layout")
    assert layout == "second" and look_of(page)["theme"] == "dark", (layout, look_of(page))
    assert look_of(page)["panel"] == PANEL["dark"] and look_of(page)["same"]
    assert page.locator("link#feltcast-theme").count() == 1


def test_a_stylesheet_that_does_not_load_leaves_the_last_good_look(
        page: Page, harness: Harness, probe: Probe) -> None:
    harness.set_view("delayed", flop_view())
    page.goto(f"{harness.base}/overlay?all=1")
    page.evaluate("window.__sameDocument = true")
    assert look_of(page)["panel"] == PANEL["dark"]
    classic = harness.graphics.themes["classic"]
    broken = {"look": "broken", "name": "neon", "title": "Neon",
              "css": "/graphics/theme/neon.css", "logo": None, "sponsors": [],
              "sponsor_period": 20}
    harness.push_raw("delayed", {"type": "theme", "theme": broken})
    # (look_of calls into the page: Playwright delivers its console messages meanwhile)
    until(lambda: look_of(page) and any("did not load" in text for text in probe.console_errors),
          "the page to give up on the stylesheet")
    assert look_of(page)["panel"] == PANEL["dark"] and look_of(page)["theme"] != "neon"
    assert page.locator("link#feltcast-theme").count() == 1
    probe.console_errors[:] = [text for text in probe.console_errors
                               if "did not load" not in text and "404" not in text]
    good = {**broken, "look": "good", "name": "classic", "css": classic.css_url}
    harness.push_raw("delayed", {"type": "theme", "theme": good})
    until(lambda: look_of(page)["panel"] == PANEL["classic"], "the good theme")
    assert look_of(page)["theme"] == "classic" and look_of(page)["same"]
    assert page.locator("link#feltcast-theme").count() == 1
    assert page.locator("#players .player").count() > 0  # the view stayed on screen


def test_the_consoles_graphics_panel_changes_the_look_on_air_and_shows_refusals(
        browser: Browser, tmp_path: Path, artifacts: Path) -> None:
    """The producer's path: the Graphics panel of the console, a page on air beside it."""
    studio = tmp_path / "themes" / "studio"
    studio.mkdir(parents=True)
    manifest = studio / "theme.toml"
    manifest.write_text('[theme]\ntitle = "Studio"\ndescription = "Ours"\n'
                        '[colors]\naccent = "#00a0ff"\n')
    samples = static_dir() / "samples"
    extra = (f'\n[graphics]\ntheme = "{studio}"\nlogo = "{samples / "logo.svg"}"\n'
             f'sponsors = ["{samples / "sponsor-a.svg"}", "{samples / "sponsor-b.svg"}"]\n')
    probe = Probe()
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    with running_service(tmp_path / "show", 30.0, extra_config=extra) as service:
        try:
            console = watch(context.new_page(), probe)
            console.goto(f"{service.base}/operator?token={service.operator}")
            expect(console.locator("html")).to_have_attribute("data-connection", "live")
            overlay = watch(context.new_page(), probe)
            overlay.goto(f"{service.base}/overlay?channel=venue")
            until(lambda: look_of(overlay)["theme"] == "studio" and look_of(overlay)["look"],
                  "the overlay in the configured theme")
            overlay.evaluate("window.__sameDocument = true")
            expect(console.locator("#graphics-body")).to_be_hidden()  # closed until asked for
            console.click("#btn-graphics-toggle")
            themes = console.locator("#theme-list .theme-choice")
            expect(themes).to_have_count(4)
            expect(console.locator("#theme-list [aria-checked=true] .theme-title")).to_have_text(
                "Studio · on air")
            expect(console.locator("#graphics-summary")).to_have_text(
                "Studio · logo on · 2 sponsors")
            expect(console.locator("#sponsor-list li")).to_have_count(2)
            console.screenshot(path=str(artifacts / "console-graphics-panel.png"), full_page=True)

            console.click("#theme-list [data-theme=classic]")
            expect(console.locator("#graphics-message")).to_have_text("Classic TV is on air")
            until(lambda: look_of(overlay)["theme"] == "classic", "the overlay in classic")
            console.select_option("#graphics-layout", "column-right")
            expect(console.locator("#graphics-message")).to_have_text(
                "Players on the right is on air")
            players_x = "() => document.querySelector('[data-region=players]').offsetLeft"
            until(lambda: overlay.evaluate(players_x) > 960, "the players on the right")
            console.check("#graphics-safe")
            expect(console.locator("#graphics-message")).to_have_text(
                "Everything inside the title-safe area")
            until(lambda: overlay.evaluate(
                "() => document.querySelector('[data-region=event]').offsetTop") >= 54,
                "the event bar inside the title-safe area")
            console.uncheck("#graphics-logo")
            expect(console.locator("#graphics-message")).to_have_text("The logo is off air")
            until(lambda: look_of(overlay)["logo"] is False, "the logo off the overlay")
            console.locator("#sponsor-list li input").first.uncheck()
            expect(console.locator("#graphics-message")).to_have_text("1 sponsor on air")
            assert len(service.request("/api/graphics")["on_air"]["sponsors"]) == 1

            # The ticker's operator lines: typed in the panel, crawling on a live page at once.
            ticker = watch(context.new_page(), probe)
            ticker.goto(f"{service.base}/ticker?channel=venue")
            console.fill("#ticker-messages", "Welcome to the final table\n\n  Back at 20:00 ")
            console.click("#btn-ticker")
            expect(console.locator("#graphics-message")).to_have_text("2 ticker lines on air")
            assert service.request("/api/graphics")["on_air"]["messages"] == [
                "Welcome to the final table", "Back at 20:00"]
            expect(ticker.locator("#track .crawl-item.operator")).to_have_text(
                ["Welcome to the final table", "Back at 20:00"])
            console.fill("#ticker-messages", "x" * 201)
            console.click("#btn-ticker")
            expect(console.locator("#graphics-message")).to_contain_text(
                "line 1 has 201 characters (at most 200)")
            expect(ticker.locator("#track .crawl-item.operator")).to_have_count(2)
            console.fill("#ticker-messages", "")
            console.click("#btn-ticker")
            expect(console.locator("#graphics-message")).to_have_text(
                "The ticker lines are off air")
            expect(ticker.locator("#track .crawl-item.operator")).to_have_count(0)
            ticker.close()

            # The program's lower third: cued from the table's seated players.
            expect(console.locator("#graphics-lowerthird option")).to_have_text(
                ["Off air", "Seat 1 · Ashton Griffin", "Seat 4 · Rast", "Seat 7 · Yuki Tanaka"])
            console.select_option("#graphics-lowerthird", "4")
            expect(console.locator("#graphics-message")).to_have_text("Lower third: Seat 4 · Rast")
            assert service.request("/api/graphics")["on_air"]["lowerthird"] == 4
            console.select_option("#graphics-lowerthird", "")
            expect(console.locator("#graphics-message")).to_have_text(
                "The lower third is off air")
            assert service.request("/api/graphics")["on_air"]["lowerthird"] is None

            # Refusals: a period out of range, a theme folder broken on disk.
            console.fill("#sponsor-period", "1")
            console.click("#btn-sponsor-period")
            expect(console.locator("#graphics-message")).to_contain_text("from 3 to 600")
            expect(console.locator("#graphics-message")).to_have_class("device-message bad")
            manifest.write_text('[colors]\naccent = "#00a0fg"\n')
            console.click("#theme-list [data-theme=studio]")
            expect(console.locator("#graphics-message")).to_have_text("Studio is on air")
            console.click("#btn-themes-reload")
            message = console.locator("#graphics-message")
            expect(message).to_contain_text(str(manifest))
            expect(message).to_contain_text("'colors.accent'")
            until(lambda: look_of(overlay)["theme"] == "studio", "the overlay in studio")
            assert look_of(overlay)["same"]
            accent = overlay.evaluate(
                "getComputedStyle(document.documentElement).getPropertyValue('--accent')")
            assert accent.strip() == "#00a0ff"  # the last good studio stays on air
            manifest.write_text('[colors]\naccent = "#ff00a0"\n')
            console.click("#btn-themes-reload")
            expect(message).to_have_text("Reloaded: studio changed")
            until(lambda: overlay.evaluate("getComputedStyle(document.documentElement)"
                                           ".getPropertyValue('--accent')").strip() == "#ff00a0",
                  "the edited studio on air")
            assert look_of(overlay)["same"]
        finally:
            context.close()
    # The banner shows each refused change too (as for any command): 422s, expected here.
    assert probe.page_errors == []
    assert [e for e in probe.unexpected_console_errors() if "422" not in e] == []
    assert probe.foreign_requests() == []
