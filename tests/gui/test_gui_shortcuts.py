"""Help → Keyboard shortcuts lists every key the window answers to (Ctrl+M and Lock now
included), Ctrl+M chooses a model, and Esc closes the memory inspector and the privacy panel."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QAbstractButton, QApplication, QDialog

from tests.gui_steps import press_key

pytestmark = pytest.mark.gui

NATIVE = QKeySequence.SequenceFormat.NativeText


def _keys(window) -> dict[str, str]:
    """Every shortcut of the main window itself: its actions and its buttons' own keys."""
    keys = {}
    for action in window.findChildren(QAction):
        if not action.shortcut().isEmpty() and action.text():
            keys[action.text()] = action.shortcut().toString(NATIVE)
    for button in window.findChildren(QAbstractButton):
        if button.window() is window and not button.shortcut().isEmpty():
            keys[button.text() or button.toolTip()] = button.shortcut().toString(NATIVE)
    return keys


def test_f1_lists_every_key_the_window_answers_to(window):
    text = window.shortcuts_text()
    assert window.demo_banner.isVisible()  # the bundled model: its banner offers Ctrl+M
    for name, key in _keys(window).items():
        assert f"<b>{key}</b>" in text, f"{name} ({key}) is missing from Help → Keyboard shortcuts"
    assert "Choose a model" in text and "<b>Ctrl+M</b>" in text
    assert "Lock now" in text and "<b>Ctrl+L</b>" in text


class _ModelStep(QDialog):
    """Stands in for the model table (which looks at the disk and local servers)."""

    chosen = Signal(object)

    def __init__(self, _pool, parent=None, **_options):
        super().__init__(parent)


def _active(qtbot, window):
    window.activateWindow()  # as a click on it does
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)


@pytest.mark.parametrize("banner", [True, False], ids=["demo model", "own model"])
def test_ctrl_m_chooses_a_model(qtbot, window, monkeypatch, banner):
    monkeypatch.setattr("app.model_step.ModelStepDialog", _ModelStep)
    window.demo_banner.setVisible(banner)
    _active(qtbot, window)
    window.composer.input.setFocus()
    press_key(qtbot, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: isinstance(window.panels.get("model_step"), _ModelStep))
    assert window.model_action in window.menuBar().actions()[-2].menu().actions()  # Tools
    window.panels["model_step"].reject()


@pytest.mark.parametrize(
    "name, key",
    [("inspector", Qt.Key.Key_I), ("privacy", Qt.Key.Key_P)],
    ids=["inspector", "privacy"],
)
def test_esc_closes_the_panel_however_it_was_brought_up(qtbot, window, name, key):
    control = Qt.KeyboardModifier.ControlModifier
    _active(qtbot, window)
    window.composer.input.setFocus()
    press_key(qtbot, key, control)
    panel = window.panels[name]
    qtbot.waitUntil(lambda: QApplication.activeWindow() is panel)
    press_key(qtbot, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: name not in window.panels)

    # Open again, back to the chat, and Ctrl+I / Ctrl+P once more: it comes forward, and Esc,
    # pressed there, closes it (the keys used to go on to the window behind).
    _active(qtbot, window)
    press_key(qtbot, key, control)
    panel = window.panels[name]
    qtbot.waitUntil(lambda: QApplication.activeWindow() is panel)
    _active(qtbot, window)
    window.composer.input.setFocus()
    press_key(qtbot, key, control)
    assert window.panels[name] is panel
    qtbot.waitUntil(lambda: QApplication.activeWindow() is panel)  # it has the keyboard
    press_key(qtbot, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: name not in window.panels)
    assert window.isVisible() and window.session is not None  # only the panel closed
