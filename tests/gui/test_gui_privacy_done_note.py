"""The Privacy panel's note of the last change (what Undo put back) is of the list and the rows
it was made on: another tab or another row, and it goes."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.gui.test_privacy_undo_edit import ANA_FIRST, NURSE, TYPO, _edit
from tests.gui_steps import privacy_after_learning, privacy_in_front, privacy_row

pytestmark = pytest.mark.gui


@pytest.fixture
def undone(qtbot, window, memory, monkeypatch):
    """The Privacy panel on a 1366x768 screen at 1.5x (871x452 for a window), after an edit
    and its Undo."""
    from app import privacy, widgets

    for place in (widgets, privacy):
        monkeypatch.setattr(place, "screen_room", lambda _window: (871, 452))
    panel = privacy_after_learning(qtbot, window, memory, ANA_FIRST, NURSE)
    _edit(qtbot, panel, NURSE, TYPO)
    qtbot.waitUntil(lambda: privacy_row(panel, TYPO) is not None)
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        qtbot.mouseClick(panel.undo_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: [i.text for i in panel.selected_items()] == [NURSE])
    assert "before your edit" in panel.done_note.text()
    return panel


def test_the_note_goes_with_ctrl_tab(qtbot, undone):
    note = undone.done_note
    privacy_in_front(qtbot, undone)
    qtbot.keyClick(undone.tree, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert undone.tabs.currentIndex() == 1  # Conversations
    assert note.text() == ""


def test_the_note_goes_when_another_row_is_chosen(qtbot, undone):
    privacy_in_front(qtbot, undone)
    qtbot.keyClick(undone.tree, Qt.Key.Key_Down)
    assert [i.text for i in undone.selected_items()] != [NURSE]
    assert undone.done_note.text() == ""
