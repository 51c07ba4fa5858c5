"""Words with accents or in other scripts: search, retrieval and topic keywords find them whole
and match them with or without accents, as the full-text index (unicode61
remove_diacritics 2) does."""

from __future__ import annotations

import json

from engine import conversations
from engine.conversations import MARK_END, MARK_START
from engine.memory import keywords
from engine.settings import MemorySettings
from tests.helpers import run_cli

SAID = [
    ("We ate pastéis de nata in Belém after the tram ride", "Lisbon's best custard tarts."),
    ("The train to Zürich leaves at nine", "Bring a warm coat."),
    ("Мы жили в Москве два года", "Интересно."),
    ("I repaired the bike in the garage", "Well done."),
]


def _hit_ids(memory, text: str) -> list[int]:
    return [hit.page_id for hit in conversations.search(memory, text)]


def test_search_finds_accented_and_cyrillic_words_with_or_without_accents(memory):
    ids = [memory.add_memory(user, agent).id for user, agent in SAID]
    pastries, train, moscow, _ = ids
    assert _hit_ids(memory, "pastéis") == [pastries]
    assert _hit_ids(memory, "pasteis") == [pastries]  # typed without the accent
    assert _hit_ids(memory, "Belém") == [pastries]
    assert _hit_ids(memory, "belem") == [pastries]
    assert _hit_ids(memory, "Zürich") == [train]
    assert _hit_ids(memory, "Москве") == [moscow]
    assert _hit_ids(memory, "Моск") == [moscow]  # search as you type
    (hit,) = conversations.search(memory, "Belém pastéis")
    assert f"{MARK_START}Belém{MARK_END}" in hit.snippet
    assert f"{MARK_START}pastéis{MARK_END}" in hit.snippet
    (hit,) = conversations.search(memory, "Москве")
    assert f"{MARK_START}Москве{MARK_END}" in hit.snippet


def test_terminal_search_finds_an_accented_word_and_marks_it_whole(tmp_path, home):
    data = [{"user": user, "assistant": agent, "timestamp": f"2025-03-0{i + 1}T10:00:00Z"}
            for i, (user, agent) in enumerate(SAID)]  # fmt: skip
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    done = run_cli("import", str(path), "--create", "--embedder", "fake", home=home)
    assert done.returncode == 0, done.stderr.decode()
    found = run_cli("search", "pastéis", "--embedder", "fake", home=home)
    assert found.returncode == 0, found.stderr.decode()
    out = found.stdout.decode()
    assert "[pastéis]" in out and "Nothing holds" not in out
    found = run_cli("search", "Москве", "--embedder", "fake", home=home)
    assert found.returncode == 0, found.stderr.decode()
    assert "[Москве]" in found.stdout.decode()


def test_topic_keywords_keep_accented_words_whole(memory):
    assert keywords.extract("Belém, then Belém again, and Zürich") == ["belém", "zürich"]
    memory.update_settings(MemorySettings(stm_capacity=1, stm_evict_batch=1))
    for day in range(4):
        memory.add_memory(f"We walked around Belém and ate pastéis, day {day}", "Lovely.")
    memory.run_consolidation()
    (segment,) = [s for s in memory.segments() if s.keywords]
    assert "belém" in segment.keywords and "pastéis" in segment.keywords
    assert not {"bel", "m", "past", "is"} & set(segment.keywords)


def test_retrieval_finds_an_exchange_by_an_accented_word(memory):
    memory.update_settings(MemorySettings(stm_capacity=1, stm_evict_batch=1))
    ids = [memory.add_memory(user, agent).id for user, agent in SAID]
    for day in range(30):  # more older exchanges than a question's vector search alone ranks
        memory.add_memory(f"Groceries list for day {day}: bread, milk, eggs", "Noted.")
    memory.run_consolidation()
    ranked = [item.page.id for item in memory.retrieve("What was in Belem?").pages]
    assert ranked and ranked[0] == ids[0]
    ranked = [item.page.id for item in memory.retrieve("Когда я был в Москве?").pages]
    assert ranked and ranked[0] == ids[2]


# Stored by the index (unicode61 remove_diacritics 2) as the right-hand side: Latin letters lose
# their accents, Greek and Cyrillic keep theirs.
STORED = {"Belém": "belem", "Łódź": "łodz", "Nẵng": "nang", "Αθήνα": "αθήνα",
          "Ἀθῆναι": "ἀθῆναι", "ёлка": "ёлка", "йогурт": "йогурт"}  # fmt: skip


def test_words_are_folded_as_the_index_stores_them(memory):
    memory.add_memory(" ".join(STORED), "Noted.")
    held = memory.vault.document_frequency("pages_fts", sorted(STORED.values()))

    assert {keywords.fold(word) for word in STORED} == set(STORED.values())
    assert all(held.get(term) == 1 for term in STORED.values()), held


def test_a_greek_word_on_every_page_is_not_taken_for_a_rare_one(memory):
    """Retrieval leaves out of the keyword search the words most exchanges hold. Folded as
    Latin, "Αθήνα" was looked up as "αθηνα", counted on no page, and kept as a rare word."""
    from engine.retrieval_lists import keyword_terms

    for day in range(25):
        memory.add_memory(f"Στην Αθήνα σήμερα, μέρα {day}", "Ωραία.")

    match, idf = keyword_terms(memory.vault, "pages_fts", "Αθήνα καφές")

    assert "αθήνα" not in match.casefold() and "καφές" in match
