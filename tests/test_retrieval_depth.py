"""The turns retrieval ranks first do not depend on how many turns the caller asks for: the app
(10 pages) ranks as the eval measured (20 pages), each list read to the same depth."""

from __future__ import annotations

import random

import pytest

from engine.backends.fake import HashEmbedder
from engine.eval.bench_data import synthetic_exchange
from engine.retrieval import retrieve


@pytest.fixture
def embedder():
    """Wider than the suite's default, as the bench's vaults are: distinct words rarely collide."""
    return HashEmbedder(384)


@pytest.fixture
def busy_memory(memory):
    """400 varied exchanges that share many words: every list is deeper than any budget."""
    rng = random.Random(11)
    memory.add_memories(
        [(*synthetic_exchange(rng), 1_700_000_000.0 + i * 600) for i in range(400)],
        conversation_id="depth",
    )
    memory.run_consolidation()
    return memory, [synthetic_exchange(rng)[0] for _ in range(30)]


def test_the_first_turns_are_the_same_whatever_the_budget(busy_memory):
    memory, questions = busy_memory
    now = 1_700_000_000.0 + 400 * 600
    for question in questions:
        small, _ = retrieve(memory, question, max_pages=3, now=now)
        app, _ = retrieve(memory, question, max_pages=10, now=now)
        eval_, _ = retrieve(memory, question, max_pages=20, now=now)
        first = [(t.page_id, t.side) for t in small.turns]
        assert len(first) == 6
        assert [(t.page_id, t.side) for t in app.turns][:6] == first
        assert [(t.page_id, t.side) for t in eval_.turns][:6] == first


def test_long_recent_answers_leave_room_for_older_exchanges(memory):
    """The recent exchanges are the conversation, not part of the memory budget: three long
    answers in the queue left one older exchange, or none, within the 1,500 tokens."""
    rex = ["My dog Rex loves the beach.", "Rex is a border collie.", "Rex is afraid of thunder.",
           "I walk Rex every morning at 7.", "Rex turned five in March.", "Rex eats salmon kibble."]  # fmt: skip
    start = 1_700_000_000.0
    memory.add_memories(
        [(text, "Noted.", start + i * 600) for i, text in enumerate(rex)]
        + [(f"Filler note number {i}.", "Noted.", start + (10 + i) * 600) for i in range(12)],
        conversation_id="old",
    )
    memory.run_consolidation()  # the older exchanges leave the short-term queue
    long = "Here is a detailed plan. " + "Stretch, warm up, run easy, cool down, drink. " * 40
    memory.add_memories(
        [(f"Give me a training plan, part {i}", long, start + (40 + i) * 600) for i in range(3)],
        conversation_id="now",
    )
    assert sum(len(p.text()) // 4 for p in memory.short_term()) > memory.settings.context_budget_tokens
    found = memory.retrieve("Tell me about my dog Rex", max_pages=10)
    older = [p.page.user_input for p in found.pages]
    assert len([text for text in older if "Rex" in text]) == len(rex)
