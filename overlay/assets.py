"""Where the service's pages, fonts and flags are: :func:`static_dir`.

In the repository they are ``static/`` at the top; a built wheel installs that folder inside this
package as ``overlay.static`` (``pyproject.toml``), and an editable install maps the same name
to the checkout's folder. Both are found through :mod:`importlib.resources`, so an installed
``feltcast`` serves its pages from wherever pip put them, whatever the working directory.
"""

from __future__ import annotations

import importlib.resources
from functools import cache
from pathlib import Path

from engine.errors import ConfigError

PACKAGE = "overlay.static"


@cache
def static_dir() -> Path:
    """The folder of the pages (``overlay.html`` ...), ``css/``, ``js/``, ``fonts/``, ``flags/``.

    :raises ConfigError: when the installation holds no pages (a broken or partial install).
    """
    try:
        root = importlib.resources.files(PACKAGE)
    except ModuleNotFoundError:
        # A checkout run without installing (PYTHONPATH=.): the folder beside the packages.
        root = Path(__file__).resolve().parent.parent / "static"
    path = Path(str(root))
    if not (isinstance(root, Path) and (path / "overlay.html").is_file()):
        raise ConfigError(PACKAGE, f"the pages are missing from this installation ({path}): "
                                   "reinstall feltcast")
    return path


def fonts_dir() -> Path:
    """The Inter fonts the pages and the video exports use."""
    return static_dir() / "fonts"


def flags_dir() -> Path:
    """The bundled flags, one ``<CODE>.svg`` per country."""
    return static_dir() / "flags"
