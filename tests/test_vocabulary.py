"""The vocabulary: learned from the pages in the background, each word once; it loses a word
when the last page saying it is forgotten, everything with a wipe, and is learned again for a
new embedder."""

from __future__ import annotations

import pytest

from engine.api import MemoryOS
from engine.backends.fake import HashEmbedder
from engine.memory import keywords, vocabulary
from engine.vault import Vault
from engine.vault.jobs import LEARN_WORDS
from engine.vault.reembed import reembed

PASS = "pw-long-enough"


def _open(path, embedder=None, create=False):
    return MemoryOS.open(
        path,
        create=create,
        passphrase=PASS,
        embedder=embedder or HashEmbedder(4096),
        background=False,
    )


def _known(mem, *words: str) -> set[str]:
    """Which of these words the vocabulary holds (in the file and in RAM)."""
    ids = mem.vault.word_ids([keywords.fts_term(w) for w in words])
    in_ram = {i for i, _ in mem.word_mirror.search(mem.embedder.embed_one(" ".join(words)), 10**6)}
    assert set(ids.values()) <= in_ram  # the mirror holds what the file holds
    return {w for w in words if keywords.fts_term(w) in ids}


@pytest.fixture
def mem(tmp_path, fail_keyring):
    with _open(tmp_path / "v.memoryos", create=True) as memory:
        yield memory


def test_words_are_learned_by_consolidation_once_each(mem):
    mem.add_memory("My sister moved to Trondheim", "Cold winters there!")
    assert _known(mem, "trondheim") == set()  # not on the write path: in the background
    mem.run_consolidation()
    assert _known(mem, "sister", "moved", "trondheim", "cold", "winters") == {
        "sister",
        "moved",
        "trondheim",
        "cold",
        "winters",
    }
    assert _known(mem, "my", "to", "there") == set()  # stopwords and short words are not kept
    before = mem.vault.count_rows("words")
    mem.add_memory("Trondheim again: my sister loves it", "Cold but lovely")
    mem.run_consolidation()
    # only "loves" is new ("lovely" is the same stem; the rest were known)
    assert mem.vault.count_rows("words") == before + 1
    assert _known(mem, "loves", "lovely") == {"loves", "lovely"}
    assert len(mem.word_mirror) == mem.vault.count_rows("words")


def test_a_word_another_process_added_first_is_not_added_twice(mem):
    page = mem.add_memory("I tune harpsichords", "Lovely")
    prepared = vocabulary.prepare(mem.ctx, [page])
    with mem.vault.transaction():
        first = vocabulary.store(mem.ctx, prepared, [page])
    with mem.vault.transaction():
        second = vocabulary.store(mem.ctx, prepared, [page])  # another process got there first
    assert len(first) == len(prepared) > 0 and second == []


def test_forgetting_the_last_page_that_says_a_word_takes_it_out(mem):
    first = mem.add_memory("My neighbour Ingrid moved to Trondheim", "Nice city")
    second = mem.add_memory("Trondheim has a lovely cathedral", "I have heard so")
    mem.run_consolidation()
    mem.forget_pages([first.id])
    assert _known(mem, "ingrid", "neighbour", "trondheim", "cathedral") == {
        "trondheim",
        "cathedral",
    }  # Trondheim is still said by the second page
    mem.forget_pages([second.id])
    assert _known(mem, "trondheim", "cathedral") == set()
    dump = [row[0] for row in mem.vault.conn.execute("SELECT word FROM words")]
    assert "trondheim" not in dump and "ingrid" not in dump


def test_forgetting_everything_empties_the_vocabulary(mem):
    mem.add_memory("I keep bees on my roof", "How many hives?")
    mem.run_consolidation()
    assert mem.vault.count_rows("words") > 0
    mem.forget_everything()
    assert mem.vault.count_rows("words") == 0 == mem.vault.count_rows("words_vec")
    assert len(mem.word_mirror) == 0


def test_a_new_embedder_learns_the_vocabulary_again(tmp_path, fail_keyring):
    path = tmp_path / "v.memoryos"
    with _open(path, HashEmbedder(64), create=True) as mem:
        for i in range(12):
            mem.add_memory(f"I collect stamps from country {i}", f"Nice {i}")
        mem.run_consolidation()
        words = mem.vault.count_rows("words")
    vault = Vault.open(path, passphrase=PASS, embedder_id=None, dimension=0)
    reembed(vault, HashEmbedder(32), batch=8)
    assert vault.count_rows("words") == 0  # the old model's vectors are gone with it
    assert [job.kind for job in vault.pending_jobs(limit=10)] == [LEARN_WORDS]
    vault.close()
    with _open(path, HashEmbedder(32)) as mem:
        mem.run_consolidation()
        assert mem.vault.count_rows("words") == words
        lengths = mem.vault.conn.execute("SELECT DISTINCT length(embedding) FROM words_vec")
        assert lengths.fetchall() == [(32,)]
        stamps = mem.vault.word_ids(["stamp"])["stamp"]
        assert mem.word_mirror.search(mem.embedder.embed_one("stamps"), 1)[0][0] == stamps
