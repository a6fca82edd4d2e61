"""Automation rules: table events drive a real OBS, observed through OBS's own events on a
second, independent obs-websocket connection."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from overlay.devices.obs.automation import ObsAutomation, OutcomeStatus
from overlay.devices.obs.client import ObsClient
from overlay.devices.obs.settings import AutomationRule, ObsSettings, RuleAction
from overlay.devices.obs.setup import StandIn, setup_final_table, stand_in_names
from tests.overlay.devices.obs.conftest import Observer, ObsStudio, free_port


async def built_table(client: ObsClient, obs: ObsStudio, tag: str) -> ObsSettings:
    settings = obs.settings(overlay_source=f"{tag} Overlay", table_scene=f"{tag} Table",
                            showdown_scene=f"{tag} Showdown", break_scene=f"{tag} Break")
    await setup_final_table(client, settings, stand_in=StandIn())
    return settings


async def test_table_events_switch_scenes(client: ObsClient, obs: ObsStudio,
                                          observer: Observer) -> None:
    settings = await built_table(client, obs, "Auto")
    automation = ObsAutomation(client, settings.effective_rules)  # the default rules
    observer.call("SetCurrentSceneTransition", transitionName="Cut")
    observer.call("SetCurrentProgramScene", sceneName=settings.table_scene)
    observer.drain()

    for kind, scene in [("all_in_showdown", settings.showdown_scene),
                        ("hand_ended", settings.table_scene),
                        ("break_started", settings.break_scene),
                        ("all_in_showdown", settings.showdown_scene)]:
        outcomes = await automation.handle(kind, {"hand_number": 12})
        assert [o.status for o in outcomes] == [OutcomeStatus.DONE]
        observer.expect("CurrentProgramSceneChanged", sceneName=scene)
    current = observer.call("GetCurrentProgramScene")["currentProgramSceneName"]
    assert current == settings.showdown_scene


async def test_events_without_rules_change_nothing(client: ObsClient, obs: ObsStudio,
                                                   observer: Observer) -> None:
    settings = await built_table(client, obs, "Quiet")
    observer.drain()
    observer.call("SetCurrentProgramScene", sceneName=settings.table_scene)
    observer.expect("CurrentProgramSceneChanged", sceneName=settings.table_scene)
    automation = ObsAutomation(client, settings.effective_rules)
    assert await automation.handle("card_seen", {"seat": 3}) == ()
    with pytest.raises(AssertionError, match="no CurrentProgramSceneChanged"):
        observer.expect("CurrentProgramSceneChanged", timeout=0.5)


async def test_rules_show_and_hide_scene_items(client: ObsClient, obs: ObsStudio,
                                               observer: Observer) -> None:
    settings = await built_table(client, obs, "Items")
    text, _ = stand_in_names(settings)
    automation = ObsAutomation(client, (
        AutomationRule("hand_started", RuleAction.HIDE_ITEM, scene=settings.table_scene,
                       source=text),
        AutomationRule("player_eliminated", RuleAction.SHOW_ITEM, scene=settings.table_scene,
                       source=text),
    ))
    item = observer.call("GetSceneItemId", sceneName=settings.table_scene,
                         sourceName=text)["sceneItemId"]
    observer.drain()

    assert [o.status for o in await automation.handle("hand_started")] == [OutcomeStatus.DONE]
    observer.expect("SceneItemEnableStateChanged", sceneName=settings.table_scene,
                    sceneItemId=item, sceneItemEnabled=False)
    await automation.handle("player_eliminated", {"player": "Ashton"})
    observer.expect("SceneItemEnableStateChanged", sceneName=settings.table_scene,
                    sceneItemId=item, sceneItemEnabled=True)


async def test_a_rule_obs_refuses_fails_without_raising_and_is_logged_once(
        client: ObsClient, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="overlay.devices.obs.automation")
    automation = ObsAutomation(client, (
        AutomationRule("all_in_showdown", RuleAction.SWITCH_SCENE, scene="No Such Scene"),))
    for _ in range(3):
        [outcome] = await automation.handle("all_in_showdown")
        assert outcome.status is OutcomeStatus.FAILED
        assert "No Such Scene" in outcome.note
    assert len([r for r in caplog.records if r.name == "overlay.devices.obs.automation"]) == 1


async def test_page_events_need_obs_browser(client: ObsClient) -> None:
    # Debian's OBS has no obs-browser vendor: the rule reports it instead of failing.
    automation = ObsAutomation(client, (
        AutomationRule("level_started", RuleAction.EMIT_EVENT, name="level $level"),))
    [outcome] = await automation.handle("level_started", {"level": 14})
    assert outcome.status is OutcomeStatus.UNSUPPORTED
    assert "obs-browser" in outcome.note


async def test_record_chapters_are_reported_unsupported_before_obs_30_2(
        client: ObsClient) -> None:
    assert not client.supports("CreateRecordChapter"), "this OBS is newer than 29: update"
    automation = ObsAutomation(client, (
        AutomationRule("hand_ended", RuleAction.RECORD_CHAPTER, name="Hand $hand_number"),))
    [outcome] = await automation.handle("hand_ended", {"hand_number": 7})
    assert outcome.status is OutcomeStatus.UNSUPPORTED
    assert "30.2" in outcome.note


async def test_an_elimination_saves_the_replay_buffer(client: ObsClient, obs: ObsStudio,
                                                      observer: Observer) -> None:
    settings = await built_table(client, obs, "Replay")
    automation = ObsAutomation(client, (
        AutomationRule("player_eliminated", RuleAction.SAVE_REPLAY),))
    # OBS asks "no sources, start anyway?" for an empty program scene: show a full one.
    observer.call("SetCurrentProgramScene", sceneName=settings.table_scene)

    [idle] = await automation.handle("player_eliminated")
    assert idle.status is OutcomeStatus.UNSUPPORTED
    assert "replay buffer is not running" in idle.note

    observer.drain()
    observer.call("StartReplayBuffer")
    try:
        observer.expect("ReplayBufferStateChanged", timeout=15, outputActive=True)
        [saved] = await automation.handle("player_eliminated", {"player": "Ashton"})
        assert saved.status is OutcomeStatus.DONE
        path = Path(observer.expect("ReplayBufferSaved", timeout=15)["savedReplayPath"])
    finally:
        observer.call("StopReplayBuffer")
        observer.expect("ReplayBufferStateChanged", timeout=15,
                        outputState="OBS_WEBSOCKET_OUTPUT_STOPPED")
    assert path.parent == obs.replay_dir
    assert path.stat().st_size > 0


async def test_rules_while_obs_is_down_report_it_and_never_raise(obs: ObsStudio) -> None:
    async with ObsClient(obs.settings(port=free_port())) as down:
        automation = ObsAutomation(down, (
            AutomationRule("hand_ended", RuleAction.SWITCH_SCENE, scene="Any"),))
        [outcome] = await automation.handle("hand_ended")
    assert outcome.status is OutcomeStatus.UNAVAILABLE
    assert "not connected" in outcome.note
