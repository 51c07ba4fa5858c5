"""The conversation by keyboard: Tab from link to link repaints the accent ring whole at the
new link and leaves none of it at the old one (pieces were left, like an underline under
"Undo", and the new ring lacked its top and bottom), and Home, End, Ctrl+Home and Ctrl+End
scroll the conversation to its top and end when it has the focus (they did nothing)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor, QTextCursor

from app import theme
from tests.gui_steps import focus_by_tab

pytestmark = pytest.mark.gui


def _on_screen(browser):
    """The viewport as the screen shows it: what was last painted there, not a fresh drawing
    (QWidget.grab paints everything again, so it hides parts left unpainted)."""
    viewport = browser.viewport()
    at = viewport.mapToGlobal(QPoint(0, 0))
    shown = viewport.screen().grabWindow(0, at.x(), at.y(), viewport.width(), viewport.height())
    return shown.toImage().scaled(viewport.width(), viewport.height())  # at 1.5x: 1.5 as big


def _accent_pixels(image, rect: QRect) -> int:
    accent = QColor(theme.color(theme.ACCENT))
    count = 0
    for x in range(max(rect.left(), 0), min(rect.right() + 1, image.width())):
        for y in range(max(rect.top(), 0), min(rect.bottom() + 1, image.height())):
            pixel = image.pixelColor(x, y)
            if (abs(pixel.red() - accent.red()) + abs(pixel.green() - accent.green())
                    + abs(pixel.blue() - accent.blue())) <= 24:
                count += 1
    return count


def _ring_area(browser) -> QRect:
    """The link the keyboard is on, with the room its ring takes round it."""
    cursor = browser.textCursor()
    start, end = QTextCursor(cursor), QTextCursor(cursor)
    start.setPosition(cursor.selectionStart())
    end.setPosition(cursor.selectionEnd())  # Shift+Tab leaves the cursor at the start
    return browser.cursorRect(start).united(browser.cursorRect(end)).adjusted(-7, -5, 7, 5)


def _edges(image, area: QRect) -> tuple[int, int]:
    """The accent pixels above and below the link in `area`: the ring's top and bottom edges
    (the link's own text is between them)."""
    top = QRect(area.left(), area.top(), area.width(), 5)
    bottom = QRect(area.left(), area.bottom() - 4, area.width(), 5)
    return _accent_pixels(image, top), _accent_pixels(image, bottom)


def _tab_to(qtbot, browser, label: str, back: bool = False) -> None:
    for _ in range(6):
        if back:
            qtbot.keyClick(browser, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
        else:
            qtbot.keyClick(browser, Qt.Key.Key_Tab)
        if browser.textCursor().selectedText() == label:
            return
    raise AssertionError(f"Tab did not reach the {label} link")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_tab_between_links_moves_the_whole_ring(qtbot, window, qapp, look_back, scheme):
    theme.apply_look(qapp, scheme, theme.BASE_SIZE)
    view = window.view
    view.add_notice("Forgot 1 exchange", [("Undo", "undo:1")])
    view.add_user_message("Where did I park?")  # the rings apart: one is not round the other
    view.add_notice("Your memories are kept in Privacy", [("Manage", "manage:")])
    browser = view.browser
    focus_by_tab(qtbot, browser)
    _tab_to(qtbot, browser, "Undo")

    def ringed(area: QRect) -> bool:
        """Accent above and below the link along most of its width (the ring's 7 px aside)."""
        return min(_edges(_on_screen(browser), area)) >= (area.width() - 14) * 0.6

    undo = _ring_area(browser)
    qtbot.waitUntil(lambda: ringed(undo), timeout=20_000)
    left = []  # each link the keyboard left, as the screen shows it after the move
    for label, back in (("Manage", False), ("Undo", True)):
        before = _ring_area(browser)
        _tab_to(qtbot, browser, label, back)
        now = _ring_area(browser)
        qtbot.waitUntil(lambda now=now: ringed(now), timeout=20_000)
        left.append((label, before, _on_screen(browser)))
    browser.clearFocus()
    qtbot.waitUntil(lambda: _edges(_on_screen(browser), now) == (0, 0), timeout=20_000)
    plain = _on_screen(browser)  # no ring: the conversation does not have the keyboard
    for label, before, screen in left:
        # nothing of the ring is left round the link the keyboard has left
        assert _edges(screen, before) == (0, 0), label
        assert _accent_pixels(screen, before) == _accent_pixels(plain, before), label


@pytest.mark.parametrize(
    "modifier",
    [Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.NoModifier],
    ids=["Ctrl+Home, Ctrl+End", "Home, End"],
)
def test_home_and_end_scroll_the_focused_conversation(qtbot, window, modifier):
    view = window.view
    for n in range(30):
        view.add_user_message(f"Question {n}: where did I leave the blue folder?")
        view.add_assistant_message(f"Answer {n}: on the shelf by the door, under the atlas.")
    browser = view.browser
    bar = browser.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())
    focus_by_tab(qtbot, browser)
    qtbot.keyClick(browser, Qt.Key.Key_PageUp)  # somewhere in the middle, as one reads back
    middle = bar.value()
    assert 0 < middle < bar.maximum()
    qtbot.keyClick(browser, Qt.Key.Key_Home, modifier)
    qtbot.waitUntil(lambda: bar.value() == 0, timeout=20_000)
    qtbot.keyClick(browser, Qt.Key.Key_End, modifier)
    qtbot.waitUntil(lambda: bar.value() == bar.maximum(), timeout=20_000)
    assert browser.hasFocus()
