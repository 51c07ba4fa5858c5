"""Which memories an answer's prompt shows (walkthrough s37, items 1 and 6): of several facts
about one thing the one said last, the profile entries the question is about, and the recent
exchanges of the conversation the question is asked in, not of whichever was last."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from engine import prompt, prompt_memories

DAY = 86400.0
NOV_3 = datetime(2026, 11, 3, 9, 0, tzinfo=timezone.utc).timestamp()

SAID = [  # (days after 3 November, what the person said, the answer), each its own conversation
    (0, "I take levothyroxine for my thyroid.", "Noted."),
    (0.1, "My sister Anna lives in Oslo.", "Nice."),
    (1, "I take vitamin D 1000 IU every day.", "Good for the winter."),
    (2, "My dog Biscuit loves the beach at Ladestien.", "Lucky dog!"),
    (4, "My mother lives in Oslo too.", "Handy."),
    (5, "I fly to Lisbon on the 4th of December.", "Have a great trip!"),
    (9, "I take my levothyroxine at night now.", "Got it."),
    (10, "My sister Anna lives in Bergen now.", "A big change."),
]


def _tell(memory, said) -> None:
    for day, user, assistant in said:
        memory.new_conversation()
        memory.add_memory(user, assistant, NOV_3 + day * DAY)


def _texts(facts) -> list[str]:
    return [f.fact.text for f in facts]


@pytest.mark.real_models
def test_of_several_facts_about_one_thing_the_one_said_last_comes_first(minilm_memory):
    """The sister's city said twice, on 3 and 13 November: the newer is the one a prompt with
    room for one fact shows. The mother's city, another thing, keeps its place; the facts
    chosen, and the exchanges ranked, stay the same."""
    from engine import retrieval as retrieval_module

    memory = minilm_memory
    _tell(memory, SAID)
    memory.run_consolidation()
    question = "Where does my sister Anna live?"

    found = memory.retrieve(question)
    sister = [t for t in _texts(found.facts) if "sister" in t]
    assert len(sister) == 2 and "Bergen" in sister[0], _texts(found.facts)
    assert "Bergen" in found.facts[0].fact.text, _texts(found.facts)

    original = retrieval_module.current_first
    try:  # the order before: by meaning and words alone
        retrieval_module.current_first = lambda memory, query, facts: facts
        plain = memory.retrieve(question)
    finally:
        retrieval_module.current_first = original
    assert "Oslo" in plain.facts[0].fact.text, _texts(plain.facts)  # what was wrong
    mother = [i for i, t in enumerate(_texts(found.facts)) if "mother" in t]
    assert mother == [i for i, t in enumerate(_texts(plain.facts)) if "mother" in t]
    # The demo model's prompt: the sister's city it is shown first is the current one.
    assert "Bergen" in prompt_memories.compact_retrieval(found).facts[0].fact.text

    # Only the order within the chosen facts changed: the same facts, the same ranked turns.
    assert sorted(f.fact.id for f in plain.facts) == sorted(f.fact.id for f in found.facts)
    assert [(t.page_id, t.side) for t in plain.turns] == [
        (t.page_id, t.side) for t in found.turns
    ]


@pytest.mark.real_models
def test_the_small_prompt_keeps_the_name_and_what_the_question_is_about(minilm_memory):
    """The demo model's prompt held the first three profile entries whatever was asked
    (location, name, occupation) and room for one or two facts."""
    memory = minilm_memory
    memory.add_memory("My name is Maren and I live in Trondheim.", "Hello Maren!")
    memory.add_memory("I work as a nurse.", "A demanding job.")
    _tell(memory, SAID)
    memory.run_consolidation()
    names = {slot.name for slot in memory.profile()}
    assert {"name", "location", "occupation"} <= names, names

    def small(question: str):
        found = prompt_memories.compact_retrieval(memory.retrieve(question))
        return found, prompt.build_messages(found, question, compact=True)

    dose, dose_messages = small("When do I take my levothyroxine?")
    assert dose.profile[0].name == "name"
    assert "location" not in [slot.name for slot in dose.profile]
    assert len(dose.profile) + len(dose.facts) == prompt_memories.SMALL_FACTS
    doses = [t for t in _texts(dose.facts) if "levothyroxine" in t]
    assert len(doses) == 2 and "at night now" in doses[0], _texts(dose.facts)
    home, home_messages = small("Where do I live now?")
    # name and home first; "sister: Anna" may follow with the fact of her move it was read from
    # (compact_retrieval: an entry comes with a ranked fact of its exchange)
    assert [slot.name for slot in home.profile][:2] == ["name", "location"]
    assert {slot.name for slot in home.profile[2:]} <= {"sister: Anna"}
    assert "Trondheim" in home_messages[-1]["content"]
    # The system message is the same for both: the model's cache of it holds.
    assert dose_messages[0] == home_messages[0]
    assert "Maren" in dose_messages[0]["content"]
    assert "Trondheim" not in dose_messages[0]["content"]
    assert "nurse" not in dose_messages[0]["content"]


def _turns(messages) -> str:
    """The conversation before the question: every message but the system one and the last."""
    return "\n".join(m["content"] for m in messages[1:-1])


def test_a_new_conversation_does_not_show_the_last_ones_exchanges_as_its_turns(memory, spied):
    memory.add_memory("What is my current levothyroxine dose?", "You take 88 micrograms.")
    memory.add_memory("And when do I take it?", "Every morning before breakfast.")
    memory.new_conversation()

    stream = memory.get_response("What should I pack for the Lisbon trip?", max_tokens=8)
    stream.collect()

    assert [m["role"] for m in stream.messages] == ["system", "user"]  # no turns before
    assert spied[-1].short_term == ()
    # Asked again in the same conversation, the first question is its one turn.
    follow = memory.get_response("And the weather there?", max_tokens=8)
    follow.collect()
    assert [m["role"] for m in follow.messages] == ["system", "user", "assistant", "user"]
    assert follow.messages[1]["content"].endswith("What should I pack for the Lisbon trip?")
    assert [p.user_input for p in spied[-1].short_term] == [
        "What should I pack for the Lisbon trip?"
    ]


def test_a_reopened_conversation_gets_its_own_last_exchanges_as_its_turns(memory):
    memory.new_conversation()
    memory.add_memory("My dog Biscuit is scared of thunder.", "Poor Biscuit!", NOV_3)
    memory.add_memory("What can I do about it?", "Try a quiet corner and a blanket.",
                      NOV_3 + 300)
    old = memory.conversation_id
    memory.new_conversation()
    for i in range(memory.settings.stm_capacity + 2):  # the dog exchanges leave the queue
        memory.add_memory(f"What is my levothyroxine dose, question {i}?", "88 micrograms.")
    memory.run_consolidation()
    assert not any("Biscuit" in p.user_input for p in memory.short_term())

    memory.continue_conversation(old)
    stream = memory.get_response("Does he still need the blanket?", max_tokens=8)
    stream.collect()

    turns = _turns(stream.messages)
    assert "Try a quiet corner and a blanket." in turns
    assert "levothyroxine" not in turns
    assert stream.page is not None and stream.page.conversation_id == old
