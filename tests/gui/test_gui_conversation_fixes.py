"""What the conversation window says and keeps: an answer cut at the length limit says so, a
temporary chat highlights no saved conversation, a "Remembered" line outlives a /forget, a
streaming answer survives an earlier message being redrawn, and the message box's hint reads
whole at the largest text."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from tests.gui_steps import window_on_server
from tests.helpers import pausing_chat
from tests.local_servers import ChatServer

pytestmark = pytest.mark.gui


# --- an answer cut at the length limit ------------------------------------------------------


@pytest.mark.parametrize("reason", ["length", "stop"])
def test_an_answer_cut_at_the_length_limit_says_so_and_where_to_raise_it(
    qtbot, memory, send, reason
):
    with ChatServer(models=["m"], reply=["Once upon a time, ", "in a"],
                    finish_reason=reason) as server:  # fmt: skip
        window, _remote, _settings = window_on_server(qtbot, memory, server)
        send(window, "Tell me a long story")
        text = window.view.plain_text()
        window.close()
    assert "Once upon a time, in a" in text
    if reason == "length":
        assert "Stopped at the length limit" in text
        assert "Settings › Model › Longest answer" in text
    else:
        assert "length limit" not in text and "Stopped" not in text


# --- a temporary chat and the sidebar -------------------------------------------------------


def test_a_temporary_chat_highlights_no_saved_conversation(qtbot, window, chat, memory, send):
    send(window, "Plan a hike in Marin")
    sidebar = window.sidebar
    qtbot.waitUntil(lambda: len(sidebar.rows()) == 1)
    assert [i.text(0) for i in sidebar.tree.selectedItems()] == ["Plan a hike in Marin"]

    qtbot.keyClick(window, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)  # temporary chat
    assert window.temporary
    assert sidebar.tree.selectedItems() == [] and sidebar.tree.currentItem() is None
    send(window, "Something I won't keep")
    with qtbot.waitSignal(sidebar.refreshed, timeout=5000):
        sidebar.refresh()
    assert sidebar.tree.selectedItems() == []

    # Left: the conversation on screen is highlighted again once it is saved.
    qtbot.keyClick(window, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    assert not window.temporary
    answer = send(window, "Cook me a curry")
    qtbot.waitUntil(lambda: len(sidebar.rows()) == 2)
    (row,) = sidebar.tree.selectedItems()
    assert row.data(0, Qt.ItemDataRole.UserRole).id == answer.page.conversation_id


# --- "Remembered: …" after a /forget ----------------------------------------------------------


def _command(qtbot, window, text):
    window.composer.input.setPlainText(text)
    with qtbot.waitSignal(window.chat_actions.done, timeout=5000) as done:
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    return done.args[0]


def _forget(qtbot, window, words):
    assert _command(qtbot, window, f"/forget {words}") == "asked"
    with qtbot.waitSignal(window.conversation_shown, timeout=5000):
        qtbot.mouseClick(window.forget_panel.forget_button, Qt.MouseButton.LeftButton)


def test_the_remembered_line_stays_after_a_forget(qtbot, window, chat, memory, send):
    send(window, "Hello there")
    send(window, "Any snacks without peanuts?")
    assert _command(qtbot, window, "/remember I am vegetarian") == "remembered"
    send(window, "What about lunch?")
    line = window.view.browser.document().find("Remembered: I am vegetarian").block()
    assert line.blockFormat().alignment() & Qt.AlignmentFlag.AlignHCenter  # a notice's look

    _forget(qtbot, window, "peanuts")  # the exchange before the line goes
    # drawn with the forget's result (a redraw for the facts it changed may come first)
    qtbot.waitUntil(lambda: "Forgot 1 item." in window.view.plain_text(), timeout=5000)
    text = window.view.plain_text()
    assert "Any snacks without peanuts?" not in text
    assert "Remembered: I am vegetarian" in text
    assert "vegetarian (forgotten since)" not in text
    # in its place: after what came before it, before what came after, before the result
    order = [text.index(s) for s in ("Hello there", "Remembered: I am vegetarian",
                                     "What about lunch?", "Forgot 1 item.")]  # fmt: skip
    assert order == sorted(order)

    _forget(qtbot, window, "vegetarian")  # the fact itself goes
    assert memory.facts() == []
    qtbot.waitUntil(lambda: "(forgotten since)" in window.view.plain_text(), timeout=5000)
    text = window.view.plain_text()
    assert "Remembered: I am vegetarian (forgotten since)" in text


# --- a streaming answer while an earlier message is redrawn ---------------------------------


@pytest.fixture
def chat():
    chat = pausing_chat()
    yield chat
    chat.go_on.set()  # never leave a worker waiting


ANSWER = (
    "First, the **short** version.\n\n"
    "- soak the lentils\n- cook them slowly\n\n"
    "Then season to taste, and serve it warm."
)


def _lines(view, message) -> list[str]:
    cursor = QTextCursor(view.browser.document())
    cursor.setPosition(message.frame.firstPosition())
    cursor.setPosition(message.frame.lastPosition(), QTextCursor.MoveMode.KeepAnchor)
    return cursor.selection().toPlainText().splitlines()


def test_an_earlier_message_redrawn_while_an_answer_streams_leaves_it_whole(
    qtbot, window, chat, memory, send
):
    """The "Used N memories" line of an earlier answer is redrawn (one of its memories was
    deleted) while the next answer streams in: the new answer was drawn at positions counted
    before, and lost its speaker line's end or kept pieces of itself twice."""
    from app.conversation_view import ConversationView

    fact = memory.add_fact("I am allergic to peanuts")
    send(window, "What am I allergic to?")
    view = window.view
    assert "Used 1 memory: 1 fact" in view.plain_text()

    chat.queue(ANSWER)
    chat.pause_after = "cook them"
    window.composer.input.setPlainText("How do I cook lentils?")
    with qtbot.waitSignal(window.answer_finished, timeout=10_000) as finished:
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
        qtbot.waitUntil(chat.paused.is_set)
        qtbot.waitUntil(lambda: "soak the lentils" in view.plain_text())
        with qtbot.waitSignal(window.used_memories.refreshed, timeout=5000):
            memory.delete_fact(fact.id)  # the earlier line grows: "(1 forgotten since)"
        assert "1 fact (1 forgotten since)" in view.plain_text()
        chat.go_on.set()
    assert finished.args[0].text == ANSWER

    whole = ConversationView()  # the same answer drawn at once
    qtbot.addWidget(whole)
    whole.add_assistant_message(ANSWER)
    lines = _lines(view, view.messages[-1])
    assert lines[0].startswith("MemoryOS")  # its speaker line whole
    assert lines[-1].startswith("▸ Used")  # what it remembered, under it
    assert lines[1:-1] == _lines(whole, whole.messages[-1])[1:]  # nothing lost, nothing twice
    assert "Used 1 memory: 1 fact (1 forgotten since)" in view.plain_text()


# --- the message box's hint at the largest text ---------------------------------------------


@pytest.fixture
def normal_look_after(qapp):
    yield
    from app import theme

    theme.apply_look(qapp, "light", theme.BASE_SIZE)


def _text_fits(label) -> tuple[bool, object]:
    """The label's text, laid out as the label lays it out, fits inside it (not cut)."""
    flags = int(label.alignment()) | (int(Qt.TextFlag.TextWordWrap) if label.wordWrap() else 0)
    area = label.contentsRect()
    needed = label.fontMetrics().boundingRect(area, flags, label.text())
    return area.contains(needed), (label.text()[:30], area, needed)


def test_the_hint_under_the_message_box_reads_whole_at_the_largest_text(
    qtbot, window, normal_look_after
):
    from app import theme
    from app.composer import BUSY_HINT

    while window.settings.text_size < theme.MAX_SIZE:
        window.bigger_action.trigger()
    window.resize(window.minimumSize())
    qtbot.waitUntil(lambda: window.size() == window.minimumSize())
    hint = window.composer.hint
    for text in (hint.text(), BUSY_HINT):
        hint.setText(text)

        def whole() -> bool:  # once laid out again for the new text (later on a busy machine)
            shown = hint.isVisible() and hint.visibleRegion().boundingRect() == hint.rect()
            return shown and _text_fits(hint)[0]

        qtbot.waitUntil(whole, timeout=3000)
        fits, detail = _text_fits(hint)
        assert fits, detail
