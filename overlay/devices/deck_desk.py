"""Deck registration through the running service: the operator page's guided scan.

The operator sends ``deck_scan_start`` {name, reader, antenna}, ``deck_scan_cancel``,
``deck_activate`` {name} and ``deck_retire`` {name} to ``POST /api/commands``
(``docs/commands.md``); the capture bridge's :class:`DeckDesk` registers their handlers with
the table service's one dispatcher (:mod:`overlay.commands`) while a reader is configured.
A scan diverts that reader antenna's snapshots from live play
(:meth:`capture.rfid.reader.RfidCapture.divert`) into a
:class:`capture.rfid.decks.DeckRegistration` (the fixed order of
:data:`engine.cards.REGISTRATION_ORDER`, three stable reads per card, no tag twice within
the deck or across the active decks, then the verification pass) and saves the deck once it
is verified. Decks are registered between sessions: a scan is refused while a hand runs.

What the operator sees is the view's ``operator.decks`` field (:meth:`DeckDesk.view`, see
``docs/view-model.md``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from capture.errors import DeckRegistrationError
from capture.rfid.decks import DeckInfo, DeckRegistration, DeckRegistry, Phase
from capture.rfid.reader import RfidCapture, SnapshotQueue
from engine.errors import IllegalActionError
from engine.events import Event
from overlay import commands as cmd
from overlay.alerts import Alert, AlertLevel
from overlay.commands import Dispatcher
from overlay.table_service import TableService
from overlay.tasks import cancel_and_wait

_log = logging.getLogger(__name__)

class DeckDesk:
    """The service's deck commands and the guided scan (see the module docstring).

    ``changed`` is called whenever the operator's ``decks`` field changed; ``use_active``
    makes the bridge read the table's active deck again.
    """

    def __init__(self, registry: DeckRegistry, capture: RfidCapture, service: TableService,
                 table_name: str, *, changed: Callable[[], None],
                 use_active: Callable[[], Awaitable[None]]) -> None:
        self.registry = registry
        self.capture = capture
        self.service = service
        self.table_name = table_name
        self._changed = changed
        self._use_active = use_active
        self._decks: list[DeckInfo] = []
        self._scan: DeckRegistration | None = None
        self._where: tuple[str, int] = ("", 0)
        self._message: str | None = None
        self._saved: bool | None = None
        self._started_at = 0.0
        self._task: asyncio.Task[None] | None = None

    # -- the view -------------------------------------------------------------------------

    def view(self, active: str) -> dict[str, Any]:
        """The operator view's ``decks`` field (``active`` is the bridge's active deck)."""
        return {"active": active or None,
                "decks": [{"name": d.name, "status": str(d.status), "cards": 52}
                          for d in self._decks],
                "scan": self._scan_view()}

    def _scan_view(self) -> dict[str, Any] | None:
        scan = self._scan
        if scan is None:
            return None
        prompt = scan.prompt
        reader, antenna = self._where
        text = prompt.text.replace("on the antenna", f"on antenna {antenna} of {reader}")
        if prompt.phase is Phase.DONE:
            text = {None: f"Deck {scan.name!r} is verified: saving it.",
                    True: f"Deck {scan.name!r} is registered, verified and saved: take it "
                          "off the antenna and activate it.",
                    False: f"Deck {scan.name!r} is verified but was not saved: save it "
                           "under another name, or close it."}[self._saved]
        return {"name": scan.name, "phase": str(prompt.phase),
                "card": prompt.card.code if prompt.card is not None else None,
                "text": text, "done": prompt.index if prompt.phase is not Phase.DONE else 52,
                "total": 52, "reader": reader, "antenna": antenna,
                "message": self._message, "saved": self._saved}

    def alert(self) -> Alert | None:
        """A warning while a hand runs during a scan: that antenna's reads miss the hand."""
        hand = self.service.table.hand
        if self._task is None or hand is None or hand.started is None or hand.is_over:
            return None
        reader, antenna = self._where
        return Alert(AlertLevel.WARNING, "decks", "deck_scan_in_hand",
                     f"a deck is being registered on antenna {antenna} of {reader}: its cards "
                     "do not reach the hand; finish or cancel the scan", at=self._started_at)

    async def reload(self) -> None:
        """Read the deck list again (another process may have changed it)."""
        decks = await asyncio.to_thread(self.registry.decks)
        if decks != self._decks:
            self._decks = decks
            self._changed()

    # -- commands -------------------------------------------------------------------------

    def register(self, commands: Dispatcher) -> None:
        """The deck commands go to this desk (while the bridge runs: :meth:`unregister`).
        A repeated id answers as the first time, also after a restart (the service's one
        idempotency store, the log's answers)."""
        commands.register(cmd.DeckScanStart, self._scan_start)
        commands.register(cmd.DeckScanCancel, self._scan_cancel)
        commands.register(cmd.DeckScanSave, self._scan_save)
        commands.register(cmd.DeckActivate, self._activate)
        commands.register(cmd.DeckRetire, self._retire)

    @staticmethod
    def unregister(commands: Dispatcher) -> None:
        commands.unregister(cmd.DeckScanStart, cmd.DeckScanCancel, cmd.DeckScanSave,
                            cmd.DeckActivate, cmd.DeckRetire)

    # The handlers run one at a time, under the table service's lock. Each refuses with a
    # floor manager's message (InvalidInputError: an unknown reader, a name taken, a deck
    # that cannot be activated; IllegalActionError: not now, a hand or another scan is
    # running) and logs nothing itself: the answer only.

    async def _scan_start(self, command: cmd.DeckScanStart) -> list[Event]:
        await self._start(command.name, command.reader, command.antenna)
        return []

    async def _scan_cancel(self, command: cmd.DeckScanCancel) -> list[Event]:
        self.cancel()
        return []

    async def _scan_save(self, command: cmd.DeckScanSave) -> list[Event]:
        await self._save_again(command.name)
        return []

    async def _activate(self, command: cmd.DeckActivate) -> list[Event]:
        self._refuse_during_hand("change the active deck")
        await asyncio.to_thread(self.registry.activate, command.name, self.table_name)
        if self._scan is not None and self._scan.phase is Phase.DONE:
            # The registered deck is in use: the scan is over (its antenna returns to
            # play once the deck is off it, see _run).
            self._scan, self._message = None, None
        await self._after_change()
        return []

    async def _retire(self, command: cmd.DeckRetire) -> list[Event]:
        active = await asyncio.to_thread(self.registry.active_deck, self.table_name)
        if active is not None and active.name == command.name:
            self._refuse_during_hand("retire the active deck")
        await asyncio.to_thread(self.registry.retire, command.name)
        await self._after_change()
        return []

    def _refuse_during_hand(self, what: str) -> None:
        hand = self.service.table.hand
        if hand is not None and hand.started is not None and not hand.is_over:
            raise IllegalActionError(f"a hand is running: {what} between hands, once this "
                                     "hand is over")

    async def _after_change(self) -> None:
        await self._use_active()
        await self.reload()
        self._changed()

    async def _start(self, name: str, reader: str, antenna: int) -> None:
        self._refuse_during_hand("register decks")
        if self._scan is not None and self._scan.phase is not Phase.DONE:
            raise IllegalActionError(f"deck {self._scan.name!r} is being scanned: finish or "
                                     "cancel that scan first")
        readers = sorted(self.capture.coordinators)
        if reader not in self.capture.coordinators:
            raise DeckRegistrationError(f"there is no reader called {reader!r} "
                                        f"(readers: {', '.join(readers)})")
        decks = await asyncio.to_thread(self.registry.decks)
        if any(deck.name == name for deck in decks):
            raise DeckRegistrationError(f"a deck called {name!r} already exists: "
                                        "choose another name")
        taken = await asyncio.to_thread(self.registry.active_uids)
        if self._scan is not None or self._task is not None:
            self.cancel()  # close the finished scan shown until now
        self._scan = DeckRegistration(name, taken=taken)
        self._where = (reader, antenna)
        self._message, self._saved = None, None
        self._started_at = round(self.service.clock(), 3)
        feed = SnapshotQueue(antenna)
        self.capture.divert(reader, antenna, feed)
        self._task = asyncio.create_task(self._run(feed), name="deck-scan")
        _log.info("deck scan of %r started on %s antenna %d", name, reader, antenna)
        self._changed()

    async def _save_again(self, name: str) -> None:
        """Save a verified scan whose saving failed (a name taken meanwhile, the database
        away), under ``name``: 52 cards are not scanned twice for it. A refusal leaves the
        scan as it is, to be saved under another name or closed."""
        scan = self._scan
        if scan is None or scan.phase is not Phase.DONE or self._saved is not False:
            raise IllegalActionError("there is no verified deck waiting to be saved")
        try:
            await asyncio.to_thread(self.registry.save, name, scan.cards())
        except DeckRegistrationError as error:
            self._message = f"the deck could not be saved: {error}"
            self._changed()
            raise
        scan.name = name
        self._saved, self._message = True, None
        _log.info("deck %r registered and verified (saved on the second try)", scan.name)
        await self.reload()
        self._changed()

    def cancel(self) -> None:
        """Stop the scan (nothing is saved) or close a finished one."""
        if self._task is not None:
            self._task.cancel()
            self._task = None
        reader, antenna = self._where
        if reader:
            self.capture.divert(reader, antenna, None)
        if self._scan is not None:
            _log.info("deck scan of %r closed at %s", self._scan.name, self._scan.phase)
        self._scan, self._where, self._message = None, ("", 0), None
        self._changed()

    async def stop(self) -> None:
        task, self._task = self._task, None
        await cancel_and_wait(task)

    # -- the scan -------------------------------------------------------------------------

    async def _run(self, feed: SnapshotQueue) -> None:
        scan = self._scan
        assert scan is not None
        while scan.phase is not Phase.DONE:
            uids = await feed.snapshots.get()
            before = self._scan_view()
            update = scan.observe(uids)
            if update.problem:
                self._message = update.problem
            elif update.accepted is not None or update.verified is not None:
                self._message = None
            if self._scan_view() != before:
                self._changed()
        self._changed()
        try:
            await asyncio.to_thread(self.registry.save, scan.name, scan.cards())
        except DeckRegistrationError as error:
            self._saved = False
            self._message = f"the deck could not be saved: {error}"
        except Exception:
            _log.exception("could not save deck %r", scan.name)
            self._saved = False
            self._message = "the deck could not be saved: database error (see the server log)"
        else:
            self._saved = True
            _log.info("deck %r registered and verified", scan.name)
            await self.reload()
        self._changed()
        # The antenna is back in play once the deck is taken off it (its tags are unknown
        # to live play until the deck is activated).
        while await feed.snapshots.get():
            pass
        reader, antenna = self._where
        self.capture.divert(reader, antenna, None)
        self._task = None
