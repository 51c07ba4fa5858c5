"""What the model is shown (persona, knowledge, dated pages, recent turns) and time awareness."""

from __future__ import annotations

from datetime import datetime, timezone

from engine.memory import when
from engine.prompt import MEMORY_HEADER, build_messages
from engine.settings import MemorySettings


def ts(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc).timestamp()


def test_prompt_holds_every_tier_and_alternates_roles(memory):
    memory.update_settings(MemorySettings(stm_capacity=2, stm_evict_batch=1))
    memory.add_memory("I'm Tom and I work as a data scientist.", "Noted, Tom.", timestamp="2024-03-01T09:00:00Z")
    memory.add_memory("I'll need a reminder about the dentist.", "I'll remind you about the dentist on Friday.",
                      timestamp="2024-03-02T09:00:00Z")
    memory.add_memory("The weather is nice.", "Enjoy it!", timestamp="2024-03-03T09:00:00Z")
    memory.add_memory("I finished a novel.", "Which one?", timestamp="2024-03-04T09:00:00Z")
    memory.run_consolidation()
    retrieval = memory.retrieve("What is my job as a data scientist?")
    messages = build_messages(retrieval, "What is my job?", now=ts("2024-03-05T10:00:00"))
    system, last = messages[0]["content"], messages[-1]["content"]
    # Stable part first (instructions, profile, the day), this question's memories last.
    assert messages[0]["role"] == "system" and messages[-1]["role"] == "user"
    assert "occupation: data scientist" in system and "I work as a data scientist" not in system
    assert system.rstrip().endswith("Today is 5 March 2024.")
    assert last.startswith(MEMORY_HEADER) and last.endswith("\n\nMy message: What is my job?")
    assert "I work as a data scientist" in last
    assert "I'll remind you about the dentist" in last  # assistant knowledge
    assert "[1 March 2024, 09:00]" in last  # older pages carry their dates
    roles = [m["role"] for m in messages[1:]]
    assert roles == ["user", "assistant", "user", "assistant", "user"]  # the STM queue, then the question
    assert messages[1]["content"] == "The weather is nice."


def test_time_windows():
    now = ts("2024-06-15T12:00:00")
    start, end = when.time_window("What did I do yesterday?", now)
    assert (start, end) == (ts("2024-06-14T00:00:00"), ts("2024-06-15T00:00:00"))
    start, end = when.time_window("what happened in May 2023", now)
    assert (start, end) == (ts("2023-05-01T00:00:00"), ts("2023-06-01T00:00:00"))
    start, end = when.time_window("what did we discuss 2 weeks ago", now)
    assert start < ts("2024-06-01T00:00:00") < end
    assert when.time_window("what is my favourite food", now) is None
    assert when.is_temporal("When did I move?") and not when.is_temporal("What is my name?")


def test_time_window_finds_pages_of_that_period(memory):
    now = datetime.now(timezone.utc).timestamp()
    memory.update_settings(MemorySettings(stm_capacity=1, stm_evict_batch=1))
    old = memory.add_memory("We talked about the garden fence.", "ok", timestamp=now - 40 * 86400)
    for i in range(30):
        memory.add_memory(f"The garden fence needs paint, note {i}.", "ok", timestamp=now - 200 * 86400 - i)
    yesterday = memory.add_memory("Bought paint for the garden fence.", "Nice", timestamp=now - 86400 + 60)
    memory.add_memory("unrelated", "ok", timestamp=now)
    memory.run_consolidation()
    result = memory.retrieve("What did I do about the garden fence yesterday?", max_pages=3)
    assert result.page_ids()[0] == yesterday.id
    assert "time" in result.pages[0].sources
    assert old.id not in result.page_ids()[:1]


def test_a_fact_that_says_yesterday_reaches_the_model_with_its_day(memory):
    """The fact keeps the person's words; a week later "yesterday" would mean the wrong day, so
    the prompt gets the day it meant, taken from the exchange the fact came from."""
    said = ts("2024-03-07T09:00:00")
    memory.add_memory(
        "My dog chewed my cello bow yesterday, so I need a new one.", "Oh no!", timestamp=said
    )
    memory.run_consolidation()
    (stored,) = [f for f in memory.facts() if "cello bow" in f.text]
    assert "[" not in stored.text  # what was said, word for word
    retrieval = memory.retrieve("What happened to my cello bow?", now=said + 7 * 86400)
    (shown,) = [f.fact.text for f in retrieval.facts if "cello bow" in f.fact.text]
    assert "yesterday [6 March 2024]" in shown
    prompt = "\n".join(m["content"] for m in build_messages(retrieval, "bow?", said + 7 * 86400))
    assert "yesterday [6 March 2024]" in prompt


def test_a_plan_for_next_tuesday_reaches_the_model_with_its_day(memory):
    """Plans were kept as typed ("next Tuesday", "tomorrow", "in two weeks"), where "yesterday"
    got its day: a week later the model could not tell which Tuesday was meant."""
    from engine.memory import when

    said = ts("2026-11-22T10:00:00")  # a Sunday
    assert when.resolve_relative("Next Tuesday I fly to Lisbon.", said) == (
        "Next Tuesday [24 November 2026] I fly to Lisbon."
    )
    assert when.resolve_relative("I start tomorrow", said) == "I start tomorrow [23 November 2026]"
    assert "in two weeks [about 6 December 2026]" in when.resolve_relative("in two weeks", said)
    assert when.resolve_relative("next month", said) == "next month [December 2026]"
    memory.add_memory("Next Tuesday I am flying to Lisbon for a conference.", "Enjoy!",
                      timestamp=said)  # fmt: skip
    memory.run_consolidation()
    retrieval = memory.retrieve("When do I fly to Lisbon?", now=said + 9 * 86400)
    (shown,) = [f.fact.text for f in retrieval.facts if "Lisbon" in f.fact.text]
    assert "Next Tuesday [24 November 2026]" in shown
    found = memory.retrieve("What am I doing on 24 November 2026?", now=said + 9 * 86400)
    assert any("Lisbon" in p.page.user_input for p in found.pages[:3])


def test_plans_said_with_this_or_on_a_weekday_get_their_day():
    """"this Saturday", "on Saturday", "this weekend" were kept as typed while "next Saturday"
    got its day: read a few days later, the model could not tell which Saturday it was."""
    tuesday = ts("2025-05-13T10:00:00")
    assert when.resolve_relative("A pottery workshop this Saturday morning.", tuesday) == (
        "A pottery workshop this Saturday [17 May 2025] morning."
    )
    assert "on Saturday [17 May 2025]" in when.resolve_relative("I see Ana on Saturday.", tuesday)
    # said of the past, the Saturday before
    assert "on Saturday [10 May 2025]" in when.resolve_relative("I went on Saturday.", tuesday)
    assert "this weekend [the weekend of 17 May 2025]" in when.resolve_relative(
        "We're going camping this weekend.", tuesday
    )
    assert "this morning [13 May 2025]" in when.resolve_relative("I ran this morning.", tuesday)
    saturday = ts("2025-05-17T10:00:00")  # "this Saturday" said on a Saturday is today
    assert "this Saturday [17 May 2025]" in when.resolve_relative("Busy this Saturday.", saturday)
    for any_saturday in (
        "Saturdays are busy for me.",
        "I like to swim on a Saturday.",
        "I play tennis on Saturday mornings.",
    ):
        assert when.resolve_relative(any_saturday, tuesday) == any_saturday


def test_a_question_naming_a_day_gets_that_day():
    friday = ts("2025-05-16T17:00:00")
    saturday = (ts("2025-05-17T00:00:00"), ts("2025-05-18T00:00:00"))
    assert when.time_window("What am I doing tomorrow?", friday) == saturday
    assert when.time_window("What am I doing on Saturday?", friday) == saturday
    assert when.time_window("Any plans this Saturday?", friday) == saturday
    assert when.time_window("What did I do on Saturday?", friday) == (
        ts("2025-05-10T00:00:00"), ts("2025-05-11T00:00:00")
    )
    assert when.time_window("What am I doing this weekend?", friday) == (
        ts("2025-05-17T00:00:00"), ts("2025-05-19T00:00:00")
    )


def test_a_plan_for_this_saturday_is_found_when_asked_about_tomorrow(memory):
    """Told on Tuesday "this Saturday", asked on Friday "tomorrow": the plan is the answer."""
    tuesday = ts("2025-05-13T10:00:00")
    plan = memory.add_memory(
        "I'm going to a pottery workshop this Saturday morning.", "Have fun!", timestamp=tuesday
    )
    for day in range(12):
        memory.add_memory(f"What am I doing about the garden, note {day}?", "Watering.",
                          timestamp=tuesday - 86400 * (day + 1))  # fmt: skip
        memory.add_memory(f"Tomorrow I have to tidy, reminder {day}.", "Okay.",
                          timestamp=tuesday - 86400 * (day + 20))  # fmt: skip
    memory.run_consolidation()
    found = memory.retrieve("What am I doing tomorrow?", now=ts("2025-05-16T17:00:00"))
    assert found.page_ids()[0] == plan.id
    assert "dated" in found.pages[0].sources  # found by the day it names
