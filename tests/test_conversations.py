"""Past conversations: search with highlights, rename, continue, and what forgetting removes."""

from __future__ import annotations

import pytest

from engine import conversations, errors
from engine.conversations import MARK_END, MARK_START


def _two(memory):
    first = memory.conversation_id
    memory.add_memory("I am allergic to peanuts", "Noted, no peanuts.")
    memory.add_memory("My sister lives in Porto", "Lovely city.")
    second = memory.new_conversation()
    memory.add_memory("Plan a hike in Marin", "The Dipsea trail is great.")
    return first, second


def test_search_finds_exchanges_with_all_words_and_marks_them(memory):
    first, _ = _two(memory)
    (hit,) = conversations.search(memory, "peanuts allergic")
    assert (hit.conversation_id, hit.title) == (first, "I am allergic to peanuts")
    assert f"{MARK_START}allergic{MARK_END}" in hit.snippet
    assert f"{MARK_START}peanuts{MARK_END}" in hit.snippet
    # the last word may be unfinished (search as you type); every word must match
    assert [h.conversation_id for h in conversations.search(memory, "dipsea tra")] != []
    assert conversations.search(memory, "peanuts Marin") == []
    assert conversations.search(memory, '"  ') == []


def test_the_conversations_saying_some_words_are_all_of_them_however_many_match(memory):
    """Privacy's search by the words said: every conversation with a match, not those of the
    first N exchanges (it read the best 20,000 hits; a word said more often lost conversations)."""
    first, second = _two(memory)
    memory.add_memory("Peanuts again at the party", "Careful!")
    third = memory.new_conversation()
    memory.add_memory("Nothing about food", "Fine.")
    assert conversations.conversations_saying(memory, "peanuts") == {first, second}
    assert conversations.conversations_saying(memory, "dipsea tra") == {second}  # as you type
    assert conversations.conversations_saying(memory, "peanuts marin") == set()
    assert conversations.conversations_saying(memory, "food") == {third}
    assert conversations.conversations_saying(memory, '"  ') == set()


def test_search_snippets_show_what_was_typed_not_the_resolved_dates(memory):
    """The index holds "yesterday [7 May 2023]" so that a question about 7 May finds it; the
    person typed "yesterday", and the snippet says that."""
    memory.add_memory("I repaired the bike yesterday", "Well done.", timestamp=1683540000)
    (hit,) = conversations.search(memory, "repaired bike")
    assert "yesterday" in hit.snippet and "[" not in hit.snippet and "2023" not in hit.snippet
    assert f"{MARK_START}repaired{MARK_END}" in hit.snippet


def test_conversation_length_counts_a_conversation_and_what_follows_an_exchange(memory):
    """What the app's "N earlier exchanges" line and the read around a search result count,
    without reading the pages: exchanges stored at the same second keep their order."""
    first, second = _two(memory)
    memory.continue_conversation(first)
    at = max(p.timestamp for p in memory.pages()) + 60
    later = [memory.add_memory(f"Note {i}", "Ok.", timestamp=at) for i in range(3)]
    assert memory.conversation_length(first) == 5
    assert memory.conversation_length(second) == 1
    assert memory.conversation_length("nope") == 0
    assert [memory.conversation_length(first, p.id) for p in later] == [3, 2, 1]
    oldest = memory.pages(conversation_id=first)[0]
    assert memory.conversation_length(first, oldest.id) == 5
    # an exchange of another conversation is not in this one
    (other,) = memory.pages(conversation_id=second)
    assert memory.conversation_length(first, other.id) == 0


def test_rename_and_continue(memory):
    first, second = _two(memory)
    assert conversations.rename(memory, first, "  Food   and family ") == "Food and family"
    titles = {c.id: c.title for c in memory.conversations()}
    assert titles[first] == "Food and family"
    with pytest.raises(errors.InvalidInputError):
        conversations.rename(memory, first, "   ")
    with pytest.raises(errors.NotFoundError):
        conversations.rename(memory, "nope", "x")

    memory.continue_conversation(first)
    page = memory.add_memory("One more thing about Porto", "Sure.")
    assert page.conversation_id == first
    with pytest.raises(errors.NotFoundError):
        memory.continue_conversation("nope")


def test_the_forget_preview_lists_exactly_what_forgetting_removes(memory):
    first, second = _two(memory)
    memory.run_consolidation()  # first-person statements become candidate facts
    shared = memory.add_memory("I am allergic to peanuts", "Yes.", conversation_id=second)
    memory.run_consolidation()
    before = {f.id for f in memory.facts()}

    preview = conversations.preview_forget(memory, first)

    assert preview.pages == 2
    memory.forget_conversation(first)
    after = {f.id for f in memory.facts()}
    assert {f.id for f in preview.facts} == before - after
    assert "My sister lives in Porto" in {f.text for f in preview.facts}
    # a fact also said in the other conversation stays, and the preview did not list it
    assert "I am allergic to peanuts" in {f.text for f in memory.facts()}
    assert shared.id in {p.id for p in memory.pages()}
