"""Tool results small enough for any client: long texts shortened until the message fits.

A client reads each result as one message, and the official SDK refuses a Server-sent event
over 1 MiB (httpx2's limit), which breaks every later call that would return the same page.
A result is sent twice (structured content, and the same JSON as text), so its size is
measured here as sent, and texts are cut to fewer characters until it stays under BUDGET.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

# Half of the SDK client's 1 MiB event limit: room for the JSON-RPC envelope and escaping.
BUDGET = 512 * 1024
# Characters kept of each long text in a result, tried in turn until the result fits.
TEXT_LIMITS = (4000, 2000, 1000, 500, 200, 100)
PREVIEW_CHARS = 300  # memories_used: a preview; the full text is elsewhere in the same result


class TooLarge(Exception):
    """Even with every text cut to its shortest, the result would not fit."""


def compact(result: Any) -> str:
    """The JSON text sent as a result's text content: no indentation, no escaped letters."""
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"))


def sent_size(result: Any) -> int:
    """Bytes a result takes on the wire: its JSON as structured content, plus the same JSON
    as a string (quotes and backslashes escaped again) in the text content."""
    text = compact(result)
    return len(text.encode("utf-8")) + len(json.dumps(text, ensure_ascii=False).encode("utf-8"))


def fit(build: Callable[[int], dict[str, Any]], limits: tuple[int, ...] = TEXT_LIMITS) -> dict:
    """build(limit) for the largest limit whose result fits the budget."""
    for limit in limits:
        result = build(limit)
        if sent_size(result) <= BUDGET:
            return result
    raise TooLarge


def cut(out: dict[str, Any], fields: tuple[str, ...], limit: int | None, offset: int = 0) -> dict:
    """`out` with each text field sliced to [offset, offset + limit); a field not returned whole
    gets its full length in characters under "shortened" (absent when all are whole)."""
    if limit is None and not offset:
        return out
    shortened = dict(out.get("shortened") or {})
    for name in fields:
        text = out[name]
        part = text[offset:] if limit is None else text[offset : offset + limit]
        if len(part) != len(text):
            shortened[name] = len(text)
        out[name] = part
    if shortened:
        out["shortened"] = shortened
    return out
