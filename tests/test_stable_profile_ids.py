"""Profile entry ids are never reused (schema step 0009), and a move replaces every fact that
said where the person lived, also after the entry it replaced was deleted."""

from __future__ import annotations

import pytest

from engine.api import MemoryOS
from engine.records import SUPERSEDED, USER_FACT
from engine.vault import schema


def learn(memory, user: str, agent: str = "Okay."):
    page = memory.add_memory(user, agent)
    memory.run_consolidation()
    return page


def entry(memory, value: str):
    return next(s for s in memory.profile(include_superseded=True) if s.value == value)


def _open(path, embedder, chat=None) -> MemoryOS:
    return MemoryOS.open(path, create=True, embedder=embedder, chat=chat, background=False)


def test_a_deleted_profile_entry_id_is_not_given_to_the_next_entry(memory):
    learn(memory, "I live in Lisbon.")
    learn(memory, "I moved to Madrid last month.")
    madrid = entry(memory, "Madrid")
    memory.delete_profile_slot(madrid.id)

    learn(memory, "I moved to Rome yesterday.")

    rome = entry(memory, "Rome")
    assert rome.id > madrid.id  # a listing that still shows the old id cannot delete Rome
    facts = [f.text for f in memory.facts(USER_FACT)]
    assert "I moved to Rome yesterday." in facts
    assert "I moved to Madrid last month." not in facts  # the move replaced it too
    assert "I live in Lisbon." not in facts
    [madrid_fact] = [f for f in memory.facts(USER_FACT, include_superseded=True)
                     if f.text.startswith("I moved to Madrid")]
    assert madrid_fact.status == SUPERSEDED


def test_a_move_after_the_only_place_was_deleted_replaces_its_fact(memory):
    learn(memory, "I moved to Madrid last month.")
    memory.delete_profile_slot(entry(memory, "Madrid").id)  # no place left in the profile
    learn(memory, "I visited Madrid for a conference.")

    learn(memory, "I moved to Rome yesterday.")

    facts = [f.text for f in memory.facts(USER_FACT)]
    assert "I moved to Madrid last month." not in facts
    assert "I visited Madrid for a conference." in facts  # a visit says nothing of a home
    assert [s.value for s in memory.profile() if s.name == "location"] == ["Rome"]


def _slots(memory):
    return [
        (s.id, s.category, s.name, s.value, s.status, s.superseded_by, s.evidence_page_ids)
        for s in memory.profile(include_superseded=True)
    ]


def test_a_vault_of_the_previous_schema_keeps_its_ids_and_never_reuses_one(
    tmp_path, memory_keyring, embedder, chat, monkeypatch
):
    path = tmp_path / "old.memoryos"
    with monkeypatch.context() as old:  # the program before step 0009
        old.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:8])
        with _open(path, embedder, chat) as mem:
            learn(mem, "I live in Lisbon.")
            learn(mem, "I moved to Madrid last month.")
            learn(mem, "My name is Ana.")
            learn(mem, "I really love hiking in the hills.")
            mem.get_response("Where do I live?").collect()  # its Used list names the entries
            hiking = entry(mem, "likes hiking in the hills")
            mem.delete_profile_slot(hiking.id)  # the highest id: the old schema gave it again
            sql = mem.vault.conn.execute(
                "SELECT sql FROM sqlite_master WHERE name='profile'"
            ).fetchall()[0][0]
            assert "AUTOINCREMENT" not in sql.upper()
            before = _slots(mem)
            assert len(before) == 3

    with _open(path, embedder, chat) as mem:
        assert "0009_stable_profile_ids" in mem.vault.schema_steps()
        assert _slots(mem) == before  # every entry, id, link and piece of evidence kept
        conn = mem.vault.conn
        indexes = {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='index' AND tbl_name='profile'")}
        assert "profile_slot" in indexes
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        learn(mem, "I moved to Rome yesterday.")
        rome = entry(mem, "Rome")
        assert rome.id > hiking.id  # deleted before the step, named by an answer's Used list
        mem.delete_profile_slot(rome.id)

    with _open(path, embedder, chat) as mem:  # closed and opened again
        learn(mem, "I moved to Porto last week.")
        assert entry(mem, "Porto").id > rome.id
        madrid = entry(mem, "Madrid")
        page_id = madrid.evidence_page_ids[0]
        mem.forget_page(page_id)  # the evidence still follows its entry
        with pytest.raises(StopIteration):
            entry(mem, "Madrid")
