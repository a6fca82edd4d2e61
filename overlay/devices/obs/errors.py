"""OBS Studio's errors: what obs-websocket refused or lacks, and a delay that would put hole
cards on air.

They belong to the one hierarchy (:class:`engine.errors.FeltcastError`), so the service maps
them to HTTP errors in one place (``overlay/web_errors.py``); they live here because the
engine knows no OBS.
"""

from __future__ import annotations

from engine.errors import FeltcastError

__all__ = ["DelayViolationError", "ObsError", "ObsFeatureMissingError", "ObsRequestError",
           "ObsUnavailableError"]


class ObsError(FeltcastError, RuntimeError):
    """OBS could not do what Feltcast asked (the message says what, and what to do)."""

    code = "obs_error"


class ObsUnavailableError(ObsError):
    """OBS is not connected (not running, wrong port or password, not answering in time)."""

    code = "obs_unavailable"


class ObsRequestError(ObsError):
    """OBS refused one obs-websocket request; ``status`` is its RequestStatus code (e.g. 600,
    not found) and ``comment`` its explanation."""

    code = "obs_request_failed"

    def __init__(self, message: str, *, request_type: str = "", status: int = 0,
                 comment: str = "") -> None:
        super().__init__(message)
        self.request_type = request_type
        self.status = status
        self.comment = comment


class ObsFeatureMissingError(ObsError):
    """This OBS lacks something Feltcast needs (e.g. the Browser source); nothing was changed."""

    code = "obs_feature_missing"


class DelayViolationError(FeltcastError, RuntimeError):
    """Hole cards would reach a live output: e.g. an OBS browser source reads the live
    ``secure`` channel while OBS's stream delay is off or shorter than the security delay."""

    code = "delay_violation"
