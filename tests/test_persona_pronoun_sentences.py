"""A sentence whose subject is a pronoun ("He is four.") right after one that introduced what
it refers to ("We have a golden retriever called Bamse.") is learned with it, as one fact, and
found by a question about it; after small talk it is not a fact. Real vault, real MiniLM."""

from __future__ import annotations

from tests.helpers import current_facts as current
from tests.helpers import learn_from_import as learn

BAMSE = "We have a golden retriever called Bamse. He is four."


def test_what_a_pronoun_says_is_learned_with_what_it_refers_to(minilm_memory):
    memory = minilm_memory
    [bamse, *_] = learn(memory, [
        (BAMSE, "2025-04-01 10:00:00"),
        ("My sister lives in Oslo. She works nights at the hospital.", "2025-04-02 10:00:00"),
        ("I cycle to work every day.", "2025-04-03 10:00:00"),
        ("My flat is on the third floor.", "2025-04-04 10:00:00"),
        ("I went to the shops today. It was busy.", "2025-04-05 10:00:00"),
        ("It was a long day. It rained all afternoon.", "2025-04-06 10:00:00"),
    ])  # fmt: skip

    facts = current(memory)
    assert BAMSE in facts
    assert "My sister lives in Oslo. She works nights at the hospital." in facts
    # small talk: not tied to a fact, and no fact of its own
    assert "I went to the shops today." in facts
    assert not any("busy" in text or "rained" in text for text in facts)

    found = memory.retrieve("How old is our dog?", record_visits=False)
    assert found.facts[0].fact.text == BAMSE
    assert bamse in found.facts[0].fact.source_page_ids


def test_a_pronoun_after_a_question_or_a_request_is_not_a_fact(memory):
    learn(memory, [
        ("Tell me a joke about my dog. He is four.", "2025-04-01 10:00:00"),
        ("Is my cat too old for a new home? She is twelve.", "2025-04-02 10:00:00"),
    ])  # fmt: skip

    assert current(memory) == []
