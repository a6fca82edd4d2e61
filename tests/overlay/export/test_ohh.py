"""Open Hand History export: every hand validates against the spec's structure (a JSON Schema
of OHH 1.4.7 in ohh_schema.json, checked by the jsonschema package) and accounts for every
chip: posts, calls, bets and raises less returned bets are the pots, and each player's
starting stack less what he put in plus what he won is his finishing stack."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import phh
from engine.errors import HandHistoryError
from engine.events import BetReturned
from overlay import phh_files
from overlay.export.hands import HandRecord, read_hands
from overlay.export.ohh import SPEC_VERSION, ohh_object, ohh_text
from overlay.export.phh import skip_reason
from overlay.export.pokerstars import hand_id
from tests.engine.randomhands import play, random_setup
from tests.hands import random_log
from tests.overlay.export.conftest import needs_data, record_of, televised
from tests.overlay.export.session import TABLE_NAME

SCHEMA = json.loads((Path(__file__).with_name("ohh_schema.json")).read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def check(record: HandRecord) -> dict[str, Any]:
    """Validate the hand's OHH and check its chips; returns the ``ohh`` object."""
    data = json.loads(ohh_text(record))
    VALIDATOR.validate(data)
    hand = data["ohh"]
    ids = {p["id"]: p for p in hand["players"]}
    assert [p["seat"] for p in hand["players"]] == list(record.seats)
    assert [r["id"] for r in hand["rounds"]] == list(range(len(hand["rounds"])))
    actions = [a for r in hand["rounds"] for a in r["actions"]]
    assert [a["action_number"] for a in actions] == list(range(1, len(actions) + 1))
    assert all(a["player_id"] in ids for a in actions)
    put_in = dict.fromkeys(ids, 0)
    for action in actions:
        put_in[action["player_id"]] += action.get("amount", 0)
    returned = {record.seats.index(e.seat): e.amount for e in record.hand.effective_events
                if isinstance(e, BetReturned)}
    won = dict.fromkeys(ids, 0)
    for pot in hand["pots"]:
        assert pot["amount"] == sum(w["win_amount"] for w in pot["player_wins"])
        for win in pot["player_wins"]:
            won[win["player_id"]] += win["win_amount"]
    assert sum(p["amount"] for p in hand["pots"]) == \
        sum(put_in.values()) - sum(returned.values())
    finishing = [ids[k]["starting_stack"] - put_in[k] + returned.get(k, 0) + won[k]
                 for k in sorted(ids)]
    assert finishing == list(record.finishing_stacks)
    return hand


def test_every_played_hand_of_the_service_log(session_hands: list[HandRecord]) -> None:
    played = [r for r in session_hands if skip_reason(r) is None]
    hands = [check(r) for r in played]
    first = hands[0]
    assert first["spec_version"] == SPEC_VERSION == "1.4.7"
    assert first["game_type"] == "Holdem" and first["bet_limit"]["bet_type"] == "NL"
    assert first["table_name"] == TABLE_NAME and first["tournament"] is True
    assert first["game_number"] == str(hand_id(played[0]))
    assert first["start_date_utc"] == "2026-11-30T10:53:22Z"
    assert first["dealer_seat"] == 1
    assert (first["small_blind_amount"], first["big_blind_amount"],
            first["ante_amount"]) == (100, 200, 0)
    assert [p["name"] for p in first["players"]] == list(played[0].names)


def test_rounds_showdown_and_unread_cards(session_hands: list[HandRecord]) -> None:
    hand = check(session_hands[2])  # hand 3: seat 5 read only when shown
    streets = [(r["street"], r.get("cards")) for r in hand["rounds"]]
    assert streets == [("Preflop", None), ("Flop", ["3c", "4d", "9h"]), ("Turn", ["Ts"]),
                       ("River", ["2s"]), ("Showdown", None)]
    showdown = hand["rounds"][-1]["actions"]
    seat = {p["id"]: p["seat"] for p in hand["players"]}
    assert [(seat[a["player_id"]], a["action"], a.get("cards")) for a in showdown] == [
        (5, "Shows Cards", ["Kc", "Ks"]), (8, "Mucks Cards", ["Ac", "Js"]),
        (1, "Mucks Cards", ["Qs", "Qd"]), (3, "Mucks Cards", ["8d", "8h"])]
    dealt = [a for a in hand["rounds"][0]["actions"] if a["action"] == "Dealt Cards"]
    assert len(dealt) == 5
    uncalled = check(session_hands[0])  # hand 1: the flop bet came back
    raises = [a for r in uncalled["rounds"] for a in r["actions"] if a["action"] == "Raise"]
    assert [a["amount"] for a in raises] == [600]  # chips added (the undone 700 is gone)


def test_side_pots_split_pots_and_all_ins(session_hands: list[HandRecord]) -> None:
    sides = check(session_hands[3])
    assert [(p["number"], p["amount"]) for p in sides["pots"]] == [(0, 14400), (1, 54300)]
    allin = [a for a in sides["rounds"][0]["actions"] if a.get("is_allin")]
    assert len(allin) == 3
    split = check(session_hands[4])
    (pot,) = split["pots"]
    assert sorted(w["win_amount"] for w in pot["player_wins"]) == [525, 525, 550]


def test_storage_format_and_no_void_hand(session_hands: list[HandRecord], tmp_path: Path
                                         ) -> None:
    with pytest.raises(HandHistoryError, match="void hand"):
        ohh_object(session_hands[1])
    played = [r for r in session_hands if skip_reason(r) is None]
    text = "\n\n".join(ohh_text(r) for r in played) + "\n"
    objects = text.strip().split("\n\n")
    assert len(objects) == len(played)
    assert all("\n" not in o for o in objects)  # one object per block, one blank line between
    for block in objects:
        VALIDATOR.validate(json.loads(block))


def test_the_schema_catches_what_the_spec_forbids(session_hands: list[HandRecord]) -> None:
    good = ohh_object(session_hands[0])
    for path, value in ((("ohh", "rounds", 0, "street"), "Preflp"),
                        (("ohh", "bet_limit", "bet_type"), "No Limit"),
                        (("ohh", "players", 0, "starting_stack"), -5)):
        bad = json.loads(json.dumps(good))
        target = bad
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        with pytest.raises(jsonschema.ValidationError):
            VALIDATOR.validate(bad)


@settings(max_examples=20)
@given(seed=st.integers(0, 100_000))
def test_random_logged_hands(seed: int) -> None:
    for record in read_hands(random_log(seed, 6)):
        if skip_reason(record) is None:
            check(record)


@needs_data
@pytest.mark.parametrize("path", list(televised(20)), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_televised_hands(path: Path) -> None:
    check(record_of(phh.replay(phh_files.load(path))))


@settings(max_examples=40)
@given(seed=st.integers(0, 1_000_000))
def test_random_hands_of_every_ante_mode(seed: int) -> None:
    rng = random.Random(seed)  # tests/engine/randomhands.py: every ante mode of R4
    check(record_of(play(random_setup(rng), rng)))
