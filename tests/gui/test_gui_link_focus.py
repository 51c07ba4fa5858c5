"""The link that has the keyboard in the conversation is clearly marked, in both schemes: it had
only a dotted 1 px box in the text colour, faint on the dark scheme."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from app import theme
from tests.gui_steps import focus_by_tab

pytestmark = pytest.mark.gui


def _near(image, rect, colour: QColor) -> int:
    """How many pixels of `image` within `rect` are within a few steps of `colour`."""
    count = 0
    for x in range(max(rect.left(), 0), min(rect.right() + 1, image.width())):
        for y in range(max(rect.top(), 0), min(rect.bottom() + 1, image.height())):
            pixel = image.pixelColor(x, y)
            if (abs(pixel.red() - colour.red()) + abs(pixel.green() - colour.green())
                    + abs(pixel.blue() - colour.blue())) <= 24:
                count += 1
    return count


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_focused_link_is_ringed_in_the_accent(
    qtbot, window, memory, chat, send, look_back, qapp, scheme
):
    theme.apply_look(qapp, scheme, theme.BASE_SIZE)
    memory.add_fact("I am allergic to peanuts")
    chat.queue("Avoid peanuts.")
    send(window, "what am I allergic to? peanuts")
    browser = window.view.browser
    focus_by_tab(qtbot, browser)
    for _ in range(20):
        if browser.textCursor().selectedText().startswith("\u25b8 Used"):
            break
        qtbot.keyClick(browser, Qt.Key.Key_Tab)
    else:
        raise AssertionError("Tab did not reach the Used memories link")
    cursor = browser.textCursor()
    start = browser.textCursor()
    start.setPosition(cursor.selectionStart())
    # the link's line, from its first letter to past its last, with room round it
    area = browser.cursorRect(start).united(browser.cursorRect(cursor)).adjusted(-6, -6, 6, 6)
    accent = QColor(theme.color(theme.ACCENT))
    focused = browser.viewport().grab().toImage()
    browser.clearFocus()
    qtbot.waitUntil(lambda: not browser.hasFocus())
    plain = browser.viewport().grab().toImage()
    ring = _near(focused, area, accent) - _near(plain, area, accent)
    # a 2 px ring round the link: its top and bottom, 4 px of accent down most of its width
    assert ring >= 2 * 2 * area.width() * 0.6, ring
