"""``feltcast obs setup`` against a real OBS Studio (Debian's build: no Browser source).

Every test builds its own scene and source names, so the tests share one OBS.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from overlay.devices.obs.client import ObsClient
from overlay.devices.obs.errors import ObsError, ObsFeatureMissingError
from overlay.devices.obs.settings import ObsSettings
from overlay.devices.obs.setup import StandIn, setup_final_table, stand_in_names
from tests.overlay.devices.obs.conftest import Observer, ObsStudio

ROOT = Path(__file__).resolve().parents[4]
GREEN = (0, 200, 0)  # BGR
MAGENTA = (255, 0, 255)


def table_settings(obs: ObsStudio, tag: str, **changes: Any) -> ObsSettings:
    return obs.settings(overlay_source=f"{tag} Overlay", table_scene=f"{tag} Table",
                        showdown_scene=f"{tag} Showdown", break_scene=f"{tag} Break",
                        **changes)


def obs_state(observer: Observer) -> tuple[list[str], list[str]]:
    scenes = sorted(s["sceneName"] for s in observer.call("GetSceneList")["scenes"])
    inputs = sorted(i["inputName"] for i in observer.call("GetInputList")["inputs"])
    return scenes, inputs


def scene_items(observer: Observer, scene: str) -> list[tuple[str, int]]:
    items = observer.call("GetSceneItemList", sceneName=scene)["sceneItems"]
    return sorted((item["sourceName"], item["sceneItemId"]) for item in items)


def test_this_obs_has_no_browser_source(observer: Observer) -> None:
    # The premise of the stand-in tests below: Debian's OBS lacks obs-browser.
    kinds = observer.call("GetInputKindList", unversioned=True)["inputKinds"]
    assert "browser_source" not in kinds
    assert "text_ft2_source" in kinds and "image_source" in kinds


async def test_without_browser_source_it_refuses_with_one_message_and_changes_nothing(
        client: ObsClient, obs: ObsStudio, observer: Observer) -> None:
    before = obs_state(observer)
    with pytest.raises(ObsFeatureMissingError) as caught:
        await setup_final_table(client, table_settings(obs, "Refused"))
    message = str(caught.value)
    assert "no Browser source" in message and "nothing was changed" in message
    assert "\n" not in message
    assert obs_state(observer) == before


async def test_stand_ins_build_three_scenes_sharing_the_overlay(
        client: ObsClient, obs: ObsStudio, observer: Observer, tmp_path: Path) -> None:
    image = tmp_path / "overlay.png"
    cv2.imwrite(str(image), np.zeros((1080, 1920, 4), np.uint8))
    settings = table_settings(obs, "Fresh")
    report = await setup_final_table(client, settings, stand_in=StandIn(image=image))

    text_name, image_name = stand_in_names(settings)
    scenes, inputs = obs_state(observer)
    assert set(settings.scenes) <= set(scenes)
    assert {text_name, image_name} <= set(inputs)
    for scene in settings.scenes:
        assert [name for name, _ in scene_items(observer, scene)] == sorted(
            [text_name, image_name])
        assert f"scene {scene!r}" in report.created
        assert f"item {text_name!r} in scene {scene!r}" in report.created
    text = observer.call("GetInputSettings", inputName=text_name)["inputSettings"]["text"]
    assert "http://127.0.0.1:8080/overlay?channel=delayed" in text
    file = observer.call("GetInputSettings", inputName=image_name)["inputSettings"]["file"]
    assert file == str(image)
    # The text (the overlay's stand-in) is above the image in every scene.
    table = observer.call("GetSceneItemList", sceneName=settings.table_scene)["sceneItems"]
    order = {item["sourceName"]: item["sceneItemIndex"] for item in table}
    assert order[text_name] > order[image_name]
    assert any("no Browser source" in note for note in report.notes)


async def test_a_second_run_changes_nothing(client: ObsClient, obs: ObsStudio,
                                            observer: Observer) -> None:
    settings = table_settings(obs, "Twice")
    first = await setup_final_table(client, settings, stand_in=StandIn())
    items = {scene: scene_items(observer, scene) for scene in settings.scenes}
    state = obs_state(observer)

    second = await setup_final_table(client, settings, stand_in=StandIn())
    assert first.changed and not second.changed
    assert second.created == () and second.updated == ()
    assert len(second.unchanged) == len(first.created)
    assert obs_state(observer) == state
    assert {scene: scene_items(observer, scene) for scene in settings.scenes} == items


async def test_a_new_channel_updates_the_source_in_place(client: ObsClient, obs: ObsStudio,
                                                        observer: Observer) -> None:
    settings = table_settings(obs, "Moved")
    await setup_final_table(client, settings, stand_in=StandIn())
    items = {scene: scene_items(observer, scene) for scene in settings.scenes}

    moved = settings.replace(overlay_channel="venue", base_url="http://192.0.2.7:9000")
    report = await setup_final_table(client, moved, stand_in=StandIn())
    text_name, _ = stand_in_names(settings)
    assert report.updated == (f"source {text_name!r}",)
    assert report.created == ()
    text = observer.call("GetInputSettings", inputName=text_name)["inputSettings"]["text"]
    assert "http://192.0.2.7:9000/overlay?channel=venue" in text
    assert {scene: scene_items(observer, scene) for scene in settings.scenes} == items


async def test_the_producers_own_items_are_kept(client: ObsClient, obs: ObsStudio,
                                               observer: Observer) -> None:
    settings = table_settings(obs, "Producer")
    observer.call("CreateScene", sceneName=settings.table_scene)
    observer.call("CreateInput", sceneName=settings.table_scene, inputName="Producer Camera",
                  inputKind="color_source_v3", inputSettings={"color": 0xFF202020})
    report = await setup_final_table(client, settings, stand_in=StandIn())

    assert f"scene {settings.table_scene!r}" in report.unchanged
    table = observer.call("GetSceneItemList", sceneName=settings.table_scene)["sceneItems"]
    order = {item["sourceName"]: item["sceneItemIndex"] for item in table}
    text_name, _ = stand_in_names(settings)
    assert set(order) == {"Producer Camera", text_name}
    assert order[text_name] > order["Producer Camera"]  # the overlay goes on top


async def test_names_used_by_something_else_stop_it_before_any_change(
        client: ObsClient, obs: ObsStudio, observer: Observer) -> None:
    settings = table_settings(obs, "Clash")
    observer.call("CreateScene", sceneName="Clash Elsewhere")
    observer.call("CreateInput", sceneName="Clash Elsewhere", inputName=settings.break_scene,
                  inputKind="color_source_v3", inputSettings={})
    before = obs_state(observer)
    with pytest.raises(ObsError) as caught:
        await setup_final_table(client, settings, stand_in=StandIn())
    assert repr(settings.break_scene) in str(caught.value)
    assert "nothing was changed" in str(caught.value)
    assert obs_state(observer) == before


async def test_a_smaller_canvas_scales_the_full_frame_items(
        client: ObsClient, obs: ObsStudio, observer: Observer, tmp_path: Path) -> None:
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), np.zeros((1080, 1920, 4), np.uint8))
    settings = table_settings(obs, "Small")
    video = observer.call("GetVideoSettings")
    observer.call("SetVideoSettings", baseWidth=1280, baseHeight=720)
    try:
        report = await setup_final_table(client, settings, stand_in=StandIn(image=image))
    finally:
        observer.call("SetVideoSettings", baseWidth=video["baseWidth"],
                      baseHeight=video["baseHeight"])
    _, image_name = stand_in_names(settings)
    item = observer.call("GetSceneItemId", sceneName=settings.showdown_scene,
                         sourceName=image_name)["sceneItemId"]
    transform = observer.call("GetSceneItemTransform", sceneName=settings.showdown_scene,
                              sceneItemId=item)["sceneItemTransform"]
    assert transform["boundsType"] == "OBS_BOUNDS_SCALE_INNER"
    assert (transform["boundsWidth"], transform["boundsHeight"]) == (1280.0, 720.0)
    assert any("1280x720" in note for note in report.notes)


def render_test_card(path: Path) -> None:
    """A transparent 1920x1080 PNG with a green box in the middle and a magenta one low left."""
    card = np.zeros((1080, 1920, 4), np.uint8)
    card[400:800, 600:1300] = (*GREEN, 255)
    card[900:1000, 100:300] = (*MAGENTA, 255)
    cv2.imwrite(str(path), card)


def screenshot(observer: Observer, source: str, width: int = 960) -> np.ndarray:
    data = observer.call("GetSourceScreenshot", sourceName=source, imageFormat="png",
                         imageWidth=width)["imageData"]
    raw = base64.b64decode(data.split(",", 1)[1])
    image = cv2.imdecode(np.frombuffer(raw, np.uint8), cv2.IMREAD_UNCHANGED)
    assert image is not None
    return image


def close_to(pixel: np.ndarray, colour: tuple[int, int, int], tolerance: int = 12) -> bool:
    return bool(np.all(np.abs(pixel[:3].astype(int) - np.array(colour)) <= tolerance))


async def test_a_screenshot_of_the_scene_shows_the_stand_in_image(
        client: ObsClient, obs: ObsStudio, observer: Observer, tmp_path: Path) -> None:
    image = tmp_path / "card.png"
    render_test_card(image)
    settings = table_settings(obs, "Pixels")
    await setup_final_table(client, settings, stand_in=StandIn(image=image))
    observer.call("SetCurrentSceneTransition", transitionName="Cut")

    def text_pixels(shot: np.ndarray) -> int:
        # The stand-in text: white glyphs in the top-left band (two lines, 34 px at half size).
        band = shot[:40, :600]
        return int(np.count_nonzero(np.all(band[:, :, :3] > 200, axis=2) & (band[:, :, 3] > 200)))

    deadline = time.monotonic() + 10
    while True:  # image and text sources load and render asynchronously
        shot = screenshot(observer, settings.table_scene)
        if ((close_to(shot[300, 475], GREEN) and text_pixels(shot) > 0)
                or time.monotonic() > deadline):
            break
        time.sleep(0.1)
    assert shot.shape == (540, 960, 4)  # PNG with alpha: the scene is transparent
    assert close_to(shot[300, 475], GREEN)  # the middle of the green box, at half size
    assert close_to(shot[475, 100], MAGENTA)
    assert tuple(shot[100, 800]) == (0, 0, 0, 0)  # outside the boxes: fully transparent
    assert text_pixels(shot) > 500  # the stand-in text names the overlay URL


def run_cli(obs: ObsStudio, *args: str, password: str | None = None
            ) -> subprocess.CompletedProcess[str]:
    # Only the obs subcommand is registered in the child, so this test does not depend on
    # the other subcommands' modules; main() and its error handling are the real ones.
    code = ("import sys\nfrom overlay import cli\n"
            "cli.SUBCOMMANDS = {'obs': cli.SUBCOMMANDS['obs']}\n"
            "sys.exit(cli.main(sys.argv[1:]))\n")
    env = os.environ | {"FELTCAST_OBS_PASSWORD": obs.password if password is None
                        else password}
    return subprocess.run([sys.executable, "-c", code, "obs", *args, "--port", str(obs.port),
                           "--timeout", "3"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)


def test_cli_setup_says_once_why_it_refuses_and_builds_stand_ins_on_request(
        obs: ObsStudio, observer: Observer) -> None:
    before = obs_state(observer)
    refused = run_cli(obs, "setup")
    assert refused.returncode == 1
    assert refused.stdout == ""
    assert refused.stderr.count("\n") == 1 and "no Browser source" in refused.stderr
    assert obs_state(observer) == before

    built = run_cli(obs, "setup", "--stand-in", "--base-url", "http://127.0.0.1:8123")
    assert built.returncode == 0, built.stderr
    assert "created scene 'Feltcast Table'" in built.stdout
    assert "OBS is ready for the final table" in built.stdout
    missing = run_cli(obs, "setup", "--stand-in-image", "/nonexistent/card.png")
    assert missing.returncode == 2 and "no such file" in missing.stderr
    again = run_cli(obs, "setup", "--stand-in", "--base-url", "http://127.0.0.1:8123")
    assert again.returncode == 0 and "(nothing to do)" in again.stdout
    assert "created" not in again.stdout


def test_cli_reports_a_wrong_password_and_a_missing_obs(obs: ObsStudio) -> None:
    wrong = run_cli(obs, "check", password="wrong")
    assert wrong.returncode == 1 and "refused the password" in wrong.stderr
    nothing = subprocess.run(
        [sys.executable, "-c", "import sys\nfrom overlay import cli\n"
         "cli.SUBCOMMANDS = {'obs': cli.SUBCOMMANDS['obs']}\nsys.exit(cli.main(sys.argv[1:]))",
         "obs", "check", "--port", "1", "--timeout", "2"],
        cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert nothing.returncode == 1 and "nothing listens on 127.0.0.1:1" in nothing.stderr


def test_cli_check_shows_what_feltcast_sees_and_fails_on_an_unguarded_secure_channel(
        obs: ObsStudio, observer: Observer) -> None:
    for name, value in (("DelayEnable", "false"), ("DelaySec", "20")):
        observer.call("SetProfileParameter", parameterCategory="Output", parameterName=name,
                      parameterValue=value)
    delayed = run_cli(obs, "check")
    assert delayed.returncode == 0, delayed.stderr
    version = observer.call("GetVersion")["obsVersion"]
    assert f"OBS {version}, obs-websocket" in delayed.stdout
    assert "Browser source: NO" in delayed.stdout
    assert "stream delay: off" in delayed.stdout
    assert delayed.stdout.rstrip().endswith("delay guard: ok")

    secure = run_cli(obs, "check", "--channel", "secure", "--token", "s3cret")
    assert secure.returncode == 1
    assert "delay guard: REFUSED: OBS stream delay is off" in secure.stdout
    assert "s3cret" not in secure.stdout
    # A channel the CLI does not know is treated as live with hole cards.
    custom = run_cli(obs, "check", "--channel", "production")
    assert custom.returncode == 1 and "delay guard: REFUSED" in custom.stdout
