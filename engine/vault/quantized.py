"""Page and turn vectors stored as int8 codes: a quarter of float32's bytes, read back as floats.

Those two tables hold three vectors per exchange, 97% of a vault's bytes in float32 (measured
with dbstat at 10k pages: 4.8 of 5.7 KB a page). Each vector is scaled by its largest
component to fill int8 and kept in a plain table (id, codes): the in-memory mirrors do the
searching, so vec0's chunks buy nothing here, and a plain row is updated and deleted like any
other (with `secure_delete` the freed bytes are zeroed; vec0 0.1.9 also refuses UPDATEs of
an int8 column). Reading divides the codes by their own length: the vector's direction is
kept to within rounding (cosine error ~4e-4 for 384 dimensions), and no scale is stored.
Segment and fact vectors, far fewer, stay float32 in vec0.
"""

from __future__ import annotations

from array import array

import numpy as np

from engine.vault.sql import locked as _locked

# The tables (and a re-embed's staging copies of them) whose rows are int8 codes.
QUANTIZED_TABLES = frozenset(
    {"pages_vec", "turns_vec", "pages_vec_next", "turns_vec_next", "words_vec"}
)


def is_quantized(table: str) -> bool:
    return table in QUANTIZED_TABLES


def create_sql(table: str) -> str:
    """The statement that creates one quantized table (or its copy during a migration)."""
    return f"CREATE TABLE {table}(id INTEGER PRIMARY KEY, embedding BLOB NOT NULL)"


def encode_many(matrix: np.ndarray) -> np.ndarray:
    """int8 codes of vectors (rows), each scaled so its largest component is +-127."""
    matrix = np.asarray(matrix, dtype=np.float32)
    if not matrix.size:
        return np.zeros(matrix.shape, dtype=np.int8)
    peak = np.max(np.abs(matrix), axis=1, keepdims=True)
    peak[~np.isfinite(peak) | (peak == 0)] = np.inf  # all-zero rows stay zero
    return np.rint(matrix * (np.float32(127.0) / peak)).astype(np.int8)


def encode(vector: np.ndarray) -> bytes:
    """The codes of one vector, as stored (the same arithmetic as encode_many)."""
    return encode_many(np.asarray(vector, dtype=np.float32)[None, :])[0].tobytes()


def inverse_norms(codes: np.ndarray) -> np.ndarray:
    """1 / length of each row of codes (0 for an all-zero row), as float32."""
    squares = np.einsum("ij,ij->i", codes, codes, dtype=np.float32)
    with np.errstate(divide="ignore"):
        out = np.where(squares > 0, 1.0 / np.sqrt(squares), 0.0)
    return out.astype(np.float32)


def decode_codes(codes: np.ndarray) -> np.ndarray:
    """Unit-length float32 vectors from a matrix of codes."""
    return codes.astype(np.float32) * inverse_norms(codes)[:, None]


def decode(blob: bytes) -> np.ndarray:
    """A unit-length float32 vector from one row's codes."""
    return decode_codes(np.frombuffer(blob, dtype=np.int8)[None, :])[0]


class QuantizedMixin:
    """Bulk reads of the int8 tables. Methods expect to run inside Vault (self.conn, self._lock)."""

    @_locked
    def vector_codes(self, table: str, after_id: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """(ids, int8 codes) of rows with id > after_id, in id order. Rows are streamed into
        one buffer: a list of 300k row tuples would cost more memory than the codes."""
        assert table in ("pages_vec", "turns_vec", "words_vec")
        ids = array("q")
        buffer = bytearray()
        for row_id, blob in self.conn.execute(
            f"SELECT rowid, embedding FROM {table} WHERE rowid > ? ORDER BY rowid", (after_id,)
        ):
            ids.append(row_id)
            buffer += blob
        if not ids:
            return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.int8)
        codes = np.frombuffer(buffer, dtype=np.int8).reshape(len(ids), -1)
        return np.frombuffer(ids, dtype=np.int64), codes
