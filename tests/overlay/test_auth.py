"""The shared tokens of ``tokens.json``: issued once and printed once, kept as digests (the
operator's and the production room's never in clear), rotated from the CLI, and a file from
before 0.2 (every token in clear) rewritten with digests on its first read."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from engine.errors import ConfigError, InvalidInputError
from overlay.auth import (
    TokenFile,
    load_or_create_tokens,
    read_tokens,
    rotate_tokens,
)
from overlay.cli import main


def test_tokens_are_issued_once_and_kept_only_as_digests(tmp_path: Path) -> None:
    first = load_or_create_tokens(tmp_path / "data")
    assert first.created
    assert len(first.operator) >= 32 and first.operator != first.secure
    path = tmp_path / "data" / "tokens.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    kept = path.read_text()
    assert first.operator not in kept and first.secure not in kept
    assert first.obs in kept  # written into OBS's browser sources by the service itself
    second = load_or_create_tokens(tmp_path / "data")
    assert not second.created and second.operator == "" and second.secure == ""
    assert second.role_of(first.operator) == "operator"
    assert second.role_of(first.secure) == "secure"
    assert second.role_of(first.obs) == "obs"


def test_roles_granted_by_each_token(tmp_path: Path) -> None:
    tokens = load_or_create_tokens(tmp_path)
    assert tokens.roles_of(tokens.operator) == {"operator", "secure"}
    assert tokens.roles_of(tokens.secure) == {"secure"}
    assert tokens.roles_of(tokens.obs) == {"obs"}
    assert tokens.roles_of("wrong") == frozenset()
    assert tokens.roles_of(None) == frozenset()
    assert tokens.roles_of(tokens.operator[:-1]) == frozenset()


def test_a_file_from_before_digests_is_rewritten_and_its_tokens_keep_working(
        tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"operator": "op-" + "a" * 30, "secure": "se-" + "b" * 30}))
    tokens = read_tokens(tmp_path)
    assert tokens is not None
    assert tokens.role_of("op-" + "a" * 30) == "operator"
    assert tokens.role_of("se-" + "b" * 30) == "secure"
    assert tokens.obs  # the obs role did not exist then: issued now
    kept = path.read_text()
    assert "a" * 30 not in kept and "b" * 30 not in kept
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = read_tokens(tmp_path)
    assert again is not None and again.digests == tokens.digests and again.obs == tokens.obs


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"format": 2, "sha256": 5}'])
def test_a_damaged_token_file_is_named(tmp_path: Path, content: str) -> None:
    (tmp_path / "tokens.json").write_text(content)
    with pytest.raises(ConfigError, match=r"tokens\.json .*move it away"):
        read_tokens(tmp_path)


def test_rotation_replaces_one_role_and_keeps_the_others(tmp_path: Path) -> None:
    first = load_or_create_tokens(tmp_path)
    watcher = TokenFile(tmp_path, first)
    assert watcher.refresh() == set()  # unchanged file: nothing re-read
    rotated = rotate_tokens(tmp_path, ("operator",))
    assert set(rotated.issued) == {"operator"} and rotated.operator != first.operator
    assert rotated.role_of(first.operator) == ""
    assert rotated.role_of(rotated.operator) == "operator"
    assert rotated.role_of(first.secure) == "secure" and rotated.obs == first.obs
    assert watcher.refresh() == {"operator"}  # a running service sees it
    assert watcher.tokens.role_of(first.operator) == ""
    with pytest.raises(InvalidInputError, match="commentary is not one"):
        rotate_tokens(tmp_path, ("commentary",))


def test_the_cli_rotates_and_prints_the_new_tokens_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = load_or_create_tokens(tmp_path)
    assert main(["tokens", "rotate", "secure", "obs", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    printed = dict(line.split() for line in out.splitlines() if line.startswith("  "))
    assert set(printed) == {"secure", "obs"}
    tokens = read_tokens(tmp_path)
    assert tokens is not None
    assert tokens.role_of(printed["secure"]) == "secure" and tokens.obs == printed["obs"]
    assert tokens.role_of(first.secure) == "" and tokens.role_of(first.obs) == ""
    assert "feltcast obs setup" in out  # OBS's sources need the new obs token
