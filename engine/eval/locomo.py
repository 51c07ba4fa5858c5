"""Load LoCoMo-shaped files (locomo10.json) and turn their conversations into memory pages."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.locomo_format import (  # noqa: F401 - the evaluation's names for the format
    CATEGORY_NAMES,
    TURN_OFFSET_SECONDS,
    Conversation,
    Exchange,
    Question,
    Session,
    Turn,
    exchanges,
    normalise_dia_id,
    parse_conversation,
    parse_session_time,
    split_evidence,
    turn_text,
)


def load_locomo(path: str | Path, sample_ids: list[str] | None = None) -> list[Conversation]:
    """Every conversation of a LoCoMo-shaped file, optionally only the named samples."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if isinstance(data, dict):
        data = [data]
    conversations = [parse_conversation(sample) for sample in data]
    if sample_ids:
        wanted = set(sample_ids)
        missing = wanted - {c.sample_id for c in conversations}
        if missing:
            there = ", ".join(c.sample_id for c in conversations) or "none"
            raise ValueError(
                f"not in {path}: {', '.join(sorted(missing))} (the conversations there: {there})"
            )
        conversations = [c for c in conversations if c.sample_id in wanted]
    return conversations


@dataclass
class IngestStats:
    pages: int = 0
    turns: int = 0
    add_seconds: list[float] = field(default_factory=list)


def ingest(
    mem: Any, conversation: Conversation, on_page: Callable[[int], None] | None = None
) -> IngestStats:
    """Add every exchange as a page, one conversation id per session, timed per add_memory."""
    import time

    stats = IngestStats()
    conversation_ids: dict[int, str] = {}
    for exchange in exchanges(conversation):
        if exchange.session not in conversation_ids:
            conversation_ids[exchange.session] = mem.new_conversation()
        start = time.perf_counter()
        mem.add_memory(
            exchange.first.text,
            exchange.second.text if exchange.second else "",
            timestamp=exchange.first.timestamp,
            meta=exchange.meta(),
            conversation_id=conversation_ids[exchange.session],
        )
        stats.add_seconds.append(time.perf_counter() - start)
        stats.pages += 1
        stats.turns += len(exchange.turns)
        if on_page is not None:
            on_page(len(exchange.turns))
    return stats
