"""Moving a vault to another embedding model: resumable, batch by batch, swapped in one step."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import numpy as np

from engine.records import turn_id
from engine.vault import quantized
from engine.vault.jobs import LEARN_WORDS
from engine.vault.store import Vault, _blob

TABLES = ("pages", "facts", "segments", "turns")


def _next(table: str) -> str:
    return f"{table}_vec_next"


def _create(name: str, dimension: int) -> str:
    """Page and turn vectors are int8 codes in plain tables; segment and fact vectors vec0."""
    if quantized.is_quantized(name):
        return quantized.create_sql(name)
    return f"CREATE VIRTUAL TABLE {name} USING vec0(embedding float[{dimension}])"


def _encode(name: str, vector: np.ndarray) -> bytes:
    return quantized.encode(vector) if quantized.is_quantized(name) else _blob(vector)


def prepare(vault: Vault, model_id: str, dimension: int) -> None:
    """Create the staging tables for the new model (or keep them, if the same move was interrupted)."""
    target = json.dumps({"model": model_id, "dimension": dimension})
    with vault.transaction():
        if vault.get_meta("reembed_target") != target:
            for table in TABLES:
                vault.conn.execute(f"DROP TABLE IF EXISTS {_next(table)}")
                vault.conn.execute(_create(_next(table), dimension))
            vault.set_meta("reembed_target", target)
            vault.conn.execute("DELETE FROM meta WHERE key LIKE 'reembed_last_%'")


def pending_texts(vault: Vault, table: str, limit: int) -> list[tuple[int, str]]:
    """Rows of pages or facts not yet embedded with the new model."""
    last = int(vault.get_meta(f"reembed_last_{table}") or 0)
    if table == "pages":
        sql = "SELECT id, user_input, agent_response, meta FROM pages WHERE id > ? ORDER BY id LIMIT ?"
        rows = vault.conn.execute(sql, (last, limit)).fetchall()
        return [
            (row[0], _page_text(row[1], row[2], json.loads(row[3])), row[1], row[2]) for row in rows
        ]
    sql = "SELECT id, text FROM facts WHERE id > ? ORDER BY id LIMIT ?"
    return [(row[0], row[1]) for row in vault.conn.execute(sql, (last, limit))]


def _turn_rows(rows: list[tuple]) -> list[tuple[int, str]]:
    """(turn rowid, text) for the pages in `rows` (rowid: records.turn_id)."""
    return [
        (turn_id(row[0], side), text)
        for row in rows
        for side, text in ((0, row[2]), (1, row[3]))
        if text.strip()
    ]


def _page_text(user_input: str, agent_response: str, meta: dict) -> str:
    from engine.records import Page

    return Page(0, user_input, agent_response, 0.0, "", "short", meta=meta).text()


def count(vault: Vault, table: str) -> tuple[int, int]:
    """(done, total) rows for pages or facts."""
    total = vault.conn.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]
    last = int(vault.get_meta(f"reembed_last_{table}") or 0)
    done = vault.conn.execute(f"SELECT count(*) FROM {table} WHERE id <= ?", (last,)).fetchall()[0][
        0
    ]
    return done, total


def store(
    vault: Vault,
    table: str,
    rows: list[tuple[int, np.ndarray]],
    turns: list[tuple[int, np.ndarray]] = (),
) -> None:
    with vault.transaction():
        for row_id, vector in turns:
            vault.conn.execute(
                f"INSERT INTO {_next('turns')}(rowid, embedding) VALUES(?, ?)",
                (row_id, _encode(_next("turns"), vector)),
            )
        for row_id, vector in rows:
            vault.conn.execute(
                f"INSERT INTO {_next(table)}(rowid, embedding) VALUES(?, ?)",
                (row_id, _encode(_next(table), vector)),
            )
        vault.set_meta(f"reembed_last_{table}", str(max(row_id for row_id, _ in rows)))


def finish(vault: Vault, model_id: str, dimension: int) -> None:
    """Segment centroids from the new page vectors, then swap the tables and the model record."""
    with vault.transaction():
        segments = [row[0] for row in vault.conn.execute("SELECT id FROM segments")]
        for segment_id in segments:
            blobs = [
                row[0]
                for row in vault.conn.execute(
                    f"SELECT v.embedding FROM {_next('pages')} v JOIN pages p ON p.id = v.rowid WHERE p.segment_id=?",
                    (segment_id,),
                )
            ]
            if blobs:
                mean = np.mean([quantized.decode(b) for b in blobs], axis=0)
                mean /= max(float(np.linalg.norm(mean)), 1e-12)
            else:
                mean = np.zeros(dimension, dtype=np.float32)
            vault.conn.execute(
                f"INSERT INTO {_next('segments')}(rowid, embedding) VALUES(?, ?)",
                (segment_id, _blob(mean)),
            )
        for table in TABLES:
            vault.conn.execute(f"DROP TABLE {table}_vec")
            vault.conn.execute(_create(f"{table}_vec", dimension))
            vault.conn.execute(
                f"INSERT INTO {table}_vec(rowid, embedding) SELECT rowid, embedding FROM {_next(table)}"
            )
            vault.conn.execute(f"DROP TABLE {_next(table)}")
        vault.set_meta("embedder_id", model_id)
        vault.set_meta("embedder_dimension", str(dimension))
        # the vocabulary's vectors came from the old model: learned again in the background
        vault.clear_words()
        last = vault.conn.execute("SELECT max(id) FROM pages").fetchall()[0][0]
        if last:
            vault.enqueue(LEARN_WORDS, {"upto": last}, time.time())
        vault.bump_vector_generation()  # every process's mirrors reload the new vectors
        vault.conn.execute(
            "DELETE FROM meta WHERE key='reembed_target' OR key LIKE 'reembed_last_%'"
        )


def reembed(
    vault: Vault, embedder, progress: Callable[[int, int], None] | None = None, batch: int = 64
) -> None:
    """Re-embed every page and fact with `embedder`. Safe to interrupt and run again."""
    embedder.load()
    prepare(vault, embedder.model_id, embedder.dimension)
    totals = {t: count(vault, t) for t in ("pages", "facts")}
    overall = sum(total for _, total in totals.values())
    done = sum(d for d, _ in totals.values())
    for table in ("pages", "facts"):
        while True:
            rows = pending_texts(vault, table, batch)
            if not rows:
                break
            turns = _turn_rows(rows) if table == "pages" else []
            vectors = embedder.embed([row[1] for row in rows] + [text for _, text in turns])
            staged = [
                (row[0], vector) for row, vector in zip(rows, vectors[: len(rows)], strict=True)
            ]
            extra = [
                (row_id, vector)
                for (row_id, _), vector in zip(turns, vectors[len(rows) :], strict=True)
            ]
            store(vault, table, staged, extra)
            done += len(rows)
            if progress:
                progress(done, overall)
    finish(vault, embedder.model_id, embedder.dimension)
