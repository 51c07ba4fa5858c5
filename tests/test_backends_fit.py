"""Cutting prompts to a token budget: the result always fits and keeps what matters."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.backends.fit import fit_to_budget


def words(messages: list[dict]) -> int:
    """A stand-in tokenizer: one token per word plus 4 per message for the template."""
    return sum(len(m["content"].split()) + 4 for m in messages)


def conversation(system_words: int, turns: int, question: str) -> list[dict]:
    messages = [{"role": "system", "content": "RULES " + "memory " * system_words + "END"}]
    for i in range(turns):
        messages.append({"role": "user", "content": f"question {i} " * 5})
        messages.append({"role": "assistant", "content": f"answer {i} " * 5})
    messages.append({"role": "user", "content": question})
    return messages


def test_a_prompt_that_fits_is_untouched():
    messages = conversation(10, 2, "What now?")
    assert fit_to_budget(messages, 1000, words) == messages


def test_memory_context_is_cut_in_the_middle_before_recent_turns_go():
    messages = conversation(500, 3, "What is my job?")
    fitted = fit_to_budget(messages, 200, words)
    assert words(fitted) <= 200
    assert fitted[0]["content"].startswith("RULES") and fitted[0]["content"].endswith("END")
    assert "[...]" in fitted[0]["content"]
    assert fitted[-1]["content"] == "What is my job?"
    assert len(fitted) == len(messages)  # the turns all fit once the memories were cut


def test_oldest_turns_go_first_and_a_user_turn_stays_first():
    messages = conversation(40, 30, "And then?")
    fitted = fit_to_budget(messages, 120, words)
    assert words(fitted) <= 120
    assert fitted[1]["role"] == "user"
    assert fitted[-2]["content"] == messages[-2]["content"]  # the newest turn is kept


@settings(max_examples=60, deadline=None)
@given(
    system_words=st.integers(0, 400),
    turns=st.integers(0, 12),
    question_words=st.integers(1, 300),
    budget=st.integers(40, 400),
)
def test_result_always_fits_the_budget(system_words, turns, question_words, budget):
    question = " ".join(f"q{i}" for i in range(question_words))
    fitted = fit_to_budget(conversation(system_words, turns, question), budget, words)
    # Each kept message costs its 4 template tokens even when empty: that much always fits.
    assert words(fitted) <= max(budget, 4 * len(fitted))
    assert fitted[-1]["role"] == "user"


def test_a_message_longer_than_the_context_is_cut_before_the_instructions():
    """A long paste loses its middle; the instructions and the profile (the system message)
    stay whole when they fit in half the budget."""
    messages = conversation(20, 2, "START " + "pasted " * 5000 + "What does this say?")
    fitted = fit_to_budget(messages, 400, words)
    assert words(fitted) <= 400
    assert fitted[0] == messages[0]  # RULES ... END, whole
    assert fitted[-1]["content"].startswith("START") and "[...]" in fitted[-1]["content"]
    assert fitted[-1]["content"].endswith("What does this say?")
