"""Past conversations for the sidebar: full-text search with highlights, rename, and a preview
of what forgetting one also removes."""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine import errors, validation
from engine.memory import keywords, when
from engine.records import Fact, ProfileSlot, SearchHit
from engine.vault.search import MARK_END, MARK_START

__all__ = [
    "MARK_END",
    "MARK_START",
    "ForgetPreview",
    "SearchHit",
    "preview_forget",
    "rename",
    "search",
]


def _match(text: str) -> str:
    """Every word must occur; the last one may be unfinished (search as you type)."""
    words = [w.replace('"', "") for w in keywords.tokens(text)]
    words = [w for w in words if w]
    if not words:
        return ""
    terms = [f'"{w}"' for w in words[:-1]] + [f'"{words[-1]}"*']
    return " AND ".join(terms)


def search(memory, text: str, limit: int = 50) -> list[SearchHit]:
    """Exchanges of past conversations that contain all of `text`'s words, best first."""
    text = validation.text(text, "search")
    hits = memory.vault.search_pages(_match(text), limit)
    # The index holds relative dates resolved ("yesterday [7 May 2023]"); the person typed
    # "yesterday", and that is what the snippet shows.
    return [replace(hit, snippet=when.without_resolved(hit.snippet)) for hit in hits]


def rename(memory, conversation_id: str, title: str) -> str:
    """Give a conversation a new title (one line, not empty). Returns the title stored."""
    title = " ".join(validation.text(title, "title").split())
    if not title:
        raise errors.InvalidInputError("the title is empty")
    with memory.vault.transaction():
        renamed = memory.vault.set_conversation_title(conversation_id, title)
    if not renamed:
        raise errors.NotFoundError(f"no conversation {conversation_id!r}")
    memory._notify("pages")
    return title


@dataclass(frozen=True)
class ForgetPreview:
    """What `forget_conversation` removes: its exchanges, and what was learned only from them."""

    conversation_id: str
    pages: int
    facts: tuple[Fact, ...]
    slots: tuple[ProfileSlot, ...]


def preview_forget(memory, conversation_id: str) -> ForgetPreview:
    page_ids = memory.vault.page_ids_of_conversation(conversation_id)
    if not page_ids:
        raise errors.NotFoundError(f"no conversation {conversation_id!r}")
    cascade = memory.preview_forget_pages(page_ids)  # exactly what forgetting will remove
    fact_ids, slot_ids = cascade.facts, cascade.slots
    facts = tuple(memory.vault.facts(None, True, ids=fact_ids)) if fact_ids else ()
    slots = tuple(s for s in memory.profile(include_superseded=True) if s.id in set(slot_ids))
    return ForgetPreview(conversation_id, len(page_ids), facts, slots)
