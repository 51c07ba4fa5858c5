"""Restoring an export (`memoryos import EXPORT.json`): real encrypted vaults, export, restore,
and the restored vault read back as the original reads."""

from __future__ import annotations

import json

import pytest

from engine import chat_commands, restore
from engine.api import MemoryOS
from engine.errors import InvalidInputError
from engine.records import ASSISTANT_KNOWLEDGE, SUPERSEDED
from engine.settings import MemorySettings
from tests.helpers import run_cli

FAKE = ("--embedder", "fake")


def _fill(memory, chat) -> dict:
    """Two conversations, a fact by /remember, learned facts and profile entries, knowledge,
    a superseded profile value, an answer that remembered things, then a fact deleted and an
    exchange forgotten."""
    memory.update_settings(MemorySettings(stm_capacity=3, stm_evict_batch=2))
    said = [
        "Hi, I'm Maya and I work as a nurse in Toronto.",
        "I adopted a greyhound called Biscuit last week.",
        "I play the cello on Sundays.",
        "Peanuts make me ill, I am allergic.",
    ]
    first = memory.new_conversation()
    for n, text in enumerate(said):
        memory.add_memory(text, f"Noted: {text}", timestamp=1_700_000_000 + n * 3600)
    memory.new_conversation()
    memory.add_memory("I live in Zürich now.", "Lovely city.", timestamp=1_700_100_000)
    memory.add_memory("I bake sourdough bread.", "Yum.", timestamp=1_700_100_600)
    memory.run_consolidation()
    remembered = chat_commands.remember(memory, "I am vegetarian")  # /remember
    memory.add_fact("I promised to suggest peanut-free recipes", kind=ASSISTANT_KNOWLEDGE)
    chat.queue("Avoid peanuts, Maya.")
    stream = memory.get_response("what am I allergic to? peanuts?")
    "".join(stream)
    memory.run_consolidation()
    greyhound = next(f for f in memory.facts() if "greyhound" in f.text)
    memory.delete_fact(greyhound.id)  # deleted in the privacy panel: must not come back
    cello = next(p for p in memory.pages(limit=1000) if "cello" in p.user_input)
    memory.forget_page(cello.id)
    memory.run_consolidation()
    return {"first": first, "remembered": remembered.text}


def _conversations(memory):
    return [(c.id, c.title, c.first_ts, c.last_ts, c.pages) for c in memory.conversations()]


def _pages(memory):
    return sorted(
        (p.conversation_id, p.timestamp, p.user_input, p.agent_response, json.dumps(p.meta))
        for p in memory.pages(limit=10_000)
    )


def _said(memory, page_ids) -> list[str]:
    return sorted(memory.page(i).user_input for i in page_ids)


def _facts(memory):
    facts = memory.facts(include_superseded=True)
    text = {f.id: f.text for f in facts}
    return sorted(
        (f.kind, f.text, f.status, f.origin, f.created, f.updated,
         tuple(_said(memory, f.source_page_ids)), text.get(f.superseded_by))
        for f in facts
    )  # fmt: skip


def _profile(memory):
    slots = memory.profile(include_superseded=True)
    value = {s.id: s.value for s in slots}
    return sorted(
        (s.category, s.name, s.value, s.status, s.origin, s.created, s.updated,
         tuple(_said(memory, s.evidence_page_ids)), value.get(s.superseded_by))
        for s in slots
    )  # fmt: skip


def _answers_remembered(memory):
    pages = memory.pages(limit=10_000)
    used = memory.memories_used([p.id for p in pages])
    found = sorted(
        (p.user_input, tuple((m.kind, m.text, m.forgotten) for m in used[p.id])) for p in pages
    )
    assert any(items for _, items in found)  # the answer's list is there to compare
    return found


@pytest.fixture
def restored(tmp_path, memory_keyring, embedder):
    mem = MemoryOS.open(tmp_path / "restored.memoryos", create=True, embedder=embedder,
                        background=False)  # fmt: skip
    yield mem
    mem.close()


def test_an_export_restores_into_a_new_vault_as_it_was(memory, chat, restored, tmp_path):
    facts = _fill(memory, chat)
    data = memory.export_json(tmp_path / "memory.json")
    data = json.loads((tmp_path / "memory.json").read_text(encoding="utf-8"))

    report = restore.restore(restored, data)
    restored.run_consolidation()

    assert report.exchanges == 6 and report.conversations == 2 and report.settings
    assert _conversations(restored) == _conversations(memory)
    assert _pages(restored) == _pages(memory)
    assert _facts(restored) == _facts(memory)
    assert _profile(restored) == _profile(memory)
    assert _answers_remembered(restored) == _answers_remembered(memory)
    assert any(s[3] == SUPERSEDED for s in _profile(restored))  # Toronto, then Zürich
    texts = [f.text for f in restored.facts(include_superseded=True)]
    assert facts["remembered"] in texts
    assert next(f for f in restored.facts() if f.text == facts["remembered"]).origin == "user"
    # forgotten before the export: neither the deleted fact nor the forgotten exchange is back,
    # also after consolidation has run over the restored exchanges
    assert not any("greyhound" in t for t in texts)
    assert not any("cello" in p.user_input for p in restored.pages(limit=1000))
    assert restored.settings.stm_capacity == 3
    # rebuilt, not copied: topics from consolidation, searchable text and vectors
    assert restored.segments() and restored.consolidation_status().pending_jobs == 0
    found = restored.retrieve("sourdough bread")
    assert any("sourdough" in p.page.user_input for p in found.pages) or any(
        "sourdough" in p.user_input for p in found.short_term
    )
    assert restored.consolidation_status().words > 0


def test_restored_exchanges_join_the_vocabulary_of_a_vault_in_use(memory, chat, restored):
    """Restored into a vault that already talks (its own words learned, its one-time catch-up
    done): the restored exchanges' words join the vocabulary as a new exchange's would."""
    from engine.memory import keywords

    _fill(memory, chat)
    memory.run_consolidation()
    restored.add_memory("I repair old bicycles.", "Nice hobby.")
    restored.run_consolidation()
    restore.restore(restored, memory.export_json())
    restored.run_consolidation()
    words = ["sourdough", "greyhound", "toronto", "bicycles"]
    known = restored.vault.word_ids([keywords.fts_term(w) for w in words])
    assert sorted(known) == sorted(keywords.fts_term(w) for w in words)
    original = {t for t, in memory.vault.conn.execute("SELECT term FROM words")}
    now = {t for t, in restored.vault.conn.execute("SELECT term FROM words")}
    assert original <= now


def test_restoring_twice_adds_nothing_twice(memory, chat, restored, tmp_path):
    _fill(memory, chat)
    data = memory.export_json()
    restore.restore(restored, data)
    before = (_pages(restored), _facts(restored), _profile(restored))
    again = restore.restore(restored, json.loads(json.dumps(data)))
    assert again.exchanges == again.facts == again.profile == 0
    assert again.skipped_exchanges == 6
    assert (_pages(restored), _facts(restored), _profile(restored)) == before
    # into the vault it came from: nothing is added either
    same = restore.restore(memory, data)
    assert same.exchanges == 0 and same.skipped_exchanges == 6


def test_a_bad_export_changes_nothing(memory, chat, restored):
    _fill(memory, chat)
    data = memory.export_json()
    data["facts"][-1]["status"] = "maybe"
    with pytest.raises(InvalidInputError, match="unknown status"):
        restore.restore(restored, data)
    assert restored.pages() == [] and restored.facts() == []
    newer = dict(data, format="memoryos-export/2")
    with pytest.raises(InvalidInputError, match="newer MemoryOS"):
        restore.restore(restored, newer)


# ---- the command, as a person runs it --------------------------------------------------------


def _transcript(tmp_path):
    data = [
        {"role": "user", "content": "Hi, I'm Maya and I work as a nurse in Toronto.",
         "timestamp": "2025-03-01T10:00:00Z"},
        {"role": "assistant", "content": "Nice to meet you, Maya!"},
        {"role": "user", "content": "I adopted a greyhound called Biscuit last week.",
         "timestamp": "2025-03-02T10:00:00Z"},
        {"role": "assistant", "content": "Biscuit is a great name."},
        {"role": "user", "content": "I live in Zürich now.", "timestamp": "2025-03-03T10:00:00Z"},
        {"role": "assistant", "content": "Lovely city."},
    ]  # fmt: skip
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _without_ids(listing: str) -> list[str]:
    return sorted(line.split(None, 2)[2] for line in listing.splitlines())


def test_memoryos_import_restores_an_export(tmp_path, home):
    created = run_cli("import", str(_transcript(tmp_path)), "--create", *FAKE, home=home)
    assert created.returncode == 0
    assert run_cli("facts", "add", "I am vegetarian", *FAKE, home=home).returncode == 0
    data = json.loads(run_cli("facts", "list", "--json", *FAKE, home=home).stdout)
    greyhound = next(f for f in data["facts"] if "greyhound" in f["text"])
    assert run_cli("facts", "delete", greyhound["ref"], "--yes", *FAKE, home=home).returncode == 0
    original = run_cli("facts", "list", "--all", *FAKE, home=home).stdout.decode()
    backup = tmp_path / "memory.json"
    assert run_cli("export", str(backup), *FAKE, home=home).returncode == 0

    refused = run_cli("import", str(backup), "--vault", "restore", *FAKE, home=home)
    assert refused.returncode == 2 and "No memory named 'restore'" in refused.stderr.decode()
    assert "--create" in refused.stderr.decode()
    done = run_cli("import", str(backup), "--vault", "restore", "--create", *FAKE, home=home)
    err = done.stderr.decode()
    assert done.returncode == 0, err
    assert (
        "Restored 3 exchanges in 1 conversation, 3 facts and knowledge (1 of them replaced by a "
        "newer one), 4 profile entries (1 of them replaced by a newer one)" in err
    )  # the status line says 2 facts: the replaced one is listed only with --all
    assert "Not restored: topic summaries" in err

    listing = run_cli("facts", "list", "--all", "--vault", "restore", *FAKE, home=home)
    assert _without_ids(listing.stdout.decode()) == _without_ids(original)
    assert "greyhound" not in listing.stdout.decode()  # deleted before the export
    again = json.loads(run_cli("export", "-", "--vault", "restore", *FAKE, home=home).stdout)
    exported = json.loads(backup.read_text(encoding="utf-8"))
    keys = ("conversation_id", "user_input", "agent_response", "ts", "meta")
    assert [[p[k] for k in keys] for p in again["pages"]] == [
        [p[k] for k in keys] for p in exported["pages"]
    ]
    assert again["conversations"] == exported["conversations"]

    twice = run_cli("import", str(backup), "--vault", "restore", *FAKE, home=home)
    assert twice.returncode == 0
    assert "Already in the vault, not added again: 3 exchanges" in twice.stderr.decode()
    assert "Nothing new to restore" in twice.stderr.decode()
    assert "Not restored" not in twice.stderr.decode()
    relisted = run_cli("facts", "list", "--all", "--vault", "restore", *FAKE, home=home)
    assert relisted.stdout == listing.stdout


def test_an_export_from_a_newer_memoryos_is_a_clear_error(tmp_path, home):
    run_cli("import", str(_transcript(tmp_path)), "--create", *FAKE, home=home)
    backup = tmp_path / "memory.json"
    run_cli("export", str(backup), *FAKE, home=home)
    data = json.loads(backup.read_text(encoding="utf-8"))
    data["format"] = "memoryos-export/7"
    backup.write_text(json.dumps(data), encoding="utf-8")
    out = run_cli("import", str(backup), "--vault", "new", "--create", *FAKE, home=home)
    err = out.stderr.decode()
    assert out.returncode == 2 and "newer MemoryOS" in err and "memoryos-export/7" in err
    assert b"Traceback" not in out.stderr
    assert not (home / "data" / "vaults" / "new.memoryos").exists()  # nothing was created


def test_memoryos_export_says_how_many_facts_are_replaced_ones(tmp_path, home):
    """`facts list` shows current facts: the export's count says how many of its facts are
    replaced ones, as a restore's does, so the numbers match what the person sees."""
    created = run_cli("import", str(_transcript(tmp_path)), "--create", *FAKE, home=home)
    assert created.returncode == 0
    shown = json.loads(run_cli("facts", "list", "--json", *FAKE, home=home).stdout)["facts"]
    backup = tmp_path / "memory.json"
    done = run_cli("export", str(backup), *FAKE, home=home)
    assert done.returncode == 0, done.stderr.decode()

    facts = json.loads(backup.read_text(encoding="utf-8"))["facts"]
    replaced = sum(f["status"] == SUPERSEDED for f in facts)
    assert replaced == 1 and len(facts) - replaced == len(shown)
    assert (
        f"Exported 3 pages and {len(facts)} facts (1 of them replaced by a newer one) to"
        in done.stderr.decode()
    )


def _with_a_replaced_fact(memory) -> None:
    """Two current facts and one replaced by a newer one (shown only with replaced items)."""
    memory.add_fact("I am vegetarian")
    older = memory.add_fact("Tom lives in Boston.")
    newer = memory.add_fact("Tom moved to Denver.")
    memory.vault.supersede_fact(older.id, newer.id, older.updated)


def test_the_counts_say_how_many_facts_are_replaced_ones(memory, restored, tmp_path):
    """The app lists current facts; a restore's counts say how many of its facts are replaced
    ones, so that they match what the person sees."""
    _with_a_replaced_fact(memory)
    memory.export_json(tmp_path / "memory.json")
    data = json.loads((tmp_path / "memory.json").read_text(encoding="utf-8"))
    shown = len(memory.facts())

    first = restore.restore(restored, data)
    again = restore.restore(restored, data)

    assert len(restored.facts()) == shown == 2
    assert (first.facts, first.replaced_facts) == (3, 1)
    assert "3 facts and knowledge (1 of them replaced by a newer one)" in first.lines()[0]
    assert (again.linked_facts, again.linked_replaced_facts) == (3, 1)
    already = next(line for line in again.lines() if line.startswith("Already in the vault"))
    assert "3 facts (1 of them replaced by a newer one)" in already


def test_a_repeat_restore_says_there_was_nothing_new(memory, chat, restored, tmp_path):
    _fill(memory, chat)
    memory.export_json(tmp_path / "memory.json")
    data = json.loads((tmp_path / "memory.json").read_text(encoding="utf-8"))
    first = restore.restore(restored, data)
    assert any(line.startswith("Not restored: topic summaries") for line in first.lines())

    again = restore.restore(restored, data)

    lines = again.lines()
    assert lines[0] == (
        "Nothing new to restore: this vault already holds everything in the export."
    )
    assert not any(line.startswith(("Restored", "Not restored")) for line in lines)
    assert any(line.startswith("Already in the vault, not added again: 6 exchanges") for line in lines)
