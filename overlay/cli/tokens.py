"""``feltcast tokens``: a token per device, created, listed and revoked
(``overlay/device_tokens.py``), and new shared tokens (``rotate``) when one of ``tokens.json``
was lost or leaked. Works while the service runs: a revoked device, or the holders of a rotated
shared token, lose their sockets within a second."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from overlay.auth import ROLES, SHARED_ROLES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, text in (("create", "a token for one device (shown once)"),
                       ("list", "the devices and their roles"),
                       ("revoke", "end a device's token (its sockets close at once)"),
                       ("rotate", "new shared tokens for roles of tokens.json (shown once; "
                                  "the old ones stop working)")):
        action = actions.add_parser(name, help=text, description=text)
        if name in ("create", "revoke"):
            action.add_argument("name", help="the device, e.g. 'tablet 1' or 'obs-truck'")
        if name == "create":
            action.add_argument("--role", required=True, choices=ROLES)
        if name == "rotate":
            action.add_argument("roles", nargs="+", choices=SHARED_ROLES, metavar="ROLE",
                                help=f"one or more of {', '.join(SHARED_ROLES)}")
        action.add_argument("--data-dir", type=Path, default=None,
                            help="the data directory (default: the configuration's, else data)")
        action.add_argument("--url", default="", help="a sqlite:/// or postgresql:// URL")
        action.add_argument("--config", type=Path, default=None,
                            help="the TOML configuration")
        action.set_defaults(_run=run)


def run(args: argparse.Namespace) -> int:
    from engine.errors import ConfigError
    from overlay.config import load_config
    from overlay.device_tokens import create_device, list_devices, revoke_device
    from overlay.store import open_store

    config = load_config(args.config)
    if args.action == "rotate":
        return rotate(tuple(dict.fromkeys(args.roles)), args.data_dir or config.data_dir)
    store = open_store(args.url or config.database_url, args.data_dir or config.data_dir)
    try:
        if args.action == "create":
            token = create_device(store.engine, args.name, args.role, time.time())
            print(f"device {args.name.strip()!r} ({args.role}): {token}")
            print("shown once: only its hash is kept. Revoke it with "
                  f"`feltcast tokens revoke {args.name.strip()!r}`.")
        elif args.action == "revoke":
            if not revoke_device(store.engine, args.name, time.time()):
                raise ConfigError("name", f"no device named {args.name!r} with a live token")
            print(f"device {args.name!r} revoked: its sockets close within a second")
        else:
            devices = list_devices(store.engine)
            for device in devices:
                state = (f"revoked {time.strftime('%Y-%m-%d %H:%M', time.gmtime(device.revoked))}"
                         if device.revoked else "live")
                print(f"  {device.name:<24} {device.role:<9} {state}")
            if not devices:
                print("no device tokens yet: feltcast tokens create NAME --role ROLE")
        return 0
    finally:
        store.close()


def rotate(roles: tuple[str, ...], data_dir: Path) -> int:
    from overlay.auth import TOKEN_FILE, rotate_tokens

    tokens = rotate_tokens(data_dir, roles)
    for role in roles:
        print(f"  {role:<9} {tokens.issued[role]}")
    print(f"shown once ({data_dir / TOKEN_FILE} keeps only digests of the operator and "
          f"secure tokens). The old ones stop working within a second; the pages that used "
          f"them are disconnected: open them again with the new token.")
    if "obs" in roles:
        print("OBS's browser sources need the new obs token in their URL: feltcast obs setup "
              "--token TOKEN, or edit each source's URL.")
    return 0
