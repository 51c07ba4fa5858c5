"""SQL for the conversations list: full-text search with highlights, titles, forget previews."""

from __future__ import annotations

import math

from engine.records import SearchHit
from engine.vault.sql import locked as _locked

MARK_START, MARK_END = "\x02", "\x03"  # around each matching word in a text found

# BM25's constants, as FTS5's own bm25() has them
K1, B = 1.2, 0.75


def _said_rank(api, user_input: str) -> float:
    """An exchange's match score, higher is better: the greater of FTS5's BM25 for the whole
    exchange and BM25 for what the person said in it alone (`user_input`: its lines come first
    in the indexed text). A long answer lengthens the exchange, and BM25 ranks a longer text
    lower; scored alone, the person's own words count at least as much as the answer's."""
    if api.aux_data is None:  # once per query: each phrase's rarity, the mean exchange length
        idf = []
        for phrase in range(api.phrase_count):
            rows = [0]
            api.query_phrase(phrase, lambda _api, counted: counted.__setitem__(0, counted[0] + 1),
                             rows)  # fmt: skip
            found = rows[0]
            idf.append(max(1e-6, math.log((api.row_count - found + 0.5) / (found + 0.5))))
        api.aux_data = (idf, api.column_total_size(0) / max(1, api.row_count))
    idf, mean_length = api.aux_data
    lines = user_input.count("\n") + 1 if user_input else 0
    text = api.column_text(0).decode("utf-8", "replace")
    said = "\n".join(text.split("\n")[:lines])
    said_tokens = len(api.tokenize(said.encode(), None, include_offsets=False,
                                   include_colocated=False)) if said else 0  # fmt: skip
    whole = alone = 0.0
    for phrase, rarity in enumerate(idf):
        offsets = api.phrase_locations(phrase)[0]
        by_person = sum(1 for offset in offsets if offset < said_tokens)
        whole += _bm25(rarity, len(offsets), api.column_size(0), mean_length)
        alone += _bm25(rarity, by_person, said_tokens, mean_length)
    return max(whole, alone)


def _bm25(rarity: float, frequency: int, length: int, mean_length: float) -> float:
    if not frequency:
        return 0.0
    norm = K1 * (1 - B + B * length / mean_length)
    return rarity * frequency * (K1 + 1) / (frequency + norm)


def register_ranking(conn) -> None:
    """Give a vault connection search_pages' rank function (once, when it is opened)."""
    conn.register_fts5_function("said_rank", _said_rank)


class SearchMixin:
    """Reads for the sidebar; the only write is a conversation's title."""

    @_locked
    def search_pages(self, match: str, limit: int) -> list[SearchHit]:
        """Exchanges matching an FTS5 query: best match first (_said_rank: FTS5's BM25, what
        the person said counting at least as much as the answer), equal matches newest first.
        Each hit's `snippet` is its whole indexed text, matches wrapped in MARK_START/MARK_END
        (engine/conversations.py cuts it)."""
        if not match:
            return []
        rows = self.conn.execute(
            "SELECT p.id, p.conversation_id, coalesce(c.title, ''), p.ts, "
            f"highlight(pages_fts, 0, '{MARK_START}', '{MARK_END}') "
            "FROM pages_fts JOIN pages p ON p.id = pages_fts.rowid "
            "LEFT JOIN conversations c ON c.id = p.conversation_id "
            "WHERE pages_fts MATCH ? "
            "ORDER BY said_rank(pages_fts, p.user_input) DESC, p.ts DESC, p.id DESC LIMIT ?",
            (match, limit),
        ).fetchall()
        return [SearchHit(*row) for row in rows]

    @_locked
    def count_matches(self, match: str) -> tuple[int, int]:
        """How many exchanges match an FTS5 query, and in how many conversations."""
        if not match:
            return 0, 0
        exchanges, conversations = self.conn.execute(
            "SELECT count(*), count(DISTINCT p.conversation_id) "
            "FROM pages_fts JOIN pages p ON p.id = pages_fts.rowid WHERE pages_fts MATCH ?",
            (match,),
        ).fetchone()
        return exchanges, conversations

    @_locked
    def conversations_matching(self, match: str) -> set[str]:
        """The conversations that hold an exchange matching an FTS5 query, all of them."""
        if not match:
            return set()
        rows = self.conn.execute(
            "SELECT DISTINCT p.conversation_id "
            "FROM pages_fts JOIN pages p ON p.id = pages_fts.rowid WHERE pages_fts MATCH ?",
            (match,),
        ).fetchall()
        return {row[0] for row in rows}

    @_locked
    def set_conversation_title(self, conversation_id: str, title: str) -> int:
        """Returns how many conversations were renamed (0: no such conversation)."""
        self.conn.execute("UPDATE conversations SET title=? WHERE id=?", (title, conversation_id))
        return self.conn.changes()
