"""A conversation longer than the window draws (200 exchanges at start, 500 on a redraw) is shown
by its most recent exchanges: the first ones of a long conversation were drawn instead, and what
the person said last, the part the next message continues, was not on screen."""

from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.gui

EXCHANGES = 205


@pytest.fixture
def long_one(memory):
    """205 exchanges of one conversation from an earlier run, in the encrypted vault."""
    conversation = memory.new_conversation()
    start = time.time() - EXCHANGES * 60
    for n in range(EXCHANGES):
        memory.add_memory(f"Question number {n}", f"Answer number {n}", timestamp=start + n * 60)
    memory.close()  # the app is quit; it opens the vault again below
    return conversation


def test_a_long_conversation_opens_at_its_most_recent_exchanges(
    qtbot, long_one, memory, desktop
):
    window, opener = desktop(memory.path)
    with qtbot.waitSignal(window.session_attached, timeout=30_000):
        opener.start()
    last = f"Answer number {EXCHANGES - 1}"
    qtbot.waitUntil(lambda: last in window.view.plain_text(), timeout=20_000)
    text = window.view.plain_text()
    assert "Question number 4\n" not in text + "\n"  # the oldest five are the ones left out
    assert window.session.mem.conversation_id == long_one  # the next message continues it

    window.reload_conversation()  # as after something was forgotten: the same end is drawn
    qtbot.waitUntil(lambda: not window.reloading)
    assert last in window.view.plain_text()


def test_pages_newest_gives_the_last_ones_oldest_first(memory):
    conversation = memory.new_conversation()
    for n in range(5):
        memory.add_memory(f"q{n}", f"a{n}", timestamp=1_700_000_000 + n)
    latest = memory.pages(conversation_id=conversation, limit=2, newest=True)
    assert [p.user_input for p in latest] == ["q3", "q4"]
    assert [p.user_input for p in memory.pages(conversation_id=conversation, limit=2)] == [
        "q0", "q1"]
