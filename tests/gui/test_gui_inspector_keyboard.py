"""The Memory inspector from the keyboard: Tab and Shift+Tab go round every control, on an empty
vault too (each list is then a placeholder that takes no focus), and its Close button closes
it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget
from shiboken6 import isValid

from tests.gui_steps import focus_by_tab

pytestmark = pytest.mark.gui

SHIFT = Qt.KeyboardModifier.ShiftModifier


def _controls(dialog) -> set[QWidget]:
    """What Tab should reach on the page shown: every visible, enabled widget taking focus."""
    return {
        widget for widget in dialog.findChildren(QWidget)
        if widget.isVisible() and widget.isEnabled()
        and widget.focusPolicy() & Qt.FocusPolicy.TabFocus
        and widget.focusProxy() is None
    }


def _round(qtbot, start: QWidget, modifier=Qt.KeyboardModifier.NoModifier) -> list[QWidget]:
    """The widgets Tab (or Shift+Tab) gives the focus to, from `start` until it is back."""
    reached = []
    for _ in range(12):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab, modifier)
        widget = QApplication.focusWidget()
        if widget is start:
            return reached
        reached.append(widget)
    raise AssertionError(f"Tab never came back to the tab bar: {reached}")


def _open(qtbot, window):
    inspector = window.open_inspector()
    qtbot.waitUntil(lambda: bool(inspector.data))
    return inspector


@pytest.mark.parametrize("filled", [False, True])
def test_tab_goes_round_every_control_of_the_inspector(qtbot, window, memory, filled):
    """On an empty vault Tab and Shift+Tab stayed on the tab bar: nothing else took focus."""
    if filled:
        memory.add_memory("I work as a data scientist in San Francisco.", "Nice field.")
        memory.run_consolidation()
    inspector = _open(qtbot, window)
    tab_bar = inspector.tabs.tabBar()
    for page in range(inspector.tabs.count()):
        inspector.tabs.setCurrentIndex(page)
        focus_by_tab(qtbot, tab_bar)
        forward = _round(qtbot, tab_bar)
        assert forward, f"Tab stays on the tab bar on page {page}"
        assert set(forward) == _controls(inspector) - {tab_bar}, (page, forward)
        assert getattr(inspector, "close_button", None) in forward, page
        backward = _round(qtbot, tab_bar, SHIFT)
        assert backward == forward[::-1], page

    focus_by_tab(qtbot, inspector.close_button)
    qtbot.keyClick(inspector.close_button, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: not isValid(inspector) or not inspector.isVisible())
    qtbot.waitUntil(lambda: "inspector" not in window.panels)
