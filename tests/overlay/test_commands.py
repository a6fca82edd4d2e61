"""The one command path (``overlay/commands.py``): the registry against ``docs/commands.md``,
the one parser, the dispatcher, and typed commands run in-process on a real table log."""

from __future__ import annotations

import dataclasses
import re
import typing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cards import Card
from engine.errors import IllegalActionError, InvalidCardError, InvalidInputError
from engine.events import ActionTaken, HandEnded, PlayerEliminated
from engine.tournament_events import PrizeAwarded
from overlay import commands as cmd
from overlay.commands import COMMANDS, IDENTITY_FIELDS, Command, Dispatcher, parse_command
from overlay.config import parse_config
from overlay.hub import TableLog
from overlay.store import open_store
from overlay.table_service import TableService

DOCS = Path(__file__).resolve().parents[2] / "docs" / "commands.md"
ROW = re.compile(r"^\| `(?P<type>[a-z_]+)` \| (?P<fields>[^|]*) \|")


def documented() -> dict[str, tuple[str, set[str], set[str]]]:
    """``type`` -> (the ``##`` section it is listed under, required fields, optional ones)."""
    out: dict[str, tuple[str, set[str], set[str]]] = {}
    section = ""
    for line in DOCS.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
        match = ROW.match(line)
        if match is None or match["type"] == "type":
            continue
        required, _, optional = re.split(r"(optional|any of)", match["fields"], maxsplit=1) \
            if re.search(r"optional|any of", match["fields"]) else (match["fields"], "", "")
        assert match["type"] not in out, f"{match['type']} is documented twice"
        out[match["type"]] = (section, set(re.findall(r"`(\w+)`", required)),
                              set(re.findall(r"`(\w+)`", optional)))
    return out


def fields_of(cls: type[Command]) -> tuple[set[str], set[str]]:
    required, optional = set(), set()
    for f in dataclasses.fields(cls):
        if f.name in ("id", "revision"):
            continue
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.add(f.name)
        else:
            optional.add(f.name)
    if cls is cmd.SetPlayer:
        optional = set(IDENTITY_FIELDS)  # given by name in the body: changes holds them
    return required, optional


def test_every_registered_command_is_documented_as_it_is() -> None:
    docs = documented()
    assert set(docs) == set(COMMANDS), (
        f"not documented: {sorted(set(COMMANDS) - set(docs))}; documented but no such "
        f"command: {sorted(set(docs) - set(COMMANDS))}")
    for kind, cls in COMMANDS.items():
        section, required, optional = docs[kind]
        assert section == cls.section, f"{kind} is listed under {section!r}, not {cls.section!r}"
        assert (required, optional) == fields_of(cls), kind


def test_the_docs_check_fails_on_a_command_the_docs_lack(monkeypatch: Any) -> None:
    @dataclasses.dataclass(frozen=True, kw_only=True)
    class Shuffle(Command):
        type: typing.ClassVar[str] = "shuffle_up"

    monkeypatch.setitem(COMMANDS, "shuffle_up", Shuffle)
    with pytest.raises(AssertionError, match="not documented: \\['shuffle_up'\\]"):
        test_every_registered_command_is_documented_as_it_is()


# --- the parser ----------------------------------------------------------------------------

CARD = st.sampled_from([Card.from_index(i) for i in range(52)])
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1,
               max_size=20).filter(lambda t: t.strip() == t and t.strip())


def value_for(name: str, hint: object) -> st.SearchStrategy[Any]:
    if hint == cmd.Cards:
        return st.lists(st.one_of(st.none(), CARD), min_size=1, max_size=5).map(tuple)
    if typing.get_origin(hint) in (typing.Union, __import__("types").UnionType):
        inner = next(a for a in typing.get_args(hint) if a is not type(None))
        return st.one_of(st.none(), value_for(name, inner))
    if name == "antenna":
        return st.integers(1, 64)
    if name == "changes":
        return st.dictionaries(st.sampled_from(IDENTITY_FIELDS), st.one_of(st.none(), TEXT)
                               ).map(lambda d: tuple(d.items()))
    return {int: st.integers(0, 10**9), bool: st.booleans(), str: TEXT,
            float: st.floats(1, 3600)}[hint]  # type: ignore[index]


@st.composite
def commands(draw: st.DrawFn) -> Command:
    cls = draw(st.sampled_from(list(COMMANDS.values())))
    hints = typing.get_type_hints(cls, globalns=vars(cmd))
    values: dict[str, Any] = {"id": draw(st.uuids()).hex,
                              "revision": draw(st.one_of(st.none(), st.integers(0, 10**6)))}
    for f in dataclasses.fields(cls):
        if f.name not in values:
            values[f.name] = draw(value_for(f.name, hints[f.name]))
    return cls(**values)


@given(commands())
def test_every_command_reads_back_from_its_wire_form(command: Command) -> None:
    assert parse_command(command.to_json()) == command


@pytest.mark.parametrize(("body", "message"), [
    ([], "a JSON object with an id and a type"),
    ({"id": "c-12345678", "type": "dance"}, "unknown command type 'dance'"),
    ({"id": "c-12345678", "type": ["fold"]}, "unknown command type"),
    ({"type": "fold", "seat": 1}, "needs an id"),
    ({"id": "c-12345678", "type": "bet", "seat": 1}, "command bet needs 'amount'"),
    ({"id": "c-12345678", "type": "bet", "seat": 1, "amount": "lots"},
     "'amount' must be a whole number, got 'lots'"),
    ({"id": "c-12345678", "type": "fold", "seat": True}, "'seat' must be a whole number"),
    ({"id": "c-12345678", "type": "set_absent", "seat": 1, "absent": 1},
     "'absent' must be true or false"),
    ({"id": "c-12345678", "type": "deal_board", "cards": "Kh"},
     "'cards' must be a list of card codes"),
    ({"id": "c-12345678", "type": "deal_board", "cards": [7]}, "cards are codes like 'Ah'"),
    ({"id": "c-12345678", "type": "tag_hand", "note": "x", "hand": "2"},
     "'hand' must be a hand number"),
    ({"id": "c-12345678", "type": "fold", "seat": 1, "revision": -1}, "'revision' must be"),
    ({"id": "c-12345678", "type": "set_seat", "seat": 1, "name": "  ", "stack": 5},
     "a player needs a name"),
    ({"id": "c-12345678", "type": "deck_scan_start", "name": "Red", "reader": "table",
      "antenna": 65}, "'antenna' must be an antenna number"),
    ({"id": "c-12345678", "type": "deck_activate", "name": "x" * 65}, "longer than 64"),
    ({"id": "c-12345678", "type": "deck_retire", "name": " "}, "needs 'name' (a name)"),
    ({"id": "c-12345678", "type": "adjust_clock", "seconds": 0}, "not 0 and at most a day"),
    ({"id": "c-12345678", "type": "set_player", "seat": 1, "nick": "A"},
     "does not know the field 'nick'"),
    ({"id": "c-12345678", "type": "set_player", "seat": 1, "country": 49},
     "'country' must be text or null"),
])
def test_a_malformed_command_is_refused_naming_what_is_wrong(body: object,
                                                             message: str) -> None:
    with pytest.raises(InvalidInputError, match=re.escape(message)):
        parse_command(body)


def test_the_parser_makes_cards_and_trims_names() -> None:
    dealt = parse_command({"id": "c-12345678", "type": "deal_cards", "seat": 2,
                           "cards": ["ah", None]})
    assert dealt == cmd.DealCards(id="c-12345678", seat=2, cards=(Card("Ah"), None))
    with pytest.raises(InvalidCardError):
        parse_command({"id": "c-12345678", "type": "deal_board", "cards": ["Zz"]})
    deck = parse_command({"id": "c-12345678", "type": "deck_scan_start", "name": " Red ",
                          "reader": " table ", "antenna": 3})
    assert (deck.name, deck.reader) == ("Red", "table")  # type: ignore[attr-defined]
    shown = parse_command({"id": "c-12345678", "type": "show_hand", "seat": 2, "cards": None})
    assert shown == cmd.ShowHand(id="c-12345678", seat=2)


# --- the dispatcher ------------------------------------------------------------------------


async def test_the_dispatcher_has_one_handler_per_command() -> None:
    dispatcher = Dispatcher()
    with pytest.raises(IllegalActionError, match="no RFID reader is configured"):
        await dispatcher.run(cmd.DeckScanCancel())
    dispatcher.register(cmd.Undo, lambda c: [])
    with pytest.raises(RuntimeError, match="undo already has a handler"):
        dispatcher.register(cmd.Undo, lambda c: [])
    assert await dispatcher.run(cmd.Undo()) == []
    dispatcher.unregister(cmd.Undo)
    assert dispatcher.registered() == frozenset()


# --- typed commands in-process, on a real log ------------------------------------------------


async def test_typed_commands_run_on_a_real_log_once(tmp_path: Path) -> None:
    config = parse_config({"table": {"name": "Typed", "seats": 6, "button": 1},
                           "players": [{"seat": 1, "name": "Ann", "stack": 1000},
                                       {"seat": 2, "name": "Bob", "stack": 300},
                                       {"seat": 3, "name": "Cy", "stack": 1000}],
                           "tournament": {"prize_pool": 1000,
                                          "payouts": {"percentages": [70, 30]}},
                           "data_dir": str(tmp_path)})
    store = open_store(data_dir=tmp_path)
    service = TableService(config, TableLog(store))
    await service.start()
    try:
        table_commands = {k for k in COMMANDS.values() if not issubclass(k, cmd.DeckCommand)}
        assert service.commands.registered() == table_commands  # decks: with a reader only
        await service.execute(cmd.NextHand())
        hand = service.hand
        assert hand is not None
        for seat, pair in ((1, "AhAd"), (2, "7c2d"), (3, "KsQs")):
            await service.execute(cmd.DealCards(seat=seat, cards=(Card(pair[:2]),
                                                                  Card(pair[2:]))))
        assert hand.actor_seat == 1  # three-handed, the button acts first
        all_in = cmd.AllIn(seat=1)
        first = await service.execute(all_in)
        assert await service.execute(all_in) == first  # a retry: the first answer
        await service.execute(cmd.Call(seat=2))  # Bob is all-in for his 300
        await service.execute(cmd.Fold(seat=3))
        for board in (("Jh", "8h", "4d"), ("3c",), ("9s",)):
            await service.execute(cmd.DealBoard(cards=tuple(map(Card, board))))
        payloads = [e.payload for e in store.iter_all()]
        assert sum(isinstance(p, ActionTaken) and p.seat == 1 for p in payloads) == 1
        assert sum(isinstance(p, HandEnded) for p in payloads) == 1
        busts = [p for p in payloads if isinstance(p, PlayerEliminated)]
        prizes = [p for p in payloads if isinstance(p, PrizeAwarded)]
        # Each bust is counted once: one place, logged once, whatever its order in the log.
        assert [p.name for p in busts] == ["Bob"]
        assert [(p.name, p.place, p.prize) for p in prizes] == [("Bob", 3, 0)]
        assert [(f.name, f.place) for f in service.tournament.standings().finishes()] == [
            ("Bob", 3)]
    finally:
        service.close()
        store.close()
