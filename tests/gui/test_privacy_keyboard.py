"""The Privacy panel by keyboard: it opens ready to search, Tab into the list selects a row,
F2 and a double-click edit what it knows (never the kind), Ctrl+Z takes the panel's Undo
even from the search box, and Enter presses the focused button."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QApplication, QLineEdit

from tests.gui_steps import answer_box, press_key, privacy_by_keyboard, privacy_row

pytestmark = pytest.mark.gui

NURSE = "I work as a nurse in Krakow."
THAI = "I really love spicy Thai food."
MIDWIFE = "I work as a midwife in Krakow."
CONTROL = Qt.KeyboardModifier.ControlModifier


@pytest.fixture
def panel(qtbot, window, memory):
    """Ana's exchanges, consolidated, and the Privacy panel opened with Ctrl+P from the
    message box, in front with the keyboard (as on a desktop)."""
    said = ((NURSE, "That sounds demanding."), (THAI, "Yum."))
    return privacy_by_keyboard(qtbot, window, memory, said, NURSE)


def _back_to(qtbot, panel) -> None:
    """After a question box closed, the panel is in front again (as a desktop does)."""
    panel.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is panel)


def _tab_to(qtbot, widget) -> None:
    """Press Tab until `widget` has the keyboard."""
    for _ in range(12):
        if QApplication.focusWidget() is widget:
            return
        press_key(qtbot, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is widget, f"Tab never reached {widget!r}"


def _click_cell(qtbot, tree, row, column: int, double: bool = False) -> None:
    """A click (or double-click) on one cell of the list: its current row and column."""
    point = tree.visualRect(tree.indexFromItem(row, column)).center()
    click = qtbot.mouseDClick if double else qtbot.mouseClick
    if double:  # a real double-click starts with a click that selects the row
        qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=point)
    click(tree.viewport(), Qt.MouseButton.LeftButton, pos=point)


def _editor(qtbot, panel) -> QLineEdit:
    qtbot.waitUntil(lambda: panel.tree.findChild(QLineEdit) is not None)
    return panel.tree.findChild(QLineEdit)


def test_it_opens_with_the_keyboard_in_the_search_box(qtbot, panel):
    """Ctrl+P put the keyboard on the tab bar, with no mark: "Thai" typed went nowhere."""
    assert QApplication.focusWidget() is panel.search
    for letter in "love":
        press_key(qtbot, getattr(Qt.Key, f"Key_{letter.upper()}"))
    assert panel.search.text().lower() == "love"
    assert [item.text for item in panel.visible_items()] == [THAI]


def test_tab_into_the_list_selects_a_row_so_its_keys_work_at_once(qtbot, panel):
    """With one result, Tab to the list left it unselected and Down did nothing; now the row
    is selected, so F2 edits it (and Delete asks about it)."""
    qtbot.keyClicks(panel.search, "love")
    _tab_to(qtbot, panel.tree)
    assert [item.text for item in panel.selected_items()] == [THAI]
    assert panel.edit_button.isEnabled() and panel.delete_button.isEnabled()
    qtbot.waitUntil(lambda: panel.source.toPlainText().startswith(THAI))  # its source shows

    press_key(qtbot, Qt.Key.Key_F2)
    assert _editor(qtbot, panel).text() == THAI
    press_key(qtbot, Qt.Key.Key_Escape)  # leaves the editor, not the panel
    qtbot.waitUntil(lambda: panel.tree.findChild(QLineEdit) is None)
    assert panel.isVisible()

    seen: dict = {}
    answer_box(panel, "Delete", "Cancel", seen)
    press_key(qtbot, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: "texts" in seen)
    _back_to(qtbot, panel)

    # Back with Shift+Tab from the Edit button: a row selected by hand stays the one selected
    panel.tree.clearSelection()
    privacy_row(panel, THAI).setSelected(True)
    panel.edit_button.setFocus()
    press_key(qtbot, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    _tab_to(qtbot, panel.tree)
    assert [item.text for item in panel.selected_items()] == [THAI]


def test_f2_and_double_click_edit_what_it_knows_never_the_kind(qtbot, panel, memory):
    """F2 on a row whose Kind cell was clicked edited the Kind: "Pet fact" showed there,
    nothing was saved, and it went back at the next refresh."""
    row = privacy_row(panel, NURSE)
    kind = row.text(0)
    _click_cell(qtbot, panel.tree, row, 0)  # the Kind cell is the current one now
    assert [item.text for item in panel.selected_items()] == [NURSE]

    press_key(qtbot, Qt.Key.Key_F2)
    editor = _editor(qtbot, panel)
    assert editor.text() == NURSE  # what it knows, not "Fact"
    editor.selectAll()
    qtbot.keyClicks(editor, MIDWIFE)
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        press_key(qtbot, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: privacy_row(panel, MIDWIFE) is not None)
    assert MIDWIFE in [fact.text for fact in memory.facts()]
    assert privacy_row(panel, MIDWIFE).text(0) == kind

    # A double-click on any cell edits the same column
    for column in (0, 2, 3):
        row = privacy_row(panel, THAI)
        _click_cell(qtbot, panel.tree, row, column, double=True)
        assert _editor(qtbot, panel).text() == THAI, f"column {column}"
        press_key(qtbot, Qt.Key.Key_Escape)
        qtbot.waitUntil(lambda: panel.tree.findChild(QLineEdit) is None)


def test_enter_on_a_row_edits_nothing_and_presses_no_button(qtbot, panel, memory):
    before = memory.facts(include_superseded=True)
    _click_cell(qtbot, panel.tree, privacy_row(panel, NURSE), 1)
    with qtbot.assertNotEmitted(panel.changed, wait=300):  # no edit, delete or forget
        press_key(qtbot, Qt.Key.Key_Return)
    assert panel.tree.state() != QAbstractItemView.State.EditingState
    assert panel.isVisible() and not panel.undo_button.isVisible()
    assert memory.facts(include_superseded=True) == before


def test_ctrl_z_in_the_search_box_takes_back_the_last_delete(qtbot, panel, memory):
    """Ctrl+Z in the search box undid the search text, though the Undo button says Ctrl+Z."""
    qtbot.keyClicks(panel.search, "I work")
    _tab_to(qtbot, panel.tree)
    seen: dict = {}
    answer_box(panel, "Delete", "Delete", seen)
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        press_key(qtbot, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: not any(NURSE == fact.text for fact in memory.facts()))
    assert panel.undo_button.isVisible()
    _back_to(qtbot, panel)
    panel.search.setFocus()

    with qtbot.waitSignal(panel.changed, timeout=10_000):
        press_key(qtbot, Qt.Key.Key_Z, CONTROL)

    assert NURSE in [fact.text for fact in memory.facts()]
    assert panel.search.text() == "I work"  # the search stays as typed
    assert not panel.undo_button.isVisible()
    qtbot.waitUntil(lambda: [item.text for item in panel.visible_items()] == [NURSE])

    # No Undo offered: Ctrl+Z is the search box's own again
    panel.search.clear()
    qtbot.keyClicks(panel.search, "Thai")
    press_key(qtbot, Qt.Key.Key_Z, CONTROL)
    assert panel.search.text() != "Thai"
    assert NURSE in [fact.text for fact in memory.facts()]


@pytest.mark.parametrize("where", ["kind", "source", "edit button"])
def test_ctrl_z_anywhere_in_the_panel_takes_back_the_last_edit(qtbot, panel, memory, where):
    row = privacy_row(panel, NURSE)
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        row.setText(1, MIDWIFE)
    qtbot.waitUntil(lambda: privacy_row(panel, MIDWIFE) is not None)
    assert panel.undo_button.isVisible()
    panel.tree.clearSelection()
    privacy_row(panel, MIDWIFE).setSelected(True)  # the Edit button is ready (it takes focus)
    focus = {"kind": panel.kind, "source": panel.source, "edit button": panel.edit_button}[where]
    focus.setFocus()
    assert QApplication.focusWidget() is focus

    with qtbot.waitSignal(panel.changed, timeout=10_000):
        press_key(qtbot, Qt.Key.Key_Z, CONTROL)

    qtbot.waitUntil(lambda: privacy_row(panel, NURSE) is not None)
    assert NURSE in [fact.text for fact in memory.facts()]


def test_enter_presses_the_focused_button(qtbot, panel, window):
    """Space pressed the focused Edit button, Enter did nothing; Enter elsewhere presses none."""
    panel.tree.clearSelection()
    privacy_row(panel, THAI).setSelected(True)
    _tab_to(qtbot, panel.edit_button)
    press_key(qtbot, Qt.Key.Key_Return)
    assert _editor(qtbot, panel).text() == THAI
    press_key(qtbot, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: panel.tree.findChild(QLineEdit) is None)

    panel.search.setFocus()
    with qtbot.assertNotEmitted(panel.finished, wait=200):  # no button pressed: not Close
        press_key(qtbot, Qt.Key.Key_Return)  # in the search box
    assert panel.isVisible() and panel.tree.findChild(QLineEdit) is None

    close = next(b for b in panel.findChildren(type(panel.edit_button)) if b.text() == "Close")
    close.setFocus()
    press_key(qtbot, Qt.Key.Key_Enter, Qt.KeyboardModifier.KeypadModifier)
    qtbot.waitUntil(lambda: "privacy" not in window.panels)


@pytest.mark.parametrize("how", ["Esc", "Close", "Esc, the window's focus lost meanwhile"])
def test_closed_the_keyboard_goes_back_to_the_message_box(qtbot, panel, window, how):
    """Closed with Esc, no window had the keyboard (with no window manager to bring the
    window behind forward), and it was reported going to the conversation search: what the
    window does when it has lost track of its focus (its first control takes it)."""
    qtbot.keyClicks(panel.search, "love")
    if "lost" in how:
        window.composer.input.clearFocus()  # the window no longer knows where its focus was
        assert window.focusWidget() is None
    if how == "Close":
        close = next(b for b in panel.findChildren(type(panel.edit_button)) if b.text() == "Close")
        qtbot.mouseClick(close, Qt.MouseButton.LeftButton)
    else:
        press_key(qtbot, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: "privacy" not in window.panels)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.composer.input)
    for letter in "hi":
        press_key(qtbot, getattr(Qt.Key, f"Key_{letter.upper()}"))
    assert window.composer.input.toPlainText() == "hi"
    assert window.sidebar.search.text() == ""
