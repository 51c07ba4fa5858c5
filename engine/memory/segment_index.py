"""The active mid-term segments held in RAM: vectors, stored records and keyword stems.

The one segment cache: placement (engine/memory/mid_term.py) ranks and updates it while it
writes, retrieval ranks it per question; either costs a matrix product, not SQL and JSON."""

from __future__ import annotations

import threading

import numpy as np

from engine.memory import keywords
from engine.records import StoredSegment

# Pages the memory needs before their mean counts as its background (before: plain cos).
# Dev placement barely notices (it holds ~200 pages per conversation); two pages about one
# ferret must stay together (tests/test_forget_cascade.py).
BACKGROUND_PAGES = 8
NEAR_DUPLICATE = 0.85  # plain cosine at which a page joins a segment whatever the background


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

    def rank(
        self, vector: np.ndarray, query: str, limit: int, topical: bool = False
    ) -> list[tuple[float, StoredSegment]]:
        """(cos + Jaccard, segment) of the best `limit` segments for a query; `topical`: the
        cos without the memory's common direction, as placement compares them."""
        with self._lock:
            self.current()
            matrix = self.matrix
            if matrix is None:
                return []
            query_stems = keywords.normalise(keywords.content_words(query))
            cosines = _cosines(matrix, vector, self.background([]) if topical else None)
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

    def background(self, pages: list[np.ndarray]) -> np.ndarray | None:
        """The direction every page of this memory shares (unit vector): the mean of the
        segmented pages (segment centroids weighted by their page counts) and `pages`."""
        with self._lock:
            self.current()
            total = np.sum(pages, axis=0) if pages else None
            matrix = self.matrix
            if matrix is not None:
                counts = np.asarray(
                    [max(self.records[i].page_count, 1) for i in self.ids], dtype=np.float32
                )
                segmented = counts @ matrix
                total = segmented if total is None else total + segmented
        if total is None:
            return None
        norm = float(np.linalg.norm(total))
        if norm <= 0:
            return None
        # The mean of a few pages is those pages, not what all of them share (removing the
        # mean of two pages leaves them exactly opposite): none until there are enough.
        pages_seen = len(pages) + (float(counts.sum()) if matrix is not None else 0.0)
        return (total / norm).astype(np.float32) if pages_seen >= BACKGROUND_PAGES else None

    def best(
        self,
        vector: np.ndarray,
        page_words: list[str],
        threshold: float,
        background: np.ndarray | None = None,
    ) -> tuple[int | None, float]:
        """The segment a page joins: highest cos + Jaccard(stems), if it reaches the threshold.

        With a `background` direction the cosine is taken with that direction removed from
        both sides: what one person's exchanges all share (their names, their way of
        talking) is not a topic. Without it a big segment's centroid drifts towards the
        memory's mean and is close to every page (the mean of n pages whose pairwise cosine
        is s sits at about s / sqrt(s) from each; MiniLM, s = 0.46 in a dev conversation:
        0.68 > the 0.6 threshold before any keyword), so one segment swallowed 65-75% of a
        conversation."""
        with self._lock:
            self.current()
            matrix = self.matrix
            if matrix is None:
                return None, 0.0
            cosines = _cosines(matrix, vector, background)
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


def _cosines(matrix: np.ndarray, vector: np.ndarray, background: np.ndarray | None) -> np.ndarray:
    """Cosine of each row with `vector`, the `background` direction projected out of both."""
    plain = matrix @ vector
    if background is None:
        return plain
    rows = matrix - np.outer(matrix @ background, background)
    page = vector - float(vector @ background) * background
    norms = np.linalg.norm(rows, axis=1) * float(np.linalg.norm(page))
    # a segment that is nothing but the background (or such a page) has no topic: cosine 0
    topical = np.where(norms > 1e-6, (rows @ page) / np.maximum(norms, 1e-12), 0.0)
    # A page (nearly) repeating a segment is its topic even where that topic is all the memory
    # holds (then the background is the topic and what is left of both vectors is noise).
    # Dev (offline replay, threshold 0.4, conv-26 / conv-30 top five's share of the pages):
    # none 0.42 / 0.59, 0.85 0.43 / 0.58, 0.8 0.42 / 0.58, 0.75 0.49 / 0.63, 0.7 0.62 / 0.74
    # (below 0.8 the generic closeness of a big segment returns).
    return np.where(plain >= NEAR_DUPLICATE, np.maximum(plain, topical), topical)
