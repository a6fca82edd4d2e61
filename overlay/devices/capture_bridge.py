"""The bridge from RFID capture into the running service.

:func:`capture_ctx` is the service's cleanup context for capture: it builds
:class:`capture.rfid.reader.RfidCapture` from the configured ``[[capture.readers]]`` and their
antenna maps, with UID -> card from the table's active deck in the deck registry (SQLModel
tables on the service's own database), and, for the configured ``[[capture.cameras]]``, the
:class:`overlay.devices.camera_bridge.CameraService` whose fusion RFID events pass through:
the whole pipeline, built once by one :class:`CaptureBridge` (a table read by cameras only has
a bridge with no reader).

The bridge keeps what capture says lies on the table (a pair per seat, the board by position,
the muck) and, after every capture event and every change of the table, *reconciles* it with
the running hand through :meth:`overlay.table_service.TableService.execute`, the same typed
commands the operator sends:

- both hole cards present at a seat -> ``deal_cards`` when the hand still needs them;
- board cards in order -> ``deal_board`` when the street needs them (the flop as three);
  cards read early wait until the betting round is over;
- a live hand thrown into the muck at the showdown -> ``muck_hand`` (R15): its two known
  cards reach the muck, or (capture never read it at the seat) two new cards that no hand had,
  while it is the only undecided unknown hand; any other mucked card is a dead card (R20);
- burn cards never appear anywhere: capture reports only their anonymous count (R19).

A pair or board card still lying there from the previous hand is not dealt again (the table
was not cleared yet). The operator has the last word: a deal he undid is not made again until
the cards are picked up and read anew. A command the engine refuses becomes an operator
alert, never a crash. Every capture event is logged as a secret-when-it-names-a-card
``capture.*`` record (:class:`engine.log.CaptureRecord`), a burst at a time, right after the
commands it caused.

Reader health and faults (unplugged, silent, unknown UID, one card in two places, crosstalk, a
third card at a seat, a card at an empty seat, malformed lines counted) go to the operator
view's ``capture`` list and ``alerts`` (the bridge is a :class:`overlay.devices.Device`:
:meth:`CaptureBridge.status`, :meth:`CaptureBridge.alerts` and its ``changed`` signal; the
service merges the devices in ``overlay.app.device_report``). Alerts travel in a
*public* ``devices_reported`` event, so they never name a card: the cards are in the secret
``capture.*`` records of the log (:class:`engine.log.CaptureRecord`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

from aiohttp import web

from capture.rfid.antenna_map import AntennaMap
from capture.rfid.decks import DeckRegistry
from capture.rfid.presence import PresenceConfig
from capture.rfid.reader import ReaderConfig, ReaderState, RfidCapture
from engine.capture_events import (
    BoardCardRead,
    BurnSeen,
    CaptureEvent,
    CaptureFault,
    CardMucked,
    CardRemoved,
    FaultKind,
    HoleCardsRead,
    ReaderOffline,
    ReaderOnline,
    ZoneKind,
)
from engine.cards import Card
from engine.errors import FeltcastError
from engine.events import Street
from engine.log import CaptureRecord
from overlay import commands as cmd
from overlay.alerts import Alert, AlertBook, AlertLevel
from overlay.devices import DeviceStatus
from overlay.devices.camera_bridge import CameraFactory, CameraService, opencv_pipeline
from overlay.devices.camera_config import CameraConfigSection
from overlay.devices.deck_desk import DeckDesk
from overlay.devices.faults import safe_detail, without_cards
from overlay.hub import TableLog
from overlay.keys import CAPTURE_KEY, CONFIG_KEY, LOG_KEY, STORE_KEY, TABLE_DEVICES_KEY, TABLE_KEY
from overlay.signals import Signal
from overlay.table_service import TableService
from overlay.tasks import cancel_and_wait

_log = logging.getLogger(__name__)

ALERT_SECONDS = 120.0
"""How long a one-off capture fault stays among the operator's alerts."""
RECORD_DELAY_S = 0.05
"""Capture records of a burst are logged together, this long after the first of them."""
DECK_POLL_SECONDS = 5.0
"""How often the bridge looks for a newly activated deck (``feltcast deck activate``)."""

# -- the bridge -----------------------------------------------------------------------------



class CaptureBridge:
    """Capture events in, table commands and operator alerts out (see the module docstring).

    The bridge builds the pipeline: its :attr:`capture` (the readers) and, with ``cameras``,
    its :attr:`cameras` (``make_camera`` builds a camera's frame source and tracker; the
    default uses OpenCV and the decks of ``camera_engine``'s database).
    """

    def __init__(self, service: TableService, table_log: TableLog, *,
                 readers: Sequence[ReaderConfig], antenna_map: AntennaMap,
                 registry: DeckRegistry | None, table_name: str,
                 presence: PresenceConfig | None = None,
                 cameras: Sequence[CameraConfigSection] = (),
                 make_camera: CameraFactory | None = None,
                 camera_engine: Any = None,
                 clock: Callable[[], float] = time.time,
                 alert_seconds: float = ALERT_SECONDS) -> None:
        self.service = service
        self.log = table_log
        self.registry = registry
        self.table_name = table_name
        self.clock = clock
        self.alert_seconds = alert_seconds
        self._alerts = AlertBook(clock=clock, expire_seconds=alert_seconds)
        self.changed = Signal("capture")
        """Emitted when the readers' health, the decks or the capture alerts changed."""
        self.deck, cards = self._load_deck()
        self.cameras = None if not cameras else CameraService(
            cameras, sink=self._on_capture,
            rfid_zones={reader: {zone for _, zone in antenna_map.antennas_of(reader)}
                        for reader in antenna_map.readers()},
            table_log=table_log, make=make_camera or opencv_pipeline(camera_engine))
        """The cameras, fused with RFID (None without ``[[capture.cameras]]``)."""
        self.capture = RfidCapture(
            readers, antenna_map, cards,  # RFID goes through the camera fusion first
            sink=self._on_capture if self.cameras is None else self.cameras.rfid,
            presence=presence, occupied_seats=set(service.table.names))
        self.desk = None if registry is None else DeckDesk(
            registry, self.capture, service, table_name, changed=self.changed.emit,
            use_active=self.refresh_deck)
        """Deck commands and the operator page's guided scan (``overlay.devices.deck_desk``)."""
        self._queue: asyncio.Queue[CaptureEvent | None] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._unwatch: Callable[[], None] = lambda: None
        """Disconnects the bridge from the table service's ``changed`` signal."""
        # What capture says lies on the table.
        self._seats: dict[int, tuple[Card, Card]] = {}
        self._board: dict[int, Card] = {}
        self._muck: set[Card] = set()
        self.burn_count = 0
        # The hand being reconciled, and what the previous one had (not to be dealt again).
        self._hand_key: object = None
        self._showdown_muck: frozenset[Card] | None = None
        self._hand_hole: dict[int, frozenset[Card]] = {}
        self._hand_board: frozenset[Card] = frozenset()
        self._stale_hole: dict[int, frozenset[Card]] = {}
        self._stale_board: frozenset[Card] = frozenset()
        self._refused: set[tuple[Any, ...]] = set()
        self._done: set[tuple[Any, ...]] = set()
        """Commands the bridge made in this hand: one the operator undid is not made again
        until the cards are picked up and read anew (the operator has the last word)."""
        self._fault_at: dict[str, float] = {}
        self._offline_reason: dict[str, FaultKind] = {}
        self._pending: list[CaptureEvent] = []
        self._flusher: asyncio.Task[None] | None = None
        self.commands = 0
        """Commands the bridge had the engine accept (for tests and the bench)."""

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        await self.capture.start()
        if self.cameras is not None:
            await self.cameras.start()
        if self.desk is not None:
            await self.desk.reload()
            self.desk.register(self.service.commands)
        self._unwatch = self.service.changed.connect(self.table_changed)
        self._tasks = [asyncio.create_task(self._work(), name="capture-bridge"),
                       asyncio.create_task(self._poll_deck(), name="capture-bridge-deck")]
        if not self.deck:
            self._no_deck_alert()

    def _no_deck_alert(self) -> None:
        if not self.capture.coordinators:
            return  # a table read by cameras only needs no RFID deck
        self._alert(("deck",), "error", "capture",
                    f"no active deck for table {self.table_name!r}: every tag is unknown "
                    "(register and activate one: feltcast deck)", "no_deck", sticky=True)

    async def stop(self) -> None:
        self._unwatch()
        if self.desk is not None:
            self.desk.unregister(self.service.commands)
            await self.desk.stop()
        if self.cameras is not None:
            await self.cameras.stop()
        await self.capture.stop()
        await cancel_and_wait(*self._tasks)
        self._tasks = []
        if self._flusher is not None:
            await self._flusher  # it only sleeps, then writes
        await self.flush_records()

    # -- inputs ---------------------------------------------------------------------------

    def _on_capture(self, event: CaptureEvent) -> None:
        """RfidCapture's sink (synchronous): queue the event for the worker."""
        self._queue.put_nowait(event)

    def table_changed(self) -> None:
        """Something changed the table (the table service's ``changed`` signal: an operator
        command, a level, a timer): reconcile soon (once for a burst of changes)."""
        if self._queue.empty():
            self._queue.put_nowait(None)

    async def _poll_deck(self) -> None:
        while True:
            await asyncio.sleep(DECK_POLL_SECONDS)
            await self.refresh_deck()
            if self.desk is not None:
                try:
                    await self.desk.reload()
                except Exception:
                    _log.exception("could not read the deck list")

    async def refresh_deck(self) -> None:
        """Use the table's active deck if it changed (``feltcast deck activate`` may run in
        another process: the bridge looks every few seconds)."""
        if self.registry is None:
            return
        try:
            info = await asyncio.to_thread(self.registry.active_deck, self.table_name)
            if (info.name if info is not None else "") == self.deck:
                return
            name, cards = await asyncio.to_thread(self._load_deck)
        except Exception:
            _log.exception("could not read the deck registry")
            return
        self._use_deck(name, cards)
        self.capture.set_cards(cards)
        _log.info("deck for table %r: %s", self.table_name, name or "none")

    def _load_deck(self) -> tuple[str, dict[str, Card]]:
        """The table's active deck and its UID -> card table (blocking: database reads)."""
        if self.registry is None:
            return "", {}
        info = self.registry.active_deck(self.table_name)
        if info is None:
            return "", {}
        return info.name, self.registry.cards_of(info.name)

    def _use_deck(self, name: str, cards: Mapping[str, Card]) -> None:
        self.deck = name
        if name:
            self._alerts.clear(("deck",))
        else:
            self._no_deck_alert()
        self.changed.emit()

    async def _work(self) -> None:
        while True:
            batch = [await self._queue.get()]
            while not self._queue.empty():  # one scan often brings several (a whole flop)
                batch.append(self._queue.get_nowait())
            events = [event for event in batch if event is not None]
            try:
                for event in events:
                    self.apply(event)
                await self.reconcile()
            except Exception:  # a bug must not stop capture: say so and carry on
                _log.exception("capture bridge failed on %r", events)
            await self._record(events)

    async def _record(self, events: Sequence[CaptureEvent]) -> None:
        """Queue capture events for the log as capture records. They are written shortly
        after the commands they caused, a burst at a time, so that the channels see a deal
        without waiting for the audit trail (each append re-renders every channel)."""
        if not events:
            return
        self._pending.extend(events)
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush_later(), name="capture-records")

    async def _flush_later(self) -> None:
        await asyncio.sleep(RECORD_DELAY_S)
        await self.flush_records()

    async def flush_records(self) -> None:
        """Write the queued capture records now."""
        events, self._pending = self._pending, []
        if not events:
            return
        try:
            await self.log.append([CaptureRecord(event) for event in events],
                                  source="capture")
        except Exception:
            _log.exception("could not log %d capture events", len(events))

    # -- capture events -------------------------------------------------------------------

    def apply(self, event: CaptureEvent) -> None:
        """Update what lies on the table and the operator's alerts."""
        if isinstance(event, HoleCardsRead):
            self._seats[event.seat] = event.cards
        elif isinstance(event, BoardCardRead):
            self._board[event.position] = event.card
        elif isinstance(event, CardMucked):
            self._muck.add(event.card)
        elif isinstance(event, CardRemoved):
            self._removed(event)
        elif isinstance(event, BurnSeen):
            self.burn_count = event.count  # R19: a count, never a card
        elif isinstance(event, ReaderOnline):
            self._offline_reason.pop(event.reader, None)
            self._alerts.clear(("offline", event.reader))
            self.changed.emit()
        elif isinstance(event, ReaderOffline):
            self.changed.emit()
        elif isinstance(event, CaptureFault):
            self._on_fault(event)

    def _removed(self, event: CardRemoved) -> None:
        zone = event.zone
        if zone.kind is ZoneKind.SEAT:
            pair = self._seats.get(zone.seat)
            if pair is not None and event.card in pair:
                del self._seats[zone.seat]
            self._forget(lambda key: key[:2] == ("deal", zone.seat))
            stale = self._stale_hole.get(zone.seat)
            if stale is not None and event.card in stale:
                del self._stale_hole[zone.seat]  # the old pair is being picked up
        elif zone.kind is ZoneKind.BOARD:
            for position, card in list(self._board.items()):
                if card == event.card:
                    del self._board[position]
            self._stale_board = self._stale_board - {event.card}
            self._forget(lambda key: key[0] == "board" and event.card in key[1])
        elif zone.kind is ZoneKind.MUCK:
            self._muck.discard(event.card)

    def _forget(self, match: Callable[[tuple[Any, ...]], bool]) -> None:
        """Cards were picked up: what they caused (or failed to) may happen again."""
        self._done = {key for key in self._done if not match(key)}
        self._refused = {key for key in self._refused if not match(key)}

    def _on_fault(self, fault: CaptureFault) -> None:
        kind = fault.kind
        self._fault_at[fault.reader] = self.clock()
        message = safe_detail(fault)
        source = f"reader:{fault.reader}"
        if kind in (FaultKind.READER_OFFLINE, FaultKind.READER_SILENT):
            self._offline_reason[fault.reader] = kind
            self._alert(("offline", fault.reader), "error", source, message, str(kind),
                        sticky=True)
            return
        level = "error" if fault.misdeal else "warning"
        key: tuple[Any, ...] = (str(kind), fault.reader)
        if kind not in (FaultKind.MALFORMED_LINE, FaultKind.LINES_LOST):
            key = (*key, fault.uid, tuple(str(z) for z in fault.zones))
        self._alert(key, level, source, message, str(kind))

    # -- reconciling capture with the hand ------------------------------------------------

    async def reconcile(self) -> None:
        """Deal what the hand needs and capture has (see the module docstring)."""
        table = self.service.table
        hand = table.hand
        # A player who just busted still has his cards in front of him until the table is
        # cleared: the seats of the last hand count as occupied until the next one starts.
        self.capture.set_occupied_seats(set(table.names) | set(hand.seats if hand else ()))
        if hand is None or hand.started is None:
            return
        if hand.started is not self._hand_key:
            self._new_hand(hand.started)
        try:
            if not hand.is_over:
                await self._deal(hand)
        finally:
            self._remember(hand)

    def _remember(self, hand: Any) -> None:
        """What the hand has (from capture or typed in): stale in the next hand while it
        still lies on the table."""
        self._hand_board = frozenset(hand.board)
        for seat in hand.seats:
            have = hand.hole_cards(seat)
            if have is not None and None not in have:
                self._hand_hole[seat] = frozenset(c for c in have if c is not None)

    async def _deal(self, hand: Any) -> None:
        for seat in hand.seats:
            pair = self._seats.get(seat)
            if hand.is_folded(seat) or hand.is_mucked(seat) or pair is None:
                continue
            if self._stale_hole.get(seat) == frozenset(pair):
                continue  # last hand's cards, still lying there
            have = hand.hole_cards(seat)
            if have is not None and None not in have:
                if frozenset(have) != frozenset(pair):
                    self._refuse(("differ", seat, pair), f"seat {seat}: the cards read differ "
                                 "from the hole cards the hand has (manual entry?); the hand "
                                 "keeps its cards", "capture_conflict")
                continue
            await self._command(cmd.DealCards(seat=seat, cards=tuple(pair)),
                                ("deal", seat, pair), f"seat {seat}'s hole cards")
        await self._deal_board(hand)
        if hand.street is Street.SHOWDOWN:
            await self._showdown_mucks(hand)

    async def _showdown_mucks(self, hand: Any) -> None:
        """R15: a live hand thrown into the muck at the showdown is mucked. Its cards are
        known (both now in the muck), or unknown (capture missed them at the seat): then two
        new cards in the muck that no hand had are his, if he is the only such player."""
        if self._showdown_muck is None:
            self._showdown_muck = frozenset(self._muck)
        undecided = [s for s in hand.live_seats if not hand.is_shown(s)]
        known: set[Card] = {c for s in hand.seats for c in (hand.hole_cards(s) or ())
                            if c is not None} | set(hand.board)
        fresh = self._muck - self._showdown_muck - known
        unknown = [s for s in undecided if None in (hand.hole_cards(s) or (None,))]
        for seat in undecided:
            have = hand.hole_cards(seat)
            if seat in unknown:
                thrown = len(unknown) == 1 and len(fresh) >= 2
            else:
                thrown = have is not None and set(have) <= self._muck
            if thrown:
                await self._command(cmd.MuckHand(seat=seat),
                                    ("muck", seat, tuple(sorted(fresh))), f"seat {seat}'s muck")

    async def _deal_board(self, hand: Any) -> None:
        if len(hand.board) >= 5:
            return
        needed = [1, 2, 3] if not hand.board else [len(hand.board) + 1]
        cards = [self._board.get(position) for position in needed]
        if any(card is None for card in cards):
            return
        dealt: list[Card] = [card for card in cards if card is not None]
        if any(card in self._stale_board for card in dealt):
            return
        try:
            hand.verify_deal_board(dealt)
        except FeltcastError as error:
            if getattr(error, "rule", "") != "R13":
                return  # the betting round is not over: the cards wait
        await self._command(cmd.DealBoard(cards=tuple(dealt)), ("board", tuple(dealt)),
                            "the board cards")

    def _new_hand(self, started: object) -> None:
        """A new hand: what the previous hand had is stale until it is picked up."""
        lying = {seat: frozenset(pair) for seat, pair in self._seats.items()}
        self._stale_hole = {seat: cards for seat, cards in self._hand_hole.items()
                            if lying.get(seat) == cards}
        self._stale_board = self._hand_board & frozenset(self._board.values())
        self._hand_hole, self._hand_board = {}, frozenset()
        self._hand_key = started
        self._showdown_muck = None
        self._refused.clear()
        self._done.clear()

    async def _command(self, command: cmd.Command, key: tuple[Any, ...], what: str) -> bool:
        if key in self._refused or key in self._done:
            return False
        try:
            await self.service.execute(command)
        except FeltcastError as error:
            self._refuse(key, f"capture read {what} but the engine refused them: "
                         f"{without_cards(str(error))}", "capture_refused")
            return False
        self._done.add(key)
        self.commands += 1
        return True

    def _refuse(self, key: tuple[Any, ...], message: str, kind: str) -> None:
        if key in self._refused:
            return
        self._refused.add(key)
        _log.warning("%s", message)
        self._alert(key, "warning", "capture", message, kind)

    # -- the operator's view --------------------------------------------------------------

    def _alert(self, key: tuple[Any, ...], level: str, source: str, message: str, kind: str,
               *, sticky: bool = False) -> None:
        if self._alerts.raise_alert(key, Alert(AlertLevel(level), source, kind, message,
                                               sticky=sticky)):
            self.changed.emit()

    def alerts(self) -> list[Alert]:
        """Current capture alerts, newest first (one-off faults expire), the deck desk's
        first."""
        scan = self.desk.alert() if self.desk is not None else None
        return [*([scan] if scan else []), *self._alerts.current()]

    def status(self) -> DeviceStatus:
        """The readers' entries of the operator view's ``capture`` list and its ``decks``."""
        return DeviceStatus(capture=tuple(self.operator_capture()),
                            decks=self.operator_decks())

    def operator_decks(self) -> dict[str, Any] | None:
        """The operator view's ``decks`` field (``None`` without a deck registry)."""
        return None if self.desk is None else self.desk.view(self.deck)

    def operator_capture(self) -> list[dict[str, Any]]:
        """The operator view's ``capture`` list: one entry per reader."""
        now = self.clock()
        out: list[dict[str, Any]] = []
        for stats in self.capture.stats():
            if stats.state is ReaderState.OFFLINE:
                reason = self._offline_reason.get(stats.name)
                status = "silent" if reason is FaultKind.READER_SILENT else "offline"
                detail = ("silent: no line within the watchdog" if status == "silent"
                          else "offline: reconnecting; its zones are frozen")
            elif stats.state is ReaderState.CONNECTING:
                status, detail = "offline", "connecting"
            elif now - self._fault_at.get(stats.name, -1e18) < self.alert_seconds:
                status, detail = "fault", "online, with recent faults (see the alerts)"
            else:
                status, detail = "ok", f"online, firmware {stats.firmware}"
            # No line counter, no burn count: the report is logged whenever it changes.
            out.append({"source": f"reader:{stats.name}", "status": status, "detail": detail,
                        "deck": self.deck or None,
                        "malformed": stats.malformed, "lost": stats.lost,
                        "connects": stats.connects})
        return out


# -- the cleanup context --------------------------------------------------------------------



async def capture_ctx(app: web.Application) -> AsyncIterator[None]:
    """The capture pipeline for the configured readers and cameras (nothing when neither is
    configured), built once; the bridge joins the service's devices, and so do its cameras."""
    config = app[CONFIG_KEY]
    if not config.readers and not config.cameras:
        yield
        return
    readers, antenna_map = config.rfid.readers, config.rfid.antenna_map
    registry = (await asyncio.to_thread(DeckRegistry, app[STORE_KEY].engine)
                if config.readers else None)  # cameras only: no RFID deck
    bridge = CaptureBridge(app[TABLE_KEY], app[LOG_KEY], readers=readers,
                           antenna_map=antenna_map, registry=registry,
                           table_name=config.table.name, cameras=config.cameras,
                           camera_engine=app[STORE_KEY].engine)
    await bridge.start()
    app[CAPTURE_KEY] = bridge
    devices = app[TABLE_DEVICES_KEY]
    devices.append(bridge)
    if bridge.cameras is not None:
        devices.append(bridge.cameras)
    yield
    devices.remove(bridge)
    if bridge.cameras is not None:
        devices.remove(bridge.cameras)
    await bridge.stop()

