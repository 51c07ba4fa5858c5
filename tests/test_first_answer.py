"""A new vault answers its first question without waiting for the embedder to load."""

from __future__ import annotations


def test_an_empty_vault_does_not_embed_the_question(memory, embedder):
    before = embedder.calls
    retrieval = memory.retrieve("Hello, who are you?")
    assert embedder.calls == before
    assert (retrieval.pages, retrieval.short_term, retrieval.facts) == ((), (), ())


def test_once_something_is_remembered_the_question_is_embedded(memory, embedder):
    memory.add_memory("I work as a nurse in Lisbon.", "Noted.")
    before = embedder.calls
    retrieval = memory.retrieve("Where do I work?")
    assert embedder.calls == before + 1
    assert [p.user_input for p in retrieval.short_term] == ["I work as a nurse in Lisbon."]


def test_the_first_exchange_is_still_stored_with_its_vector(memory, chat):
    chat.queue("Hello! I am your assistant.")
    stream = memory.get_response("Hello, who are you?")
    assert stream.collect() == "Hello! I am your assistant."
    assert len(memory.page_mirror) == 1
    assert (
        memory.retrieve("assistant").short_term[0].agent_response == "Hello! I am your assistant."
    )
