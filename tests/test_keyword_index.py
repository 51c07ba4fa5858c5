"""The in-RAM keyword index ranks pages exactly as FTS5's bm25() does, and never returns a page
that is gone (real encrypted vaults, FTS5 itself as the reference)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from engine.memory import when
from engine.memory.keyword_index import KeywordIndex

EXCHANGES = [
    ("We went hiking in the Alps last summer.", "How long was the hike?"),
    ("Hiking hiking hiking: I hike every weekend.", "That is a lot of hiking."),
    ("My mother-in-law bakes sourdough bread.", "Sourdough takes patience."),
    ("I bought a café table for the garden.", "A cafe table sounds nice."),
    ("The violin lessons start in March.", "Violin is hard at first."),
    ("We went hiking in the Alps last summer.", "How long was the hike?"),  # a tie
    ("Bread, bread and more bread at the bakery.", "You like bread."),
    ("I repaired the old bicycle yesterday.", "Good job on the bicycle."),
    ("The podcast about whales was long but the whales were amazing.", "Whales sing."),
    ("Chess openings bore me; the endgame is where chess gets fun.", "Try the Sicilian."),
    ("", "A reply with no question before it, about the garden."),
    ("Just a greeting.", ""),
]
QUERIES = [
    '"hiking"',
    '"hiking" OR "alps"',
    '"hike" OR "hiking" OR "hikes"',  # three phrases, one stem: each counts, as in FTS5
    '"bread" OR "sourdough" OR "bakery"',
    '"mother-in-law"',  # a phrase of three tokens
    '"cafe" OR "café"',
    '"whales" OR "chess" OR "garden" OR "violin"',
    '"the"',  # in most pages: FTS5's idf floor
    '"zeppelin"',
    '"zeppelin" OR "bicycle"',
    '"old bicycle" OR "bicycle old"',
]


def fts5(vault, match: str, limit: int) -> list[tuple[int, float]]:
    """What FTS5 itself answers (the index detached)."""
    index, vault.keyword_index = vault.keyword_index, None
    try:
        return vault.keyword_search("pages_fts", match, limit)
    finally:
        vault.keyword_index = index


def indexed(memory, match: str, limit: int) -> list[tuple[int, float]]:
    """What the index answers; fails if it would hand the question to FTS5."""
    with memory.vault._lock:
        hits = memory.ctx.keyword_index.search(match, limit)
    assert hits is not None
    return hits


def same_ranking(got, expected) -> None:
    assert [page for page, _ in got] == [page for page, _ in expected]
    for (_, score), (_, reference) in zip(got, expected, strict=True):
        assert score == pytest.approx(reference, rel=1e-12, abs=1e-15)


@pytest.fixture
def filled(memory):
    memory.add_memories(EXCHANGES)
    return memory


@pytest.mark.parametrize("match", QUERIES)
def test_bm25_ranks_as_fts5(filled, match):
    for limit in (3, 50):
        expected = fts5(filled.vault, match, limit)
        same_ranking(indexed(filled, match, limit), expected)
        # and the vault's own method, which retrieval calls, answers from the index
        same_ranking(filled.vault.keyword_search("pages_fts", match, limit), expected)
    assert filled.ctx.keyword_index.ready.is_set()


def test_known_order_and_ties(filled):
    ids = filled.vault.conn.execute("SELECT id FROM pages ORDER BY id").fetchall()
    first, *_ = (row[0] for row in ids)
    hits = indexed(filled, '"alps"', 10)
    # the two identical pages tie; the lower id comes first, as in FTS5's ORDER BY rank
    assert [page for page, _ in hits] == [first, first + 5]
    assert hits[0][1] == hits[1][1] > 0
    assert [page for page, _ in indexed(filled, '"mother-in-law"', 10)] == [first + 2]
    assert [page for page, _ in indexed(filled, '"bicycle old"', 10)] == []


def test_document_frequency_as_fts5(filled):
    terms = ["hike", "bread", "the", "zeppelin", "violin", "mother-in-law"]
    index, filled.vault.keyword_index = filled.vault.keyword_index, None
    expected = filled.vault.document_frequency("pages_fts", terms)
    filled.vault.keyword_index = index
    with filled.vault._lock:
        got = filled.ctx.keyword_index.document_frequency(terms)
    assert got == expected
    assert got["hike"] == 3 and got["bread"] == 2 and got["zeppelin"] == 0


def test_pages_added_after_opening_are_found(filled):
    indexed(filled, '"hiking"', 10)  # built now
    page = filled.add_memory("A zeppelin flew over the hiking trail.", "Rare sight!")
    more = filled.add_memories([("Zeppelins again, and bread.", "Twice in a week.")])
    for match in ('"zeppelin"', '"hiking" OR "zeppelin"', '"bread" OR "zeppelins"'):
        same_ranking(indexed(filled, match, 20), fts5(filled.vault, match, 20))
    # the shorter page first: both hold the term once
    assert [p for p, _ in indexed(filled, '"zeppelin"', 5)] == [more[0], page.id]


def test_forgotten_pages_are_never_returned(filled):
    hiking = [p for p, _ in indexed(filled, '"hiking"', 10)]
    assert len(hiking) == 3
    filled.forget_page(hiking[0])
    got = indexed(filled, '"hiking"', 10)
    assert hiking[0] not in [p for p, _ in got]
    same_ranking(got, fts5(filled.vault, '"hiking"', 10))  # row count and lengths follow too
    filled.ctx.keyword_index._data.pack()  # as after many more pages: repacked without it
    same_ranking(indexed(filled, '"hiking"', 10), got)
    assert hiking[0] not in filled.retrieve("hiking in the alps").page_ids()
    filled.forget_everything()
    assert filled.vault.keyword_search("pages_fts", '"hiking" OR "bread"', 10) == []
    assert filled.retrieve("hiking bread").page_ids() == []


def test_a_rolled_back_page_is_not_indexed(filled):
    vault = filled.vault
    indexed(filled, '"hiking"', 10)
    with pytest.raises(RuntimeError), vault.transaction():
        filled.add_memory("An airship over the lake.", "Fancy.")
        # inside the transaction FTS5 answers (the write may still roll back)
        assert len(vault.keyword_search("pages_fts", '"airship"', 5)) == 1
        raise RuntimeError("undo")
    assert vault.keyword_search("pages_fts", '"airship"', 5) == []
    page = filled.add_memory("Sourdough starter died.", "Start again.")  # may reuse the id
    assert [p for p, _ in indexed(filled, '"starter"', 5)] == [page.id]
    assert indexed(filled, '"airship"', 5) == []


def test_date_phrases_match_consecutive_tokens(memory):
    said = datetime(2023, 5, 8, 15, tzinfo=timezone.utc).timestamp()
    day = memory.add_memory("Yesterday we planted tomatoes.", "Nice!", timestamp=said)
    other = memory.add_memory("On May 7 2023 nothing happened.", "Ok.", timestamp=said)
    memory.add_memory("In 2023, the 7 best days were in May.", "Ok.", timestamp=said)
    start = datetime(2023, 5, 7, tzinfo=timezone.utc).timestamp()
    phrases = when.date_phrases((start, start + 86400))
    assert phrases == ["7 May 2023"]
    match = " OR ".join(f'"{p}"' for p in phrases)
    hits = indexed(memory, match, 10)
    assert [p for p, _ in hits] == [day.id]  # "yesterday [7 May 2023]" as stored
    same_ranking(hits, fts5(memory.vault, match, 10))
    reordered = indexed(memory, '"May 7 2023"', 10)
    assert [p for p, _ in reordered] == [other.id]
    # the question that names the day finds the turn that said "yesterday"
    result = memory.retrieve("What did we plant on 7 May 2023?", now=said + 86400 * 30)
    said_it = next(t for t in result.turns if (t.page_id, t.side) == (day.id, 0))
    assert "dated" in said_it.sources


def test_large_vault_builds_in_background_with_fts5_meanwhile(memory):
    memory.add_memories(EXCHANGES)
    index = KeywordIndex(memory.vault, sync_pages=3)  # "large": built in a thread
    memory.vault.keyword_index = memory.ctx.keyword_index = index
    try:
        with memory.vault._lock:  # not started before a question: FTS5 answers
            assert index.search('"hiking"', 10) is None
        first = memory.vault.keyword_search("pages_fts", '"hiking" OR "bread"', 10)
        assert not index.ready.is_set()
        memory.retrieve("hiking and bread")  # the first question starts the build
        assert index.wait_ready(30)
        gone = first[0][0]
        memory.forget_page(gone)
        with memory.vault._lock:
            after = index.search('"hiking" OR "bread"', 10)
        assert after is not None and gone not in [p for p, _ in after]
        same_ranking(after, fts5(memory.vault, '"hiking" OR "bread"', 10))
    finally:
        memory.vault.keyword_index = memory.ctx.keyword_index


def test_another_process_writes_are_picked_up(filled, tmp_path, embedder, chat):
    from engine.api import MemoryOS

    indexed(filled, '"hiking"', 10)
    other = MemoryOS.open(filled.path, embedder=embedder, chat=chat, background=False)
    try:
        page = other.add_memory("Another window wrote about zeppelins.", "Noted.")
        hiking = [p for p, _ in indexed(filled, '"hiking"', 10)]
        other.forget_page(hiking[0])
    finally:
        other.close()
    got = indexed(filled, '"hiking" OR "zeppelins"', 10)
    assert page.id in [p for p, _ in got] and hiking[0] not in [p for p, _ in got]
    same_ranking(got, fts5(filled.vault, '"hiking" OR "zeppelins"', 10))
