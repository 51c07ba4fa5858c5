"""What a page teaches without an LLM: requests to the assistant are not facts about the
person, and names are read whole (several words, any script, O'Neill, Jean-Luc)."""

import pytest

from engine.memory.persona_patterns import slot_candidates
from engine.memory.persona_statements import statement_candidates
from engine.records import SHORT_TERM, USER_FACT, Page


def page(user: str, agent: str = "Okay.") -> Page:
    return Page(
        id=1,
        user_input=user,
        agent_response=agent,
        timestamp=0.0,
        conversation_id="c",
        tier=SHORT_TERM,
    )


def user_facts(user: str) -> list[str]:
    return [text for kind, text in statement_candidates(page(user)) if kind == USER_FACT]


def names(user: str) -> list[str]:
    return [s.value for s in slot_candidates(page(user)) if s.name == "name"]


@pytest.mark.parametrize(
    "request_text",
    [
        "Tell me a long story about my dog and my job, with lots of detail.",
        "Write a poem about my cat and her favourite toys.",
        "Give me three ideas for my garden party.",
        "Help me plan my trip to Rome next month.",
        "Explain how the interest on my mortgage works.",
        "Remind me to call my mother on Sunday.",
        "Please summarise my notes from the meeting.",
        "Can you suggest a name for my new puppy.",
        "Could you check my essay for typos.",
        "Would you draft an email to my landlord.",
        "Will you make a list of my chores.",
        "I'd like you to rewrite my cover letter.",
        "I want you to act as my fitness coach.",
        "Let me know what you think about my plan.",
        "Let's talk about my job search today.",
        "Let’s go over my budget again.",
        "Hey, tell me something fun about my city.",
        "Ok so give me a recipe for my dinner tonight.",
        "Could you please help me with my taxes.",
    ],
)
def test_requests_to_the_assistant_are_not_facts(request_text):
    assert user_facts(request_text) == []


@pytest.mark.parametrize(
    "statement",
    [
        "I work as a nurse in Leeds and love my job.",
        "My dog chewed my cello bow yesterday, so I need a new one.",
        "Love my new bike, it rides so smoothly.",
        "Visited my mum yesterday at the hospital.",
        "Just got back from my morning run by the river.",
        "Teach at my old school three days a week.",
        "Remember that I'm allergic to peanuts and shellfish.",
        "Please note that my address changed to Elm Street.",
        "Imagine my surprise when my boss promoted me.",
        "Let me tell you, my trip to Paris was amazing.",
        "Can you believe I finally ran my first marathon!",
    ],
)
def test_first_person_statements_are_still_facts(statement):
    assert user_facts(statement) == [statement]


def test_a_request_and_a_statement_in_one_message():
    text = "I adopted a beagle called Max last spring. Tell me how to train my dog to sit."
    assert user_facts(text) == ["I adopted a beagle called Max last spring."]


@pytest.mark.parametrize(
    "said, name",
    [
        ("My name is Priya Raman.", "Priya Raman"),
        ("I'm Siobhan O'Neill.", "Siobhan O'Neill"),
        ("My name is José García.", "José García"),
        ("I am Élodie.", "Élodie"),
        ("Call me Jean-Luc Picard.", "Jean-Luc Picard"),
        ("My name is Maria de la Cruz.", "Maria de la Cruz"),
        ("I’m Zoë, nice to meet you.", "Zoë"),
        ("My name is Priya and I work as a nurse.", "Priya"),
        ("I'm Tom, I work as a data scientist in San Francisco.", "Tom"),
        ("I'm Tom I work in Boston.", "Tom"),
        ("I am so glad, I'm Tom", "Tom"),
    ],
)
def test_names_are_read_whole_and_stop_at_the_name(said, name):
    assert names(said) == [name]


@pytest.mark.parametrize(
    "said",
    [
        "I am Tired.",
        "I'm tired today.",
        "I'm Going home now.",
        "I'm Tom's mum.",
        "I am happy.",
        "I'm American, born and raised.",
        "I am Catholic.",
        "I'm Vegan these days.",
    ],
)
def test_not_names(said):
    assert names(said) == []


@pytest.mark.parametrize(
    "said, slot, value",
    [
        ("I live in Zürich now.", "location", "Zürich"),
        ("I moved to São Paulo last year.", "location", "São Paulo"),
        ("I'm originally from Łódź", "origin", "Łódź"),
        ("I work at Ørsted as an engineer.", "employer", "Ørsted"),
        ("I live in Boston with my wife.", "location", "Boston"),
        ("I grew up in Porto, then moved here.", "origin", "Porto"),
        ("I was born in Lisbon.", "origin", "Lisbon"),
        ("I was born and raised in Cork.", "origin", "Cork"),
    ],
)
def test_places_in_any_script(said, slot, value):
    assert [s.value for s in slot_candidates(page(said)) if s.name == slot] == [value]


@pytest.mark.parametrize(
    "said",
    ["I live in the city.", "I moved to a new flat.", "I'm from here", "I was born in May 1990.",
     "I was born in Sept 1990.",
     "I grew up in a small village."],
)
def test_not_places(said):
    assert not [s for s in slot_candidates(page(said)) if s.name in ("location", "origin")]


@pytest.mark.parametrize("said", ["I'm Christian, nice to meet you.", "I'm Brian."])
def test_names_that_look_like_words_for_a_people_or_faith(said):
    assert names(said) == [said.split()[1].strip(",.")]


def test_a_profile_slot_reads_as_one_line_without_saying_its_name_twice():
    from engine.records import ProfileSlot

    def slot(category: str, name: str, value: str) -> ProfileSlot:
        return ProfileSlot(1, category, name, value, "active", 0.0, 0.0, (), "learned")

    assert slot("identity", "location", "Zürich").text == "location: Zürich"
    assert slot("preference", "favourite_food", "spicy ramen").text == "favourite food: spicy ramen"
    # what the patterns store for "I love hiking": the object under its own name
    [liked] = [s for s in slot_candidates(page("I love hiking.")) if s.category == "preference"]
    assert slot(liked.category, liked.name, liked.value).text == "likes hiking"
    # the reference's profile, imported whole: its text alone, as the reference shows it
    imported = slot("imported", "profile from the reference MemoryOS", "Tom is a nurse.")
    assert imported.text == "Tom is a nurse."


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("I love hiking.", "likes hiking"),
        ("I don't like horror films.", "dislikes horror films"),
        ("I hate early mornings.", "dislikes early mornings"),
        ("I no longer like spicy food.", "no longer likes spicy food"),
        ("I don't really enjoy running any more.", "no longer likes running any more"),
    ],
)
def test_tastes_and_changed_tastes(said, value):
    assert [s.value for s in slot_candidates(page(said)) if s.category == "preference"] == [value]
