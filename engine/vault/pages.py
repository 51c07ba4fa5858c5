"""Vault table of the pages (with their FTS rows and page and turn vectors)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache

import numpy as np

from engine.records import (
    ARCHIVED,
    MID_TERM,
    SHORT_TERM,
    Page,
    external_ids_of,
    turn_id,
    turn_ids,
)
from engine.vault import quantized
from engine.vault.sql import blob as _blob
from engine.vault.sql import locked as _locked
from engine.vault.sql import placeholders as _placeholders

PAGE_COLUMNS = (
    "id, user_input, agent_response, ts, conversation_id, tier, segment_id, meta, "
    "chain_prev_id, chain_summary, keywords"
)


class PagesMixin:
    """Pages. Methods expect to run inside Vault (self.conn, self._lock)."""

    # engine/memory/keyword_index.KeywordIndex, set by the memory that opens this vault: it
    # answers keyword_search and document_frequency on pages_fts as FTS5 would, from RAM
    keyword_index = None

    def _indexed(self, table: str) -> bool:
        """May the in-RAM index answer? Not inside a transaction: its writes may roll back."""
        return table == "pages_fts" and self.keyword_index is not None and self.conn.getautocommit()

    # ---- pages ---------------------------------------------------------------------------

    @_locked
    def insert_page(
        self,
        *,
        conversation_id: str,
        user_input: str,
        agent_response: str,
        ts: float,
        meta: dict,
        body: str,
        vector: np.ndarray,
        now: float,
        turn_vectors: dict[int, np.ndarray] | None = None,
    ) -> int:
        cursor = self.conn.execute(
            "INSERT INTO pages(conversation_id, user_input, agent_response, ts, created, meta, tier) "
            "VALUES(?, ?, ?, ?, ?, ?, ?)",
            (conversation_id, user_input, agent_response, ts, now, json.dumps(meta), SHORT_TERM),
        )
        page_id = self.conn.last_insert_rowid()
        del cursor
        self.conn.execute("INSERT INTO pages_fts(rowid, body) VALUES(?, ?)", (page_id, body))
        self.conn.execute(
            "INSERT INTO pages_vec(rowid, embedding) VALUES(?, ?)",
            (page_id, quantized.encode(vector)),
        )
        self.insert_turn_vectors(page_id, turn_vectors or {})
        for value in external_ids_of(meta):  # an id already held keeps its earlier page
            self.conn.execute(
                "INSERT OR IGNORE INTO external_ids(external_id, page_id) VALUES(?, ?)",
                (value, page_id),
            )
        return page_id

    @_locked
    def insert_turn_vectors(self, page_id: int, vectors: dict[int, np.ndarray]) -> None:
        """side 0: what the user said, side 1: the answer."""
        for side, turn in vectors.items():
            self.conn.execute(
                "INSERT INTO turns_vec(rowid, embedding) VALUES(?, ?)",
                (turn_id(page_id, side), quantized.encode(turn)),
            )

    @_locked
    def pages(self, ids: Iterable[int]) -> list[Page]:
        """The pages with these ids (unknown ids are skipped), in no particular order."""
        ids = list(ids)
        if not ids:
            return []
        rows = []
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            rows += self.conn.execute(
                f"SELECT {PAGE_COLUMNS} FROM pages WHERE id IN ({_placeholders(chunk)})", chunk
            ).fetchall()
        return [page_from_row(row) for row in rows]

    @_locked
    def pages_in_tier(self, tier: str, limit: int = -1, oldest_first: bool = True) -> list[Page]:
        order = "ASC" if oldest_first else "DESC"
        rows = self.conn.execute(
            f"SELECT {PAGE_COLUMNS} FROM pages WHERE tier=? ORDER BY ts {order}, id {order} LIMIT ?",
            (tier, limit),
        ).fetchall()
        return [page_from_row(row) for row in rows]

    @_locked
    def queue_arrivals(self) -> list[tuple[int, float]]:
        """(id, ts) of each short-term page, in the order they were stored (a new page's id
        is above every stored one)."""
        return self.conn.execute(
            "SELECT id, ts FROM pages WHERE tier=? ORDER BY id", (SHORT_TERM,)
        ).fetchall()

    @_locked
    def newest_outside_queue(self) -> float | None:
        """The time of the newest page that left the short-term queue (mid-term or archived),
        or None: one index lookup per tier (pages_tier), not a scan."""
        found = [
            row[0]
            for tier in (MID_TERM, ARCHIVED)
            for row in self.conn.execute(
                "SELECT ts FROM pages WHERE tier=? ORDER BY ts DESC LIMIT 1", (tier,)
            )
        ]
        return max(found) if found else None

    @_locked
    def count_pages(self, tier: str | None = None) -> int:
        if tier is None:
            return self.conn.execute("SELECT count(*) FROM pages").fetchall()[0][0]
        return self.conn.execute("SELECT count(*) FROM pages WHERE tier=?", (tier,)).fetchall()[0][
            0
        ]

    @_locked
    def count_conversation_pages(self, conversation_id: str, from_page: int | None = None) -> int:
        """How many pages the conversation holds; with `from_page`, how many of them are that
        page or later in time order (0 if it is not one of them)."""
        if from_page is None:
            sql, args = "SELECT count(*) FROM pages WHERE conversation_id=?", (conversation_id,)
        else:
            sql = (
                "SELECT count(*) FROM pages p, pages q WHERE q.id=? AND q.conversation_id=? "
                "AND p.conversation_id=q.conversation_id AND (p.ts, p.id) >= (q.ts, q.id)"
            )
            args = (from_page, conversation_id)
        return self.conn.execute(sql, args).fetchall()[0][0]

    @_locked
    def list_pages(
        self, conversation_id: str | None, limit: int, offset: int, newest: bool = False
    ) -> list[Page]:
        """Pages in time order: the first `limit` after `offset`, or with `newest` the last
        `limit` (`offset` then counts back from the most recent), still oldest first."""
        order = "ORDER BY ts DESC, id DESC" if newest else "ORDER BY ts, id"
        if conversation_id is None:
            rows = self.conn.execute(
                f"SELECT {PAGE_COLUMNS} FROM pages {order} LIMIT ? OFFSET ?",
                (limit, offset),
            ).fetchall()
        else:
            rows = self.conn.execute(
                f"SELECT {PAGE_COLUMNS} FROM pages WHERE conversation_id=? {order} "
                "LIMIT ? OFFSET ?",
                (conversation_id, limit, offset),
            ).fetchall()
        pages = [page_from_row(row) for row in rows]
        return pages[::-1] if newest else pages

    @_locked
    def external_id_page(self, external_id: str) -> Page | None:
        """The page an external id names (the earliest stored with it), or None."""
        rows = self.conn.execute(
            f"SELECT {PAGE_COLUMNS} FROM pages WHERE id = "
            "(SELECT page_id FROM external_ids WHERE external_id=?)",
            (external_id,),
        ).fetchall()
        return page_from_row(rows[0]) if rows else None

    @_locked
    def pages_of_segment(self, segment_id: int) -> list[Page]:
        rows = self.conn.execute(
            f"SELECT {PAGE_COLUMNS} FROM pages WHERE segment_id=? ORDER BY ts, id", (segment_id,)
        ).fetchall()
        return [page_from_row(row) for row in rows]

    @_locked
    def previous_page(self, conversation_id: str, ts: float, page_id: int) -> Page | None:
        """The exchange just before this one in its conversation, if any."""
        rows = self.conn.execute(
            f"SELECT {PAGE_COLUMNS} FROM pages WHERE conversation_id=? AND (ts < ? OR (ts = ? AND id < ?)) "
            "ORDER BY ts DESC, id DESC LIMIT 1",
            (conversation_id, ts, ts, page_id),
        ).fetchall()
        return page_from_row(rows[0]) if rows else None

    @_locked
    def page_ids_in_time_range(self, start: float, end: float, limit: int) -> list[int]:
        return [
            row[0]
            for row in self.conn.execute(
                "SELECT id FROM pages WHERE ts >= ? AND ts < ? ORDER BY ts LIMIT ?",
                (start, end, limit),
            )
        ]

    @_locked
    def move_page_to_segment(
        self,
        page_id: int,
        segment_id: int,
        chain_prev_id: int | None,
        chain_summary: str,
        keywords: list[str],
    ) -> None:
        self.conn.execute(
            "UPDATE pages SET tier=?, segment_id=?, chain_prev_id=?, chain_summary=?, keywords=? "
            "WHERE id=?",
            (MID_TERM, segment_id, chain_prev_id, chain_summary, json.dumps(keywords), page_id),
        )

    @_locked
    def pages_after(self, after_id: int, upto: int, limit: int) -> list[Page]:
        rows = self.conn.execute(
            f"SELECT {PAGE_COLUMNS} FROM pages WHERE id > ? AND id <= ? ORDER BY id LIMIT ?",
            (after_id, upto, limit),
        ).fetchall()
        return [page_from_row(row) for row in rows]

    @_locked
    def neighbour_ids(self, page_ids: list[int]) -> dict[int, tuple[int | None, int | None]]:
        """The exchanges just before and after each page in its conversation (one query per
        500 pages, not one per page: retrieval asks this for ~50 candidates per question)."""
        out: dict[int, tuple[int | None, int | None]] = {}
        page_ids = list(page_ids)
        for start in range(0, len(page_ids), 500):
            chunk = page_ids[start : start + 500]
            for page_id, before, after in self.conn.execute(
                "SELECT p.id, "
                "(SELECT q.id FROM pages q WHERE q.conversation_id=p.conversation_id AND "
                "(q.ts < p.ts OR (q.ts = p.ts AND q.id < p.id)) ORDER BY q.ts DESC, q.id DESC LIMIT 1), "
                "(SELECT q.id FROM pages q WHERE q.conversation_id=p.conversation_id AND "
                "(q.ts > p.ts OR (q.ts = p.ts AND q.id > p.id)) ORDER BY q.ts, q.id LIMIT 1) "
                f"FROM pages p WHERE p.id IN ({_placeholders(chunk)})",
                chunk,
            ):
                out[page_id] = (before, after)
        return out

    @_locked
    def unanalysed_page_ids(self, segment_id: int) -> list[int]:
        return [
            row[0]
            for row in self.conn.execute(
                "SELECT id FROM pages WHERE segment_id=? AND analysed=0 ORDER BY ts, id",
                (segment_id,),
            )
        ]

    @_locked
    def mark_analysed(self, page_ids: list[int]) -> None:
        self.conn.execute(
            f"UPDATE pages SET analysed=1 WHERE id IN ({_placeholders(page_ids)})", page_ids
        )

    @_locked
    def page_vectors(self, ids: list[int]) -> dict[int, np.ndarray]:
        out: dict[int, np.ndarray] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            for row_id, blob in self.conn.execute(
                f"SELECT rowid, embedding FROM pages_vec WHERE rowid IN ({_placeholders(chunk)})",
                chunk,
            ):
                out[row_id] = quantized.decode(blob)
        return out

    @_locked
    def all_vectors(self, table: str, after_id: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """(ids, matrix) of a vec0 table, rows with rowid > after_id, in rowid order."""
        assert table in (
            "pages_vec",
            "facts_vec",
            "segments_vec",
            "pages_vec_next",
            "facts_vec_next",
            "turns_vec",
        )
        rows = self.conn.execute(
            f"SELECT rowid, embedding FROM {table} WHERE rowid > ? ORDER BY rowid", (after_id,)
        ).fetchall()
        if not rows:
            return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
        ids = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
        if quantized.is_quantized(table):
            codes = np.frombuffer(b"".join(row[1] for row in rows), dtype=np.int8)
            return ids, quantized.decode_codes(codes.reshape(len(rows), -1))
        # one join, one array (a bytearray, so the mirror can update rows in place): the first
        # query after opening a vault builds its mirrors from 2 x pages rows (vstack was slower)
        matrix = np.frombuffer(bytearray().join(row[1] for row in rows), dtype=np.float32)
        return ids, matrix.reshape(len(rows), -1)

    @_locked
    def count_rows(self, table: str) -> int:
        assert table in (
            "pages_vec", "facts_vec", "segments_vec", "turns_vec", "words_vec", "pages", "facts", "words"
        )  # fmt: skip
        return self.conn.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]

    @_locked
    def document_frequency(self, table: str, terms: list[str]) -> dict[str, int]:
        """How many rows of an FTS5 table contain each (already stemmed) term."""
        assert table in ("pages_fts", "facts_fts")
        vocab = f"temp.{table}_terms"
        if self._indexed(table):
            found = self.keyword_index.document_frequency(terms)
            if found is not None:
                return found
        self.conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {vocab} USING fts5vocab(main, {table}, 'row')"
        )
        out = dict.fromkeys(terms, 0)
        if terms:  # one query for all the terms of a question
            out.update(
                self.conn.execute(
                    f"SELECT term, doc FROM {vocab} WHERE term IN ({_placeholders(terms)})", terms
                )
            )
        return out

    @_locked
    def keyword_search(self, table: str, match: str, limit: int) -> list[tuple[int, float]]:
        """BM25 search in an FTS5 table; higher score is better."""
        assert table in ("pages_fts", "facts_fts")
        if not match:
            return []
        if self._indexed(table):
            hits = self.keyword_index.search(match, limit)
            if hits is not None:
                return hits
        return [
            (row_id, -score)
            for row_id, score in self.conn.execute(
                f"SELECT rowid, bm25({table}) FROM {table} WHERE {table} MATCH ? "
                "ORDER BY rank LIMIT ?",
                (match, limit),
            )
        ]

    def _erase_vectors(self, table: str, ids: list[int], dimension: int) -> None:
        # Overwrite before deleting: vec0 keeps deleted rows' bytes in its chunks otherwise.
        zero = _blob(np.zeros(dimension, dtype=np.float32))
        for row_id in ids:
            self.conn.execute(f"UPDATE {table} SET embedding=? WHERE rowid=?", (zero, row_id))
            self.conn.execute(f"DELETE FROM {table} WHERE rowid=?", (row_id,))

    @_locked
    def delete_pages(
        self, page_ids: list[int], dimension: int, keep_derived: bool = False
    ) -> dict[str, list[int]]:
        """Delete pages everywhere, plus facts and slots whose only evidence they were
        (unless `keep_derived`: retention may keep what was learned, without its source).

        Must run inside a transaction. Returns the ids removed, by kind.
        """
        if not page_ids:
            return {"pages": [], "facts": [], "slots": []}
        marks = _placeholders(page_ids)
        self._record_forgotten_pages(page_ids)  # a restore of an older export leaves them out
        derived = self.only_derived_from(page_ids)  # the same rule the forget preview shows
        derived_facts, derived_slots = derived["facts"], derived["slots"]
        if keep_derived:
            derived_facts, derived_slots = [], []
        self.delete_facts(derived_facts, dimension)
        self.delete_slots(derived_slots)
        segments = [
            row[0]
            for row in self.conn.execute(
                f"SELECT DISTINCT segment_id FROM pages WHERE id IN ({marks}) AND segment_id IS NOT NULL",
                page_ids,
            )
        ]
        for page_id in page_ids:
            self.conn.execute("DELETE FROM pages_fts WHERE rowid=?", (page_id,))
        self._erase_vectors("pages_vec", page_ids, dimension)
        self._erase_vectors("turns_vec", turn_ids(page_ids), dimension)
        self.conn.execute(
            f"UPDATE pages SET chain_prev_id=NULL WHERE chain_prev_id IN ({marks})", page_ids
        )
        self.conn.execute(f"DELETE FROM pages WHERE id IN ({marks})", page_ids)
        for segment_id in segments:
            remaining = self.conn.execute(
                "SELECT count(*) FROM pages WHERE segment_id=?", (segment_id,)
            ).fetchall()[0][0]
            if remaining == 0:
                self.delete_segment_row(segment_id, dimension)
            else:
                self.conn.execute(
                    "UPDATE segments SET length=min(length, ?) WHERE id=?", (remaining, segment_id)
                )
        self.conn.execute(
            "DELETE FROM conversations WHERE id NOT IN (SELECT DISTINCT conversation_id FROM pages)"
        )
        return {"pages": list(page_ids), "facts": derived_facts, "slots": derived_slots}

    @_locked
    def page_ids_of_conversation(self, conversation_id: str) -> list[int]:
        return [
            row[0]
            for row in self.conn.execute(
                "SELECT id FROM pages WHERE conversation_id=?", (conversation_id,)
            )
        ]


def page_from_row(row: tuple) -> Page:
    """A Page record from a row selected with PAGE_COLUMNS."""
    (
        page_id,
        user_input,
        agent_response,
        ts,
        conversation_id,
        tier,
        segment_id,
        meta,
        chain_prev_id,
        chain_summary,
        kws,
    ) = row
    return Page(
        id=page_id,
        user_input=user_input,
        agent_response=agent_response,
        timestamp=ts,
        conversation_id=conversation_id,
        tier=tier,
        segment_id=segment_id,
        meta=json.loads(meta) if meta != "{}" else {},  # the common case, without a parse
        chain_prev_id=chain_prev_id,
        chain_summary=chain_summary,
        keywords=_keywords(kws),
    )


@lru_cache(maxsize=16384)  # retrieval reads ~150 pages a question, many of them again and again
def _keywords(stored: str) -> tuple[str, ...]:
    return tuple(json.loads(stored))
