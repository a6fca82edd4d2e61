"""Every on-air page in every bundled theme at every browser-source size, in Debian's Chromium
(issue 19, docs/graphics.md): the stage scaled to 1280x720, 1920x1080 and 3840x2160 and
arranged for a vertical 1080x1920 source; nothing outside the frame; no text cut; hole cards
at least 7 % of the frame's height; every text at least 4.5:1 against its panel, computed from
the computed styles. A screenshot of each is kept as a test artifact."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from overlay.graphics.config import bundled_themes
from tests.pages.conftest import Probe, settle, watch
from tests.pages.harness import Harness
from tests.pages.tournament_views import allin_view, tournament_view
from tests.pages.views import flop_view, showdown_view

SIZES = {"720p": (1280, 720), "1080p": (1920, 1080), "2160p": (3840, 2160),
         "vertical": (1080, 1920)}
THEMES = [theme.name for theme in bundled_themes()]


def overlay_view() -> dict[str, Any]:
    view = flop_view()
    view["tournament"] = tournament_view()["tournament"]
    return view


# page, query, view
PAGES: list[tuple[str, str, Any]] = [
    ("overlay", "&all=1", overlay_view),
    ("overlay", "&all=1", showdown_view),
    ("leaderboard", "", tournament_view),
    ("lowerthird", "&seat=4", tournament_view),
    ("payouts", "", tournament_view),
    ("clock", "", tournament_view),
    ("ticker", "", tournament_view),
    ("versus", "", allin_view),
    ("overlay", "&all=1&layout=bottom-bar", showdown_view),  # the players' bar
    ("overlay", "&all=1&layout=venue", overlay_view),  # the venue's TVs: opaque, grown
]

# Inspects the page as drawn: what lies outside the frame, what text is cut, which text lacks
# contrast against what is behind it (the panel; where the page is transparent, the camera
# picture, taken as black, white and grey in turn), and the hole cards' height.
INSPECT = r"""() => {
  const W = innerWidth, H = innerHeight;
  const parse = (text) => {
    const m = /rgba?\(([^)]+)\)/.exec(text || "");
    if (!m) return null;
    const p = m[1].split(",").map((x) => parseFloat(x));
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const colours = (text) => (String(text || "").match(/rgba?\([^)]+\)/g) || []).map(parse);
  const lum = ([r, g, b]) => {
    const c = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * c(r) + 0.7152 * c(g) + 0.0722 * c(b);
  };
  const over = ([r, g, b, a], [R, G, B]) => [r * a + R * (1 - a), g * a + G * (1 - a),
    b * a + B * (1 - a)];
  const ratio = (x, y) => { const [l, d] = [lum(x), lum(y)].sort((p, q) => q - p);
    return (l + 0.05) / (d + 0.05); };
  const opacity = (node) => { let o = 1;
    for (let n = node; n && n.nodeType === 1; n = n.parentElement) {
      o *= parseFloat(getComputedStyle(n).opacity); }
    return o; };
  // What is behind `node`: every background from the nearest opaque one up to the node,
  // composited (each colour of a gradient in turn), over `backdrop` if none is opaque.
  const papers = (node, backdrop) => {
    const layers = [];
    for (let n = node; n && n.nodeType === 1; n = n.parentElement) {
      const cs = getComputedStyle(n);
      const found = [parse(cs.backgroundColor), ...colours(cs.backgroundImage)]
        .filter((c) => c && c[3] > 0.02);
      if (found.length) layers.push(found);
      if (found.length && found.every((c) => c[3] >= 0.99)) break;
    }
    let result = [backdrop];
    for (const layer of layers.reverse()) {
      result = result.flatMap((paper) => layer.map((c) => over(c, paper))).slice(0, 32);
    }
    return result;
  };
  const outside = [], cut = [], contrast = [];
  const stage = document.getElementById("stage");
  for (const node of stage.querySelectorAll("*")) {
    const cs = getComputedStyle(node);
    if (cs.visibility === "hidden" || cs.display === "none") continue;
    const r = node.getBoundingClientRect();
    if (r.width < 1 || r.height < 1 || opacity(node) < 0.05) continue;
    const label = `${node.tagName.toLowerCase()}.${[...node.classList].join(".")}#${node.id}`;
    // A crawl moves its text through a clipping window (the ticker): the window is checked.
    const clip = node.parentElement && node.parentElement.closest("[data-clip]");
    if (!clip && (r.left < -1 || r.top < -1 || r.right > W + 1 || r.bottom > H + 1)) {
      outside.push(`${label} ${Math.round(r.left)},${Math.round(r.top)} `
        + `${Math.round(r.right)},${Math.round(r.bottom)}`);
    }
    const text = [...node.childNodes].filter((c) => c.nodeType === 3)
      .map((c) => c.textContent.trim()).join("");
    if (!text) continue;
    if (node.scrollWidth > node.clientWidth + 1 && cs.overflowX !== "visible") {
      cut.push(`${label} "${text}" ${node.scrollWidth} > ${node.clientWidth}`);
    }
    // Folded, away and busted players are dimmed on purpose (the broadcast convention).
    if (node.closest(".folded, .away, .busted, .card")) continue;
    const ink = parse(cs.color);
    if (!ink || ink[3] < 0.05) continue;
    const alpha = opacity(node);
    for (const backdrop of [[0, 0, 0], [255, 255, 255], [128, 128, 128]]) {
      for (const paper of papers(node, backdrop)) {
        const value = ratio(over([ink[0], ink[1], ink[2], ink[3] * alpha], paper), paper);
        if (value < 4.5) {
          contrast.push(`${label} "${text}" ${value.toFixed(2)} over ${backdrop}`);
          break;
        }
      }
    }
  }
  const holes = [...stage.querySelectorAll(".player .hole .card")]
    .map((c) => c.getBoundingClientRect().height);
  return {outside, cut: [...new Set(cut)], contrast: [...new Set(contrast)].slice(0, 12),
          holes, scale: Number(document.documentElement.dataset.stageScale),
          portrait: document.documentElement.classList.contains("portrait")};
}"""


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.timeout(400)
def test_every_page_fits_every_size_in_every_theme_and_stays_legible(
        browser: Browser, harness: Harness, artifacts: Path, theme: str) -> None:
    probe = Probe()
    problems: list[str] = []
    # Sizes are the stage's business, the same for every theme: the default theme at every
    # size, the others at 1080p (where the contrast is checked), to keep the suite short.
    sizes = SIZES if theme == "dark" else {"1080p": SIZES["1080p"]}
    for size, (width, height) in sizes.items():
        context = browser.new_context(viewport={"width": width, "height": height})
        page: Page = watch(context.new_page(), probe)
        try:
            for index, (name, query, make) in enumerate(PAGES):
                # A layout variant is the default's stage with other regions: drawn at 1080p
                # (the stage's scaling to the other sizes is the default's, tested there).
                if "layout=" in query and size != "1080p":
                    continue
                harness.reset()
                harness.set_view("delayed", make(), 1)
                page.goto(f"{harness.base}/{name}?channel=delayed&theme={theme}{query}")
                expect(page.locator("html")).to_have_attribute("data-revision", "1")
                page.evaluate("document.fonts.ready")
                settle(page)  # the entrance animations
                found = page.evaluate(INSPECT)
                where = f"{theme} {size} {name}#{index}"
                portrait = height > width
                base = (1080, 1920) if portrait else (1920, 1080)
                assert found["portrait"] == portrait, where
                assert abs(found["scale"] - min(width / base[0], height / base[1])) < 1e-3
                problems += [f"{where}: outside the frame: {o}" for o in found["outside"]]
                problems += [f"{where}: cut: {c}" for c in found["cut"]]
                if size == "1080p":
                    problems += [f"{where}: contrast {c}" for c in found["contrast"]]
                if "layout=venue" in query and not portrait:
                    assert page.evaluate("""() => document.documentElement.classList
                      .contains("opaque") && getComputedStyle(document.body).backgroundImage
                      .startsWith("radial-gradient")"""), where
                    grown = page.locator("[data-region=table]").get_attribute("data-scale")
                    assert float(grown or 0) > 1.2, (where, grown)  # larger than on the stream
                if name == "overlay" and not portrait:
                    assert found["holes"], where
                    assert min(found["holes"]) >= 0.07 * height - 0.5, (where, found["holes"])
                if size in ("1080p", "vertical"):  # artifacts; a 4K PNG costs a second each
                    page.screenshot(
                        path=str(artifacts / f"layout-{theme}-{size}-{name}-{index}.png"))
        finally:
            context.close()
    (artifacts / f"layout-problems-{theme}.txt").write_text("\n".join(problems) + "\n")
    assert problems == []
    assert probe.page_errors == [] and probe.unexpected_console_errors() == []
    assert probe.foreign_requests() == []


# The boxes each region's graphic draws, in stage pixels (visible elements only).
DRAWN = r"""() => {
  const scale = Number(document.documentElement.dataset.stageScale) || 1;
  const opacity = (node) => { let o = 1;
    for (let n = node; n && n.nodeType === 1; n = n.parentElement) {
      o *= parseFloat(getComputedStyle(n).opacity); }
    return o; };
  const found = {};
  for (const wrapper of document.querySelectorAll(".region[data-region]")) {
    let box = null;
    for (const node of wrapper.querySelectorAll(".region-fit *")) {
      // A crawl's text moves through its clipping window: the window is what is drawn.
      if (node.parentElement && node.parentElement.closest("[data-clip]")) continue;
      const cs = getComputedStyle(node);
      if (cs.display === "none" || cs.visibility === "hidden" || opacity(node) < 0.05) continue;
      const r = node.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) continue;
      box = box ? [Math.min(box[0], r.left), Math.min(box[1], r.top), Math.max(box[2], r.right),
                   Math.max(box[3], r.bottom)] : [r.left, r.top, r.right, r.bottom];
    }
    if (box) found[wrapper.dataset.region] = box.map((v) => v / scale);
  }
  return found;
}"""


# (column-left and the bottom bar: the same pages stacked as frames of the composed program,
# measured the same way in tests/pages/test_program.py)
@pytest.mark.parametrize(("layout", "safe"), [("column-right", "1")])
@pytest.mark.timeout(300)
def test_graphics_stacked_in_obs_never_collide(browser: Browser, harness: Harness,
                                               artifacts: Path, layout: str, safe: str) -> None:
    """The overlay, the lower third, the elimination graphic and the clock, each its own
    browser source at 1920x1080 as OBS stacks them: every graphic inside its region, no two
    overlapping, and all inside the title-safe area when it is asked for."""
    from overlay.graphics.layouts import EXCLUSIVE, SAFE_MARGIN, regions_of
    from tests.pages.tournament_views import eliminated

    regions = regions_of(layout, safe=safe == "1")["landscape"]
    probe = Probe()
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    harness.reset()
    view = showdown_view()
    view["tournament"] = tournament_view()["tournament"]
    harness.set_view("delayed", view, 1)
    drawn: dict[str, list[float]] = {}
    try:
        pages = {}
        for name, query in (("overlay", "&all=1"), ("lowerthird", "&seat=4"),
                            ("elimination", "&seconds=120"), ("clock", ""), ("ticker", "")):
            page = watch(context.new_page(), probe)
            page.goto(f"{harness.base}/{name}?channel=delayed&layout={layout}&safe={safe}"
                      f"{query}")
            expect(page.locator("html")).to_have_attribute("data-revision", "1")
            pages[name] = page
        busted = eliminated(view, 6, 7, 5000, 42)
        harness.push_patch("delayed", {"tournament": {
            "players": busted["tournament"]["players"],
            "eliminations": busted["tournament"]["eliminations"]}})
        expect(pages["elimination"].locator("#bust")).to_have_class(re.compile(r"\bshown\b"))
        expect(pages["lowerthird"].locator("#third")).to_have_class(re.compile(r"\bshown\b"))
        for name, page in pages.items():
            settle(page)  # the entrances
            for region, box in page.evaluate(DRAWN).items():
                assert region not in drawn, region
                drawn[region] = box
            page.screenshot(path=str(artifacts / f"stack-{layout}-{safe}-{name}.png"),
                            omit_background=True)
        # The clock in its corner draws its compact form (level, time, blinds), legibly large.
        corner = pages["clock"].locator("[data-region=clock]")
        assert corner.get_attribute("data-compact") == "1"
        assert float(corner.get_attribute("data-scale") or 0) >= 0.6
        expect(pages["clock"].locator(".field-row")).to_be_hidden()
        # The versus graphic takes the elimination graphic's region while an all-in runs
        # (TIME_SHARED): it draws inside it, and the elimination graphic gives way.
        allin = allin_view()
        revision = harness.push_patch("delayed", {
            "table": allin["table"], "seats": allin["seats"],
            "tournament": {"allin": allin["tournament"]["allin"]}})
        versus = watch(context.new_page(), probe)
        versus.goto(f"{harness.base}/versus?channel=delayed&layout={layout}&safe={safe}")
        expect(versus.locator("html")).to_have_attribute("data-revision", str(revision))
        expect(pages["elimination"].locator("#bust")).to_be_hidden()
        assert "elimination" not in pages["elimination"].evaluate(DRAWN)
        settle(versus)  # the entrance
        drawn["versus"] = versus.evaluate(DRAWN)["versus"]
        versus.screenshot(path=str(artifacts / f"stack-{layout}-{safe}-versus.png"),
                          omit_background=True)
    finally:
        context.close()
    # (the harness shows no logo and no sponsor: tests/pages/test_themes.py has them)
    assert {"event", "players", "table", "lowerthird", "elimination", "clock", "ticker",
            "versus"} <= set(drawn)
    for region, (left, top, right, bottom) in drawn.items():
        r = regions[region]
        assert left >= r["x"] - 1 and top >= r["y"] - 1, (region, drawn[region], r)
        assert right <= r["x"] + r["width"] + 1 and bottom <= r["y"] + r["height"] + 1, region
        if safe == "1":
            assert left >= 1920 * SAFE_MARGIN - 1 and right <= 1920 * (1 - SAFE_MARGIN) + 1
            assert top >= 1080 * SAFE_MARGIN - 1 and bottom <= 1080 * (1 - SAFE_MARGIN) + 1
    shown = [name for name in EXCLUSIVE if name in drawn]
    for a, b in itertools.combinations(shown, 2):
        (al, at, ar, ab), (bl, bt, br, bb) = drawn[a], drawn[b]
        assert ar <= bl or br <= al or ab <= bt or bb <= at, (a, drawn[a], b, drawn[b])
    assert probe.page_errors == [] and probe.unexpected_console_errors() == []
