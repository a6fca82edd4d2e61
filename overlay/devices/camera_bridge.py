"""Cameras in the running service: one coordinator per camera, fused with RFID.

The capture bridge (:class:`overlay.devices.capture_bridge.CaptureBridge`) builds a
:class:`CameraService` for the ``[[capture.cameras]]`` of the configuration
(``overlay/devices/camera_config.py``). For each camera a :class:`CameraCoordinator`:

- owns the camera's ``cv2.VideoCapture`` (:class:`capture.camera.source.FrameSource`) on a
  thread of its own: frames are read there, never on the event loop;
- runs the recognizer and the card tracker (:class:`capture.camera.tracker.CardTracker`, K
  frames to report a card, M to remove it) on a second thread, always on the newest frame:
  when recognition is slower than the camera, frames are dropped (and counted), never queued,
  so the cards on air are never behind the table;
- plays a video file at the file's own frame rate (a rehearsal or a test stands in for a
  live camera); at its end the frame being recognised and the newest one waiting are still
  recognised, then the camera is *ended* and its zones keep their cards;
- reconnects with exponential backoff when the source cannot be opened or stops delivering
  (a camera unplugged, a stream down, a file not there yet); the camera's zones are frozen
  meanwhile, like an RFID reader's;
- reports its health to the operator view's ``capture`` list (``camera:<name>``: online or
  offline, frames per second, the last error) and its faults to the operator's ``alerts``.

Its capture events go through the fusion with RFID (:class:`capture.camera.fusion.CardFusion`,
one per camera, with the camera's ``fusion`` policy) into the same path the RFID events take:
the :class:`overlay.devices.capture_bridge.CaptureBridge` of the table, which deals the cards with
``deal_cards`` / ``deal_board`` and logs every capture event as a secret capture record. RFID
events of a zone a camera also reads are routed through that camera's fusion first (the
bridge builds its RfidCapture with :meth:`CameraService.rfid` as its sink); a reader or a
camera going offline or coming back tells the fusions, which switch a zone to the other
source where the camera's ``fallback`` allows it. A table without RFID readers has a bridge
with no reader.

A disagreement between a camera and RFID is logged as a secret ``capture.capture_fault``
record naming both readings and shown to the operator as an alert that names the zone, never
a card (alerts are public).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from capture.camera.fusion import CardFusion, Source
from engine.capture_events import (
    CaptureEvent,
    CaptureFault,
    FaultKind,
    ReaderOffline,
    ReaderOnline,
    Zone,
    ZoneKind,
)
from engine.errors import FeltcastError
from engine.log import CaptureRecord
from overlay.alerts import Alert, AlertBook, AlertLevel
from overlay.devices import DeviceStatus
from overlay.devices.camera_config import CameraConfigSection
from overlay.devices.faults import safe_detail
from overlay.hub import TableLog
from overlay.signals import Signal
from overlay.tasks import cancel_and_wait

_log = logging.getLogger(__name__)

ALERT_SECONDS = 120.0
"""How long a one-off camera fault (a disagreement with RFID) stays among the alerts."""
FPS_WINDOW_S = 2.0
"""Frames per second are measured over this many seconds."""
SLOW_FRAME_S = 5 * FPS_WINDOW_S
"""A camera whose last frame was recognised this recently is working (1 fps shown, however
slowly it goes: a frame may take longer than the window on a busy machine); 0 after that."""
_RECOGNITION_FAILED = "recognition failed"


class Frames(Protocol):
    """A source of frames (:class:`capture.camera.source.FrameSource`); blocking calls."""

    def open(self) -> None: ...

    def read(self) -> tuple[bool, Any]: ...

    def close(self) -> None: ...


class Tracker(Protocol):
    """Frames in, capture events out (:class:`capture.camera.tracker.CardTracker`)."""

    def update(self, frame: Any, t: float) -> list[CaptureEvent]: ...


CameraFactory = Callable[[CameraConfigSection], tuple[Callable[[], Frames], Callable[[], Tracker]]]
"""Builds a camera's frame source and tracker factories (:func:`opencv_pipeline`, or a
test's own)."""


class CameraState(StrEnum):
    CONNECTING = "connecting"
    ONLINE = "online"
    OFFLINE = "offline"
    ENDED = "ended"


@dataclass(frozen=True, slots=True)
class CameraTiming:
    backoff_initial_s: float = 0.5
    backoff_max_s: float = 15.0
    stall_s: float = 5.0
    """A live source that delivers no frame for this long is offline (until it does)."""
    file_fps: float = 30.0
    """The frame rate of a video file that does not say its own."""

    def backoff(self, failures: int) -> float:
        """Seconds to wait after ``failures`` failed attempts in a row."""
        return min(self.backoff_max_s, self.backoff_initial_s * 2 ** min(failures, 30))


class _Rate:
    """Events per second over a sliding window, shown with hysteresis so that the operator
    view (which is logged whenever it changes) does not change with every frame."""

    def __init__(self) -> None:
        self._times: deque[float] = deque()
        self._last: float | None = None
        self.shown = 0

    def tick(self, now: float) -> None:
        self._times.append(now)
        self._last = now

    def value(self, now: float) -> int:
        while self._times and now - self._times[0] > FPS_WINDOW_S:
            self._times.popleft()
        rate = len(self._times) / FPS_WINDOW_S
        if not rate and self._last is not None and now - self._last <= SLOW_FRAME_S:
            rate = 1 / SLOW_FRAME_S  # slower than the window, but working
        if abs(rate - self.shown) > max(2.0, 0.2 * self.shown) or (rate == 0) != (
                self.shown == 0):
            # A camera that recognises a frame now and then (a busy machine) is working: it
            # shows at least 1 fps, never "online, 0 fps".
            self.shown = max(1, round(rate)) if rate else 0
        return self.shown


class CameraCoordinator:
    """Owns one camera: its frames, its tracker, its reconnects (see the module docstring).

    ``open_source`` and ``make_tracker`` build the blocking parts (called on the camera's
    threads); ``deliver`` receives each frame's capture events on the event loop.
    """

    def __init__(self, config: CameraConfigSection, *,
                 open_source: Callable[[], Frames], make_tracker: Callable[[], Tracker],
                 deliver: Callable[[str, list[CaptureEvent]], None],
                 changed: Callable[[], None] = lambda: None,
                 timing: CameraTiming = CameraTiming(),
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.name = config.name
        self._open_source = open_source
        self._make_tracker = make_tracker
        self._deliver = deliver
        self._changed = changed
        self.timing = timing
        self.clock = clock
        self.state = CameraState.CONNECTING
        self.doing = "connecting"
        self.error = ""
        """The last error (why the camera is offline), empty while all is well."""
        self.connects = 0
        self.frames = 0
        self.processed = 0
        self.dropped = 0
        self.stalled = False
        self._read_rate = _Rate()
        self._done_rate = _Rate()
        self._reader = ThreadPoolExecutor(1, thread_name_prefix=f"camera-{self.name}-read")
        self._worker = ThreadPoolExecutor(1, thread_name_prefix=f"camera-{self.name}-cards")
        self._tracker: Tracker | None = None
        self._latest: tuple[Any, float] | None = None
        self._fresh = asyncio.Event()
        self._idle = asyncio.Event()
        """Set while recognition has nothing in hand and no frame waits."""
        self._idle.set()

    # -- lifecycle ------------------------------------------------------------------------

    async def run(self) -> None:
        """Connect, stream, reconnect with backoff; until cancelled or a file ends."""
        loop = asyncio.get_running_loop()
        failures = 0
        try:
            while True:
                try:
                    if self._tracker is None:
                        self._step(f"loading deck {self.config.deck!r}")
                        self._tracker = await loop.run_in_executor(self._worker,
                                                                   self._make_tracker)
                    self._step(f"opening {self.config.source}")
                    source = await loop.run_in_executor(self._reader, self._open)
                except Exception as error:  # never a dead camera task: offline, retried
                    if not isinstance(error, FeltcastError | OSError):
                        _log.exception("camera %s cannot start", self.name)
                    self._go_down(str(error) or type(error).__name__)
                    await asyncio.sleep(self.timing.backoff(failures))
                    failures += 1
                    continue
                self.connects += 1
                self._go_up()
                before = self.frames
                try:
                    ended = await self._stream(source)
                finally:
                    await loop.run_in_executor(self._reader, source.close)
                if ended:
                    self.state = CameraState.ENDED
                    self.error = "the video file ended; its zones keep their last cards"
                    _log.info("camera %s: %s", self.name, self.error)
                    self._changed()
                    return
                failures = 0 if self.frames > before else failures + 1
                self._go_down("the source stopped delivering frames")
                await asyncio.sleep(self.timing.backoff(failures))
        finally:
            self._reader.shutdown(wait=False, cancel_futures=True)
            self._worker.shutdown(wait=False, cancel_futures=True)

    def _step(self, what: str) -> None:
        """What a camera that is not online yet is doing (shown in the console)."""
        if self.state is CameraState.CONNECTING:
            self.doing = what
            self._changed()

    def _open(self) -> Frames:
        source = self._open_source()
        source.open()
        return source

    def _go_up(self) -> None:
        if self.state is not CameraState.ONLINE:
            _log.info("camera %s online (%s)", self.name, self.config.source)
        self.state, self.error, self.stalled = CameraState.ONLINE, "", False
        self._changed()

    def _go_down(self, reason: str, *, silent: bool = False) -> None:
        """Offline (``silent``: still connected, but no frame comes)."""
        reason = reason.removeprefix(f"camera {self.name!r}: ")  # it is said once, in front
        if self.state is not CameraState.OFFLINE or reason != self.error:
            _log.warning("camera %s offline: %s", self.name, reason)
        self.state, self.error, self.stalled = CameraState.OFFLINE, reason, silent
        self._changed()

    # -- frames ---------------------------------------------------------------------------

    async def _stream(self, source: Frames) -> bool:
        """Read frames until the source fails (False) or a file ends (True)."""
        worker = asyncio.create_task(self._process(), name=f"camera-{self.name}-cards")
        try:
            ended = await self._read(source)
            if ended:  # a file's last frames are still recognised: its zones keep them
                await self._idle.wait()
            return ended
        finally:
            await cancel_and_wait(worker)

    async def _read(self, source: Frames) -> bool:
        loop = asyncio.get_running_loop()
        is_file = self.config.is_file
        fps = float(getattr(source, "fps", 0.0) or 0.0) or self.timing.file_fps
        interval = 1.0 / fps
        due = self.clock()
        while True:
            pending = loop.run_in_executor(self._reader, source.read)
            try:
                ok, frame = await asyncio.wait_for(asyncio.shield(pending),
                                                   self.timing.stall_s)
            except TimeoutError:
                self._go_down(f"no frame for {self.timing.stall_s:g} s", silent=True)
                ok, frame = await pending
            if not ok or frame is None:
                return is_file
            now = self.clock()
            if self.stalled:
                self._go_up()
            self.frames += 1
            self._read_rate.tick(now)
            if self._latest is not None:
                self.dropped += 1  # recognition is behind: the older frame is skipped
            self._latest = (frame, now)
            self._idle.clear()
            self._fresh.set()
            if is_file:  # a file plays at its own frame rate, as the camera filmed it
                due = max(due + interval, now - interval)
                await asyncio.sleep(max(0.0, due - self.clock()))

    async def _process(self) -> None:
        loop = asyncio.get_running_loop()
        tracker = self._tracker
        assert tracker is not None
        while True:
            if self._latest is None:
                self._idle.set()
            await self._fresh.wait()
            self._fresh.clear()
            if self._latest is None:
                continue
            frame, t = self._latest
            self._latest = None
            try:
                events = await loop.run_in_executor(self._worker, tracker.update, frame, t)
            except Exception as error:  # a bug must not stop the camera: say so, carry on
                _log.exception("camera %s: recognition failed", self.name)
                self.error = f"{_RECOGNITION_FAILED}: {error}"
                self._changed()
                continue
            if self.error.startswith(_RECOGNITION_FAILED):
                self.error = ""  # it works again
                self._changed()
            self.processed += 1
            self._done_rate.tick(self.clock())
            if events:
                self._deliver(self.name, events)

    # -- health ---------------------------------------------------------------------------

    def fps(self) -> tuple[int, int]:
        """Frames per second read from the source and recognised (shown values)."""
        now = self.clock()
        return self._read_rate.value(now), self._done_rate.value(now)

    def operator_entry(self, deck: str) -> dict[str, Any]:
        read, done = self.fps()
        if self.state is CameraState.ONLINE:
            status = "ok"
            detail = f"online, {done} fps"
            if read and done < 0.8 * read:
                detail += f" of {read} (recognition is slower: frames are skipped)"
            if self.error:
                status, detail = "fault", f"{detail}; {self.error}"
        elif self.state is CameraState.ENDED:
            status, detail = "offline", self.error
        elif self.state is CameraState.CONNECTING:
            status, detail = "offline", f"starting: {self.doing}"
        elif self.stalled:
            status, detail = "silent", f"silent: {self.error}; its zones are frozen"
        else:
            status, detail = "offline", f"offline: {self.error}; reconnecting, its zones " \
                                        "are frozen"
        return {"source": f"camera:{self.name}", "status": status, "detail": detail,
                "deck": deck or None, "fps": done if self.state is CameraState.ONLINE else 0,
                "connects": self.connects, "error": self.error or None}



class CameraService:
    """The table's cameras, their fusion with RFID, their health (see the module docstring).

    ``sink`` is where fused capture events go (the capture bridge's sink); ``make`` builds a
    camera's frame source and tracker factories (the default uses OpenCV and the decks).
    """

    def __init__(self, cameras: Sequence[CameraConfigSection], *,
                 rfid_zones: Mapping[str, Iterable[Zone]],
                 sink: Callable[[CaptureEvent], object], table_log: TableLog | None = None,
                 make: CameraFactory,
                 timing: CameraTiming = CameraTiming(),
                 clock: Callable[[], float] = time.time,
                 alert_seconds: float = ALERT_SECONDS) -> None:
        self.reader_zones = {reader: frozenset(zones) for reader, zones in rfid_zones.items()}
        zones = frozenset().union(*self.reader_zones.values())
        self.sink = sink
        self.log = table_log
        self.clock = clock
        self.alert_seconds = alert_seconds
        self.fusions = {camera.name: CardFusion(rfid_zones=zones,
                                                camera_zones={z: camera.name
                                                              for z in camera.zones},
                                                policy=camera.fusion,
                                                fallback=camera.fallback)
                        for camera in cameras}
        self._fusion_of_zone = {zone: self.fusions[camera.name]
                                for camera in cameras for zone in camera.zones if zone in zones}
        self.decks = {camera.name: camera.deck for camera in cameras}
        self.coordinators: dict[str, CameraCoordinator] = {}
        for camera in cameras:
            open_source, make_tracker = make(camera)
            self.coordinators[camera.name] = CameraCoordinator(
                camera, open_source=open_source, make_tracker=make_tracker,
                deliver=self.camera_events, changed=self._on_change, timing=timing)
        self._alerts = AlertBook(clock=clock, expire_seconds=alert_seconds)
        self.changed = Signal("cameras")
        """Emitted when a camera's health or the camera alerts changed."""
        self._down: set[str] = set()
        """Cameras offline or ended (RFID stands in where the policy and fallback say so)."""
        self._tasks: list[asyncio.Task[None]] = []
        self._writes: set[asyncio.Future[Any]] = set()

    async def start(self) -> None:
        self._tasks = [asyncio.create_task(c.run(), name=f"camera-{c.name}")
                       for c in self.coordinators.values()]

    async def stop(self) -> None:
        await cancel_and_wait(*self._tasks)
        self._tasks = []
        if self._writes:
            await asyncio.gather(*self._writes, return_exceptions=True)

    # -- events ---------------------------------------------------------------------------

    def rfid(self, event: CaptureEvent) -> None:
        """An RFID event (the wrapped RfidCapture sink): through the fusion of the camera
        that reads the same zone, if any."""
        if isinstance(event, ReaderOnline | ReaderOffline):
            self._publish([event])
            zones = self.reader_zones.get(event.reader, frozenset())
            for each in self.fusions.values():  # where RFID reported, the camera may stand in
                self._publish(each.set_down(Source.RFID, zones,
                                            isinstance(event, ReaderOffline), event.t))
            return
        zone = _zone_of(event)
        fusion = self._fusion_of_zone.get(zone) if zone is not None else None
        self._publish(fusion.rfid(event) if fusion is not None else [event])

    def camera_events(self, camera: str, events: list[CaptureEvent]) -> None:
        """One frame's events of ``camera`` (on the event loop)."""
        fusion = self.fusions[camera]
        for event in events:
            if isinstance(event, CaptureFault):
                self._fault(event)  # the camera's own (a card in two zones, a third card)
            else:
                self._publish(fusion.camera(event))

    def _publish(self, events: Iterable[CaptureEvent]) -> None:
        for event in events:
            if isinstance(event, CaptureFault) and \
                    event.kind is FaultKind.CAMERA_RFID_DISAGREE:
                self._fault(event)
                continue
            try:
                self.sink(event)
            except Exception:
                _log.exception("capture sink failed on %r", event)

    def _fault(self, fault: CaptureFault) -> None:
        """Alert the operator (never naming a card: alerts are public) and log the fault
        with its cards (a secret capture record)."""
        _log.warning("camera %s: %s", fault.reader, fault.kind)
        zones = tuple(str(zone) for zone in fault.zones)
        self._alert((str(fault.kind), fault.reader, *zones),
                    "error" if fault.misdeal else "warning", f"camera:{fault.reader}",
                    safe_detail(fault), str(fault.kind))
        if self.log is not None:
            task = asyncio.ensure_future(self.log.append([CaptureRecord(fault)],
                                                         source="capture"))
            self._writes.add(task)
            task.add_done_callback(self._written)

    def _written(self, task: asyncio.Future[Any]) -> None:
        self._writes.discard(task)
        if not task.cancelled() and task.exception() is not None:
            _log.error("could not log a camera fault", exc_info=task.exception())

    # -- the operator's view --------------------------------------------------------------

    def _on_change(self) -> None:
        for name, camera in self.coordinators.items():
            down = camera.state in (CameraState.OFFLINE, CameraState.ENDED)
            if down != (name in self._down):
                (self._down.add if down else self._down.discard)(name)
                self._publish(self.fusions[name].set_down(
                    Source.CAMERA, camera.config.zones, down, camera.clock()))
            key = ("camera", name)
            if camera.state is CameraState.OFFLINE:
                self._alert(key, "error", f"camera:{name}",
                            f"camera {name!r} offline: {camera.error}; reconnecting (its "
                            "zones are frozen)", "camera_offline", sticky=True)
            elif camera.state is CameraState.ENDED:
                self._alert(key, "warning", f"camera:{name}", f"camera {name!r}: "
                            f"{camera.error}", "camera_ended", sticky=True)
            elif camera.error:
                self._alert(key, "warning", f"camera:{name}", f"camera {name!r}: "
                            f"{camera.error}", "camera_fault")
            else:
                self._alerts.clear(key)
        self.changed.emit()

    def _alert(self, key: tuple[str, ...], level: str, source: str, message: str, kind: str,
               *, sticky: bool = False) -> None:
        if self._alerts.raise_alert(key, Alert(AlertLevel(level), source, kind, message,
                                               sticky=sticky)):
            self.changed.emit()

    def alerts(self) -> list[Alert]:
        """Current camera alerts, newest first (one-off faults expire)."""
        return self._alerts.current()

    def status(self) -> DeviceStatus:
        """The cameras' entries of the operator view's ``capture`` list."""
        return DeviceStatus(capture=tuple(self.operator_capture()))

    def operator_capture(self) -> list[dict[str, Any]]:
        """The operator view's ``capture`` entries: one per camera."""
        out = []
        for name, camera in self.coordinators.items():
            entry = camera.operator_entry(self.decks[name])
            entry["disagreements"] = self.fusions[name].disagreements
            out.append(entry)
        return out


def _zone_of(event: CaptureEvent) -> Zone | None:
    zone = getattr(event, "zone", None)
    if isinstance(zone, Zone):
        return zone
    seat = getattr(event, "seat", None)
    if isinstance(seat, int):
        return Zone.at_seat(seat)
    if getattr(event, "position", None) is not None:
        return Zone(ZoneKind.BOARD)
    return None


# -- the real pipeline ----------------------------------------------------------------------


def opencv_pipeline(engine: Any) -> CameraFactory:
    """Frame sources and trackers from ``capture.camera`` (OpenCV); decks from ``engine``'s
    camera deck registry (the service's database), a deck file, or the project's own."""

    decks: dict[str, Any] = {}
    lock = threading.Lock()  # cameras that share a deck load it once

    def deck_of(name: str) -> Any:
        from capture.camera.deck import open_deck

        with lock:
            if name not in decks:
                decks[name] = open_deck(name, lambda: engine)
            return decks[name]

    def make(camera: CameraConfigSection) -> tuple[Callable[[], Frames], Callable[[], Tracker]]:
        from capture.camera import recognizer, source, tracker

        config = source.CameraConfig(
            name=camera.name, source=camera.source,
            regions=tuple(source.Region(r.zone, r.rect) for r in camera.regions),
            confirm_frames=camera.confirm_frames, drop_frames=camera.drop_frames,
            threshold=camera.threshold, deck=camera.deck)

        def open_source() -> Frames:
            frames: Frames = source.FrameSource(config)
            return frames

        def make_tracker() -> Tracker:
            deck = deck_of(camera.deck)
            cards: Tracker = tracker.CardTracker(
                config, recognizer.Recognizer(deck, threshold=camera.threshold))
            return cards

        return open_source, make_tracker

    return make


# -- the cleanup context --------------------------------------------------------------------
