"""What Memoryos reads back in the reference's shapes: its QA and knowledge dicts, its views."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from engine.records import SHORT_TERM, USER_FACT

if TYPE_CHECKING:
    from engine.compat import Memoryos


def reference_time(timestamp: float) -> str:
    """Epoch seconds as the reference writes them: local time, '2025-05-01 12:00:00'."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(timestamp))


class ReferenceReadsMixin:
    """Methods expect to run inside Memoryos (compat.py: self._memory, self._lock, self._sync)."""

    # ---- reference-shaped reads for the MCP compatibility tools ----------------------------

    def short_term_entries(self) -> list[dict]:
        """The short-term queue, oldest first, as the reference's QA dicts."""
        return [_qa(p) for p in self._memory.short_term()]

    def retrieve_context(self, query: str) -> dict[str, list[dict]]:
        """Retrieved pages, user knowledge and assistant knowledge, as the reference's Retriever."""
        with self._lock:
            self._sync()
            found = self._memory.retrieve(query)
        return {
            "retrieved_pages": [
                {**_qa(item.page), "meta_info": item.page.chain_summary or None}
                for item in found.pages
                if item.page.tier != SHORT_TERM
            ],
            "retrieved_user_knowledge": [_knowledge(item.fact) for item in found.facts],
            "retrieved_assistant_knowledge": [_knowledge(item.fact) for item in found.knowledge],
        }

    def user_knowledge(self) -> list[dict]:
        return [_knowledge(f) for f in self._memory.facts(kind=USER_FACT)]

    # ---- the reference's attributes that callers reach into (e.g. its MCP server) -----------

    @property
    def short_term_memory(self) -> _ShortTermView:
        return _ShortTermView(self)

    @property
    def retriever(self) -> _RetrieverView:
        return _RetrieverView(self)

    @property
    def user_long_term_memory(self) -> _LongTermView:
        return _LongTermView(self)

    @property
    def assistant_long_term_memory(self) -> _LongTermView:
        return _LongTermView(self)


class _ShortTermView:
    """Read-only stand-in for the reference's ShortTermMemory."""

    def __init__(self, owner: Memoryos) -> None:
        self._owner = owner

    def get_all(self) -> list[dict]:
        return self._owner.short_term_entries()

    def is_full(self) -> bool:
        return len(self.get_all()) >= self._owner.memory.settings.stm_capacity


class _RetrieverView:
    """Read-only stand-in for the reference's Retriever."""

    def __init__(self, owner: Memoryos) -> None:
        self._owner = owner

    def retrieve_context(self, user_query: str, user_id: str | None = None, **_: Any) -> dict:
        return self._owner.retrieve_context(user_query)


class _LongTermView:
    """Read-only stand-in for the reference's LongTermMemory (user's and assistant's)."""

    def __init__(self, owner: Memoryos) -> None:
        self._owner = owner

    def get_raw_user_profile(self, user_id: str | None = None) -> str:
        return self._owner.get_user_profile_summary()

    def get_user_knowledge(self) -> list[dict]:
        return self._owner.user_knowledge()

    def get_assistant_knowledge(self) -> list[dict]:
        return self._owner.get_assistant_knowledge_summary()


def _qa(page: Any) -> dict:
    return {
        "user_input": page.user_input,
        "agent_response": page.agent_response,
        "timestamp": reference_time(page.timestamp),
    }


def _knowledge(fact: Any) -> dict:
    return {"knowledge": fact.text, "timestamp": reference_time(fact.created)}
