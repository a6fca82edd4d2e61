"""Cameras in the running service, end to end: a video file of a dealt hand -> the camera's
frame source and tracker -> fusion with RFID -> the capture bridge -> table commands ->
channels. Real files written with cv2.VideoWriter, cards drawn by the project
(capture/camera/cardart.py), the real app on 127.0.0.1, a simulated RFID reader on a real
pseudo-terminal."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from aiohttp import ClientSession, web
from aiohttp.test_utils import TestServer

from capture.camera.cardart import DEFAULT_STYLE, render_card
from capture.camera.deck import CameraDeck, CameraDeckRegistry
from capture.simulator import SimulatedReader
from engine.cards import Card
from engine.log import CaptureRecord
from overlay.app import create_app
from overlay.config import parse_config
from overlay.devices.camera_bridge import CameraService, CameraTiming
from overlay.keys import CAPTURE_KEY, STORE_KEY

from .rig import PLAYERS, READER, TABLE, ServiceRig, register_deck

CAMERA = "table-cam"
FPS = 10
SLOW_FPS = 2
"""For a video whose cards must still be in view once the test has dealt the hand and placed
the RFID cards: a busy machine may take seconds to get there (the file plays in real time)."""
CARD_WIDTH = 115  # px: a size at which the recogniser reads every card used here surely
SIZE = (1280, 720)
FELT = (40, 110, 30)  # BGR
# Where each zone lies in the picture: the card positions and the region watching them.
SPOTS: Mapping[str, list[tuple[int, int]]] = {
    "seat1": [(40, 40), (160, 40)], "seat4": [(460, 40), (580, 40)],
    "seat7": [(880, 40), (1000, 40)],
    "board": [(230 + i * 165, 420) for i in range(5)]}
REGIONS = [{"zone": "seat 1", "rect": [20, 20, 300, 190]},
           {"zone": "seat 4", "rect": [440, 20, 300, 190]},
           {"zone": "seat 7", "rect": [860, 20, 300, 190]},
           {"zone": "board", "rect": [200, 390, 880, 210]}]
HOLE = {"seat1": ("As", "Ks"), "seat4": ("Qh", "Qd"), "seat7": ("7c", "2d")}
BOARD_CARDS = ("Jh", "Th", "3s", "9h", "4d")


def frame(cards: Mapping[str, Sequence[str]]) -> np.ndarray:
    picture = np.empty((SIZE[1], SIZE[0], 3), np.uint8)
    picture[:] = FELT
    for zone, codes in cards.items():
        for (x, y), code in zip(SPOTS[zone], codes, strict=False):
            card = render_card(Card(code), DEFAULT_STYLE, width=CARD_WIDTH)
            h, w = card.shape[:2]
            picture[y:y + h, x:x + w] = card
    return picture


def write_video(path: Path, scenes: Sequence[tuple[int, Mapping[str, Sequence[str]]]], *,
                fps: int = FPS) -> Path:
    """A video file: each scene is (frames, what lies where)."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, SIZE)
    assert writer.isOpened()
    try:
        for count, cards in scenes:
            picture = frame(cards)
            for _ in range(count):
                writer.write(picture)
    finally:
        writer.release()
    return path


def dealt_hand(path: Path, hole: Mapping[str, Sequence[str]] = HOLE, *,
               fps: int = FPS) -> Path:
    """Felt, then the hole cards, then the whole board as well (it waits for the betting)."""
    return write_video(path, [(3, {}), (12, hole), (20, {**hole, "board": BOARD_CARDS})],
                       fps=fps)


def camera(source: Path | str, **extra: Any) -> dict[str, Any]:
    return {"name": CAMERA, "source": str(source), "regions": REGIONS, "confirm_frames": 3,
            "drop_frames": 5, **extra}


async def logged_faults(rig: ServiceRig, kind: str | None = None) -> list[Any]:
    """The capture faults in the service's log (of ``kind``), once there is one: the log
    write follows the alert."""
    def found() -> list[Any]:
        return [e for e in rig.app[STORE_KEY].iter_all() if e.kind == "capture.capture_fault"
                and kind in (None, e.payload.event.kind)]

    await rig.until(found, what=f"a {kind or 'capture'} fault in the log")
    return found()


def seat(view: dict[str, Any], number: int) -> dict[str, Any]:
    return next(s for s in view["seats"] if s["seat"] == number)


def camera_entry(view: dict[str, Any]) -> dict[str, Any] | None:
    return next((entry for entry in view["operator"]["capture"]
                 if entry["source"] == f"camera:{CAMERA}"), None)


@contextlib.asynccontextmanager
async def camera_rig(tmp_path: Path, cameras: list[dict[str, Any]], *,
                     rfid: bool = False) -> AsyncIterator[ServiceRig]:
    """The real app with ``cameras``; with ``rfid`` also a simulated reader on a pty."""
    data = tmp_path / "data"
    capture: dict[str, Any] = {"cameras": cameras}
    sim: Any = None
    if rfid:
        register_deck(data)
        sim = SimulatedReader(READER, scan_interval=0.05, heartbeat_interval=0.25)
        link = tmp_path / "reader.tty"
        await sim.open_pty(link)
        capture["readers"] = [{"name": READER, "transport": "serial", "address": str(link),
                               "antennas": {str(s): f"seat{s}" for s in range(1, 10)}
                               | {"11": "board", "12": "muck", "13": "burn"}}]
    config = parse_config({"table": {"name": TABLE, "seats": 9, "button": 1},
                           "players": PLAYERS, "delay": {"seconds": 30},
                           "channels": {"secure": {"enabled": True}},
                           "capture": capture, "data_dir": str(data)})
    server = TestServer(create_app(config), host="127.0.0.1")
    await server.start_server()
    try:
        async with ClientSession() as session:
            rig = ServiceRig(sim, server, session)
            if rfid:
                await rig.until(lambda: any(s["status"] == "ok"
                                            for s in rig.bridge.operator_capture()),
                                what="the reader online")
            yield rig
    finally:
        await server.close()
        if sim is not None:
            await sim.close()


async def play_to_showdown(rig: ServiceRig) -> None:
    """Calls and checks; the board comes from capture as each betting round ends."""
    for size in (3, 4, 5):
        legal = rig.hand.legal_actions()
        while legal is not None and len(rig.hand.board) < size:
            await rig.ok("call" if legal.can_call else "check", seat=legal.seat)
            legal = rig.hand.legal_actions()
        await rig.until(lambda size=size: len(rig.hand.board) >= size,  # type: ignore[misc]
                        timeout=60, what=f"{size} board cards from the camera")
    legal = rig.hand.legal_actions()
    while legal is not None:
        await rig.ok("check", seat=legal.seat)
        legal = rig.hand.legal_actions()


async def test_a_camera_only_table_deals_a_hand_from_a_video_file(tmp_path: Path) -> None:
    video = tmp_path / "hand.avi"
    async with camera_rig(tmp_path, [camera(video)]) as rig:
        await rig.ok("next_hand")
        # The file appears once the hand runs (as a camera filming the deal would): however
        # slow the start on a busy machine, the deal is filmed after it, and the board for as
        # long as the betting takes.
        write_video(tmp_path / "writing.avi", [(3, {}), (12, HOLE), (300, {
            **HOLE, "board": BOARD_CARDS})]).rename(video)  # the board filmed for 30 s
        secure = await rig.until_view(
            "secure", lambda v: all(seat(v, n)["cards"] and None not in seat(v, n)["cards"]
                                    for n in (1, 4, 7)), timeout=30, what="hole cards")
        for number in (1, 4, 7):
            assert sorted(seat(secure, number)["cards"]) == sorted(HOLE[f"seat{number}"])
        venue = await rig.state("venue")
        for number in (1, 4, 7):  # the public channel never sees a hole card
            assert seat(venue, number)["cards"] == [None, None]
        assert not any(f'"{code}"' in json.dumps(venue) for pair in HOLE.values()
                       for code in pair)
        await play_to_showdown(rig)
        assert rig.hand.is_over
        assert sorted(c.code for c in rig.hand.board[:3]) == sorted(BOARD_CARDS[:3])
        assert [c.code for c in rig.hand.board[3:]] == list(BOARD_CARDS[3:])
        # The camera's reads are in the log as secret capture records, from the camera.
        records = [e for e in rig.app[STORE_KEY].iter_all()
                   if isinstance(e.payload, CaptureRecord)]
        reads = [e for e in records if e.kind == "capture.hole_cards_read"]
        assert {e.payload.event.seat for e in reads} == {1, 4, 7}
        for entry in reads:
            assert entry.payload.event.source == CAMERA and str(entry.secrecy) == "secret"
            assert 0 < entry.payload.event.confidence <= 1
        # Health on the operator view: online at some frame rate, or the file has ended.
        view = await rig.until_view("operator", lambda v: camera_entry(v) is not None,
                                    what="the camera in the operator view")
        entry = camera_entry(view)
        assert entry is not None and entry["deck"] == "default" and entry["connects"] == 1
        assert entry["status"] == "ok" or "ended" in entry["detail"]
        service = cameras_of(rig)
        camera_ = service.coordinators[CAMERA]
        assert camera_.processed > 0 and camera_.frames >= camera_.processed
        assert rig.alerts(view, "no_deck") == []  # no RFID deck is needed without RFID


async def test_a_camera_that_disagrees_with_rfid_alerts_and_rfid_wins(tmp_path: Path) -> None:
    # The camera sees seat 1's ace of spades as ... the king of hearts: a camera/RFID
    # disagreement. Seats 4 and 7 agree.
    camera_hole = {**HOLE, "seat1": ("As", "Kh")}
    video = write_video(tmp_path / "hand.avi", [(3, {}), (40, camera_hole)], fps=SLOW_FPS)
    async with camera_rig(tmp_path, [camera(video)], rfid=True) as rig:
        await rig.ok("next_hand")
        for zone, cards in HOLE.items():
            rig.place(int(zone[4:]), *cards)
        view = await rig.until_view("operator", lambda v: rig.alerts(v, "camera_rfid_disagree"),
                                    timeout=30, what="the disagreement alert")
        [alert] = rig.alerts(view, "camera_rfid_disagree")
        assert alert["source"] == f"camera:{CAMERA}" and "seat 1" in alert["message"]
        assert "RFID's cards are used" in alert["message"]
        assert not any(code in alert["message"] for code in ("As", "Ks", "Kh"))
        secure = await rig.until_view(
            "secure", lambda v: all(seat(v, n)["cards"] and None not in seat(v, n)["cards"]
                                    for n in (1, 4, 7)), what="hole cards")
        assert sorted(seat(secure, 1)["cards"]) == ["As", "Ks"]  # RFID wins
        assert sorted(seat(secure, 4)["cards"]) == ["Qd", "Qh"]
        [fault] = await logged_faults(rig, "camera_rfid_disagree")
        assert str(fault.secrecy) == "secret"  # it names both readings
        assert {c.code for c in fault.payload.event.cards} == {"As", "Ks", "Kh"}
        assert camera_entry(view)["disagreements"] == 1  # type: ignore[index]
        venue = await rig.state("venue")
        assert '"Kh"' not in json.dumps(venue) and '"Ks"' not in json.dumps(venue)


async def test_a_missing_video_file_is_retried_until_it_appears(tmp_path: Path) -> None:
    video = tmp_path / "later.avi"
    async with camera_rig(tmp_path, [camera(video)]) as rig:
        view = await rig.until_view(
            "operator", lambda v: rig.alerts(v, "camera_offline"), timeout=30,
            what="the camera offline")
        entry = camera_entry(view)
        assert entry is not None and entry["status"] == "offline"
        assert "there is no video file" in entry["detail"]
        [alert] = rig.alerts(view, "camera_offline")
        assert alert["level"] == "error" and "reconnecting" in alert["message"]
        assert alert["message"].startswith(f"camera {CAMERA!r} offline: there is no video file")
        # It appears whole. Its hole cards stay in view for 20 s of its real-time play: a busy
        # machine recognises a frame in a second or more, and three must agree.
        write_video(tmp_path / "writing.avi", [(3, {}), (40, HOLE)], fps=SLOW_FPS).rename(video)
        await rig.ok("next_hand")
        camera_ = cameras_of(rig).coordinators[CAMERA]
        await rig.until(lambda: all(rig.hand.hole_cards(s) and None not in
                                    rig.hand.hole_cards(s) for s in (1, 4, 7)),
                        timeout=120, what=lambda: (
                            f"hole cards after the file appeared (camera {camera_.state}, "
                            f"{camera_.connects} connects, {camera_.frames} frames read, "
                            f"{camera_.processed} recognised, error {camera_.error!r})"))
        view = await rig.until_view("operator", lambda v: not rig.alerts(v, "camera_offline"),
                                    what="the offline alert cleared")  # reported each second
        entry = camera_entry(view)
        assert entry is not None and entry["connects"] == 1 and entry["error"] in (
            None, "the video file ended; its zones keep their last cards")


async def test_recognition_slower_than_the_source_skips_frames_never_queues(
        tmp_path: Path) -> None:
    # A file recorded at 250 frames per second: far more than recognition keeps up with.
    video = write_video(tmp_path / "fast.avi", [(150, HOLE)], fps=250)
    # One reading confirms a card: on a busy machine the 0.6 s of video may leave time to
    # recognise two frames only (the first and a latest one), and skipping is what is tested.
    async with camera_rig(tmp_path, [camera(video, confirm_frames=1)]) as rig:
        camera_ = cameras_of(rig).coordinators[CAMERA]
        await rig.until(lambda: camera_.state == "ended", timeout=30, what="the file played")
        assert camera_.frames == 150
        assert camera_.dropped > 0
        # Every frame was recognised or skipped, the last ones too (the frame in hand and
        # the newest waiting when the file ended are recognised). Nothing queued up.
        assert camera_.processed + camera_.dropped == camera_.frames
        await rig.until(lambda: set(rig.bridge._seats) == {1, 4, 7}, timeout=60,
                        what="the hole cards read from the frames that were recognised")


class MjpegCamera:
    """A live network camera on 127.0.0.1: an MJPEG stream over HTTP (what many IP cameras
    serve), showing ``cards``; ``cut()`` drops the stream and refuses connections until
    ``restore()``; while ``paused`` it stays connected but sends nothing."""

    def __init__(self, cards: Mapping[str, Sequence[str]]) -> None:
        ok, jpeg = cv2.imencode(".jpg", frame(cards))
        assert ok
        self.jpeg = jpeg.tobytes()
        self.up = asyncio.Event()
        self.up.set()
        self.connections = 0
        self.paused = False
        self.server = TestServer(self._app(), host="127.0.0.1")

    def _app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/stream.mjpg", self._stream)
        return app

    async def _stream(self, request: web.Request) -> web.StreamResponse:
        if not self.up.is_set():
            raise web.HTTPServiceUnavailable()
        self.connections += 1
        response = web.StreamResponse(headers={
            "Content-Type": "multipart/x-mixed-replace; boundary=frame"})
        await response.prepare(request)
        part = (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                + str(len(self.jpeg)).encode() + b"\r\n\r\n" + self.jpeg + b"\r\n")
        while self.up.is_set():
            if not self.paused:
                await response.write(part)
            await asyncio.sleep(0.05)
        request.transport.close()  # type: ignore[union-attr]  # the camera went away
        return response

    @property
    def url(self) -> str:
        return str(self.server.make_url("/stream.mjpg"))

    def cut(self) -> None:
        self.up.clear()

    def restore(self) -> None:
        self.up.set()


async def test_a_live_stream_that_drops_is_reconnected(tmp_path: Path) -> None:
    stream = MjpegCamera(HOLE)
    await stream.server.start_server()
    try:
        async with camera_rig(tmp_path, [camera(stream.url)]) as rig:
            await rig.ok("next_hand")
            await rig.until(lambda: all(rig.hand.hole_cards(s) and None not in
                                        rig.hand.hole_cards(s) for s in (1, 4, 7)),
                            timeout=30, what="hole cards from the stream")
            # Reported online at once (the camera's changed signal), its frame rate at the
            # next beat, when frames have been counted.
            entry = camera_entry(await rig.until_view(
                "operator", lambda v: (camera_entry(v) or {}).get("status") == "ok"
                and (camera_entry(v) or {}).get("fps", 0) > 0, timeout=30,
                what="the camera online, with frames"))
            assert entry is not None and entry["connects"] == 1
            stream.cut()
            view = await rig.until_view("operator", lambda v: rig.alerts(v, "camera_offline"),
                                        timeout=30, what="the camera offline")
            entry = camera_entry(view)
            assert entry is not None and entry["status"] == "offline"
            assert "reconnecting" in entry["detail"]
            # Its zones are frozen: the hand keeps its cards, nothing was removed.
            assert set(rig.bridge._seats) == {1, 4, 7}
            stream.restore()
            view = await rig.until_view(
                "operator", lambda v: (camera_entry(v) or {}).get("status") == "ok"
                and not rig.alerts(v, "camera_offline"), timeout=40, what="reconnected")
            assert camera_entry(view)["connects"] == 2  # type: ignore[index]
            assert stream.connections >= 2
    finally:
        await stream.server.close()


async def test_a_camera_waits_for_its_deck_to_be_registered(tmp_path: Path) -> None:
    video = write_video(tmp_path / "hand.avi", [(3, {}), (80, HOLE)])
    async with camera_rig(tmp_path, [camera(video, deck="House 2")]) as rig:
        view = await rig.until_view("operator", lambda v: rig.alerts(v, "camera_offline"),
                                    timeout=30, what="the camera offline")
        entry = camera_entry(view)
        assert entry is not None and entry["deck"] == "House 2"
        assert "there is no camera deck called 'House 2'" in entry["detail"]
        assert cameras_of(rig).coordinators[CAMERA].connects == 0  # the file waits
        # The deck is registered (as `feltcast camera calibrate` does) in the database.
        registry = CameraDeckRegistry(rig.app[STORE_KEY].engine)
        await asyncio.to_thread(registry.save,
                                dataclasses.replace(CameraDeck.default(), name="House 2"))
        await rig.until(lambda: set(rig.bridge._seats) == {1, 4, 7}, timeout=30,
                        what="hole cards read with the registered deck")
        await rig.until_view("operator", lambda v: not rig.alerts(v, "camera_offline"),
                             what="the alert cleared")


async def test_with_policy_agree_only_what_camera_and_rfid_both_read_is_dealt(
        tmp_path: Path) -> None:
    camera_hole = {**HOLE, "seat4": ("Qh", "Qc")}  # seat 4: the camera reads Qc, RFID Qd
    video = write_video(tmp_path / "hand.avi", [(3, {}), (60, camera_hole)], fps=SLOW_FPS)
    async with camera_rig(tmp_path, [camera(video, fusion="agree")], rfid=True) as rig:
        await rig.ok("next_hand")
        for zone, cards in HOLE.items():
            rig.place(int(zone[4:]), *cards)
        await rig.until(lambda: all(rig.hand.hole_cards(s) and None not in
                                    rig.hand.hole_cards(s) for s in (1, 7)),
                        timeout=30, what="the seats both sources agree on")
        view = await rig.until_view("operator", lambda v: rig.alerts(v, "camera_rfid_disagree"),
                                    what="the disagreement at seat 4")
        [alert] = rig.alerts(view, "camera_rfid_disagree")
        assert "seat 4" in alert["message"] and "neither is shown" in alert["message"]
        await asyncio.sleep(0.5)
        assert None in (rig.hand.hole_cards(4) or (None,))  # neither reading was dealt
        operator = await rig.state("operator")
        assert {"target": "seat", "seat": 4, "count": 2} in operator["operator"]["cards_needed"]
        # Only agreed reads reached the service (and its log): none of seat 4's.
        reads = [e.payload.event for e in rig.app[STORE_KEY].iter_all()
                 if e.kind == "capture.hole_cards_read"]
        assert {event.seat for event in reads} == {1, 7}


async def test_a_stream_that_goes_silent_is_reported_until_frames_come_again(
        tmp_path: Path) -> None:
    stream = MjpegCamera(HOLE)
    await stream.server.start_server()
    try:
        async with camera_rig(tmp_path, [camera(stream.url)]) as rig:
            coordinator = cameras_of(rig).coordinators[CAMERA]
            coordinator.timing = CameraTiming(stall_s=1.0)  # the watchdog, shortened
            await rig.until(lambda: set(rig.bridge._seats) == {1, 4, 7}, timeout=30,
                            what="hole cards from the stream")
            stream.paused = True
            view = await rig.until_view(
                "operator", lambda v: (camera_entry(v) or {}).get("status") == "silent",
                timeout=10, what="the camera silent")
            assert "no frame for 1 s" in camera_entry(view)["detail"]  # type: ignore[index]
            assert rig.alerts(view, "camera_offline")
            assert set(rig.bridge._seats) == {1, 4, 7}  # frozen, nothing removed
            stream.paused = False
            view = await rig.until_view(
                "operator", lambda v: (camera_entry(v) or {}).get("status") == "ok",
                timeout=10, what="frames again")
            assert camera_entry(view)["connects"] == 1  # type: ignore[index]  # same stream
    finally:
        stream.cut()
        await stream.server.close()


async def test_the_cameras_own_faults_alert_without_naming_a_card(tmp_path: Path) -> None:
    # The ace of spades at seat 1 and on the board at once: one card in two places (R13).
    video = write_video(tmp_path / "hand.avi",
                        [(3, {}), (40, {"seat1": ("As", "Ks"), "board": ("As", "Jh", "2c")})],
                        fps=SLOW_FPS)
    async with camera_rig(tmp_path, [camera(video)]) as rig:
        view = await rig.until_view("operator", lambda v: rig.alerts(v, "duplicate_card"),
                                    timeout=30, what="the duplicate card alert")
        [alert] = rig.alerts(view, "duplicate_card")
        assert alert["source"] == f"camera:{CAMERA}" and alert["level"] == "error"
        assert "misdeal" in alert["message"].lower()
        assert not any(code in alert["message"] for code in ("As", "Ks", "Jh", "2c"))
        [fault] = await logged_faults(rig)
        assert str(fault.secrecy) == "secret" and fault.payload.event.cards == (Card("As"),)
        assert 1 not in rig.bridge._seats  # the card is reported in neither place


async def test_while_the_rfid_reader_is_unplugged_the_camera_stands_in(tmp_path: Path) -> None:
    video = write_video(tmp_path / "hand.avi", [(3, {}), (150, HOLE)], fps=SLOW_FPS)
    async with camera_rig(tmp_path, [camera(video)], rfid=True) as rig:
        await rig.ok("next_hand")
        rig.place(4, *HOLE["seat4"])
        rig.place(7, *HOLE["seat7"])
        await rig.until(lambda: all(rig.hand.hole_cards(s) and None not in
                                    rig.hand.hole_cards(s) for s in (4, 7)),
                        timeout=30, what="seats 4 and 7 from RFID")
        camera_ = cameras_of(rig).coordinators[CAMERA]
        await rig.until(lambda: camera_.processed > 15, timeout=30, what="camera frames")
        # The camera sees seat 1's cards, RFID does not (policy rfid): not dealt.
        assert None in (rig.hand.hole_cards(1) or (None,))
        await rig.sim.unplug()  # the reader goes offline: the camera reports its zones
        await rig.until(lambda: rig.hand.hole_cards(1) is not None
                        and None not in rig.hand.hole_cards(1), timeout=15,
                        what="seat 1 dealt from the camera while RFID is down")
        assert sorted(c.code for c in rig.hand.hole_cards(1)) == sorted(HOLE["seat1"])

        def seat1_sources() -> set[str]:
            return {e.payload.event.source for e in rig.app[STORE_KEY].iter_all()
                    if e.kind == "capture.hole_cards_read" and e.payload.event.seat == 1}

        await rig.until(seat1_sources, what="the capture record")  # written just after
        assert seat1_sources() == {CAMERA}
        await rig.sim.replug()
        await rig.until_view("operator", lambda v: not rig.alerts(v, "reader_offline"),
                             timeout=10, what="the reader back")
        assert sorted(c.code for c in rig.hand.hole_cards(1)) == sorted(HOLE["seat1"])


def cameras_of(rig: ServiceRig) -> CameraService:
    """The service's cameras: the capture bridge's (the pipeline is built once)."""
    cameras = rig.app[CAPTURE_KEY].cameras
    assert cameras is not None, "no camera is configured"
    return cameras
