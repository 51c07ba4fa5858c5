"""A long paste in the conversation window: the message box says beforehand when it is more
than the model reads at once, the answer's first line says the model is reading it (and for
how long), and the message is shown folded, whole to copy and to search."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QTextCursor

pytestmark = pytest.mark.gui

LINES = [f"Line {n}: the quarterly figures for region {n} went up a little." for n in range(300)]
PASTE = "\n".join(LINES)  # about 20,000 characters, as in the walkthrough
WORDS = " ".join(["report"] * 4000)  # 28,000 characters of words on one line


def _note(window) -> str:
    note = getattr(window.composer, "length_note", None)  # beside Send, under the box
    return note.text() if note is not None and note.isVisible() else ""


def _type(qtbot, window, text: str) -> None:
    """Put `text` in the message box (a paste) and wait for the box to have measured it."""
    with qtbot.waitSignal(window.composer.measured, timeout=5000):
        window.composer.input.setPlainText(text)


# --- before sending: more than the model reads at once -----------------------------------


def test_a_message_longer_than_the_model_reads_is_said_so_before_sending(
    qtbot, window, chat, memory
):
    window.composer.input.setPlainText(WORDS)  # pasted
    qtbot.waitUntil(lambda: bool(_note(window)), timeout=5000)  # said a moment later
    note = _note(window)
    assert "about 4,000 words" in note  # its length, in words a person counts
    assert "more than the model can read at once" in note
    assert "Only its beginning and end will be read." in note  # what the model does with it
    assert window.composer.send_button.isEnabled()  # it can still be sent

    # Shortened to what fits: the warning goes.
    _type(qtbot, window, " ".join(["report"] * 300))
    assert not _note(window)

    # Sent anyway: it goes, the warning with it.
    _type(qtbot, window, WORDS)
    assert _note(window)
    with qtbot.waitSignal(window.answer_finished, timeout=10_000):
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    assert not _note(window)
    assert memory.pages()[-1].user_input == WORDS


def test_a_short_message_says_nothing_about_its_length(qtbot, window):
    _type(qtbot, window, "How long should I boil an egg? " * 30)  # long enough to be measured
    assert not _note(window)


# --- while the model reads it -------------------------------------------------------------


def test_a_long_message_shows_the_model_reading_it_and_for_how_long(qtbot, window, chat):
    """The walkthrough: "Thinking…" for 75-135 s with nothing moving. Now the first line says
    the message is being read and counts the seconds, redrawn once a second."""
    chat.queue("Here is the summary.")
    chat.chunk_delay = 1.6  # the model reads for a while before its first word
    view = window.view
    document = view.browser.document()
    changes: list[float] = []
    window.composer.input.setPlainText(PASTE)
    with qtbot.waitSignal(window.answer_finished, timeout=15_000):
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
        started = time.monotonic()
        assert "Reading your message…" in view.plain_text()
        document.contentsChanged.connect(lambda: changes.append(time.monotonic()))
        qtbot.waitUntil(lambda: "Reading your message… 1 s" in view.plain_text(), timeout=3000)
        waited = time.monotonic() - started
        assert len(changes) <= waited + 1  # once a second, not all the time
    chat.chunk_delay = 0.0
    text = view.plain_text()
    assert "Here is the summary." in text and "Reading your message" not in text


def test_a_short_message_still_thinks(qtbot, window, chat):
    chat.queue("Hello.")
    chat.chunk_delay = 0.3
    window.composer.input.setPlainText("Hi")
    with qtbot.waitSignal(window.answer_finished, timeout=10_000):
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
        assert "Thinking…" in window.view.plain_text()
        assert "Reading your message" not in window.view.plain_text()
    chat.chunk_delay = 0.0


# --- shown folded ---------------------------------------------------------------------------


def _click_text(qtbot, view, text: str) -> None:
    found = view.browser.document().find(text)
    assert not found.isNull(), text
    cursor = QTextCursor(view.browser.document())
    cursor.setPosition(found.selectionStart() + 2)
    view.browser.ensureCursorVisible()
    view.browser.setTextCursor(cursor)
    view.browser.ensureCursorVisible()
    point = view.browser.cursorRect(cursor).center()
    qtbot.mouseClick(view.browser.viewport(), Qt.MouseButton.LeftButton, pos=point)


def test_a_long_message_is_folded_and_unfolds_in_place(qtbot, window, chat, send):
    view = window.view
    send(window, PASTE)
    question = view.messages[-2]
    text = view.plain_text()
    assert LINES[0] in text and LINES[5] in text
    assert LINES[200] not in text and LINES[-1] not in text
    assert "Show all (300 lines)" in text
    bar = view.browser.verticalScrollBar()
    assert bar.maximum() < 3 * view.browser.viewport().height()  # not 85 wheel clicks

    _click_text(qtbot, view, "Show all (300 lines)")
    text = view.plain_text()
    assert LINES[200] in text and LINES[-1] in text and "Show less" in text
    assert text.index(LINES[-1]) < text.index("I remember.")  # in place: above the answer

    _click_text(qtbot, view, "Show less")
    text = view.plain_text()
    assert LINES[200] not in text and "Show all (300 lines)" in text
    assert question.text == PASTE

    # Copying the message copies all of it, folded or not.
    menu = view.context_menu(view.point_of(question))
    (copy,) = [a for a in menu.actions() if a.text().replace("&", "") == "Copy message"]
    copy.trigger()
    assert QGuiApplication.clipboard().text() == PASTE


def test_a_long_paste_on_one_line_is_folded_by_its_words(qtbot, window, chat, send):
    send(window, WORDS)
    text = window.view.plain_text()
    assert "Show all (4,000 words)" in text
    assert text.count("report") < 400


def test_a_short_message_is_not_folded(qtbot, window, chat, send):
    send(window, "\n".join(LINES[:20]))
    text = window.view.plain_text()
    assert LINES[19] in text and "Show all" not in text


def test_a_search_result_in_the_folded_part_unfolds_it(qtbot, window, memory):
    """Searching the conversations finds a word far down a long message; opening the result
    unfolds the message and shows that word."""
    lines = list(LINES)
    lines[250] = "Line 250: the auditor from Zanzibar signed off on it."
    memory.add_memory("\n".join(lines), "Thanks, I read it.")
    memory.new_conversation()
    sidebar, view = window.sidebar, window.view
    qtbot.waitUntil(lambda: len(sidebar.rows()) == 1)
    with qtbot.waitSignal(sidebar.searched):
        sidebar.search.setText("zanzibar")
    cursor = sidebar.results.document().find("Zanzibar")
    cursor.setPosition(cursor.selectionStart() + 1)
    point = sidebar.results.cursorRect(cursor).center()
    with qtbot.waitSignal(window.conversation_shown):
        qtbot.mouseClick(sidebar.results.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert lines[250] in view.plain_text() and "Show less" in view.plain_text()

    def word_in_view() -> bool:
        found = view.browser.document().find("Zanzibar")
        rect = view.browser.cursorRect(found)
        return 0 <= rect.top() and rect.bottom() <= view.browser.viewport().height()

    qtbot.waitUntil(word_in_view)
