"""The Privacy panel keeps its size through edits and undos: its least width came and went
with the Undo button, and at 1.5x each change put the window back 1 px narrower (1306 ->
1300 px over six edits and undos)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from app import theme
from tests.gui_steps import delete_in_privacy, privacy_row

pytestmark = pytest.mark.gui

NURSE = "I work as a nurse in Krakow."
DOG = "My dog is called Pixel."


@pytest.mark.parametrize("size", [theme.BASE_SIZE, theme.BASE_SIZE + 4])
def test_edits_and_undos_leave_the_panel_size_alone(qtbot, window, memory, look_back, qapp, size):
    for said, answered in ((NURSE, "That sounds demanding."), (DOG, "Nice name.")):
        memory.add_memory(said, answered)
    memory.run_consolidation()
    theme.apply_look(qapp, "light", size)
    panel = window.open_privacy()
    qtbot.waitExposed(panel)
    qtbot.waitUntil(lambda: privacy_row(panel, DOG) is not None, timeout=10_000)
    size_before, least_before = panel.size(), panel.minimumWidth()
    for _ in range(3):
        delete_in_privacy(qtbot, panel, NURSE)
        assert panel.undo_button.isVisible()
        assert (panel.size(), panel.minimumWidth()) == (size_before, least_before)
        with qtbot.waitSignal(panel.changed, timeout=10_000):
            qtbot.mouseClick(panel.undo_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: privacy_row(panel, NURSE) is not None, timeout=10_000)
        assert not panel.undo_button.isVisible()
        assert (panel.size(), panel.minimumWidth()) == (size_before, least_before)
