"""The one writer of the table: typed commands in, engine events out to the log.

:class:`TableService` owns the :class:`engine.table.Table`. Each command
(``docs/commands.md``) runs the engine synchronously under a lock; the events the engine
produced are appended to the :class:`overlay.hub.TableLog` (persisted, then published) before the
command is acknowledged. An illegal command raises the engine's error and changes nothing. If the
log cannot be written the table is rebuilt from the log, so memory never runs ahead of disk.

At start-up the table is the log replayed (:func:`engine.table_replay.replay_table`); an empty
log is seeded from the configuration (players, button, first level).

The tournament (clock, prizes, identities: :class:`overlay.tournament_desk.TournamentDesk`)
follows the same log. With the tournament clock started, a level becomes due at the clock's
boundary (a timer logs ``level_started`` then, R21: dealt from the next hand); before it is
started, a level's minutes count from its ``level_started``, as they always did.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from engine.errors import IllegalActionError, StaleCommandError
from engine.events import ActionTaken, Event, HandEnded, HandVoided, Secrecy, Street
from engine.hand import Hand
from engine.log import TableEvent
from engine.production_events import (
    PRODUCTION_EVENTS,
    AutoOperatorSet,
    GraphicsHidden,
    GraphicsShown,
    HandTagged,
    tag_note,
)
from engine.table import AnteMode, Table, TableRules
from engine.table_events import (
    AbsenceSet,
    AccessRecorded,
    ButtonSet,
    ClockCalled,
    ClockStopped,
    DevicesReported,
    LevelStarted,
    PlayerSeated,
    SeatEmptied,
)
from engine.table_replay import TableRecorder
from overlay import commands as cmd
from overlay.checkpoints import Captured, Checkpoints
from overlay.commands import Command, Dispatcher, parse_command
from overlay.config import Config
from overlay.festival.client import FestivalClient
from overlay.hub import TableLog
from overlay.signals import Signal
from overlay.store import Acknowledgement, Sender, StoreError
from overlay.tournament_desk import TournamentDesk

_log = logging.getLogger(__name__)

OPERATOR_CHANNEL = "operator"
"""The channel whose revision a command may carry (``revision``, docs/commands.md)."""

CLOCK_SECONDS = 70.0
"""R12: one minute, then a ten-second countdown."""


def build_table(config: Config) -> Table:
    """An empty table with the configuration's rules and structure."""
    section = config.table
    rules = TableRules(ante_mode=AnteMode(section.ante_mode), short_call_rule=section.short_call,
                       odd_chip_rule=section.odd_chip, dead_button=section.dead_button,
                       chip_unit=section.chip_unit, max_seats=section.seats)
    return Table(rules, config.structure)


class TableService:
    """Commands to engine events to the log (see the module docstring)."""

    def __init__(self, config: Config, table_log: TableLog, *,
                 clock: Callable[[], float] = time.time, remembered_commands: int = 1000,
                 checkpoints: Checkpoints | None = None,
                 festival: FestivalClient | None = None) -> None:
        self.config = config
        self.festival = festival
        """The festival's director, asked before each hand (``[festival]``), or None."""
        self.log = table_log
        self.clock = clock
        self.table = build_table(config)
        self._recorder = TableRecorder(self.table)
        self._lock = asyncio.Lock()
        self._stale = False
        """The table in memory could not be rebuilt from the log (the database away): every
        command and append rebuilds it first (:meth:`_rebuild`)."""
        self._results: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._remember = remembered_commands
        self._clock_timer: asyncio.TimerHandle | None = None
        self._clock_seat: int | None = None
        self._level_started_at: float | None = None
        self._devices = ""
        self.tournament = TournamentDesk(config, self.table)
        self._boundary_timer: asyncio.TimerHandle | None = None
        self._armed_period: int | None = None
        self.open_access: dict[str, AccessRecorded] = {}
        """The audited connections open at the end of the replayed log."""
        self._clock_call: tuple[ClockCalled, float] | None = None
        """The clock call (R12) the log leaves running, and when it was logged."""
        self._graphics_hidden = False
        self._auto_operator: bool | None = None
        """The demo's automatic operator: playing, paused, or None (none announced)."""
        self.checkpoints = checkpoints
        self._writing: asyncio.Task[None] | None = None
        self._changed_at = 0
        """The operator channel's revision that shows the table's latest change: a command
        that carries an older ``revision`` was built on a state that has changed since."""
        self.device_report: Callable[[], Mapping[str, Any]] | None = None
        """The operator's device fields now (set by the service's device reporting)."""
        self.commands = Dispatcher()
        """Every command's handler (:mod:`overlay.commands`)."""
        self.changed = Signal("table")
        """Emitted after an append that changed the table (a command, a level, a timer's
        fold): not for device reports, graphics or tags, which change no decision."""
        self._register()

    # --- start-up --------------------------------------------------------------------------

    async def start(self) -> None:
        """Replay the persisted log into the table (from a checkpoint when there is a valid
        one: only the entries after it); seed an empty log from the config."""
        restored = self.checkpoints.restored if self.checkpoints is not None else None
        if restored is not None:
            self._restore(restored.state["service"])
            after = restored.seq
        else:
            self._reset()
            after = 0
        entries = await asyncio.to_thread(lambda: list(self.log.store.iter_all(after)))
        self._replay(entries)
        clock_call = self._clock_call
        if self.open_access:  # connections the last run never closed (a crash): closed now
            await self._append([replace(access, action="close") for access in
                                self.open_access.values()], source="service")
        if self.log.store.last_seq == 0:
            await self._append(self._seed_events(), source="config")
        elif clock_call is not None:
            called, at = clock_call
            self._arm_clock(called.seat, at + called.seconds - self.clock())
        async with self._lock:
            await self._catch_up_levels(source="clock")
        self._changed_at = self._operator_revision()  # what came before is unknown to a page
        self._arm_boundary()

    def _operator_revision(self) -> int:
        hub = self.log.hubs.get(OPERATOR_CHANNEL)
        return hub.revision if hub is not None else 0

    def _reset(self) -> None:
        """A fresh table, before a replay of the whole log."""
        self.table = build_table(self.config)
        self._recorder = TableRecorder(self.table)
        self.tournament.reset(self.table)
        self.open_access = {}
        self._clock_call = None
        self._graphics_hidden = False
        self._auto_operator = None

    def _rebuild(self) -> None:
        """The table as the log holds it: after a write that failed, or a change made in
        memory only. When the log cannot be read (the database away), nothing is reset and
        the table is *stale*: every later command and append rebuilds it first and is refused
        with the store's error (503, sent again) while the log cannot be read; nothing goes
        on from a table the log does not hold.

        :raises StoreUnreachableError: the log cannot be read now (the store says so).
        """
        try:
            entries = list(self.log.store.iter_all())  # read whole before anything is reset
        except StoreError:
            self._stale = True
            raise
        self._reset()
        self._replay(entries)
        self._stale = False

    def _rebuild_if_stale(self) -> None:
        if self._stale:
            _log.info("rebuilding the table from the log")
            self._rebuild()
            self.changed.emit()

    def _replay(self, entries: Iterable[TableEvent]) -> None:
        """Follow the log's ``entries`` into the table (after :meth:`_reset` or a restore)."""
        for entry in entries:
            self._note(entry)
            payload = entry.payload
            if not isinstance(payload, Event) or payload.secrecy is Secrecy.INTERNAL:
                continue  # capture records (their effect is logged as hand events), devices,
                # the access audit
            if not self.tournament.takes(payload):
                self._recorder.apply(payload)
            self.tournament.apply(payload)
        self._recorder.flush()

    def _note(self, entry: TableEvent) -> None:
        """What the service keeps of an entry beside the table (at a replay and after every
        append alike, so that a checkpoint holds what a replay would make)."""
        payload = entry.payload
        if isinstance(payload, AccessRecorded):
            if payload.action == "open":
                self.open_access[payload.connection] = payload
            else:
                self.open_access.pop(payload.connection, None)
        elif isinstance(payload, LevelStarted):
            self._level_started_at = entry.time
        elif isinstance(payload, ClockCalled):
            self._clock_call = (payload, entry.time)
        elif isinstance(payload, ClockStopped | ActionTaken):
            self._clock_call = None
        elif isinstance(payload, GraphicsHidden | GraphicsShown):
            self._graphics_hidden = isinstance(payload, GraphicsHidden)
        elif isinstance(payload, AutoOperatorSet):
            self._auto_operator = payload.playing

    # --- checkpoints (overlay/checkpoints.py) ----------------------------------------------

    def _state(self) -> dict[str, Any]:
        return {"table": self.table, "recorder": TableRecorder.following(self.table),
                "desk": self.tournament.state(), "open_access": dict(self.open_access),
                "clock_call": self._clock_call, "level_started_at": self._level_started_at,
                "graphics_hidden": self._graphics_hidden, "auto_operator": self._auto_operator}

    def _restore(self, state: Mapping[str, Any]) -> None:
        self.table, self._recorder = state["table"], state["recorder"]
        self.tournament.restore(self.table, state["desk"])
        self.open_access = dict(state["open_access"])
        self._clock_call = state["clock_call"]
        self._level_started_at = state["level_started_at"]
        self._graphics_hidden = state["graphics_hidden"]
        self._auto_operator = state["auto_operator"]

    def _checkpoint_soon(self, entries: Sequence[TableEvent]) -> None:
        """After an append: capture the state when a checkpoint is due, write it in a thread
        (one at a time; a checkpoint due while one is written waits for the next append)."""
        checkpoints = self.checkpoints
        if checkpoints is None or not entries or (self._writing and not self._writing.done()):
            return
        hand_over = any(isinstance(e.payload, HandEnded | HandVoided) for e in entries)
        seq = self.log.published
        if not checkpoints.due(seq, hand_over=hand_over):
            return
        self._writing = asyncio.get_running_loop().create_task(
            self._write_checkpoint(checkpoints, self._capture(checkpoints, seq)))

    def _capture(self, checkpoints: Checkpoints, seq: int) -> Captured:
        hubs = {name: hub.checkpoint() for name, hub in self.log.hubs.items()}
        histories = {name: hub.resume_history() for name, hub in self.log.hubs.items()}
        return checkpoints.capture(seq, {
            "hubs": hubs, "log": {"last_time": self.log.last_time}, "service": self._state()},
            {"histories": histories})

    async def _write_checkpoint(self, checkpoints: Checkpoints,
                                captured: Captured) -> None:
        try:
            await asyncio.to_thread(checkpoints.write, captured, self.clock())
        except Exception:  # derived data: the next one, or a longer replay, makes up for it
            _log.warning("the checkpoint at entry %d could not be written", captured.seq,
                         exc_info=True)

    async def checkpoint_now(self) -> None:
        """A checkpoint at the log's end (a clean stop: the next start replays nothing)."""
        checkpoints = self.checkpoints
        if self._writing is not None:
            await asyncio.wait([self._writing])
        if checkpoints is None or not checkpoints.enabled:
            return
        async with self._lock:
            seq = self.log.published
            if seq == checkpoints.last_seq or seq == 0:
                return
            captured = self._capture(checkpoints, seq)
        await self._write_checkpoint(checkpoints, captured)

    def _seed_events(self) -> list[Event]:
        events: list[Event] = []
        for player in self.config.players:
            events.append(PlayerSeated(player.seat, player.name, player.stack))
            self._recorder.apply(events[-1])
        if self.config.players:
            seats = [p.seat for p in self.config.players]
            button = self.config.table.button if self.config.table.button in seats else seats[0]
            events.append(ButtonSet(button))
            self._recorder.apply(events[-1])
        events.append(self._level_event(self.config.table.level))
        self._recorder.apply(events[-1])
        self._level_started_at = self.clock()
        return events

    def _level_event(self, number: int) -> LevelStarted:
        level = self.table.structure.level(number)
        return LevelStarted(level.number, level.small_blind, level.big_blind, level.ante,
                            str(self.table.rules.ante_mode),
                            ends_at=self.clock() + level.minutes * 60)

    # --- commands --------------------------------------------------------------------------

    @property
    def hand(self) -> Hand | None:
        return self.table.hand

    async def execute(self, command: Command | Mapping[str, Any], *,
                      sender: Sender | None = None) -> dict[str, Any]:
        """Run one command (a typed value, or its JSON form for :func:`parse_command`);
        returns ``{"ok": True, "id", "seq"}`` once its events are logged.

        :raises InvalidInputError: a malformed command.
        :raises IllegalActionError: a command the rules do not allow now (nothing changed).
        """
        if not isinstance(command, Command):
            command = parse_command(command)
        command_id = command.id
        async with self._lock:
            self._rebuild_if_stale()
            done = self._results.get(command_id) or await self.log.answer(command_id)
            if done is not None:  # a retry: the first answer, never applied again
                self._remember_result(command_id, done)
                return done
            seen = command.revision
            if command.checks_revision and seen is not None and seen < self._changed_at:
                raise StaleCommandError(
                    f"The table changed after this console's view (revision {seen}; the "
                    f"change is in revision {self._changed_at}): the {command.type} was "
                    "not applied. Look at the screen again and repeat it if it still stands.")
            events = await self.commands.run(command)
            if command.reports_devices:
                events.extend(self._devices_changed())
            result: dict[str, Any] = {"ok": True, "id": command_id}

            def acknowledge(last_seq: int) -> Acknowledgement:
                result["seq"] = last_seq
                return Acknowledgement(command_id, result, sender)

            await self._append(events, source=command.source, acknowledge=acknowledge)
            self._remember_result(command_id, result)
        self._arm_boundary()
        return result

    def _remember_result(self, command_id: str, result: dict[str, Any]) -> None:
        """Keep the latest answers in memory too (the store has every one)."""
        self._results[command_id] = result
        self._results.move_to_end(command_id)
        while len(self._results) > self._remember:
            self._results.popitem(last=False)

    async def append_events(self, events: Sequence[Event], *, source: str) -> list[Any]:
        """Log events made outside a command (a photo upload, a CSV import) under the lock."""
        async with self._lock:
            self._rebuild_if_stale()
            return await self._append(events, source=source)

    async def _append(self, events: Sequence[Event], *, source: str,
                      acknowledge: Callable[[int], Acknowledgement] | None = None) -> list[Any]:
        try:
            entries = await self.log.append(events, source=source, acknowledge=acknowledge)
        except Exception:
            _log.exception("the log could not be written; rebuilding the table from it")
            try:
                self._rebuild()
            except StoreError:
                pass  # stale until the log can be read; the write's error is the one to tell
            else:
                self.changed.emit()  # rebuilt from the log: what listeners knew may be gone
            raise
        for event in events:
            self.tournament.apply(event)
        for entry in entries:
            self._note(entry)
        if any(not isinstance(e, Event) or (e.secrecy is not Secrecy.INTERNAL
                                            and not isinstance(e, PRODUCTION_EVENTS))
               for e in events):  # device reports, graphics and tags change no decision
            self._changed_at = self._operator_revision()
            self.changed.emit()
        self._checkpoint_soon(entries)
        return entries

    def _register(self) -> None:
        """The table's own commands (the tournament desk and, with a reader, the deck desk
        register theirs)."""
        register = self.commands.register
        in_hand = self._in_hand
        register(cmd.Fold, in_hand(lambda hand, c: hand.fold(c.seat)))
        register(cmd.Check, in_hand(lambda hand, c: hand.check(c.seat)))
        register(cmd.Call, in_hand(lambda hand, c: hand.call(c.seat)))
        register(cmd.Bet, in_hand(lambda hand, c: hand.bet(c.amount, c.seat)))
        register(cmd.RaiseTo, in_hand(lambda hand, c: hand.raise_to(c.amount, c.seat)))
        register(cmd.AllIn, in_hand(lambda hand, c: hand.all_in(c.seat)))
        register(cmd.Undo, in_hand(lambda hand, c: hand.undo()))
        register(cmd.Misdeal, in_hand(lambda hand, c: hand.void()))
        register(cmd.DealCards, in_hand(lambda hand, c: hand.deal_hole(c.seat, c.cards)))
        register(cmd.DealBoard, in_hand(lambda hand, c: hand.deal_board(c.cards)))
        register(cmd.ShowHand, in_hand(lambda hand, c: hand.show_hand(c.seat, c.cards)))
        register(cmd.MuckHand, in_hand(lambda hand, c: hand.muck_hand(c.seat)))
        register(cmd.Restrict, in_hand(lambda hand, c: hand.restrict(c.seat)))
        register(cmd.NextHand, self._festival_next_hand if self.festival is not None
                 else lambda c: self._next_hand())
        register(cmd.CallClock, lambda c: [self._call_clock(c.seat)])
        register(cmd.StopClock, lambda c: [self._stop_clock()])
        register(cmd.SetAbsent, self._set_absent)
        register(cmd.SetLevel, self._set_level_command)
        register(cmd.SetSeat, self._set_seat)
        register(cmd.EmptySeat, lambda c: [self._empty_seat(c.seat)])
        register(cmd.SetButton, lambda c: [self._set_button(c.seat)])
        for kind in (cmd.StartClock, cmd.PauseClock, cmd.ResumeClock, cmd.AdjustClock):
            register(kind, self._tournament_clock)
        register(cmd.HideGraphics, lambda c: [self._graphics(hide=True)])
        register(cmd.ShowGraphics, lambda c: [self._graphics(hide=False)])
        register(cmd.TagHand, lambda c: [self._tag(c)])
        register(cmd.PauseAutoOperator, lambda c: [self._auto(playing=False)])
        register(cmd.ResumeAutoOperator, lambda c: [self._auto(playing=True)])
        self.tournament.register(self.commands)

    def _in_hand(self, verb: Callable[[Hand, Any], Event]) -> Callable[[Any], list[Event]]:
        """A handler for a command on the running hand: the engine's event and what followed
        from it; the clock (R12) stops when its player acts; a finished hand is settled."""
        def run(command: Command) -> list[Event]:
            hand = self.table.hand
            if hand is None:
                raise IllegalActionError("no hand is running: start the next hand first")
            events = list(hand.following(verb(hand, command)))
            if self._clock_seat is not None and any(
                    isinstance(e, ActionTaken) and e.seat == self._clock_seat for e in events):
                self._disarm_clock()
            return events + self._finish_if_over()
        return run

    def _tournament_clock(self, command: Command) -> list[Event]:
        now = self.clock()
        done = self.tournament.clock_command(command, now)
        return done + self._levels_due(now, after=done)  # perhaps another period now (R21)

    def _set_level_command(self, command: cmd.SetLevel) -> list[Event]:
        moved = self.tournament.level_set(command.level, self.clock())
        return [self._set_level(command.level), *moved]

    def _set_absent(self, command: cmd.SetAbsent) -> list[Event]:
        self.table.set_absent(command.seat, command.absent)
        return [AbsenceSet(command.seat, command.absent)]

    def _stop_clock(self) -> ClockStopped:
        if self._clock_seat is None:
            raise IllegalActionError("no clock is running", rule="R12")
        self._disarm_clock()
        return ClockStopped()

    def _graphics(self, *, hide: bool) -> Event:
        if hide == self._graphics_hidden:
            raise IllegalActionError("the graphics are already "
                                     + ("off air" if hide else "on air"))
        return GraphicsHidden() if hide else GraphicsShown()

    def _tag(self, command: cmd.TagHand) -> HandTagged:
        number = self.table.hand_number
        if number == 0:
            raise IllegalActionError("no hand to tag yet: a tag marks the current hand, "
                                     "or the last one between hands")
        asked = number if command.hand is None else command.hand
        if asked != number:
            raise IllegalActionError(f"hand {asked} can no longer be tagged: hand {number} "
                                     "has started since (a tag marks the current hand, or "
                                     "the last one until the next starts)")
        return HandTagged(number, tag_note(command.note))

    def _auto(self, *, playing: bool) -> AutoOperatorSet:
        """The demo's automatic operator paused or resumed from the console."""
        if not playing and self._auto_operator is None:
            raise IllegalActionError("no automatic operator plays this table (the demo's "
                                     "does)")
        if playing == self._auto_operator:
            raise IllegalActionError("the automatic operator is already "
                                     + ("playing" if playing else "paused"))
        return AutoOperatorSet(playing)

    def _finish_if_over(self) -> list[Event]:
        hand = self.table.hand
        if hand is None or not hand.is_over or hand.street is Street.VOID:
            return []
        eliminated = list(self.table.finish_hand())
        if not eliminated:
            return []
        return [*eliminated, *self.tournament.prize_events(after=eliminated)]  # R22, R23

    def _set_seat(self, command: cmd.SetSeat) -> list[Event]:
        table, seat = self.table, command.seat
        self.tournament.check_seat(seat)
        if seat in table.names:
            table.update_player(seat, command.name, command.stack)
        else:
            table.seat_player(seat, command.name, command.stack)
        return [PlayerSeated(seat, command.name, command.stack)]

    def _empty_seat(self, seat: int) -> SeatEmptied:
        self.table.remove_player(seat)
        return SeatEmptied(seat)

    def _set_button(self, seat: int) -> ButtonSet:
        self.table._require_between_hands("move the button")
        self.table.set_button(seat)
        return ButtonSet(seat)

    def _set_level(self, number: int) -> LevelStarted:
        self.table.set_level(number)
        self._level_started_at = self.clock()
        return self._level_event(number)

    async def _festival_next_hand(self, command: Command) -> list[Event]:
        """The next hand of a festival's table (``[festival]``): the director's service is
        asked first, with the stacks after the hand before; its answer seats the players
        (those it moved leave or arrive, with their chips), or refuses (R24: hand-for-hand,
        the table waits for the others), or says the table was broken (its players leave,
        no hand starts)."""
        assert self.festival is not None
        table = self.table
        if table.hand is not None and not table.hand.is_over:
            raise IllegalActionError("the hand is still running: finish it, or declare a "
                                     "misdeal (R13)")
        names, stacks = table.names, table.stacks
        report = {names[seat]: stacks[seat] for seat in names} if table.hand_number else None
        answer = await self.festival.next_hand(table.hand_number + 1, report)
        events: list[Event] = []
        try:
            events.extend(self._reseat(answer["seats"]))
            if isinstance(answer.get("button"), int):  # a table the festival drew (R1)
                events.append(self._set_button(answer["button"]))
            if not answer.get("broken"):
                events.extend(self._next_hand())
        except Exception:  # the table changed in memory only: back to what the log holds
            with contextlib.suppress(StoreError):
                self._rebuild()
            raise
        return events

    def _reseat(self, seats: list[list[Any]]) -> list[Event]:
        """The table seated as the festival's answer says (``[seat, player, stack]``)."""
        table = self.table
        wanted = {int(seat): (str(player), int(stack)) for seat, player, stack in seats}
        events: list[Event] = []
        for seat, name in table.names.items():
            if wanted.get(seat, ("",))[0] != name:
                table.remove_player(seat)
                events.append(SeatEmptied(seat))
        for seat, (player, stack) in sorted(wanted.items()):
            if seat not in table.names:
                table.seat_player(seat, player, stack)
                events.append(PlayerSeated(seat, player, stack))
            elif table.stacks[seat] != stack:
                raise IllegalActionError(
                    f"the festival counts {stack:,} chips for {player}, this table "
                    f"{table.stacks[seat]:,}: the floor must correct one of them")
        return events

    def _next_hand(self) -> list[Event]:
        table = self.table
        events: list[Event] = []
        hand = table.hand
        if hand is not None and not hand.is_over:
            raise IllegalActionError("the hand is still running: finish it, or declare a "
                                     "misdeal (R13)")
        # R21: a level whose time is up starts with the next hand, never mid-hand.
        level = table.level
        if self.tournament.clock.started:
            events.extend(self._levels_due(self.clock()))
        elif (self._level_started_at is not None
                and self.clock() >= self._level_started_at + level.minutes * 60
                and level.number < len(table.structure.levels)):
            events.append(self._set_level(level.number + 1))
        if self._clock_seat is not None:
            self._disarm_clock()
        new = table.start_hand()
        events.extend(new.events)
        return events

    # --- the tournament clock (R21) ---------------------------------------------------------

    def _levels_due(self, now: float, after: Sequence[Event] = ()) -> list[Event]:
        """``level_started`` when the tournament clock (with ``after`` applied) says another
        level is due than the table's (it applies from the next hand, R21)."""
        desk = self.tournament
        clock = desk.clock
        for event in after:
            clock = clock.apply(event)
        if not clock.started:
            return []
        due = clock.level_at(now).number
        pending = self.table._pending_level or self.table.level
        if due == pending.number:
            return []
        saved, desk.clock = desk.clock, clock
        try:
            event = desk.level_event(due, now)
        finally:
            desk.clock = saved
        self.table.set_level(due)
        self._level_started_at = now
        return [event]

    async def _catch_up_levels(self, *, source: str) -> None:
        events = self._levels_due(self.clock())
        if events:
            await self._append(events, source=source)

    def _arm_boundary(self) -> None:
        """A timer for the clock's next level or break: then every channel's clock changes
        state (``level_started`` for the level then due)."""
        if self._boundary_timer is not None:
            self._boundary_timer.cancel()
            self._boundary_timer = None
        now = self.clock()
        seconds = self.tournament.next_boundary(now)
        if seconds is None:
            return
        self._armed_period = self.tournament.clock.position(now)[0]
        loop = asyncio.get_running_loop()
        self._boundary_timer = loop.call_later(seconds + 0.05, self._boundary_soon)

    def _boundary_soon(self) -> None:
        self._boundary_timer = None
        asyncio.get_running_loop().create_task(self.cross_boundary())

    async def cross_boundary(self) -> None:
        """The clock entered a new period: log the level due (also at the end of a break, so
        the graphics leave the break), then time the next boundary."""
        try:
            async with self._lock:
                now = self.clock()
                desk = self.tournament
                period = desk.clock.position(now)[0]
                if desk.clock.running and period != self._armed_period:
                    due = desk.clock.level_at(now).number
                    events: list[Event] = self._levels_due(now) or [desk.level_event(due, now)]
                    self.table.set_level(due)
                    await self._append(events, source="clock")
        except Exception:  # the clock keeps its time in the log; the next boundary retries
            _log.exception("the tournament clock's new level could not be logged")
        self._arm_boundary()

    # --- the clock (R12) -------------------------------------------------------------------

    def _call_clock(self, seat: int) -> ClockCalled:
        decision = self.table.pending_decision()
        if decision is None or decision.seat != seat:
            who = f"seat {decision.seat}" if decision else "nobody"
            raise IllegalActionError(f"the clock can only be called on the player to act "
                                     f"({who})", rule="R12")
        if self._clock_seat is not None:
            raise IllegalActionError(f"the clock is already running on seat {self._clock_seat}",
                                     rule="R12")
        self._arm_clock(seat, CLOCK_SECONDS)
        return ClockCalled(seat, CLOCK_SECONDS)

    def _arm_clock(self, seat: int, seconds: float) -> None:
        self._disarm_clock()
        self._clock_seat = seat
        loop = asyncio.get_running_loop()
        self._clock_timer = loop.call_later(max(0.0, seconds), self._expire_soon)

    def _disarm_clock(self) -> None:
        if self._clock_timer is not None:
            self._clock_timer.cancel()
        self._clock_timer = None
        self._clock_seat = None

    def _expire_soon(self) -> None:
        asyncio.get_running_loop().create_task(self.expire_clock())

    async def expire_clock(self) -> None:
        """R12: time is up: the player checks if he can, else folds."""
        async with self._lock:
            seat, self._clock_seat, self._clock_timer = self._clock_seat, None, None
            decision = self.table.pending_decision()
            if seat is None or decision is None or decision.seat != seat:
                return
            hand = self.table.hand
            assert hand is not None
            events = [*hand.following(self.table.expire_clock()), *self._finish_if_over()]
            await self._append(events, source="clock")

    # --- devices ---------------------------------------------------------------------------

    async def report_devices(self) -> bool:
        """Log the operator's device fields (:attr:`device_report`) when they changed;
        returns whether it logged."""
        async with self._lock:
            events = self._devices_changed()
            if events:
                await self._append(events, source="service")
        return bool(events)

    def _devices_changed(self) -> list[Event]:
        """``devices_reported`` when the device fields differ from those last logged."""
        if self.device_report is None:
            return []
        report = json.dumps(self.device_report(), sort_keys=True, separators=(",", ":"))
        if report == self._devices:
            return []
        self._devices = report
        return [DevicesReported(report)]

    def close(self) -> None:
        self._disarm_clock()
        if self._boundary_timer is not None:
            self._boundary_timer.cancel()
            self._boundary_timer = None
