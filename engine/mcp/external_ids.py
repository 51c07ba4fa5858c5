"""The page an agent already stored under an external id, so a retried add_memory is not stored
twice."""

from __future__ import annotations

from typing import Any

from engine.records import Page, external_ids_of


def given_id(metadata: dict[str, Any] | None) -> str | None:
    """The caller's id for the exchange it adds: metadata["external_id"], as text."""
    value = (metadata or {}).get("external_id")
    return None if value is None or value == "" else str(value)


class ExternalIds:
    """External id -> the pages holding it, in one vault. Read from the vault on the first
    lookup, then only from the pages added since (by any process: page ids only grow), so a
    lookup does not scan a large vault each time. Pages forgotten since are checked for at
    lookup. Not thread-safe: the MCP tools call it under their lock."""

    def __init__(self, memory: Any) -> None:
        self.memory = memory
        self.seen = 0  # the newest page id read so far
        self.pages: dict[str, list[int]] = {}

    def find(self, external_id: str) -> Page | None:
        """The oldest page still stored that holds `external_id`, or None."""
        last, rows = self.memory.vault.external_id_pages(self.seen)
        for page_id, meta in rows:
            for value in external_ids_of(meta):
                self.pages.setdefault(value, []).append(page_id)
        self.seen = max(self.seen, last)
        ids = self.pages.get(external_id, [])
        while ids:
            found = self.memory.vault.pages([ids[0]])
            if found:
                return found[0]
            ids.pop(0)  # forgotten since it was read
        return None
