"""A reasoning model's thinking is folded in the chat; Enter during an answer keeps the text."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

pytestmark = pytest.mark.gui


def test_thinking_is_folded_and_unfolds_on_click(qtbot, window, chat, send, memory):
    chat.queue("<think>Recall the job they mentioned: nurse.</think>You are a nurse.")
    answer = send(window, "What is my job?")
    assert answer.text == "You are a nurse."
    text = window.view.plain_text()
    assert "You are a nurse." in text
    assert "Recall the job" not in text
    assert "▸ Thought for 6 words · Show" in text
    folds = window.thinking_folds
    folds.toggle(1)
    assert "Recall the job they mentioned: nurse." in window.view.plain_text()
    assert "▾ Thought for 6 words · Hide" in window.view.plain_text()
    folds.toggle(1)
    assert "Recall the job" not in window.view.plain_text()
    assert [page.agent_response for page in memory.short_term()] == ["You are a nurse."]


def test_enter_while_an_answer_streams_keeps_the_text_and_says_why(qtbot, window, chat):
    from app.composer import BUSY_HINT, DEFAULT_HINT

    chat.chunk_delay = 0.03
    chat.queue("one two three four five six seven eight nine ten eleven twelve", "Second answer.")
    window.composer.input.setPlainText("First question")
    qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.composer.stop_button.isVisible())
    window.composer.input.setPlainText("Second question")
    qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    assert window.composer.input.toPlainText() == "Second question"
    assert window.composer.hint.text() == BUSY_HINT
    with qtbot.waitSignal(window.answer_finished, timeout=10_000):
        pass
    assert window.composer.hint.text() == DEFAULT_HINT
    assert window.composer.input.toPlainText() == "Second question"
    with qtbot.waitSignal(window.answer_finished, timeout=10_000) as done:
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    assert done.args[0].text == "Second answer."
    assert window.composer.input.toPlainText() == ""
