"""Forgetting exchanges keeps the conversation titles a person chose; a title taken from the
first question changes only when that question is forgotten, and the preview's "renamed" count
says exactly what the forget does. Every way of forgetting pages goes through the same code."""

from __future__ import annotations

import time

from engine import chat_commands, conversations
from engine.settings import MemorySettings
from tests.test_mcp_server import call, make_vault, open_direct, run

CHOSEN = "About me - first chat"
QUESTIONS = (
    "Where do I live these days?",
    "What is my favourite kind of music?",
    "Which city did I grow up in?",
)


def _conversation(memory, questions=QUESTIONS, timestamps=None) -> tuple[str, list]:
    """A new conversation with one exchange per question, in order."""
    conversation = memory.new_conversation()
    stamps = timestamps or [None] * len(questions)
    pages = [memory.add_memory(q, "Noted.", ts) for q, ts in zip(questions, stamps, strict=True)]
    return conversation, pages


def _titles(memory) -> dict[str, str]:
    return {c.id: c.title for c in memory.conversations()}


def _renamed(preview) -> list[str]:
    return [line for line in preview.lines() if "renamed" in line]


def _reopened(path, embedder):
    """The vault reopened with the key the fixture put in the in-memory keyring."""
    from engine.api import MemoryOS

    return MemoryOS.open(path, embedder=embedder, background=False)


def test_a_title_chosen_in_the_app_stays_when_a_middle_exchange_is_forgotten(memory, embedder):
    from app import forget_preview  # the Privacy panel's "Delete and forget the exchange…"

    conversation, pages = _conversation(memory)
    assert _titles(memory)[conversation] == QUESTIONS[0]  # taken from the first question
    conversations.rename(memory, conversation, CHOSEN)  # F2 in the sidebar

    shown, preview = forget_preview.preview(memory, "forget_page", [pages[1].id])
    assert _renamed(preview) == []
    assert "renamed" not in forget_preview.preview_html("Forget the exchange", preview)
    forget_preview.forget(memory, shown)

    assert _titles(memory)[conversation] == CHOSEN
    path = memory.path
    memory.close()
    with _reopened(path, embedder) as again:  # as stored in the encrypted file
        assert _titles(again)[conversation] == CHOSEN


def test_a_title_chosen_by_hand_stays_when_the_first_exchange_is_forgotten(memory):
    conversation, pages = _conversation(memory)
    conversations.rename(memory, conversation, CHOSEN)

    preview = memory.preview_forget_page(pages[0].id)
    assert preview.conversations_retitled == [] and _renamed(preview) == []
    done = memory.forget_page(pages[0].id)

    assert done.conversations_retitled == []
    assert _titles(memory)[conversation] == CHOSEN


def test_a_title_from_the_first_question_changes_only_when_that_question_goes(memory):
    conversation, pages = _conversation(memory)

    preview = memory.preview_forget_page(pages[1].id)  # a middle exchange: nothing to rename
    assert _renamed(preview) == []
    memory.forget_page(pages[1].id)
    assert _titles(memory)[conversation] == QUESTIONS[0]

    preview = memory.preview_forget_page(pages[0].id)  # the first: the title quotes it
    assert _renamed(preview) == ["1 conversation renamed"]
    memory.forget_page(pages[0].id)
    assert _titles(memory)[conversation] == QUESTIONS[2]  # the new first question


def test_the_renamed_count_is_what_the_forget_does(memory):
    chosen, chosen_pages = _conversation(memory)
    conversations.rename(memory, chosen, CHOSEN)
    first, first_pages = _conversation(memory)
    middle, middle_pages = _conversation(memory)
    same, same_pages = _conversation(memory, ("Good morning", "Good morning", "Any news?"))
    before = _titles(memory)
    forgotten = [chosen_pages[0].id, first_pages[0].id, middle_pages[1].id, same_pages[0].id]

    preview = memory.preview_forget_pages(forgotten)
    done = memory.forget_pages(forgotten)

    after = _titles(memory)
    changed = sorted(c for c in before if after[c] != before[c])
    assert changed == [first]
    assert preview.conversations_retitled == done.conversations_retitled == changed
    assert _renamed(preview) == ["1 conversation renamed"]
    assert after[first] == QUESTIONS[1]
    assert after[chosen] == CHOSEN and after[middle] == QUESTIONS[0]
    assert after[same] == "Good morning"


def test_retention_keeps_chosen_titles_and_previews_the_renamed_count(memory):
    old = time.time() - 400 * 86400  # past a 30-day retention
    recent = [old, time.time(), time.time()]
    chosen, _ = _conversation(memory, timestamps=recent)
    conversations.rename(memory, chosen, CHOSEN)
    automatic, _ = _conversation(memory, timestamps=recent)

    preview = memory.preview_retention(30, True)
    assert preview.conversations_retitled == [automatic]
    memory.update_settings(MemorySettings(retention_days=30))
    memory.run_consolidation()

    assert len(memory.pages(limit=100)) == 4
    assert _titles(memory) == {chosen: CHOSEN, automatic: QUESTIONS[1]}


def test_forgetting_a_topic_keeps_a_chosen_title(memory):
    memory.update_settings(MemorySettings(stm_capacity=1, stm_evict_batch=1))
    questions = (
        "I restore vintage motorcycles in my garage",
        "The carburettor needs cleaning",
        "Which oil suits a 1972 engine?",
    )
    chosen, pages = _conversation(memory, questions)
    conversations.rename(memory, chosen, CHOSEN)
    automatic, others = _conversation(memory, ("Tomatoes grow on my balcony", *questions[1:]))
    memory.run_consolidation()
    for conversation, first in ((chosen, pages[0]), (automatic, others[0])):
        topic = memory.page(first.id).segment_id
        assert topic is not None
        reached = {p.id for p in memory.segment_pages(topic)}
        assert first.id in reached and not {p.id for p in memory.pages(conversation)} <= reached

        preview = memory.preview_forget_segment(topic)
        memory.forget_segment(topic)

        title = _titles(memory)[conversation]
        assert preview.conversations_retitled == ([] if conversation == chosen else [automatic])
        assert title == (CHOSEN if conversation == chosen else questions[1])


def test_slash_forget_keeps_a_chosen_title(memory):
    chosen, _ = _conversation(memory, ("I keep bees on my roof", *QUESTIONS[1:]))
    conversations.rename(memory, chosen, CHOSEN)
    automatic, _ = _conversation(memory, ("Bees swarmed in the garden", *QUESTIONS[1:]))

    matches = chat_commands.find_matches(memory, "bees")
    assert len([m for m in matches if m.kind == "exchange"]) == 2
    chat_commands.forget_matches(memory, matches)

    assert _titles(memory) == {chosen: CHOSEN, automatic: QUESTIONS[1]}


def test_mcp_forget_page_keeps_a_chosen_title_and_its_summary_says_so(home):
    vault = make_vault(home)
    with open_direct(vault, background=False) as memory:  # the desktop app
        chosen, chosen_pages = _conversation(memory)
        conversations.rename(memory, chosen, CHOSEN)
        automatic, automatic_pages = _conversation(memory)
    summaries = []

    async def body(session) -> None:
        for page in (chosen_pages[1], chosen_pages[0], automatic_pages[0]):
            summaries.append((await call(session, "forget_page", id=page.id))["summary"])

    run(vault, home, body)

    assert [[line for line in s if "renamed" in line] for s in summaries] == [
        [], [], ["1 conversation renamed"]
    ]
    with open_direct(vault, background=False) as memory:
        assert _titles(memory) == {chosen: CHOSEN, automatic: QUESTIONS[1]}
