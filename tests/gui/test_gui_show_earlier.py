"""Show earlier in a long conversation puts only the earlier exchanges above those drawn (it
drew them all again: 2-3 s for the first click, 4-5 s for the second), says "Showing…" at once
while it reads, and a second request meanwhile does nothing."""

from __future__ import annotations

import time

import pytest

from tests.gui.test_gui_long_conversation import _click_link

pytestmark = pytest.mark.gui

EXCHANGES = 450


@pytest.fixture
def opened(qtbot, memory, desktop):
    """The app started on a conversation of 450 exchanges, its last 200 drawn."""
    conversation = memory.new_conversation()
    start = time.time() - EXCHANGES * 60
    long = "a line\n" * 50  # the last question is long: shown folded, with its link
    memory.add_memories([(("" if n < EXCHANGES - 1 else long) + f"Question number {n}",
                          f"Answer number {n}", start + n * 60)
                         for n in range(EXCHANGES)], conversation_id=conversation)
    memory.close()
    window, opener = desktop(memory.path)
    with qtbot.waitSignal(window.session_attached, timeout=30_000):
        opener.start()
    qtbot.waitUntil(lambda: len(window.view.messages) == 400, timeout=30_000)
    return window


def _questions(window) -> list[int]:
    return [int(m.text.split()[-1]) for m in window.view.messages if m.role == "user"]


def _on_screen(window, number: int) -> bool:
    from PySide6.QtGui import QTextCursor

    view = window.view
    message = next(m for m in view.messages if m.text == f"Question number {number}")
    cursor = QTextCursor(view.browser.document())
    cursor.setPosition(message.frame.firstPosition())
    return view.browser.viewport().rect().intersects(view.browser.cursorRect(cursor))


def test_earlier_exchanges_go_above_in_order_and_the_first_one_stays_in_view(qtbot, opened):
    window = opened
    first = window.view.messages[0]
    assert _questions(window)[0] == 250
    _click_link(qtbot, window.view, "earlier:")
    assert "Showing…" in window.view.plain_text()  # at once, before anything was read
    qtbot.waitUntil(lambda: len(window.view.messages) == 800, timeout=20_000)
    assert _questions(window) == list(range(50, EXCHANGES))  # in order, none twice
    assert first in window.view.messages  # drawn above it, not all drawn again
    qtbot.waitUntil(lambda: _on_screen(window, 250))  # where the eye was
    assert not _on_screen(window, 50)
    text = window.view.plain_text()
    assert "50 earlier exchanges of this conversation not shown" in text
    assert "Showing…" not in text

    _click_link(qtbot, window.view, "earlier:")  # the last 50
    qtbot.waitUntil(lambda: len(window.view.messages) == 2 * EXCHANGES, timeout=20_000)
    assert _questions(window) == list(range(EXCHANGES))
    qtbot.waitUntil(lambda: _on_screen(window, 50))
    assert "earlier exchange" not in window.view.plain_text()  # none left: the line is gone
    assert window.view.plain_text().count("Today") <= 1  # one day: its line once, at the top


def test_a_second_request_while_the_first_reads_does_nothing(qtbot, opened):
    window = opened
    window.show_earlier()
    window.show_earlier()  # the link's signal again, before the first has been read
    qtbot.waitUntil(lambda: len(window.view.messages) == 800, timeout=20_000)
    qtbot.wait(300)
    assert _questions(window) == list(range(50, EXCHANGES))


def test_a_link_of_an_exchange_drawn_before_still_acts_on_its_own_message(qtbot, opened):
    """The links in messages name them by their place: 200 put above moved them all."""
    window = opened
    view = window.view
    _click_link(qtbot, view, "earlier:")
    qtbot.waitUntil(lambda: len(view.messages) == 800, timeout=20_000)
    last_question = view.messages[-2]
    assert last_question.long and not last_question.unfolded
    _click_link(qtbot, view, f"longmessage:{view.messages.index(last_question)}")
    assert last_question.unfolded  # "Show all" under it unfolded it, not another message
    assert not any(m.unfolded for m in view.messages[:-2])


@pytest.mark.parametrize("meanwhile", ["new conversation", "lock"])
def test_what_was_read_for_a_view_that_changed_meanwhile_is_not_drawn(qtbot, opened, meanwhile):
    """The 200 earlier exchanges arrive after the person started a new conversation or locked
    the memory: they are not put into the new conversation, nor into a locked window."""
    window = opened
    held = []
    window._earlier_read = lambda *args: held.append(args)  # the worker's answer, held back
    window.show_earlier()
    qtbot.waitUntil(lambda: bool(held), timeout=20_000)
    del window._earlier_read
    if meanwhile == "lock":
        window.lock_now()
        assert window.session is None
    else:
        window.new_conversation()
        assert not window.view.messages

    window._earlier_read(*held[0])  # what the worker read arrives now

    assert not window.view.messages
    assert "Question number 100" not in window.view.plain_text()
