"""Page and turn vectors stored as int8 codes: size, fidelity, migration of older vaults, search."""

from __future__ import annotations

import random

import numpy as np
import pytest

from engine import errors
from engine.api import MemoryOS
from engine.eval.bench import build_vault
from engine.eval.bench_data import synthetic_exchange
from engine.memory import vectors as mirror_module
from engine.memory import vocabulary
from engine.memory.vectors import VectorMirror
from engine.vault import quantized, schema
from engine.vault.sql import blob as float_blob

NOW = 1_790_000_000.0
PASS = "pw-long-enough"


def _open(path, embedder, create=False):
    return MemoryOS.open(path, create=create, passphrase=PASS, embedder=embedder, background=False)


def test_vectors_are_stored_as_one_byte_per_dimension(tmp_path, fail_keyring, embedder):
    with _open(tmp_path / "v.memoryos", embedder, create=True) as mem:
        page = mem.add_memory("I restore old pianos in my garage", "Which one are you on now?")
        conn = mem.vault.conn
        (blob,) = conn.execute(
            "SELECT embedding FROM pages_vec WHERE rowid=?", (page.id,)
        ).fetchall()[0]
        dimension = embedder.dimension
        assert len(blob) == dimension  # int8: one byte a dimension, not float32's four
        turns = conn.execute("SELECT rowid, length(embedding) FROM turns_vec").fetchall()
        assert sorted(turns) == [(2 * page.id, dimension), (2 * page.id + 1, dimension)]
        stored = mem.vault.page_vectors([page.id])[page.id]
        original = embedder.embed([page.text()])[0]
        assert np.linalg.norm(stored) == pytest.approx(1.0, abs=1e-5)
        assert float(stored @ original) > 0.9995  # the direction survives rounding


def _previous_program(old) -> None:
    """The program before step 0006: five schema steps, float32 vectors, no vocabulary."""
    old.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:5])
    old.setattr(quantized, "QUANTIZED_TABLES", frozenset())
    old.setattr(quantized, "encode", float_blob)
    old.setattr(vocabulary, "prepare", lambda ctx, pages: [])
    old.setattr(vocabulary, "learn", lambda ctx, pages: 0)
    old.setattr(vocabulary, "similar", lambda *args, **kwargs: {})


def _ranked(mem, queries):
    return [
        [
            (t.page_id, t.side)
            for t in mem.retrieve(q, query_vector=v, record_visits=False, now=NOW).turns
        ]
        for q, v in queries
    ]


def test_a_vault_of_the_previous_schema_migrates_and_finds_the_same_turns(
    tmp_path, fail_keyring, embedder, monkeypatch
):
    """A vault as the program before step 0006 wrote it (float32 vectors in vec0 tables) is
    converted on opening, after a backup, and retrieval returns the same turns."""
    path = tmp_path / "old.memoryos"
    with monkeypatch.context() as old:  # the previous program: five steps, float32 everywhere
        _previous_program(old)
        old.setattr(quantized, "decode", lambda b: np.frombuffer(b, dtype=np.float32).copy())
        with _open(path, embedder, create=True) as mem:
            build_vault(mem, 120, random.Random(3), pages_per_segment=20)
            assert (
                "vec0"
                in mem.vault.conn.execute(
                    "SELECT sql FROM sqlite_master WHERE name='turns_vec'"
                ).fetchall()[0][0]
            )
            rng = random.Random(5)
            texts = [synthetic_exchange(rng)[1] for _ in range(8)]
            queries = list(zip(texts, embedder.embed(texts, kind="query"), strict=True))
            before = _ranked(mem, queries)
            old_vectors = mem.vault.page_vectors(list(range(1, 121)))
    size_before = path.stat().st_size
    with _open(path, embedder) as mem:
        assert path.stat().st_size < 0.6 * size_before  # compacted after converting
        assert mem.vault.schema_steps()[5:7] == ["0006_int8_vectors", "0007_vocabulary"]
        assert len(list(tmp_path.glob("old.memoryos.backup-*"))) == 1
        conn = mem.vault.conn
        for table, count in (("pages_vec", 120), ("turns_vec", 240)):
            sizes = f"SELECT count(*), min(length(embedding)), max(length(embedding)) FROM {table}"
            assert conn.execute(sizes).fetchall()[0] == (
                count,
                embedder.dimension,
                embedder.dimension,
            )
        new_vectors = mem.vault.page_vectors(list(range(1, 121)))
        assert min(float(old_vectors[i] @ new_vectors[i]) for i in range(1, 121)) > 0.9995
        after = _ranked(mem, queries)
        # the same turns lead, but near-ties (scores within the codes' rounding, ~4e-4; common with
        # this bag-of-words embedder) may swap places in one list, and with them the rank-fusion
        # share each place earns: a turn can move a place or two, at the cut too
        for turns, earlier in zip(after, before, strict=True):
            assert len(set(turns[:3]) & set(earlier[:3])) >= 2
            assert set(turns[:3]) <= set(earlier[:5])
        shared = sum(len(set(a) & set(b)) for a, b in zip(after, before, strict=True))
        assert shared >= 0.95 * sum(len(b) for b in before)
        mem.add_memory("After the move I tuned a harpsichord", "How did it sound?")  # still writes
        assert mem.vault.count_rows("turns_vec") == 242


def test_add_memories_stores_what_add_memory_stores(tmp_path, fail_keyring, embedder):
    exchanges = [
        ("Yesterday I baked rye bread", "Did it rise?"),
        ("I went climbing", ""),
        ("", "Noted: call Ana"),
    ]
    with _open(tmp_path / "one.memoryos", embedder, create=True) as one:
        singles = [
            one.add_memory(u, a, NOW + i, conversation_id="c1")
            for i, (u, a) in enumerate(exchanges)
        ]
        one_rows = one.vault.dump_table("pages")
        one_vectors = one.vault.all_vectors("turns_vec")
        one_jobs = one.consolidation_status().pending_jobs
    with _open(tmp_path / "many.memoryos", embedder, create=True) as many:
        ids = many.add_memories(
            [(u, a, NOW + i) for i, (u, a) in enumerate(exchanges)], conversation_id="c1"
        )
        assert ids == [p.id for p in singles]
        rows = many.vault.dump_table("pages")
        keep = ("id", "conversation_id", "user_input", "agent_response", "ts", "meta", "tier")
        assert [{k: r[k] for k in keep} for r in rows] == [
            {k: r[k] for k in keep} for r in one_rows
        ]
        ids_, matrix = many.vault.all_vectors("turns_vec")
        assert list(ids_) == list(one_vectors[0]) == [2, 3, 4, 7]  # empty sides have no vector
        assert np.array_equal(matrix, one_vectors[1])
        assert many.consolidation_status().pending_jobs == one_jobs == 3
        hits = many.vault.keyword_search("pages_fts", "bread", 5)
        assert [h[0] for h in hits] == [ids[0]]
        found = many.retrieve("rye bread", now=NOW).pages
        assert found and found[0].page.id == ids[0]


def test_add_memories_refuses_bad_input_whole(tmp_path, fail_keyring, embedder):
    with _open(tmp_path / "v.memoryos", embedder, create=True) as mem:
        with pytest.raises(errors.InvalidInputError, match="exchange 1"):
            mem.add_memories([("fine", "also fine"), ("", "  ")])
        with pytest.raises(errors.InvalidInputError, match="exchange 0"):
            mem.add_memories([{"user_input": "hi", "agent": "typo"}])
        assert mem.vault.count_pages() == 0  # nothing of the batch was written
        assert mem.add_memories([]) == []


def test_mirror_search_past_the_exact_size(tmp_path, fail_keyring, embedder, monkeypatch):
    """Above EXACT_ROWS the mirror picks candidates by sign bits and rescores them: the nearest
    rows and their scores are those of an exact scan of the same codes."""
    monkeypatch.setattr(mirror_module, "EXACT_ROWS", 100)
    monkeypatch.setattr(mirror_module, "MIN_CANDIDATES", 30)
    rng = np.random.default_rng(0)
    centres = rng.standard_normal((20, 384)).astype(np.float32)
    rows = centres[rng.integers(0, 20, 600)] + 0.6 * rng.standard_normal((600, 384)).astype(
        np.float32
    )
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    with _open(tmp_path / "v.memoryos", embedder, create=True) as mem:
        vault = mem.vault
        with vault.transaction():
            for i, row in enumerate(rows[:500], start=1):
                vault.conn.execute(
                    "INSERT INTO turns_vec(rowid, embedding) VALUES(?, ?)",
                    (i, quantized.encode(row)),
                )
        mirror = VectorMirror(vault, "turns_vec")
        assert len(mirror) == 500 and mirror._floats is None and mirror._bits is not None
        mirror.add_many([(i, row) for i, row in enumerate(rows[500:], start=501)])
        ids, exact = vault.all_vectors("turns_vec")
        exact = np.vstack([exact, quantized.decode_codes(quantized.encode_many(rows[500:]))])
        for query_row in (3, 250, 555):
            query = rows[query_row] + 0.3 * rng.standard_normal(384).astype(np.float32)
            query /= np.linalg.norm(query)
            found = mirror.search(query, 5)
            scores = exact @ query
            best = np.argsort(-scores)[:5]
            assert [i for i, _ in found] == [int(b) + 1 for b in best]
            assert [s for _, s in found] == pytest.approx(
                [float(scores[b]) for b in best], abs=1e-5
            )
        mirror.remove([query_row + 1 for query_row in (3, 250)])
        assert len(mirror._ids) == 598 and 4 not in {i for i, _ in mirror.search(rows[3], 5)}
        mirror.update(556, -rows[555])
        assert mirror.vectors([556])[556] @ rows[555] < -0.999


def test_a_re_embed_interrupted_before_the_migration_finishes_after_it(
    tmp_path, fail_keyring, monkeypatch
):
    """The staging tables of a move to another embedder, left by the previous program, are
    converted too; the move then resumes and completes with int8 vectors."""
    from engine.backends.fake import HashEmbedder
    from engine.vault import Vault
    from engine.vault.reembed import reembed

    path = tmp_path / "v.memoryos"

    class Interrupting(HashEmbedder):
        def embed(self, texts, *, kind="document"):
            if self.calls >= 1:
                raise KeyboardInterrupt
            return super().embed(texts, kind=kind)

    with monkeypatch.context() as old:  # the previous program
        _previous_program(old)
        with _open(path, HashEmbedder(64), create=True) as mem:
            for i in range(20):
                mem.add_memory(f"I collect vintage stamps from country {i}", f"Nice {i}")
        vault = Vault.open(path, passphrase=PASS, embedder_id=None, dimension=0)
        with pytest.raises(KeyboardInterrupt):
            reembed(vault, Interrupting(32), batch=8)  # 8 pages staged as float32, then stopped
        vault.close()
    vault = Vault.open(path, passphrase=PASS, embedder_id=None, dimension=0)
    staged = vault.conn.execute("SELECT count(*), min(length(embedding)) FROM pages_vec_next")
    assert staged.fetchall()[0] == (8, 32)  # converted: 32 dimensions, one byte each
    reembed(vault, HashEmbedder(32), batch=8)
    vault.close()
    with _open(path, HashEmbedder(32)) as mem:
        assert mem.vault.count_rows("pages_vec") == 20 and mem.vault.count_rows("turns_vec") == 40
        lengths = mem.vault.conn.execute("SELECT DISTINCT length(embedding) FROM turns_vec")
        assert lengths.fetchall() == [(32,)]
        query = mem.embedder.embed_one("I collect vintage stamps from country 7 Nice 7")
        assert mem.page_mirror.search(query, 1)[0][0] == 8  # the new vectors answer the search
        assert 8 in mem.retrieve("vintage stamps from country 7").page_ids()[:3]
