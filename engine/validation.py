"""Checks on what callers hand to the engine, before anything is written."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from engine.errors import InvalidInputError
from engine.records import SHORT_TERM, Page
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
# of the MCP server must not pass a page off as typed in the app, or as a stopped answer, or
# as one cut at the length limit).
RESERVED_META = ("source", "stopped", "cut_short")
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


def exchange(
    user_input: Any,
    agent_response: Any,
    when: Any,
    meta_value: Any,
    *,
    conversation_id: str,
    source: Any,
    program_meta: dict | None,
    now: float,
) -> Page:
    """An exchange to store, checked: a draft page (id 0) at the back of the short-term queue.

    `meta_value` is the caller's and may not set reserved keys; `source` ("mcp", "import",
    ...) is stored as meta["source"]; `program_meta` is the engine's own (e.g. "stopped")."""
    user_input = text(user_input, "user_input")
    agent_response = text(agent_response, "agent_response")
    if not user_input.strip() and not agent_response.strip():
        raise InvalidInputError("an exchange needs some text: both sides are empty")
    checked = meta(meta_value)
    if source is not None:
        if not isinstance(source, str) or not SOURCE_PATTERN.match(source):
            raise InvalidInputError("source must be a short lower-case name")
        checked["source"] = source
    checked.update(program_meta or {})
    return Page(
        id=0,
        user_input=user_input,
        agent_response=agent_response,
        timestamp=timestamp(when, now),
        conversation_id=conversation_id,
        tier=SHORT_TERM,
        meta=checked,
    )


EXCHANGE_KEYS = frozenset({"user_input", "agent_response", "timestamp", "meta"})


def exchanges(items: Iterable[Any], *, conversation_id: str, source: Any, now: float) -> list[Page]:
    """Many exchanges to store, each checked as `exchange` checks one: (user_input,
    agent_response[, timestamp]) tuples, or mappings with EXCHANGE_KEYS. The error names which
    one was wrong, before anything is stored."""
    drafts = []
    for index, item in enumerate(items):
        if isinstance(item, Mapping):
            unknown = set(item) - EXCHANGE_KEYS
            if unknown:
                raise InvalidInputError(f"exchange {index}: unknown keys {sorted(unknown)}")
            fields = (
                item.get("user_input", ""),
                item.get("agent_response", ""),
                item.get("timestamp"),
                item.get("meta"),
            )
        elif isinstance(item, (tuple, list)) and len(item) in (2, 3):
            fields = (item[0], item[1], item[2] if len(item) == 3 else None, None)
        else:
            raise InvalidInputError(
                f"exchange {index}: give (user_input, agent_response[, timestamp]) or a mapping"
            )
        user_input, agent_response, when, meta_value = fields
        try:
            drafts.append(
                exchange(
                    user_input,
                    agent_response,
                    when,
                    meta_value,
                    conversation_id=conversation_id,
                    source=source,
                    program_meta=None,
                    now=now,
                )
            )
        except InvalidInputError as exc:
            raise InvalidInputError(f"exchange {index}: {exc}") from None
    return drafts
