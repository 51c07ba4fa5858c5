"""What a returning daily user found: answers wrapping early at the smallest window, the
sidebar left narrow on a large one, the privacy editor below its row, and "Learned" notices
gone after a restart."""

from __future__ import annotations

import os

import pytest

from tests.gui_steps import restarted_window, window_with_settings

pytestmark = pytest.mark.gui

ANSWER = (
    "A long answer about the trip to Lisbon: the train leaves early, the hotel is near the "
    "river, and the museum opens at ten, so there is time for a coffee on the way there."
)


def _grab(widget, name: str) -> None:
    """Keep a picture of `widget` where MEMORYOS_GRABS says (to look at by hand)."""
    folder = os.environ.get("MEMORYOS_GRABS")
    if folder:
        widget.grab().save(os.path.join(folder, f"{name}.png"))


def _text_rect(view, message):
    """Where a message's text is laid out (its speaker line's block: the frame's width less
    its margins and padding)."""
    document = view.browser.document()
    block = document.findBlock(message.frame.firstPosition())
    return document.documentLayout().blockBoundingRect(block)


def test_answers_use_the_width_of_a_narrow_conversation(qtbot, window):
    """At the smallest window the messages kept a 96 px indent and answers wrapped at about
    200 px in a 370 px view: they now use the view's width; wide, the indent is kept."""
    view = window.view
    view.add_user_message("How do I get to the museum?")
    view.add_assistant_message(ANSWER)
    window.resize(window.minimumSize())
    browser = view.browser
    qtbot.waitUntil(lambda: window.width() == window.minimumWidth())
    qtbot.waitUntil(lambda: browser.viewport().width() < 450)
    _grab(window, "narrow")
    room = browser.viewport().width() - 2 * browser.document().documentMargin()
    for message in view.messages:  # all but its padding (12 px a side) and 4 px
        assert _text_rect(view, message).width() >= room - 40

    window.resize(1100, 700)
    qtbot.waitUntil(lambda: browser.viewport().width() > 700)
    _grab(window, "wide")
    question, answer = (_text_rect(view, m) for m in view.messages)
    assert question.left() > answer.left() + 50  # the person's question set in from the left
    assert answer.right() < question.right() - 50  # the answer from the right


def _drag_handle(qtbot, splitter, by: int) -> None:
    from PySide6.QtCore import QPoint, Qt

    handle = splitter.handle(1)
    middle = handle.rect().center()
    qtbot.mousePress(handle, Qt.MouseButton.LeftButton, pos=middle)
    qtbot.mouseMove(handle, QPoint(middle.x() + by, middle.y()))
    qtbot.mouseRelease(handle, Qt.MouseButton.LeftButton, pos=QPoint(middle.x() + by, middle.y()))


def test_the_sidebar_grows_with_the_window_unless_the_person_chose_its_width(
    qtbot, memory, chat
):
    """Made at the smallest window, the sidebar stayed about 165 px wide on a full screen
    (conversation titles cut short): it grows with the window, up to a limit; a width the
    person dragged it to is kept (cut only where it does not fit), after a restart too."""
    window = window_with_settings(qtbot, memory, chat)
    window.toggle_sidebar(True)
    window.resize(window.minimumSize())
    qtbot.waitUntil(lambda: window.splitter.width() == window.minimumWidth())
    narrow = window.sidebar.width()
    assert narrow <= window.width() / 3
    window.resize(1366, 768)
    qtbot.waitUntil(lambda: window.splitter.width() == 1366)
    _grab(window, "full_screen")
    assert window.sidebar.width() >= 300  # conversation titles of 30 characters and more
    assert window.sidebar.width() <= 1366 / 3

    window.close()  # a width the person did not choose is fitted to the next window too
    again = restarted_window(qtbot, memory, chat)
    again.resize(1366, 768)
    qtbot.waitUntil(lambda: again.splitter.width() == 1366)
    assert again.sidebar.width() >= 300

    _drag_handle(qtbot, again.splitter, 200 - again.sidebar.width())  # the person's choice
    qtbot.waitUntil(lambda: abs(again.sidebar.width() - 200) <= 2)
    chosen = again.sidebar.width()
    again.resize(again.minimumSize())
    qtbot.waitUntil(lambda: again.splitter.width() == again.minimumWidth())
    assert again.sidebar.width() <= again.width() / 3
    again.resize(1366, 768)
    qtbot.waitUntil(lambda: again.splitter.width() == 1366)
    assert again.sidebar.width() == chosen  # back to the width chosen, not grown past it

    again.close()
    third = restarted_window(qtbot, memory, chat)
    third.resize(1366, 768)
    qtbot.waitUntil(lambda: third.splitter.width() == 1366)
    qtbot.waitUntil(lambda: third.sidebar.width() == chosen)
    third.close()


def test_the_privacy_editor_sits_on_the_row_it_edits(qtbot, window, memory):
    """F2 on a row opened its editor a few pixels lower than the row (taller than the row,
    with the search field's padding): it now covers the row's cell, and its text sits on the
    row's text line."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication, QLineEdit

    from tests.gui_steps import privacy_row

    memory.add_memory("My favourite food is spicy ramen.", "Noted!")
    memory.run_consolidation()
    panel = window.open_privacy()
    qtbot.waitUntil(lambda: privacy_row(panel, "spicy ramen") is not None)
    tree = panel.tree
    row = privacy_row(panel, "spicy ramen")
    tree.setCurrentItem(row)
    tree.setFocus()
    qtbot.keyClick(tree, Qt.Key.Key_F2)
    qtbot.waitUntil(lambda: isinstance(QApplication.focusWidget(), QLineEdit))
    editor = QApplication.focusWidget()
    assert editor.parent() is tree.viewport()
    _grab(tree, "privacy_editor")
    cell = tree.visualItemRect(row)
    cell.setLeft(tree.header().sectionPosition(1))
    placed = editor.geometry()
    assert abs(placed.top() - cell.top()) <= 1 and abs(placed.bottom() - cell.bottom()) <= 1, (
        placed, cell)
    qtbot.keyClick(editor, Qt.Key.Key_Escape)


CELLO = "I play the cello on Sundays"
RAMEN = "My favourite food is spicy ramen."


def test_learned_notices_are_drawn_again_after_a_restart(qtbot, memory, chat, send):
    """The "Learned: ..." notices under the exchanges were gone after a quit and a start:
    drawn from the vault, a conversation shows again what was learned from each exchange on
    screen, as long as it is held (a deleted item's notice does not come back)."""
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder

    window = window_with_settings(qtbot, memory, chat)
    send(window, CELLO)
    send(window, RAMEN)
    with qtbot.waitSignal(window.learned_notices.checked, timeout=5000):
        memory.run_consolidation()
    text = window.view.plain_text()
    assert f"Learned: {CELLO}" in text and f"Learned: {RAMEN}" in text
    window.close()

    mem = MemoryOS.open(memory.path, embedder=HashEmbedder(), background=False)
    (ramen,) = [fact for fact in mem.facts() if fact.text == RAMEN]
    mem.delete_fact(ramen.id)  # deleted while the app was closed (`memoryos facts delete`)
    again = window_with_settings(qtbot, mem, chat)
    qtbot.waitUntil(lambda: RAMEN in again.view.plain_text())  # the conversation is back
    qtbot.waitUntil(lambda: f"Learned: {CELLO}" in again.view.plain_text())
    _grab(again.view, "learned_after_restart")
    text = again.view.plain_text()
    assert text.count(f"Learned: {CELLO}") == 1
    assert f"Learned: {RAMEN}" not in text

    cello = next(item for item in again.view.learned_items() if item.text == CELLO)
    with qtbot.waitSignal(again.learned_notices.checked, timeout=10_000):
        again.view.learned_undo_requested.emit(cello)  # its Undo still works
    qtbot.waitUntil(lambda: f"Forgot: {CELLO}" in again.view.plain_text())
    assert not any(fact.text == CELLO for fact in mem.facts())
    again.close()
