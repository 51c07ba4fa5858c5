"""Reading conversation transcripts (JSON) into exchanges for `memoryos import`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import InvalidInputError


@dataclass
class Exchange:
    user_input: str
    agent_response: str
    timestamp: Any = None
    meta: dict = field(default_factory=dict)
    conversation: str | None = None


def read(path: str | Path) -> list[Exchange]:
    """Exchanges from a transcript file; a clear error for anything we cannot read."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc.strerror}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InvalidInputError(f"{path} is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise InvalidInputError(
            f"{path} is not valid JSON (line {exc.lineno}: {exc.msg})"
        ) from None
    return list(parse(data))


def parse(data: Any) -> Iterator[Exchange]:
    if isinstance(data, dict) and "conversation" in data:
        data = [data]
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        data = data["messages"]
    if not isinstance(data, list) or not data:
        raise InvalidInputError("expected a JSON list of exchanges or messages")
    first = data[0]
    if not isinstance(first, dict):
        raise InvalidInputError("each item must be a JSON object")
    if "conversation" in first:
        yield from _locomo(data)
    elif "role" in first:
        yield from _messages(data)
    else:
        yield from _pairs(data)


def _pairs(items: list) -> Iterator[Exchange]:
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise InvalidInputError(f"item {index} is not a JSON object")
        user = item.get("user", item.get("user_input", ""))
        agent = item.get("assistant", item.get("agent_response", ""))
        if not isinstance(user, str) or not isinstance(agent, str):
            raise InvalidInputError(f"item {index}: 'user' and 'assistant' must be text")
        meta = item.get("meta") or {}
        yield Exchange(
            user,
            agent,
            item.get("timestamp"),
            meta if isinstance(meta, dict) else {},
            item.get("conversation"),
        )


def _messages(items: list) -> Iterator[Exchange]:
    pending: dict | None = None
    for index, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("content", ""), str):
            raise InvalidInputError(f"message {index} needs a text 'content'")
        role = item.get("role")
        if role == "user":
            if pending is not None:
                yield Exchange(pending["content"], "", pending.get("timestamp"))
            pending = item
        elif role == "assistant":
            if pending is None:
                yield Exchange("", item["content"], item.get("timestamp"))
            else:
                yield Exchange(pending["content"], item["content"], pending.get("timestamp"))
                pending = None
    if pending is not None:
        yield Exchange(pending["content"], "", pending.get("timestamp"))


def _locomo(samples: list) -> Iterator[Exchange]:
    from engine.eval.locomo import exchanges, parse_conversation

    for sample in samples:
        conversation = parse_conversation(sample)
        for exchange in exchanges(conversation):
            yield Exchange(
                exchange.first.text,
                exchange.second.text if exchange.second else "",
                exchange.first.timestamp,
                exchange.meta(),
                f"{conversation.sample_id}-session-{exchange.session}",
            )
