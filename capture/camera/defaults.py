"""The camera pipeline's defaults, in one place and without OpenCV: the configuration
(:mod:`overlay.devices.camera_config`) reads them without loading ``cv2``."""

from __future__ import annotations

THRESHOLD = 0.55
"""Recognition score below which a card's code is unknown (never a guess): 0.5 means the
index looks halfway between the best card and the runner-up (``docs/camera.md``)."""
CONFIRM_FRAMES = 3
"""K: frames in a row a card must be read the same before it is reported."""
DROP_FRAMES = 5
"""M: frames in a row without a card before it counts as removed."""
DECK = "default"
"""The deck the project draws itself."""
