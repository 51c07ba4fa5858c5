"""What the memory learns from what a person says, without a language model, through the real
engine (add_memory and consolidation on an encrypted vault): a sentence is not cut at "Dr." or
"St.", a changed amount or day replaces the older fact about the same thing, and a taste the
person dropped leaves the profile too, while the one they now prefer is learned."""

from __future__ import annotations

import pytest

from engine.records import SUPERSEDED
from tests.helpers import current_facts as current
from tests.helpers import learn_from_import as learn
from tests.helpers import user_fact as fact


def tastes(memory) -> list[str]:
    return [s.value for s in memory.profile() if s.category == "preference"]


# ---- sentences are not cut at the period of a short form ----------------------------------


def test_a_fact_is_not_cut_at_a_title_or_a_saint(memory):
    learn(memory, [
        ("Hi, I'm Maren. I work as a nurse at St. Olav hospital in Trondheim.", "2025-11-03 09:00"),
        ("I see Dr. Hansen at the St. Olav clinic every three months for my thyroid.",
         "2025-11-04 09:00"),
    ])  # fmt: skip

    facts = current(memory)
    assert "I work as a nurse at St. Olav hospital in Trondheim." in facts
    assert "I see Dr. Hansen at the St. Olav clinic every three months for my thyroid." in facts
    assert not any(f.endswith(("St.", "Dr.")) or f.startswith("Olav") for f in facts)
    assert [s.value for s in memory.profile() if s.name == "name"] == ["Maren"]


@pytest.mark.parametrize(
    "said",
    [
        "My sister Mrs. Berg lives next to me on Mt. Pleasant Road.",
        "I take 2.5 mg of it at 7 a.m. every day with my breakfast.",
        "I read everything by J. K. Rowling, e.g. the Harry Potter books, to my son.",
        "My flat is No. 5 on the street where Prof. Lund used to live.",
    ],
)
def test_short_forms_and_decimals_keep_the_sentence_whole(memory, said):
    learn(memory, [(said, "2025-11-03 09:00")])
    assert current(memory) == [said]


def test_a_sentence_still_ends_where_it_ends(memory):
    learn(memory, [("I like tea, biscuits etc. My dog is called Rex and he is old.",
                    "2025-11-03 09:00")])  # fmt: skip
    assert sorted(current(memory)) == ["I like tea, biscuits etc.",
                                       "My dog is called Rex and he is old."]  # fmt: skip


# ---- a changed amount or day replaces the older fact --------------------------------------

FIRST = "My doctor put me on levothyroxine 50 micrograms every morning."
SECOND = "My levothyroxine is now 88 micrograms, since the last blood test."
THIRD = "I take 100 micrograms now instead of 88."


def test_a_new_dose_said_with_instead_of_replaces_the_old_one(memory):
    learn(memory, [(FIRST, "2025-11-03 09:00"), (SECOND, "2025-11-12 09:00"),
                   (THIRD, "2025-11-20 09:00")])  # fmt: skip

    assert THIRD in current(memory)
    assert FIRST not in current(memory) and SECOND not in current(memory)
    assert fact(memory, SECOND).status == SUPERSEDED
    assert fact(memory, SECOND).superseded_by == fact(memory, THIRD).id
    assert fact(memory, FIRST).superseded_by == fact(memory, SECOND).id
    # a change of amount is not a taste: no "micrograms: switched to 100 micrograms now"
    assert tastes(memory) == []


def test_forgetting_the_new_dose_brings_the_old_one_back(memory):
    _, _, third = learn(memory, [(FIRST, "2025-11-03 09:00"), (SECOND, "2025-11-12 09:00"),
                                 (THIRD, "2025-11-20 09:00")])  # fmt: skip
    memory.forget_page(third)
    assert SECOND in current(memory) and FIRST not in current(memory)


def test_the_later_said_dose_wins_whatever_order_it_is_imported_in(memory):
    learn(memory, [(THIRD, "2025-11-20 09:00"), (SECOND, "2025-11-12 09:00")])
    assert current(memory) == [THIRD]
    assert fact(memory, SECOND).superseded_by == fact(memory, THIRD).id


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("My levothyroxine dose is 50 mg a day.", "My dose is now 75 mg."),
        ("I weigh 75 kg after the summer.", "I now weigh 70 kg."),
        ("Our team meeting is on Monday at the main office.",
         "We moved the meeting to Friday instead of Monday."),
    ],
)
def test_a_changed_value_of_the_same_thing_replaces_the_old_fact(memory, old, new):
    learn(memory, [(old, "2025-11-03 09:00"), (new, "2025-11-10 09:00")])
    assert current(memory) == [new]
    assert fact(memory, old).superseded_by == fact(memory, new).id


@pytest.mark.parametrize(
    ("kept", "new"),
    [
        ("I take 50 mg of vitamin C with breakfast.", "My dose is now 75 mg."),
        ("I go swimming on Monday evenings.",
         "We moved the meeting to Friday instead of Monday."),
        ("My levothyroxine is 88 micrograms.",
         "I take 100 micrograms of vitamin B12 now instead of 88."),
    ],
)
def test_a_value_of_another_thing_stays(memory, kept, new):
    learn(memory, [(kept, "2025-11-03 09:00"), (new, "2025-11-10 09:00")])
    assert sorted(current(memory)) == sorted([kept, new])


# ---- a dropped taste leaves the profile, the new one is learned ---------------------------

RUNNING = "I really like running along the Nidelva river in the mornings."


@pytest.mark.parametrize(
    "said",
    [
        "I no longer like running in the mornings, I prefer swimming at Pirbadet now.",
        "I don't like running any more, my knees hurt.",
        "I stopped running in the mornings because of my knees.",
    ],
)
def test_a_dropped_taste_leaves_the_profile_and_the_facts(memory, said):
    learn(memory, [(RUNNING, "2025-11-03 09:00")])
    assert any("running along the Nidelva" in taste for taste in tastes(memory))

    [changed] = learn(memory, [(said, "2025-11-10 09:00")])

    assert not any("Nidelva" in taste for taste in tastes(memory)), tastes(memory)
    assert RUNNING not in current(memory)
    assert said in current(memory)
    assert not any(taste.startswith("dislikes") for taste in tastes(memory))

    memory.forget_page(changed)  # the old taste is current again
    assert any("running along the Nidelva" in taste for taste in tastes(memory))
    assert RUNNING in current(memory)


def test_what_the_person_prefers_now_is_learned(memory):
    learn(memory, [(RUNNING, "2025-11-03 09:00"),
                   ("I no longer like running in the mornings, I prefer swimming at Pirbadet now.",
                    "2025-11-10 09:00")])  # fmt: skip
    assert "prefers swimming at Pirbadet" in tastes(memory)
    shown = memory.retrieve("What sport do I prefer these days?", record_visits=False)
    assert any("swimming at Pirbadet" in s.text for s in shown.profile)


def test_stopping_by_a_place_is_no_change_of_taste(memory):
    learn(memory, [(RUNNING, "2025-11-03 09:00"),
                   ("I stopped by the running shop in the mornings.", "2025-11-10 09:00")])
    assert RUNNING in current(memory)
    assert any("Nidelva" in taste for taste in tastes(memory))


def test_disliking_a_word_of_a_taste_is_not_dropping_it(memory):
    learn(memory, [(RUNNING, "2025-11-03 09:00"), ("I hate mornings.", "2025-11-10 09:00")])
    assert any("Nidelva" in taste for taste in tastes(memory))
    assert "dislikes mornings" in tastes(memory)
