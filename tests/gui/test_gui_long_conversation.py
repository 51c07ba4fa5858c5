"""A conversation longer than the window draws (200 exchanges) is shown by its most recent
exchanges: the first ones of a long conversation were drawn instead, and what the person said
last, the part the next message continues, was not on screen. Above them a line says how many
earlier ones there are and draws them on a click (they were left out without a word), and a
search result further back is drawn when it is opened (it was not there to scroll to)."""

from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.gui

EXCHANGES = 205


@pytest.fixture
def long_one(memory):
    """205 exchanges of one conversation from an earlier run, in the encrypted vault."""
    conversation = memory.new_conversation()
    start = time.time() - EXCHANGES * 60
    for n in range(EXCHANGES):
        memory.add_memory(f"Question number {n}", f"Answer number {n}", timestamp=start + n * 60)
    memory.close()  # the app is quit; it opens the vault again below
    return conversation


def test_a_long_conversation_opens_at_its_most_recent_exchanges(
    qtbot, long_one, memory, desktop
):
    window, opener = desktop(memory.path)
    with qtbot.waitSignal(window.session_attached, timeout=30_000):
        opener.start()
    last = f"Answer number {EXCHANGES - 1}"
    qtbot.waitUntil(lambda: last in window.view.plain_text(), timeout=20_000)
    text = window.view.plain_text()
    assert "Question number 4\n" not in text + "\n"  # the oldest five are the ones left out
    assert window.session.mem.conversation_id == long_one  # the next message continues it

    window.reload_conversation()  # as after something was forgotten: the same end is drawn
    qtbot.waitUntil(lambda: not window.reloading)
    assert last in window.view.plain_text()


def _click_link(qtbot, view, href: str) -> None:
    """Click the link `href` in the conversation, where it is drawn."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QTextCursor

    document = view.browser.document()
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().anchorHref() == href:
                cursor = QTextCursor(document)
                cursor.setPosition(fragment.position() + 1)
                view.browser.setTextCursor(cursor)
                view.browser.ensureCursorVisible()
                qtbot.wait(50)
                point = view.browser.cursorRect(cursor).center()
                qtbot.mouseClick(view.browser.viewport(), Qt.MouseButton.LeftButton, pos=point)
                return
            it += 1
        block = block.next()
    raise AssertionError(f"no link {href!r} drawn")


@pytest.fixture
def opened(qtbot, long_one, memory, desktop):
    """The app started on the long conversation, its last exchange drawn."""
    window, opener = desktop(memory.path)
    with qtbot.waitSignal(window.session_attached, timeout=30_000):
        opener.start()
    qtbot.waitUntil(lambda: f"Answer number {EXCHANGES - 1}" in window.view.plain_text(),
                    timeout=20_000)
    return window


def test_a_line_above_says_how_many_earlier_exchanges_and_draws_them(qtbot, opened):
    window = opened
    hidden = EXCHANGES - 200
    assert f"{hidden} earlier exchanges of this conversation not shown" in window.view.plain_text()

    _click_link(qtbot, window.view, "earlier:")
    qtbot.waitUntil(lambda: "Question number 0\n" in window.view.plain_text() + "\n",
                    timeout=20_000)
    text = window.view.plain_text()
    assert "earlier exchange" not in text  # all are drawn now: the line is gone
    assert f"Answer number {EXCHANGES - 1}" in text
    assert window.view.browser.verticalScrollBar().value() > 0  # not thrown to the top

    window.reload_conversation()  # a redraw (after a forget) keeps what was asked for
    qtbot.waitUntil(lambda: not window.reloading)
    assert "Question number 0\n" in window.view.plain_text() + "\n"


def test_a_search_result_further_back_than_those_drawn_is_drawn_and_shown(
    qtbot, long_one, opened
):
    window = opened
    first = window.session.mem.pages(conversation_id=long_one, limit=1)[0]
    assert "Question number 1\n" not in window.view.plain_text() + "\n"

    window.open_conversation(long_one, first.id)
    qtbot.waitUntil(lambda: "Question number 1\n" in window.view.plain_text() + "\n",
                    timeout=20_000)
    assert first.id in window.view.page_ids()
    assert f"Answer number {EXCHANGES - 1}" in window.view.plain_text()  # and on to the end


def test_pages_newest_gives_the_last_ones_oldest_first(memory):
    conversation = memory.new_conversation()
    for n in range(5):
        memory.add_memory(f"q{n}", f"a{n}", timestamp=1_700_000_000 + n)
    latest = memory.pages(conversation_id=conversation, limit=2, newest=True)
    assert [p.user_input for p in latest] == ["q3", "q4"]
    assert [p.user_input for p in memory.pages(conversation_id=conversation, limit=2)] == [
        "q0", "q1"]
