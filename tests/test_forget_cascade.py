"""Forgetting cascades: what was derived from a forgotten page is rewritten or removed too."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import decrypted_bytes, raw_bytes

from engine.prompt import build_messages
from engine.settings import MemorySettings
from engine.vault import keys

WORD = "Zorblatt"
SECRET = f"I adopted a ferret named {WORD} and the ferret sleeps in a hammock."
FOLLOW = "The ferret hammock needs washing."


def _everywhere(memory) -> str:
    """Every text the vault holds that a person or a prompt could see, as one string."""
    parts = [json.dumps(memory.export_json(), ensure_ascii=False)]
    parts += [p.chain_summary for p in memory.pages(limit=10_000)]
    parts += [s.summary + " " + " ".join(s.keywords) for s in memory.segments(True)]
    parts += [c.title for c in memory.conversations()]
    return "\n".join(parts)


def _setup(memory, chat):
    memory.update_settings(
        MemorySettings(stm_capacity=1, stm_evict_batch=1, heat_threshold=0.5, chain_similarity=0.1)
    )
    secret = memory.add_memory(SECRET, "Ferrets love hammocks.")
    follow = memory.add_memory(FOLLOW, "Yes.")
    memory.add_memory("What should I cook tonight?", "Try a risotto.")
    # The model's batch refresh quotes the secret in the topic summary; its analysis cites no
    # evidence, so provenance must be found per item (the batch would keep the fact alive).
    chat.queue_json(
        {"pages": [], "segments": [{"id": 1, "summary": f"A ferret called {WORD}.",
                                    "keywords": [WORD.lower(), "ferret"]}]},
        {"profile": [{"category": "preference", "name": "pet", "value": f"ferret {WORD}",
                      "evidence": []}],
         "user_facts": [{"text": f"The user owns a ferret called {WORD}.", "evidence": []},
                        {"text": "The ferret hammock needs washing.", "evidence": []},
                        # a wrong citation: it quotes the secret page but cites the other one
                        {"text": f"{WORD} naps in the hammock.", "evidence": [follow.id]}],
         "assistant_knowledge": []},
    )  # fmt: skip
    memory.run_consolidation()
    return secret, follow


def test_preview_lists_what_goes_and_forget_rewrites_what_quoted_it(memory, chat, tmp_path):
    secret, follow = _setup(memory, chat)
    # Before: the word is in derived places, not only in its page (so this test can fail).
    assert WORD.lower() in " ".join(memory.segments()[0].keywords).lower()
    assert WORD in memory.segments()[0].summary
    assert WORD.lower() in memory.page(follow.id).chain_summary.lower()
    fact = next(f for f in memory.facts() if f.text == f"The user owns a ferret called {WORD}.")
    assert fact.source_page_ids == (secret.id,)  # exact provenance, not the whole batch
    washing = next(f for f in memory.facts() if f.text == "The ferret hammock needs washing.")
    assert washing.source_page_ids == (follow.id,)

    preview = memory.preview_forget_page(secret.id)
    assert preview.pages == [secret.id]
    assert fact.id in preview.facts and washing.id not in preview.facts
    miscited = next(f for f in memory.facts() if f.text == f"{WORD} naps in the hammock.")
    assert miscited.source_page_ids == (follow.id,) and miscited.id in preview.facts
    assert any(WORD in text for text in preview.fact_texts)
    # the model's entry, and the one the patterns read from "a ferret named Zorblatt"
    assert sorted(preview.slot_texts) == [f"ferret: {WORD}", f"pet: ferret {WORD}"]
    assert preview.segments_rewritten == [memory.page(follow.id).segment_id]
    assert preview.segments_removed == []
    assert preview.chain_summaries_rebuilt == [follow.id]
    assert preview.conversations_retitled == [secret.conversation_id]
    assert "1 exchange removed" in preview.lines()
    assert memory.page(secret.id).id == secret.id  # a preview changes nothing

    done = memory.forget_page(secret.id)
    assert done.facts == preview.facts and done.slots == preview.slots
    assert WORD.lower() not in _everywhere(memory).lower()
    assert memory.page(follow.id).chain_summary.startswith("Thread about: ")
    assert "hammock" in memory.segments()[0].keywords  # the rest is kept
    assert any(f.id == washing.id for f in memory.facts())
    title = memory.conversations()[0].title
    assert title.startswith("The ferret hammock needs washing")
    messages = build_messages(memory.retrieve("what is my pet called?"), "what is my pet called?")
    assert WORD.lower() not in json.dumps(messages).lower()


def test_no_byte_of_a_forgotten_page_is_left_on_disk(memory, chat, tmp_path, memory_keyring):
    secret, _ = _setup(memory, chat)
    export = tmp_path / "export.json"
    memory.forget_page(secret.id)
    memory.export_json(export)
    path: Path = memory.path
    assert Path(f"{path}-wal").stat().st_size == 0  # checkpointed and truncated
    hexkey = keys.stored_key(path)
    plain = decrypted_bytes(path, hexkey=hexkey, scratch=tmp_path / "plain")
    for blob in (plain, raw_bytes(path), export.read_bytes()):
        assert WORD.lower().encode() not in blob.lower()
    assert export.stat().st_mode & 0o777 == 0o600
    assert not list(tmp_path.glob("export.json.*"))  # no temporary copy left behind


def test_a_hand_added_fact_stays_and_a_segment_goes_with_its_last_page(memory):
    memory.update_settings(MemorySettings(stm_capacity=1, stm_evict_batch=1))
    first = memory.add_memory("I keep bees on the roof of my flat in Lyon.", "Lovely")
    second = memory.add_memory("Gardening tomatoes on my balcony is my weekend hobby.", "Nice")
    memory.add_memory("Tell me a joke", "Why did the chicken cross the road?")
    memory.run_consolidation()
    fact = memory.add_fact("The user keeps bees.")  # added by hand: no source, never cascaded
    segment = memory.page(first.id).segment_id
    assert segment is not None and memory.page(second.id).segment_id != segment
    preview = memory.preview_forget_pages([first.id])
    assert preview.segments_removed == [segment] and preview.segments_rewritten == []
    assert "1 topic removed" in preview.lines()
    memory.forget_pages([first.id])
    assert any(f.id == fact.id for f in memory.facts())
    assert [s.id for s in memory.segments(True)] == [memory.page(second.id).segment_id]


def test_backups_taken_before_a_forget_are_deleted_with_it(memory):
    page = memory.add_memory("I am allergic to penicillin.", "Noted")
    path = memory.path
    old = Path(f"{path}.backup-1")
    old.write_bytes(path.read_bytes())  # a backup taken before the forget holds the page
    preview = memory.preview_forget_page(page.id)
    assert preview.backups_deleted == [str(old)]
    memory.forget_page(page.id)
    assert not old.exists()


def test_an_interrupted_reembed_keeps_no_vector_of_a_forgotten_page(memory):
    from engine.backends.fake import HashEmbedder
    from engine.vault import reembed

    keep = memory.add_memory("I bake sourdough bread on Sundays.", "Yum")
    gone = memory.add_memory("My bank PIN hint is the cat's birthday.", "Noted")
    new = HashEmbedder(32, model_id="fake/next")
    reembed.prepare(memory.vault, new.model_id, new.dimension)
    rows = reembed.pending_texts(memory.vault, "pages", 10)
    vectors = new.embed([row[1] for row in rows])
    turns = reembed._turn_rows(rows)
    reembed.store(
        memory.vault,
        "pages",
        [(row[0], v) for row, v in zip(rows, vectors, strict=True)],
        [(row_id, new.embed_one(text)) for row_id, text in turns],
    )  # interrupted here: the staging tables hold both pages

    def staged(table: str) -> set[int]:
        return {r[0] for r in memory.vault.conn.execute(f"SELECT rowid FROM {table}_vec_next")}

    assert staged("pages") == {keep.id, gone.id}
    memory.forget_page(gone.id)
    assert staged("pages") == {keep.id}
    assert staged("turns") == {keep.id * 2, keep.id * 2 + 1}


def test_the_cli_says_what_a_forget_removed(tmp_path):
    from helpers import run_cli

    home = tmp_path / "home"
    talk = tmp_path / "talk.json"
    talk.write_text(
        json.dumps([{"user": "I secretly play the bagpipes at night.", "assistant": "Loud!"}]),
        encoding="utf-8",
    )
    assert run_cli("import", str(talk), "--create", "--embedder", "fake", home=home).returncode == 0
    done = run_cli("forget", "--embedder", "fake", "page", "1", "--yes", home=home)
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode()
    assert out.startswith("Forgotten: 1 exchange removed; 1 fact learned only from it removed")
    assert "1 conversation removed" in out


def test_a_profile_entry_is_not_taken_for_its_field_name(memory):
    """Forgetting the exchange whose answer said "a cat named Biscuit" keeps "name: Maria",
    learned from another exchange: the field's name ("name", "occupation") is the profile's own
    word, not something said (a keyboard-only walkthrough lost the person's name to /forget
    Biscuit). Its value is still matched: an entry saying Biscuit would go."""
    memory.update_settings(
        MemorySettings(stm_capacity=1, stm_evict_batch=1, heat_threshold=0.5, chain_similarity=0.1)
    )
    memory.add_memory("Hi, I'm Maria.", "Nice to meet you, Maria.")
    cat = memory.add_memory("We have a cat called Biscuit.", "Lovely, a cat named Biscuit!")
    memory.add_memory("What should I cook tonight?", "Try a risotto.")
    memory.run_consolidation()
    assert "name: Maria" in [s.text for s in memory.profile()]

    preview = memory.preview_forget_page(cat.id)
    assert "name: Maria" not in preview.slot_texts
    memory.forget_page(cat.id)
    assert "name: Maria" in [s.text for s in memory.profile()]
    dog = memory.add_memory("Our dog's name is Rex.", "Rex is a good name for a dog.")
    memory.add_memory("What should I cook tomorrow?", "Soup.")
    memory.run_consolidation()
    assert "name: Maria" not in memory.preview_forget_page(dog.id).slot_texts  # the very word


def test_a_transcript_fact_is_not_taken_for_its_speakers_name(memory):
    """In an imported transcript facts start with who said them ("Marianne: I ..."). Forgetting
    the one exchange whose words say "Marianne" keeps her facts from other exchanges: the label
    is the fact's own word, not something only the forgotten exchange said."""
    memory.update_settings(
        MemorySettings(stm_capacity=1, stm_evict_batch=1, heat_threshold=0.5, chain_similarity=0.1)
    )
    who = {"user_speaker": "Marianne", "agent_speaker": "Bogdan"}
    memory.add_memory("I work as a nurse at the city hospital.", "That sounds demanding.", meta=who)
    greeting = memory.add_memory("I got back from my trip.", "Welcome back, Marianne!", meta=who)
    memory.add_memory("What should I cook tonight?", "Try a risotto.", meta=who)
    memory.run_consolidation()
    nurse = "Marianne: I work as a nurse at the city hospital."
    assert nurse in [f.text for f in memory.facts()]

    preview = memory.preview_forget_page(greeting.id)
    assert nurse not in preview.fact_texts
    memory.forget_page(greeting.id)
    assert nurse in [f.text for f in memory.facts()]


def test_a_fact_that_paraphrases_another_exchange_is_kept(memory, chat):
    """A model's fact cites the exchange it came from and words it its own way ("the name she
    goes by"); forgetting an exchange that says "named" does not take it: the word said
    ("named") is not the fact's word ("name"), though they share a stem."""
    memory.update_settings(
        MemorySettings(stm_capacity=1, stm_evict_batch=1, heat_threshold=0.5, chain_similarity=0.1)
    )
    work = memory.add_memory("At work everyone calls me Maria.", "Nice to meet you, Maria.")
    cat = memory.add_memory("We have a cat, she is named Biscuit.", "Handy!")
    memory.add_memory("What should I cook tonight?", "Try a risotto.")
    chat.queue_json(
        {"pages": [], "segments": [{"id": 1, "summary": "Work.", "keywords": ["work"]}]},
        {"profile": [], "assistant_knowledge": [],
         "user_facts": [{"text": "Maria is the name she goes by at work.",
                         "evidence": [work.id]}]},
    )  # fmt: skip
    memory.run_consolidation()
    paraphrase = "Maria is the name she goes by at work."
    assert paraphrase in [f.text for f in memory.facts()]

    assert paraphrase not in memory.preview_forget_page(cat.id).fact_texts
    memory.forget_page(cat.id)
    assert paraphrase in [f.text for f in memory.facts()]
