"""A 356 KB paste (60,000 words) with the bundled model: fitted to its context without counting
the whole paste's tokens dozens of times, the wait said before sending; memories looked up by
what the model reads of it, and no facts learned from it."""

from __future__ import annotations

import random

import pytest

from engine.backends.fit import CUT_MARK, fit_to_budget

SECRET = "My name is Zorblax and I work as a lighthouse keeper in Reykjavik."


def paste(words: int = 60_000, seed: int = 7) -> str:
    """Prose-like text of `words` words with first-person sentences deep in its middle."""
    rnd = random.Random(seed)
    vocabulary = ("the report shows that our team moved the budget forward while the market "
                  "stayed calm and every figure in the third quarter rose a little").split()
    sentences, count = [], 0
    while count < words:
        length = rnd.randint(6, 16)
        sentences.append(" ".join(rnd.choice(vocabulary) for _ in range(length)).capitalize() + ".")
        count += length
        if len(sentences) == 2000:
            sentences.append(SECRET + " I love purple elephants.")
    return " ".join(sentences)


@pytest.fixture(scope="module")
def bundled():
    from engine.backends.llama import LlamaChat
    from models.catalogue import bundled_gguf_path

    chat = LlamaChat(bundled_gguf_path(), n_ctx=2048)
    chat.load()
    yield chat
    chat.close()


@pytest.fixture
def tokenized(bundled):
    """Characters the model's real tokenizer is given from now on (it still tokenizes)."""
    llama = bundled._llama
    real = llama.tokenize
    counted = [0]

    def counting(text: bytes, *args, **kwargs):
        counted[0] += len(text)
        return real(text, *args, **kwargs)

    llama.tokenize = counting
    yield counted
    llama.tokenize = real


def _messages(text: str) -> list[dict]:
    return [{"role": "system", "content": "You are MemoryOS, a helpful assistant. " * 20},
            {"role": "user", "content": "Earlier question?"},
            {"role": "assistant", "content": "Earlier answer."},
            {"role": "user", "content": text}]


@pytest.mark.real_models
def test_a_huge_paste_is_fitted_without_counting_all_of_it_again_and_again(bundled, tokenized):
    text = paste()
    assert len(text) > 300_000
    fitted = bundled.fit_messages(_messages(text), 160)
    # Before: the whole prompt was tokenized at every step of the fitting, ~40 times the paste.
    assert tokenized[0] < 3 * len(text)
    assert bundled.prompt_tokens(fitted) + 160 <= bundled.context_window
    message = fitted[-1]["content"]
    assert message.startswith(text[:200]) and message.endswith(text[-200:])  # start and end
    assert CUT_MARK in message and SECRET not in message  # the middle left out


@pytest.mark.real_models
@pytest.mark.parametrize("text", [
    paste(8_000),  # ~48,000 characters: cut before fitting
    ("=" * 64 + " total\n") * 1_000,  # long tokens: the cut would lose what fits, so none
])
def test_fitting_a_long_message_cuts_it_as_fitting_the_whole_text_does(bundled, text):
    messages = _messages(text)
    budget = bundled.context_window - 160
    assert bundled.fit_messages(messages, 160) == fit_to_budget(
        messages, budget, bundled.prompt_tokens)


@pytest.mark.real_models
def test_the_note_before_sending_says_how_long_reading_takes(bundled):
    from app.session import message_fit

    class Memory:
        chat = bundled

    note = message_fit(Memory(), paste(), 512)
    assert "about 60,000 words" in note and "Reading its beginning and end takes about" in note
    # Reading slows as the prompt grows: twice the tokens take more than twice as long.
    assert bundled.reading_seconds(3_900) > 2.4 * bundled.reading_seconds(1_950)


def test_memories_are_looked_up_by_what_the_model_reads_of_a_huge_paste(memory, chat):
    from engine.answer import LOOKUP_MAX_CHARS

    text = paste()
    chat.queue("A summary.")
    stream = memory.get_response(text)
    looked_up = stream.retrieval.query
    assert len(looked_up) <= LOOKUP_MAX_CHARS + 1 and SECRET not in looked_up
    assert looked_up.startswith(text[:1000]) and looked_up.endswith(text[-1000:])
    stream.collect()
    assert memory.pages()[-1].user_input == text  # stored whole, as sent


def test_no_facts_are_learned_from_a_huge_paste_and_the_persons_own_words_still_teach(
    memory, chat
):
    from engine.learned import LEARN_MAX_CHARS

    text = paste() + "\n\nWhat do you make of this?"
    assert len(text) > LEARN_MAX_CHARS
    chat.queue("It is a report.")
    memory.get_response(text).collect()
    chat.queue("Nice to meet you, Dana.")
    memory.get_response("My name is Dana and I live in Lisbon.").collect()
    memory.run_consolidation()
    learned = [f.text for f in memory.facts()] + [s.text for s in memory.profile()]
    assert not [item for item in learned
                if any(word in item for word in ("Zorblax", "lighthouse", "elephants", "report"))]
    assert any("Dana" in item for item in learned)  # a message of one's own still teaches
