"""Deleting: a forgotten fact or page is gone from every table, FTS index and vector index."""

from __future__ import annotations

import pytest

from engine import errors
from engine.settings import MemorySettings


def fts_has(memory, table, word):
    conn = memory.vault.conn
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab_{table} USING fts5vocab(main, {table}, 'row')")
    rows = conn.execute(f"SELECT count(*) FROM temp.vocab_{table} WHERE term=?", (word,)).fetchall()
    return rows[0][0] > 0


def vec_rowids(memory, table):
    return {row[0] for row in memory.vault.conn.execute(f"SELECT rowid FROM {table}")}


def test_deleted_fact_is_gone_everywhere(memory):
    memory.add_memory("I keep a pet iguana named Quetzalcoatl at home.", "Wow")
    memory.run_consolidation()
    fact = next(f for f in memory.facts() if "iguana" in f.text)
    assert fts_has(memory, "facts_fts", "iguana")
    memory.delete_fact(fact.id)
    assert all(f.id != fact.id for f in memory.facts(include_superseded=True))
    assert not fts_has(memory, "facts_fts", "iguana")
    assert fact.id not in vec_rowids(memory, "facts_vec")
    with pytest.raises(errors.NotFoundError):
        memory.fact(fact.id)
    retrieved = memory.retrieve("pet iguana")
    assert all("iguana" not in f.fact.text for f in retrieved.facts)


def test_forgotten_page_is_gone_with_what_was_derived_only_from_it(memory):
    keep = memory.add_memory("I play the cello in a community orchestra.", "Lovely")
    gone = memory.add_memory("I secretly collect antique xylophones in my basement.", "Interesting")
    memory.run_consolidation()
    assert any("xylophones" in f.text for f in memory.facts())
    memory.forget_page(gone.id)
    assert not fts_has(memory, "pages_fts", "xylophon")
    assert gone.id not in vec_rowids(memory, "pages_vec")
    assert all("xylophones" not in f.text for f in memory.facts(include_superseded=True))
    assert any("cello" in f.text for f in memory.facts())
    result = memory.retrieve("antique xylophones basement")
    assert gone.id not in result.page_ids() and keep.id in result.page_ids()
    with pytest.raises(errors.NotFoundError):
        memory.page(gone.id)


def test_forget_conversation_and_segment(memory):
    memory.update_settings(MemorySettings(stm_capacity=1, stm_evict_batch=1))
    first = memory.new_conversation()
    for i in range(3):
        memory.add_memory(f"I restore vintage motorcycles, project {i}", "Cool")
    memory.new_conversation()
    other = memory.add_memory("I am learning Portuguese for a trip to Lisbon", "Boa sorte")
    memory.add_memory("Portuguese verbs are hard for me", "They are")
    memory.run_consolidation()
    memory.forget_conversation(first)
    assert all(p.conversation_id != first for p in memory.pages(limit=1000))
    assert all("motorcycles" not in f.text for f in memory.facts(include_superseded=True))
    segment = memory.page(other.id).segment_id
    assert segment is not None
    memory.forget_segment(segment)
    assert all(s.id != segment for s in memory.segments(include_archived=True))
    with pytest.raises(errors.NotFoundError):
        memory.page(other.id)


def test_forget_everything_and_unknown_ids(memory):
    memory.add_memory("I love jazz", "ok")
    memory.run_consolidation()
    memory.forget_everything()
    assert memory.pages() == [] and memory.facts() == [] and memory.profile() == []
    assert vec_rowids(memory, "pages_vec") == set() and vec_rowids(memory, "facts_vec") == set()
    assert memory.retrieve("jazz").page_ids() == []
    for call in (lambda: memory.delete_fact(999), lambda: memory.forget_page(999),
                 lambda: memory.forget_segment(999), lambda: memory.forget_conversation("nope"),
                 lambda: memory.edit_fact(999, "x"), lambda: memory.delete_profile_slot(999)):
        with pytest.raises(errors.NotFoundError):
            call()


def test_edit_fact_and_slot(memory):
    memory.add_memory("I'm Tom and I live in Boston.", "Hi")
    memory.run_consolidation()
    fact = memory.facts()[0]
    edited = memory.edit_fact(fact.id, "Tom lives in Cambridge, not Boston.")
    assert edited.text.startswith("Tom lives in Cambridge") and edited.origin == "user"
    assert memory.retrieve("Cambridge").facts[0].fact.id == fact.id
    slot = next(s for s in memory.profile() if s.name == "location")
    assert memory.edit_profile_slot(slot.id, "Cambridge").value == "Cambridge"
    with pytest.raises(errors.InvalidInputError):
        memory.edit_fact(fact.id, "   ")


def test_export_holds_everything(memory, tmp_path):
    page = memory.add_memory("I'm Ana and I love climbing.", "Nice", meta={"external_id": "D1:1"})
    memory.run_consolidation()
    out = tmp_path / "export.json"
    data = memory.export_json(out)
    assert out.exists() and data["format"] == "memoryos-export/1"
    assert data["pages"][0]["id"] == page.id and data["pages"][0]["meta"] == {"external_id": "D1:1"}
    assert any("climbing" in f["text"] for f in data["facts"])
    assert {row["page_id"] for row in data["fact_sources"]} == {page.id}
    assert any(s["value"] == "Ana" for s in data["profile"])
