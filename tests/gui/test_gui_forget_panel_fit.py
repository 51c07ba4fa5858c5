"""The /forget panel shows what it asks about: the focused Forget button's semi-bold label is
not cut, and the "also goes" lines are on screen without scrolling."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFont, QFontMetrics

from tests.gui_steps import forget_asked

pytestmark = pytest.mark.gui

ALSO = "also goes with those exchanges"


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
    panel = forget_asked(qtbot, window, "coffee")
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
    panel = forget_asked(qtbot, window, "citalopram")
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


def _screen_rect(widget):
    """Where the widget is on screen, as far as it is drawn (a parent may cut it)."""
    visible = widget.visibleRegion().boundingRect()
    return QRect(widget.mapToGlobal(visible.topLeft()), visible.size())


def test_the_panel_text_never_overlaps_in_a_short_window(qtbot, qapp, window, memory):
    """At the largest text in the smallest window (a 1366x768 screen at 1.5x is 910x512) the
    panel had less height than its lines: the hint was drawn on top of the "also goes" lines
    and the buttons on the list. Now its lines scroll; each is whole and apart."""
    from app import theme

    _learn(memory, "My name is Maria and I take metformin every morning.",
           "I live in Porto, where I buy metformin at the pharmacy.")
    try:
        while window.settings.text_size < theme.MAX_SIZE:
            window.bigger_action.trigger()
        window.resize(window.minimumSize())
        qtbot.waitUntil(lambda: window.size() == window.minimumSize())
        panel = forget_asked(qtbot, window, "metformin")
        qtbot.waitUntil(lambda: any(ALSO in row.text() for row in _rows(panel)))
        qtbot.wait(20)  # the layouts' requests, posted by the resize, are handled
        parts = [panel.title, panel.list, panel.hint, panel.cancel_button, panel.forget_button]
        assert _whole(panel.hint)  # it is read without scrolling (no key scrolled to it)
        for number, part in enumerate(parts):
            assert part.height() >= part.minimumSizeHint().height(), part
            if part.hasHeightForWidth():  # a wrapped line has room for all its lines
                assert part.height() >= part.heightForWidth(part.width()), part
            for other in parts[number + 1 :]:
                if part.isVisible() and other.isVisible():
                    overlap = _screen_rect(part).intersected(_screen_rect(other))
                    assert overlap.isEmpty(), (part, other, overlap)
        # Tab from Cancel back to the list: where the lines scroll, the list comes into view
        bar = panel.lines.verticalScrollBar()
        assert bar.maximum() > 0  # they do scroll here
        bar.setValue(bar.maximum())
        qtbot.keyClick(panel.cancel_button, Qt.Key.Key_Tab, Qt.KeyboardModifier.ShiftModifier)
        assert panel.list.hasFocus()
        viewport = panel.lines.viewport()
        rows = panel.list.visualItemRect(panel.list.currentItem() or panel.list.item(0))
        row = QRect(panel.list.viewport().mapTo(viewport, rows.topLeft()), rows.size())
        assert row.top() >= 0 and row.bottom() <= viewport.height(), (row, viewport.rect())
    finally:
        theme.apply_look(qapp, "light", theme.BASE_SIZE)  # the next test at the normal size


def _whole(widget) -> bool:
    """All of the widget is drawn: no parent (a scroll area, the window) cuts any of it."""
    return widget.isVisible() and widget.visibleRegion().boundingRect() == widget.rect()


def test_the_panel_is_whole_in_a_scaled_laptop_window(qtbot, window, memory):
    """From a walkthrough (1366x768 at 1.5x: a 911x452 window, normal text): the hint was cut
    through its first line in a scrolled part no key could scroll, under 140 px of empty
    conversation. The conversation gives way: the title, every row and the hint are whole."""
    # five rows, as in the walkthrough ("My dog is called Biscuit" would add "dog: Biscuit" to
    # the profile and a sixth row, which scrolls at this size: the test above)
    _learn(memory, "I have a beagle, Biscuit, and he is lovely.",
           "I walk Biscuit every evening in the park.", "Biscuit likes carrots.")
    window.resize(911, 452)
    qtbot.waitUntil(lambda: window.size().height() == 452)
    composer = window.composer.height()
    panel = forget_asked(qtbot, window, "Biscuit")
    qtbot.waitUntil(lambda: panel.lines.verticalScrollBar().maximum() == 0)  # once laid out
    assert len(_rows(panel)) >= 5
    for part in (panel.title, panel.list, panel.hint, panel.cancel_button, panel.forget_button):
        assert _whole(part), part
    assert panel.hint.height() >= panel.hint.heightForWidth(panel.hint.width())
    assert all(_on_screen(panel, row) for row in _rows(panel))
    assert window.composer.height() == composer  # the message box keeps its height

    # Closed, the conversation takes its room back
    qtbot.keyClick(panel.cancel_button, Qt.Key.Key_Escape)
    assert not panel.isVisible()
    qtbot.waitUntil(lambda: window.view.height() >= window.view.minimumSizeHint().height())
