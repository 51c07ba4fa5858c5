"""Searching a year of conversations: best match first (what the person said not buried by a
long answer), equal matches newest first, how many were found, and whole marks around the
words as said (a relative date's resolved day is not shown, nor cut in half)."""

from __future__ import annotations

import datetime as dt
import re

from engine import conversations
from engine.conversations import MARK_END, MARK_START

SENTENCE = "That sounds like a wonderful trip, and the food there is famous for good reason."
LONG_ANSWER = " ".join(SENTENCE for _ in range(12))


def _at(year: int, month: int, day: int) -> float:
    return dt.datetime(year, month, day, 12, tzinfo=dt.timezone.utc).timestamp()


def _filler(memory, count: int) -> None:
    """Exchanges without the searched words: a word found in a few of many is a rare one."""
    for n in range(count):
        memory.add_memory(f"Remind me to water the plants on day {n}", "Noted.",
                          timestamp=_at(2025, 7, 1) + n * 3600)  # fmt: skip


def test_what_the_person_said_comes_before_answers_that_mention_the_word(memory):
    """The exchange "In March I went to Lisbon" got a long answer; BM25 over the whole exchange
    ranked it below every short answer that named Lisbon once. Scored on its own, what the person said
    counts at least as much as what the assistant said."""
    _filler(memory, 30)
    answers = [
        ("Where should I go in Portugal?",
         "Lisbon and Porto are the usual choices for a first visit there."),
        ("Any ideas for a city break?",
         "Lisbon is sunny in spring and the trams are a fun way around."),
        ("Where is good for seafood?",
         "Lisbon has many small places near the river with grilled fish."),
        ("Which cities have old trams?",
         "Lisbon still runs its yellow trams up the steep hills every day."),
    ]  # fmt: skip
    for n, (said, answered) in enumerate(answers):
        memory.add_memory(said, answered, timestamp=_at(2026, 5, 1 + n))
    said = memory.add_memory("In March I went to Lisbon", LONG_ANSWER, timestamp=_at(2026, 3, 20))

    hits = conversations.search(memory, "Lisbon")
    assert len(hits) == 5
    assert hits[0].page_id == said.id


def test_equal_matches_are_listed_newest_first(memory):
    days = [_at(2025, 12, 5), _at(2026, 1, 5), _at(2026, 6, 5)]
    pages = [memory.add_memory("I ate paella", "Nice.", timestamp=day) for day in days]
    hits = conversations.search(memory, "paella")
    assert [h.page_id for h in hits] == [p.id for p in reversed(pages)]
    assert [h.timestamp for h in hits] == sorted(days, reverse=True)


def test_the_count_says_how_many_were_found_and_when_the_list_is_cut(memory):
    for month in (1, 2, 3):
        memory.new_conversation()
        memory.add_memory("My dog Biscuit chewed a shoe", "Oh no.", timestamp=_at(2026, month, 2))
        memory.add_memory("Biscuit likes the beach", "Lovely.", timestamp=_at(2026, month, 9))
    memory.add_memory("Nothing about dogs here", "Ok.", timestamp=_at(2026, 4, 1))

    found = conversations.find(memory, "biscuit", limit=4)
    assert (len(found.hits), found.exchanges, found.conversations) == (4, 6, 3)
    assert "6 exchanges in 3 conversations" in found.summary()
    assert found.summary().lower().startswith("the first 4 of")

    whole = conversations.find(memory, "biscuit beach")
    assert (len(whole.hits), whole.exchanges, whole.conversations) == (3, 3, 3)
    assert "3 exchanges in 3 conversations" in whole.summary()
    assert not whole.summary().lower().startswith("the first")
    assert conversations.find(memory, "walrus").exchanges == 0


def _marked(snippet: str) -> list[str]:
    """The marked stretches of a snippet; fails when marks are unbalanced or nested."""
    assert re.fullmatch(
        f"[^{MARK_START}{MARK_END}]*(?:{MARK_START}[^{MARK_START}{MARK_END}]+"
        f"{MARK_END}[^{MARK_START}{MARK_END}]*)*",
        snippet,
    ), repr(snippet)
    return re.findall(f"{MARK_START}([^{MARK_END}]*){MARK_END}", snippet)


def test_a_word_found_in_a_resolved_date_marks_the_words_said_whole(memory):
    """The index holds "last Tuesday [24 March 2026]"; a search for "Lisbon March" cut the
    snippet inside that date, and "[24 [March]…" was shown. The snippet shows what was typed,
    with the relative date that matched March marked."""
    said_at = _at(2026, 3, 27)  # a Friday: "last Tuesday" is 24 March 2026
    memory.add_memory(
        "Lisbon was lovely, we walked for hours with my sister last Tuesday and it was good "
        "and then we ate custard tarts until late", "That sounds like a lovely break.",
        timestamp=said_at,
    )  # fmt: skip
    memory.add_memory("I went to the market yesterday", "Nice.", timestamp=said_at)

    (hit,) = conversations.search(memory, "Lisbon March")
    assert "[" not in hit.snippet and "]" not in hit.snippet and "2026" not in hit.snippet
    assert [m.casefold() for m in _marked(hit.snippet)] == ["lisbon", "last tuesday"]
    assert "with my sister" in hit.snippet

    (hit,) = conversations.search(memory, "market 26")
    assert "[" not in hit.snippet and "26" not in hit.snippet
    assert [m.casefold() for m in _marked(hit.snippet)] == ["market", "yesterday"]
