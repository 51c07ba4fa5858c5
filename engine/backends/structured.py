"""One schema-constrained model call: parse, validate, retry once, else None (use the fallback)."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.backends.base import ChatBackend, Message

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)(?:```|$)", re.S)
_MAX_ECHO = 600  # characters of a bad answer shown back to the model in the retry

# validate(obj) -> None/True when acceptable, False or a reason string when not; it may also
# raise ValueError / TypeError with the reason.
Validator = Callable[[dict], Any]


@dataclass
class StructuredStats:
    """How structured calls ended: valid at once, valid after the retry, or fallback used."""

    first_try_ok: int = 0
    retry_ok: int = 0
    fallback: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def total(self) -> int:
        return self.first_try_ok + self.retry_ok + self.fallback

    def add(self, outcome: str) -> None:
        with self._lock:
            setattr(self, outcome, getattr(self, outcome) + 1)

    def to_dict(self) -> dict[str, int]:
        return {
            "first_try_ok": self.first_try_ok,
            "retry_ok": self.retry_ok,
            "fallback": self.fallback,
            "total": self.total,
        }


def structured_call(
    chat: ChatBackend,
    messages: list[Message],
    schema: dict,
    *,
    validate: Validator | None = None,
    stats: StructuredStats | None = None,
    max_tokens: int = 512,
) -> dict | None:
    """Ask `chat` for a JSON object matching `schema`; the object, or None after one retry.

    None means "use your non-LLM fallback": the caller never sees (nor stores) the model's
    raw text. Backend errors (server down, cancelled) propagate so a job can be retried later.
    """
    text = chat.complete_json(messages, schema, max_tokens=max_tokens)
    value, problem = check_output(text, schema, validate)
    if value is not None:
        _count(stats, "first_try_ok")
        return value
    retry = list(messages) + [
        {"role": "assistant", "content": text.strip()[:_MAX_ECHO]},
        {
            "role": "user",
            "content": f"That answer was not usable ({problem}). Reply again with only one "
            "JSON object that matches the schema, no other text.",
        },
    ]
    text = chat.complete_json(retry, schema, max_tokens=max_tokens)
    value, problem = check_output(text, schema, validate)
    if value is not None:
        _count(stats, "retry_ok")
        return value
    _count(stats, "fallback")
    return None


def check_output(
    text: str, schema: dict, validate: Validator | None = None
) -> tuple[dict | None, str]:
    """(object, "") when `text` holds a JSON object valid for `schema`, else (None, reason)."""
    value = parse_json_object(text)
    if value is None:
        return None, "no complete JSON object" if (text or "").strip() else "empty answer"
    problem = schema_problem(value, schema)
    if problem:
        return None, problem
    if validate is not None:
        try:
            verdict = validate(value)
        except (ValueError, TypeError, KeyError) as exc:
            return None, str(exc) or "rejected by the validator"
        if verdict is False:
            return None, "rejected by the validator"
        if isinstance(verdict, str) and verdict:
            return None, verdict
    return value, ""


def parse_json_object(text: str | None) -> dict | None:
    """The JSON object in `text`: whole, inside code fences, or the first {...} in the noise."""
    if not text or not text.strip():
        return None
    candidates = [text.strip()]
    candidates += [match.group(1).strip() for match in _FENCE.finditer(text)]
    for candidate in candidates:
        try:
            value = json.loads(candidate, strict=False)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    decoder = json.JSONDecoder(strict=False)
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def schema_problem(value: Any, schema: dict) -> str:
    """The first schema violation as a short sentence, "" when `value` is valid."""
    import jsonschema

    validator_class = jsonschema.validators.validator_for(schema)
    error = jsonschema.exceptions.best_match(validator_class(schema).iter_errors(value))
    if error is None:
        return ""
    where = "/".join(str(part) for part in error.absolute_path)
    return f"{where or 'top level'}: {error.message}"[:300]


def _count(stats: StructuredStats | None, outcome: str) -> None:
    if stats is not None:
        stats.add(outcome)
