"""One's work read without an LLM as people say it (engine/memory/persona_work.py): "I'm a nurse",
"I'm a software engineer at Google", "I got a job at Spotify", "I'm retired"; and the
relationship status ("I'm married", engine/memory/persona_life.py)."""

import pytest

from engine import prompt_memories
from engine.memory.persona_patterns import slots_said
from engine.records import ProfileSlot
from tests.helpers import learn_exchanges


def said_about(text: str, *names: str) -> list[tuple[str, str]]:
    return [(s.name, s.value) for s in slots_said(text) if s.name in names]


@pytest.mark.parametrize(
    ("said", "entries"),
    [
        ("I am a nurse.", [("occupation", "nurse")]),
        ("I'm an engineer.", [("occupation", "engineer")]),
        (
            "I'm a software engineer at Google.",
            [("employer", "Google"), ("occupation", "software engineer")],
        ),
        ("I'm a primary school teacher in Leeds.", [("occupation", "primary school teacher")]),
        ("I am an electrical engineer and I love it.", [("occupation", "electrical engineer")]),
        ("I'm a retired teacher.", [("occupation", "retired teacher")]),
        ("I'm a stay-at-home dad.", [("occupation", "stay-at-home dad")]),
        ("I'm a social worker.", [("occupation", "social worker")]),
        ("I'm a PhD student at UCL.", [("employer", "UCL"), ("occupation", "PhD student")]),
        (
            "I'm a nurse at St Mary's hospital.",
            [("employer", "St Mary's"), ("occupation", "nurse")],
        ),
        ("I just started a new job as a barista.", [("occupation", "barista")]),
        ("I got a job at Spotify!", [("employer", "Spotify")]),
        ("I've just started working at the BBC.", [("employer", "BBC")]),
        ("I now work for Siemens.", [("employer", "Siemens")]),
        ("I'm retired now.", [("occupation", "retired")]),
        ("I retired last year.", [("occupation", "retired")]),
        ("I'm a doctor, not a nurse.", [("occupation", "doctor")]),
        ("Ha, I'm a nurse too!", [("occupation", "nurse")]),
        ("I'm a vet - mostly cats and dogs.", [("occupation", "vet")]),
        # not one's work
        ("I'm a big fan of jazz.", []),
        ("I'm a terrible accountant, ask my wife.", []),
        ("I'm a bit of a baker.", []),
        ("I'm a mother of two.", []),
        ("I'm not a doctor.", []),
        ("If I were a doctor I'd know.", []),
        ("I'm a teacher's pet.", []),
        ("I retired the old laptop.", []),
        ("I'm a Tottenham fan.", []),
        ("I'm an amateur photographer.", []),
        ("I'm a first-time buyer.", []),
        ("I'm a dancer at heart.", []),
        ("I'm a chef in my spare time, a nurse by day.", []),
        ("Am I a good teacher?", []),
    ],
)
def test_ones_work_is_read_as_people_say_it(said, entries):
    assert said_about(said, "occupation", "employer") == entries


@pytest.mark.parametrize(
    ("said", "status"),
    [
        ("I'm married.", "married"),
        ("I'm happily married to Tom.", "married"),
        ("I got engaged last week!", "engaged"),
        ("I just got married!", "married"),
        ("I'm single again.", "single"),
        ("I'm divorced.", "divorced"),
        ("I'm widowed.", "widowed"),
        ("I'm engaged in a big project.", None),
        ("I'm single-handedly running the shop.", None),
        ("I'm not married.", None),
        ("Are you married?", None),
    ],
)
def test_the_relationship_status_is_read(said, status):
    assert said_about(said, "relationship") == ([("relationship", status)] if status else [])


def test_a_new_job_replaces_the_old_and_the_old_stays_as_replaced(memory):
    learn_exchanges(
        memory,
        [("I'm a nurse at St Mary's hospital.", "A demanding job!"), ("I'm single.", "Noted.")],
    )
    current = {slot.text for slot in memory.profile()}
    assert {"occupation: nurse", "employer: St Mary's", "relationship: single"} <= current
    learn_exchanges(
        memory,
        [
            ("I'm a teacher now, I got a job at Hillside School.", "Congrats!"),
            ("I got engaged last weekend!", "Wonderful news!"),
        ],
    )
    current = {slot.text for slot in memory.profile()}
    assert {"occupation: teacher", "employer: Hillside School", "relationship: engaged"} <= current
    assert not {"occupation: nurse", "employer: St Mary's", "relationship: single"} & current
    replaced = {slot.text for slot in memory.profile(include_superseded=True)} - current
    assert {"occupation: nurse", "relationship: single"} <= replaced


def _slot(slot_id: int, name: str, value: str) -> ProfileSlot:
    return ProfileSlot(
        id=slot_id,
        category="identity",
        name=name,
        value=value,
        origin="pattern",
        evidence_page_ids=(slot_id,),
        created=0.0,
        updated=0.0,
        status="active",
    )


def test_a_small_model_is_shown_the_job_or_the_status_a_question_asks_about():
    profile = (
        _slot(1, "name", "Tom"),
        _slot(2, "occupation", "nurse"),
        _slot(3, "relationship", "married"),
        _slot(4, "location", "Leeds"),
    )
    shown = [s.text for s in prompt_memories.small_profile(profile, "What's my job?")]
    assert shown == ["name: Tom", "occupation: nurse"]
    shown = [s.text for s in prompt_memories.small_profile(profile, "Where do I live?")]
    assert shown == ["name: Tom", "location: Leeds"]
    shown = [s.text for s in prompt_memories.small_profile(profile, "Am I married?")]
    assert shown == ["name: Tom", "relationship: married"]
