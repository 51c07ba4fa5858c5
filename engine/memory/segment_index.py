"""The active mid-term segments held in RAM: vectors, stored records and keyword stems.

The one segment cache: placement (engine/memory/mid_term.py) ranks and updates it while it
writes, retrieval ranks it per question; either costs a matrix product, not SQL and JSON."""

from __future__ import annotations

import threading

import numpy as np

from engine.memory import keywords
from engine.records import StoredSegment


class SegmentIndex:
    """Reloaded only when segments change elsewhere: in this process (`invalidate`) or in
    another one (SQLite's data_version). Placement edits it in step with its own writes."""

    def __init__(self, vault) -> None:
        self.vault = vault
        self._generation = 0
        self._key: tuple[int, int] | None = None
        # The vault's own re-entrant lock: placement edits the index inside a vault transaction
        # (which holds it) and a reload reads the vault, so one lock can never be taken in
        # the opposite order by a retrieval on another thread.
        self._lock = getattr(vault, "_lock", None) or threading.RLock()
        self.ids: list[int] = []
        self._matrix: np.ndarray | None = None  # capacity rows; the first len(ids) are in use
        self.records: dict[int, StoredSegment] = {}
        self.stems: dict[int, set[str]] = {}

    @property
    def matrix(self) -> np.ndarray | None:
        return None if self._matrix is None or not self.ids else self._matrix[: len(self.ids)]

    def __len__(self) -> int:
        return len(self.current().ids)

    def invalidate(self) -> None:
        with self._lock:
            self._generation += 1
            # drop the copies now: after a forget or a lock no summary may linger in RAM
            self.ids, self._matrix, self.records, self.stems = [], None, {}, {}

    def current(self) -> SegmentIndex:
        with self._lock:
            key = (self.vault.data_version(), self._generation)
            if key != self._key:
                ids, matrix = self.vault.segment_vectors()
                self.records = {s.id: s for s in self.vault.segments(ids=ids)}
                self.ids = [i for i in ids if i in self.records]
                self._matrix = (
                    matrix[[ids.index(i) for i in self.ids]].copy()
                    if matrix is not None and self.ids
                    else None
                )
                self.stems = {
                    i: keywords.normalise(list(self.records[i].keywords)) for i in self.ids
                }
                self._key = key
            return self

    # ---- retrieval -----------------------------------------------------------------------

    def rank(self, vector: np.ndarray, query: str, limit: int) -> list[tuple[float, StoredSegment]]:
        """(cos + Jaccard, segment) of the best `limit` segments for a query."""
        with self._lock:
            self.current()
            matrix = self.matrix
            if matrix is None:
                return []
            query_stems = keywords.normalise(keywords.content_words(query))
            cosines = matrix @ vector
            scored = [
                (
                    float(cosines[i]) + keywords.jaccard(query_stems, self.stems[seg_id]),
                    self.records[seg_id],
                )
                for i, seg_id in enumerate(self.ids)
                if seg_id in self.records
            ]
        scored.sort(key=lambda item: -item[0])
        return scored[:limit]

    # ---- placement (inside the mid-term store's transaction) ------------------------------

    def best(
        self, vector: np.ndarray, page_words: list[str], threshold: float
    ) -> tuple[int | None, float]:
        """The segment a page joins: highest cos + Jaccard(stems), if it reaches the threshold."""
        with self._lock:
            self.current()
            matrix = self.matrix
            if matrix is None:
                return None, 0.0
            cosines = matrix @ vector
            page_stems = keywords.normalise(list(page_words))
            best_id, best_score = None, -2.0
            for index in np.argsort(-cosines):
                cosine = float(cosines[index])
                if cosine + 1.0 < best_score:
                    break  # sorted by cosine and Jaccard <= 1: nobody further down can win
                seg_id = self.ids[index]
                score = cosine + keywords.jaccard(page_stems, self.stems[seg_id])
                if score > best_score:
                    best_id, best_score = seg_id, score
        return (best_id, best_score) if best_score >= threshold else (None, best_score)

    def vector(self, seg_id: int) -> np.ndarray:
        with self._lock:
            self.current()
            return self._matrix[self.ids.index(seg_id)].copy()

    def put(self, segment: StoredSegment, vector: np.ndarray) -> None:
        """A segment was written (new or updated) in this process: keep the copy in step, so
        the next page placed sees it without a reload."""
        with self._lock:
            self.current()
            if segment.id not in self.ids:
                if self._matrix is None:
                    self._matrix = np.zeros((64, len(vector)), dtype=np.float32)
                elif len(self.ids) == len(self._matrix):  # full: double the capacity
                    self._matrix = np.vstack([self._matrix, np.zeros_like(self._matrix)])
                self.ids.append(segment.id)
            self._matrix[self.ids.index(segment.id)] = vector
            self.records[segment.id] = segment
            self.stems[segment.id] = keywords.normalise(list(segment.keywords))

    def drop(self, seg_id: int) -> None:
        """A segment left the active set in this process (archived or deleted)."""
        with self._lock:
            self.current()
            if seg_id not in self.ids:
                return
            index, count = self.ids.index(seg_id), len(self.ids)
            self._matrix[index : count - 1] = self._matrix[index + 1 : count].copy()
            self.ids.pop(index)
            self.records.pop(seg_id, None)
            self.stems.pop(seg_id, None)
