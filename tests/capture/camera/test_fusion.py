"""Fusion of camera and RFID reads (capture/camera/fusion.py): worked examples, then the
policy invariants with hypothesis over random event streams from both sources."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from capture.camera.fusion import CardFusion, FusionPolicy, Source, combined_confidence
from engine.capture_events import (
    BOARD,
    BoardCardRead,
    CaptureEvent,
    CaptureFault,
    CardMucked,
    CardRemoved,
    FaultKind,
    HoleCardsRead,
    ReaderOnline,
    Zone,
    ZoneKind,
)
from engine.cards import Card
from engine.errors import ConfigError

SEAT1, SEAT2 = Zone.at_seat(1), Zone.at_seat(2)
CAM = "cams"


def cards(*codes: str) -> tuple[Card, ...]:
    return tuple(Card(code) for code in codes)


def hole(seat: int, a: str, b: str, *, t: float = 1.0, source: str = "rfid",
         confidence: float = 1.0) -> HoleCardsRead:
    return HoleCardsRead(seat, (Card(a), Card(b)), t, source, confidence=confidence)


def board(code: str, position: int, *, t: float = 1.0, source: str = "rfid",
          confidence: float = 1.0) -> BoardCardRead:
    return BoardCardRead(Card(code), position, t, source, confidence=confidence)


def fusion(policy: FusionPolicy = FusionPolicy.RFID) -> CardFusion:
    return CardFusion(rfid_zones={SEAT1, SEAT2, BOARD},
                      camera_zones={SEAT1: CAM, BOARD: CAM}, policy=policy)


def faults(events: list[CaptureEvent]) -> list[CaptureFault]:
    return [e for e in events if isinstance(e, CaptureFault)]


# -- worked examples ------------------------------------------------------------------------


def test_combined_confidence_is_at_least_the_higher_of_the_two() -> None:
    assert combined_confidence(0.9, 0.8) == pytest.approx(0.98)
    assert combined_confidence(1.0, 0.3) == 1.0
    assert combined_confidence(0.0, 0.6) == pytest.approx(0.6)


def test_policy_names_the_key_when_misspelt() -> None:
    assert FusionPolicy.parse("agree") is FusionPolicy.AGREE
    with pytest.raises(ConfigError, match=r"capture\.cameras\[0\]\.fusion.*rfid, camera or "
                                          "agree"):
        FusionPolicy.parse("both", "capture.cameras[0].fusion")


def test_rfid_policy_reports_rfid_at_once_and_the_camera_raises_its_confidence() -> None:
    f = fusion()
    read = hole(1, "Ah", "Kd", confidence=0.9)
    assert f.rfid(read) == [read]  # RFID first: reported unchanged, nothing to compare yet
    out = f.camera(hole(1, "Kd", "Ah", t=1.2, source=CAM, confidence=0.8))
    assert out == [hole(1, "Ah", "Kd", t=1.2, confidence=combined_confidence(0.9, 0.8))]
    assert f.camera(hole(1, "Ah", "Kd", t=1.3, source=CAM, confidence=0.8)) == []  # once


def test_camera_first_then_rfid_comes_out_with_the_combined_confidence() -> None:
    f = fusion()
    assert f.camera(hole(1, "Ah", "Kd", source=CAM, confidence=0.7)) == []  # a check only
    out = f.rfid(hole(1, "Ah", "Kd", confidence=0.9))
    assert out == [hole(1, "Ah", "Kd", confidence=combined_confidence(0.9, 0.7))]


def test_disagreement_alerts_once_without_naming_a_card_and_rfid_wins() -> None:
    f = fusion()
    f.rfid(hole(1, "Ah", "Kd"))
    out = f.camera(hole(1, "Ah", "Ks", t=2.0, source=CAM, confidence=0.95))
    [fault] = faults(out)
    assert out == [fault]  # no card of the camera's is reported
    assert fault.kind is FaultKind.CAMERA_RFID_DISAGREE
    assert fault.zones == (SEAT1,) and fault.reader == CAM and fault.t == 2.0
    assert set(fault.cards) == set(cards("Ah", "Kd", "Ks"))  # for the secret log
    assert "seat 1" in fault.detail and "RFID's cards are used" in fault.detail
    assert not any(code in fault.detail for code in ("Ah", "Kd", "Ks"))
    assert faults(f.camera(hole(1, "Ah", "Ks", t=2.1, source=CAM))) == []  # the same one
    assert f.disagreeing() == [("seat", 1)]
    # RFID reads it again as the camera does: they agree now, and that is reported.
    out = f.rfid(hole(1, "Ah", "Ks", t=3.0))
    assert out == [hole(1, "Ah", "Ks", t=3.0)] and f.disagreeing() == []


def test_the_flop_is_compared_as_a_set_and_turn_and_river_by_position() -> None:
    f = fusion()
    for position, code in enumerate(("Jh", "Th", "3s"), start=1):
        f.rfid(board(code, position, confidence=0.9))
    # The camera numbers the flop left to right: another order, the same cards.
    out = [e for p, c in enumerate(("3s", "Jh", "Th"), start=1)
           for e in f.camera(board(c, p, t=2.0, source=CAM, confidence=0.9))]
    assert not faults(out)
    assert sorted((e.position, e.card.code, e.confidence) for e in out
                  if isinstance(e, BoardCardRead)) == [
        (1, "Jh", 0.99), (2, "Th", 0.99), (3, "3s", 0.99)]  # RFID's positions, confirmed
    f.rfid(board("9h", 4))
    [fault] = faults(f.camera(board("9d", 4, t=3.0, source=CAM)))
    assert fault.zones == (BOARD,) and "the turn" in fault.detail


def test_camera_policy_reports_the_camera_and_rfid_is_the_check() -> None:
    f = fusion(FusionPolicy.CAMERA)
    assert f.rfid(hole(1, "Ah", "Kd")) == []
    out = f.camera(hole(1, "Ah", "Ks", source=CAM, confidence=0.9))
    assert out[0] == hole(1, "Ah", "Ks", source=CAM, confidence=0.9)
    assert "camera's cards are used" in faults(out)[0].detail


def test_agree_policy_reports_only_agreement_and_takes_it_back() -> None:
    f = fusion(FusionPolicy.AGREE)
    assert f.rfid(hole(1, "Ah", "Kd", confidence=0.9)) == []
    out = f.camera(hole(1, "Ah", "Kd", t=2.0, source=CAM, confidence=0.9))
    assert out == [hole(1, "Ah", "Kd", t=2.0, confidence=0.99)]
    out = f.camera(CardRemoved(SEAT1, Card("Kd"), 3.0, CAM))
    assert {(e.zone, e.card.code) for e in out if isinstance(e, CardRemoved)} == {
        (SEAT1, "Ah"), (SEAT1, "Kd")}
    out = f.camera(hole(1, "Ah", "Qd", t=4.0, source=CAM))
    assert [type(e) for e in out] == [CaptureFault]
    assert "neither is shown" in out[0].detail  # type: ignore[union-attr]


def test_while_rfid_is_down_the_camera_stands_in_and_rfid_takes_over_again() -> None:
    f = fusion()
    f.rfid(hole(1, "Ah", "Kd"))
    f.camera(hole(1, "Ah", "Ks", source=CAM, confidence=0.9))  # a disagreement: RFID's shown
    out = f.set_down(Source.RFID, [SEAT1, SEAT2, BOARD], True, 5.0)  # the reader unplugged
    assert out == [CardRemoved(SEAT1, Card("Ah"), 5.0, "fusion"),
                   CardRemoved(SEAT1, Card("Kd"), 5.0, "fusion"),
                   hole(1, "Ah", "Ks", t=5.0, source=CAM, confidence=0.9)]
    assert f.reporting(SEAT1) is Source.CAMERA
    read = board("2c", 1, t=6.0, source=CAM, confidence=0.8)
    assert f.camera(read) == [read]  # the camera reports the board now
    out = f.set_down(Source.RFID, [SEAT1, SEAT2, BOARD], False, 7.0)  # back: RFID's again
    assert hole(1, "Ah", "Kd", t=7.0) in out
    assert CardRemoved(BOARD, Card("2c"), 7.0, "fusion") in out  # RFID has no board card
    assert f.reporting(SEAT1) is Source.RFID
    # Without fallback (or with both down) nothing changes hands.
    strict = CardFusion(rfid_zones={SEAT1}, camera_zones={SEAT1: CAM}, fallback=False)
    strict.rfid(hole(1, "Ah", "Kd"))
    strict.camera(hole(1, "Ah", "Ks", source=CAM))
    assert strict.set_down(Source.RFID, [SEAT1], True, 5.0) == []
    assert strict.reporting(SEAT1) is Source.RFID
    f.set_down(Source.CAMERA, [SEAT1], True, 8.0)
    assert f.set_down(Source.RFID, [SEAT1], True, 9.0) == []  # both down: RFID's, frozen


def test_zones_only_one_source_reads_pass_through_unchanged() -> None:
    f = fusion()
    seat2 = hole(2, "2c", "2d")  # RFID only
    assert f.rfid(seat2) == [seat2]
    camera_only = CardFusion(rfid_zones=(), camera_zones={SEAT1: CAM, BOARD: CAM})
    for event in (hole(1, "Ah", "Kd", source=CAM, confidence=0.6), board("5s", 1, source=CAM),
                  CardRemoved(BOARD, Card("5s"), 2.0, CAM)):
        assert camera_only.camera(event) == [event]
    others: list[CaptureEvent] = [CardMucked(Card("7c"), 1.0, "rfid"),
                                  ReaderOnline("table", "1.0", 1, 13, 1.0, "table")]
    for event in others:
        assert f.rfid(event) == [event]


# -- the invariants, over random streams ----------------------------------------------------

POOL = cards("Ah", "Kd", "Qs", "Jc", "Tc")
SLOTS = {"flop": (1, 2, 3), "turn": (4,), "river": (5,)}


@dataclass
class Model:
    """What a stream of events says lies in each zone, with each read's confidence (applied
    the way the service's bridge does)."""

    seats: dict[int, tuple[frozenset[Card], float]] = field(default_factory=dict)
    board: dict[int, tuple[Card, float]] = field(default_factory=dict)

    def apply(self, event: CaptureEvent) -> None:
        if isinstance(event, HoleCardsRead):
            self.seats[event.seat] = (frozenset(event.cards), event.confidence)
        elif isinstance(event, BoardCardRead):
            self.board = {p: r for p, r in self.board.items() if r[0] != event.card}
            self.board[event.position] = (event.card, event.confidence)
        elif isinstance(event, CardRemoved):
            if event.zone.kind is ZoneKind.SEAT:
                held = self.seats.get(event.zone.seat)
                if held is not None and event.card in held[0]:
                    del self.seats[event.zone.seat]
            else:
                self.board = {p: r for p, r in self.board.items() if r[0] != event.card}

    def slot(self, slot: tuple[str, int]) -> tuple[frozenset[Card], float] | None:
        kind, seat = slot
        if kind == "seat":
            return self.seats.get(seat)
        reads = [self.board.get(p) for p in SLOTS[kind]]
        present = [r for r in reads if r is not None]
        if len(present) != len(reads):
            return None
        return frozenset(c for c, _ in present), min(conf for _, conf in present)

    def in_zone(self, zone: Zone) -> dict[object, object]:
        if zone.kind is ZoneKind.SEAT:
            held = self.seats.get(zone.seat)
            return {} if held is None else {"pair": held[0]}
        return {p: r[0] for p, r in self.board.items()}


def slots_of(zone: Zone) -> list[tuple[str, int]]:
    return [("seat", zone.seat)] if zone.kind is ZoneKind.SEAT else [(k, 0) for k in SLOTS]


ZONES = (SEAT1, SEAT2, BOARD)


@st.composite
def streams(draw: st.DrawFn) -> tuple[FusionPolicy, bool, dict[Zone, str],
                                      list[tuple[str, Any]]]:
    policy = draw(st.sampled_from(list(FusionPolicy)))
    fallback = draw(st.booleans())
    coverage = {zone: draw(st.sampled_from(["rfid", "camera", "both"])) for zone in ZONES}
    steps: list[tuple[str, Any]] = []
    for t in range(draw(st.integers(1, 40))):
        source = draw(st.sampled_from(["rfid", "camera"]))
        zones = [z for z in ZONES if coverage[z] in (source, "both")]
        if not zones:
            continue
        zone = draw(st.sampled_from(zones))
        if draw(st.integers(0, 7)) == 0:  # the source goes offline, or comes back
            steps.append((source, ("down", zone, draw(st.booleans()))))
            continue
        if draw(st.integers(0, 3)) == 0:  # the sources mostly agree: read what the other has
            steps.append((source, ("copy", zone, draw(st.sampled_from([0.5, 0.9, 1.0])))))
            continue
        confidence = draw(st.sampled_from([0.5, 0.8, 0.95, 1.0]))
        name = "rfid" if source == "rfid" else CAM
        event: CaptureEvent
        if zone.kind is ZoneKind.SEAT:
            pair = draw(st.lists(st.sampled_from(POOL), min_size=2, max_size=2, unique=True))
            event = (HoleCardsRead(zone.seat, (pair[0], pair[1]), float(t), name,
                                   confidence=confidence)
                     if draw(st.booleans()) else
                     CardRemoved(zone, draw(st.sampled_from(pair)), float(t), name))
        elif draw(st.booleans()):
            event = BoardCardRead(draw(st.sampled_from(POOL)), draw(st.integers(1, 5)),
                                  float(t), name, confidence=confidence)
        else:
            event = CardRemoved(BOARD, draw(st.sampled_from(POOL)), float(t), name)
        steps.append((source, event))
    return policy, fallback, coverage, steps


def expand(steps: list[tuple[str, Any]], rfid: Model,
           camera: Model) -> Iterator[tuple[str, Any]]:
    """The steps, with each copy step turned into reads of what the other source has now."""
    for source, step in steps:
        if not isinstance(step, tuple) or step[0] == "down":
            yield source, step
            continue
        _copy, zone, confidence = step
        other = camera if source == "rfid" else rfid
        name = "rfid" if source == "rfid" else CAM
        t = 100.0
        if zone.kind is ZoneKind.SEAT:
            held = other.seats.get(zone.seat)
            if held is not None:
                a, b = sorted(held[0])
                yield source, HoleCardsRead(zone.seat, (a, b), t, name, confidence=confidence)
        else:
            for position, (card, _c) in sorted(other.board.items()):
                yield source, BoardCardRead(card, position, t, name, confidence=confidence)


def reporting(policy: FusionPolicy, fallback: bool, zone: Zone,
              down: dict[str, set[Zone]]) -> str:
    """Which source's cards the service must see in a fused zone (rfid/camera policies):
    the policy's, unless it is down and the other is not (with fallback)."""
    chosen, other = ("rfid", "camera") if policy is FusionPolicy.RFID else ("camera", "rfid")
    if fallback and zone in down[chosen] and zone not in down[other]:
        return other
    return chosen


@settings(max_examples=400)
@given(streams())
def test_fusion_invariants(stream: tuple[FusionPolicy, bool, dict[Zone, str],
                                         list[tuple[str, Any]]]) -> None:
    policy, fallback, coverage, steps = stream
    f = CardFusion(rfid_zones=[z for z, c in coverage.items() if c != "camera"],
                   camera_zones={z: CAM for z, c in coverage.items() if c != "rfid"},
                   policy=policy, fallback=fallback)
    seen: dict[Zone, set[Card]] = {zone: set() for zone in ZONES}
    rfid, camera, view = Model(), Model(), Model()
    down: dict[str, set[Zone]] = {"rfid": set(), "camera": set()}
    disagreeing: dict[tuple[str, int], tuple[frozenset[Card], frozenset[Card]]] = {}
    for source, step in expand(steps, rfid, camera):
        if isinstance(step, tuple):  # a reader or a camera goes offline, or comes back
            _down, zone, is_down = step
            (down[source].add if is_down else down[source].discard)(zone)
            out = f.set_down(Source.RFID if source == "rfid" else Source.CAMERA, [zone],
                             is_down, 50.0)
            if coverage[zone] != "both":
                assert out == []
        else:
            event = step
            zone = event.zone if isinstance(event, CardRemoved) else (
                BOARD if isinstance(event, BoardCardRead) else Zone.at_seat(event.seat))
            (rfid if source == "rfid" else camera).apply(event)
            if isinstance(event, HoleCardsRead | BoardCardRead):
                seen[zone] |= set(event.cards if isinstance(event, HoleCardsRead) else
                                  (event.card,))
            out = f.rfid(event) if source == "rfid" else f.camera(event)
            if coverage[zone] != "both":
                assert out == [event]  # a zone one source reads: unchanged
        for emitted in out:
            if not isinstance(emitted, CaptureFault):
                view.apply(emitted)
        # Never a card that neither source saw in that zone.
        for emitted in out:
            if isinstance(emitted, HoleCardsRead):
                assert set(emitted.cards) <= seen[Zone.at_seat(emitted.seat)]
            elif isinstance(emitted, BoardCardRead):
                assert emitted.card in seen[BOARD]
        # Disagreement always alerts (once per distinct disagreement, at once); no alert
        # without one.
        now: dict[tuple[str, int], tuple[frozenset[Card], frozenset[Card]]] = {}
        for fused in (z for z in ZONES if coverage[z] == "both"):
            for slot in slots_of(fused):
                r, c = rfid.slot(slot), camera.slot(slot)
                if r is not None and c is not None and r[0] != c[0]:
                    now[slot] = (r[0], c[0])
        raised = faults(out)
        for slot, signature in now.items():
            if disagreeing.get(slot) != signature:
                assert any(fault.kind is FaultKind.CAMERA_RFID_DISAGREE
                           and set(fault.cards) == signature[0] | signature[1]
                           for fault in raised), (slot, signature, out)
        assert len(raised) == sum(1 for s, sig in now.items() if disagreeing.get(s) != sig)
        disagreeing = now
        # What the service is told lies in each zone, by policy.
        for zone in ZONES:
            if coverage[zone] != "both":
                only = rfid if coverage[zone] == "rfid" else camera
                assert view.in_zone(zone) == only.in_zone(zone)
            elif policy is not FusionPolicy.AGREE:  # RFID always wins with policy rfid
                # (while it reads: with fallback the camera stands in while RFID is down)
                source_ = reporting(policy, fallback, zone, down)
                assert view.in_zone(zone) == (rfid if source_ == "rfid" else
                                              camera).in_zone(zone), (source_, out)
            else:
                for slot in slots_of(zone):
                    r, c = rfid.slot(slot), camera.slot(slot)
                    agreed = r[0] if r is not None and c is not None and r[0] == c[0] else None
                    shown = view.slot(slot)
                    assert (shown[0] if shown else None) == agreed, (slot, out)
            # Agreement raises confidence: what is shown carries at least the combined one.
            if coverage[zone] == "both":
                for slot in slots_of(zone):
                    r, c, shown = rfid.slot(slot), camera.slot(slot), view.slot(slot)
                    if r is not None and c is not None and r[0] == c[0]:
                        assert shown is not None and shown[0] == r[0]
                        assert shown[1] >= combined_confidence(r[1], c[1]) - 1e-9
                        assert shown[1] >= max(r[1], c[1]) - 1e-9
