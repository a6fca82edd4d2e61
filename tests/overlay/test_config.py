from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import ConfigError
from overlay.config import load_config, parse_config, with_overrides

GOOD = """
[table]
name = "WSOP Final"
seats = 9
levels = [[20000, 40000, 40000], [40000, 80000, 80000]]
level = 2
ante_mode = "big_blind"

[[players]]
seat = 2
name = "Tong"
stack = 2500000

[[players]]
seat = 1
name = "Ashton"
stack = 7380000

[delay]
seconds = 1800

[channels.reveal]
filter = "reveal_after_hand"

[[capture.readers]]
name = "table"
transport = "serial"
address = "/dev/ttyUSB0"
antennas = { 1 = "seat 1", 11 = "board" }
"""


def test_a_good_file(tmp_path: Path) -> None:
    path = tmp_path / "feltcast.toml"
    path.write_text(GOOD)
    config = load_config(path)
    assert config.table.seats == 9
    assert config.table.levels[1] == (40000, 80000, 80000)
    assert [p.name for p in config.players] == ["Ashton", "Tong"]
    assert config.delay == 1800.0
    assert config.channel("delayed").delay == 1800.0
    assert config.channel("venue").delay == 0.0
    assert config.channel("secure").requires_token and not config.channel("secure").enabled
    assert config.channel("reveal").filter == "reveal_after_hand"
    assert config.readers[0].antennas == {1: "seat 1", 11: "board"}
    assert config.data_dir == tmp_path / "data"


def test_defaults_without_a_file() -> None:
    config = load_config(None)
    assert (config.server.host, config.server.port) == ("127.0.0.1", 8080)
    assert {c.name for c in config.channels} == {"venue", "delayed", "secure", "reveal"}


@pytest.mark.parametrize("text, key, fragment", [
    ("[table]\nseats = 12", "table.seats", "2 to 10 seats"),
    ("[table]\nseats = 'nine'", "table.seats", "whole number"),
    ("[table]\nante_mode = 'sometimes'", "table.ante_mode", "not one of"),
    ("[[players]]\nseat = 1\nname = 'A'\n[[players]]\nseat = 1\nname = 'B'",
     "players[1].seat", "already taken"),
    ("[[players]]\nseat = 11\nname = 'A'", "players[0].seat", "does not exist"),
    ("[[players]]\nname = 'A'", "players[0].seat", "missing"),
    ("[delay]\nseconds = -5", "delay.seconds", "zero or more"),
    ("[channels.live]\nfilter = 'full'\nrequires_token = false", "channels.live.requires_token",
     "must require a token"),
    ("[channels.new]\ndelay = 5", "channels.new.filter", "missing"),
    ("[obs]\nenabled = true", "obs.password", "required"),
    ("[tabel]\nseats = 9", "tabel", "unknown key"),
    ("[table]\nlevels = [[50, 25]]", "table.levels[0]", "not valid"),
    ("[table]\nlevel = 30", "table.level", "no level 30"),
    ("[server]\nport = 70000", "server.port", "not a TCP port"),
])
def test_bad_values_name_the_key(text: str, key: str, fragment: str, tmp_path: Path) -> None:
    path = tmp_path / "feltcast.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert info.value.key == key
    assert fragment in str(info.value)


def test_broken_toml_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "feltcast.toml"
    path.write_text("[table\nseats = 9")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(path)
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.toml")


def test_command_line_overrides_win() -> None:
    config = with_overrides(parse_config({"delay": {"seconds": 900}}), host="127.0.0.1",
                            port=0, delay=30, data_dir=Path("/tmp/x"))
    assert config.server.port == 0
    assert config.channel("delayed").delay == 30
    assert config.data_dir == Path("/tmp/x")
    with pytest.raises(ConfigError, match="--host"):
        with_overrides(config, host="not a host")


def test_obs_section_passes_scenes_and_rules_through(tmp_path: Path) -> None:
    from overlay.devices.obs.control import settings_from_config

    path = tmp_path / "feltcast.toml"
    path.write_text("""
[obs]
enabled = true
password = "pw"
table_scene = "Final Table"
rules = [{ on = "hand_ended", do = "switch_scene", scene = "Final Table" }]
""")
    settings = settings_from_config(load_config(path))
    assert settings is not None
    assert settings.table_scene == "Final Table"
    assert [rule.on for rule in settings.rules] == ["hand_ended"]
    path.write_text('[obs]\nrules = [{ on = "hand_ended", do = "dance" }]\n')
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert info.value.key.startswith("obs.rules[0]")


def test_a_zero_delay_makes_the_delayed_channel_token_only() -> None:
    assert parse_config({"delay": {"seconds": 0}}).channel("delayed").requires_token
    assert not parse_config({"delay": {"seconds": 30}}).channel("delayed").requires_token
    config = with_overrides(parse_config({}), delay=0)
    assert config.channel("delayed").requires_token


def test_the_configuration_is_read_once_into_domain_values() -> None:
    """The structure, tournament settings, readers and OBS settings are made with the
    configuration (a replace makes them again), and what they refuse names the key."""
    import dataclasses

    from capture.rfid.transports import TcpEndpoint
    from engine.tournament import BlindLevel
    from overlay.table_service import build_table

    config = parse_config({
        "table": {"name": "Day 3", "seats": 9},
        "players": [{"seat": 1, "name": "A", "stack": 100}, {"seat": 2, "name": "B",
                                                             "stack": 100}],
        "tournament": {"levels": [{"small_blind": 100, "big_blind": 200, "ante": 200,
                                   "minutes": 30}], "prize_pool": 1000,
                       "payouts": {"percentages": [70, 30]}},
        "capture": {"readers": [{"name": "rail", "transport": "tcp",
                                 "address": "127.0.0.1:4001"}]},
        "obs": {"table_scene": "Feature"}})
    assert config.structure.levels == (BlindLevel(1, 100, 200, 200, 30),)
    assert build_table(config).structure is config.structure  # the service uses that one
    assert config.tournament_settings.name == "Day 3"
    assert config.tournament_settings.prizes(2) == (700, 300)
    (reader,) = config.rfid.readers
    assert reader.endpoint == TcpEndpoint("127.0.0.1", 4001)
    assert len(config.rfid.antenna_map.entries) == 9 + 3  # standard layout, nine seats
    assert config.obs.settings.table_scene == "Feature"
    renamed = dataclasses.replace(config, table=dataclasses.replace(config.table, name="Day 4"))
    assert renamed.tournament_settings.name == "Day 4"
    with pytest.raises(ConfigError) as caught:
        parse_config({"capture": {"readers": [{"name": "rail", "transport": "tcp",
                                               "address": "127.0.0.1:4001",
                                               "antennas": {"4": "rail"}}]}})
    assert caught.value.key == "capture.readers[0].antennas.rail.4"
