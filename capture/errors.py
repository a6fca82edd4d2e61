"""The capture devices' errors: RFID readers and their decks, cameras and theirs.

They belong to the one hierarchy (:class:`engine.errors.FeltcastError`), so the service maps
them to HTTP and websocket errors in one place (``overlay/web_errors.py``); they live here
because the engine knows no devices.
"""

from __future__ import annotations

from engine.errors import FeltcastError, InvalidInputError

__all__ = ["CameraDeckError", "CameraError", "DeckRegistrationError", "ReaderProtocolError"]


class ReaderProtocolError(InvalidInputError):
    """A line from an RFID reader that is not valid Feltcast reader protocol.

    The message names the problem; ``line`` holds the offending text (shortened).
    """

    code = "reader_protocol"

    def __init__(self, message: str, line: str = "") -> None:
        super().__init__(message)
        self.line = line


class DeckRegistrationError(InvalidInputError):
    """A deck cannot be registered, verified, activated or used as asked."""

    code = "deck_registration"


class CameraDeckError(InvalidInputError):
    """A camera deck cannot be calibrated, read, found or stored as asked (the message says
    which card or file)."""

    code = "camera_deck"


class CameraError(FeltcastError, RuntimeError):
    """A camera source cannot be opened or stopped delivering frames; the message names the
    camera and its source."""

    code = "camera_error"
