"""Shared fixtures of the export tests: one real service log per module run, the televised
PHH hands as log entries, and PokerKit set up for Feltcast's chip unit (R17)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine.hand import Hand
from engine.log import TableEvent
from overlay import phh_files
from overlay.export.hands import HandRecord, read_hands
from overlay.store import open_store
from tests.overlay.export.session import TABLE_NAME, record_session

DATA = Path(__file__).resolve().parents[4] / "shared" / "data" / "phh"
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"the shared PHH files are not at "
                                                          f"{DATA}")


@pytest.fixture(scope="session")
def session_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory whose log the TableService wrote (tests/overlay/export/session.py)."""
    return record_session(tmp_path_factory.mktemp("session"))


@pytest.fixture(scope="session")
def session_hands(session_dir: Path) -> list[HandRecord]:
    store = open_store(data_dir=session_dir)
    try:
        return list(read_hands(store.iter_all(), table=TABLE_NAME))
    finally:
        store.close()


def log_of(hand: Hand, *, t0: float = 1_700_000_000.0, step: float = 1.5) -> list[TableEvent]:
    """A hand's events as log entries (seq from 1), ``step`` seconds apart."""
    return [TableEvent.record(k + 1, t0 + k * step, event)
            for k, event in enumerate(hand.events)]


def record_of(hand: Hand, table: str = "TV Table") -> HandRecord:
    (record,) = read_hands(log_of(hand), table=table)
    return record


def televised(limit_pluribus: int = 40) -> Iterator[Path]:
    """The WSOP and famous hands, and the first ``limit_pluribus`` Pluribus hands."""
    if not DATA.is_dir():
        return
    yield from sorted((DATA / "wsop-2023-43-day5").glob("*.phh"))
    yield from sorted((DATA / "famous").glob("*.phh"))
    yield from list(phh_files.iter_files([DATA / "pluribus"]))[:limit_pluribus]


def chip_divmod(unit: int) -> Callable[[int, int], tuple[int, int]]:
    """PokerKit's pot division in units of the smallest chip (R17: the odd units go to the
    first winner clockwise from the button, PokerKit's rule too)."""
    def divide(amount: int, winners: int) -> tuple[int, int]:
        share = (amount // unit // winners) * unit
        return share, amount - share * winners
    return divide
