"""The camera's shown frame rate (``overlay/devices/camera_bridge.py``): steady while the rate is,
and never 0 while frames are recognised, however slowly (a busy machine)."""

from __future__ import annotations

from overlay.devices.camera_bridge import FPS_WINDOW_S, SLOW_FRAME_S, _Rate


def test_a_camera_recognising_a_frame_now_and_then_shows_at_least_one_fps() -> None:
    rate = _Rate()
    assert rate.value(0.0) == 0
    rate.tick(0.0)  # one frame in the window: 0.5 fps
    assert rate.value(0.1) == 1
    # None since, for longer than the window: a frame takes that long on a busy machine, the
    # camera is still working.
    assert rate.value(FPS_WINDOW_S + 0.5) == 1
    assert rate.value(SLOW_FRAME_S + 0.1) == 0  # none for longer: 0


def test_the_shown_rate_keeps_still_within_its_hysteresis() -> None:
    rate = _Rate()
    for k in range(40):  # 20 fps over the window
        rate.tick(k / 20)
    assert rate.value(1.99) == 20
    rate.tick(2.0)  # 20.5 fps: within the hysteresis, the shown value stays
    assert rate.value(2.0) == 20
