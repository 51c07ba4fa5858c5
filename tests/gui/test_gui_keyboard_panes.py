"""From a keyboard-only walkthrough: Page Up and Page Down in the message box scroll the
conversation, F6 and Shift+F6 go round the window's panes (showing the hidden list), and each
context menu entry has an underlined letter of its own."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication

from tests.gui_steps import focus_by_tab

pytestmark = pytest.mark.gui

LONG_ANSWER = "\n\n".join(f"Step {n}: knead the dough a little more." for n in range(80))
CODE_ANSWER = "Use this:\n\n```python\nprint('hi')\n```\n\nDone."


def _letters(menu) -> list[str]:
    """Each entry's underlined letter; an entry without one fails the test."""
    letters = []
    for action in menu.actions():
        if action.isSeparator():
            continue
        mnemonic = QKeySequence.mnemonic(action.text())
        assert not mnemonic.isEmpty(), f"no underlined letter in {action.text()!r}"
        letters.append(mnemonic.toString())
    assert len(letters) == len(set(letters)), letters
    return letters


def test_page_keys_in_the_message_box_scroll_the_conversation(qtbot, window, chat, send):
    chat.queue(LONG_ANSWER)
    send(window, "How do I make bread?")
    bar = window.view.browser.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())
    box = window.composer.input
    focus_by_tab(qtbot, box)
    box.setPlainText("half a question")
    bottom = bar.value()

    qtbot.keyClick(box, Qt.Key.Key_PageUp)
    assert bar.value() < bottom and box.hasFocus()
    assert box.toPlainText() == "half a question"
    qtbot.keyClick(box, Qt.Key.Key_PageDown)
    assert bar.value() == bottom
    # Home and Ctrl+Home stay the box's own: its cursor moves, the conversation does not
    qtbot.keyClick(box, Qt.Key.Key_Home, Qt.KeyboardModifier.ControlModifier)
    assert box.textCursor().position() == 0 and bar.value() == bottom


def test_f6_goes_round_the_panes_and_shows_the_hidden_list(qtbot, window, chat, send):
    send(window, "Hello")
    window.toggle_sidebar(False)
    focus_by_tab(qtbot, window.composer.input)

    def press(modifier=Qt.KeyboardModifier.NoModifier) -> None:
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_F6, modifier)

    press()
    assert window.sidebar.isVisible() and window.sidebar_action.isChecked()
    qtbot.waitUntil(window.sidebar.tree.hasFocus)
    press()
    qtbot.waitUntil(window.view.browser.hasFocus)
    press()
    qtbot.waitUntil(window.composer.input.hasFocus)
    press(Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(window.view.browser.hasFocus)
    press(Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(window.sidebar.tree.hasFocus)
    listed = window.shortcuts_text()
    assert "<b>F6</b>" in listed and "<b>Shift+F6</b>" in listed
    assert "Page Up" in listed


def test_message_menus_have_unique_underlined_letters(qtbot, window, chat, memory, send):
    chat.queue(CODE_ANSWER)
    send(window, "How do I print?")
    view = window.view
    question, answer = view.messages[-2:]
    cursor = view.browser.document().find("print('hi')")
    view.browser.setTextCursor(cursor)  # a selection: the menu has Copy too
    point = view.browser.cursorRect(cursor).center()
    menu = view.context_menu(point)
    assert len(_letters(menu)) >= 6  # Copy, Copy code block, Copy message, Remember, Forget, …
    assert len(_letters(view.context_menu(view.point_of(question)))) >= 4


def test_remembered_item_menu_has_underlined_letters(qtbot, window, chat, memory, send):
    memory.add_fact("I am allergic to peanuts")
    send(window, "peanuts?")
    (message,) = [m for m in window.view.messages if m.role == "assistant"]
    window.view.toggle_remembered(message)
    cursor = window.view.browser.document().find("I am allergic to peanuts")
    cursor.setPosition(cursor.selectionStart() + 1)
    menu = window.view.context_menu(window.view.browser.cursorRect(cursor).center())
    assert len(_letters(menu)) == 2


def test_conversation_list_menu_has_underlined_letters(qtbot, window, memory):
    memory.new_conversation()
    memory.add_memory("I bake on Sundays", "Noted.")
    memory.new_conversation()
    qtbot.waitUntil(lambda: len(window.sidebar.rows()) >= 1)
    sidebar = window.sidebar
    menu = sidebar.context_menu(sidebar.rows()[0])
    assert len(_letters(menu)) == 3
