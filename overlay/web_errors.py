"""The one place where errors become HTTP and websocket answers.

Views raise domain errors (``engine.errors``) or the HTTP exceptions below; the middleware turns
every one of them into JSON ``{"error": {"code": ..., "message": ...}}`` with a fitting status.
Websocket handlers use :func:`error_payload` for the same shape in an ``{"type": "error"}``
message.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from engine.errors import FeltcastError, InvalidInputError

LOGGER = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

# Domain error codes answered with a status other than 422.
_STATUS_BY_CODE = {"illegal_action": 409, "not_found": 404, "conflict": 409}


def error_payload(error: BaseException) -> dict[str, Any]:
    """``{"code": ..., "message": ...}`` for any error; internal errors say nothing internal."""
    if isinstance(error, FeltcastError):
        payload: dict[str, Any] = {"code": error.code, "message": str(error)}
        for attribute in ("rule", "legal", "ruling", "key"):
            value = getattr(error, attribute, None)
            if value is not None:
                payload[attribute] = value if isinstance(value, (str, int, float, list, dict)) \
                    else str(value)
        return payload
    if isinstance(error, web.HTTPException):
        return {"code": error.reason.lower().replace(" ", "_"), "message": error.text or
                error.reason}
    return {"code": "internal_error", "message": "internal error (see the server log)"}


def status_for(error: BaseException) -> int:
    if isinstance(error, web.HTTPException):
        return error.status
    if isinstance(error, FeltcastError):
        if error.code in _STATUS_BY_CODE:
            return _STATUS_BY_CODE[error.code]
        return 422 if isinstance(error, InvalidInputError) else 503
    return 500


def json_error(status: int, code: str, message: str) -> web.HTTPException:
    """An HTTP exception whose body is the standard JSON error."""
    exception_class = web.HTTPException
    for candidate in (web.HTTPBadRequest, web.HTTPUnauthorized, web.HTTPForbidden,
                      web.HTTPNotFound, web.HTTPConflict, web.HTTPUnprocessableEntity,
                      web.HTTPServiceUnavailable):
        if candidate.status_code == status:
            exception_class = candidate
            break
    return exception_class(
        text=web.json_response({"error": {"code": code, "message": message}}).text,
        content_type="application/json",
    )


@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except web.HTTPException as error:
        if error.content_type == "application/json" or error.status < 400:
            raise
        if not request.path.startswith("/api/"):
            raise
        return web.json_response({"error": error_payload(error)}, status=error.status)
    except FeltcastError as error:
        return web.json_response({"error": error_payload(error)}, status=status_for(error))
    except Exception as error:
        LOGGER.exception("unhandled error in %s %s", request.method, request.path)
        return web.json_response({"error": error_payload(error)}, status=500)
