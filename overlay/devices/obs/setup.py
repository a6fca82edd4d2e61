"""``feltcast obs setup``: build (or bring up to date) what a final table needs in OBS.

Three scenes (table, showdown, break; names from :class:`ObsSettings`) each hold the
Feltcast overlay: one OBS *Browser* source the size of OBS's canvas (its base resolution:
1280x720, 1920x1080, 3840x2160, or 1080x1920 for a vertical show; the pages scale their stage
to it, sharp at every size, and a canvas taller than wide gets the vertical layout) on a
transparent background that loads ``/overlay?channel=...`` from the Feltcast service. One
source shared by the scenes means one browser instance, so every scene shows the same,
continuous graphics.

Idempotent: what exists is kept (the producer's cameras, positions and order stay as they
are), what is missing is created, and a source whose settings differ (a new channel or
service address) is updated in place. Everything is checked before anything is changed,
so a missing Browser source, a name already used by something else, or a missing stream
delay for a channel with live hole cards (``secure``) stops the setup with one message
and nothing half made.

OBS builds without the Browser source (Debian's and Ubuntu's own ``obs-studio`` packages)
can get *stand-ins* instead (:class:`StandIn`): a text source naming the overlay URL and,
optionally, an image, so the scenes can be laid out and tested before the real OBS.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from overlay.devices.obs.client import ObsRequester
from overlay.devices.obs.delay_guard import BROWSER_SOURCE_KIND, ensure_stream_delay
from overlay.devices.obs.errors import ObsError, ObsFeatureMissingError
from overlay.devices.obs.settings import OVERLAY_HEIGHT, OVERLAY_WIDTH, ObsSettings

TRANSPARENT_CSS: Final = ("body { background-color: rgba(0, 0, 0, 0); margin: 0px auto; "
                          "overflow: hidden; }")
"""The browser source's custom CSS: a transparent page background (obs-browser's default)."""
IMAGE_SOURCE_KIND: Final = "image_source"
TEXT_SOURCE_KINDS: Final = ("text_ft2_source", "text_gdiplus")
"""Text source kinds, Linux/macOS (FreeType 2) and Windows (GDI+), unversioned."""


@dataclass(frozen=True, slots=True)
class StandIn:
    """Stand-ins for an OBS without the Browser source: a text source naming the overlay
    URL, and ``image`` (a PNG or JPEG on the OBS machine) when given."""

    image: Path | None = None


@dataclass(frozen=True, slots=True)
class SetupReport:
    """What the setup did, one entry per scene, source or scene item."""

    created: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.created or self.updated)

    def lines(self) -> list[str]:
        """The report as a producer reads it, one line per entry."""
        return ([f"created {what}" for what in self.created]
                + [f"updated {what}" for what in self.updated]
                + [f"unchanged {what}" for what in self.unchanged]
                + [f"note: {note}" for note in self.notes])


@dataclass(frozen=True, slots=True)
class _Source:
    name: str
    kind: str
    """The kind to create (versioned, as GetInputKindList lists it)."""
    unversioned_kind: str
    settings: Mapping[str, Any]
    full_frame: bool
    """A 1920x1080 picture (the stand-in image): scaled to fit when OBS's canvas has another
    size. The Browser source is made at the canvas's size instead."""


@dataclass
class _Progress:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def report(self) -> SetupReport:
        return SetupReport(tuple(self.created), tuple(self.updated), tuple(self.unchanged),
                           tuple(self.notes))


def stand_in_names(settings: ObsSettings) -> tuple[str, str]:
    """The names of the stand-in text and image sources for the overlay."""
    return (f"{settings.overlay_source} (stand-in)", f"{settings.overlay_source} (stand-in image)")


async def setup_final_table(obs: ObsRequester, settings: ObsSettings, *,
                            stand_in: StandIn | None = None) -> SetupReport:
    """Create or update the final table's scenes and sources in OBS.

    :param stand_in: what to build when this OBS has no Browser source; None (the default)
        refuses instead.
    :raises ObsFeatureMissingError: no Browser source and no stand-in asked for (nothing
        was changed).
    :raises ObsError: a scene or source name is already used by something else (nothing
        was changed).
    :raises DelayViolationError: the overlay reads a secret channel and the stream delay is off
        or too short (nothing was changed).
    :raises ObsUnavailableError, ObsRequestError: OBS went away or refused a request.
    """
    kinds = tuple((await obs.call("GetInputKindList", {"unversioned": False}))
                  .get("inputKinds", ()))
    has_browser = BROWSER_SOURCE_KIND in kinds
    if not has_browser and stand_in is None:
        raise ObsFeatureMissingError(
            "This OBS has no Browser source (the obs-browser plugin; Debian's and Ubuntu's "
            "own obs-studio packages leave it out), so Feltcast cannot add its overlay. "
            "Install OBS Studio with the Browser source (obsproject.com, the official PPA or "
            "Flatpak) and run the setup again; nothing was changed in OBS.")
    if settings.overlay_is_secret:
        await ensure_stream_delay(obs, settings.security_delay_seconds,
                                  [settings.overlay_source])
    video = await obs.call("GetVideoSettings")
    canvas = (int(video.get("baseWidth", OVERLAY_WIDTH)),
              int(video.get("baseHeight", OVERLAY_HEIGHT)))
    sources = (_browser_sources(settings, canvas) if has_browser
               else _stand_in_sources(settings, stand_in or StandIn(), kinds))
    scene_names = {str(scene.get("sceneName", ""))
                   for scene in (await obs.call("GetSceneList")).get("scenes", ())}
    inputs = {str(entry.get("inputName", "")): str(entry.get("unversionedInputKind", ""))
              for entry in (await obs.call("GetInputList")).get("inputs", ())}
    _refuse_conflicts(settings, sources, scene_names, inputs)

    progress = _Progress()
    for scene in settings.scenes:
        if scene in scene_names:
            progress.unchanged.append(f"scene {scene!r}")
        else:
            await obs.call("CreateScene", {"sceneName": scene})
            progress.created.append(f"scene {scene!r}")
    home_scene = settings.table_scene
    for source in sources:
        if source.name in inputs:
            await _update_source(obs, source, progress)
        else:
            created = await obs.call("CreateInput", {
                "sceneName": home_scene, "inputName": source.name, "inputKind": source.kind,
                "inputSettings": dict(source.settings), "sceneItemEnabled": True})
            progress.created.append(f"source {source.name!r} ({source.unversioned_kind})")
            progress.created.append(f"item {source.name!r} in scene {home_scene!r}")
            await _fit(obs, home_scene, int(created["sceneItemId"]), source, canvas)
    for scene in settings.scenes:
        items = await obs.call("GetSceneItemList", {"sceneName": scene})
        present = {str(item.get("sourceName", "")) for item in items.get("sceneItems", ())}
        for source in sources:
            what = f"item {source.name!r} in scene {scene!r}"
            if source.name in present:
                if scene != home_scene or source.name in inputs:
                    progress.unchanged.append(what)
                continue
            created = await obs.call("CreateSceneItem", {
                "sceneName": scene, "sourceName": source.name, "sceneItemEnabled": True})
            progress.created.append(what)
            await _fit(obs, scene, int(created["sceneItemId"]), source, canvas)
    if not has_browser:
        progress.notes.append(
            "this OBS has no Browser source: the scenes hold stand-ins for the overlay "
            f"({settings.overlay_url_shown}); install OBS with the Browser source and run the "
            "setup again for the real graphics")
    else:
        leftovers = [name for name in stand_in_names(settings) if name in inputs]
        if leftovers:
            progress.notes.append("stand-ins from an earlier setup remain; delete "
                                  + ", ".join(repr(name) for name in leftovers) + " in OBS")
    if canvas != (OVERLAY_WIDTH, OVERLAY_HEIGHT):
        progress.notes.append(
            f"OBS's canvas is {canvas[0]}x{canvas[1]}: " + (
                f"the overlay source is {canvas[0]}x{canvas[1]} too (the pages scale their "
                "stage to it" + ("; taller than wide: the vertical layout)"
                                 if canvas[1] > canvas[0] else ")")
                if has_browser else "new stand-in items are scaled to fit it"))
    return progress.report()


def _browser_sources(settings: ObsSettings,
                     canvas: tuple[int, int]) -> tuple[_Source, ...]:
    """The overlay's Browser source at the canvas's own size (drawn sharp, never scaled)."""
    return (_Source(settings.overlay_source, BROWSER_SOURCE_KIND, BROWSER_SOURCE_KIND, {
        "url": settings.overlay_url,
        "width": canvas[0],
        "height": canvas[1],
        "css": TRANSPARENT_CSS,
        "is_local_file": False,
        # Keep the page alive when its scene is not on program: no reload, no gap.
        "shutdown": False,
        "restart_when_active": False,
    }, full_frame=False),)


def _stand_in_sources(settings: ObsSettings, stand_in: StandIn,
                      kinds: Sequence[str]) -> tuple[_Source, ...]:
    text_kind = next((kind for kind in kinds
                      if any(kind.startswith(base) for base in TEXT_SOURCE_KINDS)), None)
    if text_kind is None or (stand_in.image is not None and IMAGE_SOURCE_KIND not in kinds):
        raise ObsFeatureMissingError(
            "This OBS has neither a Browser source nor the text and image sources the "
            "stand-ins need; nothing was changed in OBS.")
    text_name, image_name = stand_in_names(settings)
    sources = []
    if stand_in.image is not None:
        sources.append(_Source(image_name, IMAGE_SOURCE_KIND, IMAGE_SOURCE_KIND,
                               {"file": str(stand_in.image)}, full_frame=True))
    unversioned = next(base for base in TEXT_SOURCE_KINDS if text_kind.startswith(base))
    sources.append(_Source(text_name, text_kind, unversioned, {
        "text": f"Feltcast overlay ({settings.overlay_channel}): {settings.overlay_url_shown}\n"
                "stand-in: this OBS has no Browser source",
        "font": {"face": "Sans Serif", "size": 32, "style": "Regular", "flags": 0},
    }, full_frame=False))
    return tuple(sources)


def _refuse_conflicts(settings: ObsSettings, sources: Sequence[_Source],
                      scene_names: set[str], inputs: Mapping[str, str]) -> None:
    problems = [f"{scene!r} is wanted as a scene but is an OBS source of kind "
                f"{inputs[scene]}" for scene in settings.scenes if scene in inputs]
    for source in sources:
        if source.name in scene_names:
            problems.append(f"{source.name!r} is wanted as a {source.unversioned_kind} "
                            "source but is a scene")
        elif source.name in inputs and inputs[source.name] != source.unversioned_kind:
            problems.append(f"{source.name!r} is wanted as a {source.unversioned_kind} "
                            f"source but is a {inputs[source.name]}")
    if problems:
        raise ObsError("OBS already uses these names for something else: "
                       + "; ".join(problems) + ". Rename or delete them in OBS, or choose "
                       "other names in the [obs] configuration; nothing was changed in OBS.")


async def _update_source(obs: ObsRequester, source: _Source, progress: _Progress) -> None:
    current = (await obs.call("GetInputSettings", {"inputName": source.name})
               ).get("inputSettings", {})
    if all(current.get(key) == value for key, value in source.settings.items()):
        progress.unchanged.append(f"source {source.name!r}")
        return
    await obs.call("SetInputSettings", {"inputName": source.name,
                                        "inputSettings": dict(source.settings),
                                        "overlay": True})
    progress.updated.append(f"source {source.name!r}")


async def _fit(obs: ObsRequester, scene: str, item_id: int, source: _Source,
               canvas: tuple[int, int]) -> None:
    """Place a new item at the top left; scale full-frame ones to a canvas of another size."""
    transform: dict[str, Any] = {"positionX": 0.0, "positionY": 0.0}
    if source.full_frame and canvas != (OVERLAY_WIDTH, OVERLAY_HEIGHT):
        transform |= {"boundsType": "OBS_BOUNDS_SCALE_INNER", "boundsAlignment": 0,
                      "boundsWidth": float(canvas[0]), "boundsHeight": float(canvas[1])}
    await obs.call("SetSceneItemTransform", {"sceneName": scene, "sceneItemId": item_id,
                                             "sceneItemTransform": transform})
