"""Exchanges an agent stored through the MCP server, as the app shows them: the answer is the
agent's, not MemoryOS's, and the app does not open on the agent's conversation, where the
person's first message went (a walkthrough of someone moving from the reference MemoryOS)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gui

MINE = "I grow tomatoes on my balcony."
AGENTS = "Biscuit had his teeth cleaned at the vet today."


def _both(memory) -> None:
    memory.new_conversation()
    memory.add_memory(MINE, "Lovely!", timestamp=1_790_000_000)
    # later, as the MCP server's add_memory stores it: its own conversation, source "mcp"
    memory.add_memory(AGENTS, "Glad Biscuit is okay!", timestamp=1_790_100_000,
                      conversation_id="agent-session-1", source="mcp")


def _opened(qtbot, memory, chat):
    """The main window on `memory`, opened after the test stored its exchanges (the `window`
    fixture opens before)."""
    from app.main_window import MainWindow

    window = MainWindow.for_memory(memory, chat)
    qtbot.addWidget(window)
    window.show()
    return window


def test_the_app_opens_on_the_persons_conversation_not_the_agents(qtbot, memory, chat):
    _both(memory)
    window = _opened(qtbot, memory, chat)
    qtbot.waitUntil(lambda: MINE in window.view.plain_text())
    assert AGENTS not in window.view.plain_text()
    window.close()


def test_an_agents_answer_is_named_as_the_agents(qtbot, memory, chat):
    from app.widgets import MCP_AGENT

    _both(memory)
    window = _opened(qtbot, memory, chat)
    qtbot.waitUntil(lambda: MINE in window.view.plain_text())
    assert MCP_AGENT not in window.view.plain_text()  # the app's own answers: MemoryOS
    window.open_conversation("agent-session-1")
    qtbot.waitUntil(lambda: AGENTS in window.view.plain_text())
    shown = window.view.plain_text()
    assert MCP_AGENT in shown and "Glad Biscuit is okay!" in shown
    window.close()


def test_with_only_agents_conversations_it_opens_a_new_chat(qtbot, memory, chat):
    memory.add_memory(AGENTS, "Glad Biscuit is okay!", conversation_id="agent-session-1",
                      source="mcp")
    window = _opened(qtbot, memory, chat)
    qtbot.waitUntil(lambda: not window._history_due)  # the summary read and drawn
    assert AGENTS not in window.view.plain_text()
    window.close()
