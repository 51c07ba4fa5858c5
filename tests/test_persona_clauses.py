"""A profile entry read by the patterns ends where the person's sentence starts a new clause:
"I work as a bookbinder and I like strong coffee" is the occupation "bookbinder", not
"bookbinder and I like strong coffee"; "I like tea and biscuits" stays whole."""

import pytest

from engine.memory.persona_patterns import slot_candidates, slots_said
from engine.records import SHORT_TERM, Page


def said(text: str) -> dict[str, list[str]]:
    """The slots `text` fills, by name, each with its values in the order said."""
    found: dict[str, list[str]] = {}
    for slot in slots_said(text):
        found.setdefault(slot.name, []).append(slot.value)
    return found


@pytest.mark.parametrize(
    ("text", "slot", "value"),
    [
        ("I work as a bookbinder and I like strong coffee.", "occupation", "bookbinder"),
        ("I work as a nurse but I want to be a doctor.", "occupation", "nurse"),
        ("I work as a chef and my husband works as a nurse.", "occupation", "chef"),
        ("I care about honesty and I value kindness.", "values", "honesty"),
    ],
)
def test_an_identity_or_value_ends_where_a_new_clause_begins(text, slot, value):
    assert said(text)[slot] == [value]


@pytest.mark.parametrize(
    ("text", "tastes"),
    [
        ("I like tea and I hate coffee.", {"tea": "likes tea", "coffee": "dislikes coffee"}),
        ("I love hiking so I moved to Denver.", {"hiking": "likes hiking"}),
        ("I hate waking up early and my boss knows it.",
         {"waking early": "dislikes waking up early"}),
        ("I work as a bookbinder and I like strong coffee.",
         {"strong coffee": "likes strong coffee"}),
        ("I like cooking but not baking.", {"cooking": "likes cooking"}),
        ("I like dogs because they are loyal.", {"dogs": "likes dogs"}),
        ("I love painting and it helps me relax.", {"painting": "likes painting"}),
        ("I like jazz whereas my wife likes rock.", {"jazz": "likes jazz"}),
        ("I love swimming although the pool is far.", {"swimming": "likes swimming"}),
        ("I no longer like spicy food and I avoid it.",
         {"spicy food": "no longer likes spicy food"}),
        # two things joined by a conjunction are one taste
        ("I like tea and biscuits.", {"tea biscuits": "likes tea and biscuits"}),
        ("I like rock and roll.", {"rock roll": "likes rock and roll"}),
        ("I love my job and my colleagues.", {"job colleagues": "likes my job and my colleagues"}),
        ("I love reading and writing when I'm on holiday.",
         {"reading writing": "likes reading and writing"}),
    ],
)
def test_a_taste_ends_where_a_new_clause_begins(text, tastes):
    entries = {s.name: s.value for s in slots_said(text) if s.category == "preference"}
    assert entries == tastes


def test_the_place_in_the_same_sentence_is_read_as_before():
    assert said("I work as a nurse in Lyon") == {"occupation": ["nurse"], "location": ["Lyon"]}
    assert said("I love hiking so I moved to Denver.")["location"] == ["Denver"]
    page = Page(id=1, user_input="I work as a nurse in Lyon and I love it.",
                agent_response="Okay.", timestamp=0.0, conversation_id="c", tier=SHORT_TERM)
    assert {s.name: s.value for s in slot_candidates(page)} == {
        "occupation": "nurse", "location": "Lyon"
    }  # fmt: skip


def test_the_profile_keeps_the_occupation_without_the_next_clause(memory):
    memory.add_memory("I work as a bookbinder and I like strong coffee.",
                      "Bookbinding sounds like patient work.")  # fmt: skip
    memory.add_memory("I like tea and I hate waking up early.", "Noted.")
    memory.run_consolidation()

    profile = {s.name: s.value for s in memory.profile()}
    assert profile["occupation"] == "bookbinder"
    assert profile["strong coffee"] == "likes strong coffee"
    assert profile["tea"] == "likes tea"
    assert profile["waking early"] == "dislikes waking up early"
    assert not any(" I " in f" {value} " for value in profile.values())
    texts = [s.text for s in memory.profile()]
    assert "occupation: bookbinder" in texts
