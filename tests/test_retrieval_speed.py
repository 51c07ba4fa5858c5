"""Speed refactors of retrieval return exactly what the slower paths returned."""

from __future__ import annotations

import random
import secrets

import numpy as np
import pytest

from engine.api import MemoryOS
from engine.backends.fake import HashEmbedder
from engine.eval.bench import build_vault
from engine.eval.bench_data import synthetic_exchange
from engine.memory import keywords

NOW = 1_790_000_000.0


@pytest.fixture
def mem(tmp_path):
    memory = MemoryOS.open(
        tmp_path / "speed.memoryos",
        create=True,
        passphrase=secrets.token_urlsafe(24),
        embedder=HashEmbedder(384),
        background=False,
    )
    yield memory
    memory.close()


def _page(vault, conversation: str, ts: float) -> int:
    vault.ensure_conversation(conversation, ts, title=conversation)
    return vault.insert_page(
        conversation_id=conversation,
        user_input="hello",
        agent_response="hi",
        ts=ts,
        meta={},
        body="User: hello\nAssistant: hi",
        vector=np.ones(384, dtype=np.float32) / np.sqrt(384),
        now=ts,
    )


def test_neighbour_ids_in_one_query(mem):
    vault = mem.vault
    with vault.transaction():
        a1 = _page(vault, "a", 100.0)
        b1 = _page(vault, "b", 150.0)
        a2 = _page(vault, "a", 200.0)
        a3 = _page(vault, "a", 200.0)  # same time as a2: the id orders them
        b2 = _page(vault, "b", 250.0)
    around = vault.neighbour_ids([a1, a2, a3, b1, b2, 10_000])
    assert around == {
        a1: (None, a2),
        a2: (a1, a3),
        a3: (a2, None),
        b1: (None, b2),
        b2: (b1, None),
    }  # conversations do not mix; an unknown id is left out
    assert vault.neighbour_ids([]) == {}


def test_batched_lookups(mem):
    build_vault(mem, 60, random.Random(3), pages_per_segment=20)
    vault = mem.vault
    segments = sorted({vault.pages([p])[0].segment_id for p in range(1, 61)})
    assert len(segments) == 3
    assert sorted(vault.page_ids_of_segments(segments[:2])) == list(range(1, 41))
    assert vault.page_ids_of_segments([]) == []
    terms = ["bicycl", "lisbon", "nosuchterm"]
    assert vault.document_frequency("pages_fts", terms) == _old_document_frequency(
        vault, "pages_fts", terms
    )
    assert vault.document_frequency("pages_fts", ["nosuchterm"]) == {"nosuchterm": 0}


def _old_neighbour_ids(vault, page_ids):
    """The per-page query the batched one replaced (the reference)."""
    out = {}
    for page_id in page_ids:
        rows = vault.conn.execute(
            "SELECT (SELECT q.id FROM pages q WHERE q.conversation_id=p.conversation_id AND "
            "(q.ts < p.ts OR (q.ts = p.ts AND q.id < p.id)) ORDER BY q.ts DESC, q.id DESC "
            "LIMIT 1), (SELECT q.id FROM pages q WHERE q.conversation_id=p.conversation_id AND "
            "(q.ts > p.ts OR (q.ts = p.ts AND q.id > p.id)) ORDER BY q.ts, q.id LIMIT 1) "
            "FROM pages p WHERE p.id=?",
            (page_id,),
        ).fetchall()
        if rows:
            out[page_id] = (rows[0][0], rows[0][1])
    return out


def _old_document_frequency(vault, table, terms):
    """One query per term, as before (the reference)."""
    vault.conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{table}_terms "
        f"USING fts5vocab(main, {table}, 'row')"
    )
    out = {}
    for term in terms:
        rows = vault.conn.execute(
            f"SELECT doc FROM temp.{table}_terms WHERE term=?", (term,)
        ).fetchall()
        out[term] = rows[0][0] if rows else 0
    return out


def _ranked(mem, queries):
    out = []
    for text, vector in queries:
        result = mem.retrieve(text, query_vector=vector, record_visits=False, now=NOW)
        out.append([(t.page_id, t.side, t.score, t.sources) for t in result.turns])
    return out


def test_fast_paths_rank_the_same_turns(mem, monkeypatch):
    build_vault(mem, 200, random.Random(7), pages_per_segment=20)
    rng = random.Random(11)
    texts = [synthetic_exchange(rng)[0] for _ in range(10)]
    queries = list(zip(texts, mem.embedder.embed(texts, kind="query"), strict=True))
    fast = _ranked(mem, queries)
    vault = mem.vault
    monkeypatch.setattr(vault, "neighbour_ids", lambda ids: _old_neighbour_ids(vault, ids))
    monkeypatch.setattr(keywords, "fts_term", keywords.fts_term.__wrapped__)  # no cache
    monkeypatch.setattr(
        vault,
        "page_ids_of_segments",
        lambda ids: [p for s in ids for p in vault.page_ids_of_segment(s)],
    )
    monkeypatch.setattr(
        vault, "document_frequency", lambda t, terms: _old_document_frequency(vault, t, terms)
    )
    slow = _ranked(mem, queries)
    assert fast == slow
    assert all(len(turns) == 2 * mem.settings.top_pages for turns in fast)  # the budget filled


def test_all_vectors_in_one_array(mem):
    build_vault(mem, 30, random.Random(5))
    vault = mem.vault
    ids, matrix = vault.all_vectors("pages_vec")
    assert list(ids) == list(range(1, 31)) and matrix.shape == (30, 384)
    stored = vault.page_vectors(list(range(1, 31)))
    assert all(np.array_equal(matrix[i], stored[i + 1]) for i in range(30))
    later, rest = vault.all_vectors("pages_vec", after_id=28)
    assert list(later) == [29, 30] and np.array_equal(rest, matrix[28:])
    assert matrix.flags.writeable  # the mirror edits rows in place (re-embedding)
    assert np.array_equal(mem.page_mirror.vectors([3])[3], stored[3])  # loaded from the vault
    mem.page_mirror.update(3, np.zeros(384, dtype=np.float32))
    assert not mem.page_mirror.vectors([3])[3].any()
    empty_ids, empty = vault.all_vectors("pages_vec", after_id=30)
    assert len(empty_ids) == 0 and empty.shape == (0, 0)
