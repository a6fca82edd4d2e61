"""``feltcast camera calibrate``: learn a camera deck from one clear image per card.

From files::

    feltcast camera calibrate --images DIR --out DECK

``DIR`` holds one image per card, named by the card's code (``Ah.png``, ``Td.jpg``, ``10c.png``;
case does not matter). Missing cards, two files for one card, files not named by a card and
unreadable images are all named in one clear error before anything is learnt.

From a camera (a device index, a video file or an RTSP/HTTP URL)::

    feltcast camera calibrate --camera 0 --out DECK

prompts for each card in the RFID registration order (A♠ K♠ … 2♣): show it alone, face up, to
the camera until it is captured, then take it away.

Afterwards it prints, for each card, its nearest neighbour by the index and how alike the two
are, least distinct first, and warns of cards the camera may leave unknown (a weak deck is
visible before the show). Two different cards are never refused as one: only two images of
the same card (alike as whole cards) are.

``DECK`` is a file when it ends in ``.npz`` or contains a ``/``; otherwise it is a name, and
the deck is stored in the service's database next to the RFID decks (``--db`` /
``--data-dir``; ``--replace`` overwrites a deck of that name).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from overlay.cli.camera_recognize import add_database_arguments

if TYPE_CHECKING:
    import numpy as np

    from capture.camera.deck import CameraDeck
    from engine.cards import Card

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--images", type=Path, metavar="DIR",
                       help="a folder of card images named by card code (Ah.png, Td.jpg, …)")
    where.add_argument("--camera", metavar="SOURCE",
                       help="show the cards to a camera: device index, video file or URL")
    parser.add_argument("--out", required=True, metavar="DECK",
                        help="a .npz file, or a deck name to store in the database")
    parser.add_argument("--name", default="", help="the deck's name (default: from --out)")
    parser.add_argument("--replace", action="store_true",
                        help="overwrite an existing deck of that name in the database")
    parser.add_argument("--hold-frames", type=int, default=5, metavar="N",
                        help="camera mode: frames a card must lie still to be captured")
    add_database_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from capture.camera.deck import CameraDeck, is_deck_file
    from engine.errors import InvalidInputError

    name = args.name or (Path(args.out).stem if is_deck_file(args.out) else args.out)
    if not name.strip():
        raise InvalidInputError("give the deck a name (--name)")
    images: Mapping[Card, np.ndarray]
    sources: dict[Card, str] = {}
    if args.images is not None:
        images, sources = read_card_images(args.images)
    else:
        if args.hold_frames < 1:
            raise InvalidInputError("--hold-frames must be at least 1")
        images = capture_from_camera(args.camera, args.hold_frames)
    print(f"learning deck {name!r} from {len(images)} cards …", flush=True)
    deck = CameraDeck.calibrate(images, name, sources=sources)
    where = _store(deck, args)
    u0, v0, u1, v1 = deck.box
    print(f"deck {deck.name!r} saved to {where}: index at {u0:.0%}-{u1:.0%} across, "
          f"{v0:.0%}-{v1:.0%} down; closest two cards {deck.separation:.2f} alike", flush=True)
    print_distinctness(deck)
    return 0


def print_distinctness(deck: CameraDeck) -> None:
    """Each card's nearest neighbour by the index and how alike the two are (1.00: the same
    to the camera), least distinct first, four to a line; then the cards the camera may
    leave unknown, if any."""
    from capture.camera.deck import WEAK, nearest_cards

    rows = nearest_cards(deck)
    print("how alike each card's index is to its nearest neighbour's (1.00: the same):")
    cells = [f"{card.code:>3} ~ {other.code:<3} {alike:.2f}" for card, other, alike in rows]
    for start in range(0, len(cells), 4):
        print("  " + "   ".join(cells[start:start + 4]))
    weak = [(card, other, alike) for card, other, alike in rows if alike >= WEAK]
    if weak:
        pairs = sorted({tuple(sorted((card.code, other.code))) for card, other, _ in weak})
        print(f"warning: {len(weak)} card(s) look much like another by the index "
              f"({', '.join(f'{a}/{b}' for a, b in pairs)}): the camera leaves such a card "
              "unknown when it cannot tell; a clearer or larger image of each may help",
              flush=True)


def _store(deck: CameraDeck, args: argparse.Namespace) -> str:
    from capture.camera.deck import is_deck_file

    if is_deck_file(args.out):
        return str(deck.save(args.out))
    from capture.camera.deck import CameraDeckRegistry
    from overlay.store import create_db_engine, database_url

    engine = create_db_engine(database_url(args.db, args.data_dir))
    try:
        CameraDeckRegistry(engine).save(deck, replace=args.replace)
    finally:
        engine.dispose()
    return "the deck registry"


def read_card_images(folder: Path, *, quiet: bool = False
                     ) -> tuple[dict[Card, np.ndarray], dict[Card, str]]:
    """The 52 card images of ``folder``, by card; a progress line per card on stdout (none
    when ``quiet``).

    :raises CameraDeckError: naming every problem file and every missing card.
    """
    import cv2

    from capture.errors import CameraDeckError
    from engine.cards import Card
    from engine.errors import InvalidCardError

    if not folder.is_dir():
        raise CameraDeckError(f"there is no folder {str(folder)!r}")
    files: dict[Card, list[Path]] = {}
    problems: list[str] = []
    for path in sorted(folder.iterdir()):
        if path.name.startswith(".") or not path.is_file():
            continue
        if path.suffix.lower() not in IMAGE_SUFFIXES:
            problems.append(f"{path.name}: not an image file ({', '.join(IMAGE_SUFFIXES)})")
            continue
        try:
            card = Card(path.stem)
        except InvalidCardError:
            problems.append(f"{path.name}: not named by a card code (e.g. Ah.png, Td.jpg)")
            continue
        files.setdefault(card, []).append(path)
    for card, paths in sorted(files.items(), reverse=True):
        if len(paths) > 1:
            problems.append(f"{card}: {len(paths)} files ({', '.join(p.name for p in paths)})")
    missing = [Card.from_index(i) for i in range(51, -1, -1) if Card.from_index(i) not in files]
    if missing:
        problems.append(f"no image for {len(missing)} card(s): "
                        + " ".join(card.code for card in missing))
    if problems:
        raise CameraDeckError(f"the card images in {str(folder)!r} cannot be used:\n  "
                              + "\n  ".join(problems))
    images: dict[Card, np.ndarray] = {}
    sources: dict[Card, str] = {}
    unreadable: list[str] = []
    for n, card in enumerate(sorted(files, reverse=True), start=1):
        path = files[card][0]
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            unreadable.append(path.name)
            if not quiet:
                print(f"[{n:2d}/52] {card}  {path.name}: cannot be read", flush=True)
            continue
        images[card], sources[card] = image, path.name
        height, width = image.shape[:2]
        if not quiet:
            print(f"[{n:2d}/52] {card}  {path.name}  {width}x{height}", flush=True)
    if unreadable:
        raise CameraDeckError(f"these files are not images this build can read: "
                              f"{', '.join(unreadable)}")
    return images, sources


def capture_from_camera(source_text: str, hold_frames: int) -> Mapping[Card, np.ndarray]:
    """Prompt for each card in registration order and capture it from the camera."""

    from capture.camera.geometry import find_card_quads, quad_area, quad_iou
    from capture.camera.source import CameraConfig, FrameSource, parse_source
    from capture.errors import CameraError
    from engine.cards import REGISTRATION_ORDER

    source = FrameSource(CameraConfig("calibration", parse_source(source_text)))
    source.open()
    images: dict[Card, np.ndarray] = {}
    try:
        for n, card in enumerate(REGISTRATION_ORDER, start=1):
            print(f"Show the {card.name} ({card}) to the camera, alone and face up "
                  f"(card {n} of 52).", flush=True)
            previous = None
            still = 0
            while True:
                ok, frame = source.read()
                if not ok or frame is None:
                    raise CameraError(f"the camera stopped delivering frames after {n - 1} of "
                                      "52 cards")
                quads = [q for q in find_card_quads(frame)
                         if quad_area(q) > 0.01 * frame.shape[0] * frame.shape[1]]
                if len(quads) != 1:
                    previous, still = None, 0
                    continue
                quad = quads[0]
                still = still + 1 if previous is not None and quad_iou(quad, previous) > 0.9 \
                    else 1
                previous = quad
                if still >= hold_frames:
                    images[card] = _crop(frame, quad)
                    break
            print(f"captured {card}. Take the card away.", flush=True)
            empty = 0
            while empty < 2 and n < 52:
                ok, frame = source.read()
                if not ok or frame is None:
                    raise CameraError(f"the camera stopped delivering frames after {n} of "
                                      "52 cards")
                empty = empty + 1 if not find_card_quads(frame) else 0
    finally:
        source.close()
    return images


def _crop(frame: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The card with a margin of felt around it, so that it fills most of the image."""
    height, width = frame.shape[:2]
    x0, y0 = quad.min(axis=0)
    x1, y1 = quad.max(axis=0)
    pad = 0.08 * max(x1 - x0, y1 - y0)
    left, top = max(0, int(x0 - pad)), max(0, int(y0 - pad))
    right, bottom = min(width, int(x1 + pad) + 1), min(height, int(y1 + pad) + 1)
    return frame[top:bottom, left:right].copy()
