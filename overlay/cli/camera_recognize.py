"""``feltcast camera recognize IMAGE... --deck DECK [--json]``: the cards in still images.

For each image, in the order given, the cards found: their code (or ``unknown`` when the index
cannot be read surely), their score and their corners in the image's pixels (top-left,
top-right, bottom-right, bottom-left of the printed card). With ``--json`` each image gives
one line, a JSON list::

    [{"code": "Ah", "quad": [[x, y], [x, y], [x, y], [x, y]], "score": 0.97}]

``--deck`` is ``default`` (the project's own deck), a ``.npz`` file written by
``feltcast camera calibrate --out FILE.npz`` or the name of a deck stored in the service's
database (``--db`` / ``--data-dir``, as for ``feltcast deck``).
"""

from __future__ import annotations

import argparse
import json
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from capture.camera.deck import CameraDeck


def add_database_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", default="", metavar="URL",
                        help="database URL of the deck registry (sqlite:///… or postgresql://…)")
    parser.add_argument("--data-dir", default="data", type=Path, metavar="DIR",
                        help="where the default SQLite database lives (default: data)")


def open_deck(spec: str, db: str, data_dir: Path) -> CameraDeck:
    """``default``, a deck file, or a deck registered in the database (opened only then).

    :raises CameraDeckError: no such deck (the message says where it looked).
    """
    from capture.camera import deck
    from overlay.store import create_db_engine, database_url

    with ExitStack() as stack:
        def engine() -> Engine:
            opened = create_db_engine(database_url(db, data_dir))
            stack.callback(opened.dispose)
            return opened

        return deck.open_deck(spec, engine)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", type=Path, metavar="IMAGE",
                        help="still images (PNG, JPEG, …) of the table")
    parser.add_argument("--deck", default="default",
                        help="'default', a deck file (.npz) or a registered deck's name")
    parser.add_argument("--json", action="store_true",
                        help="one JSON list of cards per image, one image per line")
    parser.add_argument("--threshold", type=float, default=None, metavar="SCORE",
                        help="score below which a card is unknown (default: the recognizer's)")
    add_database_arguments(parser)


def run(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from capture.camera.recognizer import DEFAULT_THRESHOLD, Recognizer
    from engine.errors import InvalidInputError

    threshold = DEFAULT_THRESHOLD if args.threshold is None else args.threshold
    if not 0.0 < threshold <= 1.0:
        raise InvalidInputError(f"--threshold {threshold} is not above 0 and at most 1")
    images = []
    for path in args.images:
        if not path.is_file():
            raise InvalidInputError(f"there is no image file {str(path)!r}")
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise InvalidInputError(f"{str(path)!r} is not an image this build can read")
        images.append((path, np.asarray(image, dtype=np.uint8)))
    recognizer = Recognizer(open_deck(args.deck, args.db, args.data_dir), threshold=threshold)
    for path, image in images:
        detections = recognizer.detect(image)
        if args.json:
            print(json.dumps([d.to_dict() for d in detections]), flush=True)
            continue
        if not detections:
            print(f"{path}: no cards")
            continue
        parts = []
        for d in detections:
            x, y = d.centre
            what = d.code if d.code is not None else "unknown"
            parts.append(f"{what} ({d.score:.2f}) at {x:.0f},{y:.0f}")
        print(f"{path}: " + "; ".join(parts), flush=True)
    return 0
