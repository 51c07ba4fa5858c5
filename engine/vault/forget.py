"""Vault SQL of a cascading forget: what a forget reaches, and rewriting what pages derived."""

from __future__ import annotations

import json
from collections.abc import Iterable

import numpy as np

from engine.records import turn_ids
from engine.vault.sql import blob as _blob
from engine.vault.sql import locked as _locked
from engine.vault.sql import placeholders as _placeholders

STAGING_TABLES = ("pages", "facts", "segments", "turns")  # reembed's `<table>_vec_next`


class ForgetMixin:
    """Methods expect to run inside Vault (self.conn, self._lock)."""

    @_locked
    def only_derived_from(self, page_ids: list[int]) -> dict[str, list[int]]:
        """Facts and profile slots whose every source is among `page_ids` (they go with them)."""
        if not page_ids:
            return {"facts": [], "slots": []}
        marks = _placeholders(page_ids)
        facts = [
            row[0]
            for row in self.conn.execute(
                f"SELECT DISTINCT fact_id FROM fact_sources WHERE page_id IN ({marks}) AND fact_id "
                f"NOT IN (SELECT fact_id FROM fact_sources WHERE page_id NOT IN ({marks}))",
                page_ids + page_ids,
            )
        ]
        slots = [
            row[0]
            for row in self.conn.execute(
                f"SELECT DISTINCT slot_id FROM profile_evidence WHERE page_id IN ({marks}) AND "
                f"slot_id NOT IN (SELECT slot_id FROM profile_evidence WHERE page_id NOT IN ({marks}))",
                page_ids + page_ids,
            )
        ]
        return {"facts": facts, "slots": slots}

    @_locked
    def only_in(self, words: list[str], page_ids: list[int]) -> list[str]:
        """The words (FTS5-tokenised, as search sees them) that no page outside `page_ids`
        contains: after forgetting those pages, nothing else says them."""
        if not words or not page_ids:
            return []
        marks = _placeholders(page_ids)
        out = []
        for word in words:
            query = '"' + word.replace('"', "") + '"'
            hit = self.conn.execute(
                f"SELECT 1 FROM pages_fts WHERE pages_fts MATCH ? AND rowid NOT IN ({marks}) "
                "LIMIT 1",
                [query, *page_ids],
            ).fetchall()
            if not hit:
                out.append(word)
        return out

    @_locked
    def facts_saying(self, words: list[str]) -> list[int]:
        """Facts whose text contains any of `words` (through facts_fts, same tokenizer)."""
        found: set[int] = set()
        for word in words:
            query = '"' + word.replace('"', "") + '"'
            found.update(
                row[0]
                for row in self.conn.execute(
                    "SELECT rowid FROM facts_fts WHERE facts_fts MATCH ?", (query,)
                )
            )
        return sorted(found)

    @_locked
    def segment_texts(self) -> list[tuple[int, str]]:
        """(id, summary and keywords) of every segment."""
        return [
            (row[0], f"{row[1]} {' '.join(json.loads(row[2]))}")
            for row in self.conn.execute("SELECT id, summary, keywords FROM segments")
        ]

    @_locked
    def page_ids_older_than(self, ts: float, limit: int) -> list[int]:
        return [
            row[0]
            for row in self.conn.execute(
                "SELECT id FROM pages WHERE ts < ? ORDER BY ts, id LIMIT ?", (ts, limit)
            )
        ]

    @_locked
    def existing_page_ids(self, page_ids: list[int]) -> list[int]:
        found: list[int] = []
        for start in range(0, len(page_ids), 500):
            chunk = page_ids[start : start + 500]
            found += [
                row[0]
                for row in self.conn.execute(
                    f"SELECT id FROM pages WHERE id IN ({_placeholders(chunk)})", chunk
                )
            ]
        return sorted(set(found))

    @_locked
    def segments_of_pages(self, page_ids: list[int]) -> dict[int, int]:
        """segment id -> how many of its pages are NOT among `page_ids` (0: it goes too)."""
        return self._survivors("segment_id", page_ids)

    def _survivors(self, column: str, page_ids: list[int]) -> dict:
        """For each value of `column` (segment_id, conversation_id) that `page_ids` touch: how
        many of its pages are not among them."""
        if not page_ids:
            return {}
        marks = _placeholders(page_ids)
        return {
            row[0]: row[1]
            for row in self.conn.execute(
                f"SELECT s.{column}, (SELECT count(*) FROM pages q WHERE q.{column}=s.{column} "
                f"AND q.id NOT IN ({marks})) FROM (SELECT DISTINCT {column} FROM pages "
                f"WHERE id IN ({marks}) AND {column} IS NOT NULL) s",
                page_ids + page_ids,
            )
        }

    @_locked
    def chain_descendants(self, page_ids: list[int]) -> list[int]:
        """Surviving pages whose chain summary inherited from `page_ids`, in chain order."""
        gone = set(page_ids)
        frontier = list(page_ids)
        order: list[int] = []
        seen: set[int] = set()
        while frontier:
            marks = _placeholders(frontier)
            rows = self.conn.execute(
                f"SELECT id FROM pages WHERE chain_prev_id IN ({marks}) ORDER BY ts, id", frontier
            ).fetchall()
            frontier = [row[0] for row in rows if row[0] not in gone and row[0] not in seen]
            seen.update(frontier)
            order += frontier
        return order

    @_locked
    def conversations_of_pages(self, page_ids: list[int]) -> dict[str, int]:
        """conversation id -> how many of its pages survive the forget."""
        return self._survivors("conversation_id", page_ids)

    @_locked
    def set_chain(self, page_id: int, chain_prev_id: int | None, summary: str) -> None:
        self.conn.execute(
            "UPDATE pages SET chain_prev_id=?, chain_summary=? WHERE id=?",
            (chain_prev_id, summary, page_id),
        )

    @_locked
    def rewrite_segment(
        self, segment_id: int, summary: str, keywords: list[str], vector: np.ndarray
    ) -> None:
        """A segment recomputed from its remaining pages (summary, keywords and centroid)."""
        self.conn.execute(
            "UPDATE segments SET summary=?, keywords=? WHERE id=?",
            (summary, json.dumps(keywords), segment_id),
        )
        self.conn.execute(
            "UPDATE segments_vec SET embedding=? WHERE rowid=?", (_blob(vector), segment_id)
        )

    @_locked
    def retitle_conversation(self, conversation_id: str, without: Iterable[int] = ()) -> str | None:
        """The text the conversation's first exchange (by time) not among `without` gives a
        title (its question, else its answer), or None if it has no other exchange."""
        skip = set(without)
        cursor = self.conn.execute(
            "SELECT id, user_input, agent_response FROM pages WHERE conversation_id=? "
            "ORDER BY ts, id",
            (conversation_id,),
        )
        try:
            for page_id, question, answer in cursor:
                if page_id not in skip:
                    return question or answer
            return None
        finally:
            cursor.close()

    @_locked
    def conversation_title(self, conversation_id: str) -> str | None:
        """The title stored for the conversation (None: no such conversation)."""
        rows = self.conn.execute(
            "SELECT title FROM conversations WHERE id=?", (conversation_id,)
        ).fetchall()
        return rows[0][0] if rows else None

    @_locked
    def purge_staging(self, page_ids: list[int], fact_ids: list[int]) -> None:
        """Remove forgotten rows from an interrupted re-embed's staging tables too."""
        target = self.get_meta("reembed_target")
        existing = {
            row[0]
            for row in self.conn.execute(
                "SELECT name FROM sqlite_master WHERE name LIKE '%\\_vec\\_next' ESCAPE '\\'"
            )
        }
        if not existing:
            return
        dimension = int(json.loads(target)["dimension"]) if target else self.dimension_of_next()
        rows = {
            "pages": list(page_ids),
            "turns": turn_ids(page_ids),
            "facts": list(fact_ids),
        }
        for table, ids in rows.items():
            name = f"{table}_vec_next"
            if name in existing and ids:
                present = [
                    i
                    for i in ids
                    if self.conn.execute(f"SELECT 1 FROM {name} WHERE rowid=?", (i,)).fetchall()
                ]
                self._erase_vectors(name, present, dimension)

    def dimension_of_next(self) -> int:
        return int(self.get_meta("embedder_dimension") or 0)

    @_locked
    def purge_staging_all(self) -> None:
        """Forget everything: an interrupted re-embed starts over from nothing."""
        for table in STAGING_TABLES:
            self.conn.execute(f"DROP TABLE IF EXISTS {table}_vec_next")
        self.conn.execute(
            "DELETE FROM meta WHERE key='reembed_target' OR key LIKE 'reembed_last_%'"
        )

    @_locked
    def bump_vector_generation(self) -> None:
        """Tell other processes' in-memory vector mirrors that rows were removed or changed."""
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES('vector_generation', '1') ON CONFLICT(key) "
            "DO UPDATE SET value=CAST(CAST(value AS INTEGER) + 1 AS TEXT)"
        )

    @_locked
    def vector_generation(self) -> int:
        rows = self.conn.execute("SELECT value FROM meta WHERE key='vector_generation'").fetchall()
        return int(rows[0][0]) if rows else 0

    @_locked
    def checkpoint_truncate(self) -> bool:
        """Move the WAL into the file and truncate it to zero bytes (the old page versions in
        it may hold forgotten text). False if another reader kept it from completing."""
        try:
            busy = self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()[0][0]
        except Exception:
            return False
        return busy == 0
