"""PHH hand histories on disk: :func:`load` one file, :func:`iter_files` under folders.

The engine parses and writes the text (:mod:`engine.phh`: it does no I/O); this module is
where the files are read, for ``feltcast phh``, the video export, the benchmarks and the tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from engine.phh import HandHistory, loads

__all__ = ["iter_files", "load"]


def load(path: str | Path) -> HandHistory:
    """Read a ``.phh`` file (UTF-8); its path becomes the history's ``source``.

    :raises HandHistoryError: the text is not a PHH hand history (the message names the file).
    :raises OSError: the file cannot be read.
    """
    path = Path(path)
    return loads(path.read_text(encoding="utf-8"), source=str(path))


def iter_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Every ``.phh`` file under the given files and folders, sorted within a folder (a file
    named directly is yielded as it is)."""
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            yield from sorted(path.rglob("*.phh"))
        else:
            yield path
