"""Checks on what callers hand to the engine, before anything is written."""

from __future__ import annotations

import json
import re
from typing import Any

from engine.errors import InvalidInputError
from engine.timestamps import parse_timestamp

MAX_TEXT_CHARS = 4_000_000  # a 1 MB message is stored faithfully; 4M characters is the cap
MAX_META_BYTES = 64 * 1024


def text(value: Any, name: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidInputError(f"{name} must be text, not {type(value).__name__}")
    if len(value) > MAX_TEXT_CHARS:
        raise InvalidInputError(
            f"{name} is too long ({len(value):,} characters; the limit is {MAX_TEXT_CHARS:,})"
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInputError(
            f"{name} contains invalid Unicode (a lone surrogate): it cannot be stored"
        ) from None
    return value


def timestamp(value: Any, default: float) -> float:
    """Epoch seconds from a number, a datetime or a date text (see engine.timestamps)."""
    return parse_timestamp(value, default)


# Page metadata the program itself writes: a caller's metadata may not set them (a client
# of the MCP server must not pass a page off as typed in the app, or as a stopped answer).
RESERVED_META = ("source", "stopped")
SOURCE_PATTERN = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")


def meta(value: Any, *, reserved_ok: bool = False) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidInputError("meta must be a JSON object (a dict)")
    if not reserved_ok:
        for key in RESERVED_META:
            if key in value:
                raise InvalidInputError(
                    f"metadata key {key!r} is reserved: MemoryOS sets it itself"
                )
    try:
        encoded = json.dumps(value, ensure_ascii=False)
        encoded.encode("utf-8")
    except (TypeError, ValueError, UnicodeEncodeError) as exc:
        raise InvalidInputError(f"meta must be JSON-serialisable text: {exc}") from None
    if len(encoded.encode("utf-8")) > MAX_META_BYTES:
        raise InvalidInputError(f"meta is too large (limit {MAX_META_BYTES // 1024} KiB)")
    return json.loads(encoded)
