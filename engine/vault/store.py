"""The Vault: every SQL statement of the program, behind methods named for what they do."""

from __future__ import annotations

import contextlib
import functools
import json
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from engine import errors
from engine.records import (
    ACTIVE,
    ARCHIVED,
    MID_TERM,
    SHORT_TERM,
    SUPERSEDED,
    Fact,
    Page,
    ProfileSlot,
)
from engine.vault import keys
from engine.vault.connection import mapped_errors, open_connection
from engine.vault.schema import MIGRATIONS, applied, migrate

PAGE_COLUMNS = (
    "id, user_input, agent_response, ts, conversation_id, tier, segment_id, meta, "
    "chain_prev_id, chain_summary, keywords"
)


def _locked(method):
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with self._lock, mapped_errors():
            return method(self, *args, **kwargs)

    return wrapper


def _blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def _placeholders(items: Iterable[Any]) -> str:
    return ",".join("?" for _ in items)


class Vault:
    """One open, unlocked vault file. Thread-safe: one connection guarded by a re-entrant lock."""

    def __init__(self, conn, path: Path, key_location: str) -> None:
        self.conn = conn
        self.path = path
        self.key_location = key_location
        self._lock = threading.RLock()
        self._depth = 0  # nesting of transaction() blocks (inner ones join the outer)

    # ---- opening -------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: Path,
        *,
        passphrase: str | None = None,
        create: bool = False,
        embedder_id: str | None,
        dimension: int,
    ) -> Vault:
        path = Path(path)
        is_new = not (path.exists() and path.stat().st_size > 0)
        hexkey = None
        if passphrase is not None:
            if not passphrase:
                raise errors.InvalidInputError("the passphrase is empty")
            location = "passphrase"
        else:
            status = keys.keyring_status()
            if not status.usable:
                raise errors.KeyUnavailableError(
                    f"no usable keyring on this system ({status.reason}): use a passphrase"
                )
            hexkey = keys.stored_key(path)
            if hexkey is None:
                if not is_new:
                    raise errors.KeyUnavailableError(
                        "the keyring holds no key for this vault: unlock it with its passphrase"
                    )
                if not create:
                    raise errors.VaultError(f"no vault at {path}: create one first")
                hexkey = keys.create_key(path)
            location = f"keyring ({status.backend})"
        conn = open_connection(path, hexkey=hexkey, passphrase=passphrase, create=create)
        vault = cls(conn, path, location)
        try:
            with mapped_errors():
                migrate(conn, path, dimension)
                if embedder_id is not None:  # None: re-embedding, which handles the mismatch itself
                    vault._check_embedder(embedder_id, dimension, is_new)
                conn.execute("UPDATE jobs SET state='pending' WHERE state='running'")
        except BaseException:
            conn.close()
            raise
        return vault

    def _check_embedder(self, embedder_id: str, dimension: int, is_new: bool) -> None:
        stored_id = self.get_meta("embedder_id")
        stored_dim = self.get_meta("embedder_dimension")
        if stored_id is None:
            with self.transaction():
                self.set_meta("embedder_id", embedder_id)
                self.set_meta("embedder_dimension", str(dimension))
                self.set_meta("created", str(time.time()))
            return
        if stored_id != embedder_id or int(stored_dim or 0) != dimension:
            raise errors.EmbedderMismatchError(
                f"this vault was indexed with {stored_id} ({stored_dim} dimensions), not "
                f"{embedder_id} ({dimension}): open it with that embedder, or run "
                "`memoryos reembed` to move it to the new one"
            )

    def close(self) -> None:
        with self._lock:
            if self.conn is not None:
                with contextlib.suppress(Exception):
                    self.conn.execute("PRAGMA optimize")
                self.conn.close()
                self.conn = None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One logical write: everything inside commits together or not at all."""
        with self._lock, mapped_errors():
            outermost = self._depth == 0
            if outermost:
                # IMMEDIATE takes the write lock now, so two processes never deadlock upgrading
                self.conn.execute("BEGIN IMMEDIATE")
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                # SQLite may already have rolled back by itself (disk full, I/O error)
                if outermost and not self.conn.getautocommit():
                    self.conn.execute("ROLLBACK")
                raise
            self._depth -= 1
            if outermost:
                try:
                    self.conn.execute("COMMIT")
                except BaseException:
                    if not self.conn.getautocommit():
                        self.conn.execute("ROLLBACK")
                    raise

    # ---- meta ----------------------------------------------------------------------------

    @_locked
    def get_meta(self, key: str) -> str | None:
        rows = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchall()
        return rows[0][0] if rows else None

    @_locked
    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES(?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (key, value),
        )

    @_locked
    def schema_steps(self) -> list[str]:
        return applied(self.conn)

    @property
    def schema_version(self) -> int:
        return len([name for name, _ in MIGRATIONS if name in self.schema_steps()])

    @_locked
    def data_version(self) -> int:
        """Changes whenever another connection (another process) commits."""
        return self.conn.execute("PRAGMA data_version").fetchall()[0][0]

    @_locked
    def integrity_check(self) -> str:
        return self.conn.execute("PRAGMA integrity_check").fetchall()[0][0]

    # ---- conversations -------------------------------------------------------------------

    @_locked
    def ensure_conversation(self, conversation_id: str, created: float, title: str = "") -> None:
        self.conn.execute(
            "INSERT OR IGNORE INTO conversations(id, title, created) VALUES(?, ?, ?)",
            (conversation_id, title, created),
        )

    @_locked
    def conversations(self) -> list[tuple]:
        """(id, title, first ts, last ts, page count), newest first."""
        return self.conn.execute(
            "SELECT c.id, c.title, min(p.ts), max(p.ts), count(p.id) FROM conversations c "
            "JOIN pages p ON p.conversation_id = c.id GROUP BY c.id ORDER BY max(p.ts) DESC"
        ).fetchall()

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
            "INSERT INTO pages_vec(rowid, embedding) VALUES(?, ?)", (page_id, _blob(vector))
        )
        return page_id

    @_locked
    def page_rows(self, ids: Iterable[int]) -> list[tuple]:
        ids = list(ids)
        if not ids:
            return []
        rows = []
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            rows += self.conn.execute(
                f"SELECT {PAGE_COLUMNS} FROM pages WHERE id IN ({_placeholders(chunk)})", chunk
            ).fetchall()
        return rows

    @_locked
    def pages_in_tier(self, tier: str, limit: int = -1, oldest_first: bool = True) -> list[tuple]:
        order = "ASC" if oldest_first else "DESC"
        return self.conn.execute(
            f"SELECT {PAGE_COLUMNS} FROM pages WHERE tier=? ORDER BY ts {order}, id {order} LIMIT ?",
            (tier, limit),
        ).fetchall()

    @_locked
    def count_pages(self, tier: str | None = None) -> int:
        if tier is None:
            return self.conn.execute("SELECT count(*) FROM pages").fetchall()[0][0]
        return self.conn.execute("SELECT count(*) FROM pages WHERE tier=?", (tier,)).fetchall()[0][
            0
        ]

    @_locked
    def list_pages(self, conversation_id: str | None, limit: int, offset: int) -> list[tuple]:
        if conversation_id is None:
            return self.conn.execute(
                f"SELECT {PAGE_COLUMNS} FROM pages ORDER BY ts, id LIMIT ? OFFSET ?",
                (limit, offset),
            ).fetchall()
        return self.conn.execute(
            f"SELECT {PAGE_COLUMNS} FROM pages WHERE conversation_id=? ORDER BY ts, id "
            "LIMIT ? OFFSET ?",
            (conversation_id, limit, offset),
        ).fetchall()

    @_locked
    def segment_page_rows(self, segment_id: int) -> list[tuple]:
        return self.conn.execute(
            f"SELECT {PAGE_COLUMNS} FROM pages WHERE segment_id=? ORDER BY ts, id", (segment_id,)
        ).fetchall()

    @_locked
    def previous_page_row(self, conversation_id: str, ts: float, page_id: int) -> tuple | None:
        rows = self.conn.execute(
            f"SELECT {PAGE_COLUMNS} FROM pages WHERE conversation_id=? AND (ts < ? OR (ts = ? AND id < ?)) "
            "ORDER BY ts DESC, id DESC LIMIT 1",
            (conversation_id, ts, ts, page_id),
        ).fetchall()
        return rows[0] if rows else None

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
                out[row_id] = np.frombuffer(blob, dtype=np.float32).copy()
        return out

    @_locked
    def all_vectors(self, table: str, after_id: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """(ids, matrix) of a vec0 table, rows with rowid > after_id, in rowid order."""
        assert table in ("pages_vec", "facts_vec", "segments_vec", "pages_vec_next", "facts_vec_next")
        ids, rows = [], []
        for row_id, blob in self.conn.execute(
            f"SELECT rowid, embedding FROM {table} WHERE rowid > ? ORDER BY rowid", (after_id,)
        ):
            ids.append(row_id)
            rows.append(np.frombuffer(blob, dtype=np.float32))
        if not rows:
            return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
        return np.asarray(ids, dtype=np.int64), np.vstack(rows)

    @_locked
    def count_rows(self, table: str) -> int:
        assert table in ("pages_vec", "facts_vec", "segments_vec", "pages", "facts")
        return self.conn.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]

    @_locked
    def keyword_search(self, table: str, match: str, limit: int) -> list[tuple[int, float]]:
        """BM25 search in an FTS5 table; higher score is better."""
        assert table in ("pages_fts", "facts_fts")
        if not match:
            return []
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
    def delete_pages(self, page_ids: list[int], dimension: int) -> dict[str, list[int]]:
        """Delete pages everywhere, plus facts and slots whose only evidence they were.

        Must run inside a transaction. Returns the ids removed, by kind.
        """
        if not page_ids:
            return {"pages": [], "facts": [], "slots": []}
        marks = _placeholders(page_ids)
        derived_facts = [
            row[0]
            for row in self.conn.execute(
                f"SELECT fact_id FROM fact_sources WHERE page_id IN ({marks}) AND fact_id NOT IN "
                f"(SELECT fact_id FROM fact_sources WHERE page_id NOT IN ({marks}))",
                page_ids + page_ids,
            )
        ]
        derived_slots = [
            row[0]
            for row in self.conn.execute(
                f"SELECT slot_id FROM profile_evidence WHERE page_id IN ({marks}) AND slot_id NOT IN "
                f"(SELECT slot_id FROM profile_evidence WHERE page_id NOT IN ({marks}))",
                page_ids + page_ids,
            )
        ]
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

    # ---- segments ------------------------------------------------------------------------

    SEGMENT_COLUMNS = (
        "s.id, s.summary, s.keywords, s.created, s.last_access, s.visit_count, s.length, "
        "s.archived, (SELECT count(*) FROM pages p WHERE p.segment_id = s.id)"
    )

    @_locked
    def insert_segment(
        self, summary: str, keywords: list[str], vector: np.ndarray, now: float
    ) -> int:
        self.conn.execute(
            "INSERT INTO segments(summary, keywords, created, last_access) VALUES(?, ?, ?, ?)",
            (summary, json.dumps(keywords), now, now),
        )
        segment_id = self.conn.last_insert_rowid()
        self.conn.execute(
            "INSERT INTO segments_vec(rowid, embedding) VALUES(?, ?)", (segment_id, _blob(vector))
        )
        return segment_id

    @_locked
    def update_segment(
        self,
        segment_id: int,
        *,
        summary: str,
        keywords: list[str],
        vector: np.ndarray,
        length_delta: int,
        now: float,
    ) -> None:
        self.conn.execute(
            "UPDATE segments SET summary=?, keywords=?, length=length+?, last_access=? WHERE id=?",
            (summary, json.dumps(keywords), length_delta, now, segment_id),
        )
        self.conn.execute(
            "UPDATE segments_vec SET embedding=? WHERE rowid=?", (_blob(vector), segment_id)
        )

    @_locked
    def set_segment_text(self, segment_id: int, summary: str, keywords: list[str]) -> None:
        self.conn.execute(
            "UPDATE segments SET summary=?, keywords=? WHERE id=?",
            (summary, json.dumps(keywords), segment_id),
        )

    @_locked
    def segment_rows(
        self, include_archived: bool = False, ids: list[int] | None = None
    ) -> list[tuple]:
        where = [] if include_archived else ["s.archived=0"]
        params: list[Any] = []
        if ids is not None:
            if not ids:
                return []
            where.append(f"s.id IN ({_placeholders(ids)})")
            params += ids
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        return self.conn.execute(
            f"SELECT {self.SEGMENT_COLUMNS} FROM segments s {clause}", params
        ).fetchall()

    @_locked
    def segment_vectors(
        self, include_archived: bool = False
    ) -> tuple[list[int], np.ndarray | None]:
        clause = (
            "" if include_archived else "WHERE rowid IN (SELECT id FROM segments WHERE archived=0)"
        )
        ids, rows = [], []
        for row_id, blob in self.conn.execute(
            f"SELECT rowid, embedding FROM segments_vec {clause}"
        ):
            ids.append(row_id)
            rows.append(np.frombuffer(blob, dtype=np.float32))
        return ids, (np.vstack(rows) if rows else None)

    @_locked
    def record_visits(self, visits: dict[int, int], now: float) -> None:
        for segment_id, count in visits.items():
            self.conn.execute(
                "UPDATE segments SET visit_count=visit_count+?, last_access=? WHERE id=?",
                (count, now, segment_id),
            )

    @_locked
    def archive_segment(self, segment_id: int) -> None:
        self.conn.execute("UPDATE segments SET archived=1 WHERE id=?", (segment_id,))
        self.conn.execute("UPDATE pages SET tier=? WHERE segment_id=?", (ARCHIVED, segment_id))

    @_locked
    def reset_segment_counters(self, segment_id: int) -> None:
        self.conn.execute("UPDATE segments SET visit_count=0, length=0 WHERE id=?", (segment_id,))

    @_locked
    def delete_segment_row(self, segment_id: int, dimension: int) -> None:
        self._erase_vectors("segments_vec", [segment_id], dimension)
        self.conn.execute("DELETE FROM segments WHERE id=?", (segment_id,))

    @_locked
    def page_ids_of_segment(self, segment_id: int) -> list[int]:
        return [
            row[0]
            for row in self.conn.execute("SELECT id FROM pages WHERE segment_id=?", (segment_id,))
        ]

    # ---- facts ---------------------------------------------------------------------------

    FACT_COLUMNS = "id, kind, text, status, created, updated, origin, superseded_by"

    def _fact(self, row: tuple) -> Fact:
        sources = tuple(
            r[0]
            for r in self.conn.execute(
                "SELECT page_id FROM fact_sources WHERE fact_id=? ORDER BY page_id", (row[0],)
            )
        )
        return Fact(
            id=row[0],
            kind=row[1],
            text=row[2],
            status=row[3],
            created=row[4],
            updated=row[5],
            origin=row[6],
            superseded_by=row[7],
            source_page_ids=sources,
        )

    @_locked
    def insert_fact(
        self,
        *,
        kind: str,
        text: str,
        norm: str,
        status: str,
        origin: str,
        vector: np.ndarray,
        sources: Iterable[int],
        now: float,
    ) -> int:
        self.conn.execute(
            "INSERT INTO facts(kind, text, norm, status, created, updated, origin) "
            "VALUES(?, ?, ?, ?, ?, ?, ?)",
            (kind, text, norm, status, now, now, origin),
        )
        fact_id = self.conn.last_insert_rowid()
        self.conn.execute("INSERT INTO facts_fts(rowid, text) VALUES(?, ?)", (fact_id, text))
        self.conn.execute(
            "INSERT INTO facts_vec(rowid, embedding) VALUES(?, ?)", (fact_id, _blob(vector))
        )
        self.add_fact_sources(fact_id, sources)
        return fact_id

    @_locked
    def add_fact_sources(self, fact_id: int, sources: Iterable[int]) -> None:
        for page_id in sources:
            self.conn.execute(
                "INSERT OR IGNORE INTO fact_sources(fact_id, page_id) "
                "SELECT ?, id FROM pages WHERE id=?",
                (fact_id, page_id),
            )

    @_locked
    def find_fact(self, kind: str, norm: str) -> int | None:
        rows = self.conn.execute(
            "SELECT id FROM facts WHERE kind=? AND norm=? AND status!=? LIMIT 1",
            (kind, norm, SUPERSEDED),
        ).fetchall()
        return rows[0][0] if rows else None

    @_locked
    def touch_fact(self, fact_id: int, now: float) -> None:
        self.conn.execute("UPDATE facts SET updated=? WHERE id=?", (now, fact_id))

    @_locked
    def fact(self, fact_id: int) -> Fact:
        rows = self.conn.execute(
            f"SELECT {self.FACT_COLUMNS} FROM facts WHERE id=?", (fact_id,)
        ).fetchall()
        if not rows:
            raise errors.NotFoundError(f"no fact with id {fact_id}")
        return self._fact(rows[0])

    @_locked
    def facts(
        self, kind: str | None, include_superseded: bool, ids: list[int] | None = None
    ) -> list[Fact]:
        where, params = [], []
        if kind:
            where.append("kind=?")
            params.append(kind)
        if not include_superseded:
            where.append("status!=?")
            params.append(SUPERSEDED)
        if ids is not None:
            if not ids:
                return []
            where.append(f"id IN ({_placeholders(ids)})")
            params += ids
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        rows = self.conn.execute(
            f"SELECT {self.FACT_COLUMNS} FROM facts {clause} ORDER BY updated DESC, id DESC", params
        ).fetchall()
        return [self._fact(row) for row in rows]

    @_locked
    def update_fact_text(
        self, fact_id: int, text: str, norm: str, vector: np.ndarray, origin: str, now: float
    ) -> None:
        self.conn.execute(
            "UPDATE facts SET text=?, norm=?, origin=?, status=?, updated=? WHERE id=?",
            (text, norm, origin, ACTIVE, now, fact_id),
        )
        self.conn.execute("DELETE FROM facts_fts WHERE rowid=?", (fact_id,))
        self.conn.execute("INSERT INTO facts_fts(rowid, text) VALUES(?, ?)", (fact_id, text))
        self.conn.execute(
            "UPDATE facts_vec SET embedding=? WHERE rowid=?", (_blob(vector), fact_id)
        )

    @_locked
    def supersede_fact(self, old_id: int, new_id: int | None, now: float) -> None:
        self.conn.execute(
            "UPDATE facts SET status=?, superseded_by=?, updated=? WHERE id=?",
            (SUPERSEDED, new_id, now, old_id),
        )

    @_locked
    def delete_facts(self, fact_ids: list[int], dimension: int | None = None) -> None:
        if not fact_ids:
            return
        dimension = dimension or int(self.get_meta("embedder_dimension") or 0)
        for fact_id in fact_ids:
            self.conn.execute("DELETE FROM facts_fts WHERE rowid=?", (fact_id,))
        self._erase_vectors("facts_vec", fact_ids, dimension)
        marks = _placeholders(fact_ids)
        self.conn.execute(
            f"UPDATE facts SET superseded_by=NULL WHERE superseded_by IN ({marks})", fact_ids
        )
        self.conn.execute(f"DELETE FROM facts WHERE id IN ({marks})", fact_ids)

    @_locked
    def candidate_facts_from_pages(self, page_ids: list[int], status: str) -> list[int]:
        """Facts of `status` whose every source is among page_ids."""
        if not page_ids:
            return []
        marks = _placeholders(page_ids)
        return [
            row[0]
            for row in self.conn.execute(
                f"SELECT f.id FROM facts f WHERE f.status=? AND EXISTS (SELECT 1 FROM fact_sources s "
                f"WHERE s.fact_id=f.id) AND NOT EXISTS (SELECT 1 FROM fact_sources s WHERE "
                f"s.fact_id=f.id AND s.page_id NOT IN ({marks}))",
                [status] + page_ids,
            )
        ]

    # ---- profile -------------------------------------------------------------------------

    SLOT_COLUMNS = "id, category, name, value, status, created, updated, origin, superseded_by"

    def _slot(self, row: tuple) -> ProfileSlot:
        evidence = tuple(
            r[0]
            for r in self.conn.execute(
                "SELECT page_id FROM profile_evidence WHERE slot_id=? ORDER BY page_id", (row[0],)
            )
        )
        return ProfileSlot(
            id=row[0],
            category=row[1],
            name=row[2],
            value=row[3],
            status=row[4],
            created=row[5],
            updated=row[6],
            origin=row[7],
            superseded_by=row[8],
            evidence_page_ids=evidence,
        )

    @_locked
    def active_slot(self, category: str, name: str) -> ProfileSlot | None:
        rows = self.conn.execute(
            f"SELECT {self.SLOT_COLUMNS} FROM profile WHERE category=? AND name=? AND status=? "
            "ORDER BY id DESC LIMIT 1",
            (category, name, ACTIVE),
        ).fetchall()
        return self._slot(rows[0]) if rows else None

    @_locked
    def insert_slot(
        self, category: str, name: str, value: str, origin: str, evidence: Iterable[int], now: float
    ) -> int:
        self.conn.execute(
            "INSERT INTO profile(category, name, value, status, created, updated, origin) "
            "VALUES(?, ?, ?, ?, ?, ?, ?)",
            (category, name, value, ACTIVE, now, now, origin),
        )
        slot_id = self.conn.last_insert_rowid()
        self.add_slot_evidence(slot_id, evidence)
        return slot_id

    @_locked
    def add_slot_evidence(self, slot_id: int, evidence: Iterable[int]) -> None:
        for page_id in evidence:
            self.conn.execute(
                "INSERT OR IGNORE INTO profile_evidence(slot_id, page_id) SELECT ?, id FROM pages WHERE id=?",
                (slot_id, page_id),
            )

    @_locked
    def touch_slot(self, slot_id: int, now: float) -> None:
        self.conn.execute("UPDATE profile SET updated=? WHERE id=?", (now, slot_id))

    @_locked
    def supersede_slot(self, old_id: int, new_id: int, now: float) -> None:
        self.conn.execute(
            "UPDATE profile SET status=?, superseded_by=?, updated=? WHERE id=?",
            (SUPERSEDED, new_id, now, old_id),
        )

    @_locked
    def slot(self, slot_id: int) -> ProfileSlot:
        rows = self.conn.execute(
            f"SELECT {self.SLOT_COLUMNS} FROM profile WHERE id=?", (slot_id,)
        ).fetchall()
        if not rows:
            raise errors.NotFoundError(f"no profile slot with id {slot_id}")
        return self._slot(rows[0])

    @_locked
    def slots(self, include_superseded: bool) -> list[ProfileSlot]:
        clause = "" if include_superseded else f"WHERE status='{ACTIVE}'"
        rows = self.conn.execute(
            f"SELECT {self.SLOT_COLUMNS} FROM profile {clause} ORDER BY category, name, id"
        ).fetchall()
        return [self._slot(row) for row in rows]

    @_locked
    def update_slot_value(self, slot_id: int, value: str, origin: str, now: float) -> None:
        self.conn.execute(
            "UPDATE profile SET value=?, origin=?, updated=? WHERE id=?",
            (value, origin, now, slot_id),
        )

    @_locked
    def delete_slots(self, slot_ids: list[int]) -> None:
        if not slot_ids:
            return
        marks = _placeholders(slot_ids)
        self.conn.execute(
            f"UPDATE profile SET superseded_by=NULL WHERE superseded_by IN ({marks})", slot_ids
        )
        self.conn.execute(f"DELETE FROM profile WHERE id IN ({marks})", slot_ids)

    # ---- jobs ----------------------------------------------------------------------------

    @_locked
    def enqueue(self, kind: str, payload: dict, now: float) -> int:
        self.conn.execute(
            "INSERT INTO jobs(kind, payload, created, updated) VALUES(?, ?, ?, ?)",
            (kind, json.dumps(payload), now, now),
        )
        return self.conn.last_insert_rowid()

    @_locked
    def has_pending(self, kind: str, payload: dict) -> bool:
        return bool(
            self.conn.execute(
                "SELECT 1 FROM jobs WHERE kind=? AND payload=? AND state='pending' LIMIT 1",
                (kind, json.dumps(payload)),
            ).fetchall()
        )

    @_locked
    def pending_jobs(self, limit: int = 100) -> list[tuple[int, str, dict, int]]:
        return [
            (row[0], row[1], json.loads(row[2]), row[3])
            for row in self.conn.execute(
                "SELECT id, kind, payload, attempts FROM jobs WHERE state='pending' ORDER BY id LIMIT ?",
                (limit,),
            )
        ]

    @_locked
    def finish_job(self, job_id: int) -> None:
        self.conn.execute("DELETE FROM jobs WHERE id=?", (job_id,))

    @_locked
    def fail_job(self, job_id: int, error: str, give_up: bool, now: float) -> None:
        self.conn.execute(
            "UPDATE jobs SET attempts=attempts+1, error=?, updated=?, state=? WHERE id=?",
            (error[:500], now, "failed" if give_up else "pending", job_id),
        )

    @_locked
    def job_counts(self) -> dict[str, int]:
        return dict(self.conn.execute("SELECT state, count(*) FROM jobs GROUP BY state").fetchall())

    @_locked
    def last_job_error(self) -> str | None:
        rows = self.conn.execute(
            "SELECT error FROM jobs WHERE error IS NOT NULL ORDER BY updated DESC LIMIT 1"
        ).fetchall()
        return rows[0][0] if rows else None

    # ---- whole vault ---------------------------------------------------------------------

    @_locked
    def counts(self) -> dict[str, int]:
        one = lambda sql: self.conn.execute(sql).fetchall()[0][0]  # noqa: E731
        return {
            "short": one(f"SELECT count(*) FROM pages WHERE tier='{SHORT_TERM}'"),
            "mid": one(f"SELECT count(*) FROM pages WHERE tier='{MID_TERM}'"),
            "archived": one(f"SELECT count(*) FROM pages WHERE tier='{ARCHIVED}'"),
            "segments": one("SELECT count(*) FROM segments WHERE archived=0"),
            "facts": one(f"SELECT count(*) FROM facts WHERE status!='{SUPERSEDED}'"),
        }

    @_locked
    def wipe(self, dimension: int) -> None:
        """Delete every memory (pages, segments, facts, profile, jobs); keep schema and key."""
        page_ids = [row[0] for row in self.conn.execute("SELECT id FROM pages")]
        for start in range(0, len(page_ids), 500):
            self.delete_pages(page_ids[start : start + 500], dimension)
        fact_ids = [row[0] for row in self.conn.execute("SELECT id FROM facts")]
        self.delete_facts(fact_ids, dimension)
        self.conn.execute("DELETE FROM profile")
        segment_ids = [row[0] for row in self.conn.execute("SELECT id FROM segments")]
        for segment_id in segment_ids:
            self.delete_segment_row(segment_id, dimension)
        self.conn.execute("DELETE FROM jobs")
        self.conn.execute("DELETE FROM conversations")

    @_locked
    def checkpoint(self) -> None:
        self.conn.wal_checkpoint(mode=3)

    @_locked
    def dump_table(self, table: str) -> list[dict]:
        assert table in (
            "pages",
            "segments",
            "facts",
            "fact_sources",
            "profile",
            "profile_evidence",
            "conversations",
            "jobs",
            "meta",
            "migrations",
        )
        cursor = self.conn.execute(f"SELECT * FROM {table}")
        try:
            names = [d[0] for d in cursor.getdescription()]
        except Exception:
            return []
        return [dict(zip(names, row, strict=True)) for row in cursor]


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
        meta=json.loads(meta),
        chain_prev_id=chain_prev_id,
        chain_summary=chain_summary,
        keywords=tuple(json.loads(kws)),
    )
