"""Hands exported with their tournament context (issues 9 and 10): identities, places and
prizes (R22, R23) and the configured tournament, in PHH, PokerStars text and OHH.

The log is written by the real TableService with a ``[tournament]`` configuration (EUR
100,000 paid 40/30/20/10 over five entrants), two identities given through ``set_player``
(one of them during a hand), and three hands: the first busts two players at once (R22: the
larger starting stack finishes higher; 4th is paid, 5th is not), the second a third player,
the third ends the tournament (2nd place and the winner).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pokerkit
import pytest

from engine import phh
from engine.identity import Identity, PlayerIdentified
from engine.log import TableEvent
from engine.table_events import SeatEmptied
from engine.tournament_events import PlayerDisqualified, PrizeAwarded
from overlay.cli.export_hands import run_export
from overlay.config import load_config, parse_config
from overlay.export.hands import Bust, HandRecord, TournamentInfo, read_hands
from overlay.export.ohh import ohh_object
from overlay.export.phh import phh_text
from overlay.export.pokerstars import ordinal, pokerstars_text
from overlay.hub import TableLog
from overlay.store import open_store
from overlay.table_service import TableService
from tests.overlay.export.conftest import chip_divmod
from tests.overlay.export.session import Clock, Session

pytestmark = pytest.mark.filterwarnings(
    "ignore:The field 'time_zone_abbreviation' is an unexpected field:UserWarning")

TABLE = "Final Table"
TOURNAMENT = {"name": "Feltcast Open Main Event", "entrants": 5, "prize_pool": 100_000,
              "currency": "EUR", "payouts": {"percentages": [40, 30, 20, 10]}}
PLAYERS: list[dict[str, Any]] = [
    {"seat": 1, "name": "Ann Smith", "stack": 20_000},
    {"seat": 3, "name": "Zoë Ørsted", "stack": 8_000},
    {"seat": 5, "name": "李雷", "stack": 6_000},
    {"seat": 8, "name": "Bo O'Brien", "stack": 30_000},
    {"seat": 9, "name": "Cy Young", "stack": 4_000},
]
SCHEMA = json.loads(Path(__file__).with_name("ohh_schema.json").read_text(encoding="utf-8"))


def config_data(data_dir: Path, players: list[dict[str, Any]] = PLAYERS) -> dict[str, Any]:
    return {"table": {"name": TABLE, "seats": 9, "button": 1, "chip_unit": 25,
                      "levels": [[100, 200]]},
            "players": players, "tournament": TOURNAMENT, "data_dir": str(data_dir)}


async def _until_nobody_acts(s: Session, policy: dict[int, str]) -> None:
    while (hand := s.service.hand) is not None and hand.actor_seat is not None:
        await s.act(policy[hand.actor_seat])


async def _play(data_dir: Path, players: list[dict[str, Any]] = PLAYERS,
                hands: int = 3) -> None:
    config = parse_config(config_data(data_dir, players))
    clock = Clock()
    store = open_store(data_dir=data_dir)
    table_log = TableLog(store, clock=clock)
    service = TableService(config, table_log, clock=clock)
    await service.start()
    s = Session(service, clock)
    try:
        await s.send("set_player", seat=3, display_name="Zoë", country="DK")
        # Hand 1: button 1, SB 3, BB 5, Bo first. Bo, Zoë and 李雷 all in; Bo's aces hold:
        # Zoë (8,000 at the start) and 李雷 (6,000) bust in the same hand (R22).
        await s.deal({1: "7c2d", 3: "KdKs", 5: "QhQc", 8: "AsAd", 9: "8h3c"})
        await s.send("set_player", seat=1, name="Ann Smith", display_name="Ann",
                     country="GB")  # during the hand: known at the hand
        await _until_nobody_acts(s, {8: "all_in", 9: "fold", 1: "fold", 3: "all_in",
                                     5: "all_in"})
        await s.check_down("2c3d4s", "9c", "Jh")
        if hands == 1:
            return
        # Hand 2: Cy all in, Bo calls, Ann folds: Cy busts in 3rd.
        await s.deal({1: "9d8d", 8: "KhKc", 9: "7h2s"})
        await _until_nobody_acts(s, {9: "all_in", 8: "call", 1: "fold"})
        await s.check_down("2h5c9s", "Ts", "Qd")
        # Hand 3: Ann all in, Bo calls: Ann is 2nd, Bo wins the tournament.
        await s.deal({1: "7d2c", 8: "AhAc"})
        await _until_nobody_acts(s, {1: "all_in", 8: "call"})
        await s.check_down("3h8sKc", "Td", "4d")
    finally:
        service.close()
        await table_log.close()


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tournament")
    asyncio.run(_play(folder))
    return folder


@pytest.fixture(scope="module")
def records(data_dir: Path) -> list[HandRecord]:
    info = TournamentInfo.from_config(parse_config(config_data(data_dir)))
    store = open_store(data_dir=data_dir)
    try:
        return list(read_hands(store.iter_all(), table=TABLE, tournament=info))
    finally:
        store.close()


def test_the_log_holds_the_places_and_prizes_after_each_hand(records: list[HandRecord]) -> None:
    assert [r.number for r in records] == [1, 2, 3]
    first, second, third = records
    # R22: same hand, larger starting stack higher; R23: 40/30/20/10 of EUR 100,000
    assert first.busts == (Bust(5, "李雷", 5, 0), Bust(3, "Zoë Ørsted", 4, 10_000))
    assert first.winner is None
    assert second.busts == (Bust(9, "Cy Young", 3, 20_000),)
    assert third.busts == (Bust(1, "Ann Smith", 2, 30_000),)
    assert third.winner == PrizeAwarded("Bo O'Brien", 1, 40_000, 0, 8)
    # the prizes belong to their hand only, and are among its entries
    assert {p.name for p in first.prizes} == {"李雷", "Zoë Ørsted"}
    assert all(e.seq > 0 for e in first.entries if isinstance(e.payload, PrizeAwarded))
    assert first.tournament == TournamentInfo("Feltcast Open Main Event", "EUR", 100_000, 5)


def test_identities_as_known_at_each_hand(records: list[HandRecord]) -> None:
    first, second, _ = records
    assert dict(zip(first.seats, first.display_names, strict=True)) == {
        1: "Ann", 3: "Zoë", 5: "李雷", 8: "Bo O'Brien", 9: "Cy Young"}
    assert dict(zip(first.seats, first.countries, strict=True)) == {
        1: "GB", 3: "DK", 5: None, 8: None, 9: None}
    assert first.names[first.seats.index(3)] == "Zoë Ørsted"  # the table's name stays
    # Zoë busted and took her identity with her; Ann's (set in hand 1) is still known
    assert 3 not in second.seats and 5 not in second.seats
    ann = second.identity(1)
    assert ann is not None and (ann.display_name, ann.country) == ("Ann", "GB")


def test_phh_carries_places_prizes_and_identities(records: list[HandRecord]) -> None:
    first, _, third = records
    data = tomllib.loads(phh_text(first))
    seats = data["seats"]
    place = dict(zip(seats, data["_places"], strict=True))
    prize = dict(zip(seats, data["_prizes"], strict=True))
    assert (place[3], prize[3], place[5], prize[5]) == (4, 10_000, 5, 0)
    assert place[8] == place[1] == place[9] == 0  # not decided by this hand
    assert dict(zip(seats, data["_countries"], strict=True))[1] == "GB"
    assert dict(zip(seats, data["_display_names"], strict=True))[3] == "Zoë"
    assert (data["event"], data["_tournament"], data["_currency"], data["_prize_pool"],
            data["_entrants"]) == ("Feltcast Open Main Event", "Feltcast Open Main Event",
                                   "EUR", 100_000, 5)
    last = tomllib.loads(phh_text(third))
    assert dict(zip(last["seats"], last["_places"], strict=True)) == {1: 2, 8: 1}
    assert dict(zip(last["seats"], last["_prizes"], strict=True)) == {1: 30_000, 8: 40_000}
    # PokerKit loads the files (user fields allowed) and replays them to the logged stacks
    for record in records:
        text = phh_text(record)
        history = pokerkit.HandHistory.loads(text, divmod=chip_divmod(25))
        assert "_places" in history.user_defined_fields
        assert list(history)[-1].stacks == list(record.finishing_stacks)
        assert phh.verify(phh.loads(text)).passed


def test_pokerstars_writes_the_bust_lines(records: list[HandRecord]) -> None:
    first, second, third = records
    text = pokerstars_text(first)
    lines = text.splitlines()
    summary = lines.index("*** SUMMARY ***")
    busts = [k for k, line in enumerate(lines) if "finished the tournament" in line]
    assert [lines[k] for k in busts] == [
        "李雷 finished the tournament in 5th place",
        "Zoë Ørsted finished the tournament in 4th place and received €10,000.00."]
    # where PokerStars writes them: after the pots are collected, before the summary
    assert busts == [summary - 2, summary - 1]
    assert " collected " in lines[busts[0] - 1]
    assert "Cy Young finished the tournament in 3rd place and received €20,000.00." in \
        pokerstars_text(second)
    end = pokerstars_text(third).splitlines()
    assert end[end.index("*** SUMMARY ***") - 2:end.index("*** SUMMARY ***")] == [
        "Ann Smith finished the tournament in 2nd place and received €30,000.00.",
        "Bo O'Brien wins the tournament and receives €40,000.00 - congratulations!"]
    assert "Freeroll" in lines[0]  # no buy-in in the configuration
    # PokerKit's parser (nobody here wrote it) still reads every hand, to the logged winnings
    for record in records:
        (parsed,) = pokerkit.HandHistory.from_pokerstars(pokerstars_text(record),
                                                         error_status=True)
        players = list(parsed.players or ())
        assert sorted(players) == sorted(record.names)
        assert list(parsed)[-1].stacks == [
            record.finishing_stacks[record.names.index(n)] for n in players]


def test_ohh_carries_the_tournament_and_display_names(records: list[HandRecord]) -> None:
    for record in records:
        obj = ohh_object(record)
        jsonschema.validate(obj, SCHEMA)
        info = obj["ohh"]["tournament_info"]
        assert (info["name"], info["currency"], obj["ohh"]["currency"]) == (
            "Feltcast Open Main Event", "EUR", "EUR")
    players = {p["seat"]: p for p in ohh_object(records[0])["ohh"]["players"]}
    assert (players[1]["name"], players[1]["display"]) == ("Ann Smith", "Ann")
    assert (players[3]["name"], players[3]["display"]) == ("Zoë Ørsted", "Zoë")


def test_without_a_tournament_the_files_say_only_what_the_log_holds(data_dir: Path) -> None:
    store = open_store(data_dir=data_dir)
    try:
        first = next(iter(read_hands(store.iter_all(), table=TABLE)))
    finally:
        store.close()
    data = tomllib.loads(phh_text(first))
    assert "_tournament" not in data and "event" not in data
    assert data["_places"]  # the places and prizes are in the log itself
    obj = ohh_object(first)["ohh"]
    assert (obj["tournament_info"]["name"], obj["currency"]) == (TABLE, "USD")
    # money without a currency is a plain amount
    assert "received 10,000.00." in pokerstars_text(first)


def test_ordinals() -> None:
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st",
        "111th"]
    assert TournamentInfo(currency="USD").money(1200) == "$1,200.00"
    assert TournamentInfo(currency="GBP").money(5) == "£5.00"
    assert TournamentInfo(currency="CHF").money(1_000_000) == "1,000,000.00 CHF"


def test_cli_with_config_exports_the_context(data_dir: Path, tmp_path: Path) -> None:
    toml = tmp_path / "feltcast.toml"
    toml.write_text(
        f'data_dir = "{data_dir.as_posix()}"\n[table]\nname = "{TABLE}"\nseats = 9\n'
        'levels = [[100, 200]]\n[tournament]\nname = "Feltcast Open Main Event"\n'
        'prize_pool = 100000\ncurrency = "EUR"\n[tournament.payouts]\n'
        'percentages = [40, 30, 20, 10]\n', encoding="utf-8")
    assert load_config(toml).tournament.currency == "EUR"
    for fmt in ("pokerstars", "phh", "ohh"):
        out, err = io.StringIO(), io.StringIO()
        args = argparse.Namespace(format=fmt, hands="", out=tmp_path / fmt, config=toml,
                                  data_dir=None, url="", table=None, event="")
        assert run_export(args, out, err) == 0, err.getvalue()
    (stars,) = (tmp_path / "pokerstars").glob("*.txt")
    assert "Zoë Ørsted finished the tournament in 4th place and received €10,000.00." in \
        stars.read_text(encoding="utf-8")
    phh_file = sorted((tmp_path / "phh").glob("*.phh"))[0]
    assert tomllib.loads(phh_file.read_text(encoding="utf-8"))["_currency"] == "EUR"
    (ohh_file,) = (tmp_path / "ohh").glob("*.ohh")
    first = json.loads(ohh_file.read_text(encoding="utf-8").split("\n\n")[0])
    assert first["ohh"]["tournament_info"]["name"] == "Feltcast Open Main Event"


def test_a_later_disqualification_does_not_rewrite_the_hand(data_dir: Path) -> None:
    # R23: a player disqualified between hands 1 and 2 moves the players below him up; the
    # service re-logs their prizes (with the hand they busted in). Hand 1's files keep what
    # hand 1 decided, and the re-logged prize is not among its entries.
    store = open_store(data_dir=data_dir)
    try:
        log = list(store.iter_all())
    finally:
        store.close()
    end = max(k for k, e in enumerate(log) if isinstance(e.payload, PrizeAwarded)
              and e.payload.hand_number == 1)
    later = [TableEvent.record(log[end].seq, log[end].time + 5,
                               PlayerDisqualified(9, "Cy Young", "collusion", 4_000)),
             TableEvent.record(log[end].seq, log[end].time + 5,
                               PrizeAwarded("Zoë Ørsted", 3, 20_000, 1, 3))]
    edited = [*log[:end + 1], *later, *log[end + 1:]]
    first = next(iter(read_hands(edited, table=TABLE)))
    assert first.busts == (Bust(5, "李雷", 5, 0), Bust(3, "Zoë Ørsted", 4, 10_000))
    assert first.last_seq == log[end].seq
    assert "Zoë Ørsted finished the tournament in 4th place and received 10,000.00." in \
        pokerstars_text(first)


def test_identities_follow_the_seat_between_hands(data_dir: Path) -> None:
    # An identity given after a hand's last entry belongs to the next hand; a player who
    # leaves his seat takes his identity with him (a new player there starts without one).
    store = open_store(data_dir=data_dir)
    try:
        log = list(store.iter_all())
    finally:
        store.close()
    starts = [k for k, e in enumerate(log) if e.kind == "hand_started"]
    at = log[starts[1]]
    cy = PlayerIdentified.checked(9, "Cy Young", "Cy", "US")
    between = [TableEvent.record(at.seq, at.time, cy)]
    edited = [*log[:starts[1]], *between, *log[starts[1]:]]
    first, second, third = read_hands(edited, table=TABLE)
    assert first.identity(9) is None
    assert second.identity(9) == Identity.of(cy)
    assert dict(zip(second.seats, second.countries, strict=True))[9] == "US"
    assert third.identity(9) is None and 9 not in third.seats  # Cy busted in hand 2
    assert third.identity(1) is not None  # Ann is still there
    emptied = [*log[:starts[1]], TableEvent.record(at.seq, at.time, SeatEmptied(1)),
               *log[starts[1]:]]
    assert next(r for r in read_hands(emptied, table=TABLE) if r.number == 2).identity(1) \
        is None


def test_equal_stacks_busting_together_share_their_places(tmp_path: Path) -> None:
    # R22: Zoë and 李雷 start hand 1 with exactly 6,000 each and bust in it: they share 4th
    # and 5th place and split those prizes (EUR 10,000 + 0).
    players = [dict(p, stack=6_000) if p["seat"] in (3, 5) else p for p in PLAYERS]
    asyncio.run(_play(tmp_path, players, hands=1))
    info = TournamentInfo.from_config(parse_config(config_data(tmp_path, players)))
    store = open_store(data_dir=tmp_path)
    try:
        (first,) = read_hands(store.iter_all(), table=TABLE, tournament=info)
    finally:
        store.close()
    assert set(first.busts) == {Bust(3, "Zoë Ørsted", 4, 5_000), Bust(5, "李雷", 4, 5_000)}
    text = pokerstars_text(first)
    for name in ("Zoë Ørsted", "李雷"):
        assert f"{name} finished the tournament in 4th place and received €5,000.00." in text
    data = tomllib.loads(phh_text(first))
    assert [(p, z) for p, z in zip(data["_places"], data["_prizes"], strict=True) if p] == [
        (4, 5_000), (4, 5_000)]
