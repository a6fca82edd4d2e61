"""JSON from the network, read defensively: every request body and websocket message.

The venue network is not trusted. A body is read up to a size limit (413 past it, without
reading the rest), must be UTF-8, is parsed with a bounded nesting depth, and may not carry a
lone surrogate (``"\\ud800"``: text no file, database or page can hold) or a control character
other than tab and line breaks in any string. Each refusal is an
:class:`engine.errors.InvalidInputError` (422) whose message says what was wrong; nothing of
such a request reaches the engine or the log.
"""

from __future__ import annotations

import json
import re
from typing import Any

from aiohttp import web

from engine.errors import InvalidInputError

__all__ = ["MAX_JSON_BYTES", "MAX_JSON_DEPTH", "decode_json", "read_body", "read_json"]

MAX_JSON_BYTES = 64 * 1024
"""The largest command body (a command is a few hundred bytes)."""
MAX_JSON_DEPTH = 16
"""The deepest nesting of objects and lists in a body (commands use two or three levels)."""
_FORBIDDEN = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def too_large(message: str) -> web.HTTPException:
    """413 with the standard JSON error body."""
    body = web.json_response({"error": {"code": "too_large", "message": message}}).text
    error = web.HTTPException(text=body, content_type="application/json")
    error.set_status(413)
    return error


async def read_body(request: web.Request, limit: int, what: str) -> bytes:
    """The request body, refused (413) past ``limit`` bytes without reading it all."""
    message = f"the {what} is larger than {limit / 1e6:.1f} MB" if limit >= 100_000 else \
        f"the {what} is larger than {limit // 1024} KiB"
    if request.content_length is not None and request.content_length > limit:
        raise too_large(message)
    data = bytearray()
    async for chunk in request.content.iter_chunked(64 * 1024):
        data.extend(chunk)
        if len(data) > limit:
            raise too_large(message)
    return bytes(data)


async def read_json(request: web.Request, *, limit: int = MAX_JSON_BYTES,
                    what: str = "command") -> Any:
    """The request's JSON body, checked (see the module docstring)."""
    return decode_json(await read_body(request, limit, what), what=what)


def decode_json(data: bytes | str, *, what: str = "command") -> Any:
    """Parse and check JSON text from the network.

    :raises InvalidInputError: not UTF-8, not JSON, nested deeper than
        :data:`MAX_JSON_DEPTH`, or a string with a lone surrogate or a control character.
    """
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidInputError(f"the {what} is not UTF-8 text") from None
    try:
        value = json.loads(data)
    except RecursionError:
        raise InvalidInputError(f"the {what} is nested too deeply (at most "
                                f"{MAX_JSON_DEPTH} levels)") from None
    except ValueError:
        raise InvalidInputError(f"the {what} is not valid JSON") from None
    _check(value, what)
    return value


def _check(value: Any, what: str) -> None:
    """Depth and strings, without recursion (a hostile body cannot exhaust the stack)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > MAX_JSON_DEPTH:
                raise InvalidInputError(f"the {what} is nested too deeply (at most "
                                        f"{MAX_JSON_DEPTH} levels)")
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
        elif isinstance(item, str) and _FORBIDDEN.search(item):
            raise InvalidInputError(f"the {what} holds a control character or a broken "
                                    "character (a lone surrogate) in a text")
