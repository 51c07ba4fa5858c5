"""The prompt layout llama.cpp's cache can reuse: the conversation so far stays byte for byte,
this question's memories come last, and their size follows the model's measured speed."""

from __future__ import annotations

import pytest

from engine.prompt import MEMORY_HEADER
from engine.prompt_memories import memory_budget
from engine.remembered import FACT

HIVES = "I keep three bee hives on my roof."


def test_the_next_prompt_starts_with_the_previous_one(memory, chat):
    memory.add_fact(HIVES)
    chat.queue("Bees are wonderful.", "Three.")
    list(memory.get_response("What do you know about my bee hives?"))
    first = chat.seen_messages[-1]
    list(memory.get_response("How many bee hives are on my roof?"))
    second = chat.seen_messages[-1]

    # Byte for byte, memories included: llama.cpp finds all of it in its cache.
    assert second[: len(first)] == first
    assert second[len(first)] == {"role": "assistant", "content": "Bees are wonderful."}
    assert first[-1]["content"].startswith(MEMORY_HEADER)
    assert f"- {HIVES}" in first[-1]["content"]
    assert first[-1]["content"].endswith("My message: What do you know about my bee hives?")
    # The fact is still in the prompt (above), so it is not repeated in the new text.
    assert second[-1] == {"role": "user", "content": "How many bee hives are on my roof?"}
    prompt = "\n".join(m["content"] for m in second)
    assert prompt.count(HIVES) == 1


def test_a_slow_model_gets_fewer_new_memories_and_the_list_says_which(memory, chat):
    for bed in range(12):
        memory.add_fact(f"The tomatoes in garden bed {bed} need water every morning.")
    question = "What do the tomatoes in my garden need?"
    fast = memory.get_response(question, temporary=True)
    fast.collect()
    chat.prompt_tokens_per_second = 40.0  # what LlamaChat measures on a slow laptop
    slow = memory.get_response(question, temporary=True)
    slow.collect()

    fast_facts = [m.text for m in fast.memories if m.kind == FACT]
    slow_facts = [m.text for m in slow.memories if m.kind == FACT]
    assert len(fast_facts) >= 5  # no speed measured (a server, this fake): no cut
    assert 1 <= len(slow_facts) < len(fast_facts)
    assert slow_facts == fast_facts[: len(slow_facts)]  # the best ones are kept
    block = slow.messages[-1]["content"]
    # The list of memories an answer used is exactly what its prompt holds.
    assert all(f"- {text}" in block for text in slow_facts)
    assert not any(text in block for text in fast_facts[len(slow_facts) :])
    assert chat.count_tokens(block) - chat.count_tokens(question) <= memory_budget(chat, question)


def test_long_memories_never_take_more_than_the_best_ones_room(memory, chat):
    """Past the budget only the best fact and the best exchange, and all of it within
    BEST_ROOM x the budget: the time memory adds to the first word stays bounded (with 2x the
    room, the demo model's first word came later than with no memory at all)."""
    from engine.prompt_memories import BEST_ROOM

    for bed in range(6):
        memory.add_fact(f"The tomatoes in garden bed {bed} need water every morning, a feed of "
                        "seaweed every second week, and a net against the blackbirds in June.")
        memory.add_memory(f"Garden bed {bed} has tomatoes again this year, six plants of an "
                          "old Italian variety my neighbour gave me.", "They will love the sun.")
    memory.run_consolidation()
    question = "What do the tomatoes in my garden need?"
    chat.prompt_tokens_per_second = 40.0
    budget = memory_budget(chat, question)
    answer = memory.get_response(question, temporary=True)
    answer.collect()

    block = answer.messages[-1]["content"]
    fact_lines = [m for m in answer.memories if m.kind == FACT]
    assert 1 <= len(fact_lines) <= 2
    assert chat.count_tokens(f"- {fact_lines[0].text}") > budget / 2  # longer than half
    assert chat.count_tokens(block) - chat.count_tokens(question) <= BEST_ROOM * budget


def test_the_budget_grows_with_the_speed(chat):
    question = "What do the tomatoes in my garden need?"
    assert memory_budget(chat, question) is None
    chat.prompt_tokens_per_second = 40.0
    slow = memory_budget(chat, question)
    chat.first_token_seconds = 0.5  # a model whose first token costs more gets more room
    assert memory_budget(chat, question) > slow


@pytest.mark.real_models
def test_the_bundled_model_processes_only_the_new_text(memory):
    from engine.backends.llama import LlamaChat
    from models.catalogue import bundled_gguf_path

    chat = LlamaChat(bundled_gguf_path(), n_ctx=2048, n_threads=1)
    memory.set_chat(chat)
    try:
        memory.add_fact(HIVES)
        memory.get_response("What do you know about my bee hives?", max_tokens=6).collect()
        chat.wait_warm(60)  # the next prompt's start is processed while the person types
        question = "How many bee hives are on my roof?"
        stream = memory.get_response(question, max_tokens=6)
        stream.collect()
        new_text = stream.messages[-1]["content"]
        # only the last user message (and the template's few tokens around it) was processed
        assert chat.last_new_tokens <= chat.count_tokens(new_text) + 12
        assert chat.usage.last_prompt_tokens > 4 * chat.last_new_tokens
    finally:
        chat.close()


@pytest.mark.real_models
def test_after_loading_the_first_question_finds_its_start_cached(memory):
    from engine.backends.llama import LlamaChat
    from engine.prompt import warm_conversation
    from models.catalogue import bundled_gguf_path

    memory.add_memory("I keep three bee hives on my roof.", "Lovely.")
    chat = LlamaChat(bundled_gguf_path(), n_ctx=2048, n_threads=1)
    chat.load()
    memory.set_chat(chat)
    try:
        warm_conversation(memory)  # what the app does once the model is loaded
        chat.wait_warm(60)
        stream = memory.get_response("How many hives?", max_tokens=4)
        stream.collect()
        assert chat.last_new_tokens <= chat.count_tokens(stream.messages[-1]["content"]) + 12
        assert chat.usage.last_prompt_tokens > 3 * chat.last_new_tokens
    finally:
        chat.close()
