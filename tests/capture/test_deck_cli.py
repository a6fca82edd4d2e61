"""``feltcast deck`` end to end: the real CLI in a subprocess registers a deck from a simulated
reader on a real TCP socket into a real SQLite file."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa

from capture.rfid.decks import DeckRegistry, DeckStatus
from capture.simulator import SimulatedReader, simulated_uid
from engine.cards import REGISTRATION_ORDER, Card
from overlay.cli import main

FELTCAST = [sys.executable, "-m", "overlay"]
ROOT = Path(__file__).resolve().parents[2]
CARD = re.compile(r"\(([2-9TJQKA][cdhs])\)")


async def test_register_a_deck_from_a_reader(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'feltcast.db'}"
    lines: list[str] = []
    async with SimulatedReader("station", antennas=1, scan_interval=0.01) as sim:
        port = await sim.open_tcp()
        proc = await asyncio.create_subprocess_exec(
            *FELTCAST, "deck", "--db", db, "register", "Blue 1", "--reader",
            f"tcp:127.0.0.1:{port}", "--activate", "final", cwd=ROOT,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        assert proc.stdout is not None
        try:
            async with asyncio.timeout(25):
                tricked = False
                while line := (await proc.stdout.readline()).decode():
                    lines.append(line.rstrip("\n"))
                    if line.startswith("Put the") and "card 3 of" in line and not tricked:
                        tricked = True  # two cards at once, first: refused with a message
                        sim.place(1, simulated_uid(Card("2c")), simulated_uid(Card("3c")))
                    elif line.startswith("! 2 tags"):
                        sim.clear(1)
                        sim.place(1, simulated_uid(Card("Qs")))
                    elif line.startswith("Put the"):
                        sim.clear(1)
                        sim.place(1, simulated_uid(Card(CARD.findall(line)[0])))
                    elif line.startswith("Take the card off"):
                        sim.clear(1)
                    elif line.startswith("Verification"):
                        sim.clear(1)
                        sim.place(1, *(simulated_uid(c) for c in REGISTRATION_ORDER))
                status = await proc.wait()
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
    assert status == 0, "\n".join(lines) + (await proc.stderr.read()).decode()  # type: ignore[union-attr]
    assert "! 2 tags on the antenna: put one card at a time" in lines
    assert [line for line in lines if line.startswith("ok ")] == [
        f"ok {card}" for card in REGISTRATION_ORDER]
    assert lines[-2:] == ["Deck 'Blue 1': all 52 cards registered and verified.",
                          "deck 'Blue 1' is now the active deck of table final"]
    engine = sa.create_engine(db)
    try:
        registry = DeckRegistry(engine)
        assert registry.deck("Blue 1").status is DeckStatus.ACTIVE
        assert registry.active_cards("final") == {
            simulated_uid(card): card for card in REGISTRATION_ORDER}
    finally:
        engine.dispose()


def test_list_activate_retire(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'feltcast.db'}"
    engine = sa.create_engine(db)
    try:
        DeckRegistry(engine).save("Red 1", {c: simulated_uid(c, 2) for c in REGISTRATION_ORDER})
    finally:
        engine.dispose()

    def feltcast(*args: str) -> tuple[int, str, str]:
        status = main(["deck", "--db", db, *args])  # the CLI entry point, in-process
        out, err = capsys.readouterr()
        return status, out, err

    assert feltcast("list") == (0, "Red 1\tready\n", "")
    assert feltcast("activate", "Red 1", "final")[0] == 0
    assert feltcast("list") == (0, "Red 1\tactive at table final\n", "")
    assert feltcast("retire", "Red 1")[0] == 0
    assert feltcast("activate", "Red 1", "final") == (
        2, "", "feltcast deck: error: deck 'Red 1' is retired\n")
    assert feltcast("activate", "Nope", "final")[0] == 2
