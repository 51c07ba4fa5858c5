"""For a keyboard user with larger text: the text panes show where the focus is, a focused
button's label is not cut, Copy last answer says what it did, the memory inspector shows a cut
row in full from the keyboard, and F1 lists the keys of the lists and panels."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QContextMenuEvent, QGuiApplication, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QDialog,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QTabWidget,
    QTextBrowser,
    QWidget,
)

from tests.gui.test_gui_contrast import _contrast, _luminances
from tests.gui_steps import focus_by_tab

pytestmark = pytest.mark.gui

CONTROL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
LONG_ANSWER = "Start of the answer. " + "A sentence in the middle of it. " * 20 + "THE LAST WORDS."
LARGE = 12  # Ctrl+= twice


def _border_pixel(widget: QWidget) -> QColor:
    """The left border's colour half-way down, as drawn."""
    QApplication.processEvents()
    image = widget.grab().toImage().scaled(widget.size())
    return image.pixelColor(0, widget.height() // 2)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_text_panes_show_a_focus_border(qtbot, qapp, window, chat, send, scheme,
                                            look_back):
    """The conversation, Privacy's detail pane and F1's list took the focus and looked the same
    with it: now a border in the accent, 3:1 at least on what it replaces and on the pane."""
    from app import theme

    chat.queue("Porto is in the north of Portugal.")
    send(window, "Where is Porto?")  # the conversation is shown (not the empty page)
    theme.apply_look(qapp, scheme, theme.BASE_SIZE)
    base = QApplication.palette().color(QPalette.ColorRole.Base)
    opened: list[QWidget] = []

    def f1_list() -> tuple[QWidget, QWidget]:
        shortcuts = window.show_shortcuts()
        qtbot.waitExposed(shortcuts)
        opened.append(shortcuts)
        return shortcuts.findChild(QTextBrowser), shortcuts.findChild(QPushButton)

    def privacy_detail() -> tuple[QWidget, QWidget]:
        opened.pop().accept()  # F1's list is modal: Privacy opens once it is closed
        focus_by_tab(qtbot, window.composer.input)
        panel = window.open_privacy()
        qtbot.waitExposed(panel)
        opened.append(panel)
        return panel.source, panel.findChild(QLineEdit)

    panes = {
        "conversation": lambda: (window.view.browser, window.composer.input),
        "F1's list": f1_list,
        "Privacy's detail": privacy_detail,
    }
    for name, find in panes.items():
        pane, elsewhere = find()
        focus_by_tab(qtbot, pane)
        focused = _border_pixel(pane)
        focus_by_tab(qtbot, elsewhere)
        unfocused = _border_pixel(pane)
        assert _contrast(focused, unfocused) >= 3, (scheme, name, focused.name(), unfocused.name())
        assert _contrast(focused, base) >= 3, (scheme, name, focused.name(), base.name())
    opened.pop().close()


def _label_width(button: QPushButton) -> int:
    """How wide the button's label is drawn: the columns, away from the edges, where some pixel
    differs from the button's own colour."""
    QApplication.processEvents()
    image = button.grab().toImage().scaled(button.size())
    light = _luminances(image)
    middle = light[light.shape[0] // 4: 3 * light.shape[0] // 4, 8:-8]
    background = light[light.shape[0] // 2, 5]
    ratio = (np.maximum(middle, background) + 0.05) / (np.minimum(middle, background) + 0.05)
    columns = np.flatnonzero((ratio > 1.5).any(axis=0))
    assert columns.size, "no label drawn"
    return int(columns[-1] - columns[0] + 1)


def test_focus_does_not_widen_a_button_label_or_a_tab(qtbot, qapp, look_back):
    """At a larger text size a focused button in a dialog (its default then) was drawn
    semi-bold in the width measured for its plain label: "elete and forget the exchange..".
    The selected tab was semi-bold too ("Conversation" in Settings)."""
    from app import theme

    theme.apply_look(qapp, "light", LARGE)
    dialog = QDialog()
    qtbot.addWidget(dialog)
    row = QHBoxLayout(dialog)
    button = QPushButton("Delete and forget the exchange…")
    other = QPushButton("Cancel")
    row.addWidget(button)
    row.addWidget(other)
    tabs = QTabWidget()
    for name in ("Model", "Conversation"):
        tabs.addTab(QWidget(), name)
    row.addWidget(tabs)
    dialog.show()
    qtbot.waitExposed(dialog)
    hint = button.sizeHint().width()
    button.setMinimumWidth(2 * hint)  # room to draw a wider label whole, to measure it
    focus_by_tab(qtbot, other)
    plain = _label_width(button)
    focus_by_tab(qtbot, button)
    assert button.isDefault()  # the dialog's default while it has the focus
    assert button.sizeHint().width() == hint
    assert _label_width(button) <= plain + 1

    bar = tabs.tabBar()
    tabs.setCurrentIndex(0)
    unselected = bar.tabSizeHint(1).width()
    tabs.setCurrentIndex(1)
    bar.setFocus(Qt.FocusReason.TabFocusReason)
    assert bar.tabSizeHint(1).width() == unselected


def test_copy_last_answer_says_what_it_copied(qtbot, window, chat, send):
    """Ctrl+Shift+C copied without a word; now the status line says so, or that there is
    nothing to copy (and the clipboard keeps what it had)."""
    clipboard = QGuiApplication.clipboard()
    clipboard.setText("before")
    focus_by_tab(qtbot, window.composer.input)
    qtbot.keyClick(window.composer.input, Qt.Key.Key_C, CONTROL_SHIFT)
    assert clipboard.text() == "before"
    assert "no answer" in window.status.currentMessage()

    chat.queue("Porto is in the north of Portugal.")
    send(window, "Where is Porto?")
    focus_by_tab(qtbot, window.composer.input)
    qtbot.keyClick(window.composer.input, Qt.Key.Key_C, CONTROL_SHIFT)
    assert clipboard.text() == "Porto is in the north of Portugal."
    said = window.status.currentMessage()
    assert said.startswith("Copied the last answer")


def test_the_inspector_shows_a_cut_row_whole_from_the_keyboard(qtbot, window, memory):
    """A long answer in short-term memory ends in "…" in its row, all of it only in a tooltip
    (the mouse): Enter on the row shows it whole, in a pane that takes the focus. The lists and
    the topic pane have names for a screen reader."""
    memory.add_memory("Tell me about Porto, at length.", LONG_ANSWER)
    inspector = window.open_inspector()
    qtbot.waitUntil(lambda: inspector.short_tree.topLevelItemCount() == 1)
    tree = inspector.short_tree
    row = tree.topLevelItem(0)
    assert "THE LAST WORDS" not in row.text(2)  # cut in the list
    focus_by_tab(qtbot, tree)
    tree.setCurrentItem(row)
    qtbot.keyClick(tree, Qt.Key.Key_Return)
    shown = inspector.full_text
    assert shown is not None and shown.isVisible()
    pane = shown.findChild(QTextBrowser)
    assert "THE LAST WORDS." in pane.toPlainText()
    assert "Tell me about Porto, at length." in pane.toPlainText()
    qtbot.waitUntil(pane.hasFocus)
    qtbot.keyClick(pane, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: inspector.full_text is None)
    focus_by_tab(qtbot, tree)
    qtbot.keyClick(tree, Qt.Key.Key_Space)  # Space too
    assert inspector.full_text is not None
    inspector.full_text.close()

    named = [inspector.short_tree, inspector.segment_tree, inspector.segment_detail,
             inspector.profile_tree, inspector.fact_tree, inspector.sent_tab.tree]
    assert all(widget.accessibleName() for widget in named)
    assert len({widget.accessibleName() for widget in named}) == len(named)
    inspector.close()


@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")
def test_f1_lists_the_keys_of_the_lists_and_panels(qtbot, window, memory):
    """F2, Delete, Ctrl+Z, the Menu key and Ctrl+Tab were missing from F1. Those that are not
    tried elsewhere (tests/gui/test_privacy_keyboard.py: F2, Delete and Ctrl+Z in Privacy)
    are tried here: F2 and the Menu key on a conversation, Ctrl+Tab in Settings."""
    listed = window.shortcuts_text()
    for key in ("F2", "Delete", "Ctrl+Z", "Menu", "Ctrl+Tab", "Ctrl+Shift+Tab"):
        assert f"<b>{key}</b>" in listed, key

    memory.new_conversation()
    memory.add_memory("Plan a hike in Marin", "The Dipsea trail.")
    memory.new_conversation()
    window.sidebar.refresh()
    qtbot.waitUntil(lambda: len(window.sidebar.rows()) == 1)
    tree = window.sidebar.tree
    focus_by_tab(qtbot, tree)
    tree.setCurrentItem(window.sidebar.rows()[0])
    qtbot.keyClick(tree, Qt.Key.Key_F2)
    assert tree.state() == QAbstractItemView.State.EditingState
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)
    focus_by_tab(qtbot, tree)
    # The Menu key: Qt sends the focused list this event, at its current row
    seen: list[str] = []

    def read_menu() -> None:
        menu = QApplication.activePopupWidget()
        if menu is not None:
            seen.extend(action.text().replace("&", "") for action in menu.actions())
            menu.close()

    QTimer.singleShot(100, read_menu)
    at = tree.inputMethodQuery(Qt.InputMethodQuery.ImCursorRectangle).center()
    QApplication.sendEvent(
        tree, QContextMenuEvent(QContextMenuEvent.Reason.Keyboard, at, tree.mapToGlobal(at))
    )
    assert "Rename" in seen and "Forget…" in seen

    dialog = window.open_settings()
    qtbot.waitExposed(dialog)
    focus_by_tab(qtbot, dialog.tabs.tabBar())
    start = dialog.tabs.currentIndex()
    qtbot.keyClick(dialog.tabs.tabBar(), Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert dialog.tabs.currentIndex() == (start + 1) % dialog.tabs.count()
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab, CONTROL_SHIFT)
    assert dialog.tabs.currentIndex() == start
    dialog.pool.wait(5000)
    dialog.close()
