"""Automation: table events drive OBS (switch scenes, show or hide items, tell the pages,
mark recordings), as the configuration's rules say.

The service calls :meth:`ObsAutomation.handle` with each event's kind (a plain string such
as ``"all_in_showdown"``, ``"hand_ended"``, ``"level_started"``, ``"player_eliminated"``)
and a JSON-ready payload, *from the channel the OBS overlay reads*, so that OBS changes
scene in step with the graphics viewers see (on ``delayed``, D seconds after the table).
The payload goes into the browser pages with ``emit_event``: give it only what that
channel may show.

A rule OBS cannot carry out (OBS down, a request this OBS lacks, the replay buffer not
running) never raises: its :class:`RuleOutcome` says why, and the reason is logged once
per rule, not once per event.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from string import Template
from typing import Any, Final

from overlay.devices.obs.client import ObsRequester
from overlay.devices.obs.errors import ObsRequestError, ObsUnavailableError
from overlay.devices.obs.settings import AutomationRule, RuleAction

LOG = logging.getLogger(__name__)

OBS_BROWSER_VENDOR: Final = "obs-browser"
_NOT_FOUND: Final = 600
"""obs-websocket RequestStatus::ResourceNotFound."""
_OUTPUT_NOT_RUNNING: Final = 501
"""obs-websocket RequestStatus::OutputNotRunning."""
_INVALID_STATE: Final = 604
"""obs-websocket RequestStatus::InvalidResourceState (e.g. "Replay buffer is not available")."""
_NOT_POSSIBLE_NOW: Final = frozenset({_NOT_FOUND, _OUTPUT_NOT_RUNNING, _INVALID_STATE})


class OutcomeStatus(StrEnum):
    DONE = "done"
    UNSUPPORTED = "unsupported"
    """This OBS cannot do it (missing feature or output not running); see the note."""
    UNAVAILABLE = "unavailable"
    """OBS is not connected."""
    FAILED = "failed"
    """OBS refused the request (e.g. the scene does not exist)."""


@dataclass(frozen=True, slots=True)
class RuleOutcome:
    """What became of one rule for one event."""

    rule: AutomationRule
    status: OutcomeStatus
    note: str = ""


class ObsAutomation:
    """Runs the automation rules against one OBS connection."""

    def __init__(self, obs: ObsRequester, rules: tuple[AutomationRule, ...]) -> None:
        self._obs = obs
        self.rules = rules
        self._noted: set[tuple[int, OutcomeStatus]] = set()

    def rules_for(self, event_kind: str) -> tuple[AutomationRule, ...]:
        return tuple(rule for rule in self.rules if rule.on == event_kind)

    async def handle(self, event_kind: str,
                     payload: Mapping[str, Any] | None = None) -> tuple[RuleOutcome, ...]:
        """Carry out, in order, every rule for ``event_kind``; never raises for OBS trouble."""
        data = dict(payload or {})
        outcomes = []
        for index, rule in enumerate(self.rules):
            if rule.on != event_kind:
                continue
            outcome = await self._apply(rule, event_kind, data)
            outcomes.append(outcome)
            if outcome.status is not OutcomeStatus.DONE:
                self._note_once(index, outcome)
        return tuple(outcomes)

    async def _apply(self, rule: AutomationRule, event_kind: str,
                     payload: dict[str, Any]) -> RuleOutcome:
        try:
            return await self._perform(rule, event_kind, payload)
        except ObsUnavailableError as error:
            return RuleOutcome(rule, OutcomeStatus.UNAVAILABLE, str(error))
        except ObsRequestError as error:
            return RuleOutcome(rule, OutcomeStatus.FAILED, str(error))

    async def _perform(self, rule: AutomationRule, event_kind: str,
                       payload: dict[str, Any]) -> RuleOutcome:
        obs = self._obs
        action = rule.action
        if action is RuleAction.SWITCH_SCENE:
            await obs.call("SetCurrentProgramScene", {"sceneName": rule.scene})
        elif action in (RuleAction.SHOW_ITEM, RuleAction.HIDE_ITEM):
            found = await obs.call("GetSceneItemId", {"sceneName": rule.scene,
                                                      "sourceName": rule.source})
            await obs.call("SetSceneItemEnabled", {
                "sceneName": rule.scene, "sceneItemId": int(found["sceneItemId"]),
                "sceneItemEnabled": action is RuleAction.SHOW_ITEM})
        elif action is RuleAction.EMIT_EVENT:
            return await self._emit_event(rule, event_kind, payload)
        elif action is RuleAction.RECORD_CHAPTER:
            return await self._record_chapter(rule, event_kind, payload)
        elif action is RuleAction.SAVE_REPLAY:
            return await self._save_replay(rule)
        return RuleOutcome(rule, OutcomeStatus.DONE)

    async def _emit_event(self, rule: AutomationRule, event_kind: str,
                          payload: dict[str, Any]) -> RuleOutcome:
        name = _fill(rule.name, payload) or event_kind
        try:
            await self._obs.call("CallVendorRequest", {
                "vendorName": OBS_BROWSER_VENDOR, "requestType": "emit_event",
                "requestData": {"event_name": name,
                                "event_data": {"kind": event_kind, **payload}}})
        except ObsRequestError as error:
            if error.status == _NOT_FOUND or "vendor" in error.comment.lower():
                return RuleOutcome(rule, OutcomeStatus.UNSUPPORTED,
                                   "this OBS has no obs-browser (Browser source), so no page "
                                   f"event can be sent ({error.comment or error})")
            raise
        return RuleOutcome(rule, OutcomeStatus.DONE)

    async def _record_chapter(self, rule: AutomationRule, event_kind: str,
                              payload: dict[str, Any]) -> RuleOutcome:
        if not self._obs.supports("CreateRecordChapter"):
            return RuleOutcome(rule, OutcomeStatus.UNSUPPORTED,
                               "this OBS cannot add recording chapters (CreateRecordChapter "
                               "needs OBS 30.2 or later, recording as Hybrid MP4)")
        try:
            await self._obs.call("CreateRecordChapter",
                                 {"chapterName": _fill(rule.name, payload) or event_kind})
        except ObsRequestError as error:
            if error.status in _NOT_POSSIBLE_NOW:
                return RuleOutcome(rule, OutcomeStatus.UNSUPPORTED,
                                   "OBS is not recording (as Hybrid MP4), so no chapter was "
                                   f"added: {error.comment or error}")
            raise
        return RuleOutcome(rule, OutcomeStatus.DONE)

    async def _save_replay(self, rule: AutomationRule) -> RuleOutcome:
        try:
            await self._obs.call("SaveReplayBuffer")
        except ObsRequestError as error:
            if error.status in _NOT_POSSIBLE_NOW:
                return RuleOutcome(rule, OutcomeStatus.UNSUPPORTED,
                                   "OBS's replay buffer is not running (enable it in Settings "
                                   "> Output > Replay Buffer and press Start Replay Buffer): "
                                   f"{error.comment or error}")
            raise
        return RuleOutcome(rule, OutcomeStatus.DONE)

    def _note_once(self, index: int, outcome: RuleOutcome) -> None:
        # One line per rule and kind of trouble, not one per event; UNAVAILABLE is the
        # client's business (it logs the connection going down once).
        if outcome.status is OutcomeStatus.UNAVAILABLE:
            return
        key = (index, outcome.status)
        if key in self._noted:
            return
        self._noted.add(key)
        LOG.warning("OBS rule %r on %r: %s: %s", outcome.rule.action.value, outcome.rule.on,
                    outcome.status.value, outcome.note)


def _fill(template: str, payload: Mapping[str, Any]) -> str:
    """``$key`` placeholders filled from the payload; unknown ones are left as written."""
    return Template(template).safe_substitute({k: str(v) for k, v in payload.items()})
