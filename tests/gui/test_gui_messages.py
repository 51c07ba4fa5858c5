"""Message actions: copy a message or a code block, regenerate, edit and resend."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFontInfo, QGuiApplication

pytestmark = pytest.mark.gui

CODE_ANSWER = "Use this:\n\n```python\nprint('hi')\nx = 1\n```\n\nDone."


def _menu(window, message):
    return {a.text().replace("&", ""): a for a in window.view.context_menu(window.view.point_of(message)).actions()}


def test_regenerate_leaves_exactly_one_stored_exchange(qtbot, window, chat, memory, send):
    chat.queue("First answer.", "Second answer.")
    send(window, "Which bread should I bake?")
    answer = window.view.messages[-1]
    actions = _menu(window, answer)
    assert "Regenerate answer" in actions

    with qtbot.waitSignal(window.answer_finished) as done:
        actions["Regenerate answer"].trigger()

    assert done.args[0].text == "Second answer."
    assert [(p.user_input, p.agent_response) for p in memory.pages()] == [
        ("Which bread should I bake?", "Second answer.")
    ]
    text = window.view.plain_text()
    assert "First answer." not in text and text.count("Which bread should I bake?") == 1
    assert len(window.view.messages) == 2


def test_edit_and_resend_replaces_the_exchange(qtbot, window, chat, memory, send):
    chat.queue("Lemon cake.", "Carrot cake.")
    send(window, "Which cake should I bke?")
    question = window.view.messages[-2]
    _menu(window, question)["Edit and resend"].trigger()
    assert window.composer.input.toPlainText() == "Which cake should I bke?"
    assert "Editing your last question" in window.composer.hint.text()

    window.composer.input.setPlainText("Which cake should I bake?")
    with qtbot.waitSignal(window.answer_finished):
        window.composer._submit()

    assert [(p.user_input, p.agent_response) for p in memory.pages()] == [
        ("Which cake should I bake?", "Carrot cake.")
    ]
    text = window.view.plain_text()
    assert "bke" not in text and "Lemon cake." not in text
    assert "Editing" not in window.composer.hint.text()


def test_only_the_last_exchange_can_be_regenerated(qtbot, window, chat, send):
    send(window, "one")
    send(window, "two")
    first_answer = window.view.messages[1]
    assert "Regenerate answer" not in _menu(window, first_answer)
    assert "Edit and resend" not in _menu(window, window.view.messages[0])


def test_copy_a_code_block_and_code_is_monospace(qtbot, window, chat, send):
    chat.queue(CODE_ANSWER)
    send(window, "show me code")
    document = window.view.browser.document()
    cursor = document.find("print('hi')")
    cursor.setPosition(cursor.selectionStart() + 1)
    shown = QFontInfo(cursor.charFormat().font())
    assert shown.fixedPitch()  # the font actually drawn is fixed-width
    assert not QFontInfo(document.find("Done.").charFormat().font()).fixedPitch()
    point = window.view.browser.cursorRect(cursor).center()
    actions = {a.text().replace("&", ""): a for a in window.view.context_menu(point).actions()}
    actions["Copy code block"].trigger()
    assert QGuiApplication.clipboard().text() == "print('hi')\nx = 1"
    actions["Copy message"].trigger()
    assert QGuiApplication.clipboard().text() == CODE_ANSWER


def test_the_last_exchange_actions_work_from_the_keyboard(qtbot, window, chat, memory, send):
    from PySide6.QtCore import Qt

    chat.queue("Lemon cake.", "Carrot cake.")
    send(window, "Which cake?")
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    ctrl_shift = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(window, Qt.Key.Key_C, ctrl_shift)
    assert QGuiApplication.clipboard().text() == "Lemon cake."
    with qtbot.waitSignal(window.answer_finished):
        qtbot.keyClick(window, Qt.Key.Key_R, ctrl_shift)
    assert [p.agent_response for p in memory.pages()] == ["Carrot cake."]
    qtbot.keyClick(window, Qt.Key.Key_E, ctrl_shift)
    assert window.composer.input.toPlainText() == "Which cake?"


def test_esc_cancels_editing_and_keeps_the_exchange(qtbot, window, chat, memory, send):
    """Changing one's mind after Edit: Esc empties the box, and the next message is a new
    question, not a replacement of the last exchange."""
    from PySide6.QtCore import Qt

    chat.queue("Lemon cake.", "Tuesday.")
    send(window, "Which cake should I bake?")
    window.edit_action.trigger()
    box = window.composer.input
    assert box.toPlainText() == "Which cake should I bake?"
    assert "Esc cancels" in window.composer.hint.text()

    qtbot.keyClick(box, Qt.Key.Key_Escape)
    assert box.toPlainText() == ""
    assert "Editing" not in window.composer.hint.text()
    send(window, "When is the fair?")
    assert [(p.user_input, p.agent_response) for p in memory.pages()] == [
        ("Which cake should I bake?", "Lemon cake."),
        ("When is the fair?", "Tuesday."),
    ]
    assert window.view.plain_text().count("Which cake should I bake?") == 1


LONG = " ".join(f"word{i}" for i in range(400))


def test_stopping_a_regeneration_keeps_the_earlier_answer(qtbot, window, chat, memory, send):
    """Regenerate, then Stop after a few words: the whole earlier answer was gone for good,
    replaced by the part written."""
    chat.queue("The whole first answer about sourdough.", LONG)
    send(window, "Which bread should I bake?")
    chat.chunk_delay = 0.02
    window.regenerate_action.trigger()
    qtbot.waitUntil(lambda: len(window.view.answer_text()) > 0)
    with qtbot.waitSignal(window.answer_finished):
        window.stop()
    assert [(p.user_input, p.agent_response) for p in memory.pages()] == [
        ("Which bread should I bake?", "The whole first answer about sourdough.")
    ]
    qtbot.waitUntil(lambda: "The whole first answer about sourdough." in window.view.plain_text())
    text = window.view.plain_text()
    assert "word1 " not in text and "the earlier answer is kept" in text
    assert text.count("Which bread should I bake?") == 1


def test_stopping_an_edit_keeps_the_exchange_and_the_edited_question(
    qtbot, window, chat, memory, send
):
    chat.queue("Lemon cake.", LONG)
    send(window, "Which cake should I bke?")
    window.edit_action.trigger()
    window.composer.input.setPlainText("Which cake should I bake for ten?")
    chat.chunk_delay = 0.02
    window.composer._submit()
    qtbot.waitUntil(lambda: len(window.view.answer_text()) > 0)
    with qtbot.waitSignal(window.answer_finished):
        window.stop()
    assert [(p.user_input, p.agent_response) for p in memory.pages()] == [
        ("Which cake should I bke?", "Lemon cake.")
    ]
    qtbot.waitUntil(lambda: window.composer.input.toPlainText() == "Which cake should I bake for ten?")
    assert "Lemon cake." in window.view.plain_text()
    assert "Editing" in window.composer.hint.text()  # Enter sends it again in its place
    chat.chunk_delay = 0.0
    chat.queue("Carrot cake.")
    with qtbot.waitSignal(window.answer_finished):
        window.composer._submit()
    assert [(p.user_input, p.agent_response) for p in memory.pages()] == [
        ("Which cake should I bake for ten?", "Carrot cake.")
    ]


def test_a_finished_answer_keeps_its_line_breaks(qtbot, window, chat, send):
    """A poem streamed line by line, then became one paragraph when the answer ended."""
    poem = "Tofu sat by the window,\nA beautiful kitten,\nWatching the rain.\n\n- one\n- two"
    chat.queue(poem + "\n\n```python\nx = 1\ny = 2\n```")
    send(window, "Write me a short poem about my cat")
    text = window.view.plain_text()
    assert "Tofu sat by the window,\nA beautiful kitten,\nWatching the rain." in text
    assert "x = 1\ny = 2" in text  # code untouched
    assert "window, A beautiful" not in text


TWO_BLOCKS = "First:\n\n```\nmake build\n```\n\nThen:\n\n```sh\nmake test\nmake install\n```"


def test_a_key_copies_the_code_block_from_the_conversation(qtbot, window, chat, send):
    """Copy code block was only in the context menu: Ctrl+Shift+K, with the keyboard in the
    conversation, copies the last answer's code block (or that of the answer clicked in) and
    the status line says so, or that there is none."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    browser = window.view.browser
    clipboard = QGuiApplication.clipboard()

    def press_in_conversation(at: str = "") -> None:
        if at:  # a click there
            browser.setTextCursor(browser.document().find(at))
        browser.setFocus()  # as Tab or a click into the conversation does
        qtbot.waitUntil(lambda: QApplication.focusWidget() is browser)
        control_shift = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_K, control_shift)

    listed = window.shortcuts_text()  # Help → Keyboard shortcuts (F1)
    assert "Copy code block" in listed and "<b>Ctrl+Shift+K</b>" in listed
    chat.queue(CODE_ANSWER, TWO_BLOCKS, "No code here.")
    send(window, "show me code")
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    clipboard.setText("before")
    press_in_conversation()
    assert clipboard.text() == "print('hi')\nx = 1"
    assert "Copied the code block" in window.status.currentMessage()

    send(window, "how do I build it?")
    press_in_conversation()
    assert clipboard.text() == "make test\nmake install"  # the last block of the last answer
    press_in_conversation(at="make build")
    assert clipboard.text() == "make build"
    press_in_conversation(at="print('hi')")  # the first answer
    assert clipboard.text() == "print('hi')\nx = 1"

    send(window, "and now?")
    clipboard.setText("kept")
    press_in_conversation(at="No code here.")
    assert clipboard.text() == "kept"
    assert "no code block" in window.status.currentMessage()

    point = browser.cursorRect(browser.document().find("make build")).center()
    menu = {a.text().replace("&", ""): a for a in window.view.context_menu(point).actions()}
    assert menu["Copy code block"].shortcut().toString() == "Ctrl+Shift+K"  # the menu shows it
