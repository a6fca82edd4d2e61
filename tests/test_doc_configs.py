"""Every configuration example in the README and docs/ is one the service accepts: a key
renamed or a rule tightened in overlay/config.py cannot leave a stale example behind."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from engine.errors import ConfigError
from overlay.config import parse_config
from overlay.festival.settings import parse_festival
from overlay.graphics.themes import load_theme

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
THEME_MANIFEST = "# theme.toml\n"
FESTIVAL_FILE = "# festival.toml\n"
"""A festival's own file (docs/festival.md), read by overlay.festival.settings."""
TOML_BLOCK = re.compile(r"^```toml\n(.*?)^```", re.MULTILINE | re.DOTALL)


def config_examples() -> list[tuple[str, str]]:
    """The examples that are a table's configuration (not theme manifests or festivals)."""
    return [(name, block) for name, block in examples()
            if not block.startswith((THEME_MANIFEST, FESTIVAL_FILE))]


def examples() -> list[tuple[str, str]]:
    return [(f"{path.name}#{number}", block) for path in DOCUMENTS
            for number, block in enumerate(TOML_BLOCK.findall(path.read_text()), 1)]


def test_the_documents_have_examples() -> None:
    names = {name.split("#")[0] for name, _ in examples()}
    assert {"README.md", "rfid-protocol.md", "tournament.md", "obs.md", "graphics.md"} <= names
    assert any(block.startswith(THEME_MANIFEST) for _, block in examples())


@pytest.mark.parametrize(("name", "block"), examples(), ids=[name for name, _ in examples()])
def test_every_configuration_example_is_accepted(name: str, block: str, tmp_path: Path) -> None:
    if block.startswith(THEME_MANIFEST):  # a theme's manifest (docs/graphics.md), not a config
        (tmp_path / "theme.toml").write_text(block)
        load_theme(tmp_path)
        return
    if block.startswith(FESTIVAL_FILE):
        parse_festival(tomllib.loads(block))
        return
    parse_config(tomllib.loads(block))


def test_a_stale_example_would_be_caught() -> None:
    with pytest.raises(ConfigError, match="unknown key"):
        parse_config(tomllib.loads('[[capture.readers]]\nname = "t"\ntransport = "serial"\n'
                                   'address = "/dev/ttyUSB0"\nprotcol = "uid-lines"\n'))
