"""The conversations sidebar: by day, search with highlights, open and continue, rename, forget."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

pytestmark = pytest.mark.gui

DAY = 86400


@pytest.fixture
def history(memory):
    """Three conversations: two days ago, yesterday and today (ids in that order)."""
    now = time.time()
    ids = []
    for days, lines in (
        (2, [("I am allergic to peanuts", "Noted."), ("Cook me a curry", "A lentil curry.")]),
        (1, [("Plan a hike in Marin", "The Dipsea trail.")]),
        (0, [("My sister lives in Porto", "Lovely city.")]),
    ):
        conversation = memory.new_conversation()
        for n, (said, answered) in enumerate(lines):
            memory.add_memory(said, answered, timestamp=now - days * DAY + n * 60)
        ids.append(conversation)
    memory.new_conversation()
    return ids


@pytest.fixture
def shown(qtbot, window, history):
    qtbot.waitUntil(lambda: len(window.sidebar.rows()) == 3)
    return window


def test_conversations_are_listed_by_day_newest_first(shown, history):
    sidebar = shown.sidebar
    groups = [sidebar.tree.topLevelItem(i).text(0) for i in range(sidebar.tree.topLevelItemCount())]
    assert groups[:2] == ["Today", "Yesterday"] and len(groups) == 3
    assert [r.text(0) for r in sidebar.rows()] == [
        "My sister lives in Porto",
        "Plan a hike in Marin",
        "I am allergic to peanuts",
    ]
    assert [r.data(0, Qt.ItemDataRole.UserRole).id for r in sidebar.rows()] == history[::-1]


def test_ctrl_b_hides_and_shows_the_sidebar(qtbot, shown):
    assert shown.sidebar.isVisible()
    qtbot.keyClick(shown, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    assert not shown.sidebar.isVisible() and not shown.settings.sidebar_visible
    qtbot.keyClick(shown, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    assert shown.sidebar.isVisible()


def test_search_highlights_the_match_and_opens_the_conversation_to_continue(
    qtbot, shown, history, memory, chat, send
):
    sidebar = shown.sidebar
    qtbot.keyClick(
        shown, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    assert sidebar.search.hasFocus()
    with qtbot.waitSignal(sidebar.searched):
        qtbot.keyClicks(sidebar.search, "peanut")
    html = sidebar.results.toHtml()
    assert "I am allergic to peanuts" in sidebar.results.toPlainText()
    assert "background-color:#ffe58f" in html.lower().replace(" ", "")
    assert sidebar.stack.currentWidget() is sidebar.results

    cursor = sidebar.results.document().find("I am allergic to peanuts")
    cursor.setPosition(cursor.selectionStart() + 2)
    point = sidebar.results.cursorRect(cursor).center()
    with qtbot.waitSignal(shown.conversation_shown):
        qtbot.mouseClick(sidebar.results.viewport(), Qt.MouseButton.LeftButton, pos=point)

    text = shown.view.plain_text()
    assert "Cook me a curry" in text and "Plan a hike" not in text
    chat.queue("Still no peanuts.")
    answer = send(shown, "And for dessert?")
    assert answer.page.conversation_id == history[0]
    assert len(memory.pages(conversation_id=history[0])) == 3


def test_a_search_result_opens_its_conversation_at_the_exchange_that_matched(
    qtbot, window, memory
):
    """A long conversation opens at its end; from a search result it opens at the exchange
    found, whether the title or the snippet is clicked."""
    now = time.time()
    memory.new_conversation()
    for n in range(12):
        said = "My sourdough starter is called Clint" if n == 3 else f"Question {n} about trains"
        memory.add_memory(said, "A long answer. " * 30, timestamp=now - DAY + n * 60)
    memory.new_conversation()
    sidebar, view = window.sidebar, window.view
    qtbot.waitUntil(lambda: len(sidebar.rows()) == 1)
    with qtbot.waitSignal(sidebar.searched):
        sidebar.search.setText("sourdough")
    found = memory.pages()[3]
    assert "sourdough" in found.user_input

    def in_view() -> bool:
        message = next((m for m in view.messages if m.page_id == found.id), None)
        if message is None:
            return False
        top = view.browser.document().documentLayout().frameBoundingRect(message.frame).top()
        bar = view.browser.verticalScrollBar()
        return bar.value() <= top < bar.value() + view.browser.viewport().height()

    cursor = sidebar.results.document().find("Clint")  # in the snippet, not the title
    cursor.setPosition(cursor.selectionStart() + 1)
    point = sidebar.results.cursorRect(cursor).center()
    with qtbot.waitSignal(window.conversation_shown):
        qtbot.mouseClick(sidebar.results.viewport(), Qt.MouseButton.LeftButton, pos=point)
    qtbot.waitUntil(in_view)
    bar = view.browser.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() < bar.maximum()  # not the end, where it opens


def test_rename_from_the_list(qtbot, shown, history, memory):
    sidebar = shown.sidebar
    row = sidebar.row_of(history[1])
    with qtbot.waitSignal(sidebar.changed) as changed:
        row.setText(0, "Hiking plans")
    assert changed.args == ["renamed"]
    assert {c.id: c.title for c in memory.conversations()}[history[1]] == "Hiking plans"
    qtbot.waitUntil(lambda: sidebar.row_of(history[1]).text(0) == "Hiking plans")


def test_forget_shows_what_also_goes_and_uses_the_cascade(qtbot, shown, history, memory):
    memory.run_consolidation()  # "I am allergic to peanuts" becomes a fact from that conversation
    assert "I am allergic to peanuts" in [f.text for f in memory.facts()]
    sidebar = shown.sidebar
    menu = sidebar.context_menu(sidebar.row_of(history[0]))
    next(a for a in menu.actions() if a.text().replace("&", "") == "Forget…").trigger()
    qtbot.waitUntil(lambda: sidebar.confirm_box is not None and sidebar.confirm_box.isVisible())
    box = sidebar.confirm_box
    assert "Its 2 exchanges are removed everywhere" in box.text()
    assert "• I am allergic to peanuts" in box.informativeText()

    with qtbot.waitSignal(sidebar.changed) as changed:
        next(
            b for b in box.buttons() if box.buttonRole(b) == QMessageBox.ButtonRole.DestructiveRole
        ).click()
    assert changed.args == [f"forgotten:{history[0]}"]
    assert history[0] not in {c.id for c in memory.conversations()}
    assert "I am allergic to peanuts" not in [f.text for f in memory.facts()]
    qtbot.waitUntil(lambda: len(sidebar.rows()) == 2)


def test_cancel_forgets_nothing(qtbot, shown, history, memory):
    sidebar = shown.sidebar
    sidebar.forget(history[1])
    qtbot.waitUntil(lambda: sidebar.confirm_box is not None and sidebar.confirm_box.isVisible())
    sidebar.confirm_box.button(QMessageBox.StandardButton.Cancel).click()
    assert history[1] in {c.id for c in memory.conversations()}


def test_esc_clears_the_search_and_the_list_comes_back(qtbot, shown):
    sidebar = shown.sidebar
    shown.search_action.trigger()
    with qtbot.waitSignal(sidebar.searched):
        qtbot.keyClicks(sidebar.search, "peanut")
    assert sidebar.stack.currentWidget() is sidebar.results
    qtbot.keyClick(sidebar.search, Qt.Key.Key_Escape)
    assert sidebar.search.text() == ""
    qtbot.waitUntil(lambda: sidebar.stack.currentWidget() is sidebar.tree)
    assert len(sidebar.rows()) == 3


def _whole(widget) -> bool:
    """The widget is drawn whole: nothing of it is cut off by the window or a neighbour."""
    return widget.isVisible() and widget.visibleRegion().boundingRect() == widget.rect()


def _remembered(sidebar: int, conversation: int) -> str:
    """A splitter state as the settings keep it: the sidebar `sidebar` pixels wide (as an
    earlier version, or a window on a larger screen, let it be)."""
    from PySide6.QtWidgets import QSplitter, QWidget

    splitter = QSplitter()
    splitter.addWidget(QWidget())
    splitter.addWidget(QWidget())
    splitter.resize(sidebar + conversation, 600)
    splitter.setSizes([sidebar, conversation])
    state = bytes(splitter.saveState().toHex()).decode()
    splitter.deleteLater()
    return state


def _sidebar_fits(window) -> bool:
    """At most a third of the window, the conversation right beside it (no gap)."""
    sidebar, conversation = window.sidebar.geometry(), window.splitter.widget(1).geometry()
    assert sidebar.width() <= window.width() / 3, (sidebar.width(), window.width())
    assert conversation.x() == sidebar.right() + 1 + window.splitter.handleWidth()
    return True


def test_at_the_smallest_window_the_sidebar_leaves_the_conversation_its_room(qtbot, window):
    """At the window's minimum size the sidebar took half the width (a width remembered from
    a larger window was applied as it was): it now takes at most a third, and the message box
    and its Send button stay whole."""
    smallest = window.minimumSize()
    window.toggle_sidebar(True)
    window.resize(smallest)
    qtbot.waitUntil(lambda: window.splitter.width() == smallest.width())
    assert _sidebar_fits(window)
    assert _whole(window.composer.input) and _whole(window.composer.send_button)

    window.settings.splitter_state = _remembered(700, 700)
    window._restore_splitter()  # what a start does with the width remembered
    assert window.sidebar.isVisible()
    assert _sidebar_fits(window)
    assert _whole(window.composer.input) and _whole(window.composer.send_button)
    assert window.composer.input.width() >= window.width() / 3

    window.resize(1400, 800)  # a larger window: cut to a third too, not applied as it was
    qtbot.waitUntil(lambda: window.splitter.width() == 1400)
    window._restore_splitter()
    assert _sidebar_fits(window) and window.sidebar.width() >= 400


def test_an_older_day_reads_whole_in_the_sidebar(shown):
    """At the default window an older day read "Saturday, 21 November 20…": the sidebar says
    "Sat 21 Nov" (the year only when it is not this one), the full date in its tooltip."""
    import datetime as dt

    from PySide6.QtGui import QFontMetrics

    from app.conversation_view import day_label

    tree = shown.sidebar.tree
    older = tree.topLevelItem(2)
    label = older.text(0)
    assert label not in ("Today", "Yesterday") and "," not in label
    shown_width = tree.visualItemRect(older).width()
    assert QFontMetrics(older.font(0)).horizontalAdvance(label) < shown_width
    two_days_ago = dt.date.today() - dt.timedelta(days=2)  # the history's oldest day
    assert older.toolTip(0).endswith(str(two_days_ago.year))  # "Saturday, 21 November 2026"
    day = dt.datetime(2025, 11, 22, 9, 0)
    assert day_label(day, dt.date(2026, 11, 27), short=True) == "Sat 22 Nov 2025"
    assert day_label(day, dt.date(2025, 12, 1), short=True) == "Sat 22 Nov"
    assert day_label(day, dt.date(2025, 12, 1)) == "Saturday, 22 November 2025"
