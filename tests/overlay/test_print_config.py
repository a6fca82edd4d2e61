"""``feltcast serve --print-config`` prints TOML that ``serve --config`` reads back to the same
configuration: checked on every configuration example of the README and docs/, on the demo's
configuration, and through the command line itself."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pytest

from overlay.cli import main
from overlay.config import Config, config_to_toml, load_config, parse_config
from tests.test_doc_configs import config_examples


def reread(config: Config, tmp_path: Path) -> Config:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    path = elsewhere / "printed.toml"
    path.write_text(config_to_toml(config), encoding="utf-8")
    return load_config(path)


@pytest.mark.parametrize(("name", "block"), config_examples(),
                         ids=[name for name, _ in config_examples()])
def test_every_documented_example_reads_back_the_same(name: str, block: str,
                                                      tmp_path: Path) -> None:
    config = parse_config(tomllib.loads(block), base_dir=tmp_path)
    again = reread(config, tmp_path)
    assert again == config
    assert config_to_toml(again) == config_to_toml(config)  # printing it again changes nothing


def test_the_defaults_read_back_the_same(tmp_path: Path) -> None:
    config = load_config(None)  # data_dir relative ("data"): printed absolute
    assert reread(config, tmp_path) == dataclasses.replace(
        config, data_dir=config.data_dir.resolve())


def test_the_command_prints_toml_that_serve_reads(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "feltcast.toml"
    source.write_text('[table]\nname = "Main Event \\"Final\\" Table"\nseats = 9\n\n'
                      '[[players]]\nseat = 2\nname = "Zoë Ñúñez"\nstack = 1200000\n\n'
                      '[delay]\nseconds = 1800\n\n[channels.secure]\nenabled = true\n',
                      encoding="utf-8")
    assert main(["serve", "--config", str(source), "--port", "9123", "--print-config"]) == 0
    printed = capsys.readouterr().out
    document = tomllib.loads(printed)  # TOML, not a Python repr
    assert document["server"]["port"] == 9123 and document["delay"]["seconds"] == 1800
    assert document["players"] == [{"seat": 2, "name": "Zoë Ñúñez", "stack": 1200000}]
    (tmp_path / "copy.toml").write_text(printed, encoding="utf-8")
    original = load_config(source)
    assert load_config(tmp_path / "copy.toml") == dataclasses.replace(
        original, server=dataclasses.replace(original.server, port=9123))
