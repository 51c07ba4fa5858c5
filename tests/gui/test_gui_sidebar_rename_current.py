"""After F2, a new name and Enter in the conversations list, the renamed row stays the current
(keyboard) row through every redraw that follows (the list read again once the rename is
stored, then again for the vault's "pages" event), until the person moves; the Menu key opens
the renamed row's menu. The second redraw took the current row back to the open conversation's,
and the Menu key opened that row's menu."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QLineEdit, QMenu

from tests.gui_steps import focus_by_tab

pytestmark = pytest.mark.gui


@pytest.fixture
def two(memory):
    """Two conversations (ids oldest first), and a new one open."""
    ids = []
    for said in ("I met Maria at the library", "The boiler needs a service in May"):
        ids.append(memory.new_conversation())
        memory.add_memory(said, "Noted.")
    memory.new_conversation()
    return ids


def _menu_on_key(qtbot, sidebar) -> str:
    """The title of the row whose menu the Menu key opens."""
    opened = []

    def look() -> None:  # runs in the menu's own event loop, once it is open
        menu = QApplication.activePopupWidget()
        if isinstance(menu, QMenu):
            looking.stop()
            at = sidebar.tree.viewport().mapFromGlobal(menu.pos())
            row = sidebar.tree.itemAt(at)
            opened.append(row.text(0) if row is not None else "(no row)")
            menu.close()

    looking = QTimer(interval=50)
    looking.timeout.connect(look)
    looking.start()
    try:
        qtbot.keyClick(sidebar.tree, Qt.Key.Key_Menu)
        qtbot.waitUntil(lambda: bool(opened), timeout=20_000)
    finally:
        looking.stop()
    return opened[0]


@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")
def test_the_renamed_row_stays_current_after_every_redraw(qtbot, window, two):
    sidebar = window.sidebar
    qtbot.waitUntil(lambda: len(sidebar.rows()) == 2)
    # the newer one, the list's first row, is open (drawn: the message box then takes the
    # keyboard, which must happen before the test goes to the list)
    with qtbot.waitSignal(window.conversation_shown, timeout=20_000):
        window.open_conversation(two[1])
    qtbot.waitUntil(lambda: sidebar.current == two[1])
    focus_by_tab(qtbot, sidebar.tree)
    assert sidebar.tree.currentItem() is sidebar.row_of(two[1])
    qtbot.keyClick(sidebar.tree, Qt.Key.Key_Down)
    assert sidebar.tree.currentItem() is sidebar.row_of(two[0])
    qtbot.keyClick(sidebar.tree, Qt.Key.Key_F2)
    qtbot.waitUntil(lambda: isinstance(QApplication.focusWidget(), QLineEdit))
    editor = QApplication.focusWidget()
    editor.selectAll()
    qtbot.keyClicks(editor, "Maria intro")
    redraws = []
    sidebar.refreshed.connect(lambda: redraws.append(sidebar.row_of(two[0]).text(0)))
    with qtbot.waitSignals(
        [sidebar.changed, window.session.memory_changed],
        check_params_cbs=[lambda what: what == "renamed", lambda event: event == "pages"],
        timeout=20_000,
    ):
        qtbot.keyClick(editor, Qt.Key.Key_Return)
    # the list read again for the rename stored, and again for the vault's event
    qtbot.waitUntil(lambda: redraws[-2:] == ["Maria intro"] * 2, timeout=20_000)
    renamed = sidebar.row_of(two[0])
    assert renamed.text(0) == "Maria intro"
    assert sidebar.tree.hasFocus(), QApplication.focusWidget()
    assert sidebar.tree.currentItem() is renamed
    assert sidebar.row_of(two[1]).isSelected()  # the open conversation stays marked
    assert _menu_on_key(qtbot, sidebar) == "Maria intro"
    # a move: the keyboard goes on from the renamed row, and a redraw now keeps where it went
    qtbot.keyClick(sidebar.tree, Qt.Key.Key_Up)
    assert sidebar.tree.currentItem() is sidebar.row_of(two[1])
    with qtbot.waitSignal(sidebar.refreshed):
        sidebar.refresh()
    assert sidebar.tree.currentItem() is sidebar.row_of(two[1])
