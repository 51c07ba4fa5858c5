"""The /forget panel shows what it asks about: the focused Forget button's semi-bold label is
not cut, and the "also goes" lines are on screen without scrolling."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics

pytestmark = pytest.mark.gui

ALSO = "also goes with those exchanges"


def _ask(qtbot, window, words: str):
    window.composer.input.setPlainText(f"/forget {words}")
    with qtbot.waitSignal(window.chat_actions.done, timeout=5000) as done:
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    assert done.args == ["asked"]
    return window.forget_panel


def _learn(memory, *said: str) -> None:
    for text in said:
        memory.add_memory(text, "Okay.")
        memory.run_consolidation()


def _rows(panel) -> list:
    return [panel.list.item(i) for i in range(panel.list.count())]


def _on_screen(panel, row) -> bool:
    """The row's whole height is inside the list's visible area (a long one is elided)."""
    rect = panel.list.visualItemRect(row)
    return rect.top() >= 0 and rect.bottom() <= panel.list.viewport().rect().bottom()


def test_the_focused_forget_button_fits_its_semi_bold_label(qtbot, window, memory):
    _learn(memory, "I drink coffee every morning.", "I live in Porto, where the coffee is good.")
    panel = _ask(qtbot, window, "coffee")
    assert panel.cancel_button.hasFocus()
    qtbot.keyClick(panel.cancel_button, Qt.Key.Key_Tab)
    button = panel.forget_button
    assert button.hasFocus() and button.isDefault()  # the style sheet's semi-bold look
    bold = QFont(button.font())
    bold.setWeight(QFont.Weight.DemiBold)
    # the style sheet's padding is 14 px each side
    assert button.width() >= QFontMetrics(bold).horizontalAdvance(button.text()) + 28


def test_the_also_goes_lines_are_in_view(qtbot, window, memory):
    _learn(
        memory,
        "I take 20 mg of citalopram every morning.",
        "My name is Tom and I take citalopram for anxiety.",
        "I live in Porto, where I buy citalopram at the pharmacy.",
    )
    panel = _ask(qtbot, window, "citalopram")
    choices = [row for row in _rows(panel) if row.flags() & Qt.ItemFlag.ItemIsUserCheckable]
    assert len(choices) >= 5
    also = [row for row in _rows(panel) if ALSO in row.text()]
    assert also
    assert all(_on_screen(panel, row) for row in also)

    # a fact unticked goes along with its exchange: its new line is in view too
    (fact,) = [row for row in choices if row.text().startswith("Fact") and "20 mg" in row.text()]
    before = len(also)
    fact.setCheckState(Qt.CheckState.Unchecked)
    qtbot.waitUntil(lambda: len([r for r in _rows(panel) if ALSO in r.text()]) > before)
    also = [row for row in _rows(panel) if ALSO in row.text()]
    assert any("20 mg" in row.text() for row in also)
    qtbot.waitUntil(lambda: all(_on_screen(panel, row) for row in also))  # once laid out
