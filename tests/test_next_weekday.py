"""Which day "next Friday" means: the Friday of the following calendar week (weeks start on
Monday), worked out from the day it was said. Said on Thursday 26 November 2026, "next
Friday" was dated 27 November (tomorrow), where a person means 4 December; "this Friday" and
"on Friday" are the coming one."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from engine.memory import when


def midnight(day: str) -> float:
    return datetime.fromisoformat(day).replace(tzinfo=timezone.utc).timestamp()


def ts(day: str) -> float:
    """10 o'clock on `day`."""
    return midnight(day) + 10 * 3600


def said(text: str, day: str) -> str:
    """The date written after the first relative phrase of `text` said on `day`."""
    resolved = when.resolve_relative(text, ts(day))
    return resolved[resolved.index("[") + 1 : resolved.index("]")]


# (said on, phrase, the day it means). Week of Monday 23 to Sunday 29 November 2026.
CASES = [
    # the day before: the walkthrough's case
    ("2026-11-26", "next Friday", "4 December 2026"),  # Thursday
    ("2026-11-26", "this Friday", "27 November 2026"),
    ("2026-11-26", "on Friday", "27 November 2026"),
    ("2026-11-26", "next Monday", "30 November 2026"),  # already in the following week
    ("2026-11-26", "next Thursday", "3 December 2026"),  # the same weekday: a week on
    # said on the same weekday
    ("2026-11-27", "next Friday", "4 December 2026"),  # Friday
    ("2026-11-27", "this Friday", "27 November 2026"),  # today
    ("2026-11-27", "on Friday", "4 December 2026"),
    # a Monday: "next Tuesday" is not tomorrow
    ("2026-11-23", "next Tuesday", "1 December 2026"),
    ("2026-11-23", "this Tuesday", "24 November 2026"),
    # Saturday: the following week starts in two days
    ("2026-11-28", "next Friday", "4 December 2026"),
    ("2026-11-28", "next Saturday", "5 December 2026"),
    ("2026-11-28", "next Sunday", "6 December 2026"),
    ("2026-11-28", "this Sunday", "29 November 2026"),
    # Sunday, the last day of its week: the following week starts tomorrow
    ("2026-11-29", "next Monday", "30 November 2026"),
    ("2026-11-29", "next Friday", "4 December 2026"),
    ("2026-11-29", "next Sunday", "6 December 2026"),
    ("2026-11-29", "this Sunday", "29 November 2026"),
]


@pytest.mark.parametrize(("day", "phrase", "meant"), CASES)
def test_a_weekday_said_with_next_this_or_on_gets_its_day(day, phrase, meant):
    assert said(f"I fly to Lisbon {phrase}.", day) == meant


def test_next_weekend_is_the_weekend_of_the_following_week():
    """As "next Saturday" is: the two could not name different Saturdays in one sentence."""
    assert said("We go camping next weekend.", "2026-11-26") == "the weekend of 5 December 2026"
    assert said("We go camping this weekend.", "2026-11-26") == "the weekend of 28 November 2026"
    assert said("We go camping next weekend.", "2026-11-29") == "the weekend of 5 December 2026"


def test_a_question_about_next_friday_asks_for_the_same_day():
    """A plan dated "next Friday [4 December 2026]" on Thursday is found by "What am I doing
    next Friday?" asked that day, and "this Friday" asks for tomorrow."""
    thursday = ts("2026-11-26")
    assert when.time_window("What am I doing next Friday?", thursday) == (
        midnight("2026-12-04"), midnight("2026-12-05")
    )
    assert when.time_window("What am I doing this Friday?", thursday) == (
        midnight("2026-11-27"), midnight("2026-11-28")
    )


def test_the_model_reads_the_friday_of_next_week(memory):
    thursday = ts("2026-11-26")
    memory.add_memory("Next Friday I fly to Lisbon.", "Have a good trip!", timestamp=thursday)
    memory.run_consolidation()
    a_week_later = thursday + 7 * 86400
    found = memory.retrieve("When do I fly to Lisbon?", now=a_week_later)
    assert [f.fact.text for f in found.facts if "Lisbon" in f.fact.text] == [
        "Next Friday [4 December 2026] I fly to Lisbon."
    ]
    asked = memory.retrieve("What am I doing on 4 December 2026?", now=a_week_later)
    assert any("Lisbon" in p.page.user_input for p in asked.pages[:3])
