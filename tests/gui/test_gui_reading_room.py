"""The conversation reads well at any size: open "Used N memories" lists stay open across a
new text size, lines keep a readable length in a wide window, a "Learned" notice keeps its
"Manage" with its text, and a conversation opened from the sidebar stays under its own day."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

pytestmark = pytest.mark.gui

DAY = 86400
LONG = ("Lentils want a long simmer with cumin, ginger and a little tomato, and they keep "
        "well for days in a cold larder. ") * 6


def _smallest_window(qtbot, window) -> None:
    window.resize(window.minimumSize())
    qtbot.waitUntil(lambda: window.size() == window.minimumSize())
    qtbot.wait(20)  # the layouts' requests, posted by the resize, are handled


def _line_lengths(view, text: str) -> list[int]:
    """How many characters each line of the paragraph starting with `text` holds on screen."""
    found = view.browser.document().find(text[:40])
    assert not found.isNull(), text[:40]
    layout = found.block().layout()
    return [layout.lineAt(n).textLength() for n in range(layout.lineCount())]


def _list_lines(view, message) -> int:
    """The lines of the Remembered list under an answer: 1 closed, 1 + its items open."""
    frame = message.remembered_frame
    document = view.browser.document()
    block, lines = document.findBlock(frame.firstPosition()), 0
    while block.isValid() and block.position() < frame.lastPosition():
        lines, block = lines + 1, block.next()
    return lines


# --- 1. an open list stays open across a new text size ----------------------------------


def test_an_open_remembered_list_stays_open_and_in_view_across_a_text_size_change(
    qtbot, window, chat, memory, send, look_back
):
    memory.add_memory("My sister lives in Porto", "Lovely city.")
    memory.add_memory("I am allergic to peanuts", "Noted.")
    window.resize(900, 560)
    for n in range(6):
        chat.queue(f"Answer {n}. " + LONG)
        send(window, f"Question {n} about peanuts and Porto")
    view = window.view
    opened = view.messages[5]  # the third answer, higher up
    assert opened.role == "assistant" and opened.memories
    view.scroll_to(opened)
    view.toggle_remembered(opened)
    qtbot.wait(20)
    assert _list_lines(view, opened) == len(opened.memories) + 1
    page_id = opened.page_id
    for action in (window.bigger_action, window.smaller_action):
        with qtbot.waitSignal(window.conversation_shown, timeout=5000):
            action.trigger()
        qtbot.wait(50)  # its place is put back after the redraw's own scrolls
        (message,) = [m for m in view.messages if m.page_id == page_id and m.role == "assistant"]
        assert _list_lines(view, message) == len(message.memories) + 1, "folded"
        # still where it was read: that answer's list is in view, not the end
        layout = view.browser.document().documentLayout()
        rect = layout.frameBoundingRect(message.remembered_frame)
        top = view.browser.verticalScrollBar().value()
        bottom = top + view.browser.viewport().height()  # (a pixel's rounding either way)
        assert top - 2 <= rect.top() and rect.bottom() <= bottom + 2, (
            rect, top, view.browser.viewport().height())
    # drawn again for another reason than the text size, it stays open too; closed, closed
    view.toggle_remembered(message)
    with qtbot.waitSignal(window.conversation_shown, timeout=5000):
        window.bigger_action.trigger()
    assert all(_list_lines(view, m) == 1 for m in view.messages if m.remembered_frame)


# --- 2. a readable line length in a wide window -----------------------------------------


def test_in_a_wide_window_lines_keep_a_readable_length_and_at_the_smallest_use_the_width(
    qtbot, window, chat, send
):
    chat.queue(LONG)
    send(window, "How do I cook lentils? " * 12)
    view = window.view
    window.resize(2500, 800)
    qtbot.waitUntil(lambda: view.browser.viewport().width() > 2000)
    qtbot.wait(20)
    answer, question = _line_lengths(view, LONG), _line_lengths(view, "How do I cook")
    assert 60 <= max(answer) <= 95 and 60 <= max(question) <= 95, (answer, question)
    # a centred column: as much room left of the question as right of the answer
    layout = view.browser.document().documentLayout()
    you, it = (layout.frameBoundingRect(m.frame) for m in view.messages)
    page = view.browser.document().size().width()
    assert abs(it.left() - (page - you.right())) <= 2, (it, you, page)

    _smallest_window(qtbot, window)
    qtbot.wait(20)
    answer = _line_lengths(view, LONG)
    room = view.browser.viewport().width()
    characters = room / view.browser.fontMetrics().averageCharWidth()
    assert max(answer) >= characters * 0.6, (answer, room)  # the width is used, not a column


# --- 4. opening a conversation does not move it under "Today" ----------------------------


def _groups(sidebar) -> dict[str, list[str]]:
    tree = sidebar.tree
    return {
        tree.topLevelItem(i).text(0): [
            tree.topLevelItem(i).child(j).text(0) for j in range(tree.topLevelItem(i).childCount())
        ]
        for i in range(tree.topLevelItemCount())
    }


def test_an_older_conversation_moves_under_today_only_when_it_goes_on(
    qtbot, window, memory, send
):
    conversation = memory.new_conversation()
    memory.add_memory("Plan a hike in Marin", "The Dipsea trail.", timestamp=time.time() - 3 * DAY)
    memory.new_conversation()
    window.sidebar.refresh()
    qtbot.waitUntil(lambda: len(window.sidebar.rows()) == 1)
    before = _groups(window.sidebar)
    assert "Today" not in before
    row = window.sidebar.row_of(conversation)
    with qtbot.waitSignal(window.conversation_shown, timeout=5000):
        qtbot.mouseClick(window.sidebar.tree.viewport(), Qt.MouseButton.LeftButton,
                         pos=window.sidebar.tree.visualItemRect(row).center())
    window.sidebar.refresh()
    with qtbot.waitSignal(window.sidebar.refreshed, timeout=5000):
        pass
    assert _groups(window.sidebar) == before  # opened, read: where it was
    with qtbot.waitSignal(window.sidebar.refreshed, timeout=10_000):
        send(window, "Which trail is shorter?")
    assert _groups(window.sidebar) == {"Today": ["Plan a hike in Marin"]}


# --- 5. a "Learned" notice keeps "Manage" with its text --------------------------------


def test_a_learned_notice_keeps_manage_with_its_text_at_any_width(
    qtbot, window, chat, memory, send
):
    said = "I am allergic to peanuts and to tree nuts of every kind, cashews included"
    window.resize(980, 720)
    chat.queue("Noted, no nuts.")
    send(window, said)
    with qtbot.waitSignal(window.learned_notices.checked, timeout=5000):
        memory.run_consolidation()
    view = window.view
    qtbot.waitUntil(lambda: "Learned: " in view.plain_text())
    (message,) = [m for m in view.messages if m.notices_frame is not None]

    def lines() -> list[str]:
        cursor = QTextCursor(view.browser.document())
        cursor.setPosition(message.notices_frame.firstPosition())
        layout = cursor.block().layout()
        text = cursor.block().text()
        return [text[line.textStart():line.textStart() + line.textLength()]
                for line in map(layout.lineAt, range(layout.lineCount()))]

    for width in (980, 760, 1300, 2000):
        window.resize(width, 720)
        qtbot.waitUntil(lambda w=width: window.width() == w)
        qtbot.wait(20)
        shown = lines()
        # the whole of what was learned, and the links on the line of its last word
        assert "".join(shown).replace("\u00a0", " ").startswith(f"Learned: {said}"), shown
        assert shown[-1].rstrip().endswith("Manage") and "Undo" in shown[-1], (width, shown)
        assert "included" in shown[-1], (width, shown)  # "· Manage" is not alone on its line
        assert view.plain_text().count("Learned: ") == 1

    # the whole of it is kept: it reads whole where there is room, and in the tooltip
    cursor = view.browser.document().find("Learned: ")
    cursor.movePosition(QTextCursor.MoveOperation.NextCharacter)
    assert said in view.plain_text() or said in cursor.charFormat().toolTip()
