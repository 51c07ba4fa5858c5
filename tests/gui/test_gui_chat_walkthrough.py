"""What a walkthrough of the chat found: a temporary chat locked the conversations sidebar, the
conversation lost its end on a resize (and a "Learned" notice arrived out of view), and the
demo banner took five lines of a medium window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

pytestmark = pytest.mark.gui

LONG = " ".join(f"Sentence {n} of a long answer that wraps over several lines." for n in range(8))


# --- a temporary chat and the sidebar -------------------------------------------------------


def _temporary(qtbot, window, send):
    qtbot.keyClick(window, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    assert window.temporary
    send(window, "Something I won't keep")
    assert "Something I won't keep" in window.view.plain_text()


def test_a_click_on_a_conversation_leaves_the_temporary_chat(qtbot, window, chat, memory, send):
    send(window, "Plan a hike in Marin")
    sidebar = window.sidebar
    qtbot.waitUntil(lambda: len(sidebar.rows()) == 1)
    _temporary(qtbot, window, send)

    row = sidebar.rows()[0]
    with qtbot.waitSignal(window.conversation_shown, timeout=5000):
        qtbot.mouseClick(sidebar.tree.viewport(), Qt.MouseButton.LeftButton,
                         pos=sidebar.tree.visualItemRect(row).center())
    assert not window.temporary and not window.temporary_banner.isVisible()
    assert not window.temporary_action.isChecked()
    text = window.view.plain_text()
    assert "Plan a hike in Marin" in text and "Something I won't keep" not in text
    answer = send(window, "And a picnic?")  # it continues the conversation opened, saved
    assert answer.page is not None
    assert {p.conversation_id for p in memory.pages()} == {row.data(0, Qt.ItemDataRole.UserRole).id}


def test_searching_from_a_temporary_chat_opens_the_result(qtbot, window, chat, memory, send):
    send(window, "Plan a hike in Marin")
    send(window, "Cook me a curry")
    window.new_action.trigger()
    _temporary(qtbot, window, send)

    window.search_action.trigger()  # View → Search conversations…
    sidebar = window.sidebar
    assert QApplication.focusWidget() is sidebar.search
    with qtbot.waitSignal(sidebar.searched, timeout=5000):
        qtbot.keyClicks(QApplication.focusWidget(), "Marin")
    assert window.composer.input.toPlainText() == ""  # the letters went into the search
    with qtbot.waitSignal(window.conversation_shown, timeout=5000):
        sidebar._result_clicked(_first_link(sidebar))  # the result's link, as a click opens it
    assert not window.temporary
    text = window.view.plain_text()
    assert "Plan a hike in Marin" in text and "Something I won't keep" not in text


def _first_link(sidebar):
    from PySide6.QtCore import QUrl

    html = sidebar.results.toHtml()
    start = html.index("href=\"found:") + len("href=\"")
    return QUrl(html[start:html.index("\"", start)])


# --- the end of the conversation stays in view ----------------------------------------------


def _at_end(view) -> bool:
    bar = view.browser.verticalScrollBar()
    return bar.maximum() > 0 and bar.value() == bar.maximum()


def test_a_resize_keeps_the_last_answer_in_view(qtbot, memory, chat):
    from app.main_window import MainWindow

    for n in range(6):
        memory.add_memory(f"Question {n}", LONG)
    window = MainWindow.for_memory(memory, chat)
    qtbot.addWidget(window)
    window.resize(980, 720)
    window.show()
    qtbot.waitExposed(window)
    view = window.view
    qtbot.waitUntil(lambda: view.message_count == 12)
    bar = view.browser.verticalScrollBar()
    qtbot.wait(100)  # drawn, and scrolled to the end, before the resize
    bar.setValue(bar.maximum())

    window.resize(820, 600)
    qtbot.wait(50)
    qtbot.waitUntil(lambda: _at_end(view), timeout=2000)
    qtbot.wait(600)  # after the place was let go, still there
    assert bar.value() == bar.maximum()
    window.close()


def test_a_learned_notice_at_the_end_is_scrolled_into_view(qtbot, window, chat, memory, send):
    window.resize(820, 600)
    for n in range(4):
        send(window, f"Question {n}: {LONG}")
    answer = send(window, "I am allergic to peanuts")
    view = window.view
    qtbot.waitUntil(lambda: _at_end(view))
    with qtbot.waitSignal(window.learned_notices.shown, timeout=5000):
        memory.run_consolidation()  # the page-added job: first-person statements become facts
    assert "Learned: I am allergic to peanuts" in view.plain_text()
    qtbot.waitUntil(lambda: _at_end(view), timeout=2000)
    message = next(m for m in view.messages if m.page_id == answer.page.id and m.learned)
    layout = view.browser.document().documentLayout()
    bottom = layout.frameBoundingRect(message.notices_frame).bottom()
    assert bottom - view.browser.verticalScrollBar().value() <= view.browser.viewport().height()


# --- the demo banner at a medium window -----------------------------------------------------


def test_the_demo_banner_says_it_in_a_line_at_a_medium_window(qtbot, window, chat):
    banner = window.demo_banner
    window.resize(700, 520)
    qtbot.waitUntil(banner.isVisible)
    qtbot.wait(50)
    assert banner.why.isVisible() and "SmolLM2-135M" not in banner.text.text()
    shared = window.view.height() + banner.height()  # the chat area
    assert banner.height() <= shared / 6, (banner.height(), shared)
    window.resize(1000, 760)  # room: all of it
    qtbot.waitUntil(lambda: not banner.why.isVisible())
    assert "SmolLM2-135M" in banner.text.text()
