"""The chat model as background consolidation may use it: only a capable one (or one the
settings force), never a remote one unless allowed, always after the answer being written."""

from __future__ import annotations

import json
from collections.abc import Callable

from engine.backends.base import ChatBackend
from engine.memory.context import MemoryContext


class ConsolidationModel:
    """One structured call at a time; a failing model degrades to the non-LLM path."""

    def __init__(self, ctx: MemoryContext, report: Callable[[str], None]) -> None:
        self.ctx = ctx
        self.report = report  # where a failed call is told (Consolidator.last_error)
        self.stats = None  # engine.backends.structured.StructuredStats, once a call ran

    def available(self) -> ChatBackend | None:
        """The chat model, if consolidation may use it (capable, or forced by the settings)."""
        chat = self.ctx.chat
        mode = self.ctx.settings.llm_consolidation
        if chat is None or mode == "never":
            return None
        if mode == "auto" and not chat.extraction_capable:
            return None
        if getattr(chat, "remote", False) and not self.ctx.remote_consolidation_allowed():
            return None  # memories leave the machine in the background only if allowed
        return chat

    def structured(self, messages: list[dict], schema: dict) -> dict | None:
        """The model's JSON answer following `schema`, or None (no model, or it failed)."""
        chat = self.available()
        if chat is None:
            return None
        try:
            from engine.backends.structured import StructuredStats, structured_call
        except ImportError:
            return None
        if self.stats is None:
            self.stats = StructuredStats()
        self.ctx.foreground.wait(120.0)
        calls = chat.usage.structured_calls
        result = None
        try:
            result = structured_call(chat, messages, schema, stats=self.stats)
            return result
        except Exception as exc:
            self.report(f"structured call failed: {type(exc).__name__}: {exc}")
            return None
        finally:
            tries = max(1, chat.usage.structured_calls - calls)  # a retry sends it again
            self.ctx.transfers.record(
                chat, "consolidation", messages * tries, len(json.dumps(result)) if result else 0
            )
