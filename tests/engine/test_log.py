"""engine/log.py: the TableEvent envelope (JSON round trip, secrecy, public view, repr)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cards import Card, parse_cards
from engine.errors import InvalidInputError
from engine.events import (
    ActionKind,
    ActionTaken,
    CardBurned,
    HandMucked,
    HoleCardsDealt,
    Secrecy,
)
from engine.log import CaptureRecord, TableEvent
from engine.table_events import DevicesReported
from tests.hands import random_log

LOG = random_log(99, 6)
LOG.append(TableEvent.record(len(LOG) + 1, LOG[-1].time, DevicesReported('{"alerts":[]}'),
                             source="service"))  # internal: the operator's only


@given(entry=st.sampled_from(LOG), seq=st.integers(1, 2**53),
       time=st.floats(allow_nan=False, allow_infinity=False),
       source=st.sampled_from(["engine", "capture", "operator", "rfid:table-a"]))
def test_json_round_trip_is_exact(entry: TableEvent, seq: int, time: float,
                                  source: str) -> None:
    event = TableEvent(seq, time, entry.secrecy, entry.payload, source)
    text = json.dumps(event.to_dict())
    assert TableEvent.from_dict(json.loads(text)) == event


def test_every_secrecy_class_occurs_and_is_the_payloads() -> None:
    assert {e.secrecy for e in LOG} == set(Secrecy)
    assert all(e.secrecy is e.payload.secrecy for e in LOG)
    assert {e.kind for e in LOG if e.secrecy is Secrecy.NEVER} == {"card_burned"}


def test_public_view_per_secrecy_class() -> None:
    public = TableEvent.record(1, 5.0, ActionTaken(3, ActionKind.FOLD))
    assert public.public_view() is public
    secret = TableEvent.record(2, 5.0, HoleCardsDealt(3, parse_cards("AhKd")))
    view = secret.public_view()
    assert view == TableEvent(2, 5.0, Secrecy.PUBLIC, HoleCardsDealt(3, (None, None)))
    assert TableEvent.record(3, 5.0, CardBurned(Card("2c"))).public_view() is None  # R19
    mucked = TableEvent.record(4, 5.0, HandMucked(3, parse_cards("AhKd")))
    assert mucked.public_view() == TableEvent(4, 5.0, Secrecy.PUBLIC,
                                              HandMucked(3, (None, None)))  # R20


@dataclass(frozen=True, slots=True)
class LeakyEvent:
    """A broken payload whose 'public view' is still secret."""

    kind: ClassVar[str] = "leaky"
    secrecy: Secrecy = Secrecy.SECRET

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind}

    def public_view(self) -> LeakyEvent:
        return self


def test_public_view_fails_closed_on_a_payload_that_stays_secret() -> None:
    assert TableEvent.record(1, 0.0, LeakyEvent()).public_view() is None


def test_envelope_may_be_stricter_than_its_payload_never_looser() -> None:
    fold = ActionTaken(3, ActionKind.FOLD)
    assert TableEvent.record(1, 0.0, fold, secrecy=Secrecy.SECRET).public_view() == \
        TableEvent(1, 0.0, Secrecy.PUBLIC, fold)
    assert TableEvent.record(1, 0.0, fold, secrecy=Secrecy.NEVER).public_view() is None
    with pytest.raises(InvalidInputError, match="cannot be logged as public"):
        TableEvent(1, 0.0, Secrecy.PUBLIC, HoleCardsDealt(3, parse_cards("AhKd")))
    with pytest.raises(InvalidInputError, match="is never"):
        TableEvent(1, 0.0, Secrecy.SECRET, CardBurned(Card("2c")))


@pytest.mark.parametrize("seq, time", [(0, 1.0), (-3, 1.0), (True, 1.0), (1.0, 1.0),
                                       (1, math.nan), (1, math.inf), (1, "soon")])
def test_bad_sequence_numbers_and_times_are_refused(seq: Any, time: Any) -> None:
    with pytest.raises(InvalidInputError):
        TableEvent(seq, time, Secrecy.PUBLIC, ActionTaken(3, ActionKind.FOLD))


@pytest.mark.parametrize("data", [
    {},
    {"seq": 1, "time": 0.0, "secrecy": "public", "source": "engine"},
    {"seq": 1, "time": 0.0, "secrecy": "private", "source": "engine",
     "event": {"kind": "action_taken", "seat": 1, "action": "fold"}},
    {"seq": 1, "time": 0.0, "secrecy": "public", "source": "engine",
     "event": {"kind": "no_such_event"}},
    "not a dict",
])
def test_malformed_entries_are_refused(data: Any) -> None:
    with pytest.raises(InvalidInputError):
        TableEvent.from_dict(data)


def test_repr_round_trips() -> None:
    import engine.capture_events as capture
    import engine.events as events
    import engine.table_events as table_events

    namespace = {**vars(capture), **vars(events), **vars(table_events), "Card": Card,
                 "TableEvent": TableEvent,
                 "CaptureRecord": CaptureRecord}
    # The envelope's own fields round-trip; payloads are checked where their repr does
    # (engine enums such as Street print as <Street.FLOP: 'flop'>).
    entries = [e for e in LOG if "<" not in repr(e.payload)]
    assert {e.secrecy for e in entries} == set(Secrecy)
    for entry in entries:
        assert eval(repr(entry), namespace) == entry


def test_capture_records_are_secret_when_they_carry_a_card() -> None:
    from engine.capture_events import (
        BoardCardRead,
        BurnSeen,
        CaptureFault,
        FaultKind,
        HoleCardsRead,
        ReaderOffline,
    )

    hole = CaptureRecord(HoleCardsRead(3, (Card("Ah"), Card("Kd")), 1.5, "rfid"))
    board = CaptureRecord(BoardCardRead(Card("Qs"), 1, 1.5, "rfid"))
    offline = CaptureRecord(ReaderOffline("rfid", "no heartbeat", 2.0))
    burns = CaptureRecord(BurnSeen(2, 2.0))
    fault = CaptureFault(next(iter(FaultKind)), "rfid", "duplicate tag", 2.0)
    assert (hole.kind, hole.secrecy, hole.public_view()) == \
        ("capture.hole_cards_read", Secrecy.SECRET, None)
    assert board.secrecy is Secrecy.SECRET  # the engine's board_dealt is the public record
    assert offline.secrecy is burns.secrecy is Secrecy.PUBLIC and offline.public_view() is offline
    assert CaptureRecord(fault).secrecy is Secrecy.PUBLIC
    carded = CaptureRecord(CaptureFault(fault.kind, "rfid", "two aces", 2.0, cards=(Card("As"),)))
    assert carded.secrecy is Secrecy.SECRET
    for record in (hole, board, offline, burns, carded):
        entry = TableEvent.record(9, 3.0, record, source="capture")
        assert TableEvent.from_dict(json.loads(json.dumps(entry.to_dict()))) == entry
    with pytest.raises(InvalidInputError):
        TableEvent.from_dict({"seq": 1, "time": 0.0, "secrecy": "public", "source": "capture",
                              "event": {"kind": "capture.reader_offline"}})
    with pytest.raises(InvalidInputError):
        TableEvent.from_dict({"seq": 1, "time": 0.0, "secrecy": "public", "source": "capture",
                              "event": {"kind": "capture.teleport", "capture": {"type": "x",
                                                                                "t": 0.0}}})
