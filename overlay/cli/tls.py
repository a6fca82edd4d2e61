"""``feltcast tls``: the show's own certificate authority and server certificate
(``overlay/tls.py``, ``docs/show-day.md``).

``feltcast tls init`` makes them in ``<data>/tls/`` (a new server certificate each time, for
the names given with ``--name``; the CA is kept once made) and prints the fingerprints to check
on the tablet and the OBS machine; ``feltcast tls show`` prints them again. Then set
``[server] tls = true``.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, text in (("init", "make the local CA (once) and a server certificate"),
                       ("show", "the certificates, their names and fingerprints")):
        action = actions.add_parser(name, help=text, description=text)
        action.add_argument("--data", type=Path, default=None,
                            help="the data directory (default: the configuration's, else "
                                 "data)")
        action.add_argument("--config", type=Path, default=None,
                            help="the TOML configuration (for its data directory)")
        if name == "init":
            action.add_argument("--name", action="append", default=[], metavar="NAME",
                                help="another host name or address the tablets use for this "
                                     "machine (repeat; localhost, 127.0.0.1 and this "
                                     "machine's name are always in)")
        action.set_defaults(_run=run)


def run(args: argparse.Namespace) -> int:
    from engine.errors import ConfigError
    from overlay.config import load_config
    from overlay.tls import describe, local_files, make_local_ca

    data = args.data or load_config(args.config).data_dir
    if args.action == "init":
        files = make_local_ca(data, tuple(args.name))
    else:
        files = local_files(data)
        if not files.cert.exists():
            raise ConfigError("--data", f"no certificate in {files.cert.parent}: "
                                        "feltcast tls init makes one")
    for label, path in (("server certificate", files.cert), ("certificate authority",
                                                              files.ca)):
        if path is None or not path.exists():
            continue
        info = describe(path)
        print(f"{label}: {path}")
        print(f"  subject   {info.subject}")
        if info.names:
            print(f"  names     {', '.join(info.names)}")
        print(f"  valid to  {info.not_after:%Y-%m-%d}")
        print(f"  SHA-256   {info.sha256}")
    print("Trust the certificate authority once on each tablet and on the OBS machine; then "
          "[server] tls = true.")
    return 0
