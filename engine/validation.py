"""Checks on what callers hand to the engine, before anything is written."""

from __future__ import annotations

import json
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


def meta(value: Any) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidInputError("meta must be a JSON object (a dict)")
    try:
        encoded = json.dumps(value, ensure_ascii=False)
        encoded.encode("utf-8")
    except (TypeError, ValueError, UnicodeEncodeError) as exc:
        raise InvalidInputError(f"meta must be JSON-serialisable text: {exc}") from None
    if len(encoded.encode("utf-8")) > MAX_META_BYTES:
        raise InvalidInputError(f"meta is too large (limit {MAX_META_BYTES // 1024} KiB)")
    return json.loads(encoded)
