"""Vault table of the mid-term segments (with their centroid vectors)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from engine.records import ARCHIVED, StoredSegment
from engine.vault.sql import blob as _blob
from engine.vault.sql import locked as _locked
from engine.vault.sql import placeholders as _placeholders


class SegmentsMixin:
    """Segments. Methods expect to run inside Vault (self.conn, self._lock)."""

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
    def segments(
        self, include_archived: bool = False, ids: list[int] | None = None
    ) -> list[StoredSegment]:
        where = [] if include_archived else ["s.archived=0"]
        params: list[Any] = []
        if ids is not None:
            if not ids:
                return []
            where.append(f"s.id IN ({_placeholders(ids)})")
            params += ids
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        rows = self.conn.execute(
            f"SELECT {self.SEGMENT_COLUMNS} FROM segments s {clause}", params
        ).fetchall()
        return [segment_from_row(row) for row in rows]

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
    def set_segment_state(
        self, segment_id: int, *, created: float, last_access: float, visits: int, length: int
    ) -> None:
        """Heat counters and dates as another system kept them (an import)."""
        self.conn.execute(
            "UPDATE segments SET created=?, last_access=?, visit_count=?, length=? WHERE id=?",
            (created, last_access, visits, length, segment_id),
        )

    @_locked
    def reset_segment_counters(self, segment_id: int) -> None:
        self.conn.execute("UPDATE segments SET visit_count=0, length=0 WHERE id=?", (segment_id,))

    @_locked
    def delete_segment_row(self, segment_id: int, dimension: int) -> None:
        self._erase_vectors("segments_vec", [segment_id], dimension)
        self.conn.execute("DELETE FROM segments WHERE id=?", (segment_id,))

    @_locked
    def page_ids_of_segments(self, segment_ids: list[int]) -> list[int]:
        """The pages of several segments in one query (retrieval reads the best few)."""
        if not segment_ids:
            return []
        return [
            row[0]
            for row in self.conn.execute(
                f"SELECT id FROM pages WHERE segment_id IN ({_placeholders(segment_ids)})",
                list(segment_ids),
            )
        ]

    @_locked
    def page_ids_of_segment(self, segment_id: int) -> list[int]:
        return [
            row[0]
            for row in self.conn.execute("SELECT id FROM pages WHERE segment_id=?", (segment_id,))
        ]


def segment_from_row(row: tuple) -> StoredSegment:
    """A StoredSegment record from a row selected with SEGMENT_COLUMNS."""
    seg_id, summary, kws, created, last_access, visits, length, archived, page_count = row
    return StoredSegment(
        id=seg_id,
        summary=summary,
        keywords=tuple(json.loads(kws)),
        created=created,
        last_access=last_access,
        visit_count=visits,
        length=length,
        archived=bool(archived),
        page_count=page_count,
    )
