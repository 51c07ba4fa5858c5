"""Conversation search results name the speakers as the conversation does."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gui


def test_search_results_say_you_and_memoryos_not_user_and_assistant(qtbot, window, memory):
    """Results read "User: … Assistant: …" while the conversation says You and MemoryOS."""
    from app.widgets import speakers

    memory.new_conversation()
    memory.add_memory("I am allergic to peanuts", "Noted, no peanuts.")
    memory.add_memory("Plan a hike in Marin", "The Dipsea trail.")
    memory.new_conversation()
    sidebar = window.sidebar
    qtbot.waitUntil(lambda: len(sidebar.rows()) == 1)
    with qtbot.waitSignal(sidebar.searched):
        sidebar.search.setText("peanuts")

    you, app = speakers(memory.pages()[0])
    shown = sidebar.results.toPlainText()
    assert f"{you}: I am allergic to peanuts" in shown
    assert f"{app}: Noted, no peanuts." in shown
    assert "User:" not in shown and "Assistant:" not in shown
