"""Checks on what callers hand to the engine, before anything is written."""

from __future__ import annotations

import json
import math
import re
from datetime import datetime, timezone
from typing import Any

from engine.errors import InvalidInputError

MAX_TEXT_CHARS = 4_000_000  # a 1 MB message is stored faithfully; 4M characters is the cap
MAX_META_BYTES = 64 * 1024
EARLIEST = datetime(1900, 1, 1, tzinfo=timezone.utc).timestamp()
LATEST = datetime(2200, 1, 1, tzinfo=timezone.utc).timestamp()


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
    """Epoch seconds from a number, a datetime or an ISO 8601 string."""
    if value is None:
        return default
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        seconds = moment.timestamp()
    elif isinstance(value, bool):
        raise InvalidInputError("timestamp must be a number, a datetime or an ISO date")
    elif isinstance(value, (int, float)):
        seconds = float(value)
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise InvalidInputError(f"timestamp {value[:40]!r} is not an ISO 8601 date") from None
        seconds = (moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)).timestamp()
    else:
        raise InvalidInputError("timestamp must be a number, a datetime or an ISO date")
    if not math.isfinite(seconds) or not EARLIEST <= seconds < LATEST:
        raise InvalidInputError("timestamp must be between the years 1900 and 2200")
    return seconds


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
