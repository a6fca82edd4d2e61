from __future__ import annotations

import stat
from pathlib import Path

from overlay.auth import load_or_create_tokens


def test_tokens_are_created_once_privately_and_reloaded(tmp_path: Path) -> None:
    first = load_or_create_tokens(tmp_path / "data")
    assert first.created
    assert len(first.operator) >= 32 and first.operator != first.secure
    path = tmp_path / "data" / "tokens.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    second = load_or_create_tokens(tmp_path / "data")
    assert not second.created
    assert (second.operator, second.secure) == (first.operator, first.secure)


def test_roles_granted_by_each_token(tmp_path: Path) -> None:
    tokens = load_or_create_tokens(tmp_path)
    assert tokens.roles_of(tokens.operator) == {"operator", "secure"}
    assert tokens.roles_of(tokens.secure) == {"secure"}
    assert tokens.roles_of("wrong") == frozenset()
    assert tokens.roles_of(None) == frozenset()
    assert tokens.roles_of(tokens.operator[:-1]) == frozenset()
