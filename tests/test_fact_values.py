"""Statements alike but for a number are different facts: "I take 40 mg" said after "I take
20 mg" replaces it (the newer dose is recalled, the older kept, marked replaced), and "I bought
plant number 0 ... 7" stays eight facts. Real sentence vectors (MiniLM): they score such pairs
as near-identical, and the second statement was merged into the first, its number lost."""

from __future__ import annotations

import pytest

from engine.records import SUPERSEDED
from engine.settings import MemorySettings
from tests.helpers import current_facts as current
from tests.helpers import learn_from_import as learn
from tests.helpers import user_fact as fact

TWENTY = "I take 20 mg of citalopram every morning with breakfast."
FORTY = "I take 40 mg of citalopram every morning with breakfast."
EARLY = "My daughter's school starts at 8:30 on weekdays."
LATE = "My daughter's school starts at 9:15 on weekdays."


def test_a_new_dose_replaces_the_old_one_and_is_recalled_first(minilm_memory):
    memory = minilm_memory
    learn(memory, [(TWENTY, "2025-04-01 10:00:00"), (EARLY, "2025-04-03 10:00:00"),
                   (FORTY, "2025-04-20 10:00:00"), (LATE, "2025-04-24 10:00:00")])  # fmt: skip

    assert FORTY in current(memory) and TWENTY not in current(memory)
    old, new = fact(memory, TWENTY), fact(memory, FORTY)
    assert old.status == SUPERSEDED and old.superseded_by == new.id  # kept, marked replaced
    assert len(new.source_page_ids) == 1  # its own exchange, not merged into the old fact

    found = memory.retrieve("How much citalopram do I take?", record_visits=False)
    assert "40 mg" in found.facts[0].fact.text
    assert all("20 mg" not in item.fact.text for item in found.facts)

    assert LATE in current(memory) and EARLY not in current(memory)
    assert fact(memory, EARLY).superseded_by == fact(memory, LATE).id


def test_the_later_said_value_wins_whatever_order_it_is_imported_in(minilm_memory):
    memory = minilm_memory
    learn(memory, [(LATE, "2025-04-24 10:00:00"), (EARLY, "2025-04-03 10:00:00")])

    assert current(memory) == [LATE]
    assert fact(memory, EARLY).superseded_by == fact(memory, LATE).id


def test_forgetting_the_new_dose_brings_the_old_one_back(minilm_memory):
    memory = minilm_memory
    _, forty = learn(memory, [(TWENTY, "2025-04-01 10:00:00"), (FORTY, "2025-04-20 10:00:00")])
    assert current(memory) == [FORTY]

    memory.forget_page(forty)

    assert current(memory) == [TWENTY]


def test_eight_plants_bought_stay_eight_facts(minilm_memory):
    memory = minilm_memory
    said = [f"I bought plant number {n} for the balcony." for n in range(8)]
    learn(memory, [(text, f"2025-05-0{n + 1} 10:00:00") for n, text in enumerate(said)])

    assert sorted(current(memory)) == sorted(said)  # none merged away, none replaced
    assert all(len(fact(memory, text).source_page_ids) == 1 for text in said)


def test_events_and_several_changed_values_keep_both_facts(minilm_memory):
    memory = minilm_memory
    said = [
        ("I paid 40 dollars for the concert tickets.", "2025-05-01 10:00:00"),
        ("I paid 65 dollars for the concert tickets.", "2025-06-01 10:00:00"),
        ("My swimming lesson is at 5 pm on Monday.", "2025-05-02 10:00:00"),
        ("My swimming lesson is at 6 pm on Thursday.", "2025-05-03 10:00:00"),
    ]
    learn(memory, said)

    assert sorted(current(memory)) == sorted(text for text, _ in said)


def test_a_model_s_facts_with_another_dose_are_not_merged_either(minilm_memory, chat):
    """The capable-model path files its facts through the same merge."""
    memory = minilm_memory
    memory.update_settings(
        MemorySettings(stm_capacity=1, stm_evict_batch=1, heat_threshold=0.5, chain_similarity=0.1)
    )
    first = memory.add_memory("My doctor set my citalopram dose today.", "Ok.", "2025-04-01")
    second = memory.add_memory("The doctor changed my citalopram dose.", "Ok.", "2025-04-20")
    memory.add_memory("What should I cook tonight?", "Try a risotto.", "2025-04-21")
    old = "The user takes 20 mg of citalopram every morning."
    new = "The user takes 40 mg of citalopram every morning."
    chat.queue_json(
        {"pages": [], "segments": [{"id": 1, "summary": "Citalopram doses.",
                                    "keywords": ["citalopram"]}]},
        {"profile": [], "assistant_knowledge": [],
         "user_facts": [{"text": old, "evidence": [first.id]},
                        {"text": new, "evidence": [second.id]}]},
    )  # fmt: skip
    memory.run_consolidation()

    assert new in current(memory) and old not in current(memory)
    assert fact(memory, old).superseded_by == fact(memory, new).id


@pytest.mark.parametrize(("old", "new", "replaced"), [
    ("The tomatoes in garden bed 9 need water.", "The tomatoes in garden bed 10 need water.", False),
    ("My office is in room 12.", "My office is in room 14.", False),  # two rooms: both kept
    ("I take 20 mg of citalopram.", "I take 40 mg of citalopram.", True),
    ("My daughter is 7.", "My daughter is 8.", True),
])
def test_a_number_that_names_a_thing_is_not_a_new_value(old, new, replaced):
    from engine.memory import fact_values

    assert fact_values.value_changed(old, new) is replaced


def test_a_new_value_of_the_person_leaves_a_thing_s_value_alone(memory):
    """ "I now weigh 70 kg" gives the person another weight, not the suitcase: both weigh, yet
    one is the person's and the other a thing's. Said of the person again, it replaces."""
    suitcase, weighed = "My suitcase weighs 20 kg.", "I weigh 72 kg."
    learn(memory, [(suitcase, "2025-05-01 10:00:00"), (weighed, "2025-05-02 10:00:00"),
                   ("I now weigh 70 kg.", "2025-06-01 10:00:00")])  # fmt: skip

    assert suitcase in current(memory)
    assert fact(memory, weighed).superseded_by == fact(memory, "I now weigh 70 kg.").id


@pytest.mark.parametrize(("old", "new"), [
    ("My levothyroxine dose is 88 micrograms.", "I take 100 mcg now instead of 88."),
    ("I weigh 70 kg.", "I now weigh 72 kilos."),
    ("I run 5 km every morning.", "I now run 8 kilometres every morning."),
])
def test_a_unit_spelled_another_way_is_the_same_unit(memory, old, new):
    learn(memory, [(old, "2025-05-01 10:00:00"), (new, "2025-06-01 10:00:00")])

    assert current(memory) == [new]
    assert fact(memory, old).superseded_by == fact(memory, new).id


def test_units_that_differ_keep_both_values(memory):
    said = [("I weigh 70 kg.", "2025-05-01 10:00:00"), ("I now weigh 160 lbs.", "2025-06-01")]
    learn(memory, said)

    assert sorted(current(memory)) == sorted(text for text, _ in said)


def test_the_same_words_with_a_unit_spelled_another_way_give_another_value():
    from engine.memory import fact_values

    assert fact_values.value_changed("I run 5 km every morning.", "I run 8 kilometres every morning.")
    assert not fact_values.value_changed("I run 5 km every morning.", "I run 8 miles every morning.")
