"""Themes (issue 19, docs/graphics.md): a folder read and checked, or refused by file and key;
the bundled three clearly different and legible; the ``[graphics]`` section; the desk that
keeps the producer's choice and tells the pages."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import ConfigError, InvalidInputError
from overlay.assets import static_dir
from overlay.config import config_to_raw, parse_config
from overlay.graphics.config import bundled_themes, default_graphics, parse_graphics
from overlay.graphics.desk import GraphicsDesk
from overlay.graphics.themes import (
    COLOR_TOKENS,
    STYLE_TOKENS,
    ThemeError,
    load_theme,
    parse_color,
)
from overlay.hub import ChannelHub, Subscription
from tests.overlay.test_players import png

THEMES = static_dir() / "themes"
SAMPLES = static_dir() / "samples"
BASE_CSS = (static_dir() / "css" / "base.css").read_text()


def theme_folder(tmp_path: Path, manifest: str, name: str = "studio") -> Path:
    folder = tmp_path / name
    folder.mkdir(parents=True)
    (folder / "theme.toml").write_text(manifest)
    return folder


# --- colours ----------------------------------------------------------------------------


@given(st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255)),
       st.sampled_from(["hex", "short", "rgb", "rgba"]))
def test_every_css_colour_form_a_theme_may_use_reads_back_its_channels(
        rgb: tuple[int, int, int], form: str) -> None:
    r, g, b = rgb
    if form == "short":
        r, g, b = (r // 17) * 17, (g // 17) * 17, (b // 17) * 17
        text = f"#{r // 17:x}{g // 17:x}{b // 17:x}"
    elif form == "hex":
        text = f"#{r:02x}{g:02x}{b:02X}"
    elif form == "rgb":
        text = f"rgb({r}, {g},{b})"
    else:
        text = f"rgba({r}, {g}, {b}, 0.5)"
    assert parse_color(text)[:3] == (r, g, b)
    assert parse_color(text)[3] == (0.5 if form == "rgba" else 1.0)


@pytest.mark.parametrize("text", ["blue", "#12345", "#ggg", "rgb(1, 2)", "rgb(256, 0, 0)",
                                  "rgba(0, 0, 0, 2)", "hsl(0, 0%, 0%)", "", "#fff;x:1",
                                  "red; background: url(http://x)"])
def test_anything_else_is_not_a_colour(text: str) -> None:
    with pytest.raises(ValueError, match="is not a colour"):
        parse_color(text)


# --- the bundled themes ------------------------------------------------------------------


def luminance(color: tuple[float, float, float]) -> float:
    def channel(value: float) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = color
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def over(color: tuple[float, float, float, float], backdrop: tuple[float, float, float]
         ) -> tuple[float, float, float]:
    r, g, b, a = color
    return (r * a + backdrop[0] * (1 - a), g * a + backdrop[1] * (1 - a),
            b * a + backdrop[2] * (1 - a))


def contrast(ink: tuple[float, float, float], paper: tuple[float, float, float]) -> float:
    light, dark = sorted((luminance(ink), luminance(paper)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def base_tokens() -> dict[str, str]:
    tokens = {}
    for line in BASE_CSS[BASE_CSS.index(":root {"):].splitlines()[1:]:
        if line.strip() == "}":
            break
        if line.strip().startswith("--"):
            key, _, value = line.strip().partition(":")
            tokens[key[2:]] = value.split(";")[0].strip()
    return tokens


# Text on its panel, as the pages draw them: (text token, background token).
PAIRS = [("ink", "panel"), ("ink", "panel-2"), ("ink-dim", "panel"), ("ink-dim", "panel-2"),
         ("accent-ink", "accent"), ("badge-ink", "badge"), ("win-ink", "win"),
         ("allin-ink", "allin"), ("break-ink", "break"), ("ink", "winner-panel"),
         ("spades", "card-face"), ("hearts", "card-face"), ("diamonds", "card-face"),
         ("clubs", "card-face"), ("ink", "screen"), ("ink-dim", "screen"),
         ("equity", "panel"), ("accent", "panel"), ("allin", "panel"), ("win", "panel"),
         ("equity", "panel-2"), ("accent", "panel-2"), ("allin", "panel-2"), ("win", "panel-2")]


def test_the_documentation_names_every_token_a_theme_may_set() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "graphics.md").read_text()
    missing = [token for token in (*COLOR_TOKENS, *STYLE_TOKENS) if f"`{token}`" not in text]
    assert missing == []


def test_the_dark_defaults_in_base_css_are_exactly_the_colour_tokens_a_theme_may_set() -> None:
    defaults = base_tokens()
    assert set(COLOR_TOKENS) <= set(defaults)
    for token in COLOR_TOKENS:
        parse_color(defaults[token])  # each default is a colour the parser reads


@pytest.mark.parametrize("theme", bundled_themes(), ids=lambda t: t.name)
def test_every_text_of_a_bundled_theme_has_contrast_4_5_to_1_on_its_panel(theme: Any) -> None:
    tokens = {**base_tokens(), **theme.colors}
    failures = []
    for (ink, paper), tinted in itertools.product(PAIRS, (False, True)):
        for backdrop in ((0.0, 0.0, 0.0), (255.0, 255.0, 255.0), (128.0, 128.0, 128.0)):
            # A panel over the camera picture: what shows through it is any colour; rows and
            # bars add the tint on top of it.
            paper_rgb = over(parse_color(tokens[paper]), backdrop)
            if tinted and paper.startswith("panel"):
                paper_rgb = over(parse_color(tokens["tint"]), paper_rgb)
            ink_rgb = over(parse_color(tokens[ink]), paper_rgb)
            ratio = contrast(ink_rgb, paper_rgb)
            if ratio < 4.5:
                failures.append(f"{ink} on {paper} over {backdrop}: {ratio:.2f}")
    assert failures == []


def test_three_bundled_themes_that_look_clearly_different() -> None:
    themes = {theme.name: theme for theme in bundled_themes()}
    assert {"dark", "classic", "contrast"} <= set(themes)
    tokens = {name: {**base_tokens(), **theme.colors, **theme.style}
              for name, theme in themes.items()}
    for a, b in (("dark", "classic"), ("dark", "contrast"), ("classic", "contrast")):
        panel_a = luminance(over(parse_color(tokens[a]["panel"]), (0, 0, 0)))
        panel_b = luminance(over(parse_color(tokens[b]["panel"]), (0, 0, 0)))
        differing = [key for key in ("panel", "ink", "accent", "radius", "panel-border", "font")
                     if tokens[a][key] != tokens[b][key]]
        assert len(differing) >= 3, (a, b, differing)
        assert abs(panel_a - panel_b) > 0.005 or tokens[a]["accent"] != tokens[b]["accent"]
    # classic is light, the other two dark; classic brings its own type
    assert luminance(over(parse_color(tokens["classic"]["panel"]), (0, 0, 0))) > 0.8
    assert themes["classic"].fonts and "DejaVu Sans Condensed" in themes["classic"].css
    assert "@font-face" in themes["classic"].css


def test_a_theme_stylesheet_sets_custom_properties_and_its_fonts_by_hashed_url() -> None:
    classic = load_theme(THEMES / "classic")
    assert ":root {" in classic.css and "--panel: rgba(250, 251, 253, 0.97);" in classic.css
    assert "--radius: 2px;" in classic.css and "--title-weight: 700;" in classic.css
    urls = [media.url for *_, media in classic.fonts]
    assert all(url in classic.css for url in urls)
    assert all(url.startswith("/graphics/media/") and url.endswith(".ttf") for url in urls)
    assert set(classic.media()) == {media.file_name for *_, media in classic.fonts}
    assert classic.css_url.startswith("/graphics/theme/classic.css?v=")


# --- broken themes: refused by file and key -----------------------------------------------


@pytest.mark.parametrize(("manifest", "key", "problem"), [
    ('[colors]\ninkk = "#fff"\n', "colors.inkk", "unknown colour"),
    ('[colors]\nink = "blu"\n', "colors.ink", "'blu' is not a colour"),
    ('[colours]\nink = "#fff"\n', "colours", "unknown key"),
    ('[style]\nradius = 3\nshadow = 2\n', "style.shadow", "unknown key"),
    ('[style]\nradius = 300\n', "style.radius", "less than or equal to 40"),
    ('[style]\nradius = "3px"\n', "style.radius", "valid integer"),
    ('[style]\ntitle_transform = "shout"\n', "style.title_transform", "'uppercase'"),
    ('[style]\nfont = "Comic"\n', "style.font", "neither a [[fonts]] family"),
    ('[logo]\nfile = "logo.png"\n', "logo.file", "logo.png: no such file"),
    ('[logo]\nfile = "../secret.png"\n', "logo.file", "not a file name inside the theme"),
    ('[logo]\nfile = "/etc/passwd"\n', "logo.file", "not a file name inside the theme"),
    ('[sponsors]\nfiles = ["a.png", "gone.svg"]\n', "sponsors.files[1]", "gone.svg: no such"),
    ('[sponsors]\nfiles = ["a.png"]\nperiod = 1\n', "sponsors.period", "greater than or equal"),
    ('[[fonts]]\nfamily = "X"\nfile = "a.png"\n', "fonts[0].file", "not an OTF, TTF"),
    ('[logo]\nfile = "notes.txt"\n', "logo.file", "not a PNG, JPEG, WebP or SVG"),
    ('[logo]\nfile = "evil.svg"\n', "logo.file", "scripts or embedded HTML is refused"),
    ('[theme\ntitle = "x"\n', "", "not valid TOML"),
])
def test_a_broken_theme_is_refused_naming_the_file_and_the_key(
        tmp_path: Path, manifest: str, key: str, problem: str) -> None:
    folder = theme_folder(tmp_path, manifest)
    (folder / "a.png").write_bytes(png())
    (folder / "notes.txt").write_text("not an image")
    (folder / "evil.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg">'
                                     "<script>alert(1)</script></svg>")
    with pytest.raises(ThemeError) as raised:
        load_theme(folder)
    error = raised.value
    assert error.file == str(folder / "theme.toml")
    assert error.theme_key == key
    assert problem in str(error)
    assert str(folder / "theme.toml") in str(error)
    assert isinstance(error, ConfigError)  # refused at start like any configuration error


def test_a_folder_without_a_manifest_says_so(tmp_path: Path) -> None:
    with pytest.raises(ThemeError, match=r"no such file \(a theme folder holds a theme\.toml\)"):
        load_theme(tmp_path)


def test_a_theme_of_ones_own_with_a_logo_sponsors_and_fonts(tmp_path: Path) -> None:
    folder = theme_folder(tmp_path, """
[theme]
title = "Studio"
[colors]
accent = "#00a0ff"
[style]
font = "Mine"
[[fonts]]
family = "Mine"
file = "fonts/mine.otf"
weight = 700
[logo]
file = "logo.svg"
[sponsors]
files = ["s/one.png", "s/two.svg"]
period = 7
""")
    (folder / "fonts").mkdir()
    shutil.copy(static_dir() / "fonts" / "Inter-Bold.otf", folder / "fonts" / "mine.otf")
    shutil.copy(SAMPLES / "logo.svg", folder / "logo.svg")
    (folder / "s").mkdir()
    (folder / "s" / "one.png").write_bytes(png())
    shutil.copy(SAMPLES / "sponsor-a.svg", folder / "s" / "two.svg")
    theme = load_theme(folder)
    assert theme.title == "Studio" and theme.sponsor_period == 7
    assert theme.logo is not None and theme.logo.content_type == "image/svg+xml"
    assert [m.content_type for m in theme.sponsors] == ["image/png", "image/svg+xml"]
    assert [m.name for m in theme.sponsors] == ["s/one.png", "s/two.svg"]
    assert '--font: "Mine", "Inter"' in theme.css and "--accent: #00a0ff;" in theme.css
    assert len(theme.media()) == 4


# --- [graphics] --------------------------------------------------------------------------


def test_graphics_default_to_the_dark_theme_and_offer_every_bundled_one() -> None:
    config = parse_config({})
    assert config.graphics.theme.name == "dark"
    assert {t.name for t in config.graphics.themes} == {"dark", "classic", "contrast"}
    assert config.graphics.logo is None and config.graphics.sponsors == ()


def test_graphics_section_with_a_theme_folder_logo_and_sponsors_round_trips(
        tmp_path: Path) -> None:
    theme_folder(tmp_path / "themes", '[theme]\ntitle = "Studio"\n')
    shutil.copy(SAMPLES / "logo.svg", tmp_path / "logo.svg")
    (tmp_path / "one.png").write_bytes(png())
    raw = {"graphics": {"theme": "./themes/studio", "logo": "logo.svg",
                        "sponsors": ["one.png"], "sponsor_period": 9}}
    config = parse_config(raw, base_dir=tmp_path)
    graphics = config.graphics
    assert graphics.theme.name == "studio" and graphics.theme.title == "Studio"
    assert {t.name for t in graphics.themes} == {"dark", "classic", "contrast", "studio"}
    assert graphics.logo is not None and graphics.logo.name == "logo.svg"
    assert [m.name for m in graphics.sponsors] == ["one.png"]
    again = parse_config(config_to_raw(config))  # --print-config reads back to the same
    assert again.graphics == graphics


@pytest.mark.parametrize(("section", "key", "problem"), [
    ({"theme": "neon"}, "graphics.theme", "no bundled theme is called 'neon'"),
    ({"theme": "./nowhere"}, "graphics.theme", "is not a folder"),
    ({"theme": 3}, "graphics.theme", "expected a theme's name or folder"),
    ({"logo": "missing.png"}, "graphics.logo", "missing.png: no such file"),
    ({"sponsors": "a.png"}, "graphics.sponsors", "expected a list"),
    ({"sponsors": ["ok.png", "bad.txt"]}, "graphics.sponsors[1]", "not a PNG, JPEG"),
    ({"sponsor_period": 0}, "graphics.sponsor_period", "from 3 to 600"),
    ({"themes": []}, "graphics.themes", "unknown key"),
    ({"layout": "diagonal"}, "graphics.layout", "expected one of column-left, column-right"),
    ({"safe_area": 1}, "graphics.safe_area", "expected true or false"),
])
def test_a_bad_graphics_section_is_refused_by_key(tmp_path: Path, section: dict[str, Any],
                                                  key: str, problem: str) -> None:
    (tmp_path / "ok.png").write_bytes(png())
    (tmp_path / "bad.txt").write_text("x")
    with pytest.raises(ConfigError) as raised:
        parse_graphics(section, base_dir=tmp_path)
    assert raised.value.key == key and problem in str(raised.value)


def test_a_theme_folder_may_not_take_a_bundled_themes_name(tmp_path: Path) -> None:
    theme_folder(tmp_path, "", name="classic")
    with pytest.raises(ConfigError, match="has the name of the bundled theme 'classic'"):
        parse_graphics({"theme": "./classic"}, base_dir=tmp_path)


# --- the desk ------------------------------------------------------------------------------


def show_graphics(tmp_path: Path) -> Any:
    (tmp_path / "a.png").write_bytes(png())
    (tmp_path / "b.png").write_bytes(png(3, 3))
    shutil.copy(SAMPLES / "logo.svg", tmp_path / "logo.svg")
    return parse_graphics({"logo": "logo.svg", "sponsors": ["a.png", "b.png"],
                           "sponsor_period": 10}, base_dir=tmp_path)


def test_the_look_on_air_and_a_change_of_it(tmp_path: Path) -> None:
    desk = GraphicsDesk(show_graphics(tmp_path), tmp_path / "data")
    state = desk.state()
    assert state["name"] == "dark" and state["logo"].startswith("/graphics/media/")
    assert len(state["sponsors"]) == 2 and state["sponsor_period"] == 10
    first = state["look"]
    ids = [s["id"] for s in desk.panel()["sponsors"]]
    assert state["layout"] == "column-left" and state["safe_area"] is False
    assert state["regions"]["landscape"]["players"]["x"] == 48
    desk.choose({"theme": "classic", "logo": False, "sponsors": [ids[1]],
                 "sponsor_period": 4, "layout": "column-right", "safe_area": True})
    state = desk.state()
    assert state["layout"] == "column-right" and state["safe_area"] is True
    assert state["regions"]["landscape"]["players"]["x"] > 960
    assert state["name"] == "classic" and state["logo"] is None
    assert state["sponsors"] == [desk.media(state["sponsors"][0].rsplit("/", 1)[1]).url]
    assert state["sponsor_period"] == 4 and state["look"] != first
    assert desk.media(state["css"].split("?")[0].rsplit("/", 1)[1]) is None  # css: by name


@pytest.mark.parametrize(("changes", "problem"), [
    ({"theme": "neon"}, "there is no theme 'neon' (themes: classic, contrast, dark)"),
    ({"theme": None}, "theme: expected a theme's name"),
    ({"logo": "yes"}, "logo: expected true"),
    ({"sponsors": ["nope"]}, "no sponsor has the id 'nope'"),
    ({"sponsors": "all"}, "expected a list of sponsor ids"),
    ({"sponsor_period": 1}, "from 3 to 600"),
    ({"sponsor_period": True}, "from 3 to 600"),
    ({"colour": "red"}, "unknown graphics setting 'colour'"),
    ({"layout": "diagonal"}, "layout: expected one of column-left, column-right"),
    ({"safe_area": "yes"}, "safe_area: expected true"),
    ({"theme": "classic", "logo": 1}, "logo: expected true"),
])
def test_a_bad_change_is_refused_and_changes_nothing(tmp_path: Path, changes: dict[str, Any],
                                                     problem: str) -> None:
    desk = GraphicsDesk(show_graphics(tmp_path), tmp_path / "data")
    before = desk.state()
    with pytest.raises(InvalidInputError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        desk.choose(changes)
    assert desk.state() == before  # all or nothing: not even the theme of a mixed change


def test_the_choice_survives_a_restart_and_a_bad_file_falls_back(tmp_path: Path) -> None:
    graphics = show_graphics(tmp_path)
    desk = GraphicsDesk(graphics, tmp_path / "data")
    desk.choose({"theme": "contrast", "logo": False})
    desk.save()
    again = GraphicsDesk(graphics, tmp_path / "data")
    assert again.state() == desk.state()
    (tmp_path / "data" / "graphics.json").write_text('{"theme": "gone"}')
    assert GraphicsDesk(graphics, tmp_path / "data").state()["name"] == "dark"
    (tmp_path / "data" / "graphics.json").write_text("{not json")
    assert GraphicsDesk(graphics, tmp_path / "data").state()["name"] == "dark"


def test_pages_hear_of_every_change_and_a_page_showing_the_look_is_not_told_again(
        tmp_path: Path) -> None:
    from engine.channels import ChannelSpec

    desk = GraphicsDesk(default_graphics(), tmp_path)
    hub: ChannelHub[Any] = ChannelHub(ChannelSpec("venue", "public", 0.0),  # type: ignore[arg-type]
                                      _ListReducer())
    fresh, current, raw = Subscription(hub, 8), Subscription(hub, 8), Subscription(hub, 8)
    desk.attach(fresh, shown=None)
    desk.attach(current, shown=desk.state()["look"])
    assert _drain(fresh) == [desk.state()]
    assert _drain(current) == [] and _drain(raw) == []
    desk.choose({"theme": "classic"})
    desk.choose({"theme": "contrast"})  # two changes before the page read: only the newest
    assert _drain(fresh) == [desk.state()] == _drain(current)
    assert desk.state()["name"] == "contrast"
    current.close()
    desk.choose({"theme": "dark"})
    assert desk.attached == 1


class _ListReducer:
    def initial(self) -> list[Any]:
        return []

    def apply(self, state: list[Any], item: Any) -> list[Any]:
        return state

    def snapshot(self, state: list[Any]) -> dict[str, Any]:
        return {}


def _drain(subscription: Subscription) -> list[dict[str, Any]]:
    seen = []
    while (message := subscription.get_nowait()) is not None:
        assert message.type == "theme" and message.revision == -1
        assert '"revision"' not in message.text  # outside the channel's revisions
        seen.append(message.data["theme"])
    return seen


def test_reloading_a_theme_edited_into_a_broken_state_keeps_the_last_good_one(
        tmp_path: Path) -> None:
    folder = theme_folder(tmp_path / "themes", '[colors]\naccent = "#00a0ff"\n')
    graphics = parse_graphics({"theme": str(folder)})
    desk = GraphicsDesk(graphics, tmp_path / "data")
    before = desk.state()
    (folder / "theme.toml").write_text('[colors]\naccent = "#00a0fg"\n')
    with pytest.raises(ThemeError, match=r"colors\.accent.*'#00a0fg' is not a colour") as raised:
        desk.reload()
    assert raised.value.file == str(folder / "theme.toml")
    assert desk.state() == before and "--accent: #00a0ff;" in desk.theme().css
    (folder / "theme.toml").write_text('[colors]\naccent = "#ff00a0"\n')
    assert desk.reload() == ["studio"]
    assert "--accent: #ff00a0;" in desk.theme().css and desk.state()["look"] != before["look"]
    assert desk.reload() == []  # nothing changed on disk: nothing changes on air
