"""Undo in the Privacy panel after an edit: a mistyped correction can be taken back, the item
as it was (same id, sources and dates); the last change is the one undone."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from tests.gui_steps import delete_in_privacy, privacy_after_learning, privacy_in_front, privacy_row

pytestmark = pytest.mark.gui

HELLO = "Hi! My name is Ana and I have a dog called Pixel."
NURSE = "I work as a nurse in Krakow."
THAI = "I really love spicy Thai food."
TYPO = "I work as a nurse in Krakw."
ANA_FIRST = ((HELLO, "Nice to meet you, Ana!"), (NURSE, "That sounds demanding."), (THAI, "Yum."))


@pytest.fixture
def panel(qtbot, window, memory):
    """Ana's first exchanges, consolidated, and the Privacy panel on them."""
    return privacy_after_learning(qtbot, window, memory, ANA_FIRST, NURSE)


def _edit(qtbot, panel, needle: str, text: str) -> None:
    """Select the row, press Edit, type the new text over the old and press Enter."""
    privacy_in_front(qtbot, panel)
    panel.tree.clearSelection()
    privacy_row(panel, needle).setSelected(True)
    qtbot.mouseClick(panel.edit_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.tree.findChild(QLineEdit) is not None)
    editor = panel.tree.findChild(QLineEdit)
    editor.selectAll()
    qtbot.keyClicks(editor, text)
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        qtbot.keyClick(editor, Qt.Key.Key_Return)


def _ctrl_z(qtbot, panel) -> None:
    privacy_in_front(qtbot, panel)
    qtbot.keyClick(panel.tree, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)


def test_undo_puts_back_the_text_an_edit_replaced(qtbot, panel, memory):
    before = memory.facts(include_superseded=True)
    nurse = next(f for f in before if f.text == NURSE)
    assert nurse.source_page_ids and nurse.origin != "user"

    _edit(qtbot, panel, NURSE, TYPO)
    qtbot.waitUntil(lambda: privacy_row(panel, TYPO) is not None)
    assert memory.fact(nurse.id).text == TYPO
    assert panel.done_note.text() == "Changed 1 fact."
    # The button says what it will undo, and what comes back
    assert panel.undo_button.isVisible() and "edit" in panel.undo_button.text().lower()
    assert NURSE in panel.undo_button.toolTip()

    with qtbot.waitSignal(panel.changed, timeout=10_000):
        qtbot.mouseClick(panel.undo_button, Qt.MouseButton.LeftButton)

    assert memory.facts(include_superseded=True) == before  # same id, sources, dates, origin
    # Read back (the edited row keeps its typed text and old item until the list is redrawn)
    qtbot.waitUntil(lambda: privacy_row(panel, NURSE) is not None
                    and [i.text for i in panel.selected_items()] == [NURSE])
    rows = [panel.tree.topLevelItem(i) for i in range(panel.tree.topLevelItemCount())]
    assert not [row for row in rows if TYPO in row.text(1)]
    assert "before your edit" in panel.done_note.text()
    assert not panel.undo_button.isVisible()
    assert NURSE in [f.fact.text for f in memory.retrieve("Where does Ana work?").facts]


def test_ctrl_z_puts_a_profile_entry_back_as_it_was_before_the_edit(qtbot, panel, memory):
    before = memory.profile(include_superseded=True)
    row = privacy_row(panel, "occupation: nurse")
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        row.setText(1, "occupation: nurze")
    qtbot.waitUntil(lambda: privacy_row(panel, "occupation: nurze") is not None)
    assert before != memory.profile(include_superseded=True)

    _ctrl_z(qtbot, panel)

    qtbot.waitUntil(lambda: privacy_row(panel, "occupation: nurse") is not None)
    assert memory.profile(include_superseded=True) == before
    assert not panel.undo_button.isVisible()


def test_after_an_edit_then_a_delete_undo_takes_back_the_delete(qtbot, panel, memory):
    _edit(qtbot, panel, NURSE, TYPO)
    qtbot.waitUntil(lambda: privacy_row(panel, TYPO) is not None)
    edited = memory.facts(include_superseded=True)

    delete_in_privacy(qtbot, panel, TYPO)
    assert "delete" in panel.undo_button.text().lower()
    assert "deleted" in panel.undo_button.toolTip()

    with qtbot.waitSignal(panel.changed, timeout=10_000):
        qtbot.mouseClick(panel.undo_button, Qt.MouseButton.LeftButton)

    assert memory.facts(include_superseded=True) == edited  # back as it was deleted
    qtbot.waitUntil(lambda: privacy_row(panel, TYPO) is not None)
    # The edit before it is offered next (app/privacy_items.py, UNDO_DEPTH)
    assert "edit" in panel.undo_button.text().lower() and NURSE in panel.undo_button.toolTip()


def test_after_a_delete_then_an_edit_undo_takes_back_only_the_edit(qtbot, panel, memory):
    panel.tree.clearSelection()
    privacy_row(panel, THAI).setSelected(True)
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        panel.delete_selected(confirm=False)
    qtbot.waitUntil(lambda: privacy_row(panel, THAI) is None)
    deleted = memory.facts(include_superseded=True)

    _edit(qtbot, panel, NURSE, TYPO)
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        _ctrl_z(qtbot, panel)

    assert memory.facts(include_superseded=True) == deleted  # the edit undone, not the delete
    qtbot.waitUntil(lambda: privacy_row(panel, NURSE) is not None)
    assert privacy_row(panel, THAI) is None
