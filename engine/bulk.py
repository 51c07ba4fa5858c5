"""Adding many exchanges at once: add_memory's path, embedded and written a batch at a time."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine import errors, validation
from engine.consolidation import PAGE_ADDED
from engine.memory import when
from engine.records import SHORT_TERM, Page

BATCH = 256  # exchanges per embedding call and per transaction


@dataclass(frozen=True)
class _Draft:
    page: Page
    indexed: str  # the text for keyword search (relative dates resolved)
    sides: dict[int, str]  # turn texts by side, empty sides left out


def _draft(item: Any, conversation: str, source: str | None, now: float, index: int) -> _Draft:
    """Validate one exchange as add_memory does; the error names which one was wrong."""
    if isinstance(item, Mapping):
        unknown = set(item) - {"user_input", "agent_response", "timestamp", "meta"}
        if unknown:
            raise errors.InvalidInputError(f"exchange {index}: unknown keys {sorted(unknown)}")
        user, agent = item.get("user_input", ""), item.get("agent_response", "")
        stamp, meta = item.get("timestamp"), item.get("meta")
    elif isinstance(item, (tuple, list)) and len(item) in (2, 3):
        user, agent, stamp, meta = item[0], item[1], item[2] if len(item) == 3 else None, None
    else:
        raise errors.InvalidInputError(
            f"exchange {index}: give (user_input, agent_response[, timestamp]) or a mapping"
        )
    try:
        user = validation.text(user, "user_input")
        agent = validation.text(agent, "agent_response")
        if not user.strip() and not agent.strip():
            raise errors.InvalidInputError("an exchange needs some text: both sides are empty")
        ts = validation.timestamp(stamp, now)
        meta = validation.meta(meta)
    except errors.InvalidInputError as exc:
        raise errors.InvalidInputError(f"exchange {index}: {exc}") from None
    if source is not None:
        meta["source"] = source
    page = Page(
        id=0,
        user_input=user,
        agent_response=agent,
        timestamp=ts,
        conversation_id=conversation,
        tier=SHORT_TERM,
        meta=meta,
    )
    sides = {side: text for side, text in ((0, user), (1, agent)) if text.strip()}
    return _Draft(page, when.resolve_relative(page.text(), ts), sides)


def add_memories(
    memory,
    exchanges: Iterable[Any],
    *,
    conversation_id: str | None = None,
    source: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[int]:
    """Store many exchanges as pages, in order; returns their page ids.

    Each page is stored exactly as `add_memory` stores it (text, resolved dates, page and turn
    vectors, a consolidation job), but the embedder sees a batch at a time and each batch is
    one transaction. Every exchange is validated before anything is written: bad input is
    refused whole. `progress(done, total)` is called after each batch."""
    now = time.time()
    if source is not None and (
        not isinstance(source, str) or not validation.SOURCE_PATTERN.match(source)
    ):
        raise errors.InvalidInputError("source must be a short lower-case name")
    conversation = validation.text(conversation_id, "conversation_id") or memory.conversation_id
    drafts = [
        _draft(item, conversation, source, now, index) for index, item in enumerate(exchanges)
    ]
    vault, ids = memory.vault, []
    title = _title(drafts[0].page) if drafts else ""
    for start in range(0, len(drafts), BATCH):
        chunk = drafts[start : start + BATCH]
        texts = [t for d in chunk for t in (d.page.text(), *d.sides.values())]
        vectors = np.asarray(memory.embedder.embed(texts), dtype=np.float32)
        rows, turns, at = [], [], 0
        with vault.transaction():
            vault.ensure_conversation(conversation, now, title=title)
            for draft in chunk:
                page = draft.page
                vector, at = vectors[at], at + 1
                sides = {}
                for side in draft.sides:
                    sides[side], at = vectors[at], at + 1
                page_id = vault.insert_page(
                    conversation_id=page.conversation_id,
                    user_input=page.user_input,
                    agent_response=page.agent_response,
                    ts=page.timestamp,
                    meta=page.meta,
                    body=draft.indexed,
                    vector=vector,
                    now=now,
                    turn_vectors=sides,
                )
                vault.enqueue(PAGE_ADDED, {"page_id": page_id}, now)
                ids.append(page_id)
                rows.append((page_id, vector))
                turns += [(page_id * 2 + side, turn) for side, turn in sides.items()]
        memory.page_mirror.add_many(rows)
        memory.turn_mirror.add_many(turns)
        if progress is not None:
            progress(start + len(chunk), len(drafts))
    if ids:
        memory.consolidator.wake()
        memory._notify("pages")
    return ids


def _title(page: Page) -> str:
    """The conversation's title, as add_memory makes it from the first exchange."""
    line = " ".join((page.user_input or page.agent_response).split())
    return line if len(line) <= 60 else line[:59] + "…"
