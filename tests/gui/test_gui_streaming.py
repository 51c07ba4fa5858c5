"""A streaming answer is shown formatted as it grows (no raw Markdown that jumps to formatted
text at the end), drawn at a bounded rate, and ends exactly as the answer drawn whole."""

from __future__ import annotations

import itertools
import time

import pytest
from PySide6.QtGui import QFont, QFontInfo, QTextCursor

from tests.helpers import pausing_chat

pytestmark = pytest.mark.gui

ANSWER = (
    "Here is the **important** part, with `make`.\n\n"
    "- first step\n- second step\n\n"
    "```python\nprint('hi')\nx = 1\ny = 2\nz = 3\n```\n\n"
    "That was **all** of it."
)


@pytest.fixture
def chat():
    chat = pausing_chat()
    yield chat
    chat.go_on.set()  # never leave a worker waiting


def _answer_body(view, message) -> str:
    """The answer under its speaker line, as HTML (what is drawn and how)."""
    document = view.browser.document()
    start = document.findBlock(message.frame.firstPosition()).next().position()
    end = message.frame.lastPosition()
    if message.remembered_frame is not None:  # "Used N memories" under it
        end = message.remembered_frame.firstPosition() - 1
    cursor = QTextCursor(document)
    cursor.setPosition(start)
    cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
    return cursor.selection().toHtml()


def _code_line(view, text: str):
    from app.view_memory import _is_code

    found = view.browser.document().find(text)
    if found.isNull() or not _is_code(found.block()):
        return None
    return found


def test_a_streaming_answer_is_formatted_as_it_grows(qtbot, window, chat):
    from app.conversation_view import ConversationView

    chat.queue(ANSWER)
    chat.pause_after = "y = 2"  # inside the code fence, before it closes
    chat.chunk_delay = 0.005
    window.composer.input.setPlainText("How do I print?")
    with qtbot.waitSignal(window.answer_finished, timeout=10_000) as finished:
        window.composer._submit()
        qtbot.waitUntil(chat.paused.is_set)
        view = window.view
        qtbot.waitUntil(lambda: "x = 1" in view.plain_text())
        assert view.answer_text().count("```") == 1  # the fence is still open

        shown = view.plain_text()
        assert "**" not in shown and "```" not in shown and "- first" not in shown
        bold = view.browser.document().find("important")
        assert bold.charFormat().fontWeight() > QFont.Weight.Normal
        assert view.browser.document().find("first step").block().textList() is not None
        code = _code_line(view, "print('hi')")
        assert code is not None  # a code block in progress
        code.setPosition(code.selectionStart() + 1)
        assert QFontInfo(code.charFormat().font()).fixedPitch()
        chat.go_on.set()

    answer = finished.args[0]
    assert answer.text == ANSWER
    whole = ConversationView()  # the same answer drawn at once (as when a conversation opens)
    qtbot.addWidget(whole)
    whole.add_assistant_message(answer.text)
    assert _answer_body(window.view, window.view.messages[-1]) == _answer_body(
        whole, whole.messages[-1]
    )


def test_a_fast_model_is_drawn_at_a_bounded_rate(qtbot, window, chat):
    """Every token drawn at once made a fast model stall the window; each drawing now takes
    the whole answer so far, so they come at most about every 100 ms."""
    chat.queue(" ".join(f"**word{n}**" for n in range(300)))
    chat.chunk_delay = 0.003
    drawn: list[float] = []
    window.view.flushed.connect(lambda: drawn.append(time.monotonic()))
    window.composer.input.setPlainText("Talk fast")
    with qtbot.waitSignal(window.answer_finished, timeout=20_000):
        window.composer._submit()
    assert len(drawn) >= 3  # it was drawn while it streamed
    gaps = [later - earlier for earlier, later in itertools.pairwise(drawn)]
    assert min(gaps) >= 0.09  # 100 ms; a timer may fire a little early
    assert "**" not in window.view.plain_text()
