"""Editing the last question answers as if the exchange it replaces had never been said: no
memory learned from that exchange alone reaches the prompt."""

from __future__ import annotations


def ask(memory, question: str):
    stream = memory.get_response(question)
    stream.collect()
    memory.run_consolidation()
    return stream


def prompt_text(messages) -> str:
    return "\n".join(message["content"] for message in messages).lower()


def test_the_edited_question_sees_nothing_the_replaced_exchange_taught(memory, chat):
    ask(memory, "I live in Paris.")
    ask(memory, "My cat Miso came with me when I moved.")
    lisbon = ask(memory, "I moved to Lisbon last month. My cat Miso came with me when I moved.")
    learned = [s.text for s in memory.profile()] + [f.text for f in memory.facts()]
    assert "location: Lisbon" in learned and "I moved to Lisbon last month." in learned
    shared = [f for f in memory.facts() if f.text.startswith("My cat Miso")]
    assert len(shared) == 1 and len(shared[0].source_page_ids) == 2  # said twice

    edited = memory.replace_response(lisbon.page.id, "I moved to Madrid last month. Miso too.")
    prompt = prompt_text(edited.messages)
    edited.collect()

    assert chat.seen_messages[-1] == edited.messages  # what the model was sent
    assert "lisbon" not in prompt  # neither the exchange nor what was learned from it
    assert "my cat miso came with me when i moved" in prompt  # another exchange says it too
    assert "location: paris" in prompt  # the place the replaced exchange had replaced
    used = [m.text for m in edited.memories]
    assert not any("Lisbon" in text for text in used)
