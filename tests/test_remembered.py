"""What an answer remembered: exactly the prompt's memories, saved with the exchange."""

from __future__ import annotations

import time

import pytest

from engine import remembered
from engine.records import ASSISTANT_KNOWLEDGE
from engine.settings import MemorySettings
from tests.helpers import prompt_ids


def _fill(memory) -> None:
    """Facts, knowledge, a profile slot, mid-term pages and recent pages."""
    memory.update_settings(MemorySettings(stm_capacity=3, stm_evict_batch=2))
    topics = [
        "my sister Ana lives in Porto",
        "I play the cello on Sundays",
        "peanuts make me ill, I am allergic",
        "I work on sailing boats",
        "my cat is called Miso",
        "I am learning Japanese",
        "I bake sourdough bread",
    ]
    for n, text in enumerate(topics):
        memory.add_memory(text, f"Noted: {text}.", timestamp=1_700_000_000 + n * 3600)
    memory.run_consolidation()
    memory.add_fact("I am allergic to peanuts")
    memory.add_fact("My sister Ana lives in Porto")
    memory.add_fact("I promised to suggest peanut-free recipes", kind=ASSISTANT_KNOWLEDGE)
    with memory.vault.transaction():
        memory.vault.insert_slot("identity", "name", "Tom", "user", [], time.time())


def test_remembered_ids_are_exactly_what_the_prompt_builder_received(memory, chat, spied, capsys):
    _fill(memory)
    chat.queue("Avoid peanuts, Tom.")
    stream = memory.get_response("what am I allergic to? peanuts?")
    stream.collect()

    (retrieval,) = spied
    shown = [item.key for item in stream.memories]
    assert shown == prompt_ids(retrieval)
    kinds = {kind for kind, _ in shown}
    assert kinds == {"profile", "fact", "knowledge", "exchange"}
    tiers = {item.tier for item in stream.memories if item.kind == "exchange"}
    assert tiers == {"recent", "topic"}
    # Each item's text is in the prompt the model saw.
    prompt = "\n".join(m["content"] for m in chat.seen_messages[-1])
    for item in stream.memories:
        for line in item.text.splitlines():
            assert line.split(": ", 1)[-1] in prompt, item
    # Saved with the exchange, same ids, same order, same text.
    stored = memory.memories_used([stream.page.id])[stream.page.id]
    assert [i.key for i in stored] == shown
    assert [i.text for i in stored] == [i.text for i in stream.memories]
    assert not any(i.forgotten for i in stored)
    print("\nquestion:", stream.query)
    print("prompt builder received:", prompt_ids(retrieval))
    print("remembered, shown:      ", shown)
    print("remembered, stored:     ", [i.key for i in stored])
    print(remembered.summary(stored))


def test_an_item_forgotten_later_shows_as_forgotten(memory, chat):
    _fill(memory)
    stream = memory.get_response("peanuts allergy")
    stream.collect()
    before = memory.memories_used([stream.page.id])[stream.page.id]
    fact = next(i for i in before if i.kind == "fact" and "peanuts" in i.text)

    memory.delete_fact(fact.id)
    memory.add_fact("I like figs")  # may take the deleted fact's id: must not show up instead

    after = memory.memories_used([stream.page.id])[stream.page.id]
    assert [i.key for i in after] == [i.key for i in before]
    gone = [i for i in after if i.forgotten]
    assert [i.key for i in gone] == [fact.key]
    assert gone[0].text == "" and "figs" not in " ".join(i.text for i in after)
    assert remembered.summary(after).endswith("(1 forgotten since)")


def test_a_forgotten_exchange_shows_as_forgotten_and_the_answer_keeps_its_list(memory, chat):
    memory.add_memory("I restore old pianos", "What a craft.")
    stream = memory.get_response("what do I restore?")
    stream.collect()
    (used,) = [i for i in stream.memories if i.kind == "exchange"]
    memory.forget_page(used.id)
    (after,) = memory.memories_used([stream.page.id])[stream.page.id]
    assert after.key == used.key and after.forgotten and after.text == ""


def test_forgetting_the_answer_removes_its_list(memory, chat):
    memory.add_fact("I am allergic to peanuts")
    stream = memory.get_response("peanuts?")
    stream.collect()
    assert memory.vault.page_memory_rows([stream.page.id])
    memory.forget_page(stream.page.id)
    assert memory.vault.page_memory_rows([stream.page.id]) == []


def test_a_temporary_answer_shows_its_memories_and_stores_nothing(memory, chat):
    memory.add_fact("I am allergic to peanuts")
    stream = memory.get_response("peanuts?", temporary=True)
    stream.collect()
    assert [i.kind for i in stream.memories] == ["fact"]
    assert stream.page is None
    assert memory.vault.dump_table("page_memories") == []


def test_summary_wording():
    fact = remembered.MemoryUsed("fact", 1, "persona", "x", 0.0, 0.5)
    topic = remembered.MemoryUsed("exchange", 2, "topic", "y", 0.0, 0.1)
    assert remembered.summary([fact, fact, topic]) == (
        "Used 3 memories: 2 facts, 1 earlier exchange"
    )
    assert remembered.summary([]) == "Used no memories"


def test_regenerate_keeps_exactly_one_exchange_and_hides_the_old_answer(memory, chat):
    memory.add_memory("I live in Porto", "Nice.")
    chat.queue("First answer about bread.")
    first = memory.get_response("what bread should I bake?")
    first.collect()

    chat.queue("Second answer: sourdough.")
    again = memory.replace_response(first.page.id)
    again.collect()

    prompt = "\n".join(m["content"] for m in chat.seen_messages[-1])
    assert "First answer about bread." not in prompt
    assert ("exchange", first.page.id) not in [i.key for i in again.memories]
    pages = memory.pages()
    assert [(p.user_input, p.agent_response) for p in pages if "bread" in p.user_input] == [
        ("what bread should I bake?", "Second answer: sourdough.")
    ]
    assert len(pages) == 2 and again.page.conversation_id == first.page.conversation_id


def test_edit_and_resend_replaces_the_question(memory, chat):
    first = memory.get_response("what cake should I bke?")
    first.collect()
    chat.queue("Carrot cake.")
    edited = memory.replace_response(first.page.id, "what cake should I bake?")
    edited.collect()
    assert [(p.user_input, p.agent_response) for p in memory.pages()] == [
        ("what cake should I bake?", "Carrot cake.")
    ]


def test_a_failed_regeneration_keeps_the_old_exchange(memory, chat, monkeypatch):
    from engine.errors import BackendError

    first = memory.get_response("hello?")
    first.collect()

    def broken(*args, **kwargs):
        raise BackendError("the model server went away")
        yield  # pragma: no cover

    monkeypatch.setattr(chat, "_stream", broken)
    with pytest.raises(BackendError):
        memory.replace_response(first.page.id).collect()
    assert [p.id for p in memory.pages()] == [first.page.id]


def test_a_stopped_regeneration_keeps_the_old_exchange(memory, chat):
    """Stopping a regeneration half-way kept only the part written and lost the whole answer
    it was meant to replace."""
    from engine.backends.base import CancelToken

    chat.queue("A whole answer about sourdough, proofing and baking times.")
    first = memory.get_response("what bread should I bake?")
    first.collect()
    chat.queue("Another answer that will be stopped after a few words of it.")
    cancel = CancelToken()
    again = memory.replace_response(first.page.id, cancel=cancel)
    next(again)
    cancel.cancel()
    again.collect()
    assert again.cancelled and again.page is None
    assert [(p.id, p.agent_response) for p in memory.pages()] == [
        (first.page.id, "A whole answer about sourdough, proofing and baking times.")
    ]


def test_an_empty_answer_is_an_error_not_a_memory(memory, chat):
    """A model that wrote nothing left an exchange with an empty answer in memory (seen once in
    four runs of the reference's demo through the compatibility class)."""
    from engine.errors import BackendError

    chat.queue("   ")
    with pytest.raises(BackendError, match="wrote nothing"):
        memory.get_response("Are you there?").collect()
    assert memory.pages() == []


def test_an_exchange_is_dated_when_it_was_asked(memory, chat):
    """Dated when the answer ended, a question shown at 10:13 could read 10:14 once the
    conversation was drawn again."""
    import time

    chat.queue("A slow answer, word by word, for a little while.")
    chat.chunk_delay = 0.02
    before = time.time()
    stream = memory.get_response("What time is it?")
    asked = time.time()
    stream.collect()
    assert before <= stream.page.timestamp <= asked < time.time()
