"""What the demo model is shown for a plain question about something the person said: the
fact that answers it, not a fact the profile already holds. Found in a walkthrough: asked
"What is my cat's name?" right after saying "I have a grey cat called Pixel", the bundled
model was shown "My name is Marta and I live in Lisbon" (sharing only the word "name") and no
word of the cat."""

from __future__ import annotations

import pytest

from engine.remembered import FACT

pytestmark = pytest.mark.real_models

SAID = [
    ("Hi! My name is Marta and I live in Lisbon.", "Nice to meet you, Marta!"),
    ("My friend Sam lives in Porto and we meet every month.", "That sounds lovely."),
    ("I have a grey cat called Pixel who sleeps all day.", "Pixel sounds adorable!"),
    ("Next week I am going to Berlin for a conference.", "Have a great trip!"),
]


@pytest.fixture(scope="module")
def demo_model():
    from engine.backends.llama import LlamaChat
    from models.catalogue import bundled_gguf_path

    chat = LlamaChat(bundled_gguf_path(), n_ctx=2048)
    yield chat
    chat.close()


def test_the_demo_model_is_shown_the_fact_that_answers_not_the_profile_again(
    minilm_memory, demo_model
):
    memory = minilm_memory
    for user, assistant in SAID:
        memory.add_memory(user, assistant)
    memory.run_consolidation()
    memory.set_chat(demo_model)
    memory.new_conversation()  # asked later: the exchanges are memories, not the conversation

    stream = memory.get_response("What is my cat's name?", max_tokens=24)
    shown = [m.text for m in stream.memories if m.kind == FACT]
    list(stream)

    assert any("Pixel" in text for text in shown), shown
    # name: Marta and location: Lisbon are in the profile the model is given
    assert not any(text.startswith("Hi! My name is Marta") or "My name is Marta" in text
                   for text in shown), shown
    prompt = "\n".join(m["content"] for m in stream.messages)
    assert "Pixel" in prompt and "Marta" in prompt


def test_a_possessive_in_the_question_finds_the_word_by_keyword(minilm_memory):
    from engine import retrieval_lists

    minilm_memory.add_memory("I have a grey cat called Pixel.", "Cute!")
    minilm_memory.run_consolidation()
    match = retrieval_lists.keyword_match(
        minilm_memory.vault, "facts_fts", "What is my cat's name?"
    )
    hits = minilm_memory.vault.keyword_search("facts_fts", match, 10)
    assert [minilm_memory.fact(fact_id).text for fact_id, _ in hits] == [
        "I have a grey cat called Pixel."
    ]


def test_the_demo_model_sees_an_exchange_of_this_conversation_older_than_its_last_turns(
    minilm_memory, demo_model
):
    """The small prompt shows the last 1-3 exchanges as turns; an earlier exchange of the same
    conversation (still in the short-term queue) must be offered as a memory, or the demo model
    is shown it nowhere."""
    from engine.remembered import EXCHANGE

    memory = minilm_memory
    memory.add_memory("The cat is called Pixel.", "What a nice name.")  # no fact: not "I ..."
    for user, assistant in SAID[:2] + SAID[3:] + [("Tell me a joke.", "Why did the chicken...")]:
        memory.add_memory(user, assistant)
    memory.set_chat(demo_model)

    stream = memory.get_response("What is the cat called?", max_tokens=16)
    list(stream)
    said = [m.text for m in stream.memories if m.kind == EXCHANGE]
    assert any("Pixel" in text for text in said), said
    assert "Pixel" in "\n".join(m["content"] for m in stream.messages)


def test_the_best_fact_is_shown_even_when_it_is_longer_than_the_time_budget(minilm_memory):
    """The demo model's memory budget is ~40 tokens: the best fact (30 tokens with its date)
    was skipped and a shorter, weaker one shown in its place."""
    import dataclasses

    from engine import prompt_memories
    from engine.backends.fake import FakeChat

    memory = minilm_memory
    memory.add_memory("My flight to Madrid is next Tuesday at 7am and I still need to pack "
                      "my bags and find my passport.", "Make a list.")
    memory.add_memory("I watered the plants.", "Nice.")
    memory.run_consolidation()
    retrieval = memory.retrieve("When is my flight to Madrid?")
    assert "Madrid" in retrieval.facts[0].fact.text

    class Timed(FakeChat):
        prompt_tokens_per_second = 100.0  # the bare question: ~0.5 s; memory: ~25 tokens
        first_token_seconds = 0.0

    fitted = prompt_memories.fit_memory(retrieval, "When is my flight to Madrid?", Timed())
    budget = prompt_memories.memory_budget(Timed(), "When is my flight to Madrid?")
    assert Timed().count_tokens("- " + retrieval.facts[0].fact.text) + 18 > budget
    assert [f.fact.text for f in fitted.facts][:1] == [retrieval.facts[0].fact.text]
    assert dataclasses.replace(fitted, facts=()).facts == ()


def test_an_exchange_whose_facts_were_replaced_is_shown_marked_out_of_date(minilm_memory):
    """After a move, "I live in Bristol" is history: shown (it was said), but marked, so a
    model takes the profile's current city."""
    from engine import prompt

    memory = minilm_memory
    memory.add_memory("I live in Bristol, near the harbour.", "Lovely harbourside.")
    memory.new_conversation()
    for i in range(12):  # out of the recent queue: shown as an older exchange
        memory.add_memory(f"Unrelated chatter number {i} about the weather.", "Okay.")
    memory.add_memory("I moved to Glasgow last weekend.", "Welcome to Glasgow!")
    memory.run_consolidation()

    retrieval = memory.retrieve("Which city do I live in?")
    bristol = [p.page for p in retrieval.pages if "Bristol" in p.page.user_input]
    assert bristol and bristol[0].id in retrieval.changed
    glasgow = [p for p in retrieval.short_term if "Glasgow" in p.user_input]
    assert glasgow and glasgow[0].id not in retrieval.changed
    block = prompt.build_messages(retrieval, "Which city do I live in?")[-1]["content"]
    line = next(x for x in block.splitlines() if "I live in Bristol" in x)
    assert line.index(prompt.OUT_OF_DATE) < line.index("Bristol"), line
    assert not any("Glasgow" in x and prompt.OUT_OF_DATE in x for x in block.splitlines())


def test_a_long_paste_of_another_conversation_is_not_sent_whole_again(memory):
    """In the conversation it was pasted in, a long text stays whole (follow-ups are about it);
    after Ctrl+N it is memory, and its middle is left out."""
    paste = "START " + "lorem ipsum dolor sit amet " * 800 + " END"
    memory.add_memory(f"Please read this: {paste}", "I have read it.")
    pasted_in = memory.conversation_id

    def prompt_size(question: str) -> int:
        stream = memory.get_response(question, max_tokens=8)
        list(stream)
        return sum(len(m["content"]) for m in stream.messages)

    assert prompt_size("What is its first word?") > len(paste)
    memory.new_conversation()
    assert memory.conversation_id != pasted_in
    assert prompt_size("What is my cat's name?") < len(paste) // 4
