"""SQL for the conversations list: full-text search with highlights, titles, forget previews."""

from __future__ import annotations

from engine.records import SearchHit
from engine.vault.sql import locked as _locked

MARK_START, MARK_END = "\x02", "\x03"  # around each matching word in a snippet


class SearchMixin:
    """Reads for the sidebar; the only write is a conversation's title."""

    @_locked
    def search_pages(self, match: str, limit: int) -> list[SearchHit]:
        """Exchanges matching an FTS5 query, best first; in each snippet matches are wrapped
        in MARK_START/MARK_END."""
        if not match:
            return []
        rows = self.conn.execute(
            "SELECT p.id, p.conversation_id, coalesce(c.title, ''), p.ts, "
            f"snippet(pages_fts, 0, '{MARK_START}', '{MARK_END}', '…', 14) "
            "FROM pages_fts JOIN pages p ON p.id = pages_fts.rowid "
            "LEFT JOIN conversations c ON c.id = p.conversation_id "
            "WHERE pages_fts MATCH ? ORDER BY rank LIMIT ?",
            (match, limit),
        ).fetchall()
        return [SearchHit(*row) for row in rows]

    @_locked
    def set_conversation_title(self, conversation_id: str, title: str) -> int:
        """Returns how many conversations were renamed (0: no such conversation)."""
        self.conn.execute("UPDATE conversations SET title=? WHERE id=?", (title, conversation_id))
        return self.conn.changes()
