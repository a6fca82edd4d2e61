"""A scripted obs-websocket v5 peer that *has* the Browser source.

Debian's OBS has no obs-browser, so the production path of ``feltcast obs setup`` (a real
``browser_source``) and the guard's scan of browser URLs cannot run against the real OBS
of the other tests. This peer speaks the real protocol over a real websocket (Hello,
Identify with authentication, requests, RequestStatus codes as OBS 29 sends them) and
keeps just enough state (scenes, inputs, items, profile) for those paths. Its answers
mirror what the real OBS returned for the same requests in tests/overlay/devices/obs/test_setup.py.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import secrets
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

SUCCESS = 100
UNKNOWN_REQUEST_TYPE = 204
INVALID_INPUT_KIND = 400
RESOURCE_NOT_FOUND = 600
RESOURCE_ALREADY_EXISTS = 601

KINDS = ("browser_source", "image_source", "color_source_v3", "text_ft2_source_v2")


class RequestFailed(Exception):
    def __init__(self, code: int, comment: str) -> None:
        super().__init__(comment)
        self.code = code
        self.comment = comment


@dataclass
class Input:
    kind: str
    settings: dict[str, Any]

    @property
    def unversioned(self) -> str:
        return self.kind.removesuffix("_v2").removesuffix("_v3")


@dataclass
class ScriptedObs:
    password: str = field(default_factory=lambda: secrets.token_urlsafe(12))
    kinds: tuple[str, ...] = KINDS
    canvas: tuple[int, int] = (1920, 1080)
    scenes: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {"Scene": []})
    inputs: dict[str, Input] = field(default_factory=dict)
    profile: dict[str, str] = field(default_factory=lambda: {"DelayEnable": "false",
                                                             "DelaySec": "20"})
    log: list[str] = field(default_factory=list)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/", self._handler)
        return app

    def add_input(self, scene: str, name: str, kind: str, settings: dict[str, Any]) -> None:
        self._create_input({"sceneName": scene, "inputName": name, "inputKind": kind,
                            "inputSettings": settings})

    # --- protocol ---------------------------------------------------------------------

    async def _handler(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        salt, challenge = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
        await ws.send_json({"op": 0, "d": {"obsWebSocketVersion": "5.1.0", "rpcVersion": 1,
                                           "authentication": {"salt": salt,
                                                              "challenge": challenge}}})
        identify = await ws.receive_json()
        if identify.get("op") != 1 or identify["d"].get("authentication") != _auth(
                self.password, salt, challenge):
            await ws.close(code=4009, message=b"Authentication failed.")
            return ws
        await ws.send_json({"op": 2, "d": {"negotiatedRpcVersion": 1}})
        async for message in ws:
            d = message.json()["d"]
            self.log.append(d["requestType"])
            try:
                data = self._answer(d["requestType"], d.get("requestData") or {})
                status = {"result": True, "code": SUCCESS}
            except RequestFailed as failure:
                data = {}
                status = {"result": False, "code": failure.code, "comment": failure.comment}
            await ws.send_json({"op": 7, "d": {"requestType": d["requestType"],
                                               "requestId": d["requestId"],
                                               "requestStatus": status, "responseData": data}})
        return ws

    def _answer(self, request_type: str, data: dict[str, Any]) -> dict[str, Any]:
        handler = getattr(self, f"_{request_type}", None)
        if handler is None:
            raise RequestFailed(UNKNOWN_REQUEST_TYPE, "Your request type is not valid.")
        result: dict[str, Any] = handler(data)
        return result

    # --- requests (names as in the protocol) ------------------------------------------

    def _GetVersion(self, data: dict[str, Any]) -> dict[str, Any]:
        requests = sorted(name[1:] for name in dir(self)
                          if name[1:2].isupper() and name.startswith("_"))
        return {"obsVersion": "29.0.2-scripted", "obsWebSocketVersion": "5.1.0",
                "rpcVersion": 1, "availableRequests": requests}

    def _GetInputKindList(self, data: dict[str, Any]) -> dict[str, Any]:
        if data.get("unversioned"):
            return {"inputKinds": [Input(kind, {}).unversioned for kind in self.kinds]}
        return {"inputKinds": list(self.kinds)}

    def _GetSceneList(self, data: dict[str, Any]) -> dict[str, Any]:
        return {"currentProgramSceneName": "Scene", "currentPreviewSceneName": None,
                "scenes": [{"sceneName": name, "sceneIndex": i}
                           for i, name in enumerate(self.scenes)]}

    def _GetInputList(self, data: dict[str, Any]) -> dict[str, Any]:
        wanted = data.get("inputKind")
        return {"inputs": [{"inputName": name, "inputKind": i.kind,
                            "unversionedInputKind": i.unversioned}
                           for name, i in self.inputs.items()
                           if wanted in (None, i.kind, i.unversioned)]}

    def _GetVideoSettings(self, data: dict[str, Any]) -> dict[str, Any]:
        return {"baseWidth": self.canvas[0], "baseHeight": self.canvas[1],
                "outputWidth": 1280, "outputHeight": 720, "fpsNumerator": 30,
                "fpsDenominator": 1}

    def _GetProfileParameter(self, data: dict[str, Any]) -> dict[str, Any]:
        value = self.profile.get(data["parameterName"])
        return {"parameterValue": value, "defaultParameterValue": value}

    def _CreateScene(self, data: dict[str, Any]) -> dict[str, Any]:
        name = data["sceneName"]
        if name in self.scenes or name in self.inputs:
            raise RequestFailed(RESOURCE_ALREADY_EXISTS,
                                "A source already exists by that scene name.")
        self.scenes[name] = []
        return {}

    def _CreateInput(self, data: dict[str, Any]) -> dict[str, Any]:
        return self._create_input(data)

    def _create_input(self, data: dict[str, Any]) -> dict[str, Any]:
        scene, name, kind = data["sceneName"], data["inputName"], data["inputKind"]
        if scene not in self.scenes:
            raise RequestFailed(RESOURCE_NOT_FOUND,
                                f"No source was found by the name of `{scene}`.")
        if name in self.scenes or name in self.inputs:
            raise RequestFailed(RESOURCE_ALREADY_EXISTS, "A source already exists by that input "
                                "name.")
        if kind not in self.kinds:
            raise RequestFailed(INVALID_INPUT_KIND, "Your specified input kind is not supported "
                                "by OBS. Check that your specified kind is properly versioned "
                                "and that any necessary plugins are loaded.")
        self.inputs[name] = Input(kind, dict(data.get("inputSettings") or {}))
        return {"sceneItemId": self._add_item(scene, name)}

    def _CreateSceneItem(self, data: dict[str, Any]) -> dict[str, Any]:
        scene, source = data["sceneName"], data["sourceName"]
        if scene not in self.scenes or source not in self.inputs:
            raise RequestFailed(RESOURCE_NOT_FOUND, "No source was found.")
        return {"sceneItemId": self._add_item(scene, source)}

    def _GetSceneItemList(self, data: dict[str, Any]) -> dict[str, Any]:
        if data["sceneName"] not in self.scenes:
            raise RequestFailed(RESOURCE_NOT_FOUND, "No source was found.")
        return {"sceneItems": [dict(item) for item in self.scenes[data["sceneName"]]]}

    def _SetSceneItemTransform(self, data: dict[str, Any]) -> dict[str, Any]:
        for item in self.scenes.get(data["sceneName"], []):
            if item["sceneItemId"] == data["sceneItemId"]:
                item["sceneItemTransform"] |= data["sceneItemTransform"]
                return {}
        raise RequestFailed(RESOURCE_NOT_FOUND, "No scene items were found.")

    def _GetInputSettings(self, data: dict[str, Any]) -> dict[str, Any]:
        found = self.inputs.get(data["inputName"])
        if found is None:
            raise RequestFailed(RESOURCE_NOT_FOUND, "No source was found by the name of "
                                f"`{data['inputName']}`.")
        return {"inputKind": found.kind, "inputSettings": dict(found.settings)}

    def _SetInputSettings(self, data: dict[str, Any]) -> dict[str, Any]:
        found = self.inputs.get(data["inputName"])
        if found is None:
            raise RequestFailed(RESOURCE_NOT_FOUND, "No source was found.")
        if data.get("overlay", True):
            found.settings |= data["inputSettings"]
        else:
            found.settings = dict(data["inputSettings"])
        return {}

    def _add_item(self, scene: str, source: str) -> int:
        item_id = next(self._ids)
        items = self.scenes[scene]
        items.append({"sourceName": source, "sceneItemId": item_id,
                      "sceneItemIndex": len(items), "sceneItemEnabled": True,
                      "inputKind": self.inputs[source].kind,
                      "sceneItemTransform": {"positionX": 0.0, "positionY": 0.0,
                                             "boundsType": "OBS_BOUNDS_NONE"}})
        return item_id


def _auth(password: str, salt: str, challenge: str) -> str:
    secret = base64.b64encode(hashlib.sha256((password + salt).encode()).digest())
    return base64.b64encode(hashlib.sha256(secret + challenge.encode()).digest()).decode()
