"""``feltcast obs``: OBS Studio control over obs-websocket.

``feltcast obs setup`` creates or updates the final table's scenes and the overlay browser
source in a running OBS (Tools > WebSocket Server Settings gives the port and password).
``feltcast obs check`` shows what Feltcast sees of that OBS: versions, Browser source,
stream delay, and whether the delay guard lets the configured overlay channel through.

The password can come from the environment (``FELTCAST_OBS_PASSWORD``) instead of the
command line, where other users of the machine could read it.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from overlay.devices.obs.settings import ObsSettings

PASSWORD_VARIABLE = "FELTCAST_OBS_PASSWORD"
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
"""OBS on this machine: a stand-in image must exist here (elsewhere it is OBS's path)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="obs_action", metavar="ACTION", required=True)
    setup = actions.add_parser(
        "setup", help="create or update the scenes and the overlay source in OBS",
        description="Create or update, idempotently, the final table's scenes and the "
                    "overlay browser source (1920x1080, transparent) in a running OBS.")
    check = actions.add_parser(
        "check", help="show OBS's versions, Browser source and stream delay",
        description="Connect to OBS and show what Feltcast sees; exit status 1 when the "
                    "delay guard would refuse the configured overlay channel.")
    for sub in (setup, check):
        _connection_arguments(sub)
    setup.add_argument("--stand-in", action="store_true",
                       help="when this OBS has no Browser source (Debian's package), lay "
                            "out the scenes with a text stand-in instead of refusing")
    setup.add_argument("--stand-in-image", type=Path, metavar="PATH",
                       help="also show this image (PNG/JPEG on the OBS machine) as a "
                            "stand-in; implies --stand-in")


def _connection_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="OBS host (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=4455,
                        help="obs-websocket port (default 4455)")
    parser.add_argument("--password", default=None,
                        help=f"obs-websocket password (default: ${PASSWORD_VARIABLE})")
    parser.add_argument("--base-url", default="http://127.0.0.1:8080",
                        help="the Feltcast service as OBS reaches it "
                             "(default http://127.0.0.1:8080)")
    parser.add_argument("--channel", default="delayed",
                        help="the channel the overlay reads: delayed (default), venue, secure "
                             "or another configured channel; any channel but delayed and "
                             "venue is treated as showing hole cards live (the delay guard)")
    parser.add_argument("--token", default="",
                        help="the secure channel's token, added to the overlay URL")
    parser.add_argument("--security-delay", type=float, default=900.0, metavar="SECONDS",
                        help="the table's security delay D: with --channel secure, OBS's "
                             "stream delay must be at least this (default 900)")
    parser.add_argument("--timeout", type=float, default=5.0, metavar="SECONDS",
                        help="connect and request timeout (default 5)")


def run(args: argparse.Namespace) -> int:
    import asyncio

    from overlay.devices.obs.settings import ObsSettings

    password = args.password if args.password is not None else os.environ.get(
        PASSWORD_VARIABLE, "")
    settings = ObsSettings(host=args.host, port=args.port, password=password,
                           connect_timeout=args.timeout, request_timeout=args.timeout,
                           base_url=args.base_url, overlay_channel=args.channel,
                           overlay_token=args.token,
                           secret_channels=_secret_channels(args.channel),
                           security_delay_seconds=args.security_delay)
    action = _setup if args.obs_action == "setup" else _check
    status: int = asyncio.run(action(settings, args))
    return status


def _secret_channels(channel: str) -> tuple[str, ...]:
    # Without the service's channel table, be strict: only the two standard channels that
    # never show hole cards early are public.
    return ("secure",) if channel in ("delayed", "venue", "secure") else ("secure", channel)


async def _setup(settings: ObsSettings, args: argparse.Namespace) -> int:
    from engine.errors import ConfigError
    from overlay.devices.obs.client import ObsClient
    from overlay.devices.obs.setup import StandIn, setup_final_table

    stand_in = None
    if args.stand_in or args.stand_in_image is not None:
        image = args.stand_in_image.resolve() if args.stand_in_image is not None else None
        if image is not None and settings.host in LOCAL_HOSTS and not image.is_file():
            raise ConfigError("--stand-in-image", f"no such file: {image}")
        stand_in = StandIn(image=image)
    async with ObsClient(settings) as obs:
        await obs.wait_connected(settings.connect_timeout * 2, give_up_when_down=True)
        report = await setup_final_table(obs, settings, stand_in=stand_in)
    for line in report.lines():
        print(line)
    print("OBS is ready for the final table" + ("" if report.changed else " (nothing to do)"))
    return 0


async def _check(settings: ObsSettings, args: argparse.Namespace) -> int:
    from overlay.devices.obs.client import ObsClient
    from overlay.devices.obs.delay_guard import BROWSER_SOURCE_KIND, check_obs, read_stream_delay
    from overlay.devices.obs.errors import DelayViolationError

    async with ObsClient(settings) as obs:
        await obs.wait_connected(settings.connect_timeout * 2, give_up_when_down=True)
        health = obs.health
        kinds = (await obs.call("GetInputKindList", {"unversioned": True})).get("inputKinds", [])
        delay = await read_stream_delay(obs)
        print(f"OBS {health.obs_version}, obs-websocket {health.websocket_version} at "
              f"{settings.host}:{settings.port}")
        print("Browser source: " + ("yes" if BROWSER_SOURCE_KIND in kinds else
                                    "NO (the overlay needs OBS with obs-browser)"))
        print(f"stream delay: {delay.describe()}")
        print(f"overlay: {settings.overlay_url_shown}")
        try:
            await check_obs(obs, settings)
        except DelayViolationError as error:
            print(f"delay guard: REFUSED: {error}")
            return 1
    print("delay guard: ok")
    return 0
