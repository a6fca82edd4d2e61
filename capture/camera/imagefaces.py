"""A real deck's faces for synthetic scenes: the calibration images themselves.

``feltcast camera eval --images DIR`` reads a house deck the way the evaluation reads the
project's drawn styles: the deck is calibrated from the folder (one clear image per card, as
``feltcast camera calibrate --images`` takes it), and the same images, each card found and
rectified, are laid on the felt of seeded table scenes (perspective, light, blur, noise, chips,
thumbs: :mod:`capture.camera.synth`). A producer learns before the show how the camera does
with that deck.

A card image of another shape than poker size (2.5 x 3.5, e.g. a bridge card) is resampled to
it; the outline's rounded corners are the project's own deck's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import cv2
import numpy as np

from capture.camera.cardart import DEFAULT_STYLE, Mask, card_height, card_mask
from capture.camera.deck import CameraDeck, card_in_image
from capture.camera.geometry import Image, rectify
from engine.cards import FULL_DECK, Card

__all__ = ["ImageFaces"]

STUDY_WIDTH = 500
"""Width in pixels at which each card's face is kept (scenes draw cards narrower)."""


@dataclass(frozen=True, slots=True, eq=False)
class ImageFaces:
    """The 52 faces of a real deck, upright, and where its index is (from its calibration)."""

    name: str
    faces: Mapping[Card, Image]
    """Each card rectified, :data:`STUDY_WIDTH` wide."""
    box: tuple[float, float, float, float]
    """The index in card coordinates (the deck's :attr:`CameraDeck.box`)."""

    @classmethod
    def of(cls, images: Mapping[Card, Image], deck: CameraDeck) -> ImageFaces:
        """The faces of the images ``deck`` was calibrated from."""
        faces = {card: rectify(images[card], card_in_image(images[card]), STUDY_WIDTH)
                 for card in FULL_DECK}
        return cls(deck.name, faces, deck.box)

    def face(self, card: Card, width: int) -> Image:
        image = self.faces[card]
        return np.asarray(cv2.resize(image, (width, card_height(width)),
                                     interpolation=cv2.INTER_AREA), np.uint8)

    def outline(self, width: int) -> Mask:
        return card_mask(DEFAULT_STYLE, width=width)

    def index_at(self, width: int) -> tuple[int, int, int, int]:
        u0, v0, u1, v1 = self.box
        height = card_height(width)
        x0, y0 = int(u0 * width), int(v0 * height)
        return x0, y0, max(1, round(u1 * width) - x0), max(1, round(v1 * height) - y0)
