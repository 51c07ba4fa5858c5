"""Active MTM segments held in RAM for retrieval: vectors, rows and stemmed keywords."""

from __future__ import annotations

import json
import threading

import numpy as np

from engine.memory import keywords


class SegmentIndex:
    """Reloaded only when segments change: in this process (`invalidate`) or in another one
    (SQLite's data_version), so a query costs a matrix product, not SQL and JSON parsing."""

    def __init__(self, vault) -> None:
        self.vault = vault
        self._generation = 0
        self._key: tuple[int, int] | None = None
        self._lock = threading.Lock()
        self.ids: list[int] = []
        self.matrix: np.ndarray | None = None
        self.rows: dict[int, tuple] = {}
        self.stems: dict[int, set[str]] = {}

    def invalidate(self) -> None:
        with self._lock:
            self._generation += 1
            # drop the copies now: after a forget or a lock no summary may linger in RAM
            self.ids, self.matrix, self.rows, self.stems = [], None, {}, {}

    def current(self) -> SegmentIndex:
        with self._lock:
            key = (self.vault.data_version(), self._generation)
            if key != self._key:
                ids, matrix = self.vault.segment_vectors()
                self.rows = {row[0]: row for row in self.vault.segment_rows(ids=ids)}
                self.ids = [i for i in ids if i in self.rows]
                self.matrix = (
                    matrix[[ids.index(i) for i in self.ids]]
                    if matrix is not None and self.ids
                    else None
                )
                self.stems = {i: keywords.normalise(json.loads(self.rows[i][2])) for i in self.ids}
                self._key = key
            return self

    def rank(self, vector: np.ndarray, query: str, limit: int) -> list[tuple[float, tuple]]:
        """(cos + Jaccard, segment row) of the best `limit` segments for a query."""
        self.current()
        if self.matrix is None:
            return []
        query_stems = keywords.normalise(keywords.content_words(query))
        cosines = self.matrix @ vector
        scored = [
            (
                float(cosines[i]) + keywords.jaccard(query_stems, self.stems[seg_id]),
                self.rows[seg_id],
            )
            for i, seg_id in enumerate(self.ids)
        ]
        scored.sort(key=lambda item: -item[0])
        return scored[:limit]
