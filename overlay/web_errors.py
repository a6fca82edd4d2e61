"""The one place where errors become HTTP and websocket answers.

Views raise domain errors (``engine.errors``) or the HTTP exceptions below; the middleware turns
every one of them into JSON ``{"error": {"code": ..., "message": ...}}`` with a fitting status.
Websocket handlers use :func:`error_payload` for the same shape in an ``{"type": "error"}``
message.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from aiohttp import web

from engine.errors import FeltcastError, InvalidInputError

LOGGER = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

# Domain error codes answered with a status other than 422.
_STATUS_BY_CODE = {"illegal_action": 409, "not_found": 404, "conflict": 409,
                   "stale_command": 409}


def _json_ready(value: object) -> Any:
    """An error's detail as JSON: a value with ``to_json()`` (a ruling) as its data, tuples as
    lists, anything else unknown as its text."""
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        return _json_ready(to_json())
    if isinstance(value, list | tuple):
        return [_json_ready(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _json_ready(item) for key, item in value.items()}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def error_payload(error: BaseException) -> dict[str, Any]:
    """``{"code": ..., "message": ...}`` for any error; internal errors say nothing internal.

    A domain error's ``rule``, ``legal`` (a list of the legal actions with their amounts),
    ``ruling`` (``{"text", "command"}``) and ``key`` are added when they say something."""
    if isinstance(error, FeltcastError):
        payload: dict[str, Any] = {"code": error.code, "message": str(error)}
        for attribute in ("rule", "legal", "ruling", "key"):
            value = getattr(error, attribute, None)
            if value is not None and value != "" and value != ():
                payload[attribute] = _json_ready(value)
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


def error_of(exception: web.HTTPException) -> dict[str, str]:
    """The standard JSON error (``{"code", "message"}``) an HTTP exception carries, or one
    made of its status for one that carries none."""
    try:
        error = json.loads(exception.text or "")["error"]
    except (ValueError, KeyError, TypeError):
        return {"code": str(exception.status), "message": exception.reason}
    return error if isinstance(error, dict) else {"code": str(exception.status),
                                                    "message": exception.reason}


def too_many_requests(retry_after: float) -> web.HTTPException:
    """429: this peer presented too many wrong tokens; ``Retry-After`` says when to retry."""
    seconds = max(1, round(retry_after))
    return web.HTTPTooManyRequests(
        text=web.json_response({"error": {
            "code": "too_many_requests",
            "message": f"too many wrong tokens from this address: try again in {seconds} s"}}
        ).text, content_type="application/json", headers={"Retry-After": str(seconds)})


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


class _GarbageHttp(logging.Filter):
    """aiohttp logs a request it cannot parse (a port scan, TLS sent to the plain-HTTP port, a
    broken client) as an ERROR with a traceback, once per request. The venue network sends
    such things all day: this says it at INFO, in one line, once per peer address."""

    def __init__(self) -> None:
        super().__init__("feltcast-garbage-http")
        self._peers: dict[str, None] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        from aiohttp.http_exceptions import HttpProcessingError

        error = record.exc_info[1] if record.exc_info else None
        if not isinstance(error, HttpProcessingError):
            return True
        peer = str(record.args[0]) if isinstance(record.args, tuple) and record.args else "?"
        if peer in self._peers:
            return False
        self._peers[peer] = None
        if len(self._peers) > 1024:
            self._peers.pop(next(iter(self._peers)))
        reason = (error.message or type(error).__name__).strip().splitlines()[0]
        record.levelno, record.levelname = logging.INFO, "INFO"
        record.msg, record.args = ("a request from %s that is not HTTP the service speaks "
                                   "(%s); further ones from there are not logged"), (peer,
                                                                                    reason)
        record.exc_info = record.exc_text = None
        return True


async def quiet_garbage_http(app: web.Application) -> AsyncIterator[None]:
    """A cleanup context: the filter on aiohttp's server logger while the app runs (each app
    remembers its own peers)."""
    logger, garbage = logging.getLogger("aiohttp.server"), _GarbageHttp()
    logger.addFilter(garbage)
    yield
    logger.removeFilter(garbage)
