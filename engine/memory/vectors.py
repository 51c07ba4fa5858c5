"""An in-memory mirror of a vector table for fast dense search (decrypt once, scan in numpy)."""

from __future__ import annotations

import threading

import numpy as np

from engine.vault import quantized

# Up to this many rows a float32 copy is kept and scanned exactly (24 MiB at 384-d): a
# conversation-sized vault gives the same ranking as a float scan of its stored vectors.
EXACT_ROWS = 16384
# Above it, one bit per dimension (the sign) picks candidates by Hamming distance, and those
# are rescored exactly from their int8 codes. Candidates: this many per wanted row, at least
# MIN_CANDIDATES. Measured on the bench's text (HashEmbedder, 40k turns): the exact top 100
# was found 92 times in 100 with 2,000 candidates, 95 with 4,000 (ties make 100 unreachable).
CANDIDATES_PER_ROW = 20
MIN_CANDIDATES = 2000
SCORE_BLOCK = 512  # int8 rows converted to float32 at a time when rescoring


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


def _grown(buffer: np.ndarray | None, rows: int, axis: int = 0) -> np.ndarray | None:
    """`buffer` with room for `rows` along `axis`, doubling: appending one row at a time (each
    add_memory) then costs no copy of the whole matrix (it did: 115 MB at 100k pages)."""
    if buffer is None or buffer.shape[axis] >= rows:
        return buffer
    shape = list(buffer.shape)
    shape[axis] = max(rows, 2 * shape[axis], 64)
    out = np.zeros(shape, dtype=buffer.dtype)
    index = [slice(None)] * buffer.ndim
    index[axis] = slice(0, buffer.shape[axis])
    out[tuple(index)] = buffer
    return out


def _sign_bits(vectors: np.ndarray, block: int = 8192) -> np.ndarray:
    """One bit per dimension (positive or not), as (words, rows) uint64: a word per column
    keeps each XOR/popcount pass contiguous (2 ms for 300k rows here, 8 ms row-major).
    Computed a block of rows at a time, so the temporaries stay in cache."""
    rows, dimension = vectors.shape
    words = (dimension + 63) // 64
    out = np.zeros((words, rows), dtype=np.uint64)
    packed = np.zeros((min(block, rows), words * 8), dtype=np.uint8)
    for start in range(0, rows, block):
        chunk = vectors[start : start + block]
        packed[: len(chunk), : (dimension + 7) // 8] = np.packbits(chunk > 0, axis=1)
        out[:, start : start + len(chunk)] = packed[: len(chunk)].view(np.uint64).T
    return out


class VectorMirror:
    """Rows of a vector table kept in RAM; reconciled with the file when it changes.

    The encrypted file is the source of truth; scanning it through SQLite decrypts every page
    on every query (DESIGN.md §4), so search runs on this copy instead. Writes from this
    process update it directly; writes from other processes are picked up by `sync`.

    Page and turn vectors are held as their int8 codes (a quarter of float32's RAM), with a
    float32 copy while the table is small and sign bits once it is large (see EXACT_ROWS).
    """

    def __init__(self, vault, table: str) -> None:
        self.vault = vault
        self.table = table
        self.quantized = quantized.is_quantized(table)
        self._lock = threading.Lock()
        self._loaded = False
        self._data_version = -1
        self._generation = -1
        self._clear()

    def _clear(self) -> None:
        self._n = 0
        self._id_buffer = np.zeros(0, dtype=np.int64)
        self._codes: np.ndarray | None = None  # int8 (quantized tables)
        self._inverse: np.ndarray | None = None  # 1 / length of each row of codes
        self._floats: np.ndarray | None = None  # float32 rows, exact scan
        self._bits: np.ndarray | None = None  # (words, rows) sign bits, large quantized tables

    @property
    def _ids(self) -> np.ndarray:
        return self._id_buffer[: self._n]

    def _load_all(self) -> None:
        _single_threaded_blas()
        self._data_version = self.vault.data_version()
        self._generation = self.vault.vector_generation()
        self._clear()
        self._append(*self._read(0))
        self._loaded = True

    def _read(self, after_id: int) -> tuple[np.ndarray, np.ndarray]:
        if self.quantized:
            return self.vault.vector_codes(self.table, after_id=after_id)
        return self.vault.all_vectors(self.table, after_id=after_id)

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
            last = int(self._ids[-1]) if self._n else 0
            self._append(*self._read(last))
            if self.vault.count_rows(self.table) != self._n:
                self._load_all()  # a row below our last id arrived late: start over

    def _append(self, ids: np.ndarray, rows: np.ndarray) -> None:
        """Add rows (int8 codes for a quantized table, float32 otherwise) after the last."""
        count = len(ids)
        if not count:
            return
        start, end = self._n, self._n + count
        self._id_buffer = _grown(self._id_buffer, end)
        self._id_buffer[start:end] = ids
        if not self.quantized:
            if self._floats is None:
                self._floats = np.zeros((0, rows.shape[1]), dtype=np.float32)
            self._floats = _grown(self._floats, end)
            self._floats[start:end] = rows
            self._n = end
            return
        if self._codes is None and rows.flags.writeable:
            self._codes = rows  # a first load: the read buffer becomes the store, no copy
            self._inverse = quantized.inverse_norms(rows)
        else:
            if self._codes is None:
                self._codes = np.zeros((0, rows.shape[1]), dtype=np.int8)
                self._inverse = np.zeros(0, dtype=np.float32)
            self._codes = _grown(self._codes, end)
            self._inverse = _grown(self._inverse, end)
            self._codes[start:end] = rows
            self._inverse[start:end] = quantized.inverse_norms(rows)
        self._n = end
        if end <= EXACT_ROWS:
            if self._floats is None:
                self._floats = np.zeros((0, rows.shape[1]), dtype=np.float32)
            self._floats = _grown(self._floats, end)
            self._floats[start:end] = rows.astype(np.float32) * self._inverse[start:end, None]
            return
        if self._bits is None:  # crossed the threshold: sign bits for every row instead
            self._floats = None
            start = 0
            words = (rows.shape[1] + 63) // 64
            self._bits = np.zeros((words, 0), dtype=np.uint64)
        self._bits = _grown(self._bits, end, axis=1)
        self._bits[:, start:end] = _sign_bits(self._codes[start:end])

    def add(self, row_id: int, vector: np.ndarray) -> None:
        self.add_many([(row_id, vector)])

    def add_many(self, rows: list[tuple[int, np.ndarray]]) -> None:
        """Rows written together (engine/memory/short_term.write_many), in increasing id order."""
        with self._lock:
            if not self._loaded or not rows:
                return  # not loaded yet: loaded in full on first search
            ids = np.asarray([row_id for row_id, _ in rows], dtype=np.int64)
            if (self._n and ids[0] <= self._ids[-1]) or np.any(np.diff(ids) <= 0):
                self._loaded = False  # out of order (another writer): reload on next search
                return
            matrix = np.asarray([vector for _, vector in rows], dtype=np.float32)
            self._append(ids, quantized.encode_many(matrix) if self.quantized else matrix)

    def _stored(self, vector: np.ndarray) -> np.ndarray:
        """The row as the table holds it, so a reload finds exactly what was added."""
        if self.quantized:
            return np.frombuffer(quantized.encode(vector), dtype=np.int8)
        return np.asarray(vector, np.float32)

    def remove(self, row_ids: list[int]) -> None:
        with self._lock:
            if not self._loaded or not row_ids:
                return
            keep = ~np.isin(self._ids, np.asarray(row_ids, dtype=np.int64))
            if keep.all():
                return
            ids = self._ids[keep]
            rows = (self._codes if self.quantized else self._floats)[: self._n][keep]
            self._clear()
            self._append(ids, rows)

    def update(self, row_id: int, vector: np.ndarray) -> None:
        with self._lock:
            if not self._loaded or not self._n:
                return
            where = np.nonzero(self._ids == row_id)[0]
            if not len(where):
                return
            row = int(where[0])
            stored = self._stored(vector)
            if not self.quantized:
                self._floats[row] = stored
                return
            self._codes[row] = stored
            self._inverse[row] = quantized.inverse_norms(stored[None, :])[0]
            if self._floats is not None:
                self._floats[row] = stored.astype(np.float32) * self._inverse[row]
            if self._bits is not None:
                self._bits[:, row] = _sign_bits(stored[None, :])[:, 0]

    def reset(self) -> None:
        with self._lock:
            self._loaded = False
            self._clear()

    def _scores(self, rows: np.ndarray | None, query: np.ndarray) -> np.ndarray:
        """Cosine of the query with some rows (all when None), from floats or int8 codes."""
        if self._floats is not None:
            matrix = self._floats[: self._n]
            return matrix @ query if rows is None else matrix[rows] @ query
        count = self._n if rows is None else len(rows)
        inverse = self._inverse[: self._n] if rows is None else self._inverse[rows]
        # int8 codes converted to float32 a block at a time, into one buffer that stays in
        # the cache (4,000 candidates of 384-d: 0.74 -> 0.46 ms; the same products)
        out = np.empty(count, dtype=np.float32)
        block = np.empty((min(SCORE_BLOCK, count), self._codes.shape[1]), dtype=np.float32)
        for start in range(0, count, SCORE_BLOCK):
            end = min(start + SCORE_BLOCK, count)
            part = slice(start, end) if rows is None else rows[start:end]
            block[: end - start] = self._codes[part]
            np.matmul(block[: end - start], query, out=out[start:end])
        return out * inverse

    def _candidates(
        self, query: np.ndarray, wanted: int, rows: np.ndarray | None = None
    ) -> np.ndarray | None:
        """The rows (of `rows`, or of all) whose sign bits are nearest the query's; None or
        `rows` itself when there are too few to bother."""
        count = self._n if rows is None else len(rows)
        if self._bits is None or wanted >= count:
            return rows
        probe = _sign_bits(query[None, :])[:, 0]
        bits = self._bits[:, : self._n] if rows is None else self._bits[:, rows]
        distance = np.bitwise_count(bits[0] ^ probe[0]).astype(np.uint16)
        for word in range(1, len(probe)):
            distance += np.bitwise_count(bits[word] ^ probe[word])
        # the smallest distance that admits `wanted` rows (a histogram, not a sort): every row
        # at most that far goes on, so a tie at the edge is never cut arbitrarily
        counts = np.cumsum(np.bincount(distance, minlength=64 * len(probe) + 1))
        edge = int(np.searchsorted(counts, wanted))
        near = np.flatnonzero(distance <= edge)
        return near if rows is None else rows[near]

    def search(
        self, query: np.ndarray, k: int, allowed: np.ndarray | None = None
    ) -> list[tuple[int, float]]:
        """Top-k (id, cosine) by inner product (rows are unit length)."""
        self.sync()
        with self._lock:
            if not self._n or k <= 0:
                return []
            query = np.asarray(query, dtype=np.float32)
            rows = None
            if allowed is not None:
                rows = self._rows_of(allowed)
                if not len(rows):
                    return []
            rows = self._candidates(query, max(CANDIDATES_PER_ROW * k, MIN_CANDIDATES), rows)
            scores = self._scores(rows, query)
            ids = self._ids if rows is None else self._ids[rows]
            k = min(k, len(ids))
            top = np.argpartition(-scores, k - 1)[:k]
            # ties (common with short texts) go to the lower id, whichever path found them
            top = top[np.lexsort((ids[top], -scores[top]))]
            return [(int(ids[i]), float(scores[i])) for i in top]

    def _rows_of(self, row_ids) -> np.ndarray:
        """Positions of the ids present (ids are kept ascending: a binary search, not a scan)."""
        wanted = np.unique(np.asarray(row_ids, dtype=np.int64))
        rows = np.searchsorted(self._ids, wanted)
        found = rows < self._n
        rows, wanted = rows[found], wanted[found]
        return rows[self._ids[rows] == wanted]

    def vectors(self, row_ids: list[int]) -> dict[int, np.ndarray]:
        """The stored vectors of some rows (those present), by id, as unit float32."""
        self.sync()
        with self._lock:
            if not self._n or not row_ids:
                return {}
            rows = self._rows_of(row_ids)
            if self._floats is not None:
                matrix = self._floats[rows]
            else:
                matrix = quantized.decode_codes(self._codes[rows])
            return {int(self._ids[r]): matrix[i].copy() for i, r in enumerate(rows)}

    def held_bytes(self) -> int:
        """Bytes of decrypted vectors held in RAM now (0 after `reset`); does not load."""
        with self._lock:
            arrays = (self._codes, self._inverse, self._floats, self._bits)
            return sum(a.nbytes for a in arrays if a is not None)

    def __len__(self) -> int:
        self.sync()
        return self._n
