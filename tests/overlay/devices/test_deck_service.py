"""Deck registration through the running service (the operator page's guided scan): deck
commands over ``POST /api/commands``, the prompts read from ``/api/state?channel=operator``,
and a simulated reader on a real pseudo-terminal presenting the cards it is asked for."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from capture.rfid.decks import DeckRegistry
from capture.simulator import simulated_uid
from engine.cards import REGISTRATION_ORDER, Card
from overlay.store import create_db_engine, database_url

from .rig import READER, ServiceRig, service_rig, uid

BOARD = 11
NEW_DECK = 2  # the simulator's second deck: tags no active deck has


def new_uid(code: str) -> str:
    return simulated_uid(Card(code), NEW_DECK)


async def decks_view(rig: ServiceRig, predicate: Any, what: str,
                     timeout: float = 6.0) -> dict[str, Any]:
    """The operator view's ``decks`` field once ``predicate`` holds for it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        decks: dict[str, Any] | None = (await rig.state("operator"))["operator"]["decks"]
        if decks is not None and predicate(decks):  # None: no device report yet
            return decks
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}; last decks field: {decks}")
        await asyncio.sleep(0.01)


def scan_at(done: int, phase: str = "scan") -> Any:
    """The scan prompts card ``done + 1`` (the antenna was cleared after the last one)."""
    return lambda d: (d["scan"] is not None and d["scan"]["phase"] == phase
                      and d["scan"]["done"] == done
                      and not d["scan"]["text"].startswith("Take"))


async def present_the_deck(rig: ServiceRig) -> list[str]:
    """Present every card the scan asks for, then verify (the ace, then the whole deck at
    once); returns the cards asked for, in order."""
    prompts: list[str] = []
    for index in range(52):
        decks = await decks_view(rig, scan_at(index), f"the prompt for card {index + 1}")
        prompts.append(decks["scan"]["card"])
        rig.sim.place(BOARD, new_uid(decks["scan"]["card"]))
        await decks_view(rig, lambda d, n=index + 1: d["scan"]["done"] == n
                         or d["scan"]["phase"] != "scan", f"card {index + 1} accepted")
        rig.sim.clear(BOARD)
    decks = await decks_view(rig, scan_at(0, "verify"), "the verification prompt")
    assert decks["scan"]["card"] == "As" and "Verification" in decks["scan"]["text"]
    rig.sim.place(BOARD, new_uid("As"))
    await decks_view(rig, lambda d: d["scan"]["done"] == 1, "the ace verified")
    rig.sim.place(BOARD, *(new_uid(c.code) for c in REGISTRATION_ORDER[1:]))
    return prompts


async def refused(rig: ServiceRig, kind: str, **fields: Any) -> tuple[int, dict[str, Any]]:
    status, reply = await rig.command(kind, **fields)
    assert status >= 400, reply
    error: dict[str, Any] = reply["error"]
    return status, error


async def test_a_whole_guided_scan_through_the_service_saves_an_activatable_deck(
        tmp_path: Path) -> None:
    async with service_rig(tmp_path, scan_interval=0.02) as rig:
        decks = await decks_view(rig, lambda d: d["decks"], "the deck list")
        assert decks["active"] == "Simulator 1" and decks["scan"] is None
        assert decks["decks"] == [{"name": "Simulator 1", "status": "active", "cards": 52}]
        # Refusals a floor manager understands, before anything starts.
        status, error = await refused(rig, "deck_scan_start", name="Blue 2", reader="rail",
                                      antenna=BOARD)
        assert status == 422 and "no reader called 'rail'" in error["message"]
        assert READER in error["message"]  # it names the readers there are
        status, error = await refused(rig, "deck_scan_start", name="Simulator 1",
                                      reader=READER, antenna=BOARD)
        assert status == 422 and "already exists" in error["message"]
        status, error = await refused(rig, "deck_scan_start", name="Blue 2", reader=READER)
        assert status == 422 and "antenna" in error["message"]

        await rig.ok("deck_scan_start", name="Blue 2", reader=READER, antenna=BOARD)
        decks = await decks_view(rig, scan_at(0), "the first prompt")
        scan = decks["scan"]
        assert (scan["name"], scan["card"], scan["total"], scan["message"]) == \
            ("Blue 2", "As", 52, None)
        assert "Ace of spades" in scan["text"] and f"antenna {BOARD}" in scan["text"]
        status, error = await refused(rig, "deck_scan_start", name="Red 3", reader=READER,
                                      antenna=BOARD)
        assert status == 409 and "'Blue 2' is being scanned" in error["message"]

        # A tag of the active deck is refused (no UID twice across active decks), and live
        # play does not see the scan antenna: no board card, no unknown-tag alert.
        rig.sim.place(BOARD, uid("As"))
        decks = await decks_view(rig, lambda d: d["scan"]["message"], "the refusal")
        assert "active deck 'Simulator 1'" in decks["scan"]["message"]
        assert decks["scan"]["done"] == 0
        assert rig.bridge._board == {}
        assert not rig.alerts(await rig.state("operator"), "unknown_uid")
        rig.sim.clear(BOARD)

        # The scan: present each card the operator page asks for, in its order.
        assert await present_the_deck(rig) == [card.code for card in REGISTRATION_ORDER]
        decks = await decks_view(rig, lambda d: any(x["name"] == "Blue 2" for x in d["decks"]),
                                 "the deck saved")
        assert decks["scan"]["saved"] is True
        assert decks["scan"]["phase"] == "done" and decks["scan"]["done"] == 52
        assert "saved" in decks["scan"]["text"]
        assert {"name": "Blue 2", "status": "ready", "cards": 52} in decks["decks"]
        rig.sim.clear(BOARD)

        await rig.ok("deck_activate", name="Blue 2")
        decks = await decks_view(rig, lambda d: d["active"] == "Blue 2", "Blue 2 active")
        assert decks["scan"] is None  # activating the registered deck closes the scan
        statuses = {d["name"]: d["status"] for d in decks["decks"]}
        assert statuses == {"Simulator 1": "ready", "Blue 2": "active"}
        assert rig.bridge.deck == "Blue 2"
        # Live play reads the new deck's tags.
        await rig.ok("next_hand")
        rig.sim.place(1, new_uid("Ah"), new_uid("Kh"))
        view = await rig.until_view("operator", lambda v: next(
            s for s in v["seats"] if s["seat"] == 1)["cards"] == ["Ah", "Kh"],
            what="seat 1's cards from the new deck")
        assert not rig.alerts(view, "unknown_uid")

        # Decks are registered between hands.
        status, error = await refused(rig, "deck_scan_start", name="Red 3", reader=READER,
                                      antenna=BOARD)
        assert status == 409 and "a hand is running" in error["message"]
        status, error = await refused(rig, "deck_retire", name="Blue 2")
        assert status == 409 and "a hand is running" in error["message"]
        await rig.ok("deck_retire", name="Simulator 1")
        decks = await decks_view(rig, lambda d: d["decks"][0]["status"] == "retired",
                                 "Simulator 1 retired")
        status, error = await refused(rig, "deck_activate", name="Simulator 1")
        assert status == 409 and "a hand is running" in error["message"]


async def test_a_cancelled_scan_saves_nothing_and_gives_the_antenna_back(
        tmp_path: Path) -> None:
    async with service_rig(tmp_path, scan_interval=0.02) as rig:
        body = {"id": "5d0c2b1e-0f4e-4c43-9a53-7d2f4a1c0b9e", "type": "deck_scan_start",
                "name": "Green 4", "reader": READER, "antenna": BOARD}
        for _attempt in range(2):  # a retry with the same id is answered, not run again
            async with rig.session.post(rig.url("/api/commands"), json=body,
                                        headers=rig.headers()) as response:
                reply = await response.json()
                assert response.status == 200 and reply["ok"] and reply["id"] == body["id"]
        await decks_view(rig, scan_at(0), "the first prompt")
        # A hand started during the scan is warned: the scan antenna's reads miss it.
        assert not rig.alerts(await rig.state("operator"), "deck_scan_in_hand")
        await rig.ok("next_hand")
        view = await rig.until_view("operator", lambda v: rig.alerts(v, "deck_scan_in_hand"),
                                    what="the scan-during-a-hand warning")
        assert "antenna 11 of table" in rig.alerts(view, "deck_scan_in_hand")[0]["message"]
        rig.sim.place(BOARD, new_uid("As"))
        await decks_view(rig, lambda d: d["scan"]["done"] == 1, "the ace accepted")
        await rig.ok("deck_scan_cancel")
        decks = await decks_view(rig, lambda d: d["scan"] is None, "the scan closed")
        assert [d["name"] for d in decks["decks"]] == ["Simulator 1"]
        assert not rig.alerts(await rig.state("operator"), "deck_scan_in_hand")
        # The board antenna is in play again: a tag of no active deck is an alert there.
        view = await rig.until_view("operator", lambda v: rig.alerts(v, "unknown_uid"),
                                    what="the unknown tag on the board")
        assert rig.alerts(view, "unknown_uid")


async def test_a_verified_deck_whose_name_was_taken_meanwhile_is_saved_under_another(
        tmp_path: Path) -> None:
    """52 cards are not scanned twice because a save failed: the verified scan waits."""
    async with service_rig(tmp_path, scan_interval=0.02) as rig:
        status, error = await refused(rig, "deck_scan_save", name="Blue 2")
        assert status == 409 and "no verified deck waiting" in error["message"]
        await rig.ok("deck_scan_start", name="Blue 2", reader=READER, antenna=BOARD)
        # Meanwhile somebody saves a deck called Blue 2 (feltcast deck, another console).
        engine = create_db_engine(database_url("", tmp_path / "data"))
        try:
            DeckRegistry(engine).save("Blue 2", {card: simulated_uid(card, 3)
                                                 for card in REGISTRATION_ORDER})
        finally:
            engine.dispose()
        await present_the_deck(rig)
        decks = await decks_view(rig, lambda d: d["scan"]["phase"] == "done"
                                 and d["scan"]["saved"] is False, "the failed save")
        assert "already exists" in decks["scan"]["message"]
        assert "save it under another name" in decks["scan"]["text"]
        rig.sim.clear(BOARD)
        # A name that is taken again is refused, and the scan still waits.
        status, error = await refused(rig, "deck_scan_save", name="Simulator 1")
        assert status == 422 and "already exists" in error["message"]
        decks = await decks_view(rig, lambda d: d["scan"]["saved"] is False, "still waiting")
        await rig.ok("deck_scan_save", name="Blue 3")
        decks = await decks_view(rig, lambda d: d["scan"]["saved"] is True, "saved as Blue 3")
        assert decks["scan"]["name"] == "Blue 3" and "saved" in decks["scan"]["text"]
        assert {"name": "Blue 3", "status": "ready", "cards": 52} in decks["decks"]
        await rig.ok("deck_activate", name="Blue 3")
        await decks_view(rig, lambda d: d["active"] == "Blue 3", "Blue 3 active")
        assert rig.bridge.deck == "Blue 3"


async def test_a_deck_command_retried_after_a_restart_gets_its_first_answer(
        tmp_path: Path) -> None:
    async def send(rig: ServiceRig, command_id: str, name: str) -> tuple[int, Any]:
        body = {"id": command_id, "type": "deck_retire", "name": name}
        async with rig.session.post(rig.url("/api/commands"), json=body,
                                    headers=rig.headers()) as response:
            return response.status, await response.json()

    async with service_rig(tmp_path) as rig:
        status, first = await send(rig, "retire-0000001", "Simulator 1")
        assert status == 200 and first["ok"]
    # The tablet's retry comes after a restart: answered from the store, not run again (run
    # again, a retirement of a deck that does not exist would be refused).
    async with service_rig(tmp_path, deck=False) as rig:
        status, again = await send(rig, "retire-0000001", "No such deck")
        assert (status, again.get("id"), again.get("ok")) == (200, "retire-0000001", True), again
        status, error = await send(rig, "retire-0000002", "No such deck")  # a new command
        assert status == 422 and "No such deck" in error["error"]["message"], error
