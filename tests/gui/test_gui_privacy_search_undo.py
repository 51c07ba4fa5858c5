"""Ctrl+Z in the Privacy search box after a delete: typing done since the delete is undone
first (the box's own undo); then Ctrl+Z takes the panel's Undo and puts the fact back."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.gui_steps import delete_in_privacy, press_key, privacy_row

pytestmark = pytest.mark.gui

NURSE = "I work as a nurse in Krakow."
THAI = "I really love spicy Thai food."
CONTROL = Qt.KeyboardModifier.ControlModifier


def _facts(memory) -> list[str]:
    return [fact.text for fact in memory.facts()]


def test_ctrl_z_undoes_the_typing_since_a_delete_before_the_delete(qtbot, window, memory):
    for said, answered in ((NURSE, "That sounds demanding."), (THAI, "Yum.")):
        memory.add_memory(said, answered)
    memory.run_consolidation()
    panel = window.open_privacy()
    panel.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is panel)
    panel.search.setFocus()
    qtbot.keyClicks(panel.search, "work")
    qtbot.waitUntil(lambda: privacy_row(panel, NURSE) is not None)
    delete_in_privacy(qtbot, panel, NURSE)
    qtbot.waitUntil(lambda: NURSE not in _facts(memory))
    panel.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is panel)
    panel.search.setFocus()
    panel.search.end(False)

    press_key(qtbot, Qt.Key.Key_X)
    assert panel.search.text() == "workx"
    press_key(qtbot, Qt.Key.Key_Z, CONTROL)  # the typing goes first; the fact stays deleted
    assert panel.search.text() == "work"
    assert NURSE not in _facts(memory) and panel.undo_button.isVisible()

    with qtbot.waitSignal(panel.changed, timeout=10_000):  # nothing typed since: the delete
        press_key(qtbot, Qt.Key.Key_Z, CONTROL)
    assert NURSE in _facts(memory)
    assert panel.search.text() == "work"
