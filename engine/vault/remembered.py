"""SQL for what each answer remembered (table page_memories): ids only, never a copy of text."""

from __future__ import annotations

from collections.abc import Iterable

from engine.records import SavedMemory
from engine.vault.sql import locked as _locked
from engine.vault.sql import placeholders as _placeholders


class RememberedMixin:
    """Which memories went into the prompt of each stored answer, in rank order."""

    @_locked
    def insert_page_memories(self, page_id: int, items: Iterable) -> None:
        """Must run inside the transaction that stores the page."""
        self.conn.executemany(
            "INSERT INTO page_memories(page_id, position, kind, item_id, tier, score, item_date) "
            "VALUES(?, ?, ?, ?, ?, ?, ?)",
            [
                (page_id, position, item.kind, item.id, item.tier, item.score, item.date)
                for position, item in enumerate(items)
            ],
        )

    @_locked
    def page_memory_rows(self, page_ids: list[int]) -> list[SavedMemory]:
        """What the answers' prompts held, in rank order per page."""
        if not page_ids:
            return []
        rows = self.conn.execute(
            "SELECT page_id, kind, item_id, tier, score, item_date FROM page_memories "
            f"WHERE page_id IN ({_placeholders(page_ids)}) ORDER BY page_id, position",
            list(page_ids),
        ).fetchall()
        return [SavedMemory(*row) for row in rows]

    @_locked
    def delete_page_memories(self, page_id: int) -> None:
        self.conn.execute("DELETE FROM page_memories WHERE page_id=?", (page_id,))
