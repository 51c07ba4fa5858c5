"""An in-memory mirror of a vec0 table for fast exact dense search (decrypt once, scan in numpy)."""

from __future__ import annotations

import threading

import numpy as np


def _single_threaded_blas() -> None:
    """A matrix-vector product is memory-bound: BLAS threads only fight the model for the cores
    (measured here: 3k x 384 took 21 ms with 2 OpenBLAS threads on a busy machine, 2 ms with 1)."""
    global _BLAS_LIMITED
    if not _BLAS_LIMITED:
        _BLAS_LIMITED = True
        try:
            from threadpoolctl import threadpool_limits

            threadpool_limits(1, user_api="blas")
        except Exception:  # threadpoolctl missing or no BLAS found: keep numpy's default
            pass


_BLAS_LIMITED = False


class VectorMirror:
    """Rows of a sqlite-vec table kept in RAM; reconciled with the file when it changes.

    The encrypted file is the source of truth; scanning it through vec0 decrypts every page on
    every query (DESIGN.md §4), so search runs on this copy instead. Writes from this process
    update it directly; writes from other processes are picked up by `sync`.
    """

    def __init__(self, vault, table: str) -> None:
        self.vault = vault
        self.table = table
        self._lock = threading.Lock()
        self._ids = np.zeros(0, dtype=np.int64)
        self._matrix: np.ndarray | None = None
        self._loaded = False
        self._data_version = -1
        self._generation = -1

    def _load_all(self) -> None:
        _single_threaded_blas()
        self._data_version = self.vault.data_version()
        self._generation = self.vault.vector_generation()
        ids, matrix = self.vault.all_vectors(self.table)
        self._ids = ids
        self._matrix = matrix if len(ids) else None
        self._loaded = True

    def sync(self) -> None:
        """Load on first use; afterwards append rows with new ids, or reload when any process
        removed or changed rows. Keyed by id: ids are never reused (schema step 0004), and
        every removal or change bumps the vault's vector generation."""
        # The vault's lock first, as a writer inside a transaction takes them (persona
        # learning searches facts mid-transaction): the opposite order deadlocked with a
        # question asked at the same time.
        with self.vault._lock, self._lock:
            if not self._loaded:
                self._load_all()
                return
            version = self.vault.data_version()
            if version == self._data_version:
                return  # no other process committed since we last looked
            self._data_version = version
            if self.vault.vector_generation() != self._generation:
                self._load_all()  # another process forgot, deleted or edited rows
                return
            last = int(self._ids[-1]) if len(self._ids) else 0
            ids, matrix = self.vault.all_vectors(self.table, after_id=last)
            self._append(ids, matrix)
            if self.vault.count_rows(self.table) != len(self._ids):
                self._load_all()  # a row below our last id arrived late: start over

    def _append(self, ids: np.ndarray, matrix: np.ndarray) -> None:
        if not len(ids):
            return
        self._ids = np.concatenate([self._ids, ids])
        self._matrix = matrix if self._matrix is None else np.vstack([self._matrix, matrix])

    def add(self, row_id: int, vector: np.ndarray) -> None:
        with self._lock:
            if not self._loaded:
                return  # loaded in full on first search
            if len(self._ids) and row_id <= self._ids[-1]:
                self._loaded = False  # out of order (another writer): reload on next search
                return
            self._append(
                np.asarray([row_id], dtype=np.int64), np.asarray(vector, np.float32)[None, :]
            )

    def remove(self, row_ids: list[int]) -> None:
        with self._lock:
            if not self._loaded or not row_ids:
                return
            keep = ~np.isin(self._ids, np.asarray(row_ids, dtype=np.int64))
            self._ids = self._ids[keep]
            if self._matrix is not None:
                self._matrix = self._matrix[keep]
                if not len(self._ids):
                    self._matrix = None

    def update(self, row_id: int, vector: np.ndarray) -> None:
        with self._lock:
            if not self._loaded or self._matrix is None:
                return
            where = np.nonzero(self._ids == row_id)[0]
            if len(where):
                self._matrix[where[0]] = vector

    def reset(self) -> None:
        with self._lock:
            self._loaded = False
            self._ids = np.zeros(0, dtype=np.int64)
            self._matrix = None

    def search(
        self, query: np.ndarray, k: int, allowed: np.ndarray | None = None
    ) -> list[tuple[int, float]]:
        """Top-k (id, cosine) by exact inner product (rows are unit length)."""
        self.sync()
        with self._lock:
            if self._matrix is None or not len(self._ids):
                return []
            query = np.asarray(query, dtype=np.float32)
            if allowed is None:
                ids, scores = self._ids, self._matrix @ query
            else:
                # ids are kept ascending, so a subset is found by binary search, not a scan
                wanted = np.unique(np.asarray(allowed, dtype=np.int64))
                rows = np.searchsorted(self._ids, wanted)
                found = rows < len(self._ids)
                rows, wanted = rows[found], wanted[found]
                rows = rows[self._ids[rows] == wanted]
                if not len(rows):
                    return []
                ids, scores = self._ids[rows], self._matrix[rows] @ query
            k = min(k, len(ids))
            top = np.argpartition(-scores, k - 1)[:k]
            top = top[np.argsort(-scores[top])]
            return [(int(ids[i]), float(scores[i])) for i in top]

    def vectors(self, row_ids: list[int]) -> dict[int, np.ndarray]:
        """The stored vectors of some rows (those present), by id."""
        self.sync()
        with self._lock:
            if self._matrix is None or not row_ids:
                return {}
            wanted = np.unique(np.asarray(row_ids, dtype=np.int64))
            rows = np.searchsorted(self._ids, wanted)
            found = rows < len(self._ids)
            rows, wanted = rows[found], wanted[found]
            keep = self._ids[rows] == wanted
            return {
                int(i): self._matrix[r].copy()
                for i, r in zip(wanted[keep], rows[keep], strict=True)
            }

    def __len__(self) -> int:
        self.sync()
        return len(self._ids)
