"""The sidebar by keyboard alone: Esc acts where the focus is, Shift+Tab leaves the search
results and Up and Down go from result to result, and after a rename the keyboard goes on
from the row just renamed (the Menu key opens its menu)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMenu

pytestmark = pytest.mark.gui


@pytest.fixture
def three(memory):
    """Three conversations that mention metformin (ids oldest first), and a new one open."""
    ids = []
    for said in ("I take metformin at breakfast", "About me: metformin twice a day",
                 "Dinner with metformin at eight"):
        ids.append(memory.new_conversation())
        memory.add_memory(said, "Noted.")
        memory.run_consolidation()
    memory.new_conversation()
    return ids


@pytest.fixture
def shown(qtbot, window, three):
    qtbot.waitUntil(lambda: len(window.sidebar.rows()) == 3)
    return window


def _search(qtbot, window, words: str):
    sidebar = window.sidebar
    window.search_action.trigger()
    with qtbot.waitSignal(sidebar.searched):
        qtbot.keyClicks(sidebar.search, words)
    return sidebar


def _result_title(sidebar) -> str:
    """The text of the result link the keyboard is on."""
    return sidebar.results.textCursor().selectedText()


def test_esc_in_the_search_results_clears_the_search_not_the_forget_panel(
        qtbot, shown, send):  # fmt: skip
    window = shown
    window.composer.input.setPlainText("/forget metformin")
    with qtbot.waitSignal(window.chat_actions.done, timeout=5000):
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    assert window.forget_panel.isVisible()
    sidebar = _search(qtbot, window, "metformin")
    qtbot.keyClick(sidebar.search, Qt.Key.Key_Down)
    assert sidebar.results.hasFocus()
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)
    assert window.forget_panel.isVisible()  # not cancelled: the focus was not there
    assert sidebar.search.text() == ""
    qtbot.waitUntil(lambda: sidebar.stack.currentWidget() is sidebar.tree)
    # in the panel, Esc cancels it
    window.forget_panel.cancel_button.setFocus()
    with qtbot.waitSignal(window.chat_actions.done) as done:
        qtbot.keyClick(window.forget_panel.cancel_button, Qt.Key.Key_Escape)
    assert done.args == ["cancelled"] and not window.forget_panel.isVisible()


def test_shift_tab_leaves_the_results_and_up_down_go_between_them(qtbot, shown):
    sidebar = _search(qtbot, shown, "metformin")
    qtbot.keyClick(sidebar.search, Qt.Key.Key_Down)
    first = _result_title(sidebar)
    assert sidebar.results.hasFocus() and first
    qtbot.keyClick(sidebar.results, Qt.Key.Key_Down)
    second = _result_title(sidebar)
    assert second and second != first
    qtbot.keyClick(sidebar.results, Qt.Key.Key_Up)
    assert _result_title(sidebar) == first
    qtbot.keyClick(sidebar.results, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    assert sidebar.search.hasFocus()


def _rename_by_keyboard(qtbot, sidebar, row, name: str) -> None:
    sidebar.tree.setCurrentItem(row)
    qtbot.keyClick(sidebar.tree, Qt.Key.Key_F2)
    editor = QApplication.focusWidget()
    editor.selectAll()
    qtbot.keyClicks(editor, name)
    with qtbot.waitSignal(sidebar.refreshed):
        qtbot.keyClick(editor, Qt.Key.Key_Return)


def _menu_on_key(qtbot, sidebar) -> str:
    """The conversation whose row the menu the Menu key opens is on ('' for no menu)."""
    opened = []

    def look() -> None:
        menu = QApplication.activePopupWidget()
        if isinstance(menu, QMenu):
            at = sidebar.tree.viewport().mapFromGlobal(menu.pos())
            row = sidebar.tree.itemAt(at)
            opened.append(row.text(0) if row is not None else "(no row)")
            menu.close()

    QTimer.singleShot(200, look)
    qtbot.keyClick(sidebar.tree, Qt.Key.Key_Menu)
    qtbot.waitUntil(lambda: bool(opened))
    return opened[0]


@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")
@pytest.mark.parametrize("other_open", [False, True], ids=["a new chat open", "another open"])
def test_after_a_rename_the_keyboard_goes_on_from_the_renamed_row(qtbot, shown, three,
                                                                   other_open):
    window = shown
    sidebar = window.sidebar
    if other_open:
        window.open_conversation(three[2])
        qtbot.waitUntil(lambda: sidebar.current == three[2])
    sidebar.tree.setFocus(Qt.FocusReason.TabFocusReason)
    _rename_by_keyboard(qtbot, sidebar, sidebar.row_of(three[1]), "Supper plans")
    qtbot.waitUntil(lambda: sidebar.row_of(three[1]).text(0) == "Supper plans")
    assert sidebar.tree.hasFocus()
    assert sidebar.tree.currentItem() is sidebar.row_of(three[1])
    assert _menu_on_key(qtbot, sidebar) == "Supper plans"
