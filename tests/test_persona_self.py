"""What one says of oneself, read without an LLM (engine/memory/persona_self.py): age (shown to a
model with the day it was said), a single parent's status, children, pronouns, favourites,
what one is learning; what they become in the vault, and which a small model is shown."""

import pytest

from engine import prompt_memories
from tests.helpers import entries


@pytest.mark.parametrize(
    ("said", "age"),
    [
        ("I'm 34.", "34"),
        ("I am 34 years old and I live in Leeds.", "34"),
        ("I'm thirty-four, btw.", "thirty-four"),
        ("I just turned 40!", "40"),
        ("I turned 40 last week.", "40"),
        ("I'm now 41. Can you believe it?", "41"),
        ("I'm 25 years young!", "25"),
        ("I'm 34, she's 36.", "34"),
        # not one's age
        ("I'm 5 minutes late.", None),
        ("I'm 34 weeks pregnant.", None),
        ("I'm 100% sure.", None),
        ("I'm fifty-fifty on it.", None),
        ("I'm turning 30 next month.", None),  # not yet
        ("I'm 12 and a half hours into this drive.", None),
        ("I've turned 50 pages today.", None),
        ("My daughter Chloé just turned seven.", None),  # someone else's
        ("My birthday is on the 3rd of September, I'll be forty.", None),
        ("Am I 34?", None),
    ],
)
def test_ones_age_is_read(said, age):
    found = [e for e in entries(said) if e[1] == "age"]
    assert found == ([("identity", "age", age)] if age else [])


@pytest.mark.parametrize(
    ("said", "status"),
    [("I'm a single mum.", "single"), ("I am a single dad now.", "single"),
     ("I'm 34 and a single dad.", "single"), ("It'll be tough as a single parent.", None),
     ("I'm friends with a single mum.", None)],
)
def test_a_single_parent_is_single(said, status):
    found = [e[2] for e in entries(said) if e[1] == "relationship"]
    assert found == ([status] if status else [])


def test_the_age_reaches_the_model_with_the_day_it_was_said(memory):
    """An age is true when said: a year on, the model must be able to tell it is older. The
    profile keeps the words; the prompt gets the day of the exchange that said them, and a newer
    age replaces the older."""
    from engine.prompt import build_messages
    from tests.test_prompt_and_time import ts

    said = ts("2025-03-07T09:00:00")
    memory.add_memory("I'm 34 and I live in Leeds.", "Nice!", timestamp=said)
    memory.run_consolidation()
    assert "age: 34" in {slot.text for slot in memory.profile()}  # what was said
    now = said + 400 * 86400
    retrieval = memory.retrieve("How old am I?", now=now)
    assert "age: 34 (said on 7 March 2025)" in {slot.text for slot in retrieval.profile}
    for compact in (False, True):
        shown = retrieval if not compact else prompt_memories.compact_retrieval(retrieval)
        prompt = "\n".join(m["content"] for m in build_messages(shown, "How old?", now, compact))
        assert "age: 34 (said on 7 March 2025)" in prompt
    memory.add_memory("I turned 35 yesterday!", "Happy birthday!", timestamp=said + 200 * 86400)
    memory.run_consolidation()
    current = {slot.text for slot in memory.profile()}
    assert "age: 35" in current and "age: 34" not in current


def test_an_age_the_person_edits_is_dated_from_the_edit(memory):
    from engine.memory import when
    from tests.test_prompt_and_time import ts

    memory.add_memory("I'm 34.", "Noted.", timestamp=ts("2025-03-07T09:00:00"))
    memory.run_consolidation()
    (age,) = [slot for slot in memory.profile() if slot.name == "age"]
    edited = memory.edit_profile_slot(age.id, "36")
    shown = {slot.text for slot in memory.retrieve("How old am I?").profile}
    assert f"age: 36 (said on {when.describe_day(edited.updated)})" in shown


@pytest.mark.parametrize(
    ("said", "entry"),
    [
        ("My favourite colour is blue.", ("preference", "favourite colour", "blue")),
        ("My favorite food is probably sushi.", ("preference", "favorite food", "sushi")),
        ("My all-time favourite films are Alien and Heat, obviously.",
         ("preference", "favourite films", "Alien and Heat")),
        ("My favourite TV show is Succession.", ("preference", "favourite TV show", "Succession")),
        ("My favourite band has to be Radiohead.", ("preference", "favourite band", "Radiohead")),
        ("I have two kids.", ("people", "children", "two kids")),
        ("We've got three children, all under ten.", ("people", "children", "three children")),
        ("I'm a mother of two.", ("people", "children", "two")),
        ("I have a son who lives in Leeds.", ("people", "children", "a son")),
        ("We have a boy and a girl.", ("people", "children", "a boy and a girl")),
        ("Blue is my favourite colour.", ("preference", "favourite colour", "Blue")),
        ("Radiohead are my all-time favourite band!", ("preference", "favourite band", "Radiohead")),
        ("My pronouns are she/her.", ("identity", "pronouns", "she/her")),
        ("I use they/them pronouns.", ("identity", "pronouns", "they/them")),
        ("I'm pregnant!", ("health", "pregnant", "pregnant")),
        ("I'm 20 weeks pregnant.", ("health", "pregnant", "pregnant")),
    ],
)
def test_favourites_children_pronouns_and_a_pregnancy_are_read(said, entry):
    assert entry in entries(said)


@pytest.mark.parametrize(
    "said",
    [
        "My favourite part was the ending.",  # a moment, not a standing taste
        "My favourite thing about Paris is the food.",
        "My favourite thing to do is hiking.",
        "My favourite place to eat is Dishoom.",
        "My favourite is the blue one.",
        "My favourite toy was a bear.",  # the past
        "I have two kids in my class.",  # a teacher's
        "I have a girl's name in mind.",
        "I have a boy band poster.",
        "I think blue is my favourite colour.",  # who says it is no favourite
        "That is my favourite part.",
        "I'm not pregnant.",
        "My son's pronouns are he/him.",
    ],
)
def test_what_is_no_favourite_child_or_pronoun_fills_nothing(said):
    assert [e for e in entries(said) if e[1].startswith(("favourite", "favorite")) or
            e[1] in ("children", "pronouns", "pregnant")] == []


def test_a_new_favourite_replaces_the_old_and_a_small_model_is_shown_it(memory):
    from tests.helpers import learn_exchanges

    learn_exchanges(memory, [("My favourite colour is blue.", "Nice."),
                             ("My favourite band is Radiohead.", "Great band.")])
    learn_exchanges(memory, [("My favourite colour is green now.", "Fresh!")])
    current = {slot.text for slot in memory.profile()}
    assert {"favourite colour: green", "favourite band: Radiohead"} <= current
    assert "favourite colour: blue" not in current
    shown = [s.text for s in prompt_memories.small_profile(
        tuple(memory.profile()), "What's my favourite colour?")]
    assert shown == ["favourite colour: green"]  # not every favourite: "colour" says which
    shown = [s.text for s in prompt_memories.small_profile(
        tuple(memory.profile()), "What are my favourite things?")]
    assert set(shown) == {"favourite colour: green", "favourite band: Radiohead"}


@pytest.mark.parametrize(
    ("said", "entry"),
    [
        ("I'm learning Spanish.", "learning Spanish"),
        ("I started learning the ukulele and my fingertips hurt.", "learning the ukulele"),
        ("I'm learning to drive!", "learning to drive"),
        ("I'm still learning to play the guitar, slowly.", "learning to play the guitar"),
        ("I'm learning a ton", None),
        ("I'm learning that patience matters.", None),
        ("I'm learning to accept it.", None),
        ("I'm learning so much from you.", None),
    ],
)
def test_what_one_is_learning_is_read(said, entry):
    found = [e[2] for e in entries(said) if e[1].startswith("learning ")]
    assert found == ([entry] if entry else [])


def test_children_said_two_ways_at_once_are_one_entry():
    assert [e for e in entries("I've got two sons and a daughter.") if e[1] == "children"] == [
        ("people", "children", "two sons and a daughter")
    ]
