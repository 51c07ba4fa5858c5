"""Exchanges another process (the MCP server's add_memory) adds to the conversation on screen
appear in it, in time order and once, without waiting for a click elsewhere and back."""

from __future__ import annotations

import datetime as dt
import time

import pytest

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("quick_outside_checks")]

OUTSIDE = "Agent note: the spare key is under the blue pot"
ELSEWHERE = "Agent note: the bike lock code is 4417"


def _open(qtbot, window, conversation_id: str) -> None:
    """Show a stored conversation, as a click in the sidebar does; the first check is back."""
    with qtbot.waitSignal(window.conversation_shown, timeout=5000):
        window.open_conversation(conversation_id)
    qtbot.waitUntil(lambda: window.session._outside_version is not None)


def _write_elsewhere(elsewhere, *exchanges: tuple) -> list:
    """What `memoryos mcp` does: its own connection to the vault file, its own commits."""
    with elsewhere() as server:
        return [server.add_memory(q, a, ts, conversation_id=c) for q, a, ts, c in exchanges]


def _clock(timestamp: float) -> str:
    return f"{dt.datetime.fromtimestamp(timestamp):%H:%M}"


def test_an_exchange_added_elsewhere_shows_once_in_the_open_conversation(
    qtbot, window, memory, elsewhere, send
):
    now = time.time()
    first = memory.add_memory("My cat is called Miso", "Noted.", now - 7200)
    cid = first.conversation_id
    other = memory.add_memory("Something in another chat", "Noted.", now - 7000,
                              conversation_id="another-conversation")
    _open(qtbot, window, cid)

    later = now - 47 * 60
    _write_elsewhere(elsewhere, (OUTSIDE, "Saved.", later, cid),
                     (ELSEWHERE, "Saved.", later, other.conversation_id))
    window.session.check_outside()

    view = window.view
    qtbot.waitUntil(lambda: OUTSIDE in view.plain_text(), timeout=5000)
    text = view.plain_text()
    assert text.count(OUTSIDE) == 1 and text.count("My cat is called Miso") == 1
    assert ELSEWHERE not in text  # written to another conversation
    assert text.index("Miso") < text.index(OUTSIDE)
    assert _clock(later) in text[text.index("Miso"):]  # with its own time
    assert _clock(later) != _clock(first.timestamp)

    # The window's own exchange, then another one from elsewhere: each shows once.
    answer = send(window, "What is my cat called?")
    assert answer.page is not None and answer.page.conversation_id == cid
    _write_elsewhere(elsewhere, ("Agent note: Miso is due at the vet", "Saved.", None, cid))
    window.session.check_outside()
    qtbot.waitUntil(lambda: "due at the vet" in view.plain_text(), timeout=5000)
    text = view.plain_text()
    assert text.count(OUTSIDE) == 1 and text.count("What is my cat called?") == 1
    assert text.count("due at the vet") == 1 and ELSEWHERE not in text
    assert text.index(OUTSIDE) < text.index("What is my cat called?") < text.index("the vet")
    assert len(view.page_ids()) == 4

    # More checks with nothing new written draw nothing again.
    window.session.check_outside()
    qtbot.wait(300)
    assert view.plain_text() == text


def test_an_exchange_written_while_an_answer_streams_waits_for_its_end(
    qtbot, window, memory, elsewhere, chat
):
    from PySide6.QtCore import Qt

    first = memory.add_memory("My cat is called Miso", "Noted.", time.time() - 600)
    _open(qtbot, window, first.conversation_id)
    story = " ".join(f"word{n}" for n in range(60))
    chat.queue(story)
    chat.chunk_delay = 0.05
    window.composer.input.setPlainText("Tell me a story")
    with qtbot.waitSignal(window.answer_finished, timeout=15_000) as blocker:
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: len(window.view.answer_text()) > 0)
        with qtbot.waitSignal(window.session.outside_written, timeout=5000):
            _write_elsewhere(elsewhere, (OUTSIDE, "Saved.", None, first.conversation_id))
        qtbot.wait(200)
        assert window.session.generating  # seen while the answer streams...
        assert OUTSIDE not in window.view.plain_text()  # ...and not drawn into it
    assert blocker.args[0].text.endswith("word59")

    qtbot.waitUntil(lambda: OUTSIDE in window.view.plain_text(), timeout=5000)
    text = window.view.plain_text()
    assert text.count(OUTSIDE) == 1 and text.count("Tell me a story") == 1
    assert "word58 word59" in text
    assert len(window.view.page_ids()) == 3


def test_reading_higher_up_stays_in_place_and_at_the_end_it_follows(
    qtbot, window, memory, elsewhere
):
    now = time.time() - 3600
    pages = [memory.add_memory(f"Question number {n} " + "word " * 60, "Answer. " * 40, now + n)
             for n in range(12)]
    cid = pages[0].conversation_id
    _open(qtbot, window, cid)
    bar = window.view.browser.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())
    qtbot.wait(600)  # the window's first layout is done (its queued scrolls have run)
    bar.setValue(0)  # reading the beginning
    qtbot.wait(100)
    assert bar.value() == 0

    _write_elsewhere(elsewhere, (OUTSIDE, "Saved.", None, cid))
    qtbot.waitUntil(lambda: OUTSIDE in window.view.plain_text(), timeout=5000)
    qtbot.wait(100)  # the view's queued scrolls, if any, have run
    assert bar.value() == 0

    bar.setValue(bar.maximum())  # at the end: the next one is scrolled into view
    _write_elsewhere(elsewhere, (ELSEWHERE, "Saved.", None, cid))
    qtbot.waitUntil(lambda: ELSEWHERE in window.view.plain_text(), timeout=5000)
    qtbot.waitUntil(lambda: bar.value() == bar.maximum() > 0)


def test_an_exchange_dated_earlier_goes_in_its_place(qtbot, window, memory, elsewhere):
    now = time.time()
    first = memory.add_memory("My cat is called Miso", "Noted.", now - 600)
    memory.add_memory("My dog is called Pip", "Noted.", now - 300, conversation_id=first.conversation_id)
    _open(qtbot, window, first.conversation_id)

    _write_elsewhere(elsewhere, (OUTSIDE, "Saved.", now - 450, first.conversation_id))
    qtbot.waitUntil(lambda: OUTSIDE in window.view.plain_text(), timeout=5000)
    text = window.view.plain_text()
    assert text.index("Miso") < text.index(OUTSIDE) < text.index("Pip")
    assert text.count(OUTSIDE) == 1 and text.count("Pip") == 1


def test_a_temporary_chat_is_left_as_it_is(qtbot, window, memory, elsewhere, send):
    import re

    first = memory.add_memory("My cat is called Miso", "Noted.")
    _open(qtbot, window, first.conversation_id)
    window.temporary_action.trigger()
    send(window, "A question nobody keeps")
    shown = window.view.plain_text()

    _write_elsewhere(elsewhere, (OUTSIDE, "Saved.", None, first.conversation_id),
                     (ELSEWHERE, "Saved.", None, window.session.mem.conversation_id))
    # The status line counts the write: the window has seen it.
    qtbot.waitUntil(lambda: re.search(r"\b3 recent", window.status.memory.text()), timeout=5000)
    qtbot.wait(300)
    assert window.view.plain_text() == shown
